"""The parts of an open page a rebuild changed (harmony.site.pageswap), and ``harmony serve``
telling an open page to swap them in instead of reloading."""
from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings, strategies as st

from harmony.site import pageswap
from harmony.site.livereload import BuildState
from conftest import OpenPages

# ------------------------------------------------------------------ a page as a tree

#: an element: (tag, its id or None, its children: text or elements)
TAGS = ("div", "p", "span", "section", "td")


@st.composite
def _element(draw, depth: int, ids: list[int]):
    tag = draw(st.sampled_from(TAGS))
    ident = None
    if draw(st.booleans()):
        ids[0] += 1
        ident = f"e{ids[0]}"
    children = []
    for _ in range(draw(st.integers(0, 3 if depth < 3 else 0))):
        if draw(st.booleans()):
            children.append(draw(_element(depth + 1, ids)))
        else:
            children.append(draw(st.text("abc xyz", min_size=1, max_size=5)))
    if draw(st.booleans()):
        children.append(("br", None, None))                  # a void element
    return (tag, ident, children)


def _html(node, edit=None, path=()) -> str:
    """``node`` written out; ``edit``: (the path of a text to change, its new text)."""
    if isinstance(node, str):
        return edit[1] if edit is not None and edit[0] == path else node
    tag, ident, children = node
    attrs = f' id="{ident}"' if ident else ""
    if children is None:
        return f"<{tag}{attrs}>"
    inner = "".join(_html(c, edit, path + (i,)) for i, c in enumerate(children))
    return f"<{tag}{attrs}>{inner}</{tag}>"


def _texts(node, path=(), owner=None):
    """Every text of ``node``: its path and the id of the nearest element with one around it."""
    if isinstance(node, str):
        yield path, owner
        return
    tag, ident, children = node
    for i, c in enumerate(children or []):
        yield from _texts(c, path + (i,), ident or owner)


def _page(main, side: str = "menu", edit=None) -> bytes:
    """A page: a sidebar with an id, the main content, a footer with ids."""
    inner = "".join(_html(c, edit, (i,)) for i, c in enumerate(main))
    return (f'<!DOCTYPE html><html><head><title>t</title><script>if (1 < 2) {{}}</script></head><body>'
            f'<nav id="side">{side}</nav><article role="main" id="main">{inner}</article>'
            f'<footer id="foot"><p id="made">made</p></footer></body></html>').encode()


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_changed_text_swaps_the_nearest_element_with_an_id_around_it(data):
    """Whatever the page, changing one text swaps exactly the nearest element with an id
    around it inside the main content, and a text with none around it (straight in the
    main content) reloads; the old page with that element's bytes replaced is the new page."""
    ids = [0]
    main = data.draw(st.lists(st.one_of(_element(0, ids), st.text("abc", min_size=1, max_size=3)), min_size=1,
                              max_size=4))
    texts = [t for c, child in enumerate(main) for t in _texts(child, (c,))]
    old = _page(main)
    assert pageswap.changed_parts(old, old) == []
    if not texts:
        return
    path, owner = data.draw(st.sampled_from(texts))
    new = _page(main, edit=(path, "CHANGED"))
    found = pageswap.changed_parts(old, new)
    assert found == ([owner] if owner else None)


def test_what_cannot_be_swapped_reloads():
    page = _page([("div", "a", ["one ", ("p", "b", ["two"]), ("p", None, ["three"])])])
    assert pageswap.changed_parts(page, page.replace(b"two", b"deux")) == ["b"]
    assert pageswap.changed_parts(page, page.replace(b"three", b"trois")) == ["a"]
    # outside the main content: the sidebar, the head, the main content's own tag
    assert pageswap.changed_parts(page, _page([("div", "a", ["one ", ("p", "b", ["two"]),
                                                             ("p", None, ["three"])])], side="menu 2")) is None
    assert pageswap.changed_parts(page, page.replace(b"<title>t", b"<title>u")) is None
    assert pageswap.changed_parts(page, page.replace(b">made<", b">built<")) is None        # after it
    assert pageswap.changed_parts(page, page.replace(b'role="main" id="main"', b'role="main" id="main" class="x"')) \
        is None
    # an element's own tag, and the elements with ids in it: its parent is swapped
    assert pageswap.changed_parts(page, page.replace(b'<p id="b">two</p>', b'<span id="b">two</span>')) == ["a"]
    assert pageswap.changed_parts(page, page.replace(b'<p id="b">two</p>', b'<p id="c">two</p>')) == ["a"]
    assert pageswap.changed_parts(page, page.replace(b'<p id="b">', b'<p id="b" class="new">')) == ["b"]
    # a page whose main content holds a script is not swapped into (a swapped script does not
    # run; one that ran may hold on to what would be swapped)
    assert pageswap.changed_parts(page, page.replace(b"two", b"two<script>go()</script>")) is None
    scripted = page.replace(b"three", b"three<script>go()</script>")
    assert pageswap.changed_parts(scripted, scripted.replace(b"two", b"deux")) is None
    assert pageswap.changed_parts(scripted, scripted) == []
    # an id twice on a page is no part: the element around both is swapped
    twice = _page([("div", "a", [("p", "b", ["one"]), ("p", "b", ["two"])])])
    assert pageswap.changed_parts(twice, twice.replace(b"two", b"deux")) == ["a"]
    # an empty id names nothing; " id=" inside another attribute's value is no id
    empty = _page([("div", "a", [("p", None, ["one"])])]).replace(b"<p>", b'<p id="">')
    assert pageswap.changed_parts(empty, empty.replace(b"one", b"uno")) == ["a"]
    inside = _page([("div", "a", [("p", None, ["one"])])]).replace(b"<p>", b"<p title=\"an id='b'\">")
    assert pageswap.changed_parts(inside, inside.replace(b"one", b"uno")) == ["a"]
    # an id in single quotes; an element read raw (its text is not markup) with an id
    quoted = _page([("div", "a", ["one"])]).replace(b'<div id="a">', b"<div id='a'>")
    assert pageswap.changed_parts(quoted, quoted.replace(b"one", b"uno")) == ["a"]
    raw = _page([("div", "a", ["<textarea id='t'>x < y</textarea> z"])])
    assert pageswap.changed_parts(raw, raw.replace(b"x < y", b"x > y")) == ["t"]
    assert pageswap.changed_parts(raw, raw.replace(b" z", b" zz")) == ["a"]
    # elements with ids nested deeper than Python recurses, and a comment never closed: reload
    deep = _page([]).replace(b'id="main">', b'id="main">' + b"".join(b'<b id="b%d">' % i for i in range(3000))
                             + b"x" + b"</b>" * 3000)
    assert pageswap.changed_parts(deep, deep.replace(b">x<", b">y<")) is None
    assert pageswap.changed_parts(page, page.replace(b"two", b"two<!-- open")) is None
    # tags that do not nest, and a page without main content, cannot be read
    assert pageswap.changed_parts(page, page.replace(b"</p>", b"</span>", 1)) is None
    assert pageswap.parts(page.replace(b'role="main"', b"")) is None


