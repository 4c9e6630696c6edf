"""The theme's sidebar, made once a build instead of once a page.

Furo shows the whole site's table of contents beside every page. For each page it asks
Sphinx for that table (``toctree(collapse=False, titles_only=True, maxdepth=-1,
includehidden=True)``: Sphinx copies and resolves every toctree of the site again), then
parses the HTML with BeautifulSoup to add a checkbox to each entry with entries under it.
For the 64 pages of the shipped rules that was 3.5 s of a 13 s build: a quarter of it.

Yet the tables of two pages differ only in two ways: where their links are relative to,
and which branch leads to the page itself (Sphinx marks it ``current``; Furo then ticks
its checkboxes and marks the last entry of it ``current-page``). So Furo makes the front
page's sidebar once a build (its lookup is answered with the front page's table:
:meth:`_Sidebar.before`), and each page's sidebar is made from that one by moving its
links and marking the page's branch (:func:`for_page`), as Sphinx and Furo would.

The first page each build checks this against Furo's own table, for itself and for the
page deepest in the tables of contents (unless the front page's table is the one checked
last in this process: ``harmony serve``'s previews); on any difference, every page of
that build gets Furo's own (so a change of Furo or Sphinx can cost speed, never a wrong
sidebar). Only the HTML builder with the Furo theme is touched.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from sphinx.util import url_re
from sphinx.util.osutil import relative_uri

#: what Furo asks Sphinx for (furo._compute_navigation_tree)
FURO_ASKS = {"collapse": False, "titles_only": True, "maxdepth": -1, "includehidden": True}

_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>")
_ATTR = re.compile(r'\s([a-zA-Z-]+)="([^"]*)"')
#: elements that have no end tag in the HTML Furo writes
_VOID = {"input", "br", "img", "hr", "meta", "link", "wbr"}


@dataclass
class Tree:
    """A sidebar's HTML cut into its tags and text, with what :func:`for_page` changes:
    each link's ``href`` (relative to the front page) and the elements around it."""
    parts: list[str]
    #: (index of the ``<a>`` in parts, its href, indexes of the ``<li>``/``<ul>`` around it)
    links: list[tuple[int, str, tuple[int, ...]]] = field(default_factory=list)
    #: index of an ``<li>`` -> index of Furo's checkbox in it
    checkbox: dict[int, int] = field(default_factory=dict)


def parse(html: str) -> Tree | None:
    """Cut the sidebar Furo made for the front page; None if it holds anything this module
    does not move as Sphinx would (a link with an ampersand, a quote, or an anchor; an
    element left open or closed twice; an element already marked current).

    >>> t = parse('<ul>\\n<li class="toctree-l1"><a class="reference internal" href="a/b.html">B</a></li>\\n</ul>')
    >>> [(t.parts[i], href, [t.parts[j] for j in around]) for i, href, around in t.links]
    [('<a class="reference internal" href="a/b.html">', 'a/b.html', ['<ul>', '<li class="toctree-l1">'])]
    >>> parse('<ul><li class="current"><a href="x.html">X</a></li></ul>') is None
    True
    >>> parse('<ul><li><a href="x.html#part">X</a></li></ul>') is None
    True
    >>> parse('<ul><li><a href="x.html">X</a></ul>') is None
    True
    >>> parse('</ul>') is None, parse('<ul><li></ul></li>') is None
    (True, True)

    Cut and joined again, it is the same text:

    >>> html = '\\n<ul class="x"><li><input type="checkbox"/>a &amp; b</li></ul>\\n'
    >>> "".join(parse(html).parts) == html
    True
    """
    parts: list[str] = []
    tree = Tree(parts)
    stack: list[tuple[str, int]] = []
    at = 0
    for m in _TAG.finditer(html):
        if m.start() > at:
            parts.append(html[at:m.start()])
        at = m.end()
        closing, name, rest = m.group(1), m.group(2).lower(), m.group(3)
        attrs = dict(_ATTR.findall(rest))
        if "current" in attrs.get("class", "").split() or "'" in rest or "&" in attrs.get("href", ""):
            return None
        parts.append(m.group(0))
        here = len(parts) - 1
        if closing:
            if not stack or stack[-1][0] != name:
                return None
            stack.pop()
            continue
        if name == "a" and "href" in attrs:
            if "#" in attrs["href"]:
                return None
            tree.links.append((here, attrs["href"], tuple(i for n, i in stack if n in ("li", "ul"))))
        if name == "input" and "toctree-checkbox" in attrs.get("class", "").split() and stack \
                and stack[-1][0] == "li":
            tree.checkbox[stack[-1][1]] = here
        if name not in _VOID and not rest.rstrip().endswith("/"):
            stack.append((name, here))
    if html[at:]:
        parts.append(html[at:])
    return None if stack else tree


