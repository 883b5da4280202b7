// Lint rules: typescript-eslint's recommended set, plus the house rule that core/ stays
// framework-agnostic (no HTTP framework, driver or ORM imports).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // tsup.config.bundled_*.mjs: tsup's transient copy of its config while the build (run beside lint) runs.
  { ignores: ["dist/**", "node_modules/**", "data/**", "adapters/*/migrations/**", "coverage/**", ".readme-run/**", "*.config.bundled_*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    files: ["core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: "^(h3|better-sqlite3|pg|postgres|drizzle-orm.*|drizzle-kit|listhen|express|hono|fastify)$", message: "core/ is framework-agnostic: use a port." },
            { regex: "^node:(http|https|net|fs|child_process)$", message: "core/ does not touch the world directly: use a port." },
            { regex: "^\\.\\./\\.\\./(adapters|server)", message: "core/ never depends on adapters or server." },
          ],
        },
      ],
    },
  },
  {
    files: ["bin/**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
);
