"""The little markup allowed in clause text, and nothing more.

Clause text is data, never markup: renderers escape it and turn only these
marks into links or values.

- ``[[term]]`` or ``[[shown words|term]]`` links a glossary term;
- ``[^id]`` marks a footnote;
- ``{{ name }}`` prints the value of a parameter of the same cell.

>>> [(m.kind, m.target) for m in marks("Units in [[concealing terrain]][^rev-4] at {{ opfire.drm }}")]
[('term', 'concealing terrain'), ('footnote', 'rev-4'), ('param', 'opfire.drm')]
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
                  r"|\{\{\s*(?P<param>[a-z0-9][a-z0-9.-]*)\s*\}\}")


@dataclass(frozen=True)
class Mark:
    kind: str      # term | footnote | param
    target: str    # the term, footnote id or parameter name
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
        else:
            yield Mark("param", m.group("param"), m.group("param"), m.start(), m.end())


def render_value(value: Any, type: str | None = None) -> str:
    """A parameter value as a player reads it (die-roll modifiers carry their sign);
    the rendering of its type in :mod:`harmony.paramtypes`.

    >>> render_value(-1, "modifier"), render_value([], "list"), render_value("whole-move", "enum")
    ('-1', 'none', 'whole-move')
    """
    return paramtypes.render(value, type)


def plain_text(text: str | None, params: dict | None = None, types: dict | None = None) -> str:
    """Text with marks resolved to words: terms and parameters shown, footnote marks dropped.

    >>> plain_text("A [[spotted marker|spotted]] at {{ drm }}[^f]", {"drm": 1}, {"drm": "modifier"})
    'A spotted marker at +1'
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
        last = m.end
    out.append(text[last:])
    return "".join(out)
