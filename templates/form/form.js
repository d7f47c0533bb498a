/* sdeval evidence form: read and write the form as an evidence record, and check it live.
 *
 * The form's structure comes from the record's JSON Schema (rendered by `sdeval form`);
 * this script only walks it. Elements carrying a value have data-node (object, list,
 * scalar, choices, picks, numbers, lines) and data-key. Schema checks use the embedded
 * schema through Ajv; rule checks word their findings with the embedded rule catalog,
 * the same templates the Python rules fill, so the page and `sdeval validate` agree.
 */
"use strict";
(function () {
  const SCHEMA = JSON.parse(document.getElementById("sdeval-schema").textContent);
  const CATALOG = JSON.parse(document.getElementById("sdeval-catalog").textContent);
  // What a schema pattern means, in the CLI's words (evaluator/schema.py PATTERN_WORDS).
  const WORDING = JSON.parse(document.getElementById("sdeval-wording").textContent);
  // Set when `sdeval serve` serves the page: the verdict is then sdeval's own (evaluator/serve).
  const SERVED_EL = document.getElementById("sdeval-served");
  const SERVED = SERVED_EL ? JSON.parse(SERVED_EL.textContent) : null;
  const RULES = {};
  CATALOG.rules.forEach(function (r) { RULES[r.code] = r; });
  const STORAGE_KEY = "sdeval-form:" + SCHEMA.$id;
  const form = document.getElementById("record");
  const statusLine = document.getElementById("status");
  const AjvClass = window.ajv2020.default || window.ajv2020;
  // verbose: each error carries its schema and value, for the CLI's words and "did you mean".
  // Compiled on first use, offline only: Ajv compiles to code with new Function, which the served
  // page's Content-Security-Policy (no 'unsafe-eval') forbids, and there sdeval checks the schema.
  let compiledSchema = null;
  function validateSchema(record) {
    if (!compiledSchema) compiledSchema = new AjvClass({ allErrors: true, strict: false, verbose: true }).compile(SCHEMA);
    validateSchema.errors = compiledSchema(record) ? null : compiledSchema.errors;
    return validateSchema.errors === null;
  }

  // ------------------------------------------------------------ values as written

  // A number as it was written ("0.7", "200.0"), so a record loaded and saved unchanged
  // keeps its integers, its floats and its digits.
  function Num(raw) { this.raw = raw; }
  // A piece of JSON the form cannot show (an unknown field, a value of the wrong type,
  // an explicit null or empty value), written back untouched unless the user replaces it.
  function Raw(json) { this.json = json; }
  const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
  const JSON_INTEGER = /^-?(0|[1-9]\d*)$/;

  function stringify(v, depth) {
    depth = depth || 0;
    const pad = "  ".repeat(depth + 1), end = "  ".repeat(depth);
    if (v instanceof Num) return JSON_NUMBER.test(v.raw) ? v.raw : JSON.stringify(Number(v.raw));
    if (v instanceof Raw) return v.json;
    if (Array.isArray(v)) {
      if (!v.length) return "[]";
      return "[\n" + v.map(function (x) { return pad + stringify(x, depth + 1); }).join(",\n") + "\n" + end + "]";
    }
    if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      if (!keys.length) return "{}";
      return "{\n" + keys.map(function (k) { return pad + JSON.stringify(k) + ": " + stringify(v[k], depth + 1); }).join(",\n") + "\n" + end + "}";
    }
    return JSON.stringify(v);
  }

  function plain(v) {
    if (v instanceof Num) return Number(v.raw);
    if (v instanceof Raw) return JSON.parse(v.json);
    if (Array.isArray(v)) return v.map(plain);
    if (v !== null && typeof v === "object") {
      const out = {};
      Object.keys(v).forEach(function (k) { out[k] = plain(v[k]); });
      return out;
    }
    return v;
  }

  function parseRecord(text) {
    // The reviver's third argument gives each number's source text (JSON.parse source text
    // access); where a browser lacks it, the number's shortest form is used.
    return JSON.parse(text, function (key, value, context) {
      if (typeof value !== "number") return value;
      return new Num(context && typeof context.source === "string" ? context.source : String(value));
    });
  }

  // YAML as the CLI reads it (evaluator/loader.py): YAML 1.2 core scalars only, so `no` stays
  // text and 2024-01-01 is not a date, and every number keeps the digits it was written with.
  const YAML_INT = /^[-+]?[0-9]+$/;
  const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
  function yamlNumber(tag, pattern) {
    return new window.jsyaml.Type(tag, {
      kind: "scalar",
      resolve: function (data) { return data !== null && pattern.test(data); },
      construct: function (data) { return new Num(data.replace(/^\+/, "")); },
      instanceOf: Num,
    });
  }
  const YAML_SCHEMA = window.jsyaml.FAILSAFE_SCHEMA.extend({
    implicit: [window.jsyaml.types.null, window.jsyaml.types.bool,
      yamlNumber("tag:yaml.org,2002:int", YAML_INT), yamlNumber("tag:yaml.org,2002:float", YAML_FLOAT)],
  });

  function parseYamlRecord(text) { return window.jsyaml.load(text, { schema: YAML_SCHEMA }); }

  function looksLikeYaml(name, text) {
    if (/\.ya?ml$/i.test(name)) return true;
    if (/\.json$/i.test(name)) return false;
    return !/^\s*[{[]/.test(text);
  }

  const isObject = function (v) { return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Num) && !(v instanceof Raw); };

  // ------------------------------------------------------------------- the tree

  function childNodes(container) {
    return Array.prototype.filter.call(container.querySelectorAll("[data-node]"), function (el) {
      return el.parentElement.closest("[data-node]") === container;
    });
  }

  function isItem(el) { return el.classList.contains("item"); }

  // A list's items in order, folded ones and those inside a fold group included.
  function listItems(list) { return Array.prototype.slice.call(list.querySelectorAll(":scope > .items > .item, :scope > .items > .fold-group > .item")); }

  function selection(el) { return JSON.parse(el.dataset.order || "[]"); }

  function kept(el) { return el.dataset.keep !== undefined ? new Raw(el.dataset.keep) : undefined; }

  function extrasOf(el) { return JSON.parse(el.dataset.extras || "{}"); }

  function collect(el) {
    const node = el.dataset.node;
    if (node === "object") {
      const out = {};
      childNodes(el).forEach(function (child) {
        const v = collect(child);
        if (v !== undefined) out[child.dataset.key] = v;
      });
      const extras = extrasOf(el);
      Object.keys(extras).forEach(function (k) { out[k] = new Raw(extras[k]); });
      if (Object.keys(out).length) return out;
      if (el.dataset.keep !== undefined) return kept(el);
      return (el === form || isItem(el) || el.dataset.required === "yes") ? out : undefined;
    }
    if (node === "list") {
      const items = listItems(el).map(collect);
      if (items.length) return items;
      // A required list left empty is written as [] (a record of claims with no runs), not dropped.
      return el.dataset.keep !== undefined ? kept(el) : (el.dataset.required === "yes" ? [] : undefined);
    }
    if (node === "choices" || node === "picks") {
      const chosen = selection(el);
      return chosen.length ? chosen : kept(el);
    }
    if (node === "numbers") {
      const tokens = el.value.split(/[\s,;[\]]+/).filter(Boolean);
      if (!tokens.length) return kept(el);
      // A token that is not a number is saved as text, so the saved record fails the schema
      // exactly where the page says it does.
      return tokens.map(function (t) { return JSON_NUMBER.test(t) ? new Num(t) : t; });
    }
    if (node === "lines") {
      const lines = el.value.split("\n").map(function (l) { return l.replace(/\r$/, ""); }).filter(function (l) { return l.trim() !== ""; });
      return lines.length ? lines : kept(el);
    }
    const raw = el.value;
    if (raw === "") return kept(el);
    const type = el.dataset.type;
    if (type === "integer" || type === "number") return new Num(raw);
    if (type === "boolean") return raw === "true";
    return raw;
  }

  function clearNode(el) {
    delete el.dataset.keep;
    delete el.dataset.extras;
    el.querySelectorAll("[data-keep],[data-extras]").forEach(function (x) { delete x.dataset.keep; delete x.dataset.extras; });
    el.querySelectorAll(".items").forEach(function (items) { items.innerHTML = ""; });
    el.querySelectorAll("[data-node=choices],[data-node=picks]").forEach(function (g) { g.dataset.order = "[]"; });
    el.querySelectorAll("input[data-node],textarea[data-node],select[data-node]").forEach(function (c) {
      c.value = c.dataset.constant !== undefined ? c.dataset.constant : "";
    });
  }

  function fill(el, value) {
    const node = el.dataset.node;
    const keep = function () { el.dataset.keep = stringify(value); };
    if (node === "object") {
      if (!isObject(value)) return keep();
      const children = {};
      childNodes(el).forEach(function (c) { children[c.dataset.key] = c; });
      const extras = {};
      Object.keys(value).forEach(function (k) {
        if (children[k]) fill(children[k], value[k]);
        else extras[k] = stringify(value[k]);
      });
      if (Object.keys(extras).length) el.dataset.extras = JSON.stringify(extras);
      if (!Object.keys(value).length) keep();
      return;
    }
    if (node === "list") {
      if (!Array.isArray(value) || !value.length) return keep();
      if (value.length > FOLD_AFTER) { foldItems(el, value); return; }
      value.forEach(function (entry) { fill(addItem(el), entry); });
      return;
    }
    if (node === "choices" || node === "picks") {
      if (!Array.isArray(value) || !value.length || !value.every(function (v) { return typeof v === "string"; })) return keep();
      el.dataset.order = JSON.stringify(value);
      return;
    }
    if (node === "numbers") {
      if (!Array.isArray(value) || !value.length || !value.every(function (v) { return v instanceof Num; })) return keep();
      el.value = value.map(function (v) { return v.raw; }).join(", ");
      return;
    }
    if (node === "lines") {
      const ok = Array.isArray(value) && value.length && value.every(function (v) { return typeof v === "string" && v.trim() !== "" && v.indexOf("\n") < 0; });
      if (!ok) return keep();
      el.value = value.join("\n");
      return;
    }
    const type = el.dataset.type;
    el.value = "";
    if (type === "integer" || type === "number") {
      if (value instanceof Num) el.value = value.raw;
      if (!(value instanceof Num) || el.value !== value.raw) keep();
    } else if (type === "boolean") {
      if (value === true || value === false) el.value = String(value); else keep();
    } else if (typeof value === "string" && value !== "") {
      if (el.dataset.ref) ensureOption(el, value);
      el.value = value;
      if (el.value !== value) keep();
    } else {
      keep();
    }
  }

  // ------------------------------------------------------------ lists and ids

  function addItem(list, after) {
    // :scope > ... : a list's own template and items, not those of lists nested in its items.
    const fragment = list.querySelector(":scope > template").content.cloneNode(true);
    const item = fragment.firstElementChild;
    const items = list.querySelector(":scope > .items");
    if (after) after.parentNode.insertBefore(fragment, after.nextSibling); else items.appendChild(fragment);
    item.querySelectorAll("[data-node=choices],[data-node=picks]").forEach(function (g) { g.dataset.order = "[]"; });
    return item;
  }

  function uniqueId(list, wanted) {
    const taken = listItems(list).map(function (item) { return idOf(item); });
    let candidate = wanted + "-copy", n = 2;
    while (taken.indexOf(candidate) >= 0) candidate = wanted + "-copy" + n++;
    return candidate;
  }

  function idOf(item) {
    if (item.classList.contains("folded")) return item.dataset.id || "";
    const input = childNodes(item).filter(function (c) { return c.dataset.key === "id"; })[0];
    return input ? input.value : "";
  }

  function idsAt(pointer) {
    const list = form.querySelector('[data-node=list][data-pointer="' + pointer + '"]');
    return list ? listItems(list).map(idOf).filter(Boolean) : [];
  }

  // A string from the record inside its own bidi isolate (FSI ... PDI, the plain-text <bdi>, as
  // the PDF has it) when it holds right-to-left letters or bidi controls: an override left open in
  // a vendor's string cannot reorder the page's own words after it.
  const REORDERING = /[\p{Bidi_C}\p{sc=Hebr}\p{sc=Arab}\p{sc=Syrc}\p{sc=Thaa}\p{sc=Nkoo}\p{sc=Samr}\p{sc=Mand}\p{sc=Adlm}\p{sc=Rohg}\p{sc=Yezi}]/u;
  function isolated(text) {
    text = String(text);
    return REORDERING.test(text) ? "\u2068" + text + "\u2069" : text;
  }

  function ensureOption(select, value) {
    if (Array.prototype.some.call(select.options, function (o) { return o.value === value; })) return;
    const option = document.createElement("option");
    option.value = value;
    option.textContent = isolated(value) + " (not in the record)";
    select.appendChild(option);
  }

  const REF_SOURCES = { configurations: "/configurations", runs: "/runs", installation: "/installation_scope/items" };

  function refreshRefs() {
    const ids = {};
    Object.keys(REF_SOURCES).forEach(function (ref) { ids[ref] = idsAt(REF_SOURCES[ref]); });
    form.querySelectorAll("select[data-ref]").forEach(function (select) {
      const current = select.value;
      while (select.options.length > 1) select.remove(1);
      ids[select.dataset.ref].forEach(function (id) {
        const option = document.createElement("option");
        option.value = id;
        option.textContent = isolated(id);
        select.appendChild(option);
      });
      if (current) ensureOption(select, current);
      select.value = current;
    });
    form.querySelectorAll("[data-node=picks]").forEach(function (g) { drawBoxes(g, ids[g.dataset.ref]); });
    form.querySelectorAll("[data-node=choices]").forEach(function (g) { drawBoxes(g, JSON.parse(g.dataset.options)); });
  }

  function drawBoxes(group, options) {
    const chosen = selection(group);
    const all = options.concat(chosen.filter(function (v) { return options.indexOf(v) < 0; }));
    const boxes = group.querySelector(".boxes");
    const same = boxes.dataset.drawn === JSON.stringify(all);
    if (!same) {
      boxes.innerHTML = "";
      all.forEach(function (value) {
        const label = document.createElement("label");
        label.className = "box";
        const box = document.createElement("input");
        box.type = "checkbox";
        box.value = value;
        label.appendChild(box);
        label.appendChild(document.createTextNode(" " + value + (options.indexOf(value) < 0 ? " (not in the record)" : "")));
        boxes.appendChild(label);
      });
      boxes.dataset.drawn = JSON.stringify(all);
    }
    boxes.querySelectorAll("input").forEach(function (box) { box.checked = chosen.indexOf(box.value) >= 0; });
    const note = group.querySelector(".empty-note");
    if (note) note.hidden = all.length > 0;
  }

  // Pointers, ids, labels and help links for every control; titles for list items.
  function renumber() {
    (function walk(el, pointer) {
      el.dataset.pointer = pointer;
      const node = el.dataset.node;
      if (node === "object" || node === "list") {
        const children = childNodes(el);
        children.forEach(function (child, i) {
          const step = node === "list" ? String(i) : child.dataset.key.replace(/~/g, "~0").replace(/\//g, "~1");
          walk(child, pointer + "/" + step);
        });
        if (node === "list") {
          const label = el.dataset.itemLabel;
          el.querySelectorAll(":scope > .items > .fold-group").forEach(function (group) {
            const inGroup = group.querySelectorAll(":scope > .item");
            if (!inGroup.length) return;
            const first = children.indexOf(inGroup[0]) + 1, last = children.indexOf(inGroup[inGroup.length - 1]) + 1;
            group.querySelector(":scope > summary > .fold-title").textContent = label + " " + first + "\u2013" + last;
          });
          children.forEach(function (item, i) {
            const id = idOf(item);
            item.querySelector(".item-title").textContent = label + " " + (i + 1) + (id ? ": " + isolated(id) : "");
            item.querySelectorAll(":scope > .item-actions button").forEach(function (b) {
              b.setAttribute("aria-label", b.textContent.replace(/\s+\d+.*$/, "") + " " + (i + 1) + (id ? " (" + id + ")" : ""));
            });
          });
        }
        const err = el.querySelector(":scope > .err, :scope > .items ~ .err");
        if (err) err.id = "e" + domId(pointer) + "-err";
        if (el !== form) el.id = "o" + domId(pointer);  // a problem in the list links here
        return;
      }
      const id = "f" + domId(pointer);
      el.id = id;
      const wrapper = el.closest(".field");
      const label = wrapper.querySelector(":scope > label.label");
      if (label) label.htmlFor = id;
      const described = [];
      wrapper.querySelectorAll(":scope > .help, :scope > .unit").forEach(function (p, i) { p.id = id + "-help" + i; described.push(p.id); });
      const err = wrapper.querySelector(":scope > .err");
      err.id = id + "-err";
      described.push(err.id);
      el.setAttribute("aria-describedby", described.join(" "));
    })(form, "");
  }

  function domId(pointer) { return pointer.replace(/[^A-Za-z0-9_-]/g, "-"); }

  // ----------------------------------------------------------------- rules

  function say(code, key, params) {
    return RULES[code].messages[key].replace(/\{(\w+)\}/g, function (m, name) { return String(params[name]); });
  }

  // wording.num, ported: three significant figures, whole units from 100 up, no invented digits,
  // thousands grouped, halves away from zero (toFixed rounds the exact binary value, as the CLI does).
  function shortestDecimals(x) {
    const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(x)));
    if (!m) return 0;
    return Math.max(0, (m[2] ? m[2].length : 0) - (m[3] ? parseInt(m[3], 10) : 0));
  }
  function decimalsCap(x) {
    if (x === 0) return 0;
    return Math.max(0, 2 - parseInt(Math.abs(x).toExponential(2).split("e")[1], 10));
  }
  function fixed(x, decimals) {
    let text = Math.abs(x) >= 1e21 ? String(x) : x.toFixed(decimals);
    if (Number(text) === 0) text = text.replace(/^-/, "");
    return text.replace(/^(-?\d+)/, function (m) { return m.replace(/\B(?=(\d{3})+(?!\d))/g, ","); });
  }
  function num(value, unit) {
    unit = unit || "";
    if (value === null || value === undefined) return "not stated";
    const text = fixed(value, Math.min(decimalsCap(value), shortestDecimals(value)));
    if (unit === "x") return text + "x";
    return unit ? text + " " + unit : text;
  }

  // wording.claimed, ported: a claimed number never re-rounded: as the claim's own words write it
  // ("1.90x"), else with every digit it has (2.091x).
  function withUnit(text, unit) {
    if (unit === "x") return text + "x";
    return unit ? text + " " + unit : text;
  }
  function quotedFigure(text, value, unit) {
    const numbers = typeof text === "string" ? text.match(/(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?/g) || [] : [];
    for (const written of numbers) {
      const plain = written.replace(/,/g, "");
      if (Number(plain) === value) {
        const parts = plain.split(".");
        return withUnit(fixed(parseInt(parts[0], 10), 0) + (parts.length > 1 ? "." + parts[1] : ""), unit);
      }
    }
    return withUnit(fixed(value, shortestDecimals(value)), unit);
  }

  // figures.claimed_text: the claimed figure as stated, a range or a bound included.
  function claimedText(claim, unit) {
    const low = typeof claim.value === "number" ? claim.value : null;
    const high = typeof claim.value_high === "number" ? claim.value_high : null;
    if (low === null) return "figure";
    // Written as a change (record 1.2): "40 % lower", "1.5-3x lower", "57 % cheaper".
    const relative = claim.relative === "lower" || claim.relative === "higher" ? claim.relative : null;
    if (relative) unit = ["%", "percent", "per cent"].indexOf(String(claim.unit || "").trim().toLowerCase()) >= 0 ? "%" : "x";
    let figure = high !== null ? quotedFigure(claim.text, low, "") + "-" + quotedFigure(claim.text, high, unit) : quotedFigure(claim.text, low, unit);
    if (relative) figure += " " + (claim.kind === "cost" ? (relative === "lower" ? "cheaper" : "more expensive") : relative);
    if (high !== null) return figure;
    const bounds = { "up-to": "up to", "at-least": "at least", "at-most": "at most" };
    return bounds[claim.bound] ? bounds[claim.bound] + " " + figure : figure;
  }

  const PERFORMANCE_KINDS = ["output-throughput", "speedup", "latency", "capacity", "cost"];
  const isCount = function (v) { return typeof v === "number" && Number.isInteger(v); };
  const given = function (v) { return v !== null && v !== undefined; };
  const part = function (o, key) { return isObject(o) && isObject(o[key]) ? o[key] : {}; };
  const listOf = function (o, key) { return isObject(o) && Array.isArray(o[key]) ? o[key] : []; };

  function runIndex(record) {
    const index = {};
    listOf(record, "runs").forEach(function (run, i) {
      if (isObject(run) && typeof run.id === "string" && !(run.id in index)) index[run.id] = i;
    });
    return index;
  }

  // context.effective_k / speculating: K by band when the configuration has a schedule.
  function effectiveK(record, run) {
    const cfg = listOf(record, "configurations").filter(function (c) { return isObject(c) && c.id === run.configuration; })[0];
    if (!cfg) return null;
    const proposer = part(cfg, "proposer");
    const schedule = Array.isArray(proposer.k_schedule) ? proposer.k_schedule : [];
    const concurrency = part(run, "load").concurrency;
    if (schedule.length && given(concurrency)) {
      const band = schedule.filter(function (b) { return isObject(b) && b.min_concurrency <= concurrency && concurrency <= b.max_concurrency; })[0];
      return band ? band.k : null;
    }
    return given(proposer.k) ? proposer.k : null;
  }

  function ruleFindings(record) {
    const found = [];
    const add = function (code, path, message) { found.push({ code: code, path: path, message: message }); };
    const COUNTS = "counts-inconsistent";
    listOf(record, "runs").forEach(function (run, i) {
      if (!isObject(run) || run.arrangement !== "speculative" || effectiveK(record, run) === 0) return;
      const c = part(run, "counts"), at = "/runs/" + i + "/counts/";
      const S = c.verification_steps, P = c.proposed_drafts, A = c.accepted_drafts, B = c.bonus_tokens, E = c.emitted_tokens;
      const problem = function (field, key, params) { add(COUNTS, at + field, say(COUNTS, "run", { run: run.id, problem: say(COUNTS, key, params) })); };
      if (isCount(A) && isCount(P) && A > P) problem("accepted_drafts", "a-exceeds-p", { A: A, P: P });
      if (isCount(E) && isCount(A) && isCount(B) && E !== A + B) problem("emitted_tokens", "e-not-a-plus-b", { E: E, A: A, B: B, sum: A + B });
      const h = c.accepted_length_histogram;
      if (Array.isArray(h) && h.every(isCount)) {
        const total = h.reduce(function (s, n) { return s + n; }, 0);
        if (isCount(S) && total !== S) problem("accepted_length_histogram", "histogram-steps", { total: total, S: S });
        const weighted = h.reduce(function (s, n, j) { return s + j * n; }, 0);
        if (isCount(A) && weighted !== A) problem("accepted_length_histogram", "histogram-accepted", { weighted: weighted, A: A });
      }
    });
    const runs = runIndex(record);
    listOf(record, "claims").forEach(function (claim, i) {
      if (!isObject(claim)) return;
      if (PERFORMANCE_KINDS.indexOf(claim.kind) >= 0 && claim.kind !== "capacity") {
        // At matched interactivity the claim is stated at a per-user speed, not a load.
        if (!given(claim.concurrency) && !given(claim.request_rate) && !given(claim.at_per_user_speed)) {
          add("load-unstated", "/claims/" + i + "/concurrency",
            say("load-unstated", "claim", { value: claimedText(claim, typeof claim.unit === "string" ? claim.unit : "") }));
        }
        [["run", claim.run], ["baseline", claim.baseline]].forEach(function (pair) {
          const at = typeof pair[1] === "string" ? runs[pair[1]] : undefined;
          if (at === undefined) return;
          const run = record.runs[at], load = part(run, "load");
          if (!given(load.concurrency) && !given(load.request_rate)) {
            add("load-unstated", "/runs/" + at + "/load", say("load-unstated", "run", { role: pair[0], run: run.id }));
          }
        });
      }
      // A claim with no run is evidence-missing (sdeval's, whose ask names the baseline too).
      if ((claim.kind === "speedup" || given(claim.relative)) && given(claim.run)) {
        if (!given(claim.baseline)) add("baseline-missing", "/claims/" + i + "/baseline", say("baseline-missing", "none", { value: typeof claim.value === "number" ? claimedText(claim, "x") : "no figure stated" }));
        else if (claim.baseline === claim.run) add("baseline-missing", "/claims/" + i + "/baseline", say("baseline-missing", "itself", { run: claim.run }));
      }
    });
    return found;
  }

  // ----------------------------------------------------------- schema checks

  function escapeStep(s) { return String(s).replace(/~/g, "~0").replace(/\//g, "~1"); }

  const TYPE_WORDS = { integer: "a whole number", number: "a number", string: "text", boolean: "true or false", array: "a list", object: "a group of fields" };

  // difflib.SequenceMatcher(None, a, b).ratio(), as evaluator/schema.py uses it for "did you mean".
  function similarity(a, b) {
    function matches(a0, a1, b0, b1) {
      let best = 0, bi = a0, bj = b0;
      for (let i = a0; i < a1; i++) {
        for (let j = b0; j < b1; j++) {
          let k = 0;
          while (i + k < a1 && j + k < b1 && a[i + k] === b[j + k]) k++;
          if (k > best) { best = k; bi = i; bj = j; }
        }
      }
      if (!best) return 0;
      return best + matches(a0, bi, b0, bj) + matches(bi + best, a1, bj + best, b1);
    }
    return a.length + b.length ? 2 * matches(0, a.length, 0, b.length) / (a.length + b.length) : 1;
  }
  function closest(word, names) {
    let found = null, score = 0.7;
    [word, word.toLowerCase()].forEach(function (w) {
      if (found) return;
      names.forEach(function (n) { const r = similarity(w, n); if (r >= score && (found === null || r > score)) { found = n; score = r; } });
    });
    return found;
  }
  function shown(value) {
    const text = JSON.stringify(value);
    return text.length <= 80 ? text : text.slice(0, 77) + "...";
  }
  function oneOf(values) {
    const quoted = values.map(function (v) { return JSON.stringify(v); });
    return quoted.length > 1 ? quoted.slice(0, -1).join(", ") + " or " + quoted[quoted.length - 1] : quoted[0];
  }

  function schemaFindings(record) {
    const out = [];
    const errors = validateSchema(record) ? [] : validateSchema.errors;
    const missing = {};
    errors.forEach(function (e) { if (e.keyword === "required") missing[e.instancePath + "/" + escapeStep(e.params.missingProperty)] = true; });
    const absorbed = {};
    errors.forEach(function (e) {
      // pydantic's "X or null" fields give Ajv an anyOf: its null branch and the anyOf
      // summary repeat what the real branch already says.
      if (e.keyword === "anyOf" || (e.keyword === "type" && e.params.type === "null")) return;
      let path = e.instancePath, message;
      const got = " (got " + shown(e.data) + ")";
      if (e.keyword === "required") { path += "/" + escapeStep(e.params.missingProperty); message = "required field is missing"; }
      else if (e.keyword === "additionalProperties") {
        const key = e.params.additionalProperty;
        path += "/" + escapeStep(key);
        const present = isObject(e.data) ? Object.keys(e.data) : [];
        const allowed = Object.keys((e.parentSchema && e.parentSchema.properties) || {}).filter(function (n) { return present.indexOf(n) < 0; });
        const meant = closest(key, allowed);
        if (meant) {
          message = "unknown field " + JSON.stringify(key) + ": did you mean " + JSON.stringify(meant) + "?";
          const at = e.instancePath + "/" + escapeStep(meant);
          if (missing[at]) { message += " (" + meant + " is required, and missing)"; absorbed[at] = true; }
        } else message = "unknown field " + JSON.stringify(key) + " (misspelt, or in the wrong place)";
      } else if (e.keyword === "type") message = "must be " + (TYPE_WORDS[e.params.type] || e.params.type) + got;
      else if (e.keyword === "const") message = "must be " + JSON.stringify(e.params.allowedValue) + got;
      else if (e.keyword === "enum") message = "must be " + oneOf(e.params.allowedValues) + got;
      else if (e.keyword === "pattern") message = (WORDING.patterns[e.params.pattern] || "does not have the form this field needs") + got;
      else if (e.keyword === "minimum") message = "must be at least " + num(e.params.limit) + got;
      else if (e.keyword === "maximum") message = "must be at most " + num(e.params.limit) + got;
      else if (e.keyword === "exclusiveMinimum") message = "must be more than " + num(e.params.limit) + got;
      else if (e.keyword === "exclusiveMaximum") message = "must be less than " + num(e.params.limit) + got;
      else if (e.keyword === "maxLength") message = "is longer than the " + num(e.params.limit) + " characters allowed" + got;
      else if (e.keyword === "maxItems") message = "has more than the " + num(e.params.limit) + " entries allowed" + got;
      else if (e.keyword === "minItems") message = "needs at least " + num(e.params.limit) + (e.params.limit === 1 ? " entry" : " entries") + got;
      else message = e.message + got;
      out.push({ code: "schema", path: path, message: message });
    });
    for (let i = out.length - 1; i >= 0; i--) {
      if (absorbed[out[i].path] && out[i].message === "required field is missing") out.splice(i, 1);
    }
    // Ajv reads 5.0 and 1e3 as whole numbers; the record's reader does not, so neither does the page.
    form.querySelectorAll("input[data-type=integer]").forEach(function (el) {
      if (el.value !== "" && !JSON_INTEGER.test(el.value)) out.push({ code: "schema", path: el.dataset.pointer, message: "must be a whole number, written without a decimal point or exponent" });
    });
    form.querySelectorAll("input[data-type=integer],input[data-type=number]").forEach(function (el) {
      if (el.validity.badInput) out.push({ code: "schema", path: el.dataset.pointer, message: "is not a number" });
    });
    form.querySelectorAll("[data-node=numbers]").forEach(function (el) {
      const whole = el.dataset.integer === "yes";
      el.value.split(/[\s,;[\]]+/).filter(Boolean).forEach(function (t, i) {
        if (!JSON_NUMBER.test(t)) out.push({ code: "schema", path: el.dataset.pointer + "/" + i, message: "\"" + t + "\" is not a number" });
        else if (whole && !JSON_INTEGER.test(t)) out.push({ code: "schema", path: el.dataset.pointer + "/" + i, message: "must be a whole number, written without a decimal point or exponent" });
      });
    });
    return out;
  }

  // --------------------------------------------------------------- showing

  function targetFor(pointer) {
    let p = pointer;
    for (;;) {
      const el = form.querySelector('[data-pointer="' + p.replace(/"/g, '\\"') + '"]');
      if (el) return el;
      if (!p) return form;
      p = p.slice(0, p.lastIndexOf("/"));
    }
  }

  function errorBox(el) {
    if (el.dataset.node === "object" || el.dataset.node === "list") return el.querySelector(":scope > .err");
    return el.closest(".field").querySelector(":scope > .err");
  }

  let findings = [];
  // Schema problems are shown for the fields a person has touched, and all of them once the
  // record is saved or loaded: a blank form is not a page of red. Rule findings always show,
  // since only what was typed can break a rule.
  const touched = {};
  let showAll = false;

  function isTouched(el) {
    if (showAll) return true;
    if (touched[el.dataset.pointer]) return true;
    if (el.dataset.node === "object" || el.dataset.node === "list") {
      return Object.keys(touched).some(function (p) { return p.indexOf(el.dataset.pointer + "/") === 0; });
    }
    return false;
  }

  // What a person calls a field: its label, under the headings of the groups and items it is in
  // ("Run 1: offer-b › Counts › Emitted tokens (E)").
  function fieldName(el) {
    const parts = [];
    for (let node = el; node && node !== form; node = node.parentElement.closest("[data-node]")) {
      let text = "";
      if (node.classList.contains("item")) text = node.querySelector(":scope > legend .item-title, :scope > summary .item-title").textContent;
      else if (node.dataset.node === "list" && node !== el) text = "";  // its item's title says it ("Run 1")
      else if (node.dataset.node === "object" || node.dataset.node === "list") {
        const heading = node.querySelector(":scope > legend, :scope > .list-title") || (node.closest("section") && node.parentElement.closest("[data-node]") === form ? node.closest("section").querySelector("h2") : null);
        text = heading ? heading.firstChild.textContent : "";
      } else {
        const label = node.closest(".field").querySelector(":scope > .label");
        text = label ? label.firstChild.textContent : node.dataset.key;
      }
      text = text.trim();
      if (text && parts[0] !== text) parts.unshift(text);
    }
    return parts.join(" \u203a ") || "The record";
  }

  function show(all) {
    form.querySelectorAll(".err").forEach(function (p) { p.hidden = true; p.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
    const list = document.getElementById("findings-list");
    list.innerHTML = "";
    let waiting = 0;
    const listed = [];
    all.forEach(function (f) {
      const target = targetFor(f.path);
      if (f.code === "schema" && !isTouched(target)) { waiting++; return; }
      const box = errorBox(target);
      const line = document.createElement("span");
      line.className = "finding";
      line.dataset.code = f.code;
      line.dataset.severity = f.severity || "error";
      line.innerHTML = '<span class="code"></span> <span class="msg"></span>';
      line.querySelector(".code").textContent = f.code;
      line.querySelector(".msg").textContent = isolated(f.message);
      if (box) { box.appendChild(line); box.hidden = false; }
      // Only an error makes a field invalid; a warning or an info note is shown in its own colour.
      if ((f.severity || "error") === "error" && target.matches("input,select,textarea,fieldset")) target.setAttribute("aria-invalid", "true");
      const item = document.createElement("li");
      item.dataset.code = f.code;
      item.dataset.severity = f.severity || "error";
      item.dataset.path = f.path;
      const go = document.createElement("a");
      go.className = "link";
      go.href = "#" + (target.id || "record");
      go.textContent = fieldName(target) + ": " + isolated(f.message);
      go.title = f.path || "/";
      go.addEventListener("click", function (ev) { ev.preventDefault(); reveal(target, f.path); });
      const code = document.createElement("span");
      code.className = "code";
      code.textContent = f.code;
      code.title = RULES[f.code] ? RULES[f.code].title : "";
      item.appendChild(code);
      item.appendChild(document.createTextNode(" "));
      item.appendChild(go);
      listed.push({ finding: f, item: item, target: target });
    });
    listFindings(list, listed);
    countInFolds(listed);
    let summary;
    if (!all.length) {
      summary = SERVED ? (answer ? "sdeval finds no problems in this record." : "Asking sdeval\u2026")
        : "No problems found in the schema or the counts. The verdict needs sdeval: sdeval validate on the saved file checks every rule.";
    }
    else if (!waiting) summary = severities(all) + ".";
    else summary = (listed.length ? severities(all.filter(function (f) { return !(f.code === "schema" && !isTouched(targetFor(f.path))); })) + "; " : "") +
      waiting + (waiting === 1 ? " field is" : " fields are") + " still to fill in or fix: shown as you reach them, and all at once when you save.";
    document.getElementById("findings-summary").textContent = summary;
    showExtras();
  }

  // The counts by severity, in the words `sdeval assess` uses: "1 error, 2 warnings, 1 info".
  function severities(list) {
    const e = tally(list, "error");
    return (e ? "" : "No problems: ") + counted(list);
  }
  function tally(list, sev) { return list.filter(function (f) { return (f.severity || "error") === sev; }).length; }
  function counted(list) {
    const parts = [];
    const e = tally(list, "error"), w = tally(list, "warning"), i = tally(list, "info");
    if (e) parts.push(e + (e === 1 ? " error" : " errors"));
    if (w) parts.push(w + (w === 1 ? " warning" : " warnings"));
    if (i) parts.push(i + " info");
    return parts.join(", ");
  }

  // ------------------------------------------------------------ folds

  // A record with many entries in a list (a 5,000-run capture) would make a page hundreds of
  // thousands of pixels tall: past FOLD_AFTER entries a loaded list is shown folded, GROUP_SIZE
  // entries to a closed group, each entry a closed summary whose fields are built when it is
  // opened (until then it keeps its value as written, and is saved as it came). Each summary
  // counts the problems inside it. Past PROBLEMS_FOLD_AFTER problems, the list of problems is grouped
  // by code, each group closed and counted.
  const FOLD_AFTER = 20, GROUP_SIZE = 50, PROBLEMS_FOLD_AFTER = 50;

  function foldSummary(title) {
    const summary = document.createElement("summary");
    const heading = document.createElement("span");
    heading.className = title;
    const count = document.createElement("span");
    count.className = "fold-count";
    summary.appendChild(heading);
    summary.appendChild(document.createTextNode(" "));
    summary.appendChild(count);
    return summary;
  }

  function foldItems(list, values) {
    const items = list.querySelector(":scope > .items");
    for (let start = 0; start < values.length; start += GROUP_SIZE) {
      const group = document.createElement("details");
      group.className = "fold-group";
      group.appendChild(foldSummary("fold-title"));
      values.slice(start, start + GROUP_SIZE).forEach(function (value) { group.appendChild(foldedItem(value)); });
      items.appendChild(group);
    }
  }

  function foldedItem(value) {
    const item = document.createElement("details");
    item.className = "obj item folded";
    item.dataset.node = "object";
    item.dataset.keep = stringify(value);
    if (isObject(value) && typeof value.id === "string") item.dataset.id = value.id;
    item.appendChild(foldSummary("item-title"));
    const err = document.createElement("p");
    err.className = "err";
    err.hidden = true;
    item.appendChild(err);
    item.addEventListener("toggle", function () { if (item.open) unfold(item); });
    return item;
  }

  // A folded entry opened: its fields built from the list's own template and filled with its value.
  function unfold(item) {
    if (!item.isConnected || !item.classList.contains("folded")) return;
    const list = item.closest("[data-node=list]");
    const fresh = list.querySelector(":scope > template").content.cloneNode(true).firstElementChild;
    fresh.querySelectorAll("[data-node=choices],[data-node=picks]").forEach(function (g) { g.dataset.order = "[]"; });
    item.replaceWith(fresh);
    fill(fresh, parseRecord(item.dataset.keep));
    renumber();
    refreshRefs();
    openDetailsWithData(fresh);
    if (SERVED) drawTaskView(fresh);
    show(findings);
    const first = fresh.querySelector("input:not([readonly]),select,textarea");
    if (first) first.focus();
  }

  function listFindings(list, listed) {
    if (listed.length <= PROBLEMS_FOLD_AFTER) {
      listed.forEach(function (x) { list.appendChild(x.item); });
      return;
    }
    const byCode = {};
    listed.forEach(function (x) { (byCode[x.finding.code] = byCode[x.finding.code] || []).push(x); });
    Object.keys(byCode).forEach(function (code) {
      const group = document.createElement("li");
      group.className = "finding-group";
      const fold = document.createElement("details");
      const summary = foldSummary("code");
      summary.querySelector(".code").textContent = code;
      summary.querySelector(".fold-count").textContent = counted(byCode[code].map(function (x) { return x.finding; }));
      fold.appendChild(summary);
      const inner = document.createElement("ul");
      byCode[code].forEach(function (x) { inner.appendChild(x.item); });
      fold.appendChild(inner);
      group.appendChild(fold);
      list.appendChild(group);
    });
  }

  function countInFolds(listed) {
    const inside = new Map();
    listed.forEach(function (x) {
      [x.target.closest(".folded"), x.target.closest(".fold-group")].forEach(function (fold) {
        if (fold) { if (!inside.has(fold)) inside.set(fold, []); inside.get(fold).push(x.finding); }
      });
    });
    form.querySelectorAll(".folded, .fold-group").forEach(function (fold) {
      const found = inside.get(fold) || [];
      fold.querySelector(":scope > summary > .fold-count").textContent = found.length ? "(" + counted(found) + ")" : "(no problems)";
      fold.dataset.severity = tally(found, "error") ? "error" : tally(found, "warning") ? "warning" : found.length ? "info" : "none";
    });
  }

  function showExtras() {
    form.querySelectorAll("[data-node=object]").forEach(function (el) {
      const box = el.querySelector(":scope > .extras");
      if (!box) return;
      const extras = extrasOf(el);
      const keys = Object.keys(extras);
      box.hidden = !keys.length;
      box.innerHTML = "";
      if (!keys.length) return;
      const p = document.createElement("p");
      p.textContent = "Fields in the loaded record that this form does not know (kept as they are when you save):";
      box.appendChild(p);
      keys.forEach(function (k) {
        const row = document.createElement("div");
        const code = document.createElement("code");
        code.textContent = isolated(k) + ": " + isolated(extras[k]);
        const remove = document.createElement("button");
        remove.type = "button";
        remove.textContent = "Remove field " + isolated(k);
        remove.addEventListener("click", function () {
          const now = extrasOf(el);
          delete now[k];
          el.dataset.extras = JSON.stringify(now);
          changed();
        });
        row.appendChild(code);
        row.appendChild(document.createTextNode(" "));
        row.appendChild(remove);
        box.appendChild(row);
      });
    });
  }

  function reveal(el, path) {
    // A problem inside a folded item: its fields are built first, then the field itself is shown.
    const folded = el.closest(".folded");
    if (folded) { unfold(folded); el = targetFor(path); }
    for (let d = el.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
    const focusable = el.matches("input,select,textarea") ? el : el.querySelector("input,select,textarea,button");
    el.scrollIntoView({ block: "center" });
    if (focusable) focusable.focus();
  }

  // ------------------------------------------------------------ the cycle

  function current() { return collect(form); }

  function check() {
    const value = current();
    if (SERVED) { ask(value); show(findings); return value; }
    const record = plain(value);
    const seen = {};
    findings = schemaFindings(record).concat(ruleFindings(record)).filter(function (f) {
      const key = f.code + "\u0000" + f.path + "\u0000" + f.message;
      if (seen[key]) return false;
      seen[key] = true;
      return true;
    });
    show(findings);
    return value;
  }

  // ------------------------------------------------------ served: sdeval's verdict

  // Only the newest record's answer is shown; an older one arriving late is dropped.
  let asked = 0, answered = 0, answer = null;
  function ask(value) {
    const seq = ++asked;
    fetch("/assess", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Sdeval-Token": SERVED.token },
      body: stringify(value) + "\n",
      cache: "no-store",
      credentials: "omit",
    }).then(function (r) {
      return r.json().then(function (body) { return { ok: r.ok, body: body }; });
    }).then(function (reply) {
      if (seq !== asked) return;
      answered = seq;
      if (!reply.ok) { servedProblem(reply.body.error || "sdeval could not assess the record"); return; }
      answer = reply.body;
      taskViews = answer.tasks || {};
      showTasks();
      findings = answer.document.findings.map(function (f) {
        return { code: f.code, severity: f.severity, path: f.path, message: f.message };
      });
      show(findings);
      showVerdict(answer);
    }).catch(function (e) {
      if (seq !== asked) return;
      answered = seq;
      servedProblem("sdeval serve did not answer (" + e.message + "); is it still running?");
    });
  }

  function servedProblem(text) {
    answer = null;
    taskViews = {};  // figures shown are always the record's now on the page, or none
    showTasks();
    document.getElementById("verdict").hidden = true;
    document.getElementById("findings-summary").textContent = isolated(text);
  }

  function fillList(id, items) {
    const list = document.getElementById(id);
    list.innerHTML = "";
    items.forEach(function (text) {
      const li = document.createElement("li");
      li.textContent = isolated(text);
      list.appendChild(li);
    });
  }

  function showVerdict(reply) {
    const file = reply.document.files[0];
    const firstLine = reply.text.split("\n")[0];
    document.getElementById("verdict-outcome").textContent = isolated(firstLine + (reply.reason ? " \u2014 sdeval: " + reply.reason : ""));
    fillList("verdict-claims", file.claims.map(function (c, i) {
      const out = c.output && c.output.value !== null && c.output.value !== undefined
        ? "; users receive " + num(c.output.value, c.output.unit) + " (" + c.output.figure + ")" : "";
      // how sure the measured figure is, in sdeval's words (record 1.3 runs[].uncertainty)
      const sure = reply.measured && reply.measured[i] ? "; measured " + reply.measured[i] : "";
      return c.id + ": " + c.verdict.replace(/-/g, " ") + (c.unfavourable ? " (" + c.unfavourable + ")" : "") + out + sure;
    }));
    document.getElementById("verdict-asks-title").textContent = reply.asks_heading || "What to ask the vendor";
    fillList("verdict-asks", file.asks.map(function (a) { return a.text + " (" + a.code + ")"; }));
    document.getElementById("verdict-text").textContent = reply.text;
    document.getElementById("verdict").hidden = false;
  }

  // ------------------------------------------ served: per task and per request

  // sdeval's answer per run (present/task_view): the per-task table with every cell as the PDF
  // prints it, and the histograms of per-request A / P with the PDF's axis and bar labels; the page
  // only places them, as text (a task label is never markup). Drawn into each open run; a folded
  // run's when it is opened, so a record of thousands of runs costs nothing until then.
  const CLOSED_WHEN_SERVED = ["per_task", "request_acceptance", "measurement"];
  const TASK_COLUMNS = [["task", "Task"], ["requests", "Requests"], ["tokens", "Output tokens"], ["decode", "Decode p50 (tok/s)"],
    ["ttft", "TTFT p50 (ms)"], ["speedup", "Speedup [95 % interval]"], ["pairs", "Pairs"], ["rate", "A / P"]];
  let taskViews = {};

  function showTasks() {
    const runs = form.querySelector('[data-node=list][data-pointer="/runs"]');
    if (!runs) return;
    listItems(runs).forEach(function (item) { if (!item.classList.contains("folded")) drawTaskView(item); });
  }

  function drawTaskView(item) {
    const view = taskViews[idOf(item)];
    const drawn = view ? JSON.stringify(view) : "";
    let box = item.querySelector(":scope > .task-view");
    if (box && box.dataset.drawn === drawn) return;
    if (!view) { if (box) box.remove(); return; }
    if (!box) {
      box = document.createElement("section");
      box.className = "task-view";
      const block = item.querySelector(':scope > details > [data-key="request_acceptance"]');
      item.insertBefore(box, block ? block.parentElement : null);
    }
    box.dataset.drawn = drawn;
    box.textContent = "";
    const title = document.createElement("h4");
    title.textContent = "Per task and per request, as sdeval reads this run";
    box.appendChild(title);
    if (view.rows.length) {
      if (view.method) {
        const how = document.createElement("details");
        appendText(how, "summary", "", "How these figures are computed (the record's words)");
        appendText(how, "p", "help", isolated(view.method));
        box.appendChild(how);
      }
      box.appendChild(taskTable(view.rows));
    }
    if (view.histograms.length) {
      const charts = document.createElement("div");
      charts.className = "task-charts";
      view.histograms.forEach(function (h) {
        const figure = document.createElement("figure");
        figure.appendChild(histogram(h));
        appendText(figure, "figcaption", "", isolated(h.caption));
        charts.appendChild(figure);
      });
      box.appendChild(charts);
    }
  }

  function appendText(parent, tag, className, text) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    el.textContent = text;
    parent.appendChild(el);
    return el;
  }

  function taskTable(rows) {
    const table = document.createElement("table");
    table.className = "task-table";
    const head = table.createTHead().insertRow();
    TASK_COLUMNS.forEach(function (c) { appendText(head, "th", c[0] === "task" ? "" : "num", c[1]).scope = "col"; });
    const body = table.createTBody();
    rows.forEach(function (row) {
      const tr = body.insertRow();
      TASK_COLUMNS.forEach(function (c) {
        if (c[0] === "task") appendText(tr, "th", "", isolated(row.task)).scope = "row";
        else appendText(tr, "td", "num", row[c[0]]).dataset.column = c[0];
      });
    });
    return table;
  }

  // The PDF's bar chart (present/charts.bar_chart): the same size, margins, axis and labels.
  const SVG_NS = "http://www.w3.org/2000/svg";
  function svgElement(parent, name, attrs, text) {
    const el = document.createElementNS(SVG_NS, name);
    Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    if (text !== undefined) el.textContent = text;
    parent.appendChild(el);
    return el;
  }
  function histogram(h) {
    const width = 250, height = 170, left = 52, right = 8, top = 28, bottom = 40;
    const plotW = width - left - right, plotH = height - top - bottom;
    const yMax = h.axis[h.axis.length - 1][0], slot = plotW / h.bins.length;
    const font = { "font-family": "DejaVu Sans, sans-serif", fill: "#000", "text-anchor": "middle" };
    const label = function (x, y, size, text, extra) {
      return svgElement(svg, "text", Object.assign({ x: x.toFixed(1), y: y.toFixed(1), "font-size": size }, font, extra || {}), text);
    };
    const svg = document.createElementNS(SVG_NS, "svg");
    [["width", width], ["height", height], ["viewBox", "0 0 " + width + " " + height], ["role", "img"], ["aria-label", isolated(h.alt)]].forEach(function (a) { svg.setAttribute(a[0], a[1]); });
    svgElement(svg, "title", {}, isolated(h.alt));
    label(width / 2, 14, 9.5, isolated(h.title), { "font-weight": "bold" });
    h.axis.forEach(function (tick) {
      const y = top + plotH - tick[0] / yMax * plotH;
      svgElement(svg, "line", { x1: left, y1: y.toFixed(1), x2: left + plotW, y2: y.toFixed(1), stroke: "#ccc", "stroke-width": 0.6 });
      label(left - 4, y + 3, 7.5, tick[1], { "text-anchor": "end" });
    });
    h.bins.forEach(function (count, j) {
      const barH = count / yMax * plotH;
      svgElement(svg, "rect", { x: (left + j * slot + slot * 0.18).toFixed(1), y: (top + plotH - barH).toFixed(1), width: (slot * 0.64).toFixed(1),
        height: barH.toFixed(1), fill: "#777", stroke: "#000", "stroke-width": 0.8, "data-count": count });
      label(left + (j + 0.5) * slot, top + plotH - barH - 3, 7.5, h.shares[j]);
      label(left + (j + 0.5) * slot, top + plotH + 12, 8, String(j));
    });
    svgElement(svg, "line", { x1: left, y1: top + plotH, x2: left + plotW, y2: top + plotH, stroke: "#000" });
    label(left + plotW / 2, height - 8, 8.5, h.x_label);
    label(12, top + plotH / 2, 8.5, h.y_label, { transform: "rotate(-90 12 " + (top + plotH / 2).toFixed(1) + ")" });
    return svg;
  }

  let pending = null;
  function changed(structural) {
    if (structural) { renumber(); refreshRefs(); }
    clearTimeout(pending);
    pending = setTimeout(function () {
      renumber();
      refreshRefs();
      remember(check());
    }, 120);
  }

  // The record `sdeval serve RECORD` started from, as a fingerprint: a draft typed over it is
  // restored on a reload, never replaced by the file again; a draft over another start is not.
  function startedFrom() {
    if (!SERVED || !SERVED.initial) return null;
    let h = 5381;
    const text = SERVED.initial.name + "\u0000" + SERVED.initial.text;
    for (let i = 0; i < text.length; i++) h = ((h * 33) ^ text.charCodeAt(i)) >>> 0;
    return h.toString(16) + ":" + text.length;
  }

  function remember(value) {
    try { localStorage.setItem(STORAGE_KEY, JSON.stringify({ at: new Date().toISOString(), record: stringify(value), touched: Object.keys(touched), from: startedFrom() })); } catch (e) { /* storage full or off */ }
  }

  function openDetailsWithData(root) {
    (root || form).querySelectorAll("details.optional").forEach(function (d) {
      const obj = d.querySelector("[data-node]");
      // Served, a run's per-task and per-request blocks are shown as sdeval's table and histograms
      // (showTasks), and its measurement block (the instrument's log of each window) as the findings
      // drawn from it: their fields, thousands of pixels of measured figures, open on a click.
      if (SERVED && CLOSED_WHEN_SERVED.indexOf(obj.dataset.key) >= 0) return;
      d.open = d.open || collect(obj) !== undefined;
    });
  }

  function load(value) {
    showAll = true;  // a record someone wrote: every problem in it is news
    clearNode(form);
    fill(form, value);
    renumber();
    refreshRefs();
    openDetailsWithData();
    check();
  }

  function blank() {
    showAll = false;
    Object.keys(touched).forEach(function (k) { delete touched[k]; });
    clearNode(form);
    ["/configurations", "/runs", "/claims"].forEach(function (p) {
      addItem(form.querySelector('[data-pointer="' + p + '"]'));
    });
    renumber();
    refreshRefs();
    check();
  }

  // --------------------------------------------------------------- events

  function untouched(el) {
    // Typing replaces a kept value the form could not show.
    delete el.dataset.keep;
    for (let o = el.parentElement.closest("[data-node]"); o; o = o.parentElement.closest("[data-node]")) {
      if (o.dataset.keep !== undefined && o.dataset.keep.charAt(0) !== "{" && o.dataset.keep.charAt(0) !== "[") delete o.dataset.keep;
    }
  }

  function touch(ev) {
    const el = ev.target.closest("[data-node]");
    if (el && el.dataset.pointer !== undefined) touched[el.dataset.pointer] = true;
  }
  // A field counts as touched once it was typed in, changed or left.
  form.addEventListener("focusout", function (ev) { if (ev.target.matches("input,select,textarea")) { touch(ev); changed(); } });

  form.addEventListener("input", function (ev) {
    const el = ev.target.closest("[data-node]");
    if (!el) return;
    touch(ev);
    if (el.dataset.node === "choices" || el.dataset.node === "picks") {
      const box = ev.target;
      let chosen = selection(el).filter(function (v) { return v !== box.value; });
      if (box.checked) chosen.push(box.value);
      el.dataset.order = JSON.stringify(chosen);
    }
    untouched(el);
    changed(ev.target.dataset.key === "id");
  });
  // Enter in a field must never submit (and so reload) the page.
  form.addEventListener("submit", function (ev) { ev.preventDefault(); });
  form.addEventListener("change", function (ev) { if (ev.target.matches("select")) { touch(ev); changed(); } });

  form.addEventListener("click", function (ev) {
    const button = ev.target.closest("button[data-action]");
    if (!button) return;
    const action = button.dataset.action;
    const list = button.closest("[data-node=list]");
    let focus;
    if (action === "add") {
      focus = addItem(list);
    } else {
      const item = button.closest(".item");
      if (action === "duplicate") {
        const copy = collect(item);
        const fresh = addItem(list, item);
        fill(fresh, copy);
        const idInput = childNodes(fresh).filter(function (c) { return c.dataset.key === "id"; })[0];
        if (idInput && idInput.value) idInput.value = uniqueId(list, idInput.value);
        focus = fresh;
      } else if (action === "remove") {
        const next = item.nextElementSibling || item.previousElementSibling;
        item.remove();
        focus = next || list.querySelector(":scope > .add");
      }
    }
    renumber();
    refreshRefs();
    changed(true);
    if (focus) {
      const target = focus.matches("button") ? focus : focus.querySelector("input:not([readonly]),select,textarea");
      if (target) target.focus();
    }
  });

  document.getElementById("save").addEventListener("click", function () {
    clearTimeout(pending);
    showAll = true;  // saving asks for the whole verdict
    renumber();
    refreshRefs();
    const value = check();
    const text = stringify(value) + "\n";
    const offerId = isObject(value.offer) && typeof value.offer.offer_id === "string" ? value.offer.offer_id : "";
    const name = (offerId.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "evidence-record") + ".json";
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
    try { localStorage.removeItem(STORAGE_KEY); } catch (e) { /* storage off */ }
    statusLine.textContent = "Saved as " + name + (findings.length ? " (" + findings.length + " problems still listed)." : ".");
  });

  document.getElementById("load-file").addEventListener("change", function (ev) {
    const file = ev.target.files[0];
    if (!file) return;
    file.text().then(function (text) {
      let value;
      const yamlFile = looksLikeYaml(file.name, text);
      try { value = yamlFile ? parseYamlRecord(text) : parseRecord(text); } catch (e) {
        statusLine.textContent = file.name + " is not a " + (yamlFile ? "YAML" : "JSON") + " record: " + e.message.split("\n")[0];
        return;
      }
      if (!isObject(value)) { statusLine.textContent = file.name + " holds no object (a mapping of fields), so it is not an evidence record."; return; }
      load(value);
      remember(current());
      statusLine.textContent = "Loaded " + file.name + ".";
    }).finally(function () { ev.target.value = ""; });
  });

  let clearArmed = null;
  document.getElementById("clear").addEventListener("click", function (ev) {
    const button = ev.currentTarget;
    if (!clearArmed) {
      button.textContent = "Click again to clear everything";
      clearArmed = setTimeout(function () { clearArmed = null; button.textContent = "Start over"; }, 5000);
      return;
    }
    clearTimeout(clearArmed);
    clearArmed = null;
    button.textContent = "Start over";
    try { localStorage.removeItem(STORAGE_KEY); } catch (e) { /* storage off */ }
    blank();
    statusLine.textContent = "Started a new, empty record.";
  });

  // ------------------------------------------------------------------ start

  form.querySelectorAll("[data-node=choices]").forEach(function (g) { g.dataset.order = "[]"; });
  renumber();
  let draft = null;
  try { draft = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null"); } catch (e) { draft = null; }
  const draftHere = draft && typeof draft.record === "string" && (draft.from || null) === startedFrom();
  if (SERVED && SERVED.initial && !draftHere) {
    const start = SERVED.initial;
    load(looksLikeYaml(start.name, start.text) ? parseYamlRecord(start.text) : parseRecord(start.text));
    statusLine.textContent = "Loaded " + start.name + " (given to sdeval serve).";
  } else if (draftHere) {
    load(parseRecord(draft.record));
    showAll = false;  // a draft is still being typed: its blanks are not yet mistakes
    if (Array.isArray(draft.touched)) draft.touched.forEach(function (p) { touched[p] = true; });
    check();
    statusLine.textContent = "Restored what you typed earlier (" + draft.at + "); it is kept here until you save.";
  } else {
    blank();
  }
  // For tests and for anyone curious in the console.
  window.sdevalForm = {
    collect: function () { return stringify(current()); },
    loadText: function (text) { load(parseRecord(text)); },
    loadYaml: function (text) { load(parseYamlRecord(text)); },
    num: num,
    findings: function () { return findings; },
    // Served: true once sdeval has answered for the record the page holds now.
    settled: function () { return SERVED !== null && asked > 0 && answered === asked && answer !== null; },
    verdict: function () { return answer; },
    catalog: CATALOG,
  };
})();
