"""Rule coverage: which rule cells an example or a scenario question exercises.

A cell (one rulebook's rule, optional or tournament rule on a row) is
*exercised* when some ruling played under its rulebook names its clause among
its reasons (or a refusal of the engine names it, in an example): the engine's
answer to a scenario question (the scenarios are played once per model and
shared, :func:`harmony.game.played`), or a ruling a clause's doctest
``examples:`` produce (run quietly once per model and shared with the site,
:func:`harmony.examplerun.ran`, recording every ruling, see :func:`example_rulings`). A ruling under a ruleset names the
cell of its clause that the ruleset reads: the source's own cell, else its
base's (REV and DB build on PB).

A cell that nothing exercises is a warning at the cell (``unexercised-cell``)
when it sets engine parameters, whatever it says; a cell without parameters
may instead say why, ``exercised: {none: REASON}`` (pure procedure, no engine
concept yet), and is then listed with its reason. :func:`coverage_of` computes
it, :meth:`Coverage.to_text` and :meth:`Coverage.as_data` show it, and
``harmony check --coverage`` prints it (the site has a page of it).

The examples are the folder's own Python: read with ``--untrusted``
(:class:`~harmony.trust.Trust`), they are not run, and a cell that no scenario
exercises is then ``not-run`` (not known), neither exercised nor warned about.

>>> from harmony.loader import load
>>> from harmony.usage import default_rules_data
>>> model, _ = load(default_rules_data())
>>> cov = coverage_of(model)
>>> row = cov.cell("spotting.spotted", "PB")
>>> row.exercised, row.parameterised
(True, True)
>>> sorted({u.kind for u in row.uses})
['example', 'scenario']
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Iterable

from . import examplerun
from .diagnostics import Pos, Report
from .model import Cell, Model
from .game import played
from .ruleset import base_chain, parse_name
from .rulings import Ruling
from .trust import Trust

#: the statuses whose cells a ruleset plays (and so should be exercised)
PLAYED = ("rule", "optional", "tournament")


@dataclass(frozen=True, order=True)
class Use:
    """One ruling that exercises a cell: a scenario question or a clause's examples."""

    kind: str           # "scenario" | "example"
    id: str             # the scenario id, or the id of the clause whose examples ran
    ruleset: str        # the ruleset played ("PL+opportunity-fire"); "" when not known
    question: str = ""  # the scenario question
    pos: Pos = field(default=Pos(""), compare=False)

    def describe(self) -> str:
        """A few words on the use, for the text report.

        >>> Use("scenario", "rev-figure-1", "REV", "Is the Hetzer spotted?").describe()
        'scenario rev-figure-1 (REV): Is the Hetzer spotted?'
        >>> Use("example", "spotting.rule", "PB").describe()
        'example of spotting.rule (PB)'
        """
        played_as = f" ({self.ruleset})" if self.ruleset else ""
        if self.kind == "scenario":
            return f"scenario {self.id}{played_as}: {self.question}"
        return f"example of {self.id}{played_as}"

    def as_data(self) -> dict:
        return {"kind": self.kind, "id": self.id, "ruleset": self.ruleset,
                "question": self.question, "at": str(self.pos)}


