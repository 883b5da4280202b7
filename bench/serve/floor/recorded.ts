/** One line of the statement log record-sql.ts writes, and how its parameters travel as JSON. */
export type Recorded =
  | {
      kind: "call";
      /** Which connection of the process (numbered in order of first use). */
      connection: number;
      /** Read-only connections are the storage's readers; the one other is the writer. */
      readonly: boolean;
      method: "run" | "get" | "all" | "iterate" | "exec" | "pragma";
      sql: string;
      /** The call's arguments, encodeParams'd. */
      params: string;
      /** For prepared statements, the raw/pluck/expand mode; for `pragma`, pluck means `simple`. */
      mode: { raw?: boolean; pluck?: boolean; expand?: boolean };
    }
  | { kind: "mark" };

/** Arguments as JSON: bigints and Buffers tagged, so decodeParams gives back what was bound. */
export function encodeParams(args: unknown[]): string {
  return JSON.stringify(args, (_key, value: unknown) => (typeof value === "bigint" ? { $bigint: value.toString() } : value));
}

export function decodeParams(json: string): unknown[] {
  return JSON.parse(json, (_key, value: unknown) => {
    if (value && typeof value === "object") {
      const tagged = value as { $bigint?: string; type?: string; data?: number[] };
      if (typeof tagged.$bigint === "string") return BigInt(tagged.$bigint);
      if (tagged.type === "Buffer" && Array.isArray(tagged.data)) return Buffer.from(tagged.data);
    }
    return value;
  }) as unknown[];
}
