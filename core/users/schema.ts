import { z } from "zod";
import { anyOf, listResponseSchema, pageQueryShape, resourceMetaShape, tlpSchema } from "../schema/common.js";
import { userRoles, userStatuses } from "./types.js";

const passwordSchema = z.string().min(12, "must be at least 12 characters").max(1024);

export const userCreateSchema = z
  .strictObject({
    email: z.email().max(320),
    name: z.string().trim().min(1).max(200),
    password: passwordSchema.optional().meta({ description: "Omit to have one generated and returned once" }),
    role: z.enum(userRoles).default("analyst"),
    tlpClearance: tlpSchema.optional().meta({ description: "Defaults to the creator's clearance" }),
  })
  .meta({ id: "UserCreate" });

export const userUpdateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    role: z.enum(userRoles),
    status: z.enum(userStatuses),
    tlpClearance: tlpSchema,
    password: passwordSchema,
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, "give at least one field to change")
  .meta({ id: "UserUpdate" });

export const userSchema = z
  .object({
    ...resourceMetaShape,
    email: z.string(),
    name: z.string(),
    role: z.enum(userRoles),
    status: z.enum(userStatuses),
    tlpClearance: z.int(),
  })
  .meta({ id: "User" });

export const userCreatedSchema = userSchema
  .extend({ password: z.string().optional().meta({ description: "The generated password, shown this once" }) })
  .meta({ id: "UserCreated" });

export const userListQuerySchema = z.strictObject({
  ...pageQueryShape,
  status: anyOf(z.enum(userStatuses)).optional(),
  role: anyOf(z.enum(userRoles)).optional(),
  email: z.string().max(320).optional(),
});

export const userListSchema = listResponseSchema(userSchema).meta({ id: "UserList" });
