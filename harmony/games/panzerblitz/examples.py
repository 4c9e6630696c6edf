"""The names the clause examples of the hex wargame see: pieces and positions.

An example sets up a position from one-line unit descriptions
(:func:`unit_data`, :func:`make_position`) and asks the engine under any
ruleset; :func:`namespace` is what the game adds to the core's names
(:func:`harmony.game.example_namespace`).
"""
from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, Callable

from harmony.ruleset import Ruleset, ruleset_for
from harmony.rulings import Ruling

from .engine import Game
from .hexgrid import distance, label, parse_label
from .los import sight
from .referee import blind_scenario
from .scenario import run_scenario
from .terrain import HexMap


#: Stock counters for clause examples: kind, weapon class, attack, range,
#: defence, movement. The factors are those of the shipped scenarios' units;
#: they are inputs to the engine, not rules.
PIECES: dict[str, tuple[str, str, int, int, int, int]] = {
    "tank": ("armoured", "A", 12, 8, 8, 6),
    "gun": ("gun", "A", 10, 8, 3, 1),
    "infantry": ("infantry", "I", 6, 3, 6, 3),
    "truck": ("truck", "I", 0, 0, 1, 8),
    "mortar": ("infantry", "M", 12, 12, 3, 1),
    "howitzer": ("gun", "(H)", 20, 30, 2, 1),
}

_LISTS = ("markers", "registration")
_INTS = ("attack", "range", "defence", "movement")
#: The fields of the scenario unit format that ``key=value`` may set.
_KEYS = ("id", "name", "side", "kind", "class", "at", "face", "dispersal", "loaded-in",
         "opportunity-fire") + _LISTS + _INTS


class ExampleError(ValueError):
    """A unit or position description that an example got wrong."""


def unit_data(spec: str) -> dict:
    """Scenario unit data from a one-line description.

    ``"[ID:] SIDE PIECE at HEX [key=value ...]"``: the piece is one of
    :data:`PIECES`, the id defaults to the piece's name, and ``key=value``
    changes any field of the scenario unit format (``class=C``,
    ``movement=1``, ``face=down``, ``dispersal=D``, ``registration=D3,E3``,
    ``loaded-in=truck``, ``markers=spotted``).

    >>> unit_data("Soviet gun at B3")
    {'id': 'gun', 'side': 'Soviet', 'kind': 'gun', 'class': 'A', 'attack': 10, 'range': 8, \
'defence': 3, 'movement': 1, 'at': 'B3'}
    >>> d = unit_data("scout: German tank at C2 class=C movement=4")
    >>> d["id"], d["class"], d["movement"]
    ('scout', 'C', 4)
    >>> unit_data("German tank at A1 movment=4")
    Traceback (most recent call last):
    ...
    harmony.games.panzerblitz.examples.ExampleError: 'German tank at A1 movment=4': unknown field 'movment' ...
    >>> unit_data("German zeppelin at A1")
    Traceback (most recent call last):
    ...
    harmony.games.panzerblitz.examples.ExampleError: 'German zeppelin at A1': unknown piece 'zeppelin' \
(pieces: tank, gun, infantry, truck, mortar, howitzer)
    """
    uid, sep, rest = spec.partition(":")
    if not sep:
        uid, rest = "", spec
    words = rest.split()
    if len(words) < 4 or words[2] != "at":
        raise ExampleError(f"{spec!r}: expected '[ID:] SIDE PIECE at HEX [key=value ...]'")
    side, piece, _, where, *extra = words
    if piece not in PIECES:
        raise ExampleError(f"{spec!r}: unknown piece '{piece}' (pieces: {', '.join(PIECES)})")
    kind, weapon, attack, rng, defence, movement = PIECES[piece]
    d: dict[str, Any] = {"id": uid.strip() or piece, "side": side, "kind": kind, "class": weapon,
                         "attack": attack, "range": rng, "defence": defence,
                         "movement": movement, "at": where}
    for item in extra:
        key, eq, value = item.partition("=")
        if not eq:
            raise ExampleError(f"{spec!r}: expected key=value, not '{item}'")
        if key not in _KEYS:
            raise ExampleError(f"{spec!r}: unknown field '{key}' (fields: {', '.join(_KEYS)})")
        if key in _LISTS:
            d[key] = [v for v in value.split(",") if v]
        elif key in _INTS:
            d[key] = int(value)
        else:
            d[key] = value
    return d


class Position:
    """A map with units on it, to be played under any ruleset of the model.

    :meth:`under` gives a fresh :class:`~harmony.games.panzerblitz.engine.Game` each time, so
    one position can be asked the same question under several rulebooks.
    """

    def __init__(self, model, units: list[dict], map_data: dict, side: str, phase: str,
                 turn: int = 1):
        self.model, self.units, self.map = model, units, map_data
        self.side, self.phase, self.turn = side, phase, turn

    def under(self, ruleset: str):
        """The position as a game under ``ruleset`` (``"REV"``, ``"PL+opportunity-fire"``)."""
        return Game.from_data(ruleset_for(self.model, ruleset), self.map,
                              [dict(u) for u in self.units], self.side, self.phase, self.turn)

    def __repr__(self) -> str:
        return f"<Position: {len(self.units)} units, {self.side} {self.phase}>"


