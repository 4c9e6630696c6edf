"""The model diff: what changed from one Model to another, as plain data.

:func:`diff_models` says which clauses were added, removed or changed (for a
changed clause, each changed cell: status, option, relation, parameters, the
change record, citations, and a word diff of its text); which topics,
glossary terms, notes, footnotes, parameters and sources were added, removed
or changed (each changed field, prose as a word diff); which scenarios
changed; and (with ``rulings``) which scenario rulings changed
(:mod:`harmony.diff.rulings`).
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from ..model import Cell, Clause, Model
from .plain import jsonable, same
from .rulings import ruling_diff
from .words import changed as text_changed, render, word_diff

#: the fields of a cell compared, in the order they are reported
CELL_FIELDS = ("status", "option", "relation", "params", "text", "card", "note", "cite", "changed",
               "requires")


def cell_fields(cell: Cell | None) -> dict[str, Any]:
    """The compared fields of a cell as plain data (empty for no cell)."""
    if cell is None:
        return {}
    return {
        "status": cell.status,
        "option": cell.option,
        "relation": {"type": cell.relation.type, "clauses": list(cell.relation.clauses)}
        if cell.relation else None,
        "params": dict(sorted(cell.params.items())),
        "text": cell.text,
        "card": {"title": cell.card.title, "text": cell.card.text} if cell.card else None,
        "note": cell.note,
        "cite": [{k: v for k, v in vars(c).items() if k not in ("file", "node") and v is not None}
                 for c in cell.cites],
        "changed": {"version": cell.changed.version, "note": cell.changed.note} if cell.changed else None,
        "requires": list(cell.requires),
    }


def diff_cell(old: Cell | None, new: Cell | None) -> dict | None:
    """The changes of one cell, or None when nothing changed.

    >>> diff_cell(Cell(status="rule", text="fires once"), Cell(status="rule", text="fires twice"))
    {'text': {'old': 'fires once', 'new': 'fires twice', 'diff': 'fires [-once-]{+twice+}'}}
    """
    a, b = cell_fields(old), cell_fields(new)
    out: dict[str, Any] = {}
    for f in CELL_FIELDS:
        va, vb = a.get(f), b.get(f)
        if f in ("text", "note"):
            if not same(va, vb, is_text=True):
                out[f] = {"old": va, "new": vb, "diff": render(word_diff(va, vb))}
        elif f == "params":
            changes = []
            for name in sorted(set(va or {}) | set(vb or {})):
                pa, pb = (va or {}).get(name), (vb or {}).get(name)
                if not same(pa, pb) or (name in (va or {})) != (name in (vb or {})):
                    changes.append({"name": name, "old": jsonable(pa), "new": jsonable(pb),
                                    "added": name not in (va or {}), "removed": name not in (vb or {})})
            if changes:
                out[f] = changes
        elif f == "card":
            if not same(va, vb):
                ta, tb = (va or {}).get("text"), (vb or {}).get("text")
                ha, hb = (va or {}).get("title"), (vb or {}).get("title")
                parts = []
                if text_changed(ha, hb):
                    parts.append(f"title {render(word_diff(ha, hb))}")
                if text_changed(ta, tb):
                    parts.append(("text " if parts else "") + render(word_diff(ta, tb)))
                out[f] = {"old": jsonable(va), "new": jsonable(vb),
                          "diff": "; ".join(parts) or "(layout only)"}
        elif not same(va, vb):
            out[f] = {"old": jsonable(va), "new": jsonable(vb)}
    if old is None or new is None:
        out["presence"] = "added" if old is None else "removed"
    return out or None


def diff_clause(old: Clause, new: Clause) -> dict | None:
    """The changes of one clause (its own fields, then each changed cell), or None."""
    out: dict[str, Any] = {}
    for f in ("topic", "aspect", "title", "examples", "scenarios"):
        va, vb = getattr(old, f), getattr(new, f)
        if not same(va, vb):
            out[f] = {"old": jsonable(va), "new": jsonable(vb)}

    def qa(c: Clause) -> list[dict]:
        return [{"source": q.source, "question": q.question, "answer": q.answer} for q in c.qa]

    if not same(qa(old), qa(new)):
        out["qa"] = {"old": qa(old), "new": qa(new)}
    cells = {}
    for key in sorted(set(old.cells) | set(new.cells)):
        d = diff_cell(old.cells.get(key), new.cells.get(key))
        if d:
            cells[key] = d
    if cells:
        out["cells"] = cells
    return out or None


#: the tables of a model diffed entry by entry, in the order they are reported (the
#: clauses come first, the scenarios last), each with its heading in words
TABLES = {"topics": "Topics", "glossary": "Glossary", "notes": "Notes", "footnotes": "Footnotes",
          "parameters": "Parameters", "sources": "Sources"}
#: every section of a diff beside the clauses, as reported
SECTIONS = (*TABLES, "scenarios")
#: the fields of an entry that hold prose: compared by words, shown as a word diff
PROSE = ("title", "summary", "text", "definition", "description", "note")
#: lists of named parts, diffed part by part (a topic's aspects, a source's documents)
PARTS = {"aspects": "aspect", "documents": "document"}


def _data(value: Any) -> Any:
    """A model value as plain data: a model object as its fields (no position, no empty field)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _data(getattr(value, f.name)) for f in fields(value)
                if f.name not in ("file", "node") and getattr(value, f.name) is not None}
    if isinstance(value, (list, tuple)):
        return [_data(v) for v in value]
    return jsonable(value)