@dataclass
class CellCoverage:
    """One played cell and what exercises it."""

    cell: Cell
    uses: list[Use] = field(default_factory=list)
    #: the clause examples, which might exercise it, were not run (``--untrusted``)
    not_run: bool = False

    @property
    def id(self) -> str:
        return f"{self.cell.clause_id}@{self.cell.source}"

    @property
    def exercised(self) -> bool:
        return bool(self.uses)

    @property
    def parameterised(self) -> bool:
        return bool(self.cell.params)

    @property
    def reason(self) -> str | None:
        """Why nothing exercises it, as the cell says (``exercised: {none: ...}``)."""
        return self.cell.unexercised.none if self.cell.unexercised is not None else None

    @property
    def state(self) -> str:
        """``exercised``, ``reasoned`` (not exercised, with a reason that stands),
        ``not-run`` (no scenario exercises it, and the examples, which might, were not run)
        or ``missing`` (a warning)."""
        if self.exercised:
            return "exercised"
        if self.reason and not self.parameterised:
            return "reasoned"
        return "not-run" if self.not_run else "missing"

    def as_data(self) -> dict:
        return {"cell": self.id, "clause": self.cell.clause_id, "source": self.cell.source,
                "status": self.cell.status, "option": self.cell.option,
                "parameters": sorted(self.cell.params), "state": self.state,
                "reason": self.reason, "at": str(self.cell.pos("status")),
                "uses": [u.as_data() for u in self.uses]}


@dataclass
class Coverage:
    """Every played cell of every source, and what exercises it."""

    #: source key -> its played cells, in file order
    sources: dict[str, list[CellCoverage]] = field(default_factory=dict)
    #: what the coverage was computed with: whether the clause examples ran
    trust: Trust = field(default_factory=Trust)

    def cell(self, clause_id: str, source: str) -> CellCoverage:
        return next(c for c in self.sources.get(source, []) if c.cell.clause_id == clause_id)

    def rows(self) -> Iterable[CellCoverage]:
        for rows in self.sources.values():
            yield from rows

    def within(self, file: str | os.PathLike | None) -> "Coverage":
        """The cells of one file (all of them for ``None``), for ``harmony check FILE``."""
        if file is None:
            return self
        want = os.path.realpath(file)
        out = Coverage({k: [c for c in rows if os.path.realpath(c.cell.file) == want]
                        for k, rows in self.sources.items()}, self.trust)
        out.sources = {k: rows for k, rows in out.sources.items() if rows}
        return out

    def missing(self) -> list[CellCoverage]:
        return [c for c in self.rows() if c.state == "missing"]

    def not_run(self) -> list[CellCoverage]:
        return [c for c in self.rows() if c.state == "not-run"]

    def warn(self, report: Report) -> None:
        """A warning at each cell that nothing exercises and that may not stand unexercised;
        a note counting the cells not known when the examples were not run."""
        unknown = self.not_run()
        if unknown:
            report.notes.append(f"{self.trust.note}: {len(unknown)} rule cell(s) that no scenario "
                                "exercises are not known to be exercised, and not warned about")
        for c in self.missing():
            if c.parameterised:
                why = (f"it sets engine parameters ({', '.join(sorted(c.cell.params))}); add an "
                       "example or a scenario question whose ruling names it")
                if c.reason:
                    why += f" (its reason, '{c.reason}', does not excuse a parameterised cell)"
            else:
                why = ("add an example or a scenario question whose ruling names it, or say why "
                       "not: exercised: {none: REASON}")
            report.warning(c.cell.pos("status"), f"{c.id}: no example or scenario exercises this "
                           f"{c.cell.status} cell: {why}", "unexercised-cell")

    def totals(self, source: str) -> dict[str, int]:
        rows = self.sources.get(source, [])
        states = ("exercised", "reasoned", "missing") + (() if self.trust.runs_code else ("not-run",))
        return {state: sum(1 for c in rows if c.state == state) for state in states}

    def to_text(self) -> str:
        """The report for humans: per source, each cell and what exercises it (or why not)."""
        out = ["Rule coverage: each rule, optional or tournament cell and the ruling that "
               "exercises it", ""]
        if not self.trust.runs_code:
            out[1:1] = [f"The clause examples were {self.trust.mark}: '?' marks a cell that no "
                        "scenario exercises and that they might."]
        for key, rows in self.sources.items():
            t = self.totals(key)
            out.append(f"{key}: {len(rows)} cells, {t['exercised']} exercised, {t['reasoned']} "
                       f"with a reason, {t['missing']} not exercised"
                       + (f", {t['not-run']} not known (examples not run)" if "not-run" in t else ""))
            for c in rows:
                params = f" [{', '.join(sorted(c.cell.params))}]" if c.parameterised else ""
                mark = {"exercised": "+", "reasoned": "=", "missing": "!", "not-run": "?"}[c.state]
                out.append(f"  {mark} {c.id} ({c.cell.status}){params}")
                if c.exercised:
                    for u in c.uses[:3]:
                        out.append(f"      by {u.describe()}")
                    if len(c.uses) > 3:
                        out.append(f"      and {len(c.uses) - 3} more")
                elif c.state == "not-run":
                    out.append(f"      not known: the clause examples were {self.trust.mark} "
                               f"({c.cell.pos('status')})")
                else:
                    out.append(f"      not exercised: {c.reason or 'no reason given'} "
                               f"({c.cell.pos('status')})")
            out.append("")
        missing = self.missing()
        out.append(f"{len(missing)} cell(s) not exercised without a reason that stands"
                   + (f", {sum(1 for c in missing if c.parameterised)} of them parameterised"
                      if missing else ""))
        if not self.trust.runs_code:
            out.append(f"{len(self.not_run())} cell(s) not known: {self.trust.note}")
        return "\n".join(out) + "\n"

    def as_data(self) -> dict:
        return {key: {"totals": self.totals(key), "cells": [c.as_data() for c in rows]}
                for key, rows in self.sources.items()}

    def to_json(self) -> str:
        return json.dumps(self.as_data(), indent=2, sort_keys=True) + "\n"


