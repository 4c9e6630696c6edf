"""The checks ``harmony check`` runs on comparisons (``comparisons:`` in rules_data).

A comparison sets several systems side by side on a few aspects, each cell
showing the text of clause cells (:class:`harmony.model.Comparison`). The
schema gives its shape; these checks what the schema cannot see, each error
at the line and column of the value at fault (code ``comparison``):

- every system is a known source, and each aspect id appears once;
- every aspect has a cell for every system and none for another: a system
  with nothing to say is ``status: not-covered`` with a note, never a gap;
- a cell either quotes clause cells (``from``) or is not covered, not both;
- each ``from`` reference names a clause that exists, and a cell of that
  clause for the column's own system, which has text to show.

>>> from harmony.diagnostics import Report
>>> from harmony.model import (Cell, Clause, Comparison, ComparisonAspect, ComparisonCell,
...                            Model, Source)
>>> m = Model(sources={k: Source(key=k) for k in ("PB", "CP")}, clauses={"s.a": Clause(
...     id="s.a", cells={"PB": Cell(source="PB", status="rule", text="Adjacent units spot.")})})
>>> m.comparisons["c"] = Comparison(id="c", systems=["PB", "CP"], aspects=[ComparisonAspect(
...     id="contact", cells={"PB": ComparisonCell(system="PB", refs=["s.a@PB", "s.b@PB"])})])
>>> r = Report()
>>> check_comparisons(m, r)
>>> for d in r.diagnostics:
...     print(d.message)
comparison 'c', aspect 'contact': no cell for CP; give the clause cells that say it (from: [...]) or status: not-covered with a note
comparison 'c', aspect 'contact', PB: 's.b@PB' names clause 's.b', which does not exist: did you mean 's.a'?
"""  # noqa: E501 (the example's output is one line)
from __future__ import annotations

from .diagnostics import Report
from .model import Comparison, ComparisonAspect, ComparisonCell, Model


def check_comparisons(model: Model, report: Report) -> None:
    """Every comparison's systems, aspects and cell references."""
    for comparison in model.comparisons.values():
        _comparison(model, report, comparison)


def _err(report: Report, pos, message: str) -> None:
    report.error(pos, message, "comparison")


def _comparison(model: Model, report: Report, c: Comparison) -> None:
    for i, key in enumerate(c.systems):
        if key not in model.sources and not report.was_left_out(key):
            _err(report, c.pos("systems", i), f"comparison '{c.id}' names unknown system '{key}' "
                 f"(sources: {', '.join(sorted(model.sources)) or 'none'})")
    seen: set[str] = set()
    for i, aspect in enumerate(c.aspects):
        if aspect.id in seen:
            _err(report, c.pos("aspects", i, "id"), f"comparison '{c.id}': aspect '{aspect.id}' "
                 "appears twice")
        seen.add(aspect.id)
        _aspect(model, report, c, aspect)


def _aspect(model: Model, report: Report, c: Comparison, aspect: ComparisonAspect) -> None:
    where = f"comparison '{c.id}', aspect '{aspect.id}'"
    for key in c.systems:
        if key not in aspect.cells:
            _err(report, aspect.pos("cells", key=True), f"{where}: no cell for {key}; give the clause cells "
                 "that say it (from: [...]) or status: not-covered with a note")
    for key, cell in aspect.cells.items():
        if key not in c.systems:
            _err(report, aspect.pos("cells", key, key=True), f"{where}: a cell for {key}, which is "
                 f"not one of the comparison's systems ({', '.join(c.systems)})")
            continue
        _cell(model, report, f"{where}, {key}", cell)


def _cell(model: Model, report: Report, where: str, cell: ComparisonCell) -> None:
    if not cell.covered and (cell.refs or cell.summary):
        extra = "from" if cell.refs else "summary"
        _err(report, cell.pos(extra, key=True), f"{where}: a not-covered cell shows no clause "
             f"text; remove '{extra}' or the status")
    for i, ref in enumerate(cell.refs):
        clause_id, _, source = ref.partition("@")
        pos = cell.pos("from", i)
        clause = model.clauses.get(clause_id)
        if clause is None:
            if not report.was_left_out(clause_id):
                import difflib     # for an unknown clause only
                near = difflib.get_close_matches(clause_id, list(model.clauses), n=1, cutoff=0.6)
                hint = f": did you mean '{near[0]}'?" if near else ""
                _err(report, pos, f"{where}: '{ref}' names clause '{clause_id}', which does not "
                     f"exist{hint}")
            continue
        if source != cell.system:
            _err(report, pos, f"{where}: '{ref}' is a cell of {source}, not of {cell.system}: "
                 "a column shows its own system's cells")
            continue
        target = clause.cells.get(source)
        if target is None:
            _err(report, pos, f"{where}: clause '{clause_id}' has no cell for {source} (its cells: "
                 f"{', '.join(clause.cells) or 'none'})")
        elif not target.covered or not (target.text or "").strip():
            _err(report, pos, f"{where}: cell '{ref}' is {target.status} and has no text to show; "
                 "name a cell that says it, or make this cell status: not-covered with a note")
