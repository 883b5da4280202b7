import type { BuiltInDataType } from "./data-types.js";

/**
 * What `data` must look like for each built-in type that has a format, as JSON Schema for the
 * OpenAPI document. data-types.ts checks and normalises the values; these say the same (or a
 * little less: the document never accepts what the server refuses) in the terms JSON Schema has.
 * test/server/fuzz.test.ts sends values generated from them and holds the two together.
 */

const alnum = "[A-Za-z0-9]";
const inner = "[A-Za-z0-9-]";
/**
 * A DNS label in ASCII: 1–63 letters, digits and hyphens, no hyphen at either end, and not
 * starting with `xn--` (any case), which domainToASCII refuses unless it is valid Punycode.
 * Spelled without look-ahead, which JSON Schema tools do not all support.
 */
const labelAlternatives = (first: string) => [
  `${first}(?:${inner}{0,61}${alnum})?`,
  "[Xx]",
  "[Xx][A-MO-Za-mo-z0-9]",
  `[Xx][A-MO-Za-mo-z0-9-]${inner}{0,60}${alnum}`,
  "[Xx][Nn]",
  `[Xx][Nn]${alnum}(?:${inner}{0,59}${alnum})?`,
  `[Xx][Nn]-${alnum}(?:${inner}{0,58}${alnum})?`,
];
const label = `(?:${labelAlternatives("[A-WYZa-wyz0-9]").join("|")})`;
/** The top-level label starts with a letter, so an IPv4 address is never taken for a name. */
const topLabel = `(?:${labelAlternatives("[A-WYZa-wyz]").join("|")})`;
const hostname = `(?:${label}\\.)+${topLabel}`;
const atext = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const hostnameSchema = { type: "string", maxLength: 253, pattern: `^${hostname}\\.?$` };

export const dataFormats: Partial<Record<BuiltInDataType, Record<string, unknown>>> = {
  ip: { anyOf: [{ type: "string", format: "ipv4" }, { type: "string", format: "ipv6" }] },
  domain: hostnameSchema,
  fqdn: hostnameSchema,
  hash: { type: "string", pattern: "^(?:[0-9A-Fa-f]{32}|[0-9A-Fa-f]{40}|[0-9A-Fa-f]{64}|[0-9A-Fa-f]{128})$" },
  mail: { type: "string", maxLength: 254, pattern: `^${atext}{1,64}@${hostname}$` },
  url: { type: "string", format: "uri", pattern: "^(?:[Hh][Tt][Tt][Pp][Ss]?|[Ff][Tt][Pp])://[^\\s\\u0000-\\u001f\\u007f/?#@]+(?:[/?#][^\\s\\u0000-\\u001f\\u007f]*)?$" },
};

/** `dataFormats` as the conditions of a create body: with this dataType, data has this shape. */
export const dataFormatConditions = {
  allOf: Object.entries(dataFormats).map(([type, data]) => ({
    if: { properties: { dataType: { const: type } }, required: ["dataType"] },
    then: { properties: { data } },
  })),
};
