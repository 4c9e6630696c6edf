"""Crawl a built site for broken links: every internal ``href``/``src`` and ``#anchor`` must resolve.

``harmony build --check-links`` runs :func:`check_links` on the site it has just built,
and ``tests/test_links.py`` on the shipped site. Only the site's own files are read
(no network): a link to another file must name a file that exists, and a link with a
fragment to an HTML page must name an ``id`` (or an ``<a name>``) that page holds.

>>> import tempfile
>>> from pathlib import Path
>>> out = Path(tempfile.mkdtemp())
>>> _ = (out / "a.html").write_text('<p id="x">x</p><a href="#x">ok</a><a href="#y">bad</a>'
...                                  '<a href="b.html">gone</a><a href="https://example.org/">out</a>')
>>> result = check_links(out)
>>> result.checked, result.broken
(3, ['a.html: #y (no anchor)', 'a.html: b.html (no file)'])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse


class Page(HTMLParser):
    """The ids a page defines and the links it makes."""

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


def internal(link: str) -> bool:
    """A link into the site itself (no scheme, no host, not mailto/javascript/data).

    >>> internal("topics/spotting.html#x"), internal("https://x.org/"), internal("mailto:a@b")
    (True, False, False)
    """
    u = urlparse(link)
    return not u.scheme and not u.netloc and not link.startswith(("mailto:", "javascript:", "data:"))


def read_pages(out: Path, skip: tuple[str, ...] = ()) -> dict[Path, Page]:
    """Every HTML page under ``out`` parsed, except in folders named in ``skip``."""
    parsed = {}
    for p in sorted(out.rglob("*.html")):
        if any(part in skip for part in p.relative_to(out).parts):
            continue
        page = Page()
        page.feed(p.read_text("utf-8", errors="replace"))
        parsed[p] = page
    return parsed


@dataclass
class LinkCheck:
    """What :func:`check_links` found: how many internal links, and each broken one."""

    checked: int = 0
    broken: list[str] = field(default_factory=list)
    pages: int = 0


def check_links(out: Path, skip: tuple[str, ...] = ()) -> LinkCheck:
    """Every internal link of the site in ``out``, each broken one as ``page: link (why)``."""
    out = Path(out).resolve()     # links resolve to absolute paths: the pages' keys must match
    parsed = read_pages(out, skip)
    result = LinkCheck(pages=len(parsed))
    for page_path, page in parsed.items():
        for link in page.links:
            if not internal(link):
                continue
            target, frag = urldefrag(link)
            target = urlparse(target).path  # drop ?v=... cache busters
            dest = page_path if not target else (page_path.parent / unquote(target)).resolve()
            if target.endswith("/"):
                dest = dest / "index.html"
            result.checked += 1
            where = page_path.relative_to(out).as_posix()
            if not dest.exists():
                result.broken.append(f"{where}: {link} (no file)")
                continue
            if frag and dest.suffix == ".html" and not frag.startswith("position="):
                # (the explorer reads its #position= itself: tests/test_explorer.py)
                ids = parsed[dest].ids if dest in parsed else set()
                if unquote(frag) not in ids:
                    result.broken.append(f"{where}: {link} (no anchor)")
    return result