def make_position(model, *units: str, woods: str = "", town: str = "", size: str = "8x5",
                  phase: str | None = None, turn: int = 1) -> Position:
    """A :class:`Position` from unit descriptions (:func:`unit_data`).

    ``woods`` and ``town`` list hex labels; the rest of the map is clear.
    ``phase`` is ``"SIDE fire"`` or ``"SIDE movement"``; by default the
    first unit's side is in its fire phase.
    """
    data = [unit_data(u) for u in units]
    try:
        columns, rows = (int(x) for x in size.split("x"))
    except ValueError:
        raise ExampleError(f"size {size!r}: expected COLUMNSxROWS, e.g. '8x5'") from None
    hexes = {h: "woods" for h in woods.split()}
    hexes.update({h: "town" for h in town.split()})
    if phase is None:
        if not data:
            raise ExampleError("a position with no units needs phase='SIDE fire|movement'")
        side, step = data[0]["side"], "fire"
    else:
        side, _, step = phase.rpartition(" ")
        if not side:
            raise ExampleError(f"phase {phase!r}: expected 'SIDE fire' or 'SIDE movement'")
    return Position(model, data, {"columns": columns, "rows": rows, "hexes": hexes}, side, step,
                    turn)


def namespace(model) -> dict[str, Any]:
    """The names the examples of the hex wargame see, besides the core's
    (:func:`harmony.game.example_namespace`): ``model`` (the loaded rules_data),
    ``rules(name)`` (a :class:`~harmony.ruleset.Ruleset` of it, e.g. ``rules("REV")``),
    ``position(*units, woods=, town=, size=, phase=)`` (a :class:`Position`
    built from one-line unit descriptions, see :func:`unit_data`; its
    ``under(ruleset)`` is a game), ``board(ruleset, *units, ...)`` (the same,
    straight to a game), ``move(game, unit, "D3 C3", mode=, overrun=)`` (a
    whole move; returns the :class:`~harmony.games.panzerblitz.engine.Entry` of the last hex),
    ``setup(scenario_id, ruleset)`` (a
    :class:`~harmony.games.panzerblitz.engine.Game` at the scenario's start),
    ``game(ruleset, map, units, side, phase)``, ``run_scenario``, ``Game``,
    ``Ruleset``, ``Fraction``, ``parse_label``, ``label``, ``distance``,
    ``sight``, ``HexMap`` and ``blind_scenario`` (a printed scenario made double-blind).

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> model, report = load(default_rules_data())
    >>> ns = namespace(model)
    >>> g = ns["board"]("PB", "Soviet gun at A3", "German tank at C3", woods="C3")
    >>> g.side, g.phase, g.where("tank")
    ('Soviet', 'fire', 'C3')
    >>> g.can_fire(["gun"], "tank")
    Ruling(value=False, reasons=['spotting.spotted'])
    """
    def rules(name: str) -> Ruleset:
        return ruleset_for(model, name)

    def setup(scenario_id: str, ruleset: str) -> Game:
        d = model.scenarios[scenario_id].data
        return Game.from_data(rules(ruleset), d["map"], d["units"], d["start"]["side"],
                              d["start"]["phase"], d["start"].get("turn", 1))

    def game(ruleset: str, map: dict, units: list, side: str, phase: str = "fire") -> Game:
        return Game.from_data(rules(ruleset), map, units, side, phase)

    def position(*units: str, **kw) -> Position:
        return make_position(model, *units, **kw)

    def board(ruleset: str, *units: str, **kw) -> Game:
        return make_position(model, *units, **kw).under(ruleset)

    def move(g: Game, unit: str, hexes: str, mode: str = "normal", overrun: str | None = None):
        """Move ``unit`` through the hexes named in ``hexes`` ("D3 C3"); the last entry."""
        g.begin_move(unit, mode, overrun)
        entry = None
        for h in hexes.split():
            entry = g.enter(h)
        return entry

    return {"model": model, "rules": rules, "setup": setup, "game": game,
            "position": position, "board": board, "move": move,
            "run_scenario": lambda sid: run_scenario(model, sid), "Game": Game,
            "Ruleset": Ruleset, "Fraction": Fraction, "parse_label": parse_label, "label": label,
            "distance": distance, "sight": sight, "HexMap": HexMap,
            "blind_scenario": blind_scenario}


# ---------------------------------------------------------------- diagrams

