import { z } from "zod";
import { anyOf, idSchema, listResponseSchema, pageQueryShape, resourceMetaShape } from "../schema/common.js";

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const text = (max: number) => z.string().trim().min(1).max(max);

/** Spec section 2.2: every field a string. `organizationId`, if given, must be the caller's own. */
const teamFields = {
  name: text(200),
  organizationId: z.string().max(64),
  description: z.string().max(2000),
  function: text(100).meta({ description: "What the team does, e.g. triage, forensics, threat intel" }),
  tier: text(50).meta({ description: "Support tier, e.g. L1, L2, L3" }),
  escalationTeamId: idSchema("team").meta({ description: "A team of the same organization; no escalation cycles" }),
  email: z.email().max(320),
  slackChannel: text(200),
  teamsChannel: text(200),
  timezone: z.string().max(64).refine(isTimeZone, "must be an IANA time zone such as Europe/Paris"),
};

export const teamCreateSchema = z
  .strictObject({ ...teamFields })
  .partial()
  .required({ name: true })
  .meta({ id: "TeamCreate" });

export const teamUpdateSchema = z
  .strictObject({
    name: teamFields.name,
    description: teamFields.description.nullable(),
    function: teamFields.function.nullable(),
    tier: teamFields.tier.nullable(),
    escalationTeamId: teamFields.escalationTeamId.nullable(),
    email: teamFields.email.nullable(),
    slackChannel: teamFields.slackChannel.nullable(),
    teamsChannel: teamFields.teamsChannel.nullable(),
    timezone: teamFields.timezone.nullable(),
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, "give at least one field to change")
  .meta({ id: "TeamUpdate" });

export const teamSchema = z
  .object({
    ...resourceMetaShape,
    name: z.string(),
    description: z.string().nullable(),
    function: z.string().nullable(),
    tier: z.string().nullable(),
    escalationTeamId: z.string().nullable(),
    email: z.string().nullable(),
    slackChannel: z.string().nullable(),
    teamsChannel: z.string().nullable(),
    timezone: z.string().nullable(),
  })
  .meta({ id: "Team" });

export const teamListQuerySchema = z.strictObject({
  ...pageQueryShape,
  name: z.string().max(200).optional(),
  function: anyOf(z.string().max(100)).optional(),
  tier: anyOf(z.string().max(50)).optional(),
  escalationTeamId: z.string().max(64).optional(),
});

export const teamListSchema = listResponseSchema(teamSchema).meta({ id: "TeamList" });
