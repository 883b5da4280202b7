/**
 * The API reference page's only script, served as `docs/reference.js` (server/docs.ts). It is
 * browser JavaScript kept as a string so the package ships it with the code whatever the bundler
 * does (no asset files to locate at run time); test/server/docs-script.test.ts lints it as the
 * browser runs it, and test/server/docs-browser.test.ts drives it in Chromium.
 *
 * It builds the page with DOM calls only (never innerHTML: the page enforces Trusted Types), from
 * the OpenAPI document named by the page, and talks to nothing but this API. Every address is
 * resolved from the page's own URL, so any mount prefix works without configuration. Keep it
 * free of backticks and dollar-brace: it lives in a template literal.
 */
export const referenceScript = String.raw`"use strict";
(function () {
  var root = document.getElementById("reference");
  var status = document.getElementById("status");
  var documentUrl = new URL(root.getAttribute("data-openapi"), document.baseURI);
  // The API lives beside its document, whatever prefix the host mounted it under.
  var apiBase = new URL(".", documentUrl);
  var httpMethods = ["get", "put", "post", "patch", "delete", "head", "options", "trace"];
  var spec = null;
  // The key for "Try it": in this variable only, never stored; reloading the page forgets it.
  var apiKey = "";
  var operations = [];
  var operationsById = Object.create(null);
  var groups = [];
  var filterInput = null;
  var countLine = null;

  // ---- DOM helpers ------------------------------------------------------------------------
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
    append(node, children);
    return node;
  }

  function append(node, children) {
    if (children === undefined || children === null || children === false) return;
    if (!Array.isArray(children)) children = [children];
    children.forEach(function (child) {
      if (child === undefined || child === null || child === false || child === "") return;
      if (Array.isArray(child)) append(node, child);
      else node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
  }

  function code(text) {
    return h("code", { text: text });
  }

  // The document's descriptions use paragraphs and code spans only; nothing else is interpreted.
  function prose(text) {
    if (typeof text !== "string" || !text.trim()) return null;
    return h("div", { className: "prose" }, text.split(/\n{2,}/).map(function (paragraph) {
      return h("p", null, inline(paragraph));
    }));
  }

  function inline(text) {
    var parts = text.split("\u0060");
    // An unpaired backtick is literal text.
    if (parts.length % 2 === 0) parts[parts.length - 2] += "\u0060" + parts.pop();
    var out = [];
    parts.forEach(function (part, i) {
      if (i % 2 === 1) return out.push(code(part));
      part.split("\n").forEach(function (line, j) {
        if (j > 0) out.push(h("br"));
        out.push(line);
      });
    });
    return out;
  }

  // A section whose content is built the first time it is opened: the document is large.
  function expandable(label, build, className) {
    var details = h("details", { className: className || "expand" }, h("summary", null, label));
    var built = false;
    details.addEventListener("toggle", function () {
      if (!details.open || built) return;
      built = true;
      append(details, h("div", { className: "expand-body" }, build()));
    });
    return details;
  }

  function jsonBlock(value, label) {
    return h("figure", { className: "example" }, [
      h("figcaption", { text: label }),
      // Focusable so a keyboard can scroll a wide example.
      h("pre", { tabindex: "0" }, code(JSON.stringify(value, null, 2))),
    ]);
  }

  // ---- OpenAPI helpers --------------------------------------------------------------------
  function lookup(ref) {
    if (typeof ref !== "string" || ref.charAt(0) !== "#") return null;
    return ref.slice(1).split("/").slice(1).reduce(function (node, token) {
      return node === null || typeof node !== "object" ? null : node[token.replace(/~1/g, "/").replace(/~0/g, "~")];
    }, spec);
  }

  function resolve(value) {
    for (var hops = 0; value && typeof value.$ref === "string" && hops < 32; hops++) value = lookup(value.$ref);
    return value && typeof value === "object" ? value : {};
  }

  function refName(ref) {
    return ref.split("/").pop().replace(/~1/g, "/").replace(/~0/g, "~");
  }

  function typeLabel(schema) {
    if (!schema || typeof schema !== "object") return "any";
    if (schema.$ref) return refName(schema.$ref);
    if ("const" in schema) return JSON.stringify(schema.const);
    var type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
    if (type === "array" || (!type && schema.items)) return "array of " + typeLabel(schema.items);
    if (type) return schema.format ? type + " (" + schema.format + ")" : type;
    if (schema.oneOf) return schema.oneOf.map(typeLabel).join(" | ");
    if (schema.anyOf) return schema.anyOf.map(typeLabel).join(" | ");
    var shaped = (schema.allOf || []).filter(function (part) { return !constraintOnly(part); });
    if (shaped.length) return shaped.map(typeLabel).join(" & ");
    if (schema.enum) return "enum";
    if (schema.properties) return "object";
    return "any";
  }

  // An allOf member that only adds checks (zod writes a second pattern that way) reads as facts.
  function constraintOnly(schema) {
    return !!schema && !schema.$ref && !schema.type && !schema.properties && !schema.items &&
      !schema.oneOf && !schema.anyOf && !schema.allOf && !schema.if && !schema.not;
  }

  function range(low, high, unit) {
    if (low !== undefined && high !== undefined) return low === high ? unit + " " + low : unit + " " + low + "–" + high;
    if (low !== undefined) return unit + " ≥ " + low;
    if (high !== undefined) return unit + " ≤ " + high;
    return null;
  }

  // Everything a schema checks besides its shape, as short labelled items.
  function facts(schema) {
    var out = [];
    function fact(label, value) {
      out.push(h("li", null, value === undefined ? label : [label + " ", value]));
    }
    [schema].concat((schema.allOf || []).filter(constraintOnly)).forEach(function (s) {
      if (s.enum) fact("one of", s.enum.map(function (v, i) { return [i ? ", " : "", code(typeof v === "string" ? v : JSON.stringify(v))]; }));
      if (s.minimum !== undefined) fact("≥ " + s.minimum);
      if (s.exclusiveMinimum !== undefined) fact("> " + s.exclusiveMinimum);
      if (s.maximum !== undefined) fact("≤ " + s.maximum);
      if (s.exclusiveMaximum !== undefined) fact("< " + s.exclusiveMaximum);
      [["minLength", "maxLength", "length"], ["minItems", "maxItems", "items"], ["minProperties", "maxProperties", "properties"]].forEach(function (k) {
        var text = range(s[k[0]], s[k[1]], k[2]);
        if (text) fact(text);
      });
      if (s.uniqueItems) fact("unique items");
      if (s.pattern) fact("pattern", code(s.pattern));
      if (s.format && !s.type) fact("format", code(s.format));
      if (s.multipleOf !== undefined) fact("multiple of " + s.multipleOf);
    });
    // Names required here but not described here (an alternative's condition, say).
    var undescribed = (schema.required || []).filter(function (name) { return !(schema.properties && name in schema.properties); });
    if (undescribed.length) fact("requires", undescribed.map(function (n, i) { return [i ? ", " : "", code(n)]; }));
    if (schema.default !== undefined) fact("default", code(JSON.stringify(schema.default)));
    if (schema.dependentRequired) Object.keys(schema.dependentRequired).forEach(function (name) {
      fact("with " + name + ", also", schema.dependentRequired[name].map(function (n, i) { return [i ? ", " : "", code(n)]; }));
    });
    if (schema.readOnly) fact("read-only");
    if (schema.writeOnly) fact("write-only");
    if (schema.deprecated) fact("deprecated");
    if (Array.isArray(schema.examples) && schema.examples.length) fact("example", code(JSON.stringify(schema.examples[0])));
    return out.length ? h("ul", { className: "facts" }, out) : null;
  }

  function hasInside(schema) {
    if (!schema || typeof schema !== "object") return false;
    var s = resolve(schema);
    if (s.properties || s.oneOf || s.anyOf || s.if || s.not) return true;
    if ((s.allOf || []).some(function (part) { return !constraintOnly(part); })) return true;
    if (s.additionalProperties && typeof s.additionalProperties === "object") return true;
    if (s.items) {
      var item = resolve(s.items);
      return !!s.items.$ref || hasInside(s.items) || !!facts(item) || !!item.description;
    }
    // A named schema keeps its checks (a long enum, say) behind its expander.
    return !!schema.$ref && !!facts(s);
  }

  // A schema's heading line: its type, what it checks and what it means.
  function schemaSummary(schema) {
    var target = resolve(schema);
    return [
      h("p", { className: "type" }, code(typeLabel(schema))),
      schema.$ref ? null : facts(target),
      prose(schema.description || target.description),
    ];
  }

  // What a schema contains: its fields, items and alternatives.
  function schemaInside(schema) {
    var s = resolve(schema);
    var out = [schema.$ref ? facts(s) : null];
    if (s.properties) {
      var required = s.required || [];
      out.push(fieldList(Object.keys(s.properties).map(function (name) {
        return { name: name, schema: s.properties[name], required: required.indexOf(name) >= 0 };
      })));
    }
    if (s.additionalProperties === false && s.properties) out.push(h("p", { className: "note", text: "No other properties." }));
    if (s.additionalProperties && typeof s.additionalProperties === "object") {
      out.push(fieldList([{ name: "any other name", schema: s.additionalProperties, names: s.propertyNames }]));
    }
    // Items are shown in place (one click opens a list and its items' fields); deeper levels
    // stay behind their own expanders, so even a recursive schema is built one level at a time.
    if (s.items) {
      out.push(h("div", { className: "part" }, [
        h("p", { className: "part-label", text: "Each item:" }),
        h("div", { className: "schema" }, [schemaSummary(s.items), hasInside(s.items) ? schemaInside(s.items) : null]),
      ]));
    }
    [["oneOf", "Exactly one of:"], ["anyOf", "Any of:"], ["allOf", "All of:"]].forEach(function (k) {
      var parts = (s[k[0]] || []).filter(function (part) { return k[0] !== "allOf" || !constraintOnly(part); });
      if (!parts.length) return;
      out.push(h("div", { className: "part" }, [
        h("p", { className: "part-label", text: k[1] }),
        h("ol", { className: "variants" }, parts.map(function (part) { return h("li", null, schemaBlock(part)); })),
      ]));
    });
    [["if", "If the value matches:"], ["then", "then it must match:"], ["else", "otherwise it must match:"], ["not", "Must not match:"]].forEach(function (k) {
      if (s[k[0]]) out.push(h("div", { className: "part" }, [h("p", { className: "part-label", text: k[1] }), schemaBlock(s[k[0]])]));
    });
    return out;
  }

  function schemaBlock(schema) {
    return h("div", { className: "schema" }, [
      schemaSummary(schema),
      hasInside(schema) ? expandable("Show " + typeLabel(schema), function () { return schemaInside(schema); }) : null,
    ]);
  }

  // Fields, parameters and headers all read the same way: name, type, checks, meaning.
  function fieldList(fields) {
    return h("ul", { className: "fields" }, fields.map(function (field) {
      var schema = field.schema || {};
      return h("li", { className: "field" }, [
        h("p", { className: "field-head" }, [
          h("code", { className: "field-name", text: field.name }),
          field.where ? h("span", { className: "where", text: field.where }) : null,
          field.schema === null ? null : h("span", { className: "type" }, typeLabel(schema)),
          field.required ? h("span", { className: "required", text: "required" }) : null,
        ]),
        schema.$ref ? null : facts(schema),
        field.names ? h("p", { className: "note" }, ["Names: ", code(typeLabel(field.names)), facts(field.names)]) : null,
        prose(field.description || schema.description || resolve(schema).description),
        hasInside(schema) ? expandable("Show " + typeLabel(schema), function () { return schemaInside(schema); }) : null,
      ]);
    }));
  }

  // ---- One operation ----------------------------------------------------------------------
  function mediaView(content, exampleLabel) {
    return Object.keys(content || {}).map(function (type) {
      var media = content[type] || {};
      var example = media.example;
      if (example === undefined && media.examples) {
        var first = resolve(media.examples[Object.keys(media.examples)[0]]);
        example = first.value;
      }
      return h("div", { className: "media" }, [
        h("p", { className: "media-type" }, ["Content type ", code(type)]),
        media.schema ? [schemaSummary(media.schema), hasInside(media.schema) ? schemaInside(media.schema) : null] : null,
        example !== undefined ? jsonBlock(example, exampleLabel) : null,
      ]);
    });
  }

  function schemeLabel(name) {
    var scheme = resolve(((spec.components || {}).securitySchemes || {})[name]);
    if (scheme.type === "http" && /^bearer$/i.test(scheme.scheme || "")) return "Authorization: Bearer <key>";
    if (scheme.type === "apiKey") return scheme.name + " (" + scheme.in + ")";
    return name;
  }

  function securityView(op) {
    var requirements = op.security || spec.security || [];
    if (!requirements.length || requirements.some(function (r) { return !Object.keys(r).length; })) {
      return h("p", { className: "security" }, "No key needed.");
    }
    return h("div", { className: "security" }, [
      h("p", { text: requirements.length > 1 ? "Any one of:" : "Requires:" }),
      h("ul", null, requirements.map(function (requirement) {
        return h("li", null, Object.keys(requirement).map(function (name, i) {
          var scopes = requirement[name] || [];
          return [
            i ? " and " : "",
            code(schemeLabel(name)),
            scopes.length ? [scopes.length > 1 ? " with the scopes " : " with the scope ", scopes.map(function (s, j) { return [j ? ", " : "", code(s)]; })] : null,
          ];
        }));
      })),
    ]);
  }

  function responseView(status, response) {
    var r = resolve(response);
    var headers = Object.keys(r.headers || {});
    var success = /^2/.test(status);
    var details = h("details", { className: "response" + (success ? " success" : "") }, [
      h("summary", null, h("h5", null, [code(status), " ", firstLine(r.description)])),
    ]);
    details.open = success;
    append(details, [
      firstLine(r.description) === r.description ? null : prose(r.description),
      headers.length ? h("div", { className: "part" }, [
        h("p", { className: "part-label", text: "Headers:" }),
        fieldList(headers.map(function (name) {
          var header = resolve(r.headers[name]);
          return { name: name, schema: header.schema || {}, description: header.description };
        })),
      ]) : null,
      mediaView(r.content, "Example answer"),
    ]);
    return details;
  }

  function firstLine(text) {
    if (typeof text !== "string") return "";
    var line = text.split("\n")[0];
    return line.length > 90 ? line.slice(0, 89) + "…" : line;
  }

  function operationBody(op) {
    var params = op.parameters;
    var body = op.operation.requestBody ? resolve(op.operation.requestBody) : null;
    var out = [
      h("p", { className: "permalink" }, [h("a", { href: "#" + op.id, text: "Link to this operation" }), " · ", code(op.id)]),
      prose(op.operation.description),
      h("h4", { text: "Security" }),
      securityView(op.operation),
    ];
    if (params.length) {
      out.push(h("h4", { text: "Parameters" }), fieldList(params.map(function (p) {
        return { name: p.name, where: "in " + p.in, schema: p.schema || {}, required: !!p.required, description: p.description };
      })));
    }
    if (body) {
      out.push(h("h4", { text: "Request body" }), body.required ? h("p", { className: "note", text: "Required." }) : null, prose(body.description), mediaView(body.content, "Example request"));
    }
    out.push(h("h4", { text: "Responses" }), h("div", { className: "responses" }, Object.keys(op.operation.responses || {}).map(function (status) {
      return responseView(status, op.operation.responses[status]);
    })));
    out.push(tryView(op, body));
    return out;
  }

  // ---- Try it -----------------------------------------------------------------------------
  function tryView(op, body) {
    var inputs = [];
    var fields = op.parameters.filter(function (p) { return p.in === "path" || p.in === "query"; }).map(function (p) {
      var id = op.id + "--" + p.in + "-" + p.name;
      var input = h("input", { id: id, name: p.name, type: "text", autocomplete: "off", spellcheck: "false", required: p.in === "path" });
      inputs.push({ parameter: p, input: input });
      return h("p", { className: "try-field" }, [h("label", { for: id, text: p.name + " (" + p.in + (p.required ? ", required" : "") + ")" }), input]);
    });
    var textarea = null;
    var json = body && body.content && body.content["application/json"];
    if (json) {
      var example = json.example !== undefined ? json.example : {};
      textarea = h("textarea", { id: op.id + "--body", rows: "8", spellcheck: "false" });
      textarea.value = JSON.stringify(example, null, 2);
      fields.push(h("p", { className: "try-field" }, [h("label", { for: op.id + "--body", text: "Body (JSON)" }), textarea]));
    }
    var result = h("div", { className: "try-result", "aria-live": "polite" });
    var form = h("form", { className: "try", "aria-label": "Try " + op.method.toUpperCase() + " " + op.path }, [
      fields,
      h("p", null, [
        h("button", { type: "submit", text: "Send " + op.method.toUpperCase() + " request" }),
        " ",
        h("span", { className: "note", text: "Uses the API key entered at the top of the page." }),
      ]),
      result,
    ]);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      send(op, inputs, textarea, result);
    });
    return [h("h4", { text: "Try it" }), form];
  }

  function send(op, inputs, textarea, result) {
    var path = op.path;
    var query = new URLSearchParams();
    for (var i = 0; i < inputs.length; i++) {
      var p = inputs[i].parameter;
      var value = inputs[i].input.value;
      if (p.in === "path") {
        if (!value) return show(result, [h("p", { className: "error", text: "Fill in " + p.name + "." })]);
        // Dots too, so a value can never climb out of the API's path.
        path = path.split("{" + p.name + "}").join(encodeURIComponent(value).replace(/\./g, "%2E"));
      } else if (value) {
        query.append(p.name, value);
      }
    }
    var url = new URL(path.replace(/^\//, ""), apiBase);
    url.search = query.toString();
    var headers = { accept: "application/json, application/problem+json" };
    if (apiKey) headers.authorization = "Bearer " + apiKey;
    var init = { method: op.method.toUpperCase(), headers: headers, credentials: "omit", cache: "no-store" };
    if (textarea && textarea.value.trim()) {
      init.body = textarea.value;
      headers["content-type"] = "application/json";
    }
    show(result, [h("p", { text: "Sending…" })]);
    fetch(url, init).then(function (response) {
      return response.text().then(function (text) {
        var shown = text;
        try {
          shown = JSON.stringify(JSON.parse(text), null, 2);
        } catch {
          // Not JSON: shown as it came.
        }
        show(result, [
          h("p", { className: "try-status" }, [code(init.method + " " + url.pathname + url.search), " → ", h("strong", { text: response.status + " " + response.statusText })]),
          response.headers.get("x-request-id") ? h("p", null, ["Request id ", code(response.headers.get("x-request-id"))]) : null,
          shown ? h("pre", { tabindex: "0" }, code(shown)) : null,
        ]);
      });
    }, function (error) {
      show(result, [h("p", { className: "error", text: "The request failed: " + error.message })]);
    });
  }

  function show(node, children) {
    node.replaceChildren();
    append(node, children);
  }

  // ---- The page ---------------------------------------------------------------------------
  function collectOperations() {
    var tagOrder = (spec.tags || []).map(function (t) { return t.name; });
    var byTag = Object.create(null);
    Object.keys(spec.paths || {}).forEach(function (path) {
      var item = spec.paths[path] || {};
      httpMethods.forEach(function (method) {
        var operation = item[method];
        if (!operation) return;
        var tag = (operation.tags && operation.tags[0]) || "Other";
        if (tagOrder.indexOf(tag) < 0) tagOrder.push(tag);
        var parameters = (item.parameters || []).concat(operation.parameters || []).map(resolve);
        var op = {
          id: operation.operationId || method + "-" + path,
          method: method,
          path: path,
          tag: tag,
          operation: operation,
          parameters: parameters,
        };
        op.haystack = [method, path, operation.summary, op.id, tag].join(" ").toLowerCase();
        (byTag[tag] = byTag[tag] || []).push(op);
      });
    });
    return tagOrder.filter(function (tag) { return byTag[tag]; }).map(function (tag) {
      var declared = (spec.tags || []).filter(function (t) { return t.name === tag; })[0] || {};
      return { name: tag, description: declared.description, operations: byTag[tag] };
    });
  }

  function operationView(op) {
    var summary = h("summary", null, h("h3", null, [
      h("span", { className: "method method-" + op.method, text: op.method.toUpperCase() }),
      h("span", { className: "path", "data-path": op.path, text: op.path }),
      h("span", { className: "op-summary", text: op.operation.summary || "" }),
    ]));
    var details = h("details", { className: "op-details" }, summary);
    var built = false;
    op.build = function () {
      if (built) return;
      built = true;
      append(details, h("div", { className: "op-body" }, operationBody(op)));
    };
    details.addEventListener("toggle", function () {
      if (!details.open) return;
      op.build();
      // The address names the open operation, so it can be shared.
      if (location.hash !== "#" + op.id) history.replaceState(null, "", "#" + encodeURIComponent(op.id));
    });
    op.details = details;
    op.summary = summary;
    op.element = h("article", { className: "op", id: op.id, "data-method": op.method }, details);
    return op.element;
  }

  function introView() {
    var info = spec.info || {};
    var schemes = (spec.components || {}).securitySchemes || {};
    return [
      h("p", { className: "version" }, [
        "Version ", code(info.version || "?"),
        info.license ? [" · License ", info.license.name || info.license.identifier] : null,
        " · OpenAPI ", code(spec.openapi || "?"),
        " · ", h("a", { href: documentUrl.href, text: "The OpenAPI document" }),
      ]),
      prose(info.description),
      h("p", null, ["Base URL ", code(apiBase.href.replace(/\/$/, ""))]),
      Object.keys(schemes).length ? [
        h("h2", { id: "authentication", text: "Authentication" }),
        fieldList(Object.keys(schemes).map(function (name) {
          var scheme = resolve(schemes[name]);
          return { name: name, schema: null, description: scheme.description, where: schemeLabel(name) };
        })),
      ] : null,
      keyView(),
    ];
  }

  function controlsView() {
    filterInput = h("input", { id: "filter", type: "search", autocomplete: "off", spellcheck: "false", "aria-describedby": "filter-count" });
    filterInput.addEventListener("input", applyFilter);
    filterInput.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && filterInput.value) {
        filterInput.value = "";
        applyFilter();
      }
    });
    countLine = h("p", { id: "filter-count", role: "status" });
    return h("div", { className: "controls", role: "search" }, [
      h("p", { className: "control" }, [h("label", { for: "filter", text: "Filter operations" }), filterInput]),
      countLine,
    ]);
  }

  function keyView() {
    var keyInput = h("input", { id: "api-key", type: "password", autocomplete: "off", spellcheck: "false", "aria-describedby": "api-key-note" });
    keyInput.addEventListener("input", function () { apiKey = keyInput.value.trim(); });
    return h("p", { className: "control" }, [
      h("label", { for: "api-key", text: "API key for Try it" }),
      keyInput,
      h("span", { className: "note", id: "api-key-note", text: "Kept in this page's memory only, never stored; reloading forgets it." }),
    ]);
  }

  function applyFilter() {
    var terms = filterInput.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    operations.forEach(function (op) {
      var match = terms.every(function (term) { return op.haystack.indexOf(term) >= 0; });
      op.element.hidden = !match;
      if (match) shown++;
    });
    groups.forEach(function (group) {
      var any = group.operations.some(function (op) { return !op.element.hidden; });
      group.section.hidden = !any;
      group.navItem.hidden = !any;
    });
    countLine.textContent = terms.length
      ? shown + " of " + operations.length + " operations match."
      : operations.length + " operations.";
  }

  function render() {
    groups = collectOperations();
    var nav = h("nav", { "aria-label": "Operations by tag" }, h("ul", null, groups.map(function (group) {
      group.slug = "tag-" + group.name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
      group.navItem = h("li", null, h("a", { href: "#" + group.slug, text: group.name }));
      return group.navItem;
    })));
    var sections = groups.map(function (group) {
      group.section = h("section", { className: "tag", id: group.slug, "aria-labelledby": group.slug + "-title" }, [
        h("h2", { id: group.slug + "-title", text: group.name }),
        prose(group.description),
        group.operations.map(function (op) {
          operations.push(op);
          operationsById[op.id] = op;
          return operationView(op);
        }),
      ]);
      return group.section;
    });
    document.title = (spec.info && spec.info.title ? spec.info.title : "API") + " reference";
    root.querySelector("h1").textContent = document.title;
    status.remove();
    append(root, [introView(), controlsView(), nav, h("div", { id: "operations" }, sections)]);
    applyFilter();
    root.removeAttribute("aria-busy");
    openFromAddress();
  }

  // #operationId opens that operation (clearing a filter that hides it) and moves focus to it.
  function openFromAddress() {
    var id;
    try {
      id = decodeURIComponent(location.hash.slice(1));
    } catch {
      return;
    }
    var op = operationsById[id];
    if (!op) {
      var target = id && document.getElementById(id);
      if (target) target.scrollIntoView();
      return;
    }
    if (op.element.hidden) {
      filterInput.value = "";
      applyFilter();
    }
    op.build();
    op.details.open = true;
    op.summary.focus();
    op.element.scrollIntoView();
  }

  document.addEventListener("keydown", function (event) {
    // "/" jumps to the filter, unless the user is typing somewhere.
    var typing = /^(input|textarea|select)$/i.test(event.target.tagName || "") || event.target.isContentEditable;
    if (event.key === "/" && !typing && filterInput && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      filterInput.focus();
    }
  });
  window.addEventListener("hashchange", function () {
    if (spec) openFromAddress();
  });

  fetch(documentUrl, { headers: { accept: "application/json" }, credentials: "omit" })
    .then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    })
    .then(function (loaded) {
      spec = loaded;
      render();
    })
    .catch(function (error) {
      root.removeAttribute("aria-busy");
      status.setAttribute("role", "alert");
      status.replaceChildren("The API description could not be loaded (" + error.message + "). It is at ", h("a", { href: documentUrl.href, text: documentUrl.pathname }), ".");
    });
})();
`;
