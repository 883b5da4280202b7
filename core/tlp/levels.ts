/**
 * FIRST TLP 2.0 (https://www.first.org/tlp/): the marking says how far information may travel.
 * casekit enforces it: a principal sees a record only when the record's TLP is at most its
 * clearance, and may not mark a record above its own clearance.
 */
export const tlpLevels = [
  {
    level: 0,
    label: "TLP:CLEAR",
    description: "Disclosure is not limited: the information may be shared freely, subject to copyright rules.",
    color: "#FFFFFF",
    policy: "Any key of the organization may see it; clearance 0 or more.",
  },
  {
    level: 1,
    label: "TLP:GREEN",
    description: "Limited disclosure: the recipients may share it within their community, but not publicly.",
    color: "#33FF00",
    policy: "Keys and users with clearance 1 or more.",
  },
  {
    level: 2,
    label: "TLP:AMBER",
    description: "Limited disclosure: the recipients may share it on a need-to-know basis within their organization and its clients.",
    color: "#FFC000",
    policy: "Keys and users with clearance 2 or more (the default marking of new records).",
  },
  {
    level: 3,
    label: "TLP:AMBER+STRICT",
    description: "Limited disclosure: the recipients may share it on a need-to-know basis within their organization only.",
    color: "#FFC000",
    policy: "Keys and users with clearance 3 or more; every sighting in a list is written to the TLP audit log.",
  },
  {
    level: 4,
    label: "TLP:RED",
    description: "For the eyes and ears of the individual recipients only, no further disclosure.",
    color: "#FF2B2B",
    policy: "Keys and users with clearance 4 only; every sighting in a list is written to the TLP audit log.",
  },
] as const;

/** Records at or above this level are audited even when they only appear in a list. */
export const tlpAuditListThreshold = 3;

export const papLevels = [
  { level: 0, label: "PAP:CLEAR", description: "No restriction on the actions taken with the information.", color: "#FFFFFF" },
  { level: 1, label: "PAP:GREEN", description: "Active actions allowed, such as blocking or sinkholing.", color: "#33FF00" },
  { level: 2, label: "PAP:AMBER", description: "Passive cross-checks only; no action that could alert the adversary.", color: "#FFC000" },
  { level: 3, label: "PAP:RED", description: "Non-detectable actions only; keep the information in the organization's own tools.", color: "#FF2B2B" },
] as const;
