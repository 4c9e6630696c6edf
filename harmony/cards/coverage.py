"""Is every rule a player needs on a card? The ``harmony check`` of card coverage.

In every ruleset that prints cards (one that has at least one card), each
cell whose status is ``rule``, ``optional`` or ``tournament`` either has a
card (``card: {title, text}``) or says why not (``card: {none: REASON}``,
with ``see: CLAUSE`` when another card of the same ruleset carries the
rule). A cell with neither is a warning (``card-missing``): the deck would
silently leave a rule out. A ``see:`` that names no clause, or a clause
whose cell of that ruleset has no card, is an error (``card-see``).

>>> from harmony.model import Card, Cell, Clause, Model, NoCard
>>> def clause(cid, **cells):
...     return Clause(id=cid, cells={k: Cell(source=k, status="rule", clause_id=cid, **v)
...                                  for k, v in cells.items()})
>>> m = Model(clauses={"a": clause("a", X={"card": Card(title="A", text="a")}),
...                    "b": clause("b", X={}),
...                    "c": clause("c", X={"no_card": NoCard(none="On card A.", see="a")}),
...                    "d": clause("d", Y={})})
>>> [(cell.clause_id, cell.source) for cell in uncovered(m)]
[('b', 'X')]
"""
from __future__ import annotations

from collections.abc import Iterator

from ..diagnostics import Report
from ..model import Cell, Model

#: Statuses whose cells a player needs at the table.
PRINTED_STATUSES = ("rule", "optional", "tournament")


def printing_rulesets(model: Model) -> set[str]:
    """The rulesets with at least one card."""
    return {k for c in model.clauses.values() for k, cell in c.cells.items()
            if cell is not None and cell.card is not None}


def uncovered(model: Model) -> Iterator[Cell]:
    """The cells of printing rulesets that need a card and have neither a card nor
    ``card: {none: ...}``, in clause order."""
    printing = printing_rulesets(model)
    for clause in model.clauses.values():
        for key, cell in clause.cells.items():
            if (key in printing and cell is not None and cell.status in PRINTED_STATUSES
                    and cell.card is None and cell.no_card is None):
                yield cell


def check_coverage(model: Model, report: Report) -> None:
    """``harmony check``: warn on a rule cell of a printing ruleset with no card and no reason."""
    for cell in uncovered(model):
        report.warning(cell.pos("status"),
                       f"{cell.clause_id}@{cell.source} is a {cell.status} cell of a ruleset "
                       f"that prints cards, but has no card: add card: {{title, text}}, or "
                       f"card: {{none: why it has none}}", "card-missing")
    for clause in model.clauses.values():
        for key, cell in clause.cells.items():
            none = cell.no_card if cell is not None else None
            see = none.see if none is not None else None
            if none is None or see is None:
                continue
            target = model.clauses.get(see)
            pos = none.pos("see")
            if target is None:
                report.error(pos, f"card: see: {see} names no clause", "card-see")
            elif target.cells.get(key) is None or target.cells[key].card is None:
                report.error(pos, f"card: see: {see}@{key} has no card to carry this rule",
                             "card-see")
