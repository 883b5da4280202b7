// The command init tells a newcomer to run next must be one that works where they are.
import { describe, expect, it } from "vitest";
import { invokedAs } from "../../server/invoked-as.js";

describe("invokedAs", () => {
  it("is npx casekit where casekit is an installed package", () => {
    expect(invokedAs("/srv/app/node_modules/casekit/bin/casekit.mjs", "/srv/app")).toBe("npx casekit");
  });

  it("is node and the bin's path as typed from here in a checkout (npx finds no bin for the root package)", () => {
    expect(invokedAs("/work/casekit/bin/casekit.mjs", "/work/casekit")).toBe("node bin/casekit.mjs");
    expect(invokedAs("/work/casekit/bin/casekit.mjs", "/tmp")).toBe("node /work/casekit/bin/casekit.mjs");
  });

  it("falls back to npx casekit when no script is known (an embedder calling main)", () => {
    expect(invokedAs(undefined)).toBe("npx casekit");
  });
});