# ---------------------------------------------------------------- computing
def coverage_of(model: Model, trust: Trust | None = None) -> Coverage:
    """What exercises each played cell of ``model``: its scenarios' rulings (played once
    and shared) and its clauses' examples (run quietly), unless ``trust`` forbids running
    them (``None``: as the environment says, :meth:`Trust.of`). Cached on the model.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> m, _ = load(default_rules_data())
    >>> untrusted = coverage_of(m, Trust(False, "--untrusted"))
    >>> row = untrusted.cell("cp-cavalry.shot-at", "CP")
    >>> row.state, row.uses, coverage_of(m, Trust()).cell("cp-cavalry.shot-at", "CP").state
    ('not-run', [], 'exercised')
    """
    trust = Trust.of() if trust is None else trust
    slot = "_coverage" if trust.runs_code else "_coverage_untrusted"
    cached = model.__dict__.get(slot)
    if cached is not None:
        return cached
    clauses = sorted(model.clauses.values(), key=lambda c: (c.file, c.pos().line, c.id))
    rows: dict[tuple[str, str], CellCoverage] = {}
    cov = Coverage(trust=trust)
    for key in sorted({k for c in clauses for k in c.cells}, key=_source_order(model)):
        cov.sources[key] = []
        for clause in clauses:
            cell = clause.cells.get(key)
            if cell is not None and cell.status in PLAYED:
                rows[(clause.id, key)] = CellCoverage(cell)
                cov.sources[key].append(rows[(clause.id, key)])
        if not cov.sources[key]:
            del cov.sources[key]
    seen: set[tuple[str, str, Use]] = set()   # (clause, source, use): a use counts once a cell
    for use, reasons in _rulings(model, trust.runs_code):
        for cid in reasons:
            for key in _cell_sources(model, cid, use.ruleset):
                row = rows.get((cid, key))
                if row is not None and (cid, key, use) not in seen:
                    seen.add((cid, key, use))
                    row.uses.append(use)
    skipped = not trust.runs_code and any(c.examples for c in clauses)
    for row in rows.values():
        row.uses.sort()
        row.not_run = skipped
    model.__dict__[slot] = cov
    return cov


def check_coverage(model: Model, report: Report, trust: Trust | None = None) -> None:
    """``harmony check --coverage``: the warnings of the coverage of ``model`` (computed once
    per model: :func:`coverage_of` gives the report itself)."""
    coverage_of(model, trust).warn(report)