def entry_fields(entry: Any) -> dict[str, Any]:
    """The compared fields of a topic, term, note, footnote, parameter or source, by name;
    named parts as ``PART ID FIELD``.

    >>> from harmony.model import Aspect, Topic
    >>> entry_fields(Topic(id="fire", title="Fire", aspects=[Aspect(id="rule", title="Rule")]))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'id': 'fire', 'title': 'Fire', 'summary': '', 'order': 0, 'sources': [],
     'aspect rule title': 'Rule', 'aspect rule summary': None}
    """
    out: dict[str, Any] = {}
    for f in fields(entry):
        if f.name in ("file", "node"):
            continue
        value = getattr(entry, f.name)
        if f.name in PARTS:
            for part in value:
                for name, v in entry_fields(part).items():
                    if name != "id":
                        out[f"{PARTS[f.name]} {part.id} {name}"] = v
        else:
            out[f.name] = _data(value)
    return out


def diff_fields(a: dict[str, Any], b: dict[str, Any]) -> dict[str, dict]:
    """The changed fields of two entries: ``{"old", "new"}``, with a word ``diff`` for prose.

    >>> diff_fields({"definition": "fired on", "order": 1}, {"definition": "fired  on", "order": 2})
    {'order': {'old': 1, 'new': 2}}
    >>> diff_fields({"title": "Moving"}, {"title": "Moving units"})
    {'title': {'old': 'Moving', 'new': 'Moving units', 'diff': 'Moving {+units+}'}}
    """
    out: dict[str, dict] = {}
    for f in [*a, *(k for k in b if k not in a)]:
        va, vb = a.get(f), b.get(f)
        prose = f.rsplit(" ", 1)[-1] in PROSE and all(v is None or isinstance(v, str) for v in (va, vb))
        if prose:
            if not same(va, vb, is_text=True):
                out[f] = {"old": va, "new": vb, "diff": render(word_diff(va, vb))}
        elif not same(va, vb):
            out[f] = {"old": jsonable(va), "new": jsonable(vb)}
    return out


def _table_diff(old: dict, new: dict) -> dict:
    out: dict[str, Any] = {"added": sorted(set(new) - set(old)), "removed": sorted(set(old) - set(new)),
                           "changed": {}}
    for k in sorted(set(old) & set(new)):
        ch = diff_fields(entry_fields(old[k]), entry_fields(new[k]))
        if ch:
            out["changed"][k] = ch
    return out


def diff_models(old: Model, new: Model, rulings: bool = True) -> dict:
    """Everything that changed from ``old`` to ``new``, as plain data (see the module doc).

    >>> d = diff_models(Model(), Model(), rulings=False)
    >>> d["clauses"], is_empty(d)
    ({'added': [], 'removed': [], 'changed': {}}, True)
    """
    clauses: dict[str, Any] = {"added": sorted(set(new.clauses) - set(old.clauses)),
                               "removed": sorted(set(old.clauses) - set(new.clauses)), "changed": {}}
    for cid in sorted(set(old.clauses) & set(new.clauses)):
        d = diff_clause(old.clauses[cid], new.clauses[cid])
        if d:
            clauses["changed"][cid] = d
    out: dict[str, Any] = {
        "clauses": clauses,
        **{t: _table_diff(getattr(old, t), getattr(new, t)) for t in TABLES},
        "scenarios": {"added": sorted(set(new.scenarios) - set(old.scenarios)),
                      "removed": sorted(set(old.scenarios) - set(new.scenarios)),
                      "changed": sorted(s for s in set(old.scenarios) & set(new.scenarios)
                                        if not same(old.scenarios[s].data, new.scenarios[s].data))},
    }
    if rulings:
        out["rulings"], out["engine"] = ruling_diff(old, new, clauses)
        assumed = sorted(set(new.parameters) - set(old.parameters))
        if assumed:
            out["assumed"] = {"side": "old", "parameters": assumed,
                              "why": "declared only on the new side; the old side was played "
                                     "with their new declarations (defaults), as if it had said "
                                     "nothing of them"}
    return out


def is_empty(d: dict) -> bool:
    """True when a diff of :func:`diff_models` holds no change at all."""
    c = d["clauses"]
    return not (c["added"] or c["removed"] or c["changed"] or d.get("rulings")
                or any(d[k]["added"] or d[k]["removed"] or d[k]["changed"]
                       for k in SECTIONS))
