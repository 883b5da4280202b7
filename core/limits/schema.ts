import { z } from "zod";
import { keyTiers } from "../keys/types.js";

/**
 * Figures that lower a tier's rate limits (never raise them), per tier: the deployment's
 * configuration and each organization's policy take this shape.
 */
export const rateLimitOverridesSchema = z.partialRecord(
  z.enum(keyTiers),
  z.strictObject({ perMinute: z.int().min(1), perHour: z.int().min(1), burst: z.int().min(1) }).partial(),
);