def _with_class(tag: str, add: str, before: str | None = None, first: bool = False) -> str:
    """``tag`` (the text of a start tag) with class ``add`` put in: first, before the class
    ``before`` when it ends the list, or last; a tag with no class gets one at its end (as
    Furo's HTML has it for Sphinx's lists, which have no other attribute).

    >>> _with_class('<li class="toctree-l1 has-children">', "current", before="has-children")
    '<li class="toctree-l1 current has-children">'
    >>> _with_class('<a class="reference internal" href="x.html">', "current", first=True)
    '<a class="current reference internal" href="x.html">'
    >>> _with_class('<ul>', "current"), _with_class('<hr/>', "current")
    ('<ul class="current">', '<hr class="current"/>')
    """
    m = re.search(r'\sclass="([^"]*)"', tag)
    if m is None:
        return f'{tag[:_end(tag)]} class="{add}"{tag[_end(tag):]}'
    classes = m.group(1).split()
    if first:
        classes.insert(0, add)
    elif before is not None and classes and classes[-1] == before:
        classes.insert(len(classes) - 1, add)
    else:
        classes.append(add)
    return f'{tag[:m.start(1)]}{" ".join(classes)}{tag[m.end(1):]}'


def _end(tag: str) -> int:
    """Where the attributes of a start tag end: before ``/>`` or ``>``."""
    return len(tag) - (2 if tag.endswith("/>") else 1)


def _checked(tag: str) -> str:
    """Furo's checkbox ticked: ``checked=""`` where bs4 (attributes sorted) writes it.

    >>> _checked('<input aria-label="T" class="toctree-checkbox" id="c1"/>')
    '<input aria-label="T" checked="" class="toctree-checkbox" id="c1"/>'
    >>> _checked('<input aria-label="T"/>')
    '<input aria-label="T" checked=""/>'
    """
    m = re.search(r'\s(class|id|name|role|type)="', tag)
    at = m.start() if m else _end(tag)
    return f'{tag[:at]} checked=""{tag[at:]}'


def for_page(tree: Tree, uri: str, relative: Callable[[str, str], str],
             is_url: Callable[[str], bool]) -> str:
    """The sidebar of the page at ``uri`` (its address from the site's top, as Sphinx's
    builder gives it), made from the front page's: each link made relative to the page
    (``relative(base, to)``, Sphinx's ``relative_uri``; a link to the page itself is
    ``#``), and the branch to the page marked as Sphinx marks it (``current`` on the link
    and every list and entry around it) and as Furo then marks it (the branch's checkboxes
    ticked, its last entry ``current-page``). Links to other sites (``is_url``) stay.

    >>> from sphinx.util.osutil import relative_uri
    >>> t = parse('<ul>\\n<li class="toctree-l1 has-children"><a class="reference internal" href="t/index.html">T</a>'
    ...           '\\n<input class="toctree-checkbox" id="c1"/>\\n<ul>\\n'
    ...           '<li class="toctree-l2"><a class="reference internal" href="t/a.html">A</a></li>\\n'
    ...           '</ul></li>\\n<li class="toctree-l1"><a class="reference external" href="https://x.org/">X</a></li>\\n</ul>')
    >>> for line in for_page(t, "t/a.html", relative_uri, lambda h: "://" in h).splitlines():
    ...     print(line)
    <ul class="current">
    <li class="toctree-l1 current has-children"><a class="reference internal" href="index.html">T</a>
    <input checked="" class="toctree-checkbox" id="c1"/>
    <ul class="current">
    <li class="toctree-l2 current current-page"><a class="current reference internal" href="#">A</a></li>
    </ul></li>
    <li class="toctree-l1"><a class="reference external" href="https://x.org/">X</a></li>
    </ul>
    >>> print(for_page(t, "other.html", relative_uri, lambda h: "://" in h).splitlines()[4])
    <li class="toctree-l2"><a class="reference internal" href="t/a.html">A</a></li>
    """
    parts = list(tree.parts)
    current: set[int] = set()
    for i, href, around in tree.links:
        if is_url(href):
            continue
        moved = relative(uri, href) or "#"
        parts[i] = parts[i].replace(f'href="{href}"', f'href="{moved}"')
        if href == uri:
            parts[i] = _with_class(parts[i], "current", first=True)
            current.update(around)
    entries = sorted(i for i in current if tree.parts[i].startswith("<li"))
    for i in sorted(current):
        parts[i] = _with_class(parts[i], "current", before="has-children")
        if i in tree.checkbox:
            parts[tree.checkbox[i]] = _checked(parts[tree.checkbox[i]])
    if entries:
        parts[entries[-1]] = _with_class(parts[entries[-1]], "current-page")
    return "".join(parts)