def test_every_page_of_the_shipped_site_is_read_and_unchanged_is_no_swap():
    """Every page of the shipped site with main content is read; only the explorer's holds a
    script there."""
    from harmony.site.testing import shipped_site
    out = shipped_site().out
    read = 0
    for path in sorted(out.rglob("*.html")):
        page = path.read_bytes()
        if b'role="main"' not in page:        # (the cards' and rulebooks' printable pages)
            assert path.parent.name == "print", path
            continue
        root = pageswap.parts(page)
        assert root is not None, path
        assert root.scripted == (path.name == "explorer.html"), path      # (it reloads)
        assert pageswap.changed_parts(page, page) == []
        read += 1
    assert read > 50


# ------------------------------------------------------------------ what a page is told

def test_a_patched_page_whose_build_differs_swaps_from_what_the_patch_shows():
    """A text edit was shown ahead (a patch) and its build wrote more than the patch showed:
    a page told of the patch swaps the build's parts in, one cut off before it reloads."""
    s = BuildState()
    s.set([], {"a.html"})                                           # generation 1
    s.patch("a.html", {"id": "x"}, b"patched")                      # generation 2
    s.set([], {"a.html"}, {"a.html": hashlib.sha256(b"built").hexdigest()}.get,
          {"a.html": (["x", "y"], "sha")})                          # generation 3

    def told(since):
        state = json.loads(s.event("a.html", since, s.server)[1].decode().splitlines()[2][6:])
        return state["reload"], state.get("swap")
    assert told(2) == (False, {"ids": ["x", "y"], "digest": "sha"})
    assert told(1) == (True, None)
    assert told(3) == (False, None)
    s.set(["x.yaml:1:1: error: bad [c]"], set())                    # a failed build changes nothing
    assert told(2) == (False, {"ids": ["x", "y"], "digest": "sha"})
    s.set([], None)                                                  # every page changed (a style sheet)
    assert told(2) == (True, None) and s.swaps == {}

    # a page's first change: a page served before any build swaps it in
    s = BuildState()
    s.set([], {"a.html"}, swaps={"a.html": (["x"], "sha")})
    assert told(0) == (False, {"ids": ["x"], "digest": "sha"})


def test_serve_tells_an_open_page_to_swap_the_parts_a_parameter_edit_changed(starter_rules, tmp_path, monkeypatch):
    """A parameter edit in a served harmony: each open page it changed is told the parts to
    swap and the SHA-256 of the page they come from (the page as built); a page that was
    not open reloads."""
    import io

    from harmony.site import serve
    monkeypatch.setenv("HARMONY_PYODIDE", "")
    rules, out = starter_rules, tmp_path / "out"
    editing = serve._Editing(rules, out, serve.BuildState(), None, OpenPages("topics/spotting",
                                                                         "examples/dispersed-spotter"),
                             io.StringIO(), io.StringIO())
    assert editing.build(preview=False) is not None
    editing.seen = serve.fingerprint(rules)
    since = editing.state.generation
    spotting = rules / "spotting.yaml"
    spotting.write_text(spotting.read_text("utf-8").replace(
        "params: {spot.adjacent: true, spot.dispersed-may-spot: false}",
        "params: {spot.adjacent: true, spot.dispersed-may-spot: true}"), "utf-8")
    editing.edited()
    assert editing.err.getvalue() == ""

    def told(page):
        event = editing.state.event(page, since, editing.state.server)[1].decode()
        return json.loads(event.splitlines()[2][6:])
    example = told("examples/dispersed-spotter.html")
    assert example["reload"] is False and example["swap"]["ids"] == ["outcome-under-every-ruleset"]
    built = (out / "examples/dispersed-spotter.html").read_bytes()
    assert example["swap"]["digest"] == hashlib.sha256(built).hexdigest()
    topic = told("topics/spotting.html")
    assert topic["reload"] is False and "spotting.spotters@HA" in topic["swap"]["ids"]
    assert editing.server.told >= 1

    # the full build that follows makes the pages no browser has open: those reload
    previewed = editing.state.generation
    assert editing.build(preview=False) is not None
    others = [page for page, at in editing.state.changed_at.items() if at > previewed]
    assert others and not {"topics/spotting.html", "examples/dispersed-spotter.html"} & set(others)
    for page in others:
        assert told(page)["reload"] is True and "swap" not in told(page)
