import type { Spread } from "./stats.js";

/** `median (min–max)`, with the digits the magnitude needs. */
export function show(s: Spread, unit = "", scale = 1): string {
  const f = (n: number) => fixed(n * scale);
  return s.min === s.max ? `${f(s.median)}${unit}` : `${f(s.median)}${unit} (${f(s.min)}–${f(s.max)})`;
}

export function fixed(n: number): string {
  if (!Number.isFinite(n)) return "–";
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }).replace(/,/g, " ");
}

export function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}