class _Sidebar:
    """One Sphinx application's sidebars: the front page's table, asked once a build, and
    the last one checked against Furo's with what was found."""

    def __init__(self) -> None:
        #: this build's front page's table (Sphinx's HTML, before Furo's checkboxes)
        self.front = ""
        #: the last front page's table checked, and its sidebar cut (None: Furo's own did not
        #: match, so Furo makes every page): a build whose front page's table is the same
        #: (``harmony serve``'s next preview) is not checked again
        self.checked: tuple[str, Tree | None] | None = None

    def reset(self, *_: Any) -> None:
        self.front = ""

    def _tree(self) -> Tree | None | bool:
        """The front page's sidebar cut, if checked and found right; None if checked and
        found wrong; False if this build's front page's table is not checked yet."""
        return self.checked[1] if self.checked is not None and self.checked[0] == self.front else False

    def before(self, app, pagename: str, templatename: str, context: dict, doctree) -> None:
        """Ahead of Furo (priority 400): Furo's lookup of the table answers with the front
        page's, so that Furo makes (and keeps: it remembers by the HTML) one sidebar."""
        own = context.get("toctree")
        if own is None or not _applies(app):
            return
        if not self.front:
            self.front = app.builder._get_local_toctree(app.config.root_doc, **FURO_ASKS)
        if self._tree() is None:
            return
        front, asked = self.front, [False]

        def toctree(**kwargs):
            if not asked[0] and kwargs == FURO_ASKS:
                asked[0] = True
                return front
            return own(**kwargs)
        context["toctree"] = toctree
        context["_hm_toctree"] = own

    def after(self, app, pagename: str, templatename: str, context: dict, doctree) -> None:
        """After Furo (priority 600): the page's own sidebar in place of the front page's."""
        own = context.pop("_hm_toctree", None)
        if own is None:
            return
        context["toctree"] = own
        made = context.get("furo_navigation_tree")
        if not isinstance(made, str):
            return
        tree = self._tree()
        if tree is False:
            cut = parse(made)
            right = cut is not None and all(
                _page(cut, app, name) == _furo(own if name == pagename else None, app, name)
                for name in (pagename, _deepest(app.env)) if name)
            self.checked = (self.front, cut if right else None)
            tree = self._tree()
        context["furo_navigation_tree"] = (_page(tree, app, pagename) if isinstance(tree, Tree)
                                           else _furo(own, app, pagename))


def _page(tree: Tree, app, pagename: str) -> str:
    """:func:`for_page` for a page of the build."""
    return for_page(tree, app.builder.get_target_uri(pagename), relative_uri,
                    lambda href: url_re.match(href) is not None)


def _applies(app) -> bool:
    """The HTML builder, the Furo theme, a front page at the top of the site."""
    return (app.builder.name == "html" and app.config.html_theme == "furo"
            and "/" not in app.config.root_doc and hasattr(app.builder, "_get_local_toctree"))


def _furo(own, app, pagename: str) -> str:
    """Furo's own sidebar of a page (``own``: the page's toctree function, else Sphinx's
    builder asked for that page)."""
    from furo.navigation import get_navigation_tree  # type: ignore[import-untyped]
    html = own(**FURO_ASKS) if own is not None else app.builder._get_local_toctree(pagename, **FURO_ASKS)
    return get_navigation_tree(html)


def _deepest(env) -> str | None:
    """The page with the most tables of contents above it (in a folder, if one is; the
    first such by name): the first page of a build is checked against Furo's and so is
    this one.

    >>> from types import SimpleNamespace
    >>> _deepest(SimpleNamespace(toctree_includes={"index": ["a", "b/c", "z"], "b/c": ["b/d"],
    ...                                            "a": ["e"], "b/d": ["b/e"]}))
    'b/e'
    >>> _deepest(SimpleNamespace(toctree_includes={"index": ["a", "b/c"]}))
    'b/c'
    >>> _deepest(SimpleNamespace(toctree_includes={"x": ["y"], "y": ["x"]}))   # a loop ends
    'x'
    >>> _deepest(SimpleNamespace(toctree_includes={})) is None
    True
    """
    parents: dict[str, str] = {}
    for parent, children in sorted(env.toctree_includes.items()):
        for child in children:
            parents.setdefault(child, parent)

    def depth(name: str) -> int:
        seen: set[str] = set()
        while name in parents and name not in seen:
            seen.add(name)
            name = parents[name]
        return len(seen)
    return max(sorted(parents), key=lambda n: (depth(n), "/" in n), default=None)


def setup(app) -> None:
    sidebar = _Sidebar()
    app.connect("env-updated", sidebar.reset)
    app.connect("html-page-context", sidebar.before, priority=400)
    app.connect("html-page-context", sidebar.after, priority=600)
