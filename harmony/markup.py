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

MARK = re.compile(r"\[\[(?P<term>[^\]|]+?)(?:\|(?P<target>[^\]]+?))?\]\]"
                  r"|\[\^(?P<fn>[a-z0-9][a-z0-9.-]*)\]"
                  r"|\{\{\s*(?P<param>[a-z0-9][a-z0-9.-]*)\s*\}\}"
                  r"|\{\{\s*table:(?P<table>[a-z0-9][a-z0-9.-]*/[a-z0-9][a-z0-9.-]*"
                  r"/[a-z0-9][a-z0-9.-]*)\s*\}\}")


@dataclass(frozen=True)
class Mark:
    kind: str      # term | footnote | param | table
    target: str    # the term, footnote id, parameter name or TABLE/ROW/COLUMN
    shown: str     # the words to show
    start: int
    end: int


def marks(text: str | None) -> list[Mark]:
    return list(iter_marks(text or ""))


def iter_marks(text: str) -> Iterator[Mark]:
    for m in MARK.finditer(text):
        if m.group("term"):
            target = (m.group("target") or m.group("term")).strip()
            yield Mark("term", target, m.group("term").strip(), m.start(), m.end())
        elif m.group("fn"):
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
