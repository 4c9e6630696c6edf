"""The comparison pages as data: one table per comparison, a row per aspect, a column per system.

:func:`comparison_view` turns a :class:`harmony.model.Comparison` into the plain data
its page carries (drawn by :mod:`harmony.site.comparetable`); every cell quotes the
clause cells it names (their text, exactly as the topic pages show it, each linked to
its cell on its topic page) under the summary in our own words, or says the system is
silent, with its note.

>>> from harmony.model import (Cell, Clause, Comparison, ComparisonAspect, ComparisonCell,
...                            Model, Source, Topic)
>>> m = Model(sources={"PB": Source(key="PB", title="PanzerBlitz"), "CP": Source(key="CP", title="CP")},
...           topics={"s": Topic(id="s", title="Spotting")},
...           clauses={"s.a": Clause(id="s.a", topic="s", title="Adjacent", cells={"PB": Cell(
...               source="PB", status="rule", text="An [[adjacent]] unit spots.", clause_id="s.a")})})
>>> c = Comparison(id="c", title="C", systems=["PB", "CP"], aspects=[ComparisonAspect(
...     id="contact", title="Contact", cells={
...     "PB": ComparisonCell(system="PB", refs=["s.a@PB"], summary="Yes."),
...     "CP": ComparisonCell(system="CP", status="not-covered", note="Silent.")})])
>>> v = comparison_view(m, c)
>>> v["doc"], [col["key"] for col in v["columns"]], v["rows"][0]["anchor"]
('comparisons/c', ['PB', 'CP'], 'c.contact')
>>> pb, cp = v["rows"][0]["cells"]
>>> pb["summary"], [(q["anchor"], q["text"], q["topic_title"]) for q in pb["quotes"]]
('Yes.', [('s.a@PB', 'An [[adjacent]] unit spots.', 'Spotting')])
>>> cp["status"], cp["note"], cp["quotes"]
('not-covered', 'Silent.', [])
"""
from __future__ import annotations

from typing import Any

from ..model import Comparison, Model
from .views import cell_view


def comparison_doc(comparison_id: str) -> str:
    return f"comparisons/{comparison_id}"


def comparison_view(model: Model, comparison: Comparison) -> dict:
    """A comparison as its page shows it: columns like a topic's, one row per aspect."""
    columns: list[dict[str, Any]] = []
    for key in comparison.systems:
        src = model.sources.get(key)
        columns.append({"key": key, "label": src.label if src else key,
                        "title": src.title if src else key, "kind": src.kind if src else "canonical",
                        "revision": bool(src and src.is_revision), "base": src.base if src else None})
    rows = []
    for aspect in comparison.aspects:
        cells = []
        for col in columns:
            key = str(col["key"])
            entry = aspect.cells.get(key)
            quotes: list[dict] = []
            for ref in entry.refs if entry is not None else []:
                clause = model.clauses.get(ref.partition("@")[0])
                if clause is None:      # harmony check reports it; the page shows what exists
                    continue
                quote = cell_view(model, clause, key)
                topic = model.topics.get(clause.topic)
                row = topic.aspect(clause.aspect) if topic else None
                quote.update(title=clause.title or (row.title if row else clause.aspect),
                             topic_title=topic.title if topic else clause.topic)
                quotes.append(quote)
            cells.append({"source": key, "label": col["label"], "kind": col["kind"],
                          "revision": col["revision"], "quotes": quotes,
                          "status": "covered" if entry is not None and entry.covered else "not-covered",
                          "summary": entry.summary if entry else None,
                          "note": entry.note if entry else None})
        rows.append({"id": aspect.id, "anchor": f"{comparison.id}.{aspect.id}", "title": aspect.title,
                     "summary": aspect.summary, "cells": cells})
    return {"id": comparison.id, "doc": comparison_doc(comparison.id), "title": comparison.title,
            "summary": comparison.summary, "columns": columns, "rows": rows}


def quoting(comparisons: list[dict], clause_ids: set[str]) -> list[dict]:
    """``{doc, title}`` of each comparison (a :func:`comparison_view`) that quotes one of
    ``clause_ids``: the comparisons a topic page links to.

    >>> quoting([{"doc": "comparisons/c", "title": "C", "rows": [{"cells": [{"quotes": [
    ...     {"clause": "s.a"}]}]}]}], {"s.a", "s.b"})
    [{'doc': 'comparisons/c', 'title': 'C'}]
    """
    return [{"doc": c["doc"], "title": c["title"]} for c in comparisons
            if any(q["clause"] in clause_ids for row in c["rows"] for cell in row["cells"]
                   for q in cell["quotes"])]
