/**
 * The account page's only script, served as `account/assets/account.js` (server/account-page.ts).
 * Browser JavaScript kept as a string so the package ships it with the code whatever the bundler
 * does; test/server/account-page.test.ts lints it as the browser runs it, and
 * test/server/account-browser.test.ts drives it in Chromium.
 *
 * It fills the page's markup with DOM calls only (never HTML strings: the page enforces Trusted
 * Types) and talks to nothing but the account area's JSON routes beside the page, by addresses
 * relative to it, so any mount prefix works. The session cookie is HttpOnly (the script never
 * sees it); the CSRF token and a new key's secret live in variables only, never in storage, the
 * address or the history, so a reload forgets the secret for good. Every decision is the
 * server's: the form offers what `api-key-options` says, and whatever is sent is checked again.
 * Keep it free of backticks and dollar-brace: it lives in a template literal.
 */
export const accountScript = String.raw`"use strict";
(function () {
  var tlpLabels = ["TLP:CLEAR", "TLP:GREEN", "TLP:AMBER", "TLP:AMBER+STRICT", "TLP:RED"];
  var actions = {
    suspend: { verb: "Suspend", done: "suspended", text: "The key stops working until you resume it." },
    resume: { verb: "Resume", done: "resumed", text: "The key works again at once." },
    revoke: { verb: "Revoke", done: "revoked", text: "The key stops working at once, for good: a revoked key cannot be resumed." },
    "delete": { verb: "Delete", done: "deleted", text: "The key stops working at once and disappears from this list. The audit trail keeps a record of it." }
  };
  var allowedFrom = { suspend: ["active"], resume: ["suspended"], revoke: ["active", "suspended"], "delete": ["active", "suspended", "revoked"] };

  // The session's CSRF token: in this variable only. A reload asks the server for it again.
  var csrfToken = "";
  var user = null;
  var keys = [];
  var nextCursor = null;
  var pending = null;

  function byId(id) {
    return document.getElementById(id);
  }

  function h(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (name) {
      var value = props[name];
      if (value === undefined || value === null || value === false) return;
      if (name === "text") node.textContent = String(value);
      else if (name === "className") node.className = value;
      else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  // ---- talking to the account area -----------------------------------------------------------
  // Every address is relative to the page (…/account/), so the mount prefix never matters.
  function call(method, path, body) {
    var headers = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (method !== "GET" && path !== "sign-in") headers["x-csrf-token"] = csrfToken;
    return fetch(new URL(path, document.baseURI).href, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
      redirect: "error"
    }).then(function (response) {
      return response.text().then(function (text) {
        var data = null;
        try {
          data = text ? JSON.parse(text) : null;
        } catch {
          data = null;
        }
        if (response.ok) return data;
        var problem = data && typeof data === "object" ? data : {};
        var failure = new Error(problem.title || "Request failed");
        failure.problem = {
          status: response.status,
          code: problem.code || "",
          title: problem.title || "Request failed (" + response.status + ")",
          detail: problem.detail || "",
          errors: Array.isArray(problem.errors) ? problem.errors : [],
          retryAfter: Number(response.headers.get("retry-after")) || 0
        };
        throw failure;
      });
    }, function () {
      var failure = new Error("Network error");
      failure.problem = { status: 0, code: "", title: "The server could not be reached", detail: "Check the connection and try again.", errors: [], retryAfter: 0 };
      throw failure;
    });
  }

  function problemOf(error) {
    return error && error.problem ? error.problem : { status: 0, code: "", title: "Something went wrong", detail: String(error), errors: [], retryAfter: 0 };
  }

  // A session that ended (signed out elsewhere, password or status changed, expired) sends the
  // person back to the sign-in form, saying why.
  function sessionEnded(problem) {
    return (problem.status === 401 && problem.code !== "invalid_credentials") || problem.code === "csrf_rejected";
  }

  function showProblem(box, problem) {
    clear(box);
    var lines = [h("strong", { className: "problem-title", text: problem.title })];
    // The detail often repeats the title word for word: once is enough.
    if (problem.detail && problem.detail !== problem.title) lines.push(h("span", { className: "problem-detail", text: problem.detail }));
    if (problem.retryAfter > 0) lines.push(h("span", { className: "problem-retry", text: "Try again in " + waitText(problem.retryAfter) + "." }));
    box.appendChild(h("p", null, lines));
    var fields = problem.errors.filter(function (e) {
      return e && typeof e.message === "string";
    });
    if (fields.length) {
      box.appendChild(h("ul", null, fields.map(function (e) {
        return h("li", { text: (e.path ? e.path + ": " : "") + e.message });
      })));
    }
    box.hidden = false;
  }

  function hideProblem(box) {
    clear(box);
    box.hidden = true;
  }

  function waitText(seconds) {
    if (seconds < 90) return seconds + (seconds === 1 ? " second" : " seconds");
    var minutes = Math.ceil(seconds / 60);
    return minutes + " minutes";
  }

  function notify(text) {
    // Emptied first, so the same message twice is announced twice.
    var notice = byId("notice");
    notice.textContent = "";
    window.setTimeout(function () {
      notice.textContent = text;
    }, 50);
  }

  function busy(form, on) {
    Array.prototype.forEach.call(form.querySelectorAll("button, input, select, textarea"), function (control) {
      control.disabled = on;
    });
  }

  // ---- views ----------------------------------------------------------------------------------
  function showSignIn(message) {
    csrfToken = "";
    user = null;
    keys = [];
    forgetSecret();
    byId("who").hidden = true;
    byId("keys-view").hidden = true;
    byId("sign-in-view").hidden = false;
    byId("password").value = "";
    hideProblem(byId("sign-in-problem"));
    byId("account").setAttribute("aria-busy", "false");
    if (message) notify(message);
    byId("email").focus();
  }

  function showKeys(session) {
    csrfToken = session.csrfToken;
    user = session.user;
    byId("who-name").textContent = user.name + " (" + user.email + ")";
    byId("who").hidden = false;
    byId("sign-in-view").hidden = true;
    byId("profile").textContent = "Signed in as " + user.name + ", " + user.role.replace("_", " ") + ", clearance " + tlpLabels[user.tlpClearance] + ". Keys you create hold no more than you do.";
    byId("keys-view").hidden = false;
    byId("account").setAttribute("aria-busy", "true");
    return Promise.all([loadOptions(), loadKeys(false)]).then(function () {
      byId("account").setAttribute("aria-busy", "false");
    });
  }

  function start() {
    call("GET", "session").then(function (session) {
      return showKeys(session).then(function () {
        byId("keys-title").focus();
      });
    }, function (error) {
      var problem = problemOf(error);
      if (problem.status === 401) return showSignIn("");
      showSignIn("");
      showProblem(byId("sign-in-problem"), problem);
    });
  }

  // ---- sign-in and sign-out -------------------------------------------------------------------
  byId("sign-in-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = event.currentTarget;
    var box = byId("sign-in-problem");
    var email = byId("email").value.trim();
    var password = byId("password").value;
    if (!email || !password) {
      showProblem(box, { title: "Enter your email and password", detail: "", errors: [], retryAfter: 0 });
      byId(email ? "password" : "email").focus();
      return;
    }
    hideProblem(box);
    busy(form, true);
    call("POST", "sign-in", { email: email, password: password }).then(function (session) {
      busy(form, false);
      byId("password").value = "";
      return showKeys(session).then(function () {
        notify("Signed in as " + session.user.name + ".");
        byId("keys-title").focus();
      });
    }, function (error) {
      busy(form, false);
      byId("password").value = "";
      showProblem(box, problemOf(error));
      byId("password").focus();
    });
  });

  byId("sign-out").addEventListener("click", function () {
    call("POST", "sign-out", {}).then(function () {
      showSignIn("You are signed out.");
    }, function (error) {
      var problem = problemOf(error);
      if (sessionEnded(problem)) return showSignIn("You are signed out.");
      showProblem(byId("list-problem"), problem);
    });
  });

  // ---- what a new key may hold ----------------------------------------------------------------
  function loadOptions() {
    return call("GET", "api-key-options").then(function (options) {
      fillChoices("tier-choices", "radio", "tier", options.tiers.map(function (name) {
        return { value: name, label: name, checked: name === options.defaultTier };
      }));
      fillChoices("scope-boxes", "checkbox", "scopes", options.scopes.map(function (scope) {
        return { value: scope, label: scope, checked: false };
      }));
      var levels = [];
      for (var level = 0; level <= options.maxTlpClearance; level++) {
        levels.push({ value: String(level), label: level + " " + tlpLabels[level], checked: level === options.maxTlpClearance });
      }
      fillChoices("tlp-choices", "radio", "tlpClearance", levels);
      var expiry = byId("key-expiry");
      expiry.required = options.expiryRequired;
      byId("expiry-optional").hidden = options.expiryRequired;
      expiry.min = dateInDays(1);
      if (options.maxLifetimeDays !== null) expiry.max = dateInDays(options.maxLifetimeDays);
      else expiry.removeAttribute("max");
      byId("expiry-hint").textContent = "The key stops working at midnight (your time) at the start of that day. " +
        (options.maxLifetimeDays !== null ? "Your organization allows at most " + options.maxLifetimeDays + " days." :
          options.expiryRequired ? "Your organization requires an expiry date." : "Leave it empty for a key that does not expire.");
    }, function (error) {
      var problem = problemOf(error);
      if (sessionEnded(problem)) return showSignIn("Your session has ended. Sign in again.");
      showProblem(byId("create-problem"), problem);
    });
  }

  // Radio buttons or checkboxes, each with its own label, offering exactly the given values.
  function fillChoices(id, type, name, choices) {
    var box = byId(id);
    clear(box);
    choices.forEach(function (choice) {
      var inputId = name + "-" + choice.value.replace(/[^a-z0-9]/gi, "-");
      box.appendChild(h("div", { className: "choice" }, [
        h("input", { type: type, id: inputId, name: name, value: choice.value, checked: choice.checked }),
        h("label", { "for": inputId, text: choice.label })
      ]));
    });
  }

  function chosen(name) {
    return Array.prototype.map.call(document.querySelectorAll("#create-form input[name=" + name + "]:checked"), function (input) {
      return input.value;
    });
  }

  // yyyy-mm-dd of the local day that many days from today.
  function dateInDays(days) {
    var d = new Date();
    d.setHours(0, 0, 0, 0);
    d.setDate(d.getDate() + days);
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
  }

  function pad(n) {
    return (n < 10 ? "0" : "") + n;
  }

  // ---- the list -------------------------------------------------------------------------------
  function loadKeys(more) {
    var query = "api-keys?limit=50" + (more && nextCursor ? "&cursor=" + encodeURIComponent(nextCursor) : "");
    return call("GET", query).then(function (page) {
      keys = more ? keys.concat(page.data) : page.data;
      nextCursor = page.nextCursor;
      hideProblem(byId("list-problem"));
      renderKeys();
    }, function (error) {
      var problem = problemOf(error);
      if (sessionEnded(problem)) return showSignIn("Your session has ended. Sign in again.");
      showProblem(byId("list-problem"), problem);
    });
  }

  function when(value) {
    if (!value) return null;
    // Shown in UTC, as the API answers it, so two people compare the same figures.
    return h("time", { datetime: value, text: value.slice(0, 16).replace("T", " ") + " UTC" });
  }

  function fact(label, value) {
    return [h("dt", { text: label }), h("dd", null, [value])];
  }

  function renderKeys() {
    var list = byId("key-list");
    clear(list);
    byId("list-empty").hidden = keys.length > 0;
    byId("more-keys").hidden = !nextCursor;
    keys.forEach(function (key) {
      var facts = [].concat(
        fact("Key starts with", h("code", { text: key.start + "…" })),
        fact("Description", key.description || "None"),
        fact("Tier", key.tier),
        fact("Scopes", h("span", { className: "scope-list" }, key.scopes.map(function (scope) {
          return h("code", { text: scope });
        }))),
        fact("TLP clearance", tlpLabels[key.tlpClearance] || String(key.tlpClearance)),
        fact("Expires", when(key.expiresAt) || "Never"),
        fact("Last used", when(key.lastUsedAt) || "Never"),
        fact("Created", when(key.createdAt))
      );
      var buttons = Object.keys(actions).filter(function (action) {
        return allowedFrom[action].indexOf(key.status) >= 0;
      }).map(function (action) {
        return h("button", {
          type: "button",
          className: action === "revoke" || action === "delete" ? "danger" : "secondary",
          "aria-label": actions[action].verb + " " + key.name,
          text: actions[action].verb,
          onclick: function (event) {
            confirmAction(key, action, event.currentTarget);
          }
        });
      });
      list.appendChild(h("li", { className: "key", id: "key-" + key.id, "data-status": key.status }, [
        h("div", { className: "key-head" }, [
          h("h3", { tabindex: "-1", text: key.name }),
          h("span", { className: "status status-" + key.status, text: key.status })
        ]),
        h("dl", null, facts),
        h("div", { className: "actions" }, buttons)
      ]));
    });
  }

  byId("more-keys").addEventListener("click", function () {
    var shown = keys.length;
    loadKeys(true).then(function () {
      // On to the first key just loaded (the button may have gone).
      if (keys[shown]) focusKey(keys[shown].id);
    });
  });

  function focusKey(id) {
    var heading = document.querySelector("#key-" + id + " h3");
    if (heading) heading.focus();
    else byId("list-title").focus();
  }

  // ---- suspend, resume, revoke, delete: each confirmed first ------------------------------------
  function confirmAction(key, action, opener) {
    var dialog = byId("confirm");
    pending = { key: key, action: action, opener: opener };
    byId("confirm-title").textContent = actions[action].verb + " the key " + key.name + "?";
    byId("confirm-text").textContent = actions[action].text;
    var ok = byId("confirm-ok");
    ok.textContent = actions[action].verb + " key";
    ok.className = action === "revoke" || action === "delete" ? "danger" : "";
    dialog.showModal();
    byId("confirm-cancel").focus();
  }

  // Cancelled, by the button or by Escape: back to the button that asked. Done here and not on the
  // dialog's close event, which comes later and could meet the next confirmation already open.
  function cancelPending() {
    var job = pending;
    pending = null;
    byId("confirm").close();
    if (job && job.opener && document.body.contains(job.opener)) job.opener.focus();
  }

  byId("confirm-cancel").addEventListener("click", cancelPending);

  byId("confirm").addEventListener("cancel", function (event) {
    event.preventDefault();
    cancelPending();
  });

  byId("confirm-ok").addEventListener("click", function () {
    var job = pending;
    pending = null;
    byId("confirm").close();
    if (!job) return;
    var key = job.key;
    var request = job.action === "delete" ? call("DELETE", "api-keys/" + encodeURIComponent(key.id)) :
      call("POST", "api-keys/" + encodeURIComponent(key.id) + "/" + job.action, {});
    request.then(function () {
      return loadKeys(false).then(function () {
        notify("Key " + key.name + " " + actions[job.action].done + ".");
        if (job.action === "delete") byId("list-title").focus();
        else focusKey(key.id);
      });
    }, function (error) {
      var problem = problemOf(error);
      if (sessionEnded(problem)) return showSignIn("Your session has ended. Sign in again.");
      showProblem(byId("list-problem"), problem);
      byId("list-title").focus();
    });
  });

  // ---- create, and the secret shown once -------------------------------------------------------
  byId("create-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = event.currentTarget;
    var box = byId("create-problem");
    var name = byId("key-name").value.trim();
    var scopes = chosen("scopes");
    var expiry = byId("key-expiry").value;
    var missing = [];
    if (!name) missing.push({ path: "name", message: "give the key a name", field: "key-name" });
    if (!scopes.length) missing.push({ path: "scopes", message: "choose at least one scope", field: "scope-boxes" });
    if (byId("key-expiry").required && !expiry) missing.push({ path: "expiresAt", message: "choose an expiry date", field: "key-expiry" });
    if (missing.length) {
      showProblem(box, { title: "The key is not complete", detail: "", errors: missing, retryAfter: 0 });
      var first = byId(missing[0].field);
      (first.querySelector("input") || first).focus();
      return;
    }
    var body = { name: name, scopes: scopes, tier: chosen("tier")[0], tlpClearance: Number(chosen("tlpClearance")[0]) };
    var description = byId("key-description").value.trim();
    if (description) body.description = description;
    if (expiry) body.expiresAt = new Date(expiry + "T00:00:00").toISOString();
    hideProblem(box);
    busy(form, true);
    call("POST", "api-keys", body).then(function (created) {
      busy(form, false);
      form.reset();
      loadOptions();
      showSecret(created);
      return loadKeys(false);
    }, function (error) {
      busy(form, false);
      var problem = problemOf(error);
      if (sessionEnded(problem)) return showSignIn("Your session has ended. Sign in again.");
      showProblem(box, problem);
      byId("create-title").focus();
    });
  });

  var shownKeyId = null;

  function showSecret(created) {
    shownKeyId = created.id;
    byId("secret-name").textContent = created.name;
    byId("secret").value = created.key;
    byId("copy-status").textContent = "";
    byId("secret-panel").hidden = false;
    notify("Key " + created.name + " created. Copy its secret now: you will not see it again.");
    byId("secret-title").focus();
  }

  function forgetSecret() {
    byId("secret").value = "";
    byId("secret-name").textContent = "";
    byId("copy-status").textContent = "";
    byId("secret-panel").hidden = true;
  }

  byId("copy-secret").addEventListener("click", function () {
    var field = byId("secret");
    var status = byId("copy-status");
    function selectIt(text) {
      field.focus();
      field.select();
      status.textContent = text;
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(function () {
        status.textContent = "Copied to the clipboard.";
      }, function () {
        selectIt("The browser did not allow copying: the secret is selected, press Ctrl+C (or Cmd+C).");
      });
    } else {
      selectIt("Copying needs https: the secret is selected, press Ctrl+C (or Cmd+C).");
    }
  });

  byId("secret-done").addEventListener("click", function () {
    var id = shownKeyId;
    shownKeyId = null;
    forgetSecret();
    byId("notice").textContent = "";
    focusKey(id);
  });

  start();
})();
`;
