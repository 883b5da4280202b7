import { z } from "zod";
import { boundedString, changeSchema, listResponseSchema, pageQueryShape, resourceMetaShape } from "../schema/common.js";
import { syslogSinkConfigSchema } from "./config.js";
import { auditSinkStatuses } from "./types.js";

const nameSchema = boundedString(100, 1).meta({ description: "A label for people", examples: ["SOC SIEM"] });

export const auditSinkCreateSchema = z.strictObject({
  name: nameSchema,
  config: syslogSinkConfigSchema,
  status: z.enum(auditSinkStatuses).default("active"),
});

export const auditSinkUpdateSchema = changeSchema({
  name: nameSchema,
  config: syslogSinkConfigSchema.meta({ description: "Replaces the whole document" }),
  status: z.enum(auditSinkStatuses).meta({ description: "`paused` stops delivery and keeps the cursor; `active` resumes after it" }),
});

export const auditSinkListQuerySchema = z.strictObject({ ...pageQueryShape });

export const auditSinkSchema = z
  .object({
    ...resourceMetaShape,
    name: z.string(),
    config: z.object({
      target: z.string(),
      ca: z.string().optional(),
      servername: z.string().optional(),
      facility: z.int(),
      enterpriseId: z.string(),
    }),
    status: z.enum(auditSinkStatuses),
    tlpClearance: z.int().meta({ description: "The clearance it reads under (its creator's when created): values above it are redacted" }),
  })
  .meta({ id: "AuditSink" });

export const auditSinkListSchema = listResponseSchema(auditSinkSchema).meta({ id: "AuditSinkList" });

export type AuditSink = z.infer<typeof auditSinkSchema>;
