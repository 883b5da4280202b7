/**
 * The account page's stylesheet, served as `account/assets/account.css` (server/account-page.ts).
 * A string for the same reason as the script. One column on a phone, a grid of key cards on a wide
 * screen; light and dark; keyboard focus always visible; nothing loaded from anywhere.
 */
export const accountStyle = String.raw`:root {
  color-scheme: light dark;
  --fg: #1b1f24;
  --muted: #57606a;
  --bg: #ffffff;
  --panel: #f6f8fa;
  --line: #d0d7de;
  --accent: #0a5c9e;
  --accent-fg: #ffffff;
  --focus: #0969da;
  --danger: #b42318;
  --ok: #1a7f37;
  --warn-bg: #fff8c5;
  --warn-line: #d4a72c;
  --problem-bg: #ffebe9;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3;
    --muted: #9da7b3;
    --bg: #0d1117;
    --panel: #161b22;
    --line: #30363d;
    --accent: #2f81f7;
    --focus: #58a6ff;
    --danger: #f85149;
    --ok: #3fb950;
    --warn-bg: #2e2a1a;
    --warn-line: #9e6a03;
    --problem-bg: #3b1a1a;
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
[hidden] { display: none !important; }
.bar {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 0.5rem 1rem;
  padding: 0.6rem 1rem;
  border-bottom: 1px solid var(--line);
  background: var(--panel);
}
.brand { margin: 0; font-weight: 700; }
.who { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; overflow-wrap: anywhere; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; margin: 0.5rem 0 0.75rem; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 0.5rem; }
h3 { font-size: 1.05rem; margin: 0; overflow-wrap: anywhere; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
h1:focus, h2:focus, h3:focus { outline: none; }
h1:focus-visible, h2:focus-visible, h3:focus-visible { outline: 3px solid var(--focus); }
.card {
  border: 1px solid var(--line);
  border-radius: 8px;
  background: var(--bg);
  padding: 1rem;
}
#sign-in-view .card { max-width: 26rem; }
form label, fieldset legend { display: block; font-weight: 600; margin-top: 0.75rem; }
input[type=text], input[type=email], input[type=password], input[type=date], select, textarea {
  display: block;
  width: 100%;
  max-width: 32rem;
  margin-top: 0.25rem;
  padding: 0.5rem;
  font: inherit;
  color: inherit;
  background: var(--bg);
  border: 1px solid var(--muted);
  border-radius: 6px;
}
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0.75rem 0 0; padding: 0 0.75rem 0.75rem; }
.choices { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 0.25rem 1rem; margin-top: 0.25rem; }
.choice { display: flex; align-items: center; gap: 0.4rem; min-height: 2rem; }
.choice label { font-weight: 400; margin: 0; }
.choice input { width: 1.2rem; height: 1.2rem; margin: 0; }
button {
  font: inherit;
  min-height: 2.5rem;
  padding: 0.4rem 1rem;
  margin-top: 1rem;
  border-radius: 6px;
  border: 1px solid var(--accent);
  background: var(--accent);
  color: var(--accent-fg);
  cursor: pointer;
}
button.secondary { background: var(--bg); color: var(--fg); border-color: var(--muted); }
button.danger { background: var(--bg); color: var(--danger); border-color: var(--danger); }
button:disabled { opacity: 0.6; cursor: default; }
.bar button, .actions button, .dialog-actions button, .copy-row button { margin-top: 0; }
.hint { color: var(--muted); font-size: 0.9rem; font-weight: 400; margin: 0.25rem 0 0; }
.notice:empty { display: none; }
.notice { margin: 0 0 0.75rem; padding: 0.5rem 0.75rem; border-left: 4px solid var(--ok); background: var(--panel); }
.problem { margin: 0 0 0.75rem; padding: 0.5rem 0.75rem; border-left: 4px solid var(--danger); background: var(--problem-bg); }
.problem p, .problem ul { margin: 0; }
.problem-title { display: block; }
.problem-detail, .problem-retry { display: block; }
.profile { color: var(--muted); margin-top: 0; }
.secret { border-color: var(--warn-line); background: var(--warn-bg); margin-bottom: 1rem; }
.secret h2 { margin-top: 0; }
.copy-row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin-top: 0.25rem; }
.copy-row input { flex: 1 1 16rem; margin-top: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.keys { list-style: none; padding: 0; margin: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(20rem, 1fr)); gap: 1rem; }
.key { border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; background: var(--panel); min-width: 0; }
.key[data-status=revoked] { opacity: 0.85; }
.key-head { display: flex; justify-content: space-between; align-items: flex-start; gap: 0.5rem; }
.status { font-size: 0.85rem; font-weight: 600; padding: 0 0.5rem; border-radius: 999px; border: 1px solid currentColor; white-space: nowrap; }
.status-active { color: var(--ok); }
.status-suspended { color: var(--muted); }
.status-revoked { color: var(--danger); }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.15rem 0.75rem; margin: 0.5rem 0; font-size: 0.92rem; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.scope-list { display: flex; flex-wrap: wrap; gap: 0.25rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; }
dialog { border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; max-width: min(30rem, calc(100vw - 2rem)); background: var(--bg); color: var(--fg); }
dialog::backdrop { background: rgba(0, 0, 0, 0.45); }
dialog h2 { margin-top: 0; overflow-wrap: anywhere; }
.dialog-actions { display: flex; flex-wrap: wrap; justify-content: flex-end; gap: 0.5rem; }
@media (max-width: 30rem) {
  main { padding: 0.75rem; }
  .keys { grid-template-columns: minmax(0, 1fr); }
  dl { grid-template-columns: minmax(0, 1fr); }
  dd { margin-bottom: 0.25rem; }
}
`;
