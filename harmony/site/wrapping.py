"""Where a long id may wrap: between its parts, never inside a word.

A clause id, a cell id or a path (``spotting.recording@PL``, ``rules_data/scenarios/``) is
one long "word" to a browser, which may only wrap it at the edge of its box, mid-word, when a
narrow column cannot hold it. Each such literal gets a break opportunity (``<wbr>``, which is
not copied with the text) after each ``.``, ``/`` and ``_`` and before each ``@``, so it
wraps where a reader sees a seam.

>>> parts("spotting.recording@PL")
['spotting.', 'recording', '@PL']
>>> parts("rules_data/scenarios/")
['rules_', 'data/', 'scenarios/']
>>> parts("harmony check"), parts("PB")
(['harmony check'], ['PB'])
"""
from __future__ import annotations

import re

from docutils import nodes

from .nodes import element

#: a literal shorter than this fits any column
SHORT = 12
SEAM = re.compile(r"(?<=[./_])(?=[^./_])|(?<=[^@])(?=@)")


def parts(text: str) -> list[str]:
    """The pieces of ``text`` between its seams (itself when it is short or has spaces)."""
    if len(text) < SHORT or any(c.isspace() for c in text):
        return [text]
    return [p for p in SEAM.split(text) if p]


def add_seams(app, doctree, docname) -> None:
    """``doctree-resolved``: a ``<wbr>`` between the parts of each long literal."""
    for literal in list(doctree.findall(nodes.literal)):
        if len(literal.children) != 1 or not isinstance(literal.children[0], nodes.Text):
            continue
        pieces = parts(literal.astext())
        if len(pieces) < 2:
            continue
        children: list[nodes.Node] = []
        for i, piece in enumerate(pieces):
            if i:
                children.append(element("wbr"))
            children.append(nodes.Text(piece))
        del literal[:]
        literal.extend(children)


def setup(app) -> None:
    app.connect("doctree-resolved", add_seams)
