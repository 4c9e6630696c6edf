/* harmony site: the ruling explorer (issue 18). Only explorer.html loads this file.

   The page boots Pyodide from the bundle `harmony build` wrote into _explorer/
   (classic scripts only, so it works from file:// as well as from a server),
   unpacks the harmony package and the rules into Pyodide's file system, and asks
   harmony.games.panzerblitz.explorer.Explorer every question: this file draws and edits, the
   project's own engine decides. Nothing here computes a ruling.

   The position (a scenario body: map, units, start, rulesets, steps) lives in
   the address as #position=<base64url of UTF-8 compact JSON with sorted keys>.

   By keyboard and screen reader (issue 31): a skip link leads to the explorer; the board is
   one Tab stop (a list box of hexes: arrows move a ring, Enter chooses, as a click does);
   the board is also told in words; the focus stays on the control the reader changed; a
   summary of each decision is announced in the rulings' live region. */
(function () {
  "use strict";

  var root = document.getElementById("hm-explorer");
  if (!root) { return; }
  var BUNDLE = root.getAttribute("data-bundle") || "_explorer/";
  /* the skip link: the page's first stop for the Tab key, to the explorer (the address
     keeps its position: the link moves the focus, not the address) */
  var skip = document.querySelector("a.hm-skip");
  if (skip) {
    document.body.insertBefore(skip, document.body.firstChild);
    skip.addEventListener("click", function (ev) {
      ev.preventDefault();
      root.focus();
      root.scrollIntoView();
    });
  }
  var SVGNS = "http://www.w3.org/2000/svg";

  /* ------------------------------------------------------------ small helpers */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") { node.textContent = attrs[k]; }
      else if (k.slice(0, 2) === "on") { node.addEventListener(k.slice(2), attrs[k]); }
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) { node.setAttribute(k, attrs[k]); }
    });
    (children || []).forEach(function (c) { if (c) { node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); } });
    return node;
  }
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }
  var message = null;   // the last thing said to the reader, kept until the next edit
  function status(text, error) {
    message = {text: text, error: !!error};
    var p = root.querySelector(".hm-ex-status");
    if (!p) { p = el("p", {"class": "hm-ex-status", role: "status"}); root.insertBefore(p, root.firstChild); }
    p.textContent = text;
    p.classList.toggle("hm-ex-error", !!error);
  }
  /* ------------------------------------------------------------ the URL encoding
     The same as harmony.games.panzerblitz.explorer.encode/decode: base64url, no padding, of UTF-8
     compact JSON with sorted keys. */
  function canonical(value) {
    if (Array.isArray(value)) { return "[" + value.map(canonical).join(",") + "]"; }
    if (value && typeof value === "object") {
      return "{" + Object.keys(value).sort().map(function (k) {
        return JSON.stringify(k) + ":" + canonical(value[k]);
      }).join(",") + "}";
    }
    return JSON.stringify(value);
  }
  function bytesToBase64(bytes) {
    var s = "";
    for (var i = 0; i < bytes.length; i += 0x8000) { s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000)); }
    return btoa(s);
  }
  function base64ToBytes(b64) {
    if (Uint8Array.fromBase64) { return Uint8Array.fromBase64(b64); }
    var s = atob(b64), out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i += 1) { out[i] = s.charCodeAt(i); }
    return out;
  }
  function encode(position) {
    var b64 = bytesToBase64(new TextEncoder().encode(canonical(position)));
    return b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function decode(text) {
    var b64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) { b64 += "="; }
    return JSON.parse(new TextDecoder().decode(base64ToBytes(b64)));
  }
  /* how deeply JSON text nests lists and mappings, in one pass before it is parsed (a
     bracket inside a string does not count): as harmony.games.panzerblitz.explorer.nesting */
  function nesting(text) {
    var depth = 0, deepest = 0, inString = false;
    for (var i = 0; i < text.length; i += 1) {
      var c = text.charCodeAt(i);
      if (inString) {
        if (c === 92) { i += 1; } else if (c === 34) { inString = false; }
      } else if (c === 34) { inString = true; }
      else if (c === 91 || c === 123) { depth += 1; if (depth > deepest) { deepest = depth; } }
      else if (c === 93 || c === 125) { depth -= 1; }
    }
    return deepest;
  }
  /* The limits a link must keep (harmony build writes them from the schema and
     harmony.games.panzerblitz.explorer); these stand in for a bundle that does not say. */
  var LIMITS = {link: 1333336, nesting: 39, columns: 60, rows: 60, units: 10000, steps: 1000};
  function num(n) { return Number(n).toLocaleString("en-US"); }
  function kindOf(v) {
    return v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "a mapping" :
      typeof v === "string" ? "text" : typeof v === "boolean" ? "true or false" : "a number";
  }
  /* The cheap checks of a link's code, before anything is parsed deeply or drawn: its length,
     base64url of UTF-8 JSON text, its nesting, a mapping, the map's size and the number of
     units and steps. {position} or {error}; the Python side then checks the whole position
     as a scenario file is checked (harmony.games.panzerblitz.explorer.Explorer.check). */
  function precheck(code) {
    if (code.length > LIMITS.link) {
      return {error: "the link is too long (" + num(code.length) + " characters; the limit is " + num(LIMITS.link) + ")"};
    }
    if (!/^[A-Za-z0-9_-]*$/.test(code)) { return {error: "the link's code is not base64url of JSON text"}; }
    var text;
    try {
      var b64 = code.replace(/-/g, "+").replace(/_/g, "/");
      while (b64.length % 4) { b64 += "="; }
      text = new TextDecoder("utf-8", {fatal: true}).decode(base64ToBytes(b64));
    } catch (e) { return {error: "the link's code is not base64url of JSON text"}; }
    var depth = nesting(text);
    if (depth > LIMITS.nesting) {
      return {error: "the position nests lists and mappings " + depth + " deep; the limit is " + LIMITS.nesting};
    }
    var p;
    try { p = JSON.parse(text); } catch (e) { return {error: "the link's code is not base64url of JSON text"}; }
    if (p === null || typeof p !== "object" || Array.isArray(p)) {
      return {error: "a position is a mapping (map, units, start, rulesets, steps), not " + kindOf(p)};
    }
    if (p.map !== undefined) {
      var m = p.map;
      if (m === null || typeof m !== "object" || Array.isArray(m)) { return {error: "map: a mapping, not " + kindOf(m), path: "map"}; }
      var ok = true;
      ["columns", "rows"].forEach(function (k) {
        var v = m[k];
        if (v !== undefined && !(typeof v === "number" && Math.floor(v) === v && v >= 1 && v <= LIMITS[k])) { ok = false; }
      });
      if (!ok) {
        return {error: "the map is " + String(m.columns).slice(0, 20) + " columns by " + String(m.rows).slice(0, 20) +
                " rows; a map has 1 to " + LIMITS.columns + " columns and 1 to " + LIMITS.rows + " rows", path: "map"};
      }
    }
    var counts = [["units", "unit"], ["steps", "step"]];
    for (var i = 0; i < counts.length; i += 1) {
      var k = counts[i][0], v = p[k];
      if (v !== undefined && !Array.isArray(v)) { return {error: k + ": a list, not " + kindOf(v), path: k}; }
      if (v && v.length > LIMITS[k]) {
        return {error: "the position has " + num(v.length) + " " + counts[i][1] + "s; the limit is " + num(LIMITS[k]), path: k};
      }
    }
    return {position: p};
  }
  window.harmonyExplorerCodec = {encode: encode, decode: decode, canonical: canonical, nesting: nesting,
                                 precheck: precheck};

  /* ------------------------------------------------------------ hex geometry
     The flat-topped, odd-q board of harmony.games.panzerblitz.hexgrid (labels A1, B1...). */
  var SQRT3 = Math.sqrt(3);
  function colIndex(letters) {
    var n = 0;
    for (var i = 0; i < letters.length; i += 1) { n = n * 26 + (letters.charCodeAt(i) - 64); }
    return n - 1;
  }
  function colLetters(index) {
    var out = "";
    index += 1;
    while (index) { var rem = (index - 1) % 26; out = String.fromCharCode(65 + rem) + out; index = Math.floor((index - 1) / 26); }
    return out;
  }
  function parseLabel(text) {
    var m = /^([A-Z]{1,2})([1-9][0-9]{0,2})$/.exec(text || "");
    if (!m) { return null; }
    var col = colIndex(m[1]), row = parseInt(m[2], 10) - 1;
    return {q: col, r: row - (col - (col & 1)) / 2};
  }
  function hexLabel(h) {
    var row = h.r + (h.q - (h.q & 1)) / 2;
    return colLetters(h.q) + (row + 1);
  }
  function adjacent(a, b) {
    var ha = parseLabel(a), hb = parseLabel(b);
    if (!ha || !hb) { return false; }
    var dq = ha.q - hb.q, dr = ha.r - hb.r;
    return (Math.abs(dq) + Math.abs(dr) + Math.abs(dq + dr)) === 2;
  }
  function centre(lab, size) {
    var h = parseLabel(lab);
    return [size + size * 1.5 * h.q, size * SQRT3 / 2 + size * (SQRT3 / 2 * h.q + SQRT3 * h.r)];
  }
  function boardLabels(cols, rows) {
    var out = [];
    for (var c = 0; c < cols; c += 1) { for (var r = 0; r < rows; r += 1) { out.push(colLetters(c) + (r + 1)); } }
    return out;
  }
  function onBoard(lab, m) {
    var h = parseLabel(lab);
    if (!h) { return false; }
    var row = h.r + (h.q - (h.q & 1)) / 2;
    return h.q >= 0 && h.q < m.columns && row >= 0 && row < m.rows;
  }

  /* ------------------------------------------------------------ the engine in Pyodide
     Every script of the bundle is asked for at once, as the page starts (fetched side by
     side, run in order). harmony.js, small, comes first: with what it holds (what a
     position may hold, the drawing style, the limits of a link) the page draws the
     position of its address at once and says it is deciding. As soon as runtime.js has
     run, the WebAssembly binary is decoded and compiled while the rest is read; Pyodide
     then starts, from the snapshot of its memory that snapshot.js holds when the build
     could take one (the engine already imported: harmony.site.snapshot), Python's path
     gets the bundle's two zips as they are (Python imports from a zip: nothing is
     unpacked) and reads the rules from JSON. */
  var bundle = null;   // window.__harmonyExplorerBundle, once harmony.js has run
  var catalogue = null, links = {};
  var engine = null;   // {check(pos), decide(pos) -> result, yaml(pos, id, title) -> text}

  function gunzip(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).arrayBuffer().then(function (b) { return new Uint8Array(b); });
  }

  function requestScripts() {
    var loaded = {};
    var names = ["harmony.js", "runtime.js", "pyodide-asm.js", "pyodide.js"];
    if (localFiles()) { names.push("snapshot.js"); }
    names.forEach(function (name) {
      var s = document.createElement("script");
      s.src = BUNDLE + name;
      s.async = false;      /* fetched at once, run in this order */
      loaded[name] = new Promise(function (resolve, reject) {
        s.onload = resolve;
        s.onerror = function () { reject(new Error("could not load " + BUNDLE + name)); };
      });
      document.head.appendChild(s);
    });
    return loaded;
  }

  /* Whether the page's files are on this machine (file://, or harmony serve on a loopback
     address): only then is the snapshot of Pyodide's memory read. It saves Pyodide about
     half its start, but it is 8.5 MB more to fetch, which over most networks takes longer
     than it saves; from another host, Pyodide starts as it would without one. */
  function localFiles() {
    return window.location.protocol === "file:" ||
      /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(window.location.hostname);
  }

  /* the runtime's files decoded, and the binary compiled, as soon as runtime.js has run;
     the snapshot decoded as soon as snapshot.js has (null when there is none, or when the
     page does not read it) */
  function decodeRuntime(loaded) {
    return loaded["runtime.js"].then(function () {
      var files = window.__harmonyPyodideFiles, out = {};
      window.__harmonyPyodideFiles = null;   /* megabytes of text, decoded once */
      Object.keys(files).forEach(function (name) { out[name] = gunzip(base64ToBytes(files[name])); });
      out.module = out["pyodide.asm.wasm"].then(function (bytes) { return WebAssembly.compile(bytes); });
      out.snapshot = !loaded["snapshot.js"] ? Promise.resolve(null) : loaded["snapshot.js"].then(function () {
        var snap = window.__harmonyPyodideSnapshot;
        window.__harmonyPyodideSnapshot = null;
        return snap ? gunzip(base64ToBytes(snap)) : null;
      }, function () { return null; });   /* (reported by the script's own error) */
      return out;
    });
  }

  function startPython(loaded, runtime) {
    var base = new URL(BUNDLE, window.location.href).href;
    window.__harmonyPyodideBase = base;
    return Promise.all([loaded["pyodide.js"], runtime]).then(function (got) {
      var files = got[1];
      return files.snapshot.then(function (snap) {
        if (!snap) {
          root.setAttribute("data-snapshot", loaded["snapshot.js"] ? "none" : "not-local");
          return loadPython(base, files, null);
        }
        /* a snapshot this Pyodide refuses: an ordinary start, as without one */
        return loadPython(base, files, snap).then(function (py) {
          root.setAttribute("data-snapshot", "restored");
          return py;
        }, function (e) {
          if (window.console) { console.warn("Pyodide refused the snapshot, starting without it:", e); }
          root.setAttribute("data-snapshot", "refused");
          return loadPython(base, files, null);
        });
      });
    }).then(function (py) {
      root.setAttribute("data-pyodide-ms", performance.now().toFixed(0));   // Pyodide started
      var home = bundle.home, zips = bundle.zips.map(function (name) { return home + "/" + name; });
      var rules = home + "/" + bundle.model;
      py.FS.mkdirTree(home);
      py.FS.writeFile(zips[0], base64ToBytes(bundle.engine));
      py.FS.writeFile(zips[1], base64ToBytes(bundle.more));
      py.FS.writeFile(rules, bundle.rules);
      /* the collector waits until the first ruling is shown (then the loaded rules are
         frozen out of its walks: a full collection during a decision costs more than the
         decision) */
      /* the engine's zip first on Python's path; the other last, read only for what neither
         the engine's zip nor the standard library holds (the YAML writer, jsonschema); from
         a snapshot, the path is set and the engine imported already, and Python's random
         numbers, drawn from a fixed sequence when the snapshot was taken, are seeded anew */
      py.runPython("import gc\ngc.disable()\nimport sys\n" +
                   "if " + JSON.stringify(zips[0]) + " not in sys.path: sys.path.insert(0, " + JSON.stringify(zips[0]) + ")\n" +
                   "if " + JSON.stringify(zips[1]) + " not in sys.path: sys.path.append(" + JSON.stringify(zips[1]) + ")\n" +
                   "if 'random' in sys.modules: sys.modules['random'].seed()\n" +
                   "from " + bundle.module + " import Explorer\n" +
                   "with open(" + JSON.stringify(rules) + ", 'rb') as _f: _harmony_explorer = Explorer.from_json(_f.read())\n" +
                   "del _f\n");
      root.setAttribute("data-engine-ms", performance.now().toFixed(0));   // the engine and rules read
      /* whether the modules came as byte code compiled at build time (harmony.site.bytecode) */
      root.setAttribute("data-bytecode", py.runPython("__import__('harmony').__file__.endswith('.pyc')") ?
                        "compiled" : "source");
      var ex = py.globals.get("_harmony_explorer");
      var decideFn = ex.decide, yamlFn = ex.scenario_yaml, checkFn = ex.check;
      return {
        /* the position read as a scenario file is read: {ok} or {error: {message, path}} */
        check: function (pos) { return JSON.parse(checkFn(canonical(pos))); },
        /* the rulings alone: the page draws its own board */
        decide: function (pos) { return JSON.parse(decideFn(canonical(pos), false)); },
        yaml: function (pos, id, title) { return yamlFn(canonical(pos), id, title); },
        settle: function () { py.runPython("import gc\ngc.collect()\ngc.freeze()\ngc.enable()"); }
      };
    });
  }

  /* Pyodide started from the bundle's files (from the memory snapshot ``snap``, if given) */
  function loadPython(base, files, snap) {
    return Promise.resolve().then(function () {
      var realFetch = window.fetch, realStreaming = WebAssembly.instantiateStreaming;
      /* Pyodide fetches its wasm binary and standard library: answer from the bundle,
         so nothing is fetched from anywhere (file:// forbids fetch anyway) */
      window.fetch = function (url, options) {
        var name = String(url && url.url ? url.url : url).split(/[?#]/)[0].split("/").pop();
        if (Object.prototype.hasOwnProperty.call(files, name) && name !== "module" && name !== "snapshot") {
          return files[name].then(function (bytes) {
            var wasm = /\.wasm$/.test(name);
            var response = new Response(bytes, {headers: {"Content-Type": wasm ? "application/wasm" : "application/zip"}});
            if (wasm) { response.harmonyWasm = true; }
            return response;
          });
        }
        return realFetch.call(window, url, options);
      };
      /* ... and instantiates the binary already compiled */
      WebAssembly.instantiateStreaming = function (source, imports) {
        return Promise.resolve(source).then(function (response) {
          if (!(response && response.harmonyWasm)) { return realStreaming.call(WebAssembly, response, imports); }
          return files.module.then(function (module) {
            return WebAssembly.instantiate(module, imports).then(function (instance) {
              return {module: module, instance: instance};
            });
          });
        });
      };
      var options = {indexURL: base, createPyodideModule: window.__harmonyCreatePyodideModule,
                     lockFileContents: window.__harmonyPyodideLock, stdout: function () {},
                     stderr: function (line) { if (window.console) { console.warn(line); } }};
      if (snap) { options._loadSnapshot = snap; }
      return window.loadPyodide(options)
        .finally(function () { window.fetch = realFetch; WebAssembly.instantiateStreaming = realStreaming; });
    });
  }

  /* ------------------------------------------------------------ the position */
  var DEFAULT = {
    map: {columns: 8, rows: 7, hexes: {C3: "woods", D3: "woods", E4: "town"}},
    units: [
      {id: "gun-1", name: "A/T gun", side: "Soviet", kind: "gun", "class": "A", attack: 10, range: 8,
       defence: 3, movement: 1, at: "D7", "opportunity-fire": true},
      {id: "platoon-1", name: "Rifle platoon", side: "German", kind: "infantry", "class": "I", attack: 6,
       range: 3, defence: 6, movement: 3, at: "C3", "opportunity-fire": true}
    ],
    start: {side: "German", phase: "movement"},
    rulesets: [],
    steps: [{move: {unit: "platoon-1", path: ["D3"]}}]
  };

  function copy(x) { return JSON.parse(JSON.stringify(x)); }
  function defaultPosition() {
    var p = copy(DEFAULT);
    p.rulesets = defaultRulesets();
    return p;
  }
  /* The position in the page's address: null when it holds none, else {position} or
     {error}. A position the page did not write is checked before anything is decided: the
     raw link first (precheck, here, before it is drawn), then, with what the page fills in
     for keys left out, the whole position by the rules of a scenario file (checkLink, the
     engine's check, once the engine has started). */
  function readLink() {
    var m = /(?:^#|&)position=([^&]*)/.exec(window.location.hash);
    if (!m) { return null; }
    var found = precheck(m[1]);
    if (found.error) { return found; }
    var p = found.position;
    if (p.map === undefined) { p.map = {columns: 8, rows: 7}; }
    if (p.units === undefined) { p.units = []; }
    if (p.steps === undefined) { p.steps = []; }
    if (p.start === undefined) {
      var first = p.units[0];
      p.start = {side: (first && typeof first.side === "string") ? first.side : "German", phase: "movement"};
    }
    if (p.rulesets === undefined) { p.rulesets = defaultRulesets(); }
    return {position: p};
  }
  function checkLink(found) {
    if (!found || found.error) { return found; }
    var checked;
    try { checked = engine.check(found.position); } catch (e) { checked = {error: {message: String(e && e.message || e)}}; }
    if (checked.error) { return {error: checked.error.message, path: checked.error.path}; }
    return found;
  }
  /* the link read: say what is wrong with it (in the status line, a live region) and show the
     default position instead; the page's attributes tell the tests and the bench */
  function openLink(found) {
    var n = String((parseInt(root.getAttribute("data-links") || "0", 10)) + 1);
    if (found && found.error) {
      message = {text: "This link's position cannot be opened: " + found.error + (found.path ? " (at " + found.path + ")" : "") +
                       ". The default position is shown instead.", error: true};
      root.setAttribute("data-link-error", message.text);
    } else {
      root.removeAttribute("data-link-error");
      if (found) { message = null; }
    }
    root.setAttribute("data-links", n);
    return found && found.position ? found.position : defaultPosition();
  }

  var pos = null;        // the position shown
  var ui = {mode: "place", selected: null, terrain: "woods", hexside: "slope-side", fire: [], result: "none",
            moveMode: "normal", cursor: null, sidePending: false};

  function unitById(id) {
    for (var i = 0; i < pos.units.length; i += 1) { if (pos.units[i].id === id) { return pos.units[i]; } }
    return null;
  }
  function unitsAt(lab) { return pos.units.filter(function (u) { return u.at === lab; }); }
  function lastStep() { return pos.steps.length ? pos.steps[pos.steps.length - 1] : null; }
  /* where a unit stands before the last step (its start hex moved along earlier moves) */
  function whereBefore(id, upto) {
    var u = unitById(id), at = u ? u.at : null;
    for (var i = 0; i < upto; i += 1) {
      var mv = pos.steps[i].move;
      if (mv && mv.unit === id && mv.path && mv.path.length) { at = mv.path[mv.path.length - 1]; }
    }
    return at;
  }
  function newId(kind) {
    var n = 1;
    while (unitById(kind + "-" + n)) { n += 1; }
    return kind + "-" + n;
  }

  /* ------------------------------------------------------------ drawing (as harmony.games.panzerblitz.svg draws)
     The board is drawn once per map size; an edit then changes only what it touches: the
     hexes whose terrain or place on the path changed, and the small layers on top (hexsides,
     the path and lines of fire, the counters, the letters), each redrawn only when its own
     part of the position changed. */
  var board = null;   // {svg, cols, rows, hexes: {label: {poly, terrain}}, layers, keys}
  function layerKey(value) { return JSON.stringify(value); }
  function hexPoints(c, S) {
    var pts = [];
    for (var i = 0; i < 6; i += 1) {
      var a = Math.PI / 180 * 60 * i;
      pts.push((c[0] + S * Math.cos(a)).toFixed(1) + "," + (c[1] + S * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }
  /* The board is one stop of the Tab key: a list box whose options are the hexes (each
     labelled with its terrain and units), the arrow keys moving a ring from hex to hex
     (aria-activedescendant) and Enter choosing the hex, as a click does. What is drawn on
     top (units, paths, words) is told by the hexes' labels and by the board in words. */
  function newBoard(style, m) {
    var S = style.size;
    var w = S * (1.5 * (m.columns - 1) + 2) + 2, h = S * SQRT3 * (m.rows + (m.columns > 1 ? 0.5 : 0)) + 2;
    var node = svg("svg", {"class": "hm-svg hm-ex-board", viewBox: "-1 -1 " + w.toFixed(1) + " " + h.toFixed(1),
                           role: "listbox", tabindex: 0, "aria-describedby": "hm-ex-board-words",
                           "aria-label": "The board, " + m.columns + " columns by " + m.rows + " rows: " +
                                         "the arrow keys move between hexes, Enter chooses one"});
    node.style.maxWidth = (w * 1.6).toFixed(0) + "px";
    var g = svg("g", {"class": "hm-board", role: "presentation"}), hexes = {};
    boardLabels(m.columns, m.rows).forEach(function (lab) {
      var c = centre(lab, S);
      var poly = svg("polygon", {points: hexPoints(c, S), stroke: "#8c8c7a", "stroke-width": 1, "data-hex": lab,
                                 "class": "hm-ex-hex", id: "hm-ex-hex-" + lab, role: "option", "aria-selected": "false"});
      g.appendChild(poly);
      g.appendChild(svg("text", {x: c[0].toFixed(1), y: (c[1] - S * 0.62).toFixed(1), "font-size": 7,
                                 "text-anchor": "middle", fill: "#555", "aria-hidden": "true"}, lab));
      hexes[lab] = {poly: poly, terrain: null, word: null, onpath: false, c: c};
    });
    node.appendChild(g);
    var defs = svg("defs");
    var marker = svg("marker", {id: "hm-ex-arrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 6,
                                markerHeight: 6, orient: "auto-start-reverse"});
    marker.appendChild(svg("path", {d: "M0,0 L10,5 L0,10 z", fill: "#222"}));
    defs.appendChild(marker);
    node.appendChild(defs);
    var layers = {};
    ["words", "sides", "paths", "units", "letters", "cursor"].forEach(function (k) {
      layers[k] = svg("g", {"class": "hm-ex-layer-" + k, "aria-hidden": "true"});
      node.appendChild(layers[k]);
    });
    var ring = svg("polygon", {"class": "hm-ex-cursor", points: ""});
    layers.cursor.appendChild(ring);
    node.addEventListener("click", function (ev) {
      noteInput(ev);
      var t = ev.target.closest("[data-unit]"), hexNode = ev.target.closest("[data-hex]");
      var lab = hexNode ? hexNode.getAttribute("data-hex") : null;
      if (t && !lab) { var u = unitById(t.getAttribute("data-unit")); lab = u ? u.at : null; }
      if (lab) { ui.cursor = lab; placeCursor(); }
      if (ui.mode === "hexside" && lab) { clickHexside(lab, boardPoint(ev)); return; }
      clickHex(lab, t ? t.getAttribute("data-unit") : null);
    });
    node.addEventListener("keydown", boardKey);
    node.addEventListener("focus", placeCursor);
    return {svg: node, cols: m.columns, rows: m.rows, hexes: hexes, layers: layers, keys: {}, ring: ring};
  }
  /* the hex the ring is on (a unit's hex, or the first hex, until the reader moves it) */
  function placeCursor() {
    if (!board) { return; }
    if (!ui.cursor || !board.hexes[ui.cursor]) {
      var first = pos.units.filter(function (u) { return board.hexes[u.at]; })[0];
      ui.cursor = first ? first.at : "A1";
    }
    var hx = board.hexes[ui.cursor], S = window.__harmonyExplorerBundle.style.size;
    if (board.cursorAt !== ui.cursor) {
      if (board.hexes[board.cursorAt]) { board.hexes[board.cursorAt].poly.setAttribute("aria-selected", "false"); }
      hx.poly.setAttribute("aria-selected", "true");
      board.cursorAt = ui.cursor;
    }
    board.ring.setAttribute("points", hexPoints(hx.c, S - 1.5));
    board.ring.setAttribute("data-cursor", ui.cursor);
    board.svg.setAttribute("aria-activedescendant", "hm-ex-hex-" + ui.cursor);
  }
  var ARROWS = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  /* a key on the board: an arrow moves the ring (or, after Enter in the hexside tool, names
     the side toward it), Enter or Space chooses the hex, Escape lets go of the unit picked */
  function boardKey(ev) {
    if (booting || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    placeCursor();
    var d = ARROWS[ev.key];
    if (d) {
      ev.preventDefault();
      var h = parseLabel(ui.cursor), col = h.q, row = h.r + (h.q - (h.q & 1)) / 2;
      var other = colLetters(Math.max(0, Math.min(board.cols - 1, col + d[0]))) +
                  (Math.max(0, Math.min(board.rows - 1, row + d[1])) + 1);
      if (ui.sidePending) {
        ui.sidePending = false;
        noteInput(ev);
        if (other === ui.cursor) { status("That side of " + ui.cursor + " is the edge of the board."); render(); return; }
        paintHexside(ui.cursor, other);
        return;
      }
      ui.cursor = other;
      placeCursor();
      return;
    }
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      noteInput(ev);
      if (ui.mode === "hexside") {
        ui.sidePending = true;
        status("Hexside of " + ui.cursor + ": press the arrow key toward the side to paint.");
        render();
        return;
      }
      clickHex(ui.cursor, null);
      return;
    }
    if (ev.key === "Escape" && (ui.selected || ui.fire.length || ui.sidePending)) {
      ev.preventDefault();
      ui.selected = null; ui.fire = []; ui.sidePending = false; message = null;
      changed(false);
    }
  }
  /* where a click falls on the board, in the board's own units */
  function boardPoint(ev) {
    var ctm = board.svg.getScreenCTM();
    if (!ctm) { return null; }
    var pt = board.svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    var p = pt.matrixTransform(ctm.inverse());
    return [p.x, p.y];
  }
  /* the hex across the side of `lab` nearest to point `at` (null off the board) */
  function acrossSide(lab, at) {
    var S = window.__harmonyExplorerBundle.style.size, h = parseLabel(lab), c = centre(lab, S);
    if (!h || !at) { return null; }
    var best = null, bestDot = -Infinity;
    [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]].forEach(function (d) {
      var other = hexLabel({q: h.q + d[0], r: h.r + d[1]});
      if (h.q + d[0] < 0 || !onBoard(other, pos.map)) { return; }
      var o = centre(other, S), dot = (o[0] - c[0]) * (at[0] - c[0]) + (o[1] - c[1]) * (at[1] - c[1]);
      if (dot > bestDot) { bestDot = dot; best = other; }
    });
    return best;
  }
  function drawBoard() {
    var style = window.__harmonyExplorerBundle.style;
    var S = style.size, m = pos.map;
    if (!board || board.cols !== m.columns || board.rows !== m.rows) { board = newBoard(style, m); }
    var base = m.terrain || "clear", hexes = m.hexes || {};
    var last = lastStep(), moved = -1;
    pos.steps.forEach(function (st, i) { if (st.move) { moved = i; } });
    var path = moved >= 0 ? [whereBefore(pos.steps[moved].move.unit, moved)].concat(pos.steps[moved].move.path || []) : [];
    var onpath = {};
    path.forEach(function (lab, i) { if (i > 0) { onpath[lab] = true; } });
    Object.keys(board.hexes).forEach(function (lab) {
      var hx = board.hexes[lab], terrain = hexes[lab] || base;
      if (hx.terrain !== terrain) {
        hx.terrain = terrain;
        hx.poly.setAttribute("fill", style.terrain[terrain] || style.other);
        hx.poly.setAttribute("data-terrain", terrain);
      }
      if (hx.onpath !== !!onpath[lab]) {
        hx.onpath = !!onpath[lab];
        hx.poly.classList.toggle("hm-ex-onpath", hx.onpath);
      }
    });
    function layer(name, key, draw) {
      var k = layerKey(key);
      if (board.keys[name] === k) { return; }
      board.keys[name] = k;
      var g = board.layers[name];
      while (g.firstChild) { g.removeChild(g.firstChild); }
      draw(g);
    }
    layer("words", [base, hexes], function (g) {
      Object.keys(board.hexes).forEach(function (lab) {
        var terrain = hexes[lab] || base, c = board.hexes[lab].c;
        if (terrain !== base) {
          g.appendChild(svg("text", {x: c[0].toFixed(1), y: (c[1] + S * 0.78).toFixed(1), "font-size": 6,
                                     "text-anchor": "middle", fill: "#333"}, terrain));
        }
      });
    });
    layer("sides", m.hexsides || [], function (g) {
      (m.hexsides || []).forEach(function (side) {
        if (!side || !side.between || !onBoard(side.between[0], m) || !onBoard(side.between[1], m)) { return; }
        var a = centre(side.between[0], S), b = centre(side.between[1], S);
        var mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2, dx = b[0] - a[0], dy = b[1] - a[1];
        var len = Math.sqrt(dx * dx + dy * dy) || 1, half = S / 2;
        g.appendChild(svg("line", {"class": "hm-ex-hexside", "data-hexside": side.between.join("|"), "data-type": side.type,
                                   x1: (mx - dy / len * half).toFixed(1), y1: (my + dx / len * half).toFixed(1),
                                   x2: (mx + dy / len * half).toFixed(1), y2: (my - dx / len * half).toFixed(1),
                                   stroke: style.hexside[side.type] || "#444", "stroke-width": 4, "stroke-linecap": "round"}));
      });
    });
    var fireLines = [];
    if (last && last.fire) {
      var target = unitById(last.fire.target);
      (last.fire.units || []).forEach(function (id) {
        var f = unitById(id);
        if (f && target && onBoard(f.at, m) && onBoard(target.at, m)) {
          fireLines.push([whereBefore(id, pos.steps.length - 1), whereBefore(target.id, pos.steps.length - 1)]);
        }
      });
    }
    layer("paths", [path, fireLines], function (g) {
      if (path.length > 1) {
        g.appendChild(svg("polyline", {"class": "hm-path", fill: "none", stroke: "#222", "stroke-width": 2.5,
                                       "stroke-dasharray": "6 3", "marker-end": "url(#hm-ex-arrow)",
                                       points: path.map(function (p) { var c = centre(p, S); return c[0].toFixed(1) + "," + c[1].toFixed(1); }).join(" ")}));
      }
      fireLines.forEach(function (ends) {
        var a = centre(ends[0], S), b = centre(ends[1], S);
        g.appendChild(svg("line", {"class": "hm-los", x1: a[0].toFixed(1), y1: a[1].toFixed(1), x2: b[0].toFixed(1),
                                   y2: b[1].toFixed(1), stroke: "#c0392b", "stroke-width": 1.5, "stroke-dasharray": "2 3"}));
      });
    });
    layer("units", [pos.units, ui.selected, ui.fire, m.columns, m.rows], function (g) {
      var sides = [];
      pos.units.forEach(function (u) { if (sides.indexOf(u.side) < 0) { sides.push(u.side); } });
      var stacked = {};
      pos.units.forEach(function (u) {
        if (!onBoard(u.at, m)) { return; }
        var k = stacked[u.at] = (stacked[u.at] || 0) + 1;
        var c = centre(u.at, S), s = S * 0.9, off = (k - 1) * 4;
        var colour = style.sides[sides.indexOf(u.side) % style.sides.length];
        var down = u.face === "down";
        var grp = svg("g", {"class": "hm-unit" + (ui.selected === u.id ? " hm-ex-selected" : "") +
                                     (ui.fire.indexOf(u.id) >= 0 ? " hm-ex-firer" : ""),
                            "data-unit": u.id, transform: "translate(" + off + "," + (-off) + ")"});
        grp.appendChild(svg("title", {}, (u.name || u.id) + " (" + u.side + ", " + u.kind + ")"));
        grp.appendChild(svg("rect", {x: (c[0] - s / 2).toFixed(1), y: (c[1] - s / 2).toFixed(1), width: s.toFixed(1),
                                     height: s.toFixed(1), rx: 2, fill: down ? "#ffffff" : colour, stroke: colour, "stroke-width": 2}));
        var ink = down ? colour : "#ffffff";
        grp.appendChild(svg("text", {x: c[0].toFixed(1), y: (c[1] - 2).toFixed(1), "font-size": 8, "font-weight": "bold",
                                     "text-anchor": "middle", fill: ink}, style.kinds[u.kind] || "UNIT"));
        grp.appendChild(svg("text", {x: c[0].toFixed(1), y: (c[1] + 8).toFixed(1), "font-size": 6.5, "text-anchor": "middle",
                                     fill: ink}, u.attack + "-" + u.range + " " + u.defence + "-" + u.movement));
        if (u.dispersal && u.dispersal !== "none") {
          grp.appendChild(svg("text", {x: (c[0] + s / 2 - 1).toFixed(1), y: (c[1] - s / 2 + 7).toFixed(1), "font-size": 6,
                                       "text-anchor": "end", fill: ink}, u.dispersal));
        }
        g.appendChild(grp);
      });
    });
    /* hex letters on top, haloed, left of where a counter stands (as harmony.games.panzerblitz.svg puts them) */
    layer("letters", m.labels || {}, function (g) {
      Object.keys(m.labels || {}).sort().forEach(function (lab) {
        if (!onBoard(lab, m)) { return; }
        var c = centre(lab, S), letter = String(m.labels[lab]);
        g.appendChild(svg("text", {"class": "hm-hex-label", x: (c[0] - S * 0.5 - 2).toFixed(1), y: (c[1] + 5).toFixed(1),
                                   "font-size": letter.length === 1 ? 14 : 11, "font-weight": "bold", fill: "#000",
                                   stroke: "#fff", "stroke-width": 3, "paint-order": "stroke", "text-anchor": "end"}, letter));
      });
    });
    /* each hex's label, what a screen reader says as the ring reaches it: its terrain, the
       hexsides drawn on it, the units in it, its place on the move */
    var labelKey = layerKey([base, hexes, m.hexsides || [], m.labels || {}, path, pos.units, ui.selected, ui.fire]);
    if (board.keys.labels !== labelKey) {
      board.keys.labels = labelKey;
      var sidesOf = {};
      (m.hexsides || []).forEach(function (side) {
        if (!side || !side.between) { return; }
        [0, 1].forEach(function (i) {
          (sidesOf[side.between[i]] = sidesOf[side.between[i]] || []).push(side.type + " toward " + side.between[1 - i]);
        });
      });
      Object.keys(board.hexes).forEach(function (lab) {
        var words = [lab + ", " + (hexes[lab] || base)];
        if (m.labels && m.labels[lab] !== undefined) { words.push("marked " + m.labels[lab]); }
        (sidesOf[lab] || []).forEach(function (w) { words.push(w); });
        unitsAt(lab).forEach(function (u) { words.push(unitWords(u)); });
        var k = path.indexOf(lab);
        if (k === 0 && path.length > 1) { words.push("where the move starts"); }
        else if (k > 0) { words.push("step " + k + " of the move"); }
        board.hexes[lab].poly.setAttribute("aria-label", words.join("; "));
      });
    }
    placeCursor();
    return board.svg;
  }
  function unitWords(u) {
    return (u.name || u.id) + " (" + u.side + " " + u.kind + ", " + u.attack + "-" + u.range + " " + u.defence + "-" +
      u.movement + (u.dispersal && u.dispersal !== "none" ? ", " + u.dispersal : "") + (u.face === "down" ? ", face down" : "") +
      ")" + (ui.selected === u.id ? ", picked" : "") + (ui.fire.indexOf(u.id) >= 0 ? ", firing" : "");
  }
  /* the board in words, for a screen reader (the board's description), kept in step with
     the picture: its size and terrain, its hexsides, its units and the move drawn */
  function boardWords() {
    var m = pos.map, base = m.terrain || "clear", hexes = m.hexes || {}, out = [];
    var byTerrain = {};
    Object.keys(hexes).sort().forEach(function (lab) {
      if (onBoard(lab, m) && hexes[lab] !== base) { (byTerrain[hexes[lab]] = byTerrain[hexes[lab]] || []).push(lab); }
    });
    var terrain = Object.keys(byTerrain).sort().map(function (t) { return t + " at " + byTerrain[t].join(", "); });
    out.push(el("p", {text: "The board: " + m.columns + " columns, A to " + colLetters(m.columns - 1) + ", by " + m.rows +
                      " rows; every hex " + base + (terrain.length ? " but " + terrain.join("; ") : "") + "."}));
    var sides = (m.hexsides || []).filter(function (x) { return x && x.between; });
    if (sides.length) {
      out.push(el("p", {text: "Hexsides: " + sides.map(function (x) {
        return x.type + " between " + x.between.join(" and "); }).join("; ") + "."}));
    }
    var placed = pos.units.filter(function (u) { return onBoard(u.at, m); });
    out.push(el("p", {text: placed.length ? "Units:" : "No unit on the board."}));
    if (placed.length) {
      out.push(el("ul", {}, placed.map(function (u) { return el("li", {text: unitWords(u) + " at " + u.at}); })));
    }
    var moved = null;
    pos.steps.forEach(function (st, i) { if (st.move) { moved = i; } });
    if (moved !== null) {
      var mv = pos.steps[moved].move;
      out.push(el("p", {text: "The move drawn: " + nameOf(mv.unit) + " from " + whereBefore(mv.unit, moved) + " through " +
                        (mv.path || []).join(", ") + "."}));
    }
    return out;
  }

  /* ------------------------------------------------------------ editing */
  function clickHex(lab, unitId) {
    if (!lab) { return; }
    message = null;
    var here = unitsAt(lab);
    if (ui.mode === "terrain") {
      pos.map.hexes = pos.map.hexes || {};
      if (ui.terrain === (pos.map.terrain || "clear")) { delete pos.map.hexes[lab]; }
      else { pos.map.hexes[lab] = ui.terrain; }
    } else if (ui.mode === "place") {
      if (unitId || here.length) {
        ui.selected = unitId || here[here.length - 1].id;
      } else {
        var u = readUnitForm();
        u.id = newId(u.kind);
        u.at = lab;
        pos.units.push(u);
        ui.selected = u.id;
      }
    } else if (ui.mode === "move") {
      if (!ui.selected && here.length) { ui.selected = here[0].id; changed(false); return; }
      if (!ui.selected) { return; }
      var last = lastStep(), n = pos.steps.length;
      if (!(last && last.move && last.move.unit === ui.selected)) {
        if (here.some(function (x) { return x.id !== ui.selected; }) && whereBefore(ui.selected, n) !== lab &&
            !adjacent(whereBefore(ui.selected, n), lab)) {
          ui.selected = here[0].id; changed(false); return;
        }
        last = {move: {unit: ui.selected, path: []}};
        if (ui.moveMode !== "normal") { last.move.mode = ui.moveMode; }
        pos.steps.push(last);
        n = pos.steps.length;
      }
      var path = last.move.path, from = whereBefore(ui.selected, n - 1);
      var i = path.indexOf(lab);
      if (last.move.mode === "revealed") {
        /* revealed movement stays in the unit's hex: a click there adds a move within it */
        if (lab !== from) { status("Revealed movement stays in hex " + from + ": click that hex."); return; }
        path.push(lab);
      }
      else if (lab === from) { last.move.path = []; }
      else if (i >= 0) { last.move.path = path.slice(0, i + 1); }
      else if (adjacent(path.length ? path[path.length - 1] : from, lab)) { path.push(lab); }
      else { status("A move goes hex by hex: click a hex next to " + (path.length ? path[path.length - 1] : from) + "."); return; }
      if (!last.move.path.length) { pos.steps.pop(); }
      var mover = unitById(ui.selected);
      if (mover && pos.start && pos.steps.length === 1) { pos.start.side = mover.side; pos.start.phase = "movement"; }
    } else if (ui.mode === "fire") {
      var id = unitId || (here.length ? here[here.length - 1].id : null);
      if (!id) { return; }
      var firer = ui.fire.length ? unitById(ui.fire[0]) : null, u2 = unitById(id);
      if (!firer || u2.side === firer.side) {
        var k = ui.fire.indexOf(id);
        if (k >= 0) { ui.fire.splice(k, 1); } else { ui.fire.push(id); }
      } else {
        var step = {fire: {units: ui.fire.slice(), target: id, result: ui.result}};
        var prev = lastStep();
        if (prev && prev.fire) { pos.steps[pos.steps.length - 1] = step; } else { pos.steps.push(step); }
        if (pos.start && pos.steps.length === 1) { pos.start.side = firer.side; pos.start.phase = "fire"; }
      }
    }
    changed(true);
  }

  /* paint (or clear) the hexside of `lab` nearest to where the reader clicked: the same type
     again clears it; "none" clears whatever is there */
  function clickHexside(lab, at) {
    message = null;
    var other = acrossSide(lab, at);
    if (!other) { status("That side of " + lab + " is the edge of the board: click nearer a side between two hexes."); return; }
    paintHexside(lab, other);
  }
  function paintHexside(lab, other) {
    message = null;
    var between = [lab, other].sort(), sides = (pos.map.hexsides || []).slice();
    var k = -1;
    sides.forEach(function (side, i) {
      var b = (side && side.between) || [];
      if ((b[0] === between[0] && b[1] === between[1]) || (b[0] === between[1] && b[1] === between[0])) { k = i; }
    });
    var same = k >= 0 && sides[k].type === ui.hexside;
    if (k >= 0) { sides.splice(k, 1); }
    if (!same && ui.hexside !== "none") { sides.push({between: between, type: ui.hexside}); }
    if (sides.length) { pos.map.hexsides = sides; } else { delete pos.map.hexsides; }
    changed(true);
  }

  var FIELDS = [
    ["name", "text"], ["side", "side"], ["kind", "kind"], ["class", "class"], ["attack", "number"],
    ["range", "number"], ["defence", "number"], ["movement", "number"], ["dispersal", "dispersal"],
    ["face", "face"], ["opportunity-fire", "bool"]
  ];
  function choices(kind) {
    var cat = catalogue;
    if (kind === "side") {
      var sides = (cat.sides || []).slice();
      pos.units.forEach(function (u) { if (sides.indexOf(u.side) < 0) { sides.push(u.side); } });
      return sides.length ? sides : ["German", "Soviet"];
    }
    if (kind === "kind") { return cat.kinds; }
    if (kind === "class") { return cat.classes; }
    if (kind === "dispersal") { return ["none", "D", "DD"]; }
    if (kind === "face") { return ["up", "down"]; }
    return [];
  }
  var form = {};
  function unitForm() {
    var box = el("fieldset", {"class": "hm-ex-unit"}, [el("legend", {text: "Unit"})]);
    var sel = ui.selected ? unitById(ui.selected) : null;
    var src = sel || form.last || {side: choices("side")[0], kind: "infantry", "class": "I", attack: 6, range: 3,
                                    defence: 6, movement: 3};
    form = {last: form.last};
    FIELDS.forEach(function (f) {
      var name = f[0], type = f[1], input;
      if (type === "number") { input = el("input", {type: "number", min: 0, max: 99, value: src[name] === undefined ? 0 : src[name]}); }
      else if (type === "text") { input = el("input", {type: "text", value: src[name] || "", placeholder: sel ? sel.id : "(optional)"}); }
      else if (type === "bool") { input = el("input", {type: "checkbox"}); input.checked = src[name] !== false; }
      else {
        input = el("select", {}, choices(type).map(function (c) { return el("option", {value: c, text: c}); }));
        input.value = src[name] === undefined ? choices(type)[0] : src[name];
      }
      input.setAttribute("data-field", name);
      input.addEventListener("change", function () {
        form.last = readUnitForm();
        var u = ui.selected ? unitById(ui.selected) : null;
        if (u) { Object.assign(u, form.last); changed(true); }
      });
      form[name] = input;
      box.appendChild(el("label", {"class": "hm-ex-field"}, [el("span", {text: name}), input]));
    });
    var buttons = el("div", {"class": "hm-ex-buttons"});
    if (sel) {
      buttons.appendChild(el("button", {type: "button", "class": "hm-ex-remove", text: "Remove " + (sel.name || sel.id),
        onclick: function () {
          pos.units = pos.units.filter(function (u) { return u.id !== sel.id; });
          pos.steps = pos.steps.filter(function (s) {
            return !(s.move && s.move.unit === sel.id) && !(s.fire && (s.fire.target === sel.id || s.fire.units.indexOf(sel.id) >= 0));
          });
          ui.selected = null; changed(true);
        }}));
      buttons.appendChild(el("button", {type: "button", "data-focus": "deselect", text: "Deselect",
                                        onclick: function () { ui.selected = null; changed(false); }}));
    } else {
      buttons.appendChild(el("span", {"class": "hm-ex-hint", text: "Click an empty hex (or press Enter on it) to place this unit; click a unit to edit it."}));
    }
    box.appendChild(buttons);
    return box;
  }
  function readUnitForm() {
    var u = {};
    FIELDS.forEach(function (f) {
      var name = f[0], input = form[name];
      if (!input) { return; }
      if (f[1] === "number") { u[name] = parseInt(input.value, 10) || 0; }
      else if (f[1] === "bool") { u[name] = input.checked; }   /* some rulebooks want it said */
      else if (name === "name") { if (input.value.trim()) { u.name = input.value.trim(); } }
      else if ((name === "dispersal" && input.value === "none") || (name === "face" && input.value === "up")) { /* default */ }
      else { u[name] = input.value; }
    });
    return u;
  }

  function rulesetName(r) { return typeof r === "string" ? r : (r.name || r.key || r.id); }
  function rulesetChooser() {
    var cat = catalogue, box = el("fieldset", {"class": "hm-ex-rulesets"}, [el("legend", {text: "Rulesets"})]);
    var plain = [], withOptions = [];
    (cat.rulesets || []).forEach(function (r) {
      var key = rulesetName(r);
      plain.push({key: key, title: r.title || key});
      (r.options || []).forEach(function (o) { withOptions.push({key: key + "+" + o, title: (r.title || key) + " with " + o}); });
    });
    var offered = plain.concat(withOptions);
    pos.rulesets.forEach(function (k) {
      if (!offered.some(function (o) { return o.key === k; })) { offered.push({key: k, title: k}); withOptions.push({key: k, title: k}); }
    });
    function box_(o) {
      var cb = el("input", {type: "checkbox", value: o.key, "data-ruleset": o.key});
      cb.checked = pos.rulesets.indexOf(o.key) >= 0;
      cb.addEventListener("change", function () {
        pos.rulesets = offered.map(function (x) { return x.key; }).filter(function (k) {
          return k === o.key ? cb.checked : pos.rulesets.indexOf(k) >= 0;
        });
        changed(true);
      });
      return el("label", {"class": "hm-ex-check", title: o.title}, [cb, " " + o.key]);
    }
    plain.forEach(function (o) { box.appendChild(box_(o)); });
    if (withOptions.length) {
      var more = el("details", {"class": "hm-ex-options"}, [el("summary", {"data-focus": "options", text: "with optional rules"})]);
      if (withOptions.some(function (o) { return pos.rulesets.indexOf(o.key) >= 0; })) { more.open = true; }
      withOptions.forEach(function (o) { more.appendChild(box_(o)); });
      box.appendChild(more);
    }
    return box;
  }

  function toolbar() {
    var cat = catalogue, bar = el("fieldset", {"class": "hm-ex-tools"}, [el("legend", {text: "Click on the board to"})]);
    var terrains = [];
    cat.terrain.forEach(function (t) { terrains.push(t.name); });
    var tsel = el("select", {"class": "hm-ex-terrain", "aria-label": "terrain to paint"},
                  terrains.map(function (t) { return el("option", {value: t, text: t}); }));
    tsel.value = ui.terrain;
    tsel.addEventListener("change", function () { ui.terrain = tsel.value; ui.mode = "terrain"; changed(false); });
    var hsel = el("select", {"class": "hm-ex-hexside", "aria-label": "hexside to paint (click near the side)"},
                  (cat.hexsides || []).map(function (t) { return t.name; }).concat(["none"]).map(function (t) {
                    return el("option", {value: t, text: t === "none" ? "no hexside" : t});
                  }));
    hsel.value = ui.hexside;
    hsel.addEventListener("change", function () { ui.hexside = hsel.value; ui.mode = "hexside"; changed(false); });
    var rsel = el("select", {"class": "hm-ex-result", "aria-label": "the result of fire (given, never rolled)"},
                  (cat.results || ["none"]).map(function (r) { return el("option", {value: r, text: "result " + r}); }));
    rsel.value = ui.result;
    rsel.addEventListener("change", function () {
      ui.result = rsel.value;
      var prev = lastStep();
      if (prev && prev.fire) { prev.fire.result = ui.result; changed(true); }
    });
    /* the movement modes the chosen rulesets offer (normal first); the mode of the next move,
       and of the move being drawn */
    var modes = offeredModes();
    if (modes.indexOf(ui.moveMode) < 0) { ui.moveMode = "normal"; }
    var msel = el("select", {"class": "hm-ex-move-mode", "aria-label": "how the unit moves (the modes the chosen rulesets offer)"},
                  modes.map(function (m) { return el("option", {value: m, text: m === "normal" ? "moving normally" : m.replace("-", " ")}); }));
    msel.value = ui.moveMode;
    msel.addEventListener("change", function () {
      ui.moveMode = msel.value; ui.mode = "move";
      var prev = lastStep();
      if (prev && prev.move) {
        if (ui.moveMode === "normal") { delete prev.move.mode; } else { prev.move.mode = ui.moveMode; }
        changed(true);
      } else { changed(false); }
    });
    /* each way of clicking, with what it paints or the result it gives beside it */
    [["place", "place / pick units"], ["terrain", "paint terrain", tsel], ["hexside", "paint hexsides", hsel],
     ["move", "move the unit picked", msel], ["fire", "fire (firers, then target)", rsel]].forEach(function (m) {
      var r = el("input", {type: "radio", name: "hm-ex-mode", value: m[0], "data-mode": m[0]});
      r.checked = ui.mode === m[0];
      r.addEventListener("change", function () { ui.mode = m[0]; ui.fire = []; changed(false); });
      bar.appendChild(el("span", {"class": "hm-ex-tool"}, [el("label", {"class": "hm-ex-check"}, [r, " " + m[1]]), m[2]]));
    });
    var size = el("span", {"class": "hm-ex-size"});
    ["columns", "rows"].forEach(function (k) {
      var inp = el("input", {type: "number", min: 1, max: 30, value: pos.map[k], "data-size": k, "aria-label": k});
      inp.addEventListener("change", function () {
        var v = Math.max(1, Math.min(30, parseInt(inp.value, 10) || 1));
        pos.map[k] = v; changed(true);
      });
      size.appendChild(el("label", {}, [k + " ", inp]));
    });
    bar.appendChild(size);
    return bar;
  }

  /* every movement mode one of the position's rulesets offers, in the catalogue's order */
  function offeredModes() {
    var cat = catalogue, seen = {"normal": true};
    (cat.rulesets || []).forEach(function (r) {
      var by = r.modes || {};
      pos.rulesets.forEach(function (k) { (by[k] || []).forEach(function (m) { seen[m] = true; }); });
    });
    return (cat.modes || ["normal"]).filter(function (m) { return seen[m]; });
  }

  function stepsView() {
    var list = el("ol", {"class": "hm-ex-steps"});
    pos.steps.forEach(function (s) {
      var text;
      if (s.move) {
        text = (nameOf(s.move.unit)) + " moves " + (s.move.path || []).join(", ") +
          (s.move.mode && s.move.mode !== "normal" ? " (" + s.move.mode.replace("-", " ") + ")" : "");
      }
      else if (s.fire) { text = (s.fire.units || []).map(nameOf).join(", ") + " fire at " + nameOf(s.fire.target); }
      else if (s.end) { text = "end of " + s.end; }
      else if (s.unload) { text = nameOf(s.unload) + " unloads"; }
      else { text = Object.keys(s).filter(function (k) { return k !== "expect"; }).join(", "); }
      list.appendChild(el("li", {text: text}));
    });
    var box = el("div", {"class": "hm-ex-stepbox"}, [el("strong", {text: "Steps "}),
      el("span", {"class": "hm-ex-start", text: "(" + ((pos.start && pos.start.side) || "?") + " " +
                  ((pos.start && pos.start.phase) || "") + " phase)"}), list]);
    if (pos.steps.length) {
      box.appendChild(el("button", {type: "button", "class": "hm-ex-undo", text: "Remove the last step",
                                    onclick: function () { pos.steps.pop(); changed(true); }}));
    }
    if (ui.mode === "fire" && ui.fire.length) {
      box.appendChild(el("p", {"class": "hm-ex-hint", text: "Firing: " + ui.fire.map(nameOf).join(", ") + ". Click an enemy unit as the target."}));
    }
    return box;
  }
  function nameOf(id) { var u = unitById(id); return u ? (u.name || u.id) : id; }

  /* ------------------------------------------------------------ rulings
     The table is kept between decisions: a row is redrawn only when its question or one of
     its rulings changed (a move one hex longer adds three rows and changes a few), and the
     rows are put in order by moving only those out of place. */
  var table = {box: null, body: null, head: null, rows: {}, note: null};
  function rulingsBox() {
    if (!table.box) {
      table.box = el("section", {"class": "hm-ex-rulings", "aria-live": "polite"}, [el("h2", {text: "Rulings"})]);
    }
    return table.box;
  }
  function showRulings(result) {
    var box = rulingsBox(), rulesets = result.rulesets || [];
    box.removeAttribute("aria-busy");
    var note = null;
    if (result.error) {
      note = el("p", {"class": "hm-ex-error", text: "This position cannot be decided: " + result.error.message +
                       (result.error.path ? " (at " + result.error.path + ")" : "")});
    } else if (!result.questions || !result.questions.length) {
      note = el("p", {text: rulesets.length ? "No question to ask yet: move a unit or let units fire." :
                                "Pick at least one ruleset."});
    }
    if (note) {
      box.replaceChildren(box.firstChild, note);
      table.body = null; table.rows = {};
      return;
    }
    var headKey = layerKey(rulesets);
    if (!table.body || table.headKey !== headKey) {
      table.headKey = headKey;
      table.rows = {};
      table.body = el("tbody");
      var head = el("tr", {}, [el("th", {scope: "col", text: "Question"})].concat(rulesets.map(function (r) {
        return el("th", {scope: "col", "data-ruleset": r, text: r});
      })));
      /* the live region announces the summary; the table itself (aria-live off) is read when
         the reader goes to it */
      table.summary = el("p", {"class": "hm-ex-summary"});
      box.replaceChildren(box.firstChild, table.summary, el("div", {"class": "hm-ex-tablebox", "aria-live": "off"},
                                              [el("table", {"class": "hm-ex-table"}, [el("thead", {}, [head]), table.body])]));
    }
    var differ = result.questions.filter(function (q) { return isSplit(q, rulesets); }).length;
    var n = result.questions.length;
    table.summary.textContent = "Decided: " + n + " question" + (n === 1 ? "" : "s") + " under " + rulesets.join(", ") +
      (rulesets.length < 2 ? "." : differ ? "; the rulesets differ on " + differ + "." : "; the rulesets agree on every one.");
    var rows = {}, wanted = result.questions.map(function (q) {
      var key = layerKey([q.id, q.text, rulesets.map(function (r) { return q.rulings[r] || null; })]);
      var row = table.rows[key] || questionRow(q, rulesets);
      rows[key] = row;
      return row;
    });
    table.rows = rows;
    var body = table.body, at = body.firstChild;
    wanted.forEach(function (row) {
      if (row === at) { at = at.nextSibling; } else { body.insertBefore(row, at); }
    });
    while (at) { var next = at.nextSibling; body.removeChild(at); at = next; }
  }
  /* whether the rulesets answer a question differently (a refusal counts as an answer) */
  function isSplit(q, rulesets) {
    var words = rulesets.map(function (r) { var c = q.rulings[r] || {}; return c.refused !== undefined ? "refused" : c.words; });
    return words.some(function (w) { return w !== words[0]; });
  }
  function questionRow(q, rulesets) {
    var row = el("tr", {"class": isSplit(q, rulesets) ? "hm-split" : null, "data-question": q.id},
                 [el("th", {scope: "row", text: q.text})]);
    rulesets.forEach(function (r) {
      var c = q.rulings[r] || {}, td = el("td", {"class": "hm-ex-cell", "data-ruleset": r});
      if (c.refused !== undefined) {
        td.appendChild(el("span", {"class": "hm-word hm-ex-refused", text: "refused"}));
        td.appendChild(el("details", {"class": "hm-ex-detail"}, [el("summary", {text: "why"}), el("p", {text: c.refused})]));
        if (c.clause) { td.appendChild(el("div", {"class": "hm-ex-reasons"}, [clauseLink(c.clause)])); }
      } else {
        td.appendChild(el("span", {"class": "hm-word", text: c.words === undefined ? "" : String(c.words)}));
        var reasons = el("div", {"class": "hm-ex-reasons"});
        (c.reasons || []).forEach(function (cid, i) {
          if (i) { reasons.appendChild(document.createTextNode(" ")); }
          reasons.appendChild(clauseLink(cid));
        });
        td.appendChild(reasons);
      }
      row.appendChild(td);
    });
    return row;
  }
  function clauseLink(cid) {
    var href = links[cid];
    return href ? el("a", {href: href, "class": "hm-ex-clause", "data-clause": cid, text: cid})
                : el("code", {"class": "hm-ex-clause", "data-clause": cid, text: cid});
  }

  /* ------------------------------------------------------------ keep and share */
  function download() {
    var id = "explorer-position", title = "A position set up in the explorer";
    var text = engine.yaml(pos, id, title);
    if (/^\{"error"/.test(text)) {
      var e = JSON.parse(text).error;
      status("This position cannot be saved as a scenario: " + e.message + (e.path ? " (at " + e.path + ")" : ""), true);
      return;
    }
    var url = URL.createObjectURL(new Blob([text], {type: "application/x-yaml"}));
    var a = el("a", {href: url, download: id + ".yaml"});
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  /* ------------------------------------------------------------ the page
     An edit redraws what it changed (the board, the panels whose part of the position or
     of the page's state changed) and asks for a decision at once, which updates the
     rulings table: the edit and its rulings reach the screen in the same frame. The page times itself (bench/explorer.py reads it):
     data-edit-ms, from the reader's input event until the decision starts (the edit drawn);
     data-decide-ms, the engine's decide; data-render-ms, the table's update;
     data-shown-ms, from the reader's input event to the frame after the new rulings are
     in the page (performance.now() in a requestAnimationFrame, then past that frame). */
  var lastResult = null, inputAt = null, view = null;
  function noteInput(ev) {
    var t = ev && ev.timeStamp;
    inputAt = (t && t > 0 && t <= performance.now()) ? t : performance.now();
  }
  document.addEventListener("change", function (ev) { if (root.contains(ev.target)) { noteInput(ev); } }, true);
  document.addEventListener("click", function (ev) {
    if (root.contains(ev.target) && ev.target.closest("button")) { noteInput(ev); }
  }, true);
  function changed(decideAgain) {
    if (!decideAgain) { inputAt = null; }
    var hash = "#position=" + encode(pos);
    if (window.location.hash !== hash) { history.replaceState(null, "", hash); }
    render();
    if (decideAgain) {   /* at once: the edit and its rulings are painted in the same frame */
      if (inputAt === null) { inputAt = performance.now(); }
      decideNow();
    }
  }
  function decideNow() {
    var t0 = performance.now();
    try { lastResult = engine.decide(pos); }
    catch (e) { lastResult = {error: {message: String(e && e.message || e)}}; }
    var t1 = performance.now();
    showRulings(lastResult);
    var t2 = performance.now(), since = inputAt === null ? t0 : inputAt, decided = encode(pos);
    inputAt = null;
    root.setAttribute("data-edit-ms", (t0 - since).toFixed(1));
    root.setAttribute("data-decide-ms", (t1 - t0).toFixed(1));
    root.setAttribute("data-render-ms", (t2 - t1).toFixed(1));
    var n = String((parseInt(root.getAttribute("data-decided") || "0", 10)) + 1);
    root.setAttribute("data-decided", n);
    root.setAttribute("data-decided-for", decided);   // tests and the bench wait for this
    requestAnimationFrame(function () {
      var shown = performance.now();   // this frame paints the new rulings
      if (!root.hasAttribute("data-first-ruling-ms")) {   // from navigation (bench/explorer.py)
        root.setAttribute("data-first-ruling-ms", shown.toFixed(0));
      }
      setTimeout(function () {
        root.setAttribute("data-shown-ms", (shown - since).toFixed(1));
        root.setAttribute("data-shown", n);
      }, 0);
    });
  }
  /* a panel of the controls, rebuilt only when its key (what it shows) changed */
  function panel(name, key, build) {
    var k = layerKey(key);
    if (view.keys[name] !== k || !view.panels[name]) {
      var node = build();
      if (view.panels[name]) { view.panels[name].replaceWith(node); }
      view.panels[name] = node;
      view.keys[name] = k;
    }
    return view.panels[name];
  }
  /* what finds a control again once its panel is drawn anew (the same control of the new
     panel): its tag and the attribute naming it */
  var FOCUS_NAMES = ["data-mode", "data-field", "data-size", "data-ruleset", "data-focus"];
  function focusKey(node) {
    if (!node || node === root || !root.contains(node) || !node.tagName) { return null; }
    var tag = node.tagName.toLowerCase();
    for (var i = 0; i < FOCUS_NAMES.length; i += 1) {
      if (node.hasAttribute(FOCUS_NAMES[i])) {
        return tag + "[" + FOCUS_NAMES[i] + '="' + CSS.escape(node.getAttribute(FOCUS_NAMES[i])) + '"]';
      }
    }
    return node.classList.length ? tag + "." + Array.prototype.map.call(node.classList, CSS.escape).join(".") : null;
  }
  function render() {
    /* the reader's focus stays where it was: on the same control when its panel is drawn
       anew (a mode, a terrain, a ruleset chosen), else on the board */
    var active = document.activeElement, key = focusKey(active);
    renderAll();
    if (key && !(active.isConnected && root.contains(active))) {
      var again = root.querySelector(key) || (board && board.svg);
      if (again && !again.closest("[inert]")) { again.focus(); }
    }
  }
  function renderAll() {
    if (!view) {
      view = {keys: {}, panels: {}};
      view.status = el("p", {"class": "hm-ex-status", role: "status"});
      view.boardBox = el("div", {"class": "hm-ex-boardbox"});
      view.words = el("div", {"class": "hm-ex-board-words hm-visually-hidden", id: "hm-ex-board-words"});
      view.link = el("a", {"class": "hm-ex-link", text: "Link to this position"});
      view.controls = el("div", {"class": "hm-ex-controls"});
      root.replaceChildren(view.status, el("div", {"class": "hm-ex-layout"}, [view.boardBox, view.controls]),
                           view.words, rulingsBox());
    }
    /* while the engine starts, the position is shown, the controls wait and the rulings
       say they are being decided */
    view.controls.inert = booting;
    view.boardBox.inert = booting;
    if (booting && !table.body) {
      var box = rulingsBox();
      box.setAttribute("aria-busy", "true");
      box.replaceChildren(box.firstChild, el("p", {"class": "hm-ex-deciding",
        text: "Deciding: the rules engine is starting (a few seconds the first time)…"}));
    }
    view.status.textContent = message ? message.text : "";
    view.status.classList.toggle("hm-ex-error", !!(message && message.error));
    var drawn = drawBoard();
    if (view.boardBox.firstChild !== drawn) { view.boardBox.replaceChildren(drawn); }
    var wordsKey = layerKey([pos.map, pos.units, pos.steps, ui.selected, ui.fire]);
    if (view.keys.words !== wordsKey) { view.keys.words = wordsKey; view.words.replaceChildren.apply(view.words, boardWords()); }
    var sides = choices("side"), sel = ui.selected ? unitById(ui.selected) : null;
    var names = pos.units.map(function (u) { return [u.id, u.name || null]; });
    var parts = [
      panel("tools", [ui.mode, ui.terrain, ui.hexside, ui.result, ui.moveMode, pos.rulesets, pos.map.columns,
                      pos.map.rows], toolbar),
      panel("unit", [ui.selected, sel, sides], unitForm),
      panel("rulesets", [pos.rulesets], rulesetChooser),
      panel("steps", [pos.steps, pos.start, ui.mode, ui.fire, names], stepsView),
      panel("buttons", [], function () {
        return el("div", {"class": "hm-ex-buttons"}, [
          el("button", {type: "button", "class": "hm-ex-download", text: "Download scenario", onclick: download}),
          view.link,
          el("button", {type: "button", "data-focus": "afresh", text: "Start afresh", onclick: function () {
            pos = defaultPosition(); ui.selected = null; changed(true);
          }})]);
      })];
    view.link.setAttribute("href", "#position=" + encode(pos));
    var at = view.controls.firstChild;
    parts.forEach(function (node) {
      if (node === at) { at = at.nextSibling; } else { view.controls.insertBefore(node, at); }
    });
    while (at) { var next = at.nextSibling; view.controls.removeChild(at); at = next; }
  }
  /* the rulebooks of the family and their revision; the others are a tick away */
  function defaultRulesets() {
    var all = catalogue.rulesets || [];
    var family = all.filter(function (r) { return r.kind === "canonical" || r.kind === "revision"; });
    return (family.length ? family : all).map(rulesetName);
  }

  /* The start: the scripts asked for, the position of the address drawn as soon as
     harmony.js has run (the controls wait, the rulings say the engine is deciding), the
     engine started, the link checked, the first ruling decided. The page notes when (from
     the start of navigation, performance.now(); bench/explorer.py reads them):
     data-drawn-ms, the position drawn; data-pyodide-ms, Pyodide started; data-engine-ms, the
     engine's modules imported and the rules read; data-first-ruling-ms, the frame that
     paints the first rulings. */
  var booting = true, hashPending = false, linkFound = null;
  var loaded = requestScripts();
  var runtime = decodeRuntime(loaded);
  runtime.catch(function () {});   /* reported where it is awaited */
  loaded["harmony.js"].then(function () {
    bundle = window.__harmonyExplorerBundle;
    catalogue = bundle.catalogue || {};
    links = bundle.links || {};
    var limits = bundle.limits || {};
    Object.keys(limits).forEach(function (k) { LIMITS[k] = limits[k]; });
    ui.hexside = ((catalogue.hexsides || [])[0] || {name: "none"}).name;
    linkFound = readLink();
    if (linkFound && linkFound.error) { pos = openLink(linkFound); linkFound = null; }
    else { pos = linkFound ? linkFound.position : defaultPosition(); }
    window.addEventListener("hashchange", function () {
      if (booting) { hashPending = true; return; }
      var found = checkLink(readLink());
      if (!found) { return; }
      var p = openLink(found);
      if (found.error || encode(p) !== encode(pos)) { pos = p; ui.selected = null; ui.fire = []; changed(true); }
      else { render(); }
    });
    try { render(); }
    catch (e) {   /* a position the engine would refuse may not draw: drawn once it is checked */
      board = null; view = null;
      root.replaceChildren(el("p", {"class": "hm-ex-status", role: "status", text: "Loading the rules engine…"}));
    }
    root.setAttribute("data-drawn-ms", performance.now().toFixed(0));
    return startPython(loaded, runtime);
  }, function () { throw new Error("unbundled"); }).then(function (e) {
    engine = e;
    runtime = null;      /* Pyodide holds what it needs: the decoded files may go */
    root.setAttribute("data-boot-ms", performance.now().toFixed(0));
    if (linkFound || hashPending) {
      var found = hashPending ? checkLink(readLink()) : checkLink(linkFound);
      if (found) { pos = openLink(found); }
    }
    booting = false;
    root.setAttribute("data-ready", "true");
    changed(true);
    /* once the first rulings are painted, the loaded rules are frozen out of the collector */
    requestAnimationFrame(function () { setTimeout(function () { engine.settle(); }, 0); });
  }).catch(function (e) {
    booting = false;
    if (e && e.message === "unbundled") {
      root.setAttribute("data-unbundled", "true");
      status("The explorer is not bundled in this build of the site: Pyodide was not found when it was built. " +
             "To bundle it, set HARMONY_PYODIDE to an unpacked pyodide npm package (`npm install pyodide` " +
             "makes one in node_modules/pyodide; a harmony source tree gets it with `npm ci`) and run " +
             "`harmony build` again.", true);
    } else {
      root.setAttribute("data-failed", "true");
      status("The explorer could not start: " + (e && e.message || e), true);
      if (window.console) { console.error(e); }
    }
  });
}());