def _source_order(model: Model):
    keys = list(model.sources)
    return lambda k: (keys.index(k) if k in keys else len(keys), k)


def _cell_sources(model: Model, clause_id: str, ruleset: str) -> list[str]:
    """The source whose cell of ``clause_id`` a ruling under ``ruleset`` names: the
    ruleset's own, else its nearest base's. With no ruleset known (a ruling no game
    gave, such as the Combat Patrol calculator's), the clause's topic must have a
    single column.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> m, _ = load(default_rules_data())
    >>> _cell_sources(m, "spotting.spotted", "REV+concealed-movement"), _cell_sources(m, "spotting.spotted", "")
    (['REV'], [])
    """
    clause = model.clauses.get(clause_id)
    if clause is None:
        return []
    if not ruleset:
        topic = model.topics.get(clause.topic)
        return list(topic.sources) if topic is not None and len(topic.sources) == 1 else []
    for key in base_chain(model, parse_name(ruleset)[0]):
        if key in clause.cells:
            return [key]
    return []


def _rulings(model: Model, run_examples: bool = True) -> list[tuple[Use, list[str]]]:
    """Every ruling that can exercise a cell, with the clauses it names: the answers to
    the scenarios' questions, then (when they may run) the rulings of the clauses'
    examples."""
    out: list[tuple[Use, list[str]]] = []
    for sid in sorted(model.scenarios):
        for row in played(model, sid).rulings:
            if row.actual is not None or row.reasons:
                out.append((Use("scenario", sid, row.ruleset, row.question, row.pos),
                            list(row.reasons)))
    for clause in sorted(model.clauses.values(), key=lambda c: c.id):
        if clause.examples and run_examples:
            done = examplerun.ran(model, clause)
            at = clause.pos("examples")
            for ruleset, ruling in done.rulings:
                if not ruleset:
                    out += _unplayed(model, clause.id, at, ruling, done.rulesets)
                out.append((Use("example", clause.id, ruleset, "", at), list(ruling.reasons)))
    return out


def _unplayed(model: Model, example: str, at: Pos, ruling: Ruling,
              asked: list[str]) -> list[tuple[Use, list[str]]]:
    """The uses of a ruling no game gave (made by hand, or by a scenario transform): it
    still names the clauses that decided it. A clause whose parameter it read (through a
    :class:`~harmony.rulings.Why`) is credited under the source that set it; any other it
    names, under the rulesets the example asked for by name (``rules("ED2")``), else
    under every source with a played cell of it (a topic of one column needs neither)."""
    out: list[tuple[Use, list[str]]] = []
    read = set()
    for s in sorted(ruling.settings.values(), key=lambda s: s.name):
        if s.clause in ruling.reasons and s.source:
            read.add(s.clause)
            out.append((Use("example", example, s.source, "", at), [s.clause]))
    for cid in ruling.reasons:
        clause = model.clauses.get(cid)
        if cid in read or clause is None or _cell_sources(model, cid, ""):
            continue
        names = asked or [k for k, c in clause.cells.items() if c.status in PLAYED]
        out += [(Use("example", example, name, "", at), [cid]) for name in names]
    return out


# ---------------------------------------------------------------- examples
def example_rulings(model: Model, clause) -> list[tuple[str, Ruling]]:
    """The rulings a clause's ``examples:`` produced, run quietly (nothing printed, failures
    ignored: pytest reports them; run once per model, :func:`harmony.examplerun.ran`), each
    with the ruleset it was decided under ("" when the example did not get it from a game).

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> m, _ = load(default_rules_data())
    >>> got = example_rulings(m, m.clauses["spotting.rule"])
    >>> ("PB", ['spotting.rule']) in [(rs, r.reasons) for rs, r in got]
    True
    """
    return examplerun.ran(model, clause).rulings
