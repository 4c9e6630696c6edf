/* harmony site: the column chooser (plain JS, no server).
   Each topic page has a fieldset.hm-chooser of checkboxes, one per rulebook;
   unticking one hides that rulebook's column in the page's tables. The choice
   is remembered in localStorage so the next topic shows the same columns. */
(function () {
  "use strict";
  var KEY = "harmony-hidden-columns";

  function load() {
    try { return JSON.parse(window.localStorage.getItem(KEY) || "[]"); } catch (e) { return []; }
  }
  function save(hidden) {
    try { window.localStorage.setItem(KEY, JSON.stringify(hidden)); } catch (e) { /* private mode */ }
  }
  function cells(col) {
    return document.querySelectorAll(
      "table.hm-harmony [data-col=\"" + col + "\"], table.hm-outcomes [data-col=\"" + col + "\"]");
  }
  function respread() {
    /* a row spanning the table (questions and answers, a clause's examples) spans the
       columns still shown:
       a fixed-layout table would otherwise keep room for the hidden ones */
    document.querySelectorAll("table.hm-harmony").forEach(function (table) {
      var head = table.querySelector("thead tr");
      if (!head) { return; }
      var shown = 0;
      head.querySelectorAll("th").forEach(function (th) { if (!th.hidden) { shown += 1; } });
      table.querySelectorAll("td.hm-qa, td.hm-examples").forEach(function (td) { td.colSpan = Math.max(shown, 1); });
    });
  }
  function show(col, visible) {
    cells(col).forEach(function (el) { el.hidden = !visible; });
    document.querySelectorAll("fieldset.hm-chooser input[data-col=\"" + col + "\"]")
      .forEach(function (cb) { cb.checked = visible; });
    respread();
  }
  function apply(hidden) {
    document.querySelectorAll("fieldset.hm-chooser input[data-col]").forEach(function (cb) {
      show(cb.getAttribute("data-col"), hidden.indexOf(cb.getAttribute("data-col")) < 0);
    });
  }
  function revealTarget() {
    /* a permalink to a cell of a hidden column shows that column again */
    var id = decodeURIComponent(window.location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (el && el.hidden && el.getAttribute("data-col")) {
      var col = el.getAttribute("data-col");
      show(col, true);
      save(load().filter(function (c) { return c !== col; }));
      el.scrollIntoView();
    }
  }
  function copyLinks(root) {
    /* "copy link" on each cell: puts the cell's full address on the clipboard */
    root.querySelectorAll("a.hm-copy-link").forEach(function (a) {
      a.addEventListener("click", function (ev) {
        var url = a.href;
        if (!navigator.clipboard || !window.isSecureContext) { return; }   /* plain link then */
        ev.preventDefault();
        navigator.clipboard.writeText(url).then(function () {
          a.textContent = "link copied";
          a.classList.add("hm-copied");
          window.setTimeout(function () { a.textContent = "copy link"; a.classList.remove("hm-copied"); }, 2000);
        }, function () { window.location.href = url; });
        if (window.history && window.history.replaceState) { window.history.replaceState(null, "", url); }
      });
    });
  }
  function compareBar(box) {
    /* "compare two": only two rulebooks, side by side even on a phone (not remembered) */
    var inputs = box.querySelectorAll("input[data-col]");
    if (inputs.length < 3) { return; }
    var bar = document.createElement("div");
    bar.className = "hm-compare-bar";
    var label = document.createElement("label");
    var toggle = document.createElement("input");
    toggle.type = "checkbox";
    toggle.className = "hm-compare-toggle";
    label.appendChild(toggle);
    label.appendChild(document.createTextNode(" Compare two side by side: "));
    bar.appendChild(label);
    var selects = [0, 1].map(function (n) {
      var sel = document.createElement("select");
      sel.className = "hm-compare-" + (n ? "b" : "a");
      sel.setAttribute("aria-label", n ? "second rulebook" : "first rulebook");
      inputs.forEach(function (cb, i) {
        var opt = document.createElement("option");
        opt.value = cb.getAttribute("data-col");
        opt.textContent = cb.parentNode.textContent.trim();
        if (i === (n ? inputs.length - 1 : 0)) { opt.selected = true; }
        sel.appendChild(opt);
      });
      bar.appendChild(sel);
      if (!n) { bar.appendChild(document.createTextNode(" and ")); }
      return sel;
    });
    function update() {
      if (toggle.checked) {
        var keep = [selects[0].value, selects[1].value];
        document.body.classList.add("hm-compare");
        inputs.forEach(function (cb) {
          var col = cb.getAttribute("data-col");
          show(col, keep.indexOf(col) >= 0);
        });
      } else {
        document.body.classList.remove("hm-compare");
        apply(load());
      }
    }
    toggle.addEventListener("change", update);
    selects.forEach(function (sel) { sel.addEventListener("change", function () {
      toggle.checked = true; update(); }); });
    box.appendChild(bar);
  }
  function scrollersFocusable() {
    /* a block of code or a table that scrolls sideways can be scrolled by keyboard too:
       it takes the focus (Tab, then the arrow keys) while it is wider than its box */
    document.querySelectorAll("article pre, article div.table-wrapper").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1) {
        el.tabIndex = 0;
      } else if (el.getAttribute("tabindex") === "0") {
        el.removeAttribute("tabindex");
      }
    });
  }
  function chooser(box) {
    box.hidden = false;
    compareBar(box);
    box.addEventListener("change", function (ev) {
      var cb = ev.target;
      if (!cb.matches || !cb.matches("input[data-col]")) { return; }
      if (document.body.classList.contains("hm-compare")) {   /* a tick ends comparing */
        document.body.classList.remove("hm-compare");
        box.querySelectorAll(".hm-compare-toggle").forEach(function (t) { t.checked = false; });
      }
      var col = cb.getAttribute("data-col");
      show(col, cb.checked);
      var hidden = load().filter(function (c) { return c !== col; });
      if (!cb.checked) { hidden.push(col); }
      save(hidden);
    });
  }
  function columns() {
    /* the columns shown as chosen: two compared, or those not unticked */
    var comparing = document.querySelector(".hm-compare-toggle");
    if (comparing && comparing.checked) {
      comparing.dispatchEvent(new Event("change"));
    } else {
      apply(load());
    }
  }
  function swapped(ev) {
    /* parts of the page swapped in by harmony serve after a rebuild: their contents are new */
    var roots = (ev.detail && ev.detail.elements) || [];
    roots.forEach(function (root) {
      copyLinks(root);
      root.querySelectorAll("fieldset.hm-chooser").forEach(function (box) {
        document.body.classList.remove("hm-compare");    /* a new chooser: comparing ends, as on a reload */
        chooser(box);
      });
    });
    columns();
    scrollersFocusable();
  }
  function setup() {
    copyLinks(document);
    scrollersFocusable();
    window.addEventListener("resize", scrollersFocusable);
    document.addEventListener("harmony:swapped", swapped);
    var boxes = document.querySelectorAll("fieldset.hm-chooser");
    if (!boxes.length) { return; }
    boxes.forEach(chooser);
    apply(load());
    revealTarget();
    window.addEventListener("hashchange", revealTarget);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setup);
  } else {
    setup();
  }
}());
