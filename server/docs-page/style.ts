/**
 * The API reference page's stylesheet, served as `docs/reference.css` (server/docs.ts). A string
 * for the same reason as the script (shipped with the code, nothing to locate at run time).
 * Readable on a phone (one column, long paths wrap), light and dark, visible keyboard focus.
 */
export const referenceStyle = String.raw`:root {
  color-scheme: light dark;
  --fg: #1b1f24;
  --muted: #57606a;
  --bg: #ffffff;
  --panel: #f6f8fa;
  --line: #d0d7de;
  --link: #0550ae;
  --focus: #0969da;
  --get: #0a5c9e;
  --post: #1a7f37;
  --put: #8a4600;
  --patch: #6f42c1;
  --delete: #b42318;
  --other: #57606a;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3;
    --muted: #9da7b3;
    --bg: #0d1117;
    --panel: #161b22;
    --line: #30363d;
    --link: #79c0ff;
    --focus: #58a6ff;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  background: var(--bg);
  color: var(--fg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, pre, textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
code { overflow-wrap: anywhere; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem; overflow: auto; max-height: 30rem; margin: 0.25rem 0; }
h1 { font-size: 1.75rem; margin: 0.5rem 0; }
h2 { font-size: 1.35rem; margin: 2rem 0 0.5rem; border-bottom: 1px solid var(--line); padding-bottom: 0.25rem; }
h4 { font-size: 1rem; margin: 1.25rem 0 0.25rem; }
h5 { font-size: 0.95rem; margin: 0; display: inline; font-weight: 600; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: 0.5rem; z-index: 2; }
.version, .note, .where { color: var(--muted); }
.controls {
  position: sticky; top: 0; z-index: 1;
  background: var(--bg); border-bottom: 1px solid var(--line);
  padding: 0.5rem 0; margin: 1rem 0;
}
.control { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.75rem; margin: 0.25rem 0; }
.control label { font-weight: 600; }
.control input { flex: 1 1 16rem; min-width: 0; }
.control .note { flex-basis: 100%; font-size: 0.85rem; }
#filter-count { margin: 0.25rem 0; font-size: 0.9rem; color: var(--muted); }
input, textarea, button { font: inherit; color: inherit; }
input, textarea { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0.4rem 0.5rem; }
textarea { width: 100%; }
button { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.4rem 0.9rem; cursor: pointer; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
.op { border: 1px solid var(--line); border-radius: 6px; margin: 0.5rem 0; }
/* Clear of the sticky filter when a deep link scrolls here. */
.op, .tag { scroll-margin-top: 6rem; }
.op > details > summary { padding: 0.5rem 0.75rem; cursor: pointer; list-style-position: outside; }
.op > details[open] > summary { border-bottom: 1px solid var(--line); background: var(--panel); }
.op h3 { display: inline-flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.75rem; font-size: 1rem; margin: 0; font-weight: 400; }
.method {
  display: inline-block; min-width: 4.5rem; text-align: center;
  color: #fff; background: var(--other); border-radius: 4px;
  font-weight: 700; font-size: 0.8rem; padding: 0.1rem 0.4rem; letter-spacing: 0.03em;
}
.method-get { background: var(--get); }
.method-post { background: var(--post); }
.method-put { background: var(--put); }
.method-patch { background: var(--patch); }
.method-delete { background: var(--delete); }
.path { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-weight: 600; overflow-wrap: anywhere; }
.op-summary { color: var(--muted); }
.op-body { padding: 0 0.75rem 0.75rem; }
.permalink { font-size: 0.85rem; }
.fields { list-style: none; padding: 0; margin: 0.25rem 0; }
.field { border-top: 1px solid var(--line); padding: 0.4rem 0; }
.field-head { display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; align-items: baseline; margin: 0; }
.field-name { font-weight: 700; }
.type { color: var(--muted); margin: 0.25rem 0; }
.required { color: var(--delete); font-size: 0.85rem; font-weight: 600; }
.facts { list-style: none; padding: 0; margin: 0.15rem 0; display: flex; flex-wrap: wrap; gap: 0.15rem 0.5rem; font-size: 0.85rem; color: var(--muted); }
.facts li { max-width: 100%; }
.facts li + li::before { content: "·"; margin-right: 0.5rem; }
.prose p { margin: 0.25rem 0; }
.expand { margin: 0.25rem 0; }
.expand > summary { cursor: pointer; color: var(--link); font-size: 0.9rem; }
.expand-body { border-left: 3px solid var(--line); padding-left: 0.75rem; margin: 0.25rem 0 0.25rem 0.25rem; }
.part-label { font-weight: 600; margin: 0.5rem 0 0.15rem; font-size: 0.9rem; }
.variants { padding-left: 1.25rem; }
.schema { margin: 0.25rem 0; }
.response { border-top: 1px solid var(--line); padding: 0.4rem 0; }
.response > summary { cursor: pointer; }
.media-type { font-size: 0.9rem; color: var(--muted); margin: 0.5rem 0 0.25rem; }
.example { margin: 0.5rem 0; }
.example figcaption { font-size: 0.85rem; font-weight: 600; }
.try { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.5rem 0.75rem; }
.try-field { display: flex; flex-direction: column; gap: 0.15rem; margin: 0.4rem 0; }
.try-field label { font-weight: 600; font-size: 0.9rem; }
.try-status { overflow-wrap: anywhere; }
.error { color: var(--delete); font-weight: 600; }
@media (max-width: 40rem) {
  main { padding: 0.5rem; }
  h1 { font-size: 1.4rem; }
  .method { min-width: 3.75rem; }
  .op-body { padding: 0 0.5rem 0.5rem; }
  .controls { padding: 0.25rem 0; }
}
`;