def draw_positions(ns: dict, keep: Callable[[dict], None], prefix: str) -> dict:
    """The examples' namespace (:func:`namespace`) with each position an example sets up
    (``position``, ``board``, ``game``, ``setup``) drawn once
    (:func:`~harmony.games.panzerblitz.figures.position_figure`) and handed to ``keep``:
    the same position set up again (under another ruleset, say) is not drawn twice. The
    ids of the n-th figure's SVG start with ``prefix-n``.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> model, _ = load(default_rules_data())
    >>> kept = []
    >>> ns = draw_positions(namespace(model), kept.append, "ex")
    >>> for rules in "PB", "PL":
    ...     g = ns["board"](rules, "Soviet gun at A3", "German tank at C3", woods="C3")
    >>> g.rules.name, [f["caption"] for f in kept]
    ('PL', ['The position set up: the Soviet fire phase; woods in C3.'])
    >>> _ = ns["position"]("Soviet gun at A3", "German tank at D3"); len(kept), 'id="ex-2-title"' in kept[1]["svg"]
    (2, True)
    """
    from .figures import position_figure
    seen: set[str] = set()

    def shown(map_data: dict, units: list, side: str, phase: str) -> None:
        key = json.dumps([map_data, units, side, phase], sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            keep(position_figure(map_data, units, side, phase, f"{prefix}-{len(seen)}"))

    position, game, setup, model = ns["position"], ns["game"], ns["setup"], ns["model"]

    def drawn_position(*units: str, **kw) -> Position:
        p = position(*units, **kw)
        shown(p.map, p.units, p.side, p.phase)
        return p

    def drawn_game(ruleset: str, map: dict, units: list, side: str, phase: str = "fire") -> Game:
        g = game(ruleset, map, units, side, phase)
        shown(map, units, side, phase)
        return g

    def drawn_setup(scenario_id: str, ruleset: str) -> Game:
        g = setup(scenario_id, ruleset)
        d = model.scenarios[scenario_id].data
        shown(d["map"], d["units"], d["start"]["side"], d["start"]["phase"])
        return g

    ns.update(position=drawn_position, game=drawn_game, setup=drawn_setup,
              board=lambda ruleset, *units, **kw: drawn_position(*units, **kw).under(ruleset))
    return ns


# ---------------------------------------------------------------- coverage

def rulings_in(value: Any) -> tuple | None:
    """The rulings a value of the engine holds (an :class:`~harmony.games.panzerblitz.engine.Entry` of a
    move: its spotting, opportunity fire and interdiction), None for any other value."""
    if type(value).__name__ == "Entry":
        return tuple(getattr(value, name, None) for name in ("spotted", "opfire", "interdiction"))
    return None


class _Played:
    """A game of an example, passing every call through and recording the rulings returned
    (and the refusals, :class:`~harmony.games.panzerblitz.engine.EngineError`, by the clause they name)."""

    def __init__(self, game, note: Callable[[str, Any], None]):
        object.__setattr__(self, "_game", game)
        object.__setattr__(self, "_note", note)

    def __getattr__(self, name: str):
        attr = getattr(self._game, name)
        if not callable(attr):
            return attr
        game, note = self._game, self._note

        def call(*args, **kwargs):
            try:
                result = attr(*args, **kwargs)
            except ValueError as e:     # a refusal names its clause: it rules too
                clause = getattr(e, "clause", None)
                if clause:
                    note(game.rules.name, Ruling(False, [clause], detail=str(e)))
                raise
            note(game.rules.name, result)
            return result
        return call

    def __setattr__(self, name: str, value) -> None:
        setattr(self._game, name, value)

    def __repr__(self) -> str:
        return repr(self._game)


def record(ns: dict, note: Callable[[str, Any], None]) -> dict:
    """The examples' namespace with every game it makes noting the rulings it returns,
    with their ruleset (``note(ruleset, value)``), for the coverage report."""
    played_as = lambda make: lambda *a, **kw: _Played(make(*a, **kw), note)  # noqa: E731

    class Position:
        def __init__(self, inner):
            self._inner = inner

        def under(self, ruleset: str):
            return _Played(self._inner.under(ruleset), note)

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def __repr__(self) -> str:
            return repr(self._inner)

    class RecordedGame:
        """``Game`` of the namespace: ``Game.from_data(...)`` and ``Game(...)`` record."""

        def __new__(cls, *a, **kw):
            return _Played(ns_game(*a, **kw), note)

        @staticmethod
        def from_data(*a, **kw):
            return _Played(ns_game.from_data(*a, **kw), note)

    ns_game = ns["Game"]
    position, run = ns["position"], ns["run_scenario"]
    ns.update(board=played_as(ns["board"]), setup=played_as(ns["setup"]),
              game=played_as(ns["game"]), position=lambda *a, **kw: Position(position(*a, **kw)),
              Game=RecordedGame)

    def run_scenario(sid):
        result = run(sid)
        note("", result)
        return result
    ns["run_scenario"] = run_scenario
    return ns
