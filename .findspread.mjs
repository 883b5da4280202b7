// Lists object literals where a spread is followed by a property (V8 adds those slowly to the clone).
import ts from "typescript";
import { readFileSync } from "node:fs";
import { execSync } from "node:child_process";
const files = execSync("git ls-files core adapters server | grep '\\.ts$' | grep -v '\\.d\\.ts$'", { encoding: "utf8" }).trim().split("\n");
let count = 0;
for (const file of files) {
  const src = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const props = node.properties;
      const firstSpread = props.findIndex((p) => ts.isSpreadAssignment(p));
      if (firstSpread >= 0 && props.slice(firstSpread + 1).some((p) => !ts.isSpreadAssignment(p))) {
        count++;
        const { line } = src.getLineAndCharacterOfPosition(node.getStart());
        if (process.argv[2] === "-v") console.log(`${file}:${line + 1}: ${node.getText().replace(/\s+/g, " ").slice(0, 110)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
}
console.log("total", count);
