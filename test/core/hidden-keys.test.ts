// hiddenKeys (core/custom-fields/floor.ts) is remembered per frozen list of frozen definitions
// (the definitions cache hands out such lists until a definition changes); any other list is
// worked out on every call, so a floor raised in place is never missed.
import { describe, expect, it } from "vitest";
import { hiddenKeys } from "../../core/custom-fields/floor.js";
import type { CustomFieldDefinition } from "../../core/custom-fields/types.js";

const definition = (key: string, tlpFloor: number | null) => ({ key, tlpFloor }) as CustomFieldDefinition;

describe("hiddenKeys", () => {
  it("hides the fields whose floor is above the clearance, and answers a frozen list with one set per clearance", () => {
    const list = Object.freeze([Object.freeze(definition("a", 3)), Object.freeze(definition("b", null)), Object.freeze(definition("c", 1))]);
    expect([...hiddenKeys(list, 0)]).toEqual(["a", "c"]);
    expect([...hiddenKeys(list, 2)]).toEqual(["a"]);
    expect([...hiddenKeys(list, 4)]).toEqual([]);
    expect(hiddenKeys(list, 2)).toBe(hiddenKeys(list, 2));
  });

  it("works a list out again when it or a definition in it can still change", () => {
    const loose = definition("a", null);
    const frozenList = Object.freeze([loose]);
    expect([...hiddenKeys(frozenList, 1)]).toEqual([]);
    loose.tlpFloor = 3;
    expect([...hiddenKeys(frozenList, 1)]).toEqual(["a"]);
    const open = [Object.freeze(definition("b", null))];
    expect([...hiddenKeys(open, 1)]).toEqual([]);
    open.push(Object.freeze(definition("c", 4)));
    expect([...hiddenKeys(open, 1)]).toEqual(["c"]);
  });
});
