import type { H3 } from "h3";
import { accountScript } from "./account-page/script.js";
import { accountStyle } from "./account-page/style.js";
import { accountBasePath } from "./account.js";
import type { HostState } from "./handle.js";
import { htmlPage, pageAssets, registerAssets, registerReadOnly } from "./static-page.js";

/**
 * The account area as a web page, `GET /account/`: sign in, see your API keys, create one and copy
 * its secret once, suspend, resume, revoke or delete them. One HTML page, one script and one
 * stylesheet (server/account-page/), served like the API reference page (server/docs.ts): nothing
 * from a third party, the same strict Content-Security-Policy (no inline code, Trusted Types), and
 * every address relative to the page, so it works under any mount prefix. The script talks only to
 * the account area's own JSON routes beside it (account.ts), with the session cookie the browser
 * keeps and the CSRF token in memory; the core decides everything, as for any other client.
 */
export const accountPagePath = `${accountBasePath}/`;
const assetsPath = `${accountBasePath}/assets`;

const assets = pageAssets({ name: "account.js", body: accountScript }, { name: "account.css", body: accountStyle });

/** Registers the page (`/account/`; `/account` redirects there) and its assets, GET and HEAD only. */
export function registerAccountPage(app: H3, host: HostState): void {
  registerReadOnly(app, host, accountPagePath, async (event) => {
    // Addresses in the page are relative to `…/account/`: send `…/account` there first. The
    // Location is relative too, so whatever prefix the client used stays in front of it.
    if (!event.url.pathname.endsWith("/")) return new Response(null, { status: 308, headers: { location: "account/", "cache-control": "no-store" } });
    return pageResponse();
  });
  registerAssets(app, host, assetsPath, assets);
}

/**
 * The page's markup: the sign-in form and the keys view, one of them shown by the script once it
 * knows whether the browser holds a session. Without script it says so and shows nothing to use.
 */
function pageResponse(): Response {
  const [script, style] = assets.map((asset) => `assets/${asset.name}?v=${asset.version}`);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Account · casekit</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${style}">
<script src="${script}" defer></script>
</head>
<body>
<header class="bar">
<p class="brand">casekit account</p>
<div id="who" class="who" hidden>
<span id="who-name"></span>
<button type="button" id="sign-out" class="secondary">Sign out</button>
</div>
</header>
<main id="account" aria-busy="true">
<p id="notice" class="notice" role="status" aria-live="polite"></p>
<noscript><p>This page needs JavaScript. The account area's API is described in <a href="openapi.json">openapi.json</a>.</p></noscript>

<section id="sign-in-view" class="view" aria-labelledby="sign-in-title" hidden>
<h1 id="sign-in-title" tabindex="-1">Sign in</h1>
<form id="sign-in-form" class="card" method="post" novalidate>
<div id="sign-in-problem" class="problem" role="alert" hidden></div>
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" spellcheck="false">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>
</section>

<section id="keys-view" class="view" aria-labelledby="keys-title" hidden>
<h1 id="keys-title" tabindex="-1">API keys</h1>
<p id="profile" class="profile"></p>

<section id="secret-panel" class="card secret" aria-labelledby="secret-title" hidden>
<h2 id="secret-title" tabindex="-1">Your new key</h2>
<p class="warning"><strong>Copy it now: you will not see this again.</strong> Only a hash is stored; nobody can show it to you later.</p>
<label for="secret">Secret of <span id="secret-name"></span></label>
<div class="copy-row">
<input id="secret" type="text" readonly autocomplete="off" spellcheck="false">
<button type="button" id="copy-secret">Copy</button>
</div>
<p id="copy-status" class="hint" aria-live="polite"></p>
<button type="button" id="secret-done" class="secondary">Done, I have stored it</button>
</section>

<section class="list" aria-labelledby="list-title">
<h2 id="list-title" tabindex="-1">Your keys</h2>
<div id="list-problem" class="problem" role="alert" hidden></div>
<p id="list-empty" hidden>You have no API keys yet.</p>
<ul id="key-list" class="keys"></ul>
<button type="button" id="more-keys" class="secondary" hidden>Show more keys</button>
</section>

<section class="create" aria-labelledby="create-title">
<h2 id="create-title" tabindex="-1">Create a key</h2>
<form id="create-form" class="card" method="post" novalidate>
<div id="create-problem" class="problem" role="alert" hidden></div>
<label for="key-name">Name</label>
<input id="key-name" name="name" type="text" required maxlength="200" autocomplete="off">
<label for="key-description">Description <span class="hint">(optional)</span></label>
<textarea id="key-description" name="description" maxlength="1000" rows="2"></textarea>
<fieldset id="key-tier" aria-describedby="tier-hint">
<legend>Tier</legend>
<p id="tier-hint" class="hint">The tier sets the key's rate limits only.</p>
<div id="tier-choices" class="choices"></div>
</fieldset>
<fieldset id="key-scopes" aria-describedby="scopes-hint">
<legend>Scopes</legend>
<p id="scopes-hint" class="hint">Only scopes you hold yourself are offered.</p>
<div id="scope-boxes" class="choices"></div>
</fieldset>
<fieldset id="key-tlp" aria-describedby="tlp-hint">
<legend>TLP clearance</legend>
<p id="tlp-hint" class="hint">Up to your own clearance, as your organization allows.</p>
<div id="tlp-choices" class="choices"></div>
</fieldset>
<label for="key-expiry">Expires on <span id="expiry-optional" class="hint">(optional)</span></label>
<input id="key-expiry" name="expiresAt" type="date" aria-describedby="expiry-hint">
<p id="expiry-hint" class="hint"></p>
<button type="submit">Create key</button>
</form>
</section>
</section>
</main>

<dialog id="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-text">
<h2 id="confirm-title"></h2>
<p id="confirm-text"></p>
<div class="dialog-actions">
<button type="button" id="confirm-cancel" class="secondary">Cancel</button>
<button type="button" id="confirm-ok"></button>
</div>
</dialog>
</body>
</html>
`;
  // The shared policy (server/static-page.ts); a page with a session is never kept by a cache.
  return htmlPage(html, "no-store");
}
