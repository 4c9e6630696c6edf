"""A clause's examples, run once: each doctest line beside what it printed, the rulings
they made and the positions they set up.

A clause's ``examples:`` are prose and doctest lines (``>>>``), which pytest checks
(:mod:`harmony.pytest_plugin`). :func:`read` splits them into parts, a run of prose or
a run of lines, without running anything. :func:`ran` runs them, once per model, in the
names of the clause's game (:func:`harmony.game.example_namespace`), with the checks
pytest makes (:data:`FLAGS`), and keeps, for each line, what it printed and whether that
is what the line expects; the rulings the games they played returned (for the coverage
report, :mod:`harmony.coverage`); and, when the game draws them
(:attr:`harmony.game.Game.draw_positions`), a figure of each position they set up,
placed after the part whose line set it up. The site shows it on the clause's row.

The examples are the folder's own Python: only a caller that may run them
(:class:`harmony.trust.Trust`) calls :func:`ran`; the others show :func:`read`.

>>> from harmony.loader import load
>>> from harmony.usage import default_rules_data
>>> m, _ = load(default_rules_data())
>>> shown = read(m.clauses["spotting.spotted"])
>>> [p.kind for p in shown.parts][:4], shown.ran, shown.parts[0].text
(['prose', 'code', 'prose', 'code'], False, 'An adjacent enemy unit spots a unit in woods under every rulebook.')
>>> done = ran(m, m.clauses["spotting.spotted"])
>>> done.ran, done.failed, done is ran(m, m.clauses["spotting.spotted"])
(True, [], True)
>>> line = done.parts[1].lines[0]
>>> line.shown.split("(")[0], line.ok, line.got == line.want, len(done.parts[1].figures)
('>>> next_to_it = position', True, True, 1)
"""
from __future__ import annotations

import builtins
import doctest
import inspect
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .game import ScenarioResult, clause_game, example_namespace
from .model import Model
from .rulings import Ruling

#: How a line's output is compared with what it expects: as pytest checks it.
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass
class Line:
    """One doctest line (an example: its source may span ``...`` lines)."""

    source: str
    #: the output the examples expect, as written (what pytest checks)
    want: str
    #: the line of the examples' text it starts on (0-based)
    lineno: int = 0
    #: what it printed when run (None: not run)
    got: str | None = None
    #: whether ``got`` is what it expects, as pytest checks it (None: not run)
    ok: bool | None = None

    @property
    def shown(self) -> str:
        """The source as written, with its prompts.

        >>> Line("for r in 'A', 'B':\\n    print(r)\\n", "A\\nB\\n").shown.split("\\n")
        [">>> for r in 'A', 'B':", '...     print(r)']
        """
        first, *rest = self.source.rstrip("\n").split("\n")
        return "\n".join([f">>> {first}"] + [f"... {line}" for line in rest])


@dataclass
class Part:
    """A run of prose (``text``) or of doctest lines (``lines``), and the figures of the
    positions its lines set up (the game's, :attr:`harmony.game.Game.draw_positions`)."""

    text: str = ""
    lines: list[Line] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "code" if self.lines else "prose"


@dataclass
class Transcript:
    """A clause's examples in parts, and what running them gave (when they ran)."""

    clause: str
    parts: list[Part] = field(default_factory=list)
    ran: bool = False
    #: the rulings they made, each with the ruleset it was decided under ("" unknown)
    rulings: list[tuple[str, Ruling]] = field(default_factory=list)
    #: the rulesets they asked for by name (``rules("ED2")``)
    rulesets: list[str] = field(default_factory=list)
    #: why they could not run, when they could not (their lines could not be read, their
    #: game could not be found)
    why: str = ""

    def lines(self) -> Iterable[Line]:
        for part in self.parts:
            yield from part.lines

    @property
    def failed(self) -> list[Line]:
        """The lines whose output was not what they expect."""
        return [line for line in self.lines() if line.ok is False]

    @property
    def figures(self) -> list[dict]:
        return [f for part in self.parts for f in part.figures]


def _parse(clause) -> tuple[Transcript, list[tuple[doctest.Example, Line, Part]]]:
    """The parts of a clause's examples, and each doctest example with its line and part."""
    out = Transcript(clause.id)
    examples: list[tuple[doctest.Example, Line, Part]] = []
    try:
        pieces = doctest.DocTestParser().parse(clause.examples or "", clause.id)
    except ValueError as e:     # '>>>x', a line less indented than its '>>>': pytest says where
        out.parts.append(Part(text=clause.examples or ""))
        out.why = f"their lines could not be read: {e}"
        return out, examples
    for piece in pieces:
        if isinstance(piece, doctest.Example):
            if not out.parts or out.parts[-1].kind != "code":
                out.parts.append(Part())
            line = Line(piece.source, piece.want, piece.lineno)
            out.parts[-1].lines.append(line)
            examples.append((piece, line, out.parts[-1]))
        elif piece.strip():
            out.parts.append(Part(text=piece.strip()))
    return out, examples


def read(clause) -> Transcript:
    """A clause's examples in parts, not run (examples whose lines cannot be read are one
    part of prose, and ``why`` says so).

    >>> from harmony.model import Clause
    >>> bad = read(Clause(id="c", examples="Two.\\n\\n>>>1 + 1\\n2\\n"))
    >>> [p.kind for p in bad.parts], bad.why
    (['prose'], "their lines could not be read: line 3 of the docstring for c lacks blank after >>>: '>>>1 + 1'")
    """
    return _parse(clause)[0]


