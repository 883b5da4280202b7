import { z } from "zod";
import { anyOf, boundedString, changeSchema, emailSchema, idSchema, listResponseSchema, pageQueryShape, resourceMetaShape, trimmedText } from "../schema/common.js";
import { timeZones } from "../schema/time-zones.js";

const text = trimmedText;

const timeZoneSchema = z.enum(timeZones).meta({
  id: "TimeZone",
  description: "An IANA time zone name such as Europe/Paris or America/New_York (tz database 2025b, links included; exact case)",
});

/** Spec section 2.2: every field a string. `organizationId`, if given, must be the caller's own. */
const teamFields = {
  name: text(200),
  organizationId: boundedString(64),
  description: boundedString(2000),
  function: text(100).meta({ description: "What the team does, e.g. triage, forensics, threat intel" }),
  tier: text(50).meta({ description: "Support tier, e.g. L1, L2, L3" }),
  escalationTeamId: idSchema("team").meta({ description: "A team of the same organization; no escalation cycles" }),
  email: emailSchema,
  slackChannel: text(200),
  teamsChannel: text(200),
  timezone: timeZoneSchema,
};

export const teamCreateSchema = z
  .strictObject({ ...teamFields })
  .partial()
  .required({ name: true })
  .meta({ id: "TeamCreate" });

export const teamUpdateSchema = changeSchema({
    name: teamFields.name,
    description: teamFields.description.nullable(),
    function: teamFields.function.nullable(),
    tier: teamFields.tier.nullable(),
    escalationTeamId: teamFields.escalationTeamId.nullable(),
    email: teamFields.email.nullable(),
    slackChannel: teamFields.slackChannel.nullable(),
    teamsChannel: teamFields.teamsChannel.nullable(),
    timezone: teamFields.timezone.nullable(),
  }).meta({ id: "TeamUpdate" });

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
  name: boundedString(200).optional(),
  function: anyOf(boundedString(100)).optional(),
  tier: anyOf(boundedString(50)).optional(),
  escalationTeamId: boundedString(64).optional(),
});

export const teamListSchema = listResponseSchema(teamSchema).meta({ id: "TeamList" });
