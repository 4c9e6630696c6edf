"""Scenario steps as typed values, read once from a scenario, every value with its position.

The ``steps`` of a scenario (``site/scenarios.rst``) are read here and only
here. A :class:`Step` holds at most one action (a :class:`Move`, a
:class:`Fire`, an :class:`End`, blind :class:`Orders` or an :class:`Unload`) and its :class:`Expectation` s; an
expectation holds one :class:`Ask` (one class per kind of question) and the
:class:`Expected` ruling of each ruleset with its ``because``. Every string
the file gave is a :class:`Word`, a ``str`` that also knows where it was
written, so whatever finds a problem with a value later (an unknown unit, an
impossible move) can report it at its line and column.

:func:`parse_steps` reads all the steps of a scenario and reports every
malformed one as a positioned :class:`~harmony.diagnostics.Diagnostic`, one
per problem: what the JSON Schema says about steps, and what it cannot say
(a path whose hexes are not adjacent, an attack or a question ``at`` a hex the
move does not enter, an expected value of the wrong kind for its question).

>>> from harmony.model import Scenario
>>> sc = Scenario(id="s", file="s.yaml", data={"steps": [
...     {"note": "in", "move": {"unit": "t", "path": ["C2", "C3"]},
...      "expect": [{"question": "Seen?", "ask": {"spotted": "t", "at": "C3"},
...                  "rulings": {"PB": {"value": True, "because": ["spotting.spotted"]}}}]},
...     {"end": "turn", "fire": {"units": ["g"], "target": "t", "result": "none"}}]})
>>> parsed = parse_steps(sc)
>>> move = parsed.steps[0].action
>>> move.unit, list(move.path), move.path[1].pos
('t', ['C2', 'C3'], Pos(path='s.yaml', line=1, col=1))
>>> ask = parsed.steps[0].expect[0].ask
>>> type(ask).__name__, ask.unit, ask.at, parsed.steps[0].expect[0].ruling("PB").because
('Spotted', 't', 'C3', ('spotting.spotted',))
>>> [d.message for d in parsed.problems], parsed.bad
(['scenario s: step 2 does one thing (move, fire, end, orders or unload), not end and fire'], frozenset({1}))
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

from harmony.diagnostics import Diagnostic, Pos
from .hexgrid import adjacent, is_label, parse_label
from harmony.model import Scenario

ID = re.compile(r"^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)*$")
SIDE = re.compile(r"^[A-Za-z][A-Za-z0-9 -]*$")
RULESET = re.compile(r"^[A-Z][A-Z0-9]*(\+[a-z0-9][a-z0-9-]*)*$")
RESULTS = ("none", "D", "DD", "X")
MODES = ("normal", "concealed", "revealed", "quick-march", "road")
ENDS = ("phase", "turn")
#: the kinds of marker a unit may carry (kept in step with :data:`harmony.games.panzerblitz.units.MARKERS`)
MARKER_KINDS = ("spotted", "opportunity-spotted", "opportunity-fire")


class Word(str):
    """A string read from a scenario, with its position ``pos``; it compares as the string.

    >>> w = Word("C3", Pos("s.yaml", 4, 9))
    >>> w == "C3", w.pos.line, {w: 1}["C3"]
    (True, 4, 1)
    """

    pos: Pos

    def __new__(cls, value: str, pos: Pos) -> "Word":
        w = super().__new__(cls, value)
        w.pos = pos
        return w

    def __reduce__(self):
        return (Word, (str(self), self.pos))


class Number(int):
    """An integer read from a scenario, with its position ``pos``.

    >>> n = Number(2, Pos("s.yaml", 3, 5)); n + 1, n.pos.col
    (3, 5)
    """

    pos: Pos

    def __new__(cls, value: int, pos: Pos) -> "Number":
        n = super().__new__(cls, value)
        n.pos = pos
        return n

    def __reduce__(self):
        return (Number, (int(self), self.pos))


# ------------------------------------------------------------------ actions

@dataclass(frozen=True, kw_only=True)
class Attack:
    """An attack the other side declares ``at`` a hex of a move: opportunity fire or interdiction
    (with the ``observer`` whose line of sight to the hex the interdiction rests on, if named)."""

    at: Word
    result: Word
    opfire: tuple[Word, ...] = ()
    interdiction: Word | None = None
    observer: Word | None = None
    pos: Pos = field(compare=False)

    @property
    def firers(self) -> tuple[Word, ...]:
        return self.opfire or ((self.interdiction,) if self.interdiction else ())


@dataclass(frozen=True, kw_only=True)
class Move:
    """``unit`` moves hex by hex along ``path``."""

    kind: ClassVar[str] = "move"
    unit: Word
    path: tuple[Word, ...]
    mode: Word
    mp: tuple[Number, ...] = ()
    overrun: Word | None = None
    attacks: tuple[Attack, ...] = ()
    pos: Pos = field(compare=False)

    def mp_at(self, k: int) -> int | None:
        """The movement points given for the ``k``-th hex of the path (None: the terrain's cost)."""
        return int(self.mp[k]) if k < len(self.mp) else None

    def attacks_at(self, where: str) -> tuple[Attack, ...]:
        return tuple(a for a in self.attacks if a.at == where)


@dataclass(frozen=True, kw_only=True)
class Fire:
    """``units`` fire directly at ``target``; ``result`` applies if the fire is allowed."""

    kind: ClassVar[str] = "fire"
    units: tuple[Word, ...]
    target: Word
    result: Word
    pos: Pos = field(compare=False)


@dataclass(frozen=True, kw_only=True)
class End:
    """The end of the current ``phase`` or ``turn`` (``what``)."""

    kind: ClassVar[str] = "end"
    what: Word
    pos: Pos = field(compare=False)


@dataclass(frozen=True, kw_only=True)
class Order:
    """One intended move of a blind player: ``unit`` along ``path``, perhaps overrunning
    ``overrun`` and unloading what it carries once movement is over (``unload``)."""

    unit: Word
    path: tuple[Word, ...]
    mp: tuple[Number, ...] = ()
    overrun: Word | None = None
    unload: bool = False
    pos: Pos = field(compare=False)

    def mp_at(self, k: int) -> int | None:
        return int(self.mp[k]) if k < len(self.mp) else None


@dataclass(frozen=True, kw_only=True)
class Orders:
    """The moves a player makes blind, in the order made; a referee replays them
    against the true board (``site/scenarios.rst``)."""

    kind: ClassVar[str] = "orders"
    orders: tuple[Order, ...]
    pos: Pos = field(compare=False)


@dataclass(frozen=True, kw_only=True)
class Unload:
    """Transport ``unit`` unloads every unit it carries into its own hex."""

    kind: ClassVar[str] = "unload"
    unit: Word
    pos: Pos = field(compare=False)


Action = Move | Fire | End | Orders | Unload


# ------------------------------------------------------------------ questions

@dataclass(frozen=True, kw_only=True)
class Ask:
    """One question; ``at`` asks it as the mover enters that hex of the step's move."""

    kind: ClassVar[str] = ""
    #: what an expected value must be for this kind of question: a check and its words
    value_kind: ClassVar[tuple[Callable[[Any], bool], str] | None] = None
    at: Word | None = None
    pos: Pos = field(compare=False)

    def units(self) -> tuple[Word, ...]:
        """The units the question names."""
        return ()

    def hexes(self) -> tuple[Word, ...]:
        """The hexes the question names (``at`` aside)."""
        return ()


@dataclass(frozen=True, kw_only=True)
class UnitAsk(Ask):
    """A question about one unit."""

    unit: Word

    def units(self) -> tuple[Word, ...]:
        return (self.unit,)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


@dataclass(frozen=True, kw_only=True)
class Spotted(UnitAsk):
    """Is the unit spotted (by a side, or by the side to play)?"""

    kind: ClassVar[str] = "spotted"
    value_kind = (_is_bool, "true or false")
    by: Word | None = None


@dataclass(frozen=True, kw_only=True)
class CanFire(Ask):
    """May the firers fire at the target?"""

    kind: ClassVar[str] = "can-fire"
    value_kind = (_is_bool, "true or false")
    firers: tuple[Word, ...]
    target: Word

    def units(self) -> tuple[Word, ...]:
        return self.firers + (self.target,)


@dataclass(frozen=True, kw_only=True)
class OpFire(UnitAsk):
    """The opportunity fire the unit's move draws."""

    kind: ClassVar[str] = "opfire"
    value_kind = (_is_list, "a list of attacks")


@dataclass(frozen=True, kw_only=True)
class Interdiction(UnitAsk):
    """The interdiction attacks the unit's move draws."""

    kind: ClassVar[str] = "interdiction"
    value_kind = (_is_list, "a list of attacks")


@dataclass(frozen=True, kw_only=True)
class Markers(UnitAsk):
    """The markers the unit carries."""

    kind: ClassVar[str] = "markers"
    value_kind = (lambda v: isinstance(v, list) and all(m in MARKER_KINDS for m in v),
                  f"a list of markers ({', '.join(MARKER_KINDS)})")


@dataclass(frozen=True, kw_only=True)
class Where(UnitAsk):
    """Which hex the unit is in (or whether it is eliminated)."""

    kind: ClassVar[str] = "where"
    value_kind = (lambda v: v == "eliminated" or is_label(v), "a hex label or eliminated")


@dataclass(frozen=True, kw_only=True)
class Dispersal(UnitAsk):
    """The unit's dispersal result."""

    kind: ClassVar[str] = "dispersal"
    value_kind = (lambda v: v in RESULTS, "none, D, DD or X")


@dataclass(frozen=True, kw_only=True)
class Face(UnitAsk):
    """Whether the unit is face up or face down."""

    kind: ClassVar[str] = "face"
    value_kind = (lambda v: v in ("up", "down"), "up or down")


@dataclass(frozen=True, kw_only=True)
class Los(Ask):
    """Is there a line of sight between the two hexes?"""

    kind: ClassVar[str] = "los"
    value_kind = (_is_bool, "true or false")
    between: tuple[Word, Word]

    def hexes(self) -> tuple[Word, ...]:
        return self.between


def _is_stop(v: Any) -> bool:
    return v is None or (isinstance(v, dict) and set(v) <= {"cause", "hex", "stopped-at", "units"}
                         and {"cause", "hex", "stopped-at"} <= set(v))


@dataclass(frozen=True, kw_only=True)
class Stop(UnitAsk):
    """Where and why the referee stopped the unit in the last orders replayed (null: it was not)."""

    kind: ClassVar[str] = "stop"
    value_kind = (_is_stop, "null or {cause, hex, stopped-at} (and units, for an enemy)")


@dataclass(frozen=True, kw_only=True)
class MayMove(UnitAsk):
    """Whether the ruleset offers the unit movement mode ``mode`` (the clause that lists its
    modes decides)."""

    kind: ClassVar[str] = "may-move"
    value_kind = (_is_bool, "true or false")
    mode: Word


@dataclass(frozen=True, kw_only=True)
class Unloaded(UnitAsk):
    """The hex a carried unit was unloaded in by the last orders or ``unload`` step (null: not
    unloaded)."""

    kind: ClassVar[str] = "unloaded"
    value_kind = (lambda v: v is None or is_label(v), "null or a hex label")


def _is_view(v: Any) -> bool:
    return isinstance(v, dict) and set(v) == {"side", "enemy", "blocks", "mines", "reports"}


@dataclass(frozen=True, kw_only=True)
class View(Ask):
    """What one side's board shows of the enemy (under a referee)."""

    kind: ClassVar[str] = "view"
    value_kind = (_is_view, "{side, enemy, blocks, mines, reports}")
    side: Word


_UNIT_ASKS: dict[str, type[UnitAsk]] = {c.kind: c for c in (Spotted, OpFire, Interdiction, Markers,
                                                             Where, Dispersal, Face, Stop,
                                                             Unloaded, MayMove)}
#: every kind of question, by the key that names it in ``ask``
ASKS: dict[str, type[Ask]] = {c.kind: c for c in (Spotted, CanFire, OpFire, Interdiction, Markers,
                                                  Los, Where, Dispersal, Face, Stop, Unloaded,
                                                  View, MayMove)}


# ------------------------------------------------------------------ expectations and steps

@dataclass(frozen=True, kw_only=True)
class Expected:
    """The ruling a scenario expects under one ruleset: its value and the clauses that decide it."""

    ruleset: Word
    value: Any
    because: tuple[Word, ...]
    note: str | None = None
    pos: Pos = field(compare=False)


@dataclass(frozen=True, kw_only=True)
class Expectation:
    """A question asked after (or during) a step and the expected ruling per ruleset."""

    index: int
    question: str
    ask: Ask
    rulings: tuple[Expected, ...]
    pos: Pos = field(compare=False)

    def ruling(self, ruleset: str) -> Expected | None:
        return next((r for r in self.rulings if r.ruleset == ruleset), None)


@dataclass(frozen=True, kw_only=True)
class Step:
    """One step: at most one action, then its questions (a step may only ask)."""

    index: int
    note: str = ""
    action: Action | None = None
    expect: tuple[Expectation, ...] = ()
    pos: Pos = field(compare=False)

    @property
    def kind(self) -> str:
        """``move``, ``fire``, ``end``, ``orders``, ``unload`` or ``ask``."""
        return self.action.kind if self.action is not None else "ask"


@dataclass(frozen=True)
class ParsedSteps:
    """The steps read from a scenario; ``bad`` holds the indices of steps with a problem."""

    steps: tuple[Step, ...]
    problems: tuple[Diagnostic, ...]
    bad: frozenset[int]

    def first_bad(self) -> int | None:
        return min(self.bad) if self.bad else None


# ------------------------------------------------------------------ reading

_STEP_KEYS = ("note", "move", "fire", "end", "orders", "unload", "expect")
_ACTIONS = ("move", "fire", "end", "orders", "unload")


def _what(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "nothing"
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, (int, float)):
        return f"the number {v}"
    return f"'{v}'"


class _Reader:
    """Reads one scenario's steps, noting every problem with its position."""

    def __init__(self, sc: Scenario):
        self.sc = sc
        self.problems: list[Diagnostic] = []
        self.bad: set[int] = set()
        self.step = 0

    def pos(self, path: tuple, key: bool = False) -> Pos:
        return self.sc.pos(*path, key=key)

    def problem(self, path: tuple, message: str, code: str = "scenario-step", key: bool = False) -> None:
        self.bad.add(self.step)
        self.problems.append(Diagnostic(self.pos(path, key), "error",
                                        f"scenario {self.sc.id}: {message}", code))

    def mapping(self, v: Any, path: tuple, what: str, required: tuple, optional: tuple = ()) -> bool:
        if not isinstance(v, dict):
            self.problem(path, f"{what} is a mapping, not {_what(v)}")
            return False
        ok = True
        for k in v:
            if k not in required + optional:
                self.problem(path + (k,), f"{what} has no key '{k}' (its keys: "
                             f"{', '.join(required + optional)})", key=True)
                ok = False
        for k in required:
            if k not in v:
                self.problem(path, f"{what} needs '{k}'")
                ok = False
        return ok

    def word(self, v: Any, path: tuple, what: str, pattern: re.Pattern | None = None,
             choices: tuple = (), hex_: bool = False) -> Word | None:
        if isinstance(v, str) and v and (
                (hex_ and is_label(v)) or (choices and v in choices)
                or (pattern is not None and pattern.match(v))):
            return Word(v, self.pos(path))
        want = ("a hex label such as C4" if hex_ else f"one of {', '.join(choices)}" if choices
                else "an id (lower-case words joined by '-' and '.')" if pattern is ID
                else "a side name" if pattern is SIDE else "a ruleset such as PL+opportunity-fire")
        self.problem(path, f"{what} is {want}, not {_what(v)}")
        return None

    def words(self, v: Any, path: tuple, what: str, least: int = 1, most: int | None = None,
              **kw) -> tuple[Word, ...] | None:
        if not isinstance(v, list) or len(v) < least or (most is not None and len(v) > most):
            count = f"exactly {least}" if most == least else f"at least {least}"
            got = f"{len(v)}" if isinstance(v, list) else _what(v)
            self.problem(path, f"{what} is a list of {count}, not {got}")
            return None
        out, ok = [], True
        for k, x in enumerate(v):
            w = self.word(x, path + (k,), f"item {k + 1} of {what}", **kw)
            if w is None:
                ok = False
            elif kw.get("pattern") is not None and w in out:
                self.problem(path + (k,), f"{what} names '{w}' twice")
                ok = False
            else:
                out.append(w)
        return tuple(out) if ok else None

    def text(self, v: Any, path: tuple, what: str) -> str | None:
        if isinstance(v, str) and v:
            return v
        self.problem(path, f"{what} is text, not {_what(v)}")
        return None

    # ---------------------------------------------------------------- steps
    def steps(self, v: Any) -> list[Step]:
        if not isinstance(v, list) or not v:
            self.problem(("steps",), f"steps is a list of at least one step, not {_what(v)}")
            return []
        out = []
        for i, d in enumerate(v):
            self.step = i
            s = self.one_step(d, ("steps", i), i)
            if s is not None:
                out.append(s)
        return out

    def one_step(self, d: Any, path: tuple, i: int) -> Step | None:
        n = i + 1
        if not self.mapping(d, path, f"step {n}", (), _STEP_KEYS):
            if not isinstance(d, dict):
                return None
        acts = [k for k in _ACTIONS if k in d]
        if len(acts) > 1:
            self.problem(path + (acts[1],), f"step {n} does one thing (move, fire, end, orders or "
                         "unload), not "
                         f"{' and '.join(sorted(acts))}", key=True)
        if not acts and "expect" not in d:
            self.problem(path, f"step {n} does nothing: it moves, fires, ends, gives orders, "
                         "unloads or asks (expect)")
        note = ""
        if "note" in d:
            note = self.text(d["note"], path + ("note",), f"the note of step {n}") or ""
        action: Action | None = None
        if acts:
            a = acts[0]
            action = {"move": self.move, "fire": self.fire, "end": self.end,
                      "orders": self.orders, "unload": self.unload}[a](d[a], path + (a,), n)
        expect: list[Expectation] = []
        if "expect" in d:
            ev = d["expect"]
            if not isinstance(ev, list) or not ev:
                self.problem(path + ("expect",), f"expect of step {n} is a list of at least one "
                             f"question, not {_what(ev)}")
            else:
                for j, e in enumerate(ev):
                    x = self.expectation(e, path + ("expect", j), n, j, action)
                    if x is not None:
                        expect.append(x)
        return Step(index=i, note=note, action=action, expect=tuple(expect), pos=self.pos(path))

    def move(self, d: Any, path: tuple, n: int) -> Move | None:
        what = f"the move of step {n}"
        if not self.mapping(d, path, what, ("unit", "path"), ("mode", "mp", "overrun", "attacks")):
            return None
        unit = self.word(d["unit"], path + ("unit",), f"the unit of {what}", ID)
        hexes = self.words(d["path"], path + ("path",), f"the path of {what}", hex_=True)
        mode = (self.word(d["mode"], path + ("mode",), f"the mode of {what}", choices=MODES)
                if "mode" in d else Word("normal", self.pos(path)))
        mp: tuple[Number, ...] | None = ()
        if "mp" in d:
            mp = self.mp(d["mp"], path + ("mp",), what, len(hexes) if hexes else None)
        overrun = (self.word(d["overrun"], path + ("overrun",), f"the overrun unit of {what}", ID)
                   if "overrun" in d else None)
        attacks: list[Attack] | None = []
        if "attacks" in d:
            attacks = self.attacks(d["attacks"], path + ("attacks",), what, hexes)
        if hexes and mode is not None:
            self.path_shape(hexes, mode, path + ("path",), what)
        if (unit is None or hexes is None or mode is None or mp is None or attacks is None
                or ("overrun" in d and overrun is None)):
            return None
        return Move(unit=unit, path=hexes, mode=mode, mp=mp, overrun=overrun,
                    attacks=tuple(attacks), pos=self.pos(path))

    def orders(self, v: Any, path: tuple, n: int) -> Orders | None:
        what = f"the orders of step {n}"
        if not isinstance(v, list) or not v:
            self.problem(path, f"{what} are a list of at least one move, not {_what(v)}")
            return None
        out, ok, seen = [], True, set()
        for k, d in enumerate(v):
            p = path + (k,)
            ow = f"order {k + 1} of step {n}"
            if not self.mapping(d, p, ow, ("unit", "path"), ("mp", "overrun", "unload")):
                ok = False
                continue
            unit = self.word(d["unit"], p + ("unit",), f"the unit of {ow}", ID)
            hexes = self.words(d["path"], p + ("path",), f"the path of {ow}", hex_=True)
            mp = self.mp(d["mp"], p + ("mp",), ow, len(hexes) if hexes else None) if "mp" in d else ()
            overrun = (self.word(d["overrun"], p + ("overrun",), f"the overrun unit of {ow}", ID)
                       if "overrun" in d else None)
            unload = d.get("unload", False)
            if not isinstance(unload, bool):
                self.problem(p + ("unload",), f"unload of {ow} is true or false, not {_what(unload)}")
                ok = False
                continue
            if hexes:
                self.path_shape(hexes, "normal", p + ("path",), ow)
            if unit is not None and unit in seen:
                self.problem(p + ("unit",), f"{ow} moves {unit} again: a unit makes one move, "
                             "and a move once made is not taken back", "scenario-path")
                ok = False
                continue
            if unit is None or hexes is None or mp is None or ("overrun" in d and overrun is None):
                ok = False
                continue
            seen.add(unit)
            out.append(Order(unit=unit, path=hexes, mp=mp, overrun=overrun, unload=unload,
                             pos=self.pos(p)))
        return Orders(orders=tuple(out), pos=self.pos(path)) if ok else None

    def mp(self, v: Any, path: tuple, what: str, length: int | None) -> tuple[Number, ...] | None:
        if not isinstance(v, list):
            self.problem(path, f"mp of {what} is a list of movement points, not {_what(v)}")
            return None
        out = []
        for k, x in enumerate(v):
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= 99:
                self.problem(path + (k,), f"item {k + 1} of the mp of {what} is a number of "
                             f"movement points from 0 to 99, not {_what(x)}")
                return None
            out.append(Number(x, self.pos(path + (k,))))
        if length is not None and len(out) > length:
            self.problem(path + (length,), f"mp of {what} gives {len(out)} numbers for a path of "
                         f"{length} hexes")
            return None
        return tuple(out)

    def attacks(self, v: Any, path: tuple, what: str,
                hexes: tuple[Word, ...] | None) -> list[Attack] | None:
        if not isinstance(v, list):
            self.problem(path, f"attacks of {what} is a list, not {_what(v)}")
            return None
        out, ok = [], True
        for k, a in enumerate(v):
            p = path + (k,)
            aw = f"attack {k + 1} of {what}"
            if not self.mapping(a, p, aw, ("at", "result"), ("opfire", "interdiction", "observer")):
                ok = False
                continue
            kinds = [x for x in ("opfire", "interdiction") if x in a]
            if len(kinds) != 1:
                self.problem(p, f"{aw} is either opfire (the firers) or interdiction (one unit)"
                             + (", not both" if kinds else ""))
                ok = False
                continue
            at = self.word(a["at"], p + ("at",), f"the hex of {aw}", hex_=True)
            result = self.word(a["result"], p + ("result",), f"the result of {aw}", choices=RESULTS)
            firers = (self.words(a["opfire"], p + ("opfire",), f"the firers of {aw}", pattern=ID)
                      if "opfire" in a else ())
            inter = (self.word(a["interdiction"], p + ("interdiction",), f"the interdicting unit of "
                               f"{aw}", ID) if "interdiction" in a else None)
            observer = None
            if "observer" in a:
                observer = self.word(a["observer"], p + ("observer",), f"the observer of {aw}", ID)
                if "interdiction" not in a:
                    self.problem(p + ("observer",), f"{aw} is opportunity fire, whose firers see for "
                                 "themselves: an observer goes with an interdiction", key=True)
                    observer = None
                if observer is None:
                    ok = False
                    continue
            if at is not None and hexes is not None and at not in hexes:
                self.problem(p + ("at",), f"{aw} is at {at}, which is not in the path",
                             "scenario-path")
                at = None
            if (at is None or result is None or firers is None
                    or ("interdiction" in a and inter is None)):
                ok = False
                continue
            out.append(Attack(at=at, result=result, opfire=firers, interdiction=inter,
                              observer=observer, pos=self.pos(p)))
        return out if ok else None

    def path_shape(self, hexes: tuple[Word, ...], mode: str, path: tuple, what: str) -> None:
        """Each hex adjacent to the one before (the same hex, for revealed movement)."""
        for k in range(1, len(hexes)):
            a, b = parse_label(hexes[k - 1]), parse_label(hexes[k])
            if mode == "revealed" and a != b:
                self.problem(path + (k,), f"revealed movement stays in one hex; the path of {what} "
                             f"names {hexes[k - 1]}, then {hexes[k]}", "scenario-path")
            elif mode != "revealed" and not adjacent(a, b):
                self.problem(path + (k,), f"hex {hexes[k]} is not adjacent to {hexes[k - 1]}, the "
                             "hex before it", "scenario-path")
        if mode == "concealed" and len(hexes) > 1:
            self.problem(path + (1,), f"concealed movement enters one adjacent hex; the path of "
                         f"{what} names {len(hexes)}", "scenario-path")

    def fire(self, d: Any, path: tuple, n: int) -> Fire | None:
        what = f"the fire of step {n}"
        if not self.mapping(d, path, what, ("units", "target", "result")):
            return None
        units = self.words(d["units"], path + ("units",), f"the firing units of {what}", pattern=ID)
        target = self.word(d["target"], path + ("target",), f"the target of {what}", ID)
        result = self.word(d["result"], path + ("result",), f"the result of {what}", choices=RESULTS)
        if units is None or target is None or result is None:
            return None
        return Fire(units=units, target=target, result=result, pos=self.pos(path))

    def unload(self, v: Any, path: tuple, n: int) -> Unload | None:
        w = self.word(v, path, f"the unloading unit of step {n}", ID)
        return Unload(unit=w, pos=w.pos) if w is not None else None

    def end(self, v: Any, path: tuple, n: int) -> End | None:
        w = self.word(v, path, f"the end of step {n}", choices=ENDS)
        return End(what=w, pos=w.pos) if w is not None else None

    # ---------------------------------------------------------------- questions
    def expectation(self, d: Any, path: tuple, n: int, j: int, action: Action | None) -> Expectation | None:
        what = f"question {j + 1} of step {n}"
        if not self.mapping(d, path, what, ("question", "ask", "rulings")):
            return None
        question = self.text(d["question"], path + ("question",), f"the question of {what}")
        ask = self.ask(d["ask"], path + ("ask",), what, action)
        rulings = self.rulings(d["rulings"], path + ("rulings",), what, ask)
        if question is None or ask is None or rulings is None:
            return None
        return Expectation(index=j, question=question, ask=ask, rulings=rulings, pos=self.pos(path))

    def ask(self, d: Any, path: tuple, what: str, action: Action | None) -> Ask | None:
        what = f"the ask of {what}"
        extra = ("by", "target", "mode", "at")
        if not self.mapping(d, path, what, (), tuple(ASKS) + extra):
            return None
        kinds = [k for k in d if k in ASKS]
        if len(kinds) != 1:
            self.problem(path, f"{what} names exactly one question ({', '.join(ASKS)}), not "
                         f"{' and '.join(kinds) if kinds else 'none'}")
            return None
        kind = kinds[0]
        ok = True
        for k, only in (("by", "spotted"), ("target", "can-fire"), ("mode", "may-move")):
            if k in d and kind != only:
                self.problem(path + (k,), f"'{k}' goes with a {only} question, not {kind}", key=True)
                ok = False
        at = None
        if "at" in d:
            at = self.word(d["at"], path + ("at",), f"the hex of {what}", hex_=True)
            if at is not None and (not isinstance(action, Move) or at not in action.path):
                self.problem(path + ("at",), f"{what} is asked at {at}, which is not a hex of this "
                             "step's move", "scenario-path")
                at = None
            ok = ok and at is not None
        p = path + (kind,)
        pos = self.pos(path)
        ask: Ask | None = None
        if kind == "can-fire":
            if "target" not in d:
                self.problem(path, f"{what}: a can-fire question needs 'target'")
                return None
            firers = self.words(d[kind], p, f"the firers of {what}", pattern=ID)
            target = self.word(d["target"], path + ("target",), f"the target of {what}", ID)
            if firers is not None and target is not None:
                ask = CanFire(firers=firers, target=target, at=at, pos=pos)
        elif kind == "view":
            side = self.word(d[kind], p, f"the side of {what}", SIDE)
            if side is not None:
                ask = View(side=side, at=at, pos=pos)
        elif kind == "los":
            hexes = self.words(d[kind], p, f"the hexes of {what}", least=2, most=2, hex_=True)
            if hexes is not None:
                ask = Los(between=(hexes[0], hexes[1]), at=at, pos=pos)
        else:
            unit = self.word(d[kind], p, f"the unit of {what}", ID)
            if unit is not None:
                if kind == "spotted":
                    by = (self.word(d["by"], path + ("by",), f"the side of {what}", SIDE)
                          if "by" in d else None)
                    if by is not None or "by" not in d:
                        ask = Spotted(unit=unit, by=by, at=at, pos=pos)
                elif kind == "may-move":
                    if "mode" not in d:
                        self.problem(path, f"{what}: a may-move question needs 'mode'")
                        return None
                    mode = self.word(d["mode"], path + ("mode",), f"the mode of {what}",
                                     choices=MODES)
                    if mode is not None:
                        ask = MayMove(unit=unit, mode=mode, at=at, pos=pos)
                else:
                    ask = _UNIT_ASKS[kind](unit=unit, at=at, pos=pos)
        return ask if ok else None

    def rulings(self, d: Any, path: tuple, what: str, ask: Ask | None) -> tuple[Expected, ...] | None:
        if not isinstance(d, dict) or not d:
            self.problem(path, f"the rulings of {what} map a ruleset to its expected ruling, not "
                         f"{_what(d)}")
            return None
        out, ok = [], True
        for name, r in d.items():
            p = path + (name,)
            rs = self.word(name, p, f"a ruleset of {what}", RULESET)
            if rs is not None:
                rs = Word(str(name), self.pos(p, key=True))
            rw = f"the {name} ruling of {what}"
            if rs is None or not self.mapping(r, p, rw, ("value", "because"), ("note",)):
                ok = False
                continue
            because = (self.words(r["because"], p + ("because",), f"because of {rw}", least=0,
                                  pattern=ID))
            note = self.text(r["note"], p + ("note",), f"the note of {rw}") if "note" in r else None
            if ask is not None and ask.value_kind is not None and not ask.value_kind[0](r["value"]):
                self.problem(p + ("value",), f"{rw} is {_what(r['value'])}; a {ask.kind} question "
                             f"is answered with {ask.value_kind[1]}", "scenario-ruling")
                ok = False
                continue
            if because is None or ("note" in r and note is None):
                ok = False
                continue
            out.append(Expected(ruleset=rs, value=r["value"], because=because, note=note,
                                pos=self.pos(p)))
        return tuple(out) if ok else None


def parse_steps(sc: Scenario) -> ParsedSteps:
    """Read the ``steps`` of scenario ``sc`` into :class:`Step` values, every problem positioned.

    A step with a problem is left out of ``steps`` only where its action or a
    question could not be read; its index is in ``bad`` either way.

    >>> from harmony.model import Scenario
    >>> sc = Scenario(id="s", data={"steps": [{"move": {"unit": "t", "path": ["C2", "E2"]}},
    ...     {"end": "round"}, {"note": "just words"}]})
    >>> for d in parse_steps(sc).problems: print(d.message, f"[{d.code}]")
    scenario s: hex E2 is not adjacent to C2, the hex before it [scenario-path]
    scenario s: the end of step 2 is one of phase, turn, not 'round' [scenario-step]
    scenario s: step 3 does nothing: it moves, fires, ends, gives orders, unloads or asks (expect) [scenario-step]
    """
    r = _Reader(sc)
    steps = r.steps(sc.data.get("steps") if isinstance(sc.data, dict) else None)
    return ParsedSteps(tuple(steps), tuple(r.problems), frozenset(r.bad))


def steps_of(sc: Scenario) -> ParsedSteps:
    """:func:`parse_steps`, read once per scenario object (kept on it, like its data) and
    remembered between processes (:func:`harmony.playcache.parsed_steps`), unless the
    scenario says it was built in memory (``in_memory``, the ruling explorer's positions:
    no file's text decides them, and the disk cache's imports are not wanted there)."""
    cache = sc.__dict__
    if "_parsed_steps" not in cache:
        if getattr(sc, "in_memory", False):
            cache["_parsed_steps"] = parse_steps(sc)
        else:
            from harmony.playcache import parsed_steps
            cache["_parsed_steps"] = parsed_steps(sc, parse_steps)
    return cache["_parsed_steps"]