def ran(model: Model, clause) -> Transcript:
    """A clause's examples in parts, run (once per model and shared: the site shows them,
    the coverage report counts their rulings). A failing line is kept, never raised:
    pytest reports it."""
    cache = model.__dict__.setdefault("_examples_ran", {})
    if clause.id not in cache:
        cache[clause.id] = _run(model, clause)
    return cache[clause.id]


# ---------------------------------------------------------------- the rulings they make
class Recorder:
    """The rulings an example produced: those the games it played returned (with their
    ruleset), and those it showed or kept in a name (ruleset unknown); and the rulesets
    it asked for by name (``rules("ED2")``)."""

    def __init__(self, rulings_in: Callable[[Any], Iterable[Any] | None] | None = None) -> None:
        self.rulings: list[tuple[str, Ruling]] = []
        self.rulesets: list[str] = []
        self._seen: set[int] = set()
        self._rulings_in = rulings_in

    def add(self, ruleset: str, value: Any, depth: int = 0) -> None:
        if isinstance(value, Ruling):
            if id(value) not in self._seen:
                self._seen.add(id(value))
                self.rulings.append((ruleset, value))
        elif depth < 3 and isinstance(value, (list, tuple)):
            for v in value:
                self.add(ruleset, v, depth + 1)
        elif depth < 3 and isinstance(value, dict):
            for v in value.values():
                self.add(ruleset, v, depth + 1)
        elif depth < 3 and isinstance(value, ScenarioResult):
            for row in value.rulings:            # a ScenarioResult an example played
                if row.reasons:
                    self.add(row.ruleset, Ruling(row.actual, list(row.reasons)), depth + 1)
        elif depth < 3 and self._rulings_in is not None:
            held = self._rulings_in(value)       # what a value of the game holds
            for v in held or ():
                self.add(ruleset, v, depth + 1)


def _noting(function: Callable, recorder: Recorder) -> Callable:
    def call(*args, **kwargs):
        result = function(*args, **kwargs)
        recorder.add("", result)
        return result
    return call


def figure_prefix(clause_id: str) -> str:
    """What the ids inside the figures of a clause's examples start with (unique on a page).

    >>> figure_prefix("spotting.spotted")
    'example-spotting-spotted'
    """
    return "example-" + re.sub(r"[^a-z0-9-]+", "-", clause_id.lower())


def _namespace(model: Model, clause, recorder: Recorder,
               keep: Callable[[dict], None]) -> dict:
    """The clause examples' namespace (:func:`harmony.game.example_namespace`) with each
    position it sets up drawn (the game's ``draw_positions``), every game it makes
    recording its rulings (the game's ``record``) and the rulesets it asks for by name
    noted."""
    ns = example_namespace(model, clause)
    rules = ns["rules"]

    def asked(name: str):
        if name not in recorder.rulesets:
            recorder.rulesets.append(name)
        return rules(name)
    ns["rules"] = asked
    played_by = clause_game(model, clause)
    if played_by.draw_positions is not None:
        ns = played_by.draw_positions(ns, keep, figure_prefix(clause.id))
    if played_by.record is not None:
        return played_by.record(ns, recorder.add)
    # a game that says nothing: every function of its namespace notes what it returns
    for name, value in played_by.namespace(model).items():
        if inspect.isfunction(ns.get(name)) and ns[name] is not asked:
            ns[name] = _noting(ns[name], recorder)
    return ns


def _run(model: Model, clause) -> Transcript:
    out, examples = _parse(clause)
    if out.why:
        return out
    line_of = {id(e): line for e, line, _ in examples}
    part_of = {id(e): part for e, _, part in examples}
    recorder = Recorder(clause_game(model, clause).rulings_in)
    now: list[doctest.Example] = []         # the line running

    def keep(figure: dict) -> None:
        target = part_of.get(id(now[-1])) if now else next(
            (p for p in out.parts if p.kind == "code"), None)
        if target is not None:
            target.figures.append(figure)

    try:
        globs = _namespace(model, clause, recorder, keep)
    except Exception as e:  # noqa: BLE001  the game could not be found or loaded
        out.why = f"{type(e).__name__}: {e}"
        return out
    test = doctest.DocTest([e for e, _, _ in examples], globs, clause.id, clause.file, 0, clause.examples)

    class Quiet(doctest.DocTestRunner):
        def _after(self, example: doctest.Example, got: str, ok: bool) -> None:
            line = line_of[id(example)]
            line.got, line.ok = got, ok
            # what the example showed (the value of an expression is kept in builtins._) and
            # what it kept in a name
            recorder.add("", getattr(builtins, "_", None))
            for value in list(globs.values()):
                recorder.add("", value)

        def report_start(self, out, test, example):
            now.append(example)

        def report_success(self, out, test, example, got):
            self._after(example, got, True)

        def report_failure(self, out, test, example, got):
            self._after(example, got, False)

        def report_unexpected_exception(self, out, test, example, exc_info):
            import traceback
            raised = "".join(traceback.format_exception_only(exc_info[0], exc_info[1]))
            self._after(example, raised, False)

    had = hasattr(builtins, "_")
    before = getattr(builtins, "_", None)
    try:
        Quiet(optionflags=FLAGS).run(test, out=lambda text: None, clear_globs=False)
    finally:
        if had:
            setattr(builtins, "_", before)
        elif hasattr(builtins, "_"):
            delattr(builtins, "_")
    out.ran = True
    out.rulings, out.rulesets = recorder.rulings, recorder.rulesets
    return out
