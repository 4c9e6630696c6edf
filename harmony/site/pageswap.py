"""Which parts of an open page a rebuild changed, so that ``harmony serve`` can swap them in
instead of reloading the page.

A page's main content (the element with ``role="main"``) is read as a tree of the elements
that carry an ``id``. :func:`changed_parts` compares the page a browser shows with the page
a rebuild wrote, top down: an element whose bytes did not change is left alone; one whose
own bytes changed only inside its id-carrying descendants is left, and those descendants
are looked at in turn; any other changed element is swapped whole (its attributes and its
children, the element itself kept). If anything changed outside those elements (the
sidebar, the page's title, the main content's own tags), or the pages cannot be read this
way, there is no answer: the page reloads. So does a page whose main content holds a
``<script>``: a script swapped in does not run, and one that ran may hold on to what
would be swapped (the explorer's page).

The answer is checked: the old page with each swapped element's bytes replaced by the new
page's is the new page, byte for byte. So a browser that swaps them shows what a reload
would show.

>>> old = b'<body><main role="main"><p id="a">one</p><p id="b">two <b id="c">x</b></p></main></body>'
>>> changed_parts(old, old.replace(b"one", b"uno"))
['a']
>>> changed_parts(old, old.replace(b">x<", b">y<")), changed_parts(old, old.replace(b"two", b"dos"))
(['c'], ['b'])
>>> print(changed_parts(old, old.replace(b"<body>", b"<body class=x>")))
None
>>> changed_parts(old, old)
[]
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

#: elements that have no end tag
VOID = frozenset({b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
                  b"param", b"source", b"track", b"wbr"})
#: elements whose text is read raw, up to their end tag
RAW = frozenset({b"script", b"style", b"textarea"})

#: a start or end tag, or a doctype, at a ``<``: nothing in it holds a ``<`` (a page's writer
#: escapes it in attribute values), and no quantifier gives back what it took, so reading a
#: page is linear in its length whatever it holds
_TAG = re.compile(rb"""<(?:(/?)([A-Za-z][A-Za-z0-9:-]*+)"""
                  rb"""((?:\s++[^\s"'<>/=]++(?:\s*+=\s*+(?:"[^"<]*+"|'[^'<]*+'|[^\s"'<>]++))?+)*+)\s*+(/?)>"""
                  rb"""|![^<>]*+>)""")
#: one attribute of a start tag: its name and its value (quoted or bare)
_ATTR = re.compile(rb"""\s++([^\s"'<>/=]++)(?:\s*+=\s*+(?:"([^"]*+)"|'([^']*+)'|([^\s"'<>]++)))?+""")


#: a quick look for an attribute's name among a start tag's attributes (then read them)
_NAMED = {name: re.compile(rb"\s" + name + rb"\b", re.I) for name in (b"id", b"role")}


def _attribute(attrs: bytes, name: bytes) -> str | None:
    """The value of attribute ``name`` (lower case) among a start tag's ``attrs``, if it has it.

    >>> _attribute(b" title='see id=x' ID='a&#64;b'", b"id"), _attribute(b' id="" role=main', b"role")
    ('a@b', 'main')
    >>> _attribute(b' data-id="x"', b"id"), _attribute(b" hidden id", b"id")
    (None, '')
    """
    if not _NAMED[name].search(attrs):       # (most tags: no such attribute, nothing to read)
        return None
    for m in _ATTR.finditer(attrs):
        if m.group(1).lower() == name:
            value = next((v for v in m.group(2, 3, 4) if v is not None), b"")
            return html.unescape(value.decode("utf-8", "replace"))
    return None


@dataclass
class Part:
    """An element with an ``id`` (or the page itself: ``id`` None): where it starts and ends
    in the page's bytes, its tag, and the id-carrying elements directly inside it (for the
    page: whether its main content holds a script)."""

    id: str | None
    tag: bytes
    start: int
    end: int = -1
    parts: list[Part] = field(default_factory=list)
    scripted: bool = False


def parts(page: bytes) -> Part | None:
    """The tree of ``page``'s id-carrying elements inside its main content (each id once in
    the page), under a root that is the whole page; None if the page's tags do not nest
    (a stray end tag) or it has no main content.

    >>> root = parts(b'<div role="main"><p id="a">1<br>2</p><svg><path id="b" d="M0"/></svg></div>')
    >>> [(p.id, p.tag, p.start, p.end) for p in root.parts]
    [('a', b'p', 17, 37), ('b', b'path', 42, 63)]
    >>> print(parts(b'<div role="main"><p id="a"></div></p>'))
    None
    """
    stack: list[tuple[bytes, Part | None]] = []        # open elements, and the part each is
    root = Part(None, b"", 0, len(page))
    open_parts: list[Part] = [root]
    main: int | None = None                            # where in the stack the main content is
    ended = False                                      # (its end tag read)
    seen: dict[str, int] = {}
    pos = 0
    while True:
        at = page.find(b"<", pos)
        if at < 0:
            break
        if page.startswith(b"<!--", at):               # a comment
            end = page.find(b"-->", at + 4)
            if end < 0:
                return None
            pos = end + 3
            continue
        m = _TAG.match(page, at)
        if m is None:                                  # a "<" in the text
            pos = at + 1
            continue
        pos = m.end()
        name = m.group(2)
        if name is None:                               # a doctype
            continue
        name = name.lower()
        if m.group(1):                                 # an end tag
            if not stack or stack[-1][0] != name:
                return None
            _, part = stack.pop()
            if part is not None:
                part.end = pos
                open_parts.pop()
            if main is not None and len(stack) == main:
                ended = True
            continue
        attrs = m.group(3)
        part = None
        if main is not None and not ended:
            ident = _attribute(attrs, b"id")
            if ident:                                  # (an empty id names nothing)
                seen[ident] = seen.get(ident, 0) + 1
                part = Part(ident, name, m.start())
        elif main is None and _attribute(attrs, b"role") == "main" and name not in VOID and not m.group(4):
            main = len(stack)
        if name in VOID or m.group(4):
            if part is not None:
                part.end = pos
                open_parts[-1].parts.append(part)
            continue
        if name in RAW:                                # its text, up to its end tag, is not markup
            root.scripted |= name == b"script" and main is not None and not ended
            close = re.compile(rb"</" + name + rb"\s*>", re.I).search(page, pos)
            if close is None:
                return None
            if part is not None:
                part.end = close.end()
                open_parts[-1].parts.append(part)
            pos = close.end()
            continue
        if part is not None:
            open_parts[-1].parts.append(part)
            open_parts.append(part)
        stack.append((name, part))
    if stack or main is None:
        return None
    twice = {ident for ident, n in seen.items() if n > 1}
    return _without(root, twice) if twice else root


def _without(part: Part, ids: set[str]) -> Part:
    """``part`` with the parts whose id is in ``ids`` read as plain markup of their parent."""
    inner: list[Part] = []
    for p in part.parts:
        p = _without(p, ids)
        inner.extend(p.parts if p.id in ids else [p])
    part.parts = inner
    return part


def _skeleton(page: bytes, part: Part) -> bytes:
    """The bytes of ``part`` with each part directly inside it replaced by its tag and id."""
    out, at = [], part.start
    for p in part.parts:
        out += [page[at:p.start], b"\0", p.tag, b"#", (p.id or "").encode(), b"\0"]
        at = p.end
    out.append(page[at:part.end])
    return b"".join(out)


def _changed(old: bytes, a: Part, new: bytes, b: Part, found: list[Part]) -> bool:
    """Add to ``found`` the parts of ``b`` to swap for ``a`` to become ``b``; False if ``a``
    must be swapped whole."""
    if old[a.start:a.end] == new[b.start:b.end]:
        return True
    if _skeleton(old, a) != _skeleton(new, b):
        return False
    for pa, pb in zip(a.parts, b.parts):
        if not _changed(old, pa, new, pb, found):
            found.append(pb)
    return True


def changed_parts(old: bytes, new: bytes) -> list[str] | None:
    """The ids of the elements of page ``new`` whose attributes and children, put in place of
    those of page ``old``'s elements of the same ids, make ``new`` of ``old``; None if a
    change lies outside such elements, or they nest deeper than Python recurses (then the
    page must be loaded again)."""
    try:
        return _changed_parts(old, new)
    except RecursionError:
        return None


def _changed_parts(old: bytes, new: bytes) -> list[str] | None:
    a, b = parts(old), parts(new)
    if a is None or b is None:
        return None
    found: list[Part] = []
    if not _changed(old, a, new, b, found) or (found and (a.scripted or b.scripted)):
        return None
    # the check: the old page with each found element's bytes replaced is the new page
    olds = {p.id: p for p in _walk(a)}
    out, at = [], 0
    for p in sorted(found, key=lambda p: p.start):
        q = olds[p.id]
        out += [old[at:q.start], new[p.start:p.end]]
        at = q.end
    out.append(old[at:])
    if b"".join(out) != new:
        return None
    return [p.id for p in found if p.id is not None]


def _walk(part: Part):
    for p in part.parts:
        yield p
        yield from _walk(p)
