"""What ``harmony serve`` tells an open page: the build state, the script and error overlay
put into every page it serves, and which pages a rebuild changed.

The built files are never touched: :func:`inject` adds the script (and, while the last
rebuild failed, the overlay) to the bytes of a page as it is sent. The script listens
to the server's events (:data:`EVENTS_PATH`, server-sent events): each says whether the
build failed, with its problems as ``harmony check`` prints them (the overlay shows them,
and goes when a rebuild succeeds), and whether the page's own file changed since it was
served. A page whose rebuild changed only parts of its main content (:mod:`.pageswap`)
fetches the page and swaps those parts in, without reloading (the site's own script is
told, by a ``harmony:swapped`` event, so that it sets up what is new); any other change
reloads it. Either way the reader is put back where they were: the details they opened are
open again (after a reload, when the page has as many as before), and the first element
of the main content with an id and a box in the window is at the same height. A
text-only edit is shown before its rebuild (:mod:`.textedit`): the event carries the new
cells, which the page swaps in without reloading; a page asked for meanwhile is served
with them, and once the rebuild has written the page, it reloads only if its file is not
what the patched page shows. A hidden tab closes its stream (browsers allow few
connections to one server) and asks again when shown.

>>> s = BuildState(); s.set([]); s.set(["r/a.yaml:3:5: error: bad <value> [x]"])
>>> "r/a.yaml:3:5: error: bad &lt;value&gt; [x]" in s.banner()
True
>>> b"<script>" in inject(b"<html><body class=x><p>hi</p></body></html>", "index.html", s)
True
"""
from __future__ import annotations

import hashlib
import html
import json
import os
import secrets
import threading
from collections.abc import Callable, Mapping, Set
from pathlib import Path

#: the stream of events a served page listens to, and the build state as one JSON object
EVENTS_PATH = "/.harmony-serve/events"
STATUS_PATH = "/.harmony-serve/status"
#: the id of the overlay, in the page and in the script
OVERLAY = "harmony-serve-error"
#: the header a served page's SHA-256 comes in (a page swapping in a rebuild's parts checks
#: that it fetched the page they came from)
DIGEST_HEADER = "X-Harmony-Page"
#: milliseconds a browser waits before it connects again to a server that went away
RETRY_MS = 1000

_OVERLAY_STYLE = ("position:fixed;top:0;left:0;right:0;z-index:2147483647;background:#fde8e8;color:#611;"
                  "border-bottom:3px solid #b00;padding:.6em 1em;font:14px/1.4 sans-serif;max-height:40vh;"
                  "overflow:auto;overflow-wrap:anywhere;box-shadow:0 2px 6px rgba(0,0,0,.3)")
_OVERLAY_TITLE = "The last rebuild failed; this is the last good site."
#: the problems an overlay lists at most
SHOWN = 50

