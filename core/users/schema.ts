import { z } from "zod";
import { anyOf, boundedString, changeSchema, emailSchema, listResponseSchema, pageQueryShape, resourceMetaShape, tlpSchema, trimmedText } from "../schema/common.js";
import { userRoles, userStatuses } from "./types.js";

const passwordSchema = boundedString(1024, 12, "must be at least 12 characters");

export const userCreateSchema = z
  .strictObject({
    email: emailSchema,
    name: trimmedText(200),
    password: passwordSchema.optional().meta({ description: "Omit to have one generated and returned once" }),
    role: z.enum(userRoles).default("analyst"),
    tlpClearance: tlpSchema.optional().meta({ description: "Defaults to the creator's clearance" }),
  })
  .meta({ id: "UserCreate" });

export const userUpdateSchema = changeSchema({
  name: trimmedText(200),
  role: z.enum(userRoles),
  status: z.enum(userStatuses),
  tlpClearance: tlpSchema,
  password: passwordSchema,
}).meta({ id: "UserUpdate" });

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
  email: boundedString(320).optional(),
});

export const userListSchema = listResponseSchema(userSchema).meta({ id: "UserList" });
