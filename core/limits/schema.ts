import { z } from "zod";
import { keyTiers } from "../keys/types.js";
import { rateLimitFloors } from "./tiers.js";

/** Large enough for any real deployment, small enough that every sum stays an exact integer. */
const maxFigure = 1_000_000_000;

const figure = (name: keyof typeof rateLimitFloors, what: string) =>
  z
    .int()
    .min(rateLimitFloors[name], `must be at least ${rateLimitFloors[name]}: lower would lock the organization's own admin out`)
    .max(maxFigure)
    .meta({ description: `${what}; at least ${rateLimitFloors[name]}` });

/**
 * Rate-limit figures per tier, as the deployment's configuration and each organization's policy
 * give them. Every figure is a whole number at or above the floors (`rateLimitFloors`), so no
 * setting can lock an organization out of fixing it, and every header stays an integer.
 */
export const rateLimitOverridesSchema = z.partialRecord(
  z.enum(keyTiers),
  z
    .strictObject({
      perMinute: figure("perMinute", "Requests per minute"),
      perHour: figure("perHour", "Requests per hour"),
      burst: figure("burst", "Requests at once (the bucket's capacity)"),
    })
    .partial(),
);