_SCRIPT = """(function () {
"use strict";
var me = %(config)s, KEY = "harmony-serve-place", source = null, queue = Promise.resolve();
function overlay(problems) {
  var box = document.getElementById(me.overlay);
  if (!problems.length) { if (box) box.parentNode.removeChild(box); return; }
  if (!box) {
    box = document.createElement("div"); box.id = me.overlay; box.setAttribute("role", "alert");
    box.style.cssText = me.style; document.body.insertBefore(box, document.body.firstChild);
  }
  box.textContent = "";
  var title = document.createElement("strong"); title.textContent = me.title;
  var list = document.createElement("ul"); list.style.cssText = "margin:.3em 0 0 1.2em;padding:0";
  problems.slice(0, me.shown).forEach(function (p) {
    var item = document.createElement("li"), code = document.createElement("code");
    code.textContent = p; item.appendChild(code); list.appendChild(item);
  });
  if (problems.length > me.shown) {
    var more = document.createElement("li"); more.textContent = "... and " + (problems.length - me.shown) + " more";
    list.appendChild(more);
  }
  box.appendChild(title); box.appendChild(document.createTextNode(" Fix these and save:")); box.appendChild(list);
}
function place() {
  // the anchor: the first element of the page's main content that has an id and a box in
  // the window (not a drawing's hidden symbol, nor one inside closed details, nor the
  // sidebar, which stays put as the page scrolls)
  var main = document.querySelector("[role=main]") || document.querySelector("main") || document.body;
  var at = {page: me.page, y: window.scrollY, anchor: null, top: 0, open: []}, all = main.querySelectorAll("[id]");
  for (var i = 0; i < all.length; i++) {
    if (all[i].id === me.overlay) continue;
    var box = all[i].getBoundingClientRect();
    if (box.top >= 0 && (box.width > 0 || box.height > 0)) { at.anchor = all[i].id; at.top = box.top; break; }
  }
  var found = details(document.body);     // the details the reader opened, by their place
  found.forEach(function (d, n) { if (d.open) at.open.push(n); });
  at.count = found.length;
  return at;
}
function goTo(at) {
  var el = at.anchor && document.getElementById(at.anchor);
  window.scrollTo(0, el ? el.getBoundingClientRect().top + window.scrollY - at.top : at.y);
}
function remember() {
  try { sessionStorage.setItem(KEY, JSON.stringify(place())); return true; } catch (e) { return false; }
}
function restore() {
  var at = null;
  try { at = JSON.parse(sessionStorage.getItem(KEY) || "null"); sessionStorage.removeItem(KEY); } catch (e) {}
  if (!at || at.page !== me.page) return;
  var all = details(document.body);       // a page that gained or lost a details element opens none
  if (at.open && all.length === at.count) at.open.forEach(function (n) { all[n].open = true; });
  goTo(at);
}
var reloading = false;      // (set by reload: the page goes, the restoring stays off)
function reload() {
  // (the page, not the browser, scrolls back after this reload: by the anchor, once the
  // details are open again, which a browser's own restoring would not wait for; a reload
  // of the reader's own, or leaving the page, gives the browser its restoring back; where
  // the place cannot be kept, the browser restores as it would)
  var kept = remember(); if (source) { source.close(); source = null; }
  reloading = true;
  if (kept) try { history.scrollRestoration = "manual"; } catch (e) {}
  location.reload();
}
window.addEventListener("pagehide", function () {
  if (!reloading) try { history.scrollRestoration = "auto"; } catch (e) {}
});
function patch(p) {
  var cell = document.getElementById(p.id), box = document.createElement("template");
  box.innerHTML = p.html;
  var fresh = box.content.firstElementChild;
  if (!cell || !fresh || fresh.id !== p.id) return;
  Array.prototype.slice.call(cell.children).forEach(function (c) { if (!c.matches(p.keep)) cell.removeChild(c); });
  Array.prototype.slice.call(fresh.children).forEach(function (c) { if (!c.matches(p.keep)) cell.appendChild(c); });
}
function details(el) {
  var found = Array.prototype.slice.call(el.querySelectorAll("details"));
  return el.tagName === "DETAILS" ? [el].concat(found) : found;
}
function swap(s) {
  return fetch(location.href.split("#")[0], {cache: "no-store"}).then(function (r) {
    if (!r.ok || r.headers.get(me.digest) !== s.digest) throw new Error("the page has changed again");
    return r.text();
  }).then(function (text) {
    var doc = new DOMParser().parseFromString(text, "text/html"), pairs = [];
    s.ids.forEach(function (id) {
      var el = document.getElementById(id), fresh = doc.getElementById(id);
      if (!el || !fresh || el.tagName !== fresh.tagName) throw new Error("no element " + id);
      pairs.push([el, document.importNode(fresh, true)]);
    });
    var at = place();
    pairs.forEach(function (pair) {
      var el = pair[0], fresh = pair[1], open = details(el).map(function (d) { return d.open; });
      Array.prototype.slice.call(el.attributes).forEach(function (a) {
        if (!fresh.hasAttribute(a.name)) el.removeAttribute(a.name);
      });
      Array.prototype.slice.call(fresh.attributes).forEach(function (a) { el.setAttribute(a.name, a.value); });
      el.replaceChildren.apply(el, Array.prototype.slice.call(fresh.childNodes));
      var now = details(el);                 // (what the reader opened stays open)
      if (now.length === open.length) now.forEach(function (d, i) { if (open[i]) d.open = true; });
    });
    goTo(at);
    var swapped = pairs.map(function (pair) { return pair[0]; });
    document.dispatchEvent(new CustomEvent("harmony:swapped", {detail: {elements: swapped}}));
  });
}
function connect() {
  if (source || !window.EventSource) return;
  source = new EventSource(me.events + "?page=" + encodeURIComponent(me.page) + "&since=" + me.generation
                           + "&server=" + me.server);
  source.addEventListener("state", function (e) {
    var s = JSON.parse(e.data);
    queue = queue.then(function () {
      overlay(s.problems);
      if (s.reload) return reload();
      return (s.swap ? swap(s.swap) : Promise.resolve()).then(function () {
        if (s.patches) s.patches.forEach(patch);
      });
    }).catch(reload);
  });
}
document.addEventListener("visibilitychange", function () {
  if (document.hidden) { if (source) { source.close(); source = null; } } else connect();
});
if (!document.hidden) connect();
if (document.readyState === "complete") restore(); else window.addEventListener("load", restore);
})();"""


