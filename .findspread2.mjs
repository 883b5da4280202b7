// Object literals where a spread is followed by a member the spread's type does not have (V8 adds it slowly).
import ts from "typescript";
const config = ts.getParsedCommandLineOfConfigFile("tsconfig.json", {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const program = ts.createProgram(config.fileNames.filter((f) => /\/(core|adapters|server)\//.test(f)), config.options);
const checker = program.getTypeChecker();
const out = [];
for (const src of program.getSourceFiles()) {
  if (!/\/(core|adapters|server)\//.test(src.fileName) || src.fileName.includes("node_modules")) continue;
  const visit = (node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const props = node.properties;
      let known = null; // names the spreads so far bring
      for (const p of props) {
        if (ts.isSpreadAssignment(p)) {
          const t = checker.getTypeAtLocation(p.expression);
          const names = new Set(checker.getPropertiesOfType(checker.getApparentType(t)).map((s) => s.name));
          known = known ? new Set([...known, ...names]) : names;
        } else if (known && (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name && ts.isIdentifier(p.name) && !known.has(p.name.text)) {
          const { line } = src.getLineAndCharacterOfPosition(node.getStart());
          out.push(`${src.fileName.replace(process.cwd() + "/", "")}:${line + 1}: adds ${p.name.text} :: ${node.getText().replace(/\s+/g, " ").slice(0, 90)}`);
          break;
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
}
console.log(out.join("\n"));
console.log("total", out.length);
