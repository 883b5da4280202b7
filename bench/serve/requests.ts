/** The request bodies the scenarios send. */
export const createBody = JSON.stringify({ title: "Suspicious sign-in from a new country", severity: 2, tags: [{ name: "bench" }] });