class BuildState:
    """The number of the last build, its problems if it failed, and the build at which each
    page last changed; what the pages are told (:meth:`event`, :meth:`banner`)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.generation = 0
        self.problems: list[str] = []
        #: page (its path in the site, ``topics/index.html``) -> the generation it last changed in
        self.changed_at: dict[str, int] = {}
        #: the generation in which every page changed (a style sheet or script did)
        self.all_changed_at = 0
        #: this server's own mark: a page served by another (a restarted serve) reloads
        self.server = secrets.token_hex(4)
        #: whether the site stays as it is until the next edit (no PDF or full build to come)
        self.settled = True
        #: page -> the bytes it shows once patched (:meth:`patch`), and its patches with the
        #: generation of each, until the next build that ends well
        self.pending: dict[str, tuple[bytes, list[tuple[int, dict]]]] = {}
        #: page -> the parts of it that its last change swaps in (:mod:`.pageswap`): the
        #: generation of that change, the one since which a page shows what they replace,
        #: their ids and the SHA-256 of the page they come from
        self.swaps: dict[str, tuple[int, int, list[str], str]] = {}

    def set(self, problems: list[str], changed: Set[str] | None = frozenset(),
            digest: Callable[[str], str | None] | None = None,
            swaps: Mapping[str, tuple[list[str], str]] | None = None) -> None:
        """A build ended: with ``problems`` (it failed, the site is as it was), or with the
        pages whose files ``changed`` (None: every page). A patched page (:meth:`patch`)
        reloads unless ``digest`` (a page's path -> the SHA-256 of its bytes now) says its
        file is now what the patched page shows: then it changed, for the pages told of
        it, at its last patch (a page told of that patch, or served with it, shows the file
        already; one whose stream was cut before it reloads). A build that ends well ends
        every patch. ``swaps``: page -> the ids of its parts that a page showing it as it
        was before this build (patched, if it was) swaps in instead of reloading
        (:func:`.pageswap.changed_parts`), and the SHA-256 of the page they come from.

        >>> s = BuildState(); s.patch("a.html", {"id": "x"}, b"new"); s.patch("b.html", {"id": "y"}, b"new")
        >>> s.set(["x.yaml:1:1: error: bad [c]"], set(), None); s.shown("a.html")      # a failed build: kept
        b'new'
        >>> s.set([], {"a.html"}, {"a.html": hashlib.sha256(b"new").hexdigest()}.get)
        >>> sorted(s.changed_at.items()), s.pending, s.shown("a.html")
        ([('a.html', 1), ('b.html', 4)], {}, None)
        """
        with self.lock:
            self.generation += 1
            self.problems = list(problems)
            patched: dict[str, int] = {}
            before = {page: patches[-1][0] for page, (_, patches) in self.pending.items()}
            if not problems and self.pending:
                changed = None if changed is None else set(changed)
                for page, (shown, patches) in self.pending.items():
                    if digest is not None and digest(page) == hashlib.sha256(shown).hexdigest():
                        patched[page] = patches[-1][0]
                    if changed is not None:
                        changed.add(page)
                self.pending = {}
            if problems:
                return
            if changed is None:
                self.all_changed_at = self.generation
                self.swaps = {}
                return
            for page in changed:
                since = before.get(page, max(self.changed_at.get(page, 0), self.all_changed_at))
                self.changed_at[page] = patched.get(page, self.generation)
                if swaps is not None and page in swaps and page not in patched:
                    ids, sha = swaps[page]
                    self.swaps[page] = (self.generation, since, list(ids), sha)
                else:
                    self.swaps.pop(page, None)

    def patch(self, page: str, event: dict, shown: bytes) -> None:
        """Tell ``page`` to swap in a cell (``event``, :meth:`.textedit.Patch.as_event`): the
        page then shows ``shown``, which it is served as until the next build."""
        with self.lock:
            self.generation += 1
            _, patches = self.pending.get(page, (b"", []))
            self.pending[page] = (shown, [*patches, (self.generation, event)])

    def shown(self, page: str) -> bytes | None:
        """What ``page`` shows once patched, while a patch waits for its rebuild."""
        return self.now(page)[2]

    def settle(self, settled: bool) -> None:
        with self.lock:
            self.settled = settled

    def as_json(self) -> bytes:
        with self.lock:
            return json.dumps({"generation": self.generation, "problems": self.problems,
                               "settled": self.settled}).encode()

    def event(self, page: str, since: int, server: str | None = None) -> tuple[int, bytes]:
        """The generation now and the event telling a page (served at generation ``since`` by
        the server marked ``server``) the state: the problems, and whether to reload.

        >>> s = BuildState(); s.set([], {"a.html"}); s.set(["x.yaml:1:1: error: bad [c]"])
        >>> s.event("a.html", 0, s.server)[1].decode().splitlines()[2]
        'data: {"generation":2,"problems":["x.yaml:1:1: error: bad [c]"],"reload":true}'
        >>> b'"reload":false' in s.event("a.html", 1, s.server)[1], b'"reload":true' in s.event("a.html", 1, "old")[1]
        (True, True)
        >>> s.patch("a.html", {"id": "x"}, b"<p>"); s.event("a.html", 2, s.server)[1].decode().splitlines()[2]
        'data: {"generation":3,"problems":["x.yaml:1:1: error: bad [c]"],"reload":false,"patches":[{"id":"x"}]}'
        >>> b"patches" in s.event("a.html", 3, s.server)[1], b'"reload":false' in s.event("b.html", 0, s.server)[1]
        (False, True)

        A page that shows what a change's parts replace swaps them in (:mod:`.pageswap`); an
        older one, or one served by another server, reloads:

        >>> s = BuildState(); s.set([], {"a.html"}); s.set([], {"a.html"}, swaps={"a.html": (["x"], "d")})
        >>> def told(since, server=s.server):
        ...     state = json.loads(s.event("a.html", since, server)[1].decode().splitlines()[2][6:])
        ...     return state["reload"], state.get("swap")
        >>> told(0), told(1), told(2), told(1, "old")
        ((True, None), (False, {'ids': ['x'], 'digest': 'd'}), (False, None), (True, None))
        >>> s.set([], {"a.html"}); told(1), told(2)
        ((True, None), (True, None))
        """
        with self.lock:
            at = max(self.changed_at.get(page, 0), self.all_changed_at)
            ours = server is None or server == self.server
            swap = self.swaps.get(page)
            # (a page that shows what the last change's parts replace swaps them in)
            swapped = at > since and ours and swap is not None and swap[0] == at and swap[1] <= since
            reload = (at > since or not ours) and not swapped
            state: dict = {"generation": self.generation, "problems": self.problems, "reload": reload}
            if swapped:
                assert swap is not None
                state["swap"] = {"ids": swap[2], "digest": swap[3]}
            patches = [p for g, p in self.pending.get(page, (b"", []))[1] if g > since]
            if patches and not reload:
                state["patches"] = patches
            data = json.dumps(state, separators=(",", ":"))
            return self.generation, f"id: {self.generation}\nevent: state\ndata: {data}\n\n".encode()

    def now(self, page: str) -> tuple[int, list[str], bytes | None]:
        """At one moment: the generation, the problems and what ``page`` shows once patched
        (:meth:`shown`)."""
        with self.lock:
            found = self.pending.get(page)
            return self.generation, list(self.problems), found[0] if found else None

    def banner(self, problems: list[str] | None = None) -> str:
        """The overlay the page starts with while the last rebuild failed (the script keeps it
        up to date): the problems (default: those now), each escaped."""
        if problems is None:
            with self.lock:
                problems = list(self.problems)
        if not problems:
            return ""
        items = "".join(f"<li><code>{html.escape(p)}</code></li>" for p in problems[:SHOWN])
        more = f"<li>... and {len(problems) - SHOWN} more</li>" if len(problems) > SHOWN else ""
        return (f'<div id="{OVERLAY}" role="alert" style="{_OVERLAY_STYLE}">'
                f"<strong>{_OVERLAY_TITLE}</strong> Fix these and save:"
                f'<ul style="margin:.3em 0 0 1.2em;padding:0">{items}{more}</ul></div>')

    def script(self, page: str, generation: int) -> str:
        """The script of a page served at ``generation``."""
        config = json.dumps({"page": page, "generation": generation, "server": self.server,
                             "events": EVENTS_PATH, "digest": DIGEST_HEADER, "overlay": OVERLAY,
                             "style": _OVERLAY_STYLE, "title": _OVERLAY_TITLE, "shown": SHOWN}, separators=(",", ":"))
        # nothing in it may end the script element early
        config = config.replace("<", "\\u003c").replace(">", "\\u003e")
        return "<script>" + _SCRIPT % {"config": config} + "</script>"


def inject(page: bytes, name: str, state: BuildState, taken: tuple[int, list[str]] | None = None) -> bytes:
    """``page`` (the bytes of the built file ``name``) as served: the overlay, if the last
    rebuild failed, and the script, just inside ``<body>`` (at the start if it has none);
    ``taken``: the generation and problems to serve it with (default: those now)."""
    generation, problems = taken if taken is not None else state.now(name)[:2]
    insert = (state.banner(problems) + state.script(name, generation)).encode("utf-8")
    start = page.find(b"<body")
    at = page.find(b">", start) + 1 if start >= 0 else 0
    return page[:at] + insert + page[at:]


def serve_page(state: BuildState, name: str, read: Callable[[], bytes]) -> tuple[bytes, bytes]:
    """The page ``name`` as served (:func:`inject`), and the bytes it shows: patched, while a
    patch waits, else its file as ``read`` gives it.

    The state is taken before the file is read. A build that lands in between leaves the
    page told that it is older than it is, and it is then told to catch up. Read the other
    way round, the page would be told that it is newer than it is, and would show the old
    page until the next edit.

    >>> s = BuildState(); s.set([], {"a.html"})
    >>> def read():                      # a build lands while the file is read
    ...     s.set([], {"a.html"})
    ...     return b"<body>new"
    >>> served, shown = serve_page(s, "a.html", read)
    >>> b'"generation":1,' in served, shown, s.generation
    (True, b'<body>new', 2)
    >>> b'"reload":true' in s.event("a.html", 1, s.server)[1]     # told to catch up
    True
    >>> s.patch("a.html", {"id": "x"}, b"<body>patched")
    >>> serve_page(s, "a.html", lambda: b"the file, not read")[1]
    b'<body>patched'
    """
    generation, problems, patched = state.now(name)
    shown = patched if patched is not None else read()
    return inject(shown, name, state, (generation, problems)), shown


class Snapshot:
    """The files of a built site, to tell which a rebuild changed (:meth:`update`): by size
    and time first, by the hash of their bytes when either moved (a rebuild copies the
    site whole, keeping each file's time, and Sphinx writes again some pages it did not
    change)."""

    def __init__(self, out: Path):
        self.out = out
        self.files: dict[str, tuple[int, int, str]] = {}
        self.update()

    def _scan(self) -> dict[str, tuple[int, int]]:
        found = {}
        for folder, _dirs, names in os.walk(self.out):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                found[os.path.relpath(path, self.out).replace(os.sep, "/")] = (st.st_size, st.st_mtime_ns)
        return found

    def digest(self, rel: str) -> str | None:
        """The SHA-256 of the file ``rel`` (its path in the site) as last seen, if it was.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     _ = Path(d, "a.html").write_bytes(b"page")
        ...     snap = Snapshot(Path(d))
        >>> snap.digest("a.html") == hashlib.sha256(b"page").hexdigest(), snap.digest("b.html")
        (True, None)
        """
        found = self.files.get(rel)
        return found[2] if found else None

    def update(self) -> set[str]:
        """The files whose bytes changed (or that came or went) since the last call."""
        now: dict[str, tuple[int, int, str]] = {}
        changed = set()
        for rel, (size, mtime) in self._scan().items():
            before = self.files.get(rel)
            if before is not None and before[:2] == (size, mtime):
                now[rel] = before
                continue
            try:
                digest = hashlib.sha256((self.out / rel).read_bytes()).hexdigest()
            except OSError:
                continue
            now[rel] = (size, mtime, digest)
            if before is None or before[2] != digest:
                changed.add(rel)
        changed |= set(self.files) - set(now)
        self.files = now
        return changed


def pages_changed(files: set[str]) -> set[str] | None:
    """The pages to reload for these changed files: the HTML pages among them, or every page
    (None) when a style sheet or script of the site changed; a PDF or the explorer's
    bundle reloads none (no page holds them).

    >>> sorted(pages_changed({"topics/a.html", "print/x.pdf", "_explorer/harmony.js"}))
    ['topics/a.html']
    >>> pages_changed({"_static/harmony.css"}) is None
    True
    """
    pages = set()
    for rel in files:
        if rel.endswith(".html"):
            pages.add(rel)
        elif rel.startswith("_static/"):
            return None
    return pages
