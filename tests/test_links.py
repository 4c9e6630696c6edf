"""No broken links: every internal href and #anchor of the built site resolves."""
from __future__ import annotations

import html
from html.parser import HTMLParser
from urllib.parse import unquote, urldefrag, urlparse

import pytest

from harmony.site.build import CACHE
from harmony.site.testing import shipped_site


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) is not None and not (tag == "link" and key == "href" and
                                               a.get("rel") in ("canonical",)):
                self.links.append(a[key])


@pytest.fixture(scope="module")
def pages():
    out = shipped_site().out
    parsed = {}
    for p in sorted(out.rglob("*.html")):
        if CACHE in p.relative_to(out).parts:
            continue
        page = Page()
        page.feed(p.read_text("utf-8"))
        parsed[p] = page
    return out, parsed


def internal(link: str) -> bool:
    u = urlparse(link)
    return not u.scheme and not u.netloc and not link.startswith(("mailto:", "javascript:", "data:"))


def test_every_internal_link_and_anchor_resolves(pages):
    out, parsed = pages
    broken = []
    checked = 0
    for page_path, page in parsed.items():
        for link in page.links:
            if not internal(link):
                continue
            target, frag = urldefrag(link)
            target = urlparse(target).path  # drop ?v=... cache busters
            dest = page_path if not target else (page_path.parent / unquote(target)).resolve()
            if target.endswith("/"):
                dest = dest / "index.html"
            checked += 1
            if not dest.exists():
                broken.append(f"{page_path.relative_to(out)}: {link} (no file)")
                continue
            if frag and dest.suffix == ".html" and not frag.startswith("position="):
                # (the explorer's #position= is read by its script: tests/test_explorer.py)
                ids = parsed[dest].ids if dest in parsed else set()
                if unquote(frag) not in ids:
                    broken.append(f"{page_path.relative_to(out)}: {link} (no anchor)")
    assert checked > 200
    assert broken == []


def test_the_link_checker_sees_a_broken_anchor(tmp_path):
    """The checker itself: a page with one good and one bad anchor."""
    page = Page()
    page.feed('<p id="a">x</p><a href="#a">ok</a><a href="#b">bad</a>')
    missing = [l for l in page.links if urldefrag(l)[1] not in page.ids]
    assert missing == ["#b"]


def search_object_links(index: dict) -> list[tuple[str, str]]:
    """Every search object's (page, anchor) as Sphinx's search page builds its link."""
    out = []
    for prefix, entries in index["objects"].items():
        for doc, typ, _prio, anchor, name in entries:
            fullname = f"{prefix}.{name}" if prefix else name
            if anchor == "":
                anchor = fullname
            elif anchor == "-":
                anchor = index["objnames"][str(typ)][1] + "-" + fullname
            out.append((index["docnames"][doc], html.unescape(anchor)))
    return out


def test_every_search_result_opens_an_element_that_exists(pages):
    """Search hits on clause rows, cells, glossary terms and examples land on their element."""
    import json
    out, parsed = pages
    text = (out / "searchindex.js").read_text("utf-8")
    index = json.loads(text[text.index("(") + 1:text.rindex(")")])
    links = search_object_links(index)
    kinds = {index["objnames"][str(t)][1] for e in index["objects"].values() for _d, t, *_ in e}
    assert {"clause", "cell", "term", "scenario"} <= kinds
    assert len(links) > 100
    missing = [f"{doc}.html#{anchor}" for doc, anchor in links
               if anchor not in parsed[(out / f"{doc}.html").resolve()].ids]
    assert missing == []
