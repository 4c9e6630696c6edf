"""The rules engine: a game state that units move and fire in, decided by a ruleset.

A :class:`Game` holds the map, the units, the side to play, the phase and the
markers. It moves units hex by hex, applies given combat outcomes (there is
no combat results table: the caller says ``none``, ``D``, ``DD`` or ``X``)
and answers questions (is this unit spotted, which opportunity fire attacks
are open on it now, may these units fire) with :class:`~harmony.rulings.Ruling`
objects whose ``reasons`` are the clause ids that decided them. Every
difference between rulebooks comes from the ruleset's parameters; the engine
never looks at a ruleset's name.

>>> from harmony.loader import load
>>> from harmony.usage import default_rules_data
>>> shipped, _ = load(default_rules_data())      # its parameter registry gives the defaults
>>> rs = Ruleset.from_values("R", {"spot.adjacent": True, "spot.open-terrain-los": True},
...                          registry=shipped, clause="spotting.spotted")
>>> g = Game.from_data(rs, {"columns": 6, "rows": 4, "hexes": {"E3": "woods"}}, [
...     {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 10,
...      "range": 8, "defence": 3, "movement": 1, "at": "A2"},
...     {"id": "tank", "side": "German", "kind": "armoured", "class": "A", "attack": 12,
...      "range": 8, "defence": 8, "movement": 6, "at": "F2"}],
...     side="German", phase="movement")
>>> g.begin_move("tank"); g.enter("E2").hex
'E2'
>>> g.spotted("tank")                     # clear hex in the gun's sight
Ruling(value=True, reasons=['spotting.spotted'])
>>> g.enter("E3").hex; g.spotted("tank").value   # woods: line of sight is not enough
'E3'
False
>>> g.end_move(); g.end_turn(); g.side, g.phase
('Soviet', 'fire')
>>> g.can_fire(["gun"], "tank").value
False
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil, floor
from typing import Iterable

from .hexgrid import Hex, adjacent, distance, label, neighbours, parse_label
from .los import Sight, sight
from .barriers import step_barrier
from harmony.ruleset import Ruleset
from harmony.rulings import Ruling, Why
from .terrain import HexMap, MapError
from .units import RESULTS, SPOTTED_MARKERS, Marker, Unit, placements

PHASES = ("fire", "movement")
#: every movement mode the engine can play; a ruleset offers some of them (``move.modes``)
MODES = ("normal", "concealed", "revealed", "quick-march", "road")
#: the modes that are movement rates of their own (never concealed movement)
RATES = ("quick-march", "road")

class EngineError(ValueError):
    """An order the rules refuse (a second move in one phase, a face-down unit that starts a
    move, a move into a hex that is not adjacent ...); ``clause`` is the id of the clause
    that refuses it.

    >>> e = EngineError("tank has moved", clause="sequence.one-move")
    >>> str(e), e.clause
    ('tank has moved', 'sequence.one-move')
    """

    def __init__(self, message: str, *, clause: str | None = None):
        super().__init__(message)
        self.clause = clause


class DataError(EngineError):
    """Input the engine cannot read (an unknown unit, hex, combat result, phase or parameter
    value): a mistake in the scenario or the rules data, not a rule's refusal, so no clause.

    >>> DataError("no unit 'x'").clause is None
    True
    """

    def __init__(self, message: str):
        super().__init__(message, clause=None)


#: the clauses behind refusals of the sequence of play (rules_data/sequence.yaml)
PLAYER_TURN = "sequence.player-turn"
MOVING = "sequence.moving"


def _check_result(result: str) -> None:
    """A combat outcome is one of :data:`harmony.games.panzerblitz.units.RESULTS`; anything else is an error."""
    if result not in RESULTS:
        raise DataError(f"unknown combat result {result!r} (expected one of {', '.join(RESULTS)})")


def _refused(message: str, why: Why, name: str) -> EngineError:
    """A refusal decided by parameter ``name`` (read through ``why``): its clause is the one
    that set the parameter, or the row where the ruleset is silent on it."""
    why.p(name)
    return EngineError(message, clause=why.settings[name].clause)


@dataclass
class Entry:
    """What happened as the mover entered one hex: for questions and diagrams."""

    hex: str
    mp: int
    spotted: Ruling
    opfire: Ruling
    interdiction: Ruling
    attacks: list[dict] = field(default_factory=list)
    sights: list[Sight] = field(default_factory=list)

    def as_data(self) -> dict:
        return {"hex": self.hex, "mp": self.mp, "spotted": self.spotted.value,
                "opfire": self.opfire.value, "interdiction": self.interdiction.value,
                "attacks": self.attacks, "sights": [s.as_data() for s in self.sights]}


@dataclass
class Move:
    """The move in progress."""

    unit: str
    mode: str = "normal"
    start: Hex | None = None
    path: list[Hex] = field(default_factory=list)
    spent: int = 0
    entries: list[Entry] = field(default_factory=list)
    overrun: str | None = None
    stopped: bool = False
    #: the rule that stopped it, when an attack's result did (None: eliminated, or no rule)
    stop_why: Why | None = None
    #: transient spotting while moving (whole-move or entering), with its reasoning
    moving_spotted: Ruling | None = None
    #: the spotted counter this move put on the mover (where the rules use one), if on
    counter: bool = False


#: Lines of sight already drawn, by map terrain (:func:`_map_fingerprint`), for the
#: last few maps: every ruleset of a scenario plays the same map.
_SIGHTS: dict[tuple, dict[tuple[Hex, Hex], Sight]] = {}
_SIGHT_MAPS = 8


def _map_fingerprint(m: HexMap) -> tuple:
    """Everything of a map that line of sight reads: size, hexes, hexsides, terrain types.

    >>> a = HexMap.from_data({"columns": 4, "rows": 3, "hexes": {"B2": "woods"}})
    >>> b = HexMap.from_data({"columns": 4, "rows": 3, "hexes": {"B2": "woods"}})
    >>> _map_fingerprint(a) == _map_fingerprint(b)
    True
    >>> b.hexes[b.hex("C2")] = "town"
    >>> _map_fingerprint(a) == _map_fingerprint(b)
    False
    """
    return (m.columns, m.rows, m.default, tuple(sorted(m.hexes.items())),
            tuple(sorted(m.hexsides.items())), tuple(sorted(m.types.items())))


class Game:
    """The state of play under one ruleset."""

    def __init__(self, ruleset: Ruleset, hexmap: HexMap, units: Iterable[Unit], side: str,
                 phase: str = "fire", turn: int = 1):
        self.rules = ruleset
        self.map = hexmap
        self.units: dict[str, Unit] = {}
        for u in units:
            if u.id in self.units:
                raise DataError(f"two units have the id '{u.id}'")
            self.units[u.id] = u
        #: each unit's place in ``units`` (the order questions consider them in), and the index
        #: of the units by hex (:meth:`_by_hex`) with the placement count it was built at
        self._order = {uid: k for k, uid in enumerate(self.units)}
        self._by_hex_index: dict[Hex, list[Unit]] = {}
        self._by_hex_stamp = -1
        if phase not in PHASES:
            raise DataError(f"unknown phase '{phase}' (expected one of {', '.join(PHASES)})")
        self.side = side
        self.phase = phase
        self.turn = turn
        self.sides: list[str] = []
        for u in self.units.values():
            if u.side not in self.sides:
                self.sides.append(u.side)
        if side not in self.sides:
            self.sides.insert(0, side)
        self.move: Move | None = None
        self.last_move: Move | None = None
        #: the move just finished, while its mover may still be taken back and attacked
        #: (until the next move begins or the phase ends)
        self.retrace_move: Move | None = None
        #: per phase: opportunity fire / interdiction attacks suffered, and made
        self.opfire_on: dict[str, int] = {}
        self.opfire_by: dict[str, int] = {}
        self.interdicted: dict[str, int] = {}
        self.interdicted_by: dict[str, int] = {}
        #: per movement phase: unit -> moves begun
        self.moves: dict[str, int] = {}
        #: (firer, mover) -> movement points spent continuously in the firer's LOS
        self.activation: dict[tuple[str, str], int] = {}
        self.activation_why: dict[tuple[str, str], Why] = {}
        #: unit -> the reasoning that last took its spotted marker off (a marker on a unit
        #: carries its own reasons: :class:`~harmony.games.panzerblitz.units.Marker`)
        self.unmark_why: dict[str, Why] = {}
        #: unit -> a marker its spotting player owes it but has not yet placed (where the rules
        #: leave placing to him: spot.spotter-places-markers); forfeited when the phase ends
        self.owed_markers: dict[str, Marker] = {}
        #: unit -> the reasoning that turned it face down after opportunity fire or interdiction
        self.state_why: dict[str, Why] = {}
        #: unit -> the ruling of an unloading in this phase that did not spot it (the transport
        #: and the units it unloaded): its reasons join the unit's spotting until it moves or
        #: the phase ends; a unit the unloading spotted carries them on its marker instead
        self.unload_why: dict[str, Ruling] = {}
        #: every line of sight checked since the last call of take_sights()
        self.sights: list[Sight] = []
        self._sights_rev: int | None = None
        self._sights: dict[tuple[Hex, Hex], Sight] = {}
        self.log: list[str] = []
        #: side -> the most units it may stack in a hex (scenario data; no entry: no limit)
        self.stacking: dict[str, int] = {}

    # ------------------------------------------------------------ building
    @classmethod
    def from_data(cls, ruleset: Ruleset, map_data: dict, unit_data: list[dict], side: str,
                  phase: str = "fire", turn: int = 1) -> "Game":
        """A game from plain scenario data (a ``map`` mapping and a ``units`` list)."""
        hexmap = HexMap.from_data(map_data)
        units = []
        for i, d in enumerate(unit_data):
            try:
                units.append(Unit.from_data(d, lambda text, path=(), i=i: hexmap.hex(text, ("units", i) + path)))
            except MapError:
                raise
            except KeyError as e:
                raise DataError(f"unit {d.get('id', i)!r} has no {e.args[0]!r}") from None
            except (TypeError, ValueError) as e:
                raise DataError(f"unit {d.get('id', i)!r}: {e}") from None
        game = cls(ruleset, hexmap, units, side, phase, turn)
        for u in game.units.values():
            if u.loaded_in is not None and u.loaded_in not in game.units:
                raise DataError(f"unit '{u.id}' is loaded in '{u.loaded_in}', which is not a unit")
            seen, cur = [u.id], u.loaded_in
            while cur is not None:
                if cur in seen:
                    raise DataError(f"unit '{u.id}' is loaded in a loop: "
                                    f"{' in '.join(seen + [cur])}")
                seen.append(cur)
                cur = game.units[cur].loaded_in
        return game

    def unit(self, uid: str) -> Unit:
        try:
            return self.units[uid]
        except KeyError:
            raise DataError(f"no unit '{uid}' (units: {', '.join(self.units)})") from None

    def hex(self, where: str | Hex) -> Hex:
        if isinstance(where, Hex):
            return where
        try:
            return self.map.hex(where)
        except MapError as e:
            raise DataError(str(e)) from None

    def alive(self) -> list[Unit]:
        return [u for u in self.units.values() if not u.eliminated]

    def enemies_of(self, u: Unit, side: str | None = None) -> list[Unit]:
        return [e for e in self.alive() if e.side != u.side and (side is None or e.side == side)]

    def adjacent_enemies(self, u: Unit, side: str | None = None) -> list[Unit]:
        """The :meth:`enemies_of` ``u`` (in the same order) that stand next to it: found in the
        six neighbouring hexes of an index of the units by hex, not by walking every enemy, so
        a question costs what the units near it cost."""
        at = self._by_hex()
        near = [e for h in neighbours(u.hex) for e in at.get(h, ())
                if e.side != u.side and (side is None or e.side == side)]
        return sorted(near, key=lambda e: self._order[e.id])

    def _by_hex(self) -> dict[Hex, list[Unit]]:
        """The units that are not eliminated, by hex; built again once any unit has moved or
        been eliminated since (:func:`harmony.games.panzerblitz.units.placements`)."""
        stamp = placements()
        if self._by_hex_stamp != stamp:
            index: dict[Hex, list[Unit]] = {}
            for e in self.alive():
                index.setdefault(e.hex, []).append(e)
            self._by_hex_index, self._by_hex_stamp = index, stamp
        return self._by_hex_index

    # -------------------------------------------------------- line of sight
    def sees(self, a: Hex, b: Hex) -> bool:
        s = self._sight(a, b)
        self.sights.append(s)
        return s.clear

    def _sight(self, a: Hex, b: Hex) -> Sight:
        """:func:`~harmony.games.panzerblitz.los.sight`, remembered for every game on a map of the same
        terrain (a scenario plays one map under several rulesets, and asks about the
        same pairs of hexes step after step); forgotten when the map changes."""
        if self._sights_rev != self.map.revision:
            self._sights_rev = self.map.revision
            self._sights = _SIGHTS.setdefault(_map_fingerprint(self.map), {})
            while len(_SIGHTS) > _SIGHT_MAPS:
                del _SIGHTS[next(iter(_SIGHTS))]
        s = self._sights.get((a, b))
        if s is None:
            s = self._sights[(a, b)] = sight(self.map, a, b)
        return s

    def los(self, a: str | Hex, b: str | Hex) -> Ruling:
        """Line of sight between two hexes (no rulebook decides it: no reasons)."""
        return Ruling(self.sees(self.hex(a), self.hex(b)), [])

    def take_sights(self) -> list[Sight]:
        out, self.sights = self.sights, []
        seen, unique = set(), []
        for s in out:
            key = (min(s.a, s.b), max(s.a, s.b))
            if key not in seen:
                seen.add(key)
                unique.append(s)
        return unique

    # ------------------------------------------------------------ spotting
    def concealing(self, u: Unit) -> bool:
        return self.map.terrain(u.hex).concealing

    def may_spot(self, s: Unit, why: Why) -> bool:
        """May ``s`` spot at all (dispersal, transports, loaded units, weapon class)?"""
        if s.eliminated:
            return False
        if s.dispersed and not why.p("spot.dispersed-may-spot"):
            return False
        if s.transport and not why.p("spot.transport-may-spot"):
            return False
        if s.loaded and not why.p("spot.loaded-may-spot"):
            return False
        excluded = self.rules["spot.excluded-classes"]
        if excluded or s.weapon.startswith("C"):
            excluded = why.p("spot.excluded-classes")
            if s.weapon in excluded:
                return False
        return True

    def _eligible_seers(self, target: Unit, why: Why, side: str | None = None) -> list[Unit]:
        return [e for e in self.enemies_of(target, side) if self.sees(e.hex, target.hex)
                and self.may_spot(e, why)]

    def spotted(self, uid: str, by: str | None = None) -> Ruling:
        """Is the unit spotted by side ``by`` (default: by any enemy)?"""
        u = self.unit(uid)
        why = Why(self.rules)
        if u.eliminated:
            return why.ruling(False, "eliminated")
        value, detail = self._spotted(u, why, by)
        return why.ruling(value, detail)

    def _spotted(self, u: Unit, why: Why, by: str | None = None) -> tuple[bool, str]:
        if not self.concealing(u):
            if why.p("spot.open-terrain-los"):
                for e in self.enemies_of(u, by):
                    if self.sees(e.hex, u.hex) and self.may_spot(e, why):
                        return True, f"in the open, seen by {e.id}"
            return False, "in the open, seen by no eligible enemy"
        if why.p("spot.adjacent"):
            for e in self.adjacent_enemies(u, by):
                if self.may_spot(e, why):
                    return True, f"adjacent to {e.id}"
        if u.marked(*SPOTTED_MARKERS):
            for m in u.markers_of(*SPOTTED_MARKERS):
                why.add(m.ruling())
            return True, "marked spotted"
        owed = self.owed_markers.get(u.id)
        if owed is not None and (by is None or by != u.side):
            why.add(owed.ruling())
            return True, "spotted in this phase; its marker is not placed yet"
        mv = self.move
        if mv is not None and mv.unit == u.id:
            if mv.moving_spotted is not None:
                why.add(mv.moving_spotted)
                if mv.moving_spotted.value:
                    return True, "seen while moving"
        unloading = self.unload_why.get(u.id)
        if unloading is not None:
            why.add(unloading)
        if u.id in self.unmark_why:
            why.add(self.unmark_why[u.id])
            return False, "in concealing terrain, its spotted marker taken off"
        if unloading is not None:
            return False, f"in concealing terrain, not spotted by the unloading ({unloading.detail})"
        return False, "in concealing terrain, not spotted"

    def _place_marker(self, u: Unit, why: Why, opportunity: bool = False) -> None:
        """Record spotting in concealing terrain with a marker (if the rules use markers)."""
        if not self.concealing(u) or not why.p("spot.markers"):
            return
        kind = "spotted"
        if opportunity and why.p("spot.opportunity-marker"):
            kind = "opportunity-spotted"
        # Spotted from a distance, where the spotting player must place the marker himself within
        # the phase: it is owed until he does (place_marker) or the phase ends. Adjacency spots
        # without a marker's help, so a unit next to an eligible enemy is marked at once.
        if self.rules["spot.spotter-places-markers"] and why.p("spot.spotter-places-markers") \
                and not self._adjacent_spotter(u):
            if not u.marked(kind):
                self.owed_markers[u.id] = Marker(kind, why.ruling(kind))
            return
        # Spotted while making opportunity fire: the marker shows its opportunity side even
        # when the unit was already marked (the paper prints one on the back of the other).
        u.unmark(*SPOTTED_MARKERS)
        u.place(Marker(kind, why.ruling(kind)))
        self.unmark_why.pop(u.id, None)
        self.unload_why.pop(u.id, None)

    def _adjacent_spotter(self, u: Unit) -> bool:
        """Is an eligible enemy unit adjacent to ``u`` (where adjacency spots)?"""
        why = Why(self.rules)
        return bool(why.p("spot.adjacent")) and any(
            self.may_spot(e, why) for e in self.adjacent_enemies(u))

    def place_marker(self, uid: str) -> Ruling:
        """The spotting player places the spotted marker he owes unit ``uid``.

        Where the rules leave markers for units spotted from a distance to the
        spotting player (``spot.spotter-places-markers``), the marker goes on only
        when he places it, within the phase of the spotting; a marker owed and not
        placed when the phase ends is never placed. Elsewhere the engine places
        markers itself, and nothing is owed.

        >>> from harmony.loader import load
        >>> from harmony.usage import default_rules_data
        >>> shipped, _ = load(default_rules_data())
        >>> rs = Ruleset.from_values("T", {"spot.markers": True, "spot.mover-in-los": "entering",
        ...                               "spot.spotter-places-markers": True},
        ...                          registry=shipped, clause="spotting.tournament")
        >>> units = [{"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 10,
        ...           "range": 8, "defence": 3, "movement": 1, "at": "A2"},
        ...          {"id": "tank", "side": "German", "kind": "armoured", "class": "A", "attack": 12,
        ...           "range": 8, "defence": 8, "movement": 6, "at": "D2"}]
        >>> g = Game.from_data(rs, {"columns": 5, "rows": 4, "hexes": {"C2": "woods"}}, units,
        ...                    side="German", phase="movement")
        >>> g.begin_move("tank"); g.enter("C2").spotted.value, g.markers("tank").value
        (True, [])
        >>> g.place_marker("tank")
        Ruling(value=True, reasons=['spotting.tournament'])
        >>> g.markers("tank").value, g.place_marker("tank").value
        (['spotted'], False)
        """
        u = self.unit(uid)
        why = Why(self.rules)
        m = self.owed_markers.pop(u.id, None)
        if m is None:
            why.p("spot.spotter-places-markers")
            return why.ruling(False, f"no marker is owed to {u.id} in this phase")
        u.unmark(*SPOTTED_MARKERS)
        u.place(m)
        self.unmark_why.pop(u.id, None)
        why.add(m.ruling())
        self.log.append(f"{m.kind} marker placed on {u.id}")
        return why.ruling(True, f"{m.kind} marker placed")

    def _forfeit_owed_markers(self) -> None:
        """The phase is over: markers owed and not placed are never placed."""
        for uid, m in self.owed_markers.items():
            why = Why(self.rules)
            why.add(m.ruling())
            self.unmark_why[uid] = why
            self.log.append(f"the {m.kind} marker owed to {uid} was not placed in its phase")
        self.owed_markers.clear()

    def _remove_marker(self, u: Unit, why: Why | None = None) -> None:
        """Take the spotted marker off; ``why`` is the reasoning that took it off."""
        had = u.unmark(*SPOTTED_MARKERS)
        if had and why is not None:
            keep = why.child()
            keep.add(why)
            self.unmark_why[u.id] = keep

    def _markers_housekeeping(self) -> None:
        """Markers that come off at once: out of every eligible enemy's sight, or out of cover."""
        for uid in list(self.owed_markers):
            u = self.units[uid]
            why = Why(self.rules)
            # an owed marker would come off at once: it is no longer owed
            if u.eliminated or not self.concealing(u) or not self._eligible_seers(u, why):
                del self.owed_markers[uid]
        for u in self.alive():
            if not u.marked(*SPOTTED_MARKERS):
                continue
            why = Why(self.rules)
            if not self.concealing(u) and why.p("spot.marker-off-leaving-concealing"):
                self._remove_marker(u, why)
                continue
            # Out of every eligible enemy's sight, in cover or not (PL's marker stays on a
            # unit that walks into the open, but not once nobody can see it).
            if why.p("spot.marker-off-when-no-los"):
                if not self._eligible_seers(u, why):
                    self._remove_marker(u, why)

    def _spot_firer(self, u: Unit, opportunity: bool) -> None:
        """A unit in cover that fires in sight of an eligible enemy is spotted (where the rules say so)."""
        if not self.concealing(u):
            return
        why = Why(self.rules)
        if not why.p("spot.firer-in-los"):
            return
        if self._eligible_seers(u, why):
            self._place_marker(u, why, opportunity)

    def _mark_at_end_of_movement(self, side: str) -> None:
        """The end of ``side``'s movement phase: where the rules say so, each of its units
        that is face down, in concealing terrain and seen by an eligible enemy gets a marker."""
        rule = Why(self.rules)
        if not rule.p("spot.markers-end-of-movement"):
            return
        for u in self.alive():
            if u.side != side or u.face_up or not self.concealing(u):
                continue
            why = rule.child()
            why.add(rule)
            if self._eligible_seers(u, why):
                self._place_marker(u, why)
                self.log.append(f"{u.id} marked spotted at the end of the {side} movement phase")

    # ---------------------------------------------------------------- fire
    def can_fire(self, firers: list[str], target: str) -> Ruling:
        """May these units fire directly at ``target`` now (in their fire phase)?"""
        why = Why(self.rules)
        t = self.unit(target)
        if t.eliminated:
            return why.ruling(False, "target eliminated")
        units = [self.unit(f) for f in firers]
        if not units:
            raise DataError(f"no firing unit named for the attack on '{target}'")
        for f in units:
            if f.side != self.side or self.phase != "fire":
                return why.ruling(False, f"{f.id} may fire only in its own fire phase")
            problem = self._cannot_fire(f, t)
            if problem:
                why.add(self._state_why(f))
                return why.ruling(False, problem)
        side = units[0].side
        if len({f.side for f in units}) > 1:
            return why.ruling(False, "firers of different sides")
        ok, detail = self._spotted(t, why, side)
        if not ok:
            return why.ruling(False, f"{target} is not spotted ({detail})")
        return why.ruling(True, detail)

    def _cannot_fire(self, f: Unit, t: Unit) -> str | None:
        if f.eliminated:
            return f"{f.id} is eliminated"
        if not f.face_up:
            return f"{f.id} is face down"
        if f.dispersed:
            return f"{f.id} is dispersed"
        if not f.direct_fire:
            return f"{f.id} cannot fire directly"
        if "opportunity-fire" in f.markers:
            return f"{f.id} has an opportunity fire counter"
        if f.loaded:
            return f"{f.id} is loaded"
        if f.side == t.side:
            return f"{f.id} and {t.id} are on the same side"
        if not self.sees(f.hex, t.hex):
            return f"{f.id} has no line of sight to {t.id}"
        if distance(f.hex, t.hex) > f.range:
            return f"{t.id} is out of {f.id}'s range"
        return None

    def fire(self, firers: list[str], target: str, result: str) -> Ruling:
        """Direct fire with a given outcome; applied only if the fire is allowed.

        An order the sequence of play forbids (a unit of the side not playing, fire
        outside its fire phase, fire at itself or at its own side) is refused
        (:class:`EngineError`); what the rules decide (spotting, range ...) is the ruling.
        """
        _check_result(result)
        t = self.unit(target)
        for fid in firers:
            f = self.unit(fid)
            if f.side != self.side or self.phase != "fire":
                raise EngineError(f"'{fid}' ({f.side}) cannot fire now: it is the {self.side} "
                                  f"{self.phase} phase", clause=PLAYER_TURN)
            if f.id == t.id:
                raise EngineError(f"'{fid}' cannot fire at itself", clause=PLAYER_TURN)
            if f.side == t.side:
                raise EngineError(f"'{fid}' cannot fire at '{t.id}', a unit of its own side",
                                  clause=PLAYER_TURN)
        ok = self.can_fire(firers, target)
        if ok.value:
            t = self.unit(target)
            t.apply_result(result, self.turn)
            for fid in firers:
                u = self.unit(fid)
                u.face_up = False
                self._spot_firer(u, opportunity=False)
            if t.eliminated:
                self._remove_marker(t)
            self._markers_housekeeping()
            self.log.append(f"{', '.join(firers)} fire at {target}: {result}")
        else:
            self.log.append(f"{', '.join(firers)} may not fire at {target}: {ok.detail}")
        return ok

    # ------------------------------------------------------------ movement
    def begin_move(self, uid: str, mode: str = "normal", overrun: str | None = None) -> None:
        """Start moving a unit of the side to play, in its movement phase.

        ``mode`` is one of :data:`MODES`; a mode the ruleset does not offer (its
        ``move.modes``) is refused by the clause that sets that list, a word that is no
        mode at all is a :class:`DataError`.
        """
        if self.move is not None:
            self.end_move()
        u = self.unit(uid)
        if u.eliminated:
            raise EngineError(f"unit '{uid}' is eliminated and cannot move", clause=MOVING)
        if u.side != self.side or self.phase != "movement":
            raise EngineError(f"unit '{uid}' ({u.side}) cannot move now: it is the {self.side} "
                              f"{self.phase} phase", clause=PLAYER_TURN)
        if mode not in MODES:
            raise DataError(f"unknown movement mode '{mode}' (modes: {', '.join(MODES)})")
        modes = Why(self.rules)
        offered = modes.p("move.modes")
        if mode not in offered:
            raise _refused(f"{self.rules.source} offers no {mode.replace('-', ' ')} movement "
                           f"(its modes: {', '.join(offered)})", modes, "move.modes")
        why = Why(self.rules)
        limit = self.rules.setting("sequence.moves-per-phase")
        if not limit.unset and self.moves.get(uid, 0) >= why.p("sequence.moves-per-phase"):
            raise _refused(f"unit '{uid}' has already moved in this movement phase "
                           f"({limit.value} move a unit)", why, "sequence.moves-per-phase")
        if not u.face_up:
            may = why.p("sequence.face-down-may-move")
            if may == "unstated":
                raise _refused("whether a face-down unit may move is not stated by the rulebook "
                               f"(see {why.reasons[0] if why.reasons else 'the sequence of play'})"
                               f": '{uid}' cannot be moved", why, "sequence.face-down-may-move")
            if may == "no":
                raise _refused(f"unit '{uid}' is face down (it has fired) and may not move "
                               "in this player turn", why, "sequence.face-down-may-move")
            if may != "yes":
                raise DataError(f"sequence.face-down-may-move: unknown value {may!r} (the engine "
                                "knows no, yes, unstated)")
        if u.movement <= 0:
            raise EngineError(f"unit '{uid}' has a movement allowance of {u.movement} and cannot move",
                              clause=MOVING)
        if "opportunity-fire" in u.markers:
            raise _refused(f"unit '{uid}' has an opportunity fire counter and may not move "
                           "in this player turn", why, "opfire.firer-after")
        if self.rules["opfire.unit-data"]:
            # refused before the move begins, so a move is never left half-entered
            for f in self.enemies_of(u):
                if f.direct_fire and f.may_opfire is None:
                    raise _refused(f"which units may make opportunity fire is unit data the "
                                   f"rulebook's table gives, and '{f.id}' does not say: give it an "
                                   "opportunity-fire field (true or false)", why, "opfire.unit-data")
        self.retrace_move = None        # the last mover may no longer be taken back
        self.unload_why.pop(uid, None)  # what an unloading decided holds until the unit moves
        self.moves[uid] = self.moves.get(uid, 0) + 1
        self.move = Move(uid, mode, u.hex, overrun=overrun)
        self._mark_mover(u, self.move)

    def may_move_in(self, uid: str, mode: str) -> Ruling:
        """Whether the ruleset offers movement mode ``mode`` to unit ``uid``: the ruling
        names the clause that lists the ruleset's modes (``move.modes``). Whether the unit
        may move now (its side, its phase, its markers) is :meth:`begin_move`'s to say.
        """
        self.unit(uid)
        if mode not in MODES:
            raise DataError(f"unknown movement mode '{mode}' (modes: {', '.join(MODES)})")
        why = Why(self.rules)
        offered = why.p("move.modes")
        if mode in offered:
            return why.ruling(True)
        return why.ruling(False, f"{self.rules.source} offers no {mode.replace('-', ' ')} movement")

    def enter(self, where: str | Hex, mp: int | None = None) -> Entry:
        """Move the current mover into an adjacent hex (or its own hex, for revealed movement).

        Spotting, markers and activation counts are updated; the returned
        :class:`Entry` says which opportunity fire and interdiction attacks
        are open on the mover there.
        """
        mv = self.move
        if mv is None:
            raise DataError("no unit is moving: call begin_move first")
        u = self.unit(mv.unit)
        if mv.stopped or u.eliminated:
            stopper = mv.stop_why.reasons if mv.stop_why is not None and not u.eliminated else []
            raise EngineError(f"unit '{u.id}' has stopped and cannot move on",
                              clause=stopper[0] if stopper else MOVING)
        h = self.hex(where)
        if mv.mode == "revealed":
            if h != u.hex:
                raise _refused(f"revealed movement stays in hex {label(u.hex)}, not {label(h)}",
                               Why(self.rules), "spot.revealed-movement")
        elif not adjacent(u.hex, h):
            raise EngineError(f"hex {label(h)} is not adjacent to {label(u.hex)}, where {u.id} is",
                              clause=MOVING)
        if mv.mode == "concealed" and mv.path:
            raise _refused("concealed movement enters one adjacent hex only", Why(self.rules),
                           "spot.concealed-movement")
        cost = u.movement if mv.mode == "concealed" else (self.map.terrain(h).move_cost if mp is None else mp)
        # the sources give no quick march or road rate: such a move is not held to the allowance
        if mv.spent + cost > u.movement and mv.mode not in ("revealed",) + RATES:
            raise EngineError(f"{u.id} has spent {mv.spent} of its {u.movement} movement points and "
                              f"cannot spend {cost} more to enter {label(h)}", clause=MOVING)
        barrier = step_barrier(self, u, h)
        if barrier is not None:
            raise EngineError(f"{u.id} may not enter {label(h)}: {barrier.detail}",
                              clause=barrier.reasons[0] if barrier.reasons else MOVING)
        old = u.hex
        self._place(u, h)
        mv.path.append(h)
        mv.spent += cost
        entry_why = self._spot_mover(u, mv, old, h)
        self._markers_housekeeping()
        self._mark_mover(u, mv)
        self._count_activation(u, h, cost)
        entry = Entry(label(h), cost, self.spotted(u.id), self.opfire_options(u.id),
                      self.interdiction_options(u.id))
        entry.spotted.settings.update({k: v for k, v in entry_why.settings.items()
                                       if k not in entry.spotted.settings})
        entry.spotted.reasons = sorted({s.clause for s in entry.spotted.settings.values() if s.clause})
        entry.sights = self.take_sights()
        mv.entries.append(entry)
        return entry

    def _spot_mover(self, u: Unit, mv: Move, old: Hex, h: Hex) -> Why:
        """Spotting of the mover by line of sight as it enters ``h``."""
        why = Why(self.rules)
        mv.moving_spotted = None
        if not self.map.terrain(h).concealing:
            return why
        rule = why.p("spot.mover-in-los")
        if rule not in ("none", "entering", "whole-move"):
            raise DataError(f"spot.mover-in-los: unknown value {rule!r} "
                              "(the engine knows none, entering, whole-move)")
        seen = False
        if mv.mode == "revealed":
            if why.p("spot.revealed-movement"):
                seen = bool(self._eligible_seers(u, why))
        elif rule == "whole-move":
            seen = bool(self._eligible_seers(u, why))
        elif rule == "entering":
            concealed = mv.mode == "concealed" and why.p("spot.concealed-movement")
            if mv.mode in RATES:
                why.p("move.modes")         # a faster rate is never concealed movement
            elif mv.mode == "normal" and u.movement == 1 and why.p("spot.ma1-concealed"):
                concealed = True            # moving normally at one hex is concealed movement
            if not concealed:
                seen = bool(self._eligible_seers(u, why))
        if seen:
            mv.moving_spotted = why.ruling(True)
            if rule == "entering" or mv.mode == "revealed":
                self._place_marker(u, why)
        else:
            mv.moving_spotted = why.ruling(False)
            if h != old and u.marked(*SPOTTED_MARKERS):
                if why.p("spot.marker-off-entering-unspotted"):
                    adjacent_spot = Why(self.rules)
                    if not (adjacent_spot.p("spot.adjacent") and any(
                            self.may_spot(e, adjacent_spot) for e in self.adjacent_enemies(u))):
                        self._remove_marker(u, why)
        return why

    def _mark_mover(self, u: Unit, mv: Move) -> None:
        """Where the rules say so, a mover in an eligible enemy unit's sight carries a spotted
        counter from the start of its move to its end (off while no such unit sees it)."""
        if not self.rules["spot.mover-marker"]:
            return
        why = Why(self.rules)
        why.p("spot.mover-marker")
        if self._eligible_seers(u, why):
            if not u.marked(*SPOTTED_MARKERS):
                u.place(Marker("spotted", why.ruling("spotted")))
                self.unmark_why.pop(u.id, None)
                mv.counter = True
        elif mv.counter:
            u.unmark("spotted")
            mv.counter = False

    def _count_activation(self, u: Unit, h: Hex, cost: int) -> None:
        """Movement points the mover spends continuously in each enemy unit's sight."""
        for f in self.enemies_of(u):
            key = (f.id, u.id)
            if not self.sees(f.hex, h):
                self.activation[key] = 0
                self.activation_why.pop(key, None)
                continue
            why = self.activation_why.setdefault(key, Why(self.rules))
            if self.map.terrain(h).concealing and why.p("opfire.concealing-points-need-spotting"):
                if not self._spotted(u, why.child(), f.side)[0]:
                    continue
            self.activation[key] = self.activation.get(key, 0) + cost

    def end_move(self) -> None:
        """Finish the move in progress (transient spotting of the mover ends).

        The finished move stays readable as :attr:`last_move`. Until the next
        :meth:`begin_move` or the end of the phase it is also
        :attr:`retrace_move`: where the rules allow retracing, the mover may
        still be attacked at a hex it passed (:meth:`retrace_options`).
        """
        mv, self.move = self.move, None
        if mv is not None:
            mv.moving_spotted = None
            self.last_move = mv
            self.retrace_move = mv
            u = self.units.get(mv.unit)
            if mv.counter and u is not None:    # the mover's counter comes off as it stops
                u.unmark("spotted")
                mv.counter = False
            self._markers_housekeeping()

    # ----------------------------------------------------------- transport
    def carried(self, uid: str) -> list[Unit]:
        """The units unit ``uid`` carries (not eliminated), in the order of :attr:`units`."""
        u = self.unit(uid)
        return [c for c in self.alive() if c.loaded_in == u.id]

    def _place(self, u: Unit, h: Hex) -> None:
        """Put ``u`` in hex ``h``, and the units it carries with it."""
        u.hex = h
        for c in self.carried(u.id):
            c.hex = h

    def unload(self, uid: str, at: str | Hex | None = None) -> Ruling:
        """Unload every unit that transport ``uid`` carries, in its movement phase: into its
        own hex, or into hex ``at`` where a rule of the caller's puts them elsewhere (a
        double-blind unload after an overrun goes to the hex the overrun was entered from).

        Unloading inside a concealing hex is movement within that hex. Where the rules
        make such movement revealing (``spot.revealed-movement``) and an eligible enemy
        unit has line of sight to the hex, the units ``spot.unloading-reveals`` names (the
        transport, the units unloaded) are spotted and marked as a mover entering the hex
        would be; elsewhere the unloading spots nobody. The ruling's value is the ids of
        the units the unloading spotted, its reasons the clauses that decided; it is empty
        (no reasons) where the units are not unloaded inside a concealing hex, since no
        spotting rule is asked. A unit it did not spot keeps these reasons in its
        :meth:`spotted` rulings until it moves or the phase ends.

        An order no player could give (a transport that carries nothing, an unknown unit)
        is a :class:`DataError`; a unit of the side not playing, or outside its movement
        phase, is refused by the sequence of play. A move in progress ends first.

        >>> from harmony.loader import load
        >>> from harmony.usage import default_rules_data
        >>> shipped, _ = load(default_rules_data())
        >>> rs = Ruleset.from_values("R", {"spot.revealed-movement": True, "spot.markers": True,
        ...                               "spot.unloading-reveals": ["transport", "passengers"]},
        ...                          registry=shipped, clause="movement.revealed")
        >>> units = [{"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 10,
        ...           "range": 8, "defence": 3, "movement": 1, "at": "A2"},
        ...          {"id": "truck", "side": "German", "kind": "truck", "class": "I", "attack": 0,
        ...           "range": 0, "defence": 1, "movement": 8, "at": "D2"},
        ...          {"id": "rifles", "side": "German", "kind": "infantry", "class": "I",
        ...           "attack": 6, "range": 3, "defence": 6, "movement": 1, "at": "D2",
        ...           "loaded-in": "truck"}]
        >>> g = Game.from_data(rs, {"columns": 5, "rows": 4, "hexes": {"D2": "woods"}}, units,
        ...                    side="German", phase="movement")
        >>> g.unload("truck")
        Ruling(value=['rifles', 'truck'], reasons=['movement.revealed'])
        >>> g.markers("rifles").value, g.carried("truck")
        (['spotted'], [])
        >>> g.unload("truck")
        Traceback (most recent call last):
        ...
        harmony.games.panzerblitz.engine.DataError: unit 'truck' carries no unit to unload
        """
        if self.move is not None:
            self.end_move()
        u = self.unit(uid)
        if u.eliminated:
            raise EngineError(f"unit '{uid}' is eliminated and cannot unload", clause=MOVING)
        if u.side != self.side or self.phase != "movement":
            raise EngineError(f"unit '{uid}' ({u.side}) cannot unload now: it is the {self.side} "
                              f"{self.phase} phase", clause=PLAYER_TURN)
        cargo = self.carried(uid)
        if not cargo:
            raise DataError(f"unit '{uid}' carries no unit to unload")
        h = u.hex if at is None else self.hex(at)
        for c in cargo:
            c.loaded_in = None
            c.hex = h
            self.log.append(f"{c.id} unloaded from {u.id} in {label(h)}")
        if h != u.hex or not self.map.terrain(h).concealing:
            return Ruling([], [], detail="not unloaded inside a concealing hex")
        why = Why(self.rules)
        units = [u] + cargo
        spotted: list[Unit] = []
        if not why.p("spot.revealed-movement"):
            detail = "unloading is not revealed movement under these rules"
        else:
            seers = self._eligible_seers(u, why)
            if not seers:
                detail = "no eligible enemy unit has line of sight to the hex"
            else:
                reveals = why.p("spot.unloading-reveals")
                spotted = [x for x in units
                           if ("transport" if x is u else "passengers") in reveals]
                detail = f"unloading seen by {', '.join(e.id for e in seers)}"
        for x in spotted:
            self._place_marker(x, why)
        ruling = why.ruling(sorted(x.id for x in spotted), detail)
        for x in units:     # a marker (placed or owed) carries the reasons of those it spotted
            if not (x.marked(*SPOTTED_MARKERS) and x in spotted) and x.id not in self.owed_markers:
                self.unload_why[x.id] = ruling
        self._markers_housekeeping()
        return ruling

    # ---------------------------------------------------- opportunity fire
    def _firer_problem(self, f: Unit, t: Unit, why: Why) -> str | None:
        if f.eliminated or f.side == t.side:
            return "not an enemy"
        if not f.face_up:
            return "face down"
        if f.dispersed:
            return "dispersed"
        if not f.direct_fire:
            return "no direct fire"
        if f.may_opfire is False:
            return "no opportunity fire (its unit data)"
        if f.loaded:
            return "loaded"
        if "opportunity-fire" in f.markers:
            return "has an opportunity fire counter"
        return None

    def opfire_options(self, target: str) -> Ruling:
        """The opportunity fire attacks open on ``target`` now: ``[{firers, drm}]``."""
        why = Why(self.rules)
        t = self.unit(target)
        mv = self.move
        if not why.p("opfire.enabled"):
            return why.ruling([], "the rulebook has no opportunity fire")
        if t.eliminated or mv is None or mv.unit != t.id:
            return why.ruling([], "only a unit on the move may be attacked")
        if mv.stopped:
            why.add(mv.stop_why)
            return why.ruling([], "the mover has stopped: its move is over")
        limit = why.p("opfire.per-target-per-phase")
        if limit and self.opfire_on.get(t.id, 0) >= limit:
            return why.ruling([], "already attacked by opportunity fire this phase")
        if mv.overrun and mv.path and self.unit(mv.overrun).hex == t.hex and not self.unit(mv.overrun).eliminated:
            if why.p("opfire.overrun-immunity"):
                return why.ruling([], "immune while in the hex of the unit it overruns")
        candidates = []
        for f in self.enemies_of(t):
            if self._firer_problem(f, t, why):
                why.add(self._state_why(f))   # e.g. turned face down by an earlier attack
                continue
            if not self.sees(f.hex, t.hex):
                continue
            if f.may_opfire is None and self.rules["opfire.unit-data"]:
                raise _refused(f"which units may make opportunity fire is unit data the rulebook's "
                               f"table gives, and '{f.id}' does not say: give it an "
                               "opportunity-fire field (true or false)", why, "opfire.unit-data")
            candidates.append(f)
        if not candidates:
            return why.ruling([], "no eligible unit has line of sight")
        per_firer = why.p("opfire.per-firer-per-phase")
        candidates = [f for f in candidates if not per_firer or self.opfire_by.get(f.id, 0) < per_firer]
        if not candidates:
            return why.ruling([], "every firer has used its opportunity fire this phase")
        ok, detail = self._spotted(t, why)
        if not ok:
            return why.ruling([], f"not spotted ({detail})")
        fraction = why.p("opfire.range-fraction")
        candidates = [f for f in candidates if distance(f.hex, t.hex) <= floor(f.range * fraction)]
        if not candidates:
            return why.ruling([], "out of range")
        threshold = 0
        share = t.movement * why.p("opfire.activation-fraction")
        if share:
            rounding = why.p("opfire.activation-rounding")
            if rounding not in ("down", "none"):
                raise DataError(f"opfire.activation-rounding: unknown value {rounding!r} "
                                "(the engine knows down, none)")
            # none: at least the exact share, so whole points rounded up
            threshold = floor(share) if rounding == "down" else ceil(share)
        if threshold > 0:
            active = []
            for f in candidates:
                why.add(self.activation_why.get((f.id, t.id)))
                if self.activation.get((f.id, t.id), 0) >= threshold:
                    active.append(f)
            candidates = active
            if not candidates:
                return why.ruling([], f"not activated: fewer than {threshold} movement points "
                                      "spent continuously in sight")
        drm = why.p("opfire.drm") + self.map.terrain(t.hex).drm
        combine = why.p("opfire.combine")
        groups: list[list[str]]
        if combine == "any":
            groups = [sorted(f.id for f in candidates)]
        elif combine == "adjacent-hex":
            groups = []
            by_hex: dict[Hex, list[str]] = {}
            for f in candidates:
                if adjacent(f.hex, t.hex):
                    by_hex.setdefault(f.hex, []).append(f.id)
                else:
                    groups.append([f.id])
            groups += [sorted(ids) for ids in by_hex.values()]
        elif combine == "none":
            groups = [[f.id] for f in candidates]
        else:
            raise DataError(f"opfire.combine: unknown value {combine!r} "
                              "(the engine knows none, any, adjacent-hex)")
        value = [{"firers": g, "drm": drm} for g in sorted(groups)]
        return why.ruling(value, "open")

    def retrace_options(self, target: str, at: str | Hex) -> Ruling:
        """The opportunity fire attacks open on the mover taken back to hex ``at`` of its path.

        Where the rules let the firing player retrace the move (``opfire.retrace``),
        an attack may be announced at any hex the mover entered in this move: the
        attacks that were open as it entered that hex, by firers still able to fire.
        In the hex it stands in, while it moves, this is :meth:`opfire_options`.
        Once its move has ended, the mover may still be taken back (its last hex
        included) until the next move begins or the phase ends; after that, or
        where the rules allow no retracing, nothing is open.
        """
        t = self.unit(target)
        h = self.hex(at)
        mv = self.move
        finished = False
        if (mv is None or mv.unit != t.id) and self.retrace_move is not None \
                and self.retrace_move.unit == t.id:
            mv, finished = self.retrace_move, True
        if mv is None or mv.unit != t.id or t.eliminated:
            last = self.last_move
            if t.eliminated or last is None or last.unit != t.id:
                return Why(self.rules).ruling([], "only a unit on the move may be attacked")
            why = Why(self.rules)
            if not why.p("opfire.enabled"):
                return why.ruling([], "the rulebook has no opportunity fire")
            if not why.p("opfire.retrace"):
                return why.ruling([], "no retracing: an attack is announced as the mover enters "
                                      "a hex, and its move is over")
            return why.ruling([], f"too late to take {t.id} back: another move has begun or "
                                  "the phase has ended since its move")
        if not finished and h == t.hex:
            return self.opfire_options(target)
        entries = [e for e in mv.entries if e.hex == label(h)]
        if not entries:
            raise _refused(f"{t.id} has not entered {label(h)} in this move", Why(self.rules),
                           "opfire.retrace")
        why = Why(self.rules)
        if not why.p("opfire.enabled"):
            return why.ruling([], "the rulebook has no opportunity fire")
        if not why.p("opfire.retrace"):
            if finished:
                return why.ruling([], "no retracing: an attack is announced as the mover enters "
                                      "a hex, and its move is over")
            return why.ruling([], "no retracing: an attack is announced as the mover enters a hex")
        if mv.stopped:
            why.add(mv.stop_why)
            return why.ruling([], "the mover has stopped: its move is over")
        limit = why.p("opfire.per-target-per-phase")
        if limit and self.opfire_on.get(t.id, 0) >= limit:
            return why.ruling([], "already attacked by opportunity fire this phase")
        then = entries[-1].opfire
        why.add(then)
        per_firer = why.p("opfire.per-firer-per-phase")
        value = []
        for group in then.value:
            ready = [fid for fid in group["firers"]
                     if not self._firer_problem(self.unit(fid), t, why)
                     and not (per_firer and self.opfire_by.get(fid, 0) >= per_firer)]
            if ready:
                value.append({"firers": ready, "drm": group["drm"]})
        if not value:
            return why.ruling([], f"nothing open there now ({then.detail})")
        return why.ruling(value, f"open when it entered {label(h)}")

    def opportunity_fire(self, firers: list[str], result: str, at: str | Hex | None = None) -> Ruling:
        """Opportunity fire on the current mover with a given outcome (if the attack is open).

        ``at`` names an earlier hex of the move, where the rules allow retracing
        (:meth:`retrace_options`): the mover is taken back there, attacked, and
        may go on from there if unharmed. With no move in progress, the attack
        is on the unit that moved last: where retracing is allowed and no other
        move has begun since (nor the phase ended), it may be attacked at any
        hex of that move, its last one by default; taken back to an earlier hex,
        its move is open again from there. Otherwise the ruling says why not.
        """
        _check_result(result)
        mv = self.move
        if mv is None:
            mv = self.last_move
            if mv is None:
                raise _refused("opportunity fire needs a unit on the move", Why(self.rules),
                               "opfire.enabled")
        finished = mv is not self.move
        if not firers:
            raise DataError("no firing unit named for the opportunity fire attack")
        for fid in firers:
            self.unit(fid)
        t = self.unit(mv.unit)
        back = self.hex(at) if at is not None else t.hex
        if back != t.hex or finished:
            open_ = self.retrace_options(t.id, back)
        else:
            open_ = self.opfire_options(t.id)
        group = next((g for g in open_.value if set(firers) <= set(g["firers"])), None)
        if group is None:
            return Ruling(False, open_.reasons, open_.settings, f"not open: {open_.detail}")
        why = Why(self.rules)
        why.add(open_)
        after = why.p("opfire.firer-after")
        if after not in ("inverted", "opportunity-counter"):
            raise DataError(f"opfire.firer-after: unknown value {after!r} "
                              "(the engine knows inverted, opportunity-counter)")
        if back != t.hex:           # take the mover back along its path
            k = max(i for i, e in enumerate(mv.entries) if e.hex == label(back))
            mv.entries = mv.entries[:k + 1]
            mv.path = mv.path[:k + 1]
            mv.spent = sum(e.mp for e in mv.entries)
            mv.moving_spotted = mv.entries[-1].spotted
            self._place(t, back)
            self.log.append(f"{t.id} taken back to {label(back)}")
            if finished:            # its move is open again, from the hex it was taken back to
                self.move, self.retrace_move = mv, None
        self._attack_mover(t, mv, result, "opfire.dispersed-mover-stops")
        self.opfire_on[t.id] = self.opfire_on.get(t.id, 0) + 1
        for fid in firers:
            f = self.unit(fid)
            self.opfire_by[fid] = self.opfire_by.get(fid, 0) + 1
            placing = Why(self.rules)
            placing.settings["opfire.firer-after"] = why.settings["opfire.firer-after"]
            if after == "inverted":
                f.face_up = False
                self.state_why.setdefault(fid, Why(self.rules)).add(placing)
            else:
                f.place(Marker("opportunity-fire", placing.ruling("opportunity-fire")))
            self._spot_firer(f, opportunity=True)
        self._markers_housekeeping()
        if mv.entries:
            mv.entries[-1].attacks.append({"opfire": sorted(firers), "result": result})
        return why.ruling(True, f"made, drm {group['drm']}")

    def _attack_mover(self, t: Unit, mv: Move, result: str, rule: str | None = None) -> None:
        """Apply ``result`` to the mover. An eliminated mover's move is over; a dispersed one
        stops where it is, as parameter ``rule`` says (no rule: it stops)."""
        t.apply_result(result, self.turn)
        if t.eliminated:
            self._remove_marker(t)
            mv.stopped = True
        elif result in ("D", "DD"):
            if rule is None:
                mv.stopped = True
            else:
                why = Why(self.rules)
                if why.p(rule):
                    mv.stopped = True
                    mv.stop_why = why

    # -------------------------------------------------------- interdiction
    def interdiction_options(self, target: str) -> Ruling:
        """The interdiction attacks open on ``target`` now: ``[{firer, hex, drm}]``."""
        why = Why(self.rules)
        t = self.unit(target)
        mv = self.move
        if not why.p("interdiction.enabled"):
            return why.ruling([], "the rulebook has no interdiction")
        if t.eliminated or mv is None or mv.unit != t.id:
            return why.ruling([], "only a unit on the move may be interdicted")
        if mv.stopped:
            why.add(mv.stop_why)
            return why.ruling([], "the mover has stopped: its move is over")
        firers = [f for f in self.enemies_of(t) if t.hex in f.registration and f.indirect_fire]
        if not firers:
            return why.ruling([], "no registration marker of an indirect-fire unit in the hex")
        per_firer = why.p("interdiction.per-firer-per-phase")
        if per_firer:
            firers = [f for f in firers if self.interdicted_by.get(f.id, 0) < per_firer]
            if not firers:
                return why.ruling([], "each unit registered on the hex has made its interdiction "
                                      f"attack this phase ({per_firer} a unit)")
        for f in firers:
            if not f.face_up:
                why.add(self._state_why(f))   # e.g. turned face down by an earlier attack
        firers = [f for f in firers if f.face_up and not f.dispersed]
        if not firers:
            return why.ruling([], "no registration marker of an eligible unit in the hex")
        limit = why.p("interdiction.per-target-per-phase")
        if limit and self.interdicted.get(t.id, 0) >= limit:
            return why.ruling([], "already interdicted this phase")
        ok, detail = self._spotted(t, why)
        if not ok:
            return why.ruling([], f"not spotted ({detail})")
        if why.p("interdiction.needs-observer"):
            observers = [o for o in self.enemies_of(t) if o.face_up and not o.dispersed
                         and self.sees(o.hex, t.hex)]
            if not observers:
                return why.ruling([], "no face-up observer has line of sight to the hex")
        drm = why.p("interdiction.drm") + self.map.terrain(t.hex).drm
        if why.p("interdiction.combine"):
            value = [{"firers": sorted(f.id for f in firers), "hex": label(t.hex), "drm": drm}]
        else:
            value = [{"firer": f.id, "hex": label(t.hex), "drm": drm} for f in sorted(firers, key=lambda f: f.id)]
        return why.ruling(value, "open")

    def interdict(self, firer: str, result: str) -> Ruling:
        """An interdiction attack on the current mover with a given outcome (if open)."""
        _check_result(result)
        mv = self.move
        if mv is None:
            raise _refused("interdiction needs a unit on the move", Why(self.rules),
                           "interdiction.enabled")
        self.unit(firer)
        t = self.unit(mv.unit)
        open_ = self.interdiction_options(t.id)
        if not any(o.get("firer") == firer or firer in o.get("firers", []) for o in open_.value):
            return Ruling(False, open_.reasons, open_.settings, f"not open: {open_.detail}")
        self._attack_mover(t, mv, result)
        self.interdicted[t.id] = self.interdicted.get(t.id, 0) + 1
        self.interdicted_by[firer] = self.interdicted_by.get(firer, 0) + 1
        # The firer's lot is its own state, with its own reasons (what the attack did to the
        # target is the attack's ruling): face down until its own player turn ends
        # (sequence.face-up), so no indirect fire and no move in that turn.
        placing = Why(self.rules)
        if placing.p("interdiction.firer-inverted"):
            self.unit(firer).face_up = False
            self.state_why.setdefault(firer, Why(self.rules)).add(placing)
        self._markers_housekeeping()
        if mv.entries:
            mv.entries[-1].attacks.append({"interdiction": firer, "result": result})
        return Ruling(True, open_.reasons, open_.settings, "made")

    # --------------------------------------------------------- the sequence
    def _reset_phase(self) -> None:
        self._forfeit_owed_markers()
        self.unload_why.clear()
        self.retrace_move = None
        self.opfire_on.clear()
        self.opfire_by.clear()
        self.interdicted.clear()
        self.interdicted_by.clear()
        self.moves.clear()
        self.activation.clear()
        self.activation_why.clear()

    def end_phase(self) -> None:
        """End the current phase: fire -> movement -> (end of the player turn)."""
        if self.move is not None:
            self.end_move()
        if self.phase == "fire":
            self.phase = "movement"
            self._reset_phase()
        else:
            self.end_turn()

    def end_turn(self) -> None:
        """End the player turn of the side to play, with the rulebook's housekeeping."""
        if self.move is not None:
            self.end_move()
        self._forfeit_owed_markers()    # the movement phase is over
        ending = self.side
        when = Why(self.rules).p("sequence.face-up")
        if when != "own-turn-end":
            raise DataError(f"sequence.face-up: unknown value {when!r} (the engine knows "
                            "own-turn-end)")
        # the ending side's movement phase is over (or was passed): markers placed then go on
        # before its units are turned face up again
        self._mark_at_end_of_movement(ending)
        for u in self.alive():
            if u.side == ending:
                u.face_up = True
                u.unmark("opportunity-fire")
                self.state_why.pop(u.id, None)
                if u.dispersed and u.dispersed_in < self.turn:
                    u.dispersal = "none"
            else:
                # turned down (or given an opportunity fire counter) in this turn of the enemy's:
                # it stays so through its own next turn, as sequence.face-up says
                if not u.face_up or "opportunity-fire" in u.markers:
                    stays = Why(self.rules)
                    stays.p("sequence.face-up")
                    if not u.face_up:
                        self.state_why.setdefault(u.id, Why(self.rules)).add(stays)
                    if "opportunity-fire" in u.markers:
                        u.place(u.markers["opportunity-fire"].keep(stays.ruling("opportunity-fire")))
                if "spotted" in u.markers:
                    clears = Why(self.rules)
                    if clears.p("spot.turn-end-clears-movers") and u.movement > 0:
                        self._remove_marker(u, clears)
                    else:   # kept: the housekeeping rule was applied and spared it
                        u.place(u.markers["spotted"].keep(clears.ruling("spotted")))
                if "opportunity-spotted" in u.markers:
                    turns = Why(self.rules)
                    if turns.p("spot.turn-end-promotes-opportunity"):
                        # turned over by the rule; a spotted marker it also had stays in its history
                        before = u.unmark(*SPOTTED_MARKERS)
                        m = before[-1].turned("spotted", turns.ruling("spotted"))
                        for other in before[:-1]:
                            m = Marker(m.kind, m.placed, m.kept + other.rulings(), m.was)
                        u.place(m)
        i = self.sides.index(ending)
        self.side = self.sides[(i + 1) % len(self.sides)]
        self.phase = "fire"
        self.turn += 1
        self._reset_phase()
        for u in self.alive():
            if u.side == self.side and u.marked(*SPOTTED_MARKERS):
                own = Why(self.rules)
                if own.p("spot.markers-off-own-fire-phase"):
                    self._remove_marker(u, own)
                else:
                    for m in u.markers_of(*SPOTTED_MARKERS):
                        u.place(m.keep(own.ruling(m.kind)))
        self._markers_housekeeping()

    # ------------------------------------------------------------- reading
    def markers(self, uid: str) -> Ruling:
        """The markers on a unit; the reasons are the clauses that put them there and kept them on.

        Each marker carries its own reasons (:class:`~harmony.games.panzerblitz.units.Marker`); the
        ruling's ``detail`` names the clauses behind each one, or says that the
        scenario's set-up placed it (no clause's doing). With no spotted marker,
        the reasons are those of the rule that last took it off.
        """
        u = self.unit(uid)
        why = Why(self.rules)
        if not u.marked(*SPOTTED_MARKERS) and u.id in self.unmark_why:
            why.add(self.unmark_why[u.id])
        for m in u.markers_of(*SPOTTED_MARKERS, "opportunity-fire"):
            why.add(m.ruling())
        return why.ruling(sorted(u.markers), "; ".join(m.describe() for m in
                                                      u.markers_of(*sorted(u.markers))))

    def _state_why(self, u: Unit) -> Why:
        """What put a unit in a state that bars it from firing: turned face down after
        opportunity fire or interdiction, or its opportunity fire counter."""
        why = Why(self.rules)
        why.add(self.state_why.get(u.id))
        for m in u.markers_of("opportunity-fire"):
            why.add(m.ruling())
        return why

    def where(self, uid: str) -> str:
        u = self.unit(uid)
        return "eliminated" if u.eliminated else label(u.hex)

    def snapshot(self) -> dict:
        """Plain data for diagrams: units, the side and phase, markers."""
        return {"turn": self.turn, "side": self.side, "phase": self.phase,
                "units": [u.state() for u in self.units.values()]}


__all__ = ["Game", "Entry", "Move", "EngineError", "Ruling", "Ruleset", "parse_label"]
