"""The little markup allowed in clause text, and nothing more.

Clause text is data, never markup: renderers escape it and turn only these
marks into links or values.

- ``[[term]]`` or ``[[shown words|term]]`` links a glossary term;
- ``[^id]`` marks a footnote;
- ``{{ name }}`` prints the value of a parameter of the same cell;
- ``{{ table:ID/ROW/COLUMN }}`` prints one cell of a table (with its unit),
  so that prose never states a number the table does not hold.

>>> [(m.kind, m.target) for m in marks("Units in [[concealing terrain]][^rev-4] at {{ opfire.drm }}")]
[('term', 'concealing terrain'), ('footnote', 'rev-4'), ('param', 'opfire.drm')]
>>> [(m.kind, m.target) for m in marks("see {{ table:cp-night-sighting/naked-eye/no-moon }}")]
[('table', 'cp-night-sighting/naked-eye/no-moon')]
>>> render_value("1/2"), render_value(True), render_value(1, "modifier"), render_value(["C"])
('1/2', 'yes', '+1', 'C')
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

from . import paramtypes

#: every mark but a glossary link, tried where a mark starts: none of them reaches past the next
#: ``[`` or ``{``, so trying them at every start reads the text once
OTHER = re.compile(r"\[\^(?P<fn>[a-z0-9][a-z0-9.-]*)\]"
                   r"|\{\{\s*(?P<param>[a-z0-9][a-z0-9.-]*)\s*\}\}"
                   r"|\{\{\s*table:(?P<table>[a-z0-9][a-z0-9.-]*/[a-z0-9][a-z0-9.-]*"
                   r"/[a-z0-9][a-z0-9.-]*)\s*\}\}")
#: where a mark may start
START = re.compile(r"\[\[|\[\^|\{\{")
#: the marks as one expression, the definition :func:`iter_marks` follows (it reads glossary links
#: by hand: this expression's ``[^\]|]+?`` runs past every ``[[`` to the next ``]`` or ``|``, so
#: 20,000 ``[[`` and no ``]]`` took it minutes)
MARK = re.compile(r"\[\[(?P<term>[^\]|]+?)(?:\|(?P<target>[^\]]+?))?\]\]|" + OTHER.pattern)


@dataclass(frozen=True)
class Mark:
    """A mark in a text: a glossary link, a footnote, a parameter or a table cell, and where."""

    kind: str      # term | footnote | param | table
    target: str    # the term, footnote id, parameter name or TABLE/ROW/COLUMN
    shown: str     # the words to show
    start: int
    end: int


def marks(text: str | None) -> list[Mark]:
    return list(iter_marks(text or ""))


#: what ends a link's words (:func:`_link`), and what ends its target
_STOP, _CLOSE = re.compile(r"[\]|]"), re.compile(r"\]")


class _Next:
    """The first index at or after ``i`` of a character of ``chars`` in ``text`` (-1 for none),
    remembering the last answer: asked at positions that never go back, the text is read once."""

    def __init__(self, text: str, pattern: re.Pattern):
        self.text, self.pattern = text, pattern
        self.asked, self.found = -1, -1

    def __call__(self, i: int) -> int:
        if not (self.asked <= i and (self.found == -1 or self.found >= i)) or self.asked < 0:
            m = self.pattern.search(self.text, i)
            self.asked, self.found = i, m.start() if m else -1
        return self.found


def _link(text: str, i: int, stop, close) -> tuple[str, str | None, int] | None:
    """The glossary link ``[[term]]`` or ``[[shown|term]]`` starting at ``i`` as :data:`MARK`
    reads it (its words, the target, its end), or None. The words stop at the first ``]`` or
    ``|``; a target, at the first ``]``; each must be followed by ``]]``."""
    k = stop(i + 2)
    if k <= i + 2:
        return None
    if text[k] == "]":
        return (text[i + 2:k], None, k + 2) if text.startswith("]", k + 1) else None
    m = close(k + 1)
    if m > k + 1 and text.startswith("]", m + 1):
        return text[i + 2:k], text[k + 1:m], m + 2
    return None


def iter_marks(text: str) -> Iterator[Mark]:
    """The marks of ``text`` in order, as :data:`MARK` finds them, in one pass over the text
    (never a second look past the next mark's start, whatever the text holds).

    >>> [(m.kind, m.target, m.shown) for m in iter_marks("[[a [b|c]] [[x]]] [[ [[y]] {{ z }}")]
    [('term', 'c', 'a [b'), ('term', 'x', 'x'), ('term', '[[y', '[[y'), ('param', 'z', 'z')]
    """
    stop, close = _Next(text, _STOP), _Next(text, _CLOSE)
    pos = 0
    while True:
        start = START.search(text, pos)
        if start is None:
            return
        i = start.start()
        if text.startswith("[[", i):
            link = _link(text, i, stop, close)
            if link is not None:
                words, target, end = link
                yield Mark("term", (target or words).strip(), words.strip(), i, end)
                pos = end
            else:
                pos = i + 1
            continue
        m = OTHER.match(text, i)
        if m is None:
            pos = i + 1
            continue
        pos = m.end()
        if m.group("fn"):
            yield Mark("footnote", m.group("fn"), m.group("fn"), m.start(), m.end())
        elif m.group("table"):
            yield Mark("table", m.group("table"), m.group("table"), m.start(), m.end())
        else:
            yield Mark("param", m.group("param"), m.group("param"), m.start(), m.end())


def render_value(value: Any, type: str | None = None) -> str:
    """A parameter value as a player reads it (die-roll modifiers carry their sign);
    the rendering of its type in :mod:`harmony.paramtypes`.

    >>> render_value(-1, "modifier"), render_value([], "list"), render_value("whole-move", "enum")
    ('-1', 'none', 'whole-move')
    """
    return paramtypes.render(value, type)


def table_cell(target: str, tables: dict | None) -> str | None:
    """The words a table mark's target ``TABLE/ROW/COLUMN`` prints, or None when it
    does not resolve (``tables`` maps ids to :class:`harmony.model.Table`)."""
    table_id, row, column = target.split("/")
    table = (tables or {}).get(table_id)
    try:
        return table.shown(row, column) if table is not None else None
    except KeyError:
        return None


def plain_text(text: str | None, params: dict | None = None, types: dict | None = None,
               tables: dict | None = None) -> str:
    """Text with marks resolved to words: terms, parameters and table cells shown, footnote
    marks dropped.

    >>> plain_text("A [[spotted marker|spotted]] at {{ drm }}[^f]", {"drm": 1}, {"drm": "modifier"})
    'A spotted marker at +1'
    >>> from harmony.model import Table, TableColumn
    >>> t = Table(id="t", columns=[TableColumn(id="k", type="key"), TableColumn(id="v", type="int",
    ...           unit="inches")], rows=[{"k": "a", "v": 6}])
    >>> plain_text("sees {{ table:t/a/v }}", tables={"t": t})
    'sees 6 inches'
    """
    params, types = params or {}, types or {}
    out, last = [], 0
    text = text or ""
    for m in iter_marks(text):
        out.append(text[last:m.start])
        if m.kind == "term":
            out.append(m.shown)
        elif m.kind == "param":
            out.append(render_value(params[m.target], types.get(m.target)) if m.target in params else m.shown)
        elif m.kind == "table":
            out.append(table_cell(m.target, tables) or m.shown)
        last = m.end
    out.append(text[last:])
    return "".join(out)
