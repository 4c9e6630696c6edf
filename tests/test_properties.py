"""Properties of the engine on random small maps and units, under every shipped ruleset.

Hypothesis draws a board (terrain per hex, a few blocking hexsides), a handful
of units on two sides and a sequence of orders; the properties below must
hold whatever it draws. Example counts are kept small so the file runs in a
few seconds.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from harmony.games.panzerblitz.engine import EngineError, Game
from harmony.games.panzerblitz.hexgrid import adjacent, board, label, neighbours, parse_label
from harmony.loader import load
from harmony.games.panzerblitz.los import sight
from harmony.ruleset import Ruleset
from harmony.games.panzerblitz.terrain import HexMap

RULES = Path(__file__).resolve().parent.parent / "rules_data"
SIDES = ("German", "Soviet")
TERRAIN = ("clear", "clear", "clear", "woods", "town", "hill", "slope")
KINDS = [("armoured", "A"), ("infantry", "I"), ("gun", "A"), ("gun", "(H)"), ("gun", "H"),
         ("halftrack", "M"), ("truck", "A"), ("infantry", "C"), ("infantry", "C(I)")]
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@lru_cache(maxsize=None)
def model():
    m, report = load(RULES)
    assert not report.errors
    return m


@lru_cache(maxsize=None)
def ruleset_names() -> tuple[str, ...]:
    """Every rulebook of the shipped rules (commentary aside), alone and with each option,
    and with all its options together."""
    m = model()
    names = []
    for key, src in sorted(m.sources.items()):
        if src.kind == "commentary":
            continue
        chain, cur = [], key
        while cur and cur not in chain:
            chain.append(cur)
            cur = m.sources[cur].base
        options = sorted({c.option for cl in m.clauses.values() for s, c in cl.cells.items()
                          if s in chain and c.option})
        names.append(key)
        names += [f"{key}+{o}" for o in options]
        if len(options) > 1:
            names.append("+".join([key] + options))
    return tuple(names)


@lru_cache(maxsize=None)
def ruleset(name: str) -> Ruleset:
    return Ruleset.from_model(model(), name)


def test_the_rulesets_cover_every_rulebook_and_option():
    names = ruleset_names()
    for must in ("PB", "PL", "PL+opportunity-fire", "AIW", "REV", "REV+concealed-movement", "DB"):
        assert must in names
    assert "HARMONY" not in names


# ------------------------------------------------------------------ strategies

@st.composite
def maps(draw, min_size=3, max_size=6, terrain=TERRAIN):
    columns = draw(st.integers(min_size, max_size))
    rows = draw(st.integers(min_size, max_size))
    cells = [label(h) for h in board(columns, rows)]
    hexes = {c: t for c in cells if (t := draw(st.sampled_from(terrain))) != "clear"}
    data = {"columns": columns, "rows": rows, "hexes": hexes}
    sides = []
    for _ in range(draw(st.integers(0, 3))):
        a = parse_label(draw(st.sampled_from(cells)))
        on_map = [label(n) for n in neighbours(a) if label(n) in cells]
        if on_map:
            b = draw(st.sampled_from(on_map))
            key = frozenset((label(a), b))
            if key not in {frozenset(s["between"]) for s in sides}:
                sides.append({"between": [label(a), b],
                              "type": draw(st.sampled_from(["slope-side", "woods-side"]))})
    if sides:
        data["hexsides"] = sides
    return data


@st.composite
def unit_lists(draw, map_data, n_min=2, n_max=5):
    cells = [label(h) for h in board(map_data["columns"], map_data["rows"])]
    n = draw(st.integers(n_min, n_max))
    out = []
    for i in range(n):
        side = SIDES[i] if i < 2 else draw(st.sampled_from(SIDES))
        kind, cls = draw(st.sampled_from(KINDS))
        d = {"id": f"u{i}", "side": side, "kind": kind, "class": cls,
             "attack": 0 if kind == "truck" else draw(st.integers(1, 20)),
             "range": draw(st.integers(1, 10)), "defence": draw(st.integers(1, 10)),
             "movement": draw(st.integers(0, 6)), "at": draw(st.sampled_from(cells)),
             "dispersal": draw(st.sampled_from(["none", "none", "none", "D"])),
             "face": draw(st.sampled_from(["up", "up", "up", "down"]))}
        if cls in ("H", "(H)", "M"):
            d["registration"] = draw(st.lists(st.sampled_from(cells), max_size=3, unique=True))
        out.append(d)
    return out


@st.composite
def games(draw, names=None, side=None, phase="movement"):
    name = draw(st.sampled_from(names or ruleset_names()))
    side = side or draw(st.sampled_from(SIDES))
    m = draw(maps())
    units = draw(unit_lists(m))
    return Game.from_data(ruleset(name), m, units, side=side, phase=phase)


def concealed_and_unspotted(game: Game, uid: str, by: str | None = None) -> bool:
    u = game.unit(uid)
    return (not u.eliminated and game.map.terrain(u.hex).concealing
            and not game.spotted(uid, by).value)


def play_movement(game: Game, data, on_entry, results=("none", "none", "none", "D"), made=None):
    """Move every unit of the side to play along a random path, making some of the
    attacks the engine says are open; ``on_entry(game, entry)`` checks each hex entered
    (before the attacks there). The attacks made are appended to ``made`` as they happen,
    ``(kind, mover)``, and returned."""
    made = [] if made is None else made
    for u in [u for u in game.alive() if u.side == game.side]:
        mode = data.draw(st.sampled_from(["normal", "normal", "concealed", "revealed"]))
        try:
            game.begin_move(u.id, mode)
        except EngineError:
            continue
        for _ in range(data.draw(st.integers(0, 4))):
            if game.move is None or game.move.stopped or u.eliminated:
                break
            if mode == "revealed":
                where = u.hex
            else:
                options = [n for n in neighbours(u.hex) if game.map.contains(n)]
                where = data.draw(st.sampled_from(options))
            try:
                entry = game.enter(where)
            except EngineError:
                break
            on_entry(game, entry)
            for attack in list(entry.opfire.value):
                if data.draw(st.booleans()) and not game.move.stopped:
                    if game.opportunity_fire(attack["firers"], data.draw(st.sampled_from(results))):
                        made.append(("opfire", u.id))
            for attack in list(entry.interdiction.value):
                if data.draw(st.booleans()) and not game.move.stopped:
                    if game.interdict(attack["firer"], data.draw(st.sampled_from(results))):
                        made.append(("interdiction", u.id))
            # where the rules allow it, take the mover back and attack it at a hex it passed
            if len(game.move.path) > 1 and data.draw(st.booleans()) and not game.move.stopped:
                earlier = label(data.draw(st.sampled_from(game.move.path[:-1])))
                for attack in game.retrace_options(u.id, earlier).value:
                    if game.move.stopped:
                        break
                    if game.opportunity_fire(attack["firers"], data.draw(st.sampled_from(results)),
                                             at=earlier):
                        made.append(("opfire", u.id))
        game.end_move()
        # after the move and before the next one, where the rules allow it: take it back
        done = game.retrace_move
        if done is not None and done.unit == u.id and done.path and data.draw(st.booleans()):
            earlier = label(data.draw(st.sampled_from(done.path)))
            for attack in game.retrace_options(u.id, earlier).value:
                if game.opportunity_fire(attack["firers"], data.draw(st.sampled_from(results)),
                                         at=earlier):
                    made.append(("opfire", u.id))
                break                       # one attack; the move may have reopened
            if game.move is not None:       # taken back into a reopened move: end it again
                game.end_move()
    return made


# ------------------------------------------------------------------- LOS

@given(maps())
@SETTINGS
def test_los_is_symmetric(m):
    hexmap = HexMap.from_data(m)
    cells = hexmap.all_hexes()
    for i, a in enumerate(cells):
        for b in cells[i + 1:]:
            assert sight(hexmap, a, b).clear == sight(hexmap, b, a).clear, (label(a), label(b))


@given(maps(), st.data())
@SETTINGS
def test_adjacent_units_always_see_each_other(m, data):
    hexmap = HexMap.from_data(m)
    a = data.draw(st.sampled_from(hexmap.all_hexes()))
    b = data.draw(st.sampled_from([n for n in neighbours(a) if hexmap.contains(n)]))
    assert sight(hexmap, a, b).clear and sight(hexmap, b, a).clear
    name = data.draw(st.sampled_from(ruleset_names()))
    units = [{"id": "x", "side": "German", "kind": "armoured", "class": "A", "attack": 10,
              "range": 6, "defence": 6, "movement": 4, "at": label(a)},
             {"id": "y", "side": "Soviet", "kind": "infantry", "class": "I", "attack": 6,
              "range": 3, "defence": 6, "movement": 1, "at": label(b)}]
    g = Game.from_data(ruleset(name), m, units, side="German")
    assert g.los(label(a), label(b)).value and g.los(label(b), label(a)).value
    if ruleset(name)["spot.adjacent"]:
        assert g.spotted("x", by="Soviet").value and g.spotted("y", by="German").value


# ---------------------------------------------- cover without spotting is safe

@st.composite
def fights_in_cover(draw):
    """Woods and towns everywhere, movers of one side, ready firers and registered
    batteries of the other: the setting where the property has most to check. The
    revised rules, the only ones with interdiction, are drawn more often."""
    rev = [n for n in ruleset_names() if n.split("+")[0] == "REV"]
    name = draw(st.sampled_from(list(ruleset_names()) + rev * 2))
    m = draw(maps(terrain=("clear", "clear", "woods", "woods", "town")))
    cells = [label(h) for h in board(m["columns"], m["rows"])]
    cover = [c for c, t in m["hexes"].items() if t in ("woods", "town")] or cells
    units = []
    for i in range(draw(st.integers(1, 3))):
        kind, cls = draw(st.sampled_from(KINDS[:3]))
        units.append({"id": f"mover{i}", "side": "German", "kind": kind, "class": cls,
                      "attack": 8, "range": 6, "defence": 6, "movement": draw(st.integers(1, 6)),
                      "at": draw(st.sampled_from(cells))})
    for i in range(draw(st.integers(2, 4))):
        kind, cls = draw(st.sampled_from(KINDS[:3] + KINDS[-2:]))   # C units see but never spot
        units.append({"id": f"firer{i}", "side": "Soviet", "kind": kind, "class": cls,
                      "attack": 8, "range": draw(st.integers(3, 10)), "defence": 4,
                      "movement": 1, "at": draw(st.sampled_from(cells))})
    for i in range(draw(st.integers(0, 2))):
        units.append({"id": f"battery{i}", "side": "Soviet", "kind": "gun", "class": "(H)",
                      "attack": 20, "range": 30, "defence": 2, "movement": 1,
                      "at": draw(st.sampled_from(cells)),
                      "registration": draw(st.lists(st.sampled_from(cover), min_size=1,
                                                    max_size=4, unique=True))})
    side = draw(st.sampled_from(SIDES))
    return Game.from_data(ruleset(name), m, units, side=side, phase="movement")


@given(games(), st.data())
@SETTINGS
def test_an_unspotted_unit_in_cover_is_never_fired_on(game, data):
    check_cover_protects(game, data)


@given(fights_in_cover(), st.data())
@settings(SETTINGS, max_examples=80)
def test_an_unspotted_unit_in_cover_is_never_fired_on_in_a_fight(game, data):
    check_cover_protects(game, data)


def check_cover_protects(game, data):
    """Moves by the side to play, then the other side's fire phase: an unspotted unit in
    concealing terrain suffers no attack of any kind."""
    def on_entry(g, entry):
        mover = g.move.unit
        for ruling in (entry.spotted, entry.opfire, entry.interdiction):
            assert set(ruling.reasons) <= set(model().clauses), ruling.reasons
        if concealed_and_unspotted(g, mover):
            assert entry.opfire.value == [], (g.rules.name, entry.opfire.detail)
            assert entry.interdiction.value == [], (g.rules.name, entry.interdiction.detail)
            assert g.opfire_options(mover).value == []
            enemies = [e.id for e in g.enemies_of(g.unit(mover))]
            for e in enemies:
                assert not g.opportunity_fire([e], "X").value
                assert not g.interdict(e, "X").value
            assert not g.unit(mover).eliminated

    play_movement(game, data, on_entry)
    game.end_turn()                       # the other side's fire phase
    assert game.phase == "fire"
    for target in game.alive():
        if target.side == game.side or not concealed_and_unspotted(game, target.id, game.side):
            continue
        firers = [f.id for f in game.alive() if f.side == game.side]
        before = (target.dispersal, target.eliminated)
        for f in firers:
            assert not game.can_fire([f], target.id).value
            assert not game.fire([f], target.id, "X").value
        if firers:
            assert not game.can_fire(firers, target.id).value
            assert not game.fire(firers, target.id, "DD").value
        assert (target.dispersal, target.eliminated) == before


# ------------------------------------------------------ REV concealed movement

REV_CONCEALED = ("REV+concealed-movement", "REV+concealed-movement+revealed-movement+tournament")


@given(st.sampled_from(REV_CONCEALED), maps(), st.data())
@SETTINGS
def test_rev_concealed_movement_is_spotted_only_by_adjacency(name, m, data):
    cells = [label(h) for h in board(m["columns"], m["rows"])]
    start = parse_label(data.draw(st.sampled_from(cells)))
    target = data.draw(st.sampled_from([n for n in neighbours(start) if label(n) in cells]))
    m = {**m, "hexes": {**m["hexes"], label(target): data.draw(st.sampled_from(["woods", "town"]))}}
    units = data.draw(unit_lists(m))
    mover = {"id": "mover", "side": "German", "kind": "infantry", "class": "I", "attack": 6,
             "range": 3, "defence": 6, "at": label(start),
             "movement": data.draw(st.integers(1, 6))}
    ma_one = mover["movement"] == 1
    # a battery registered on the hex entered, and a face-up watcher somewhere
    battery = {"id": "battery", "side": "Soviet", "kind": "gun", "class": "(H)", "attack": 20,
               "range": 30, "defence": 2, "movement": 1, "at": data.draw(st.sampled_from(cells)),
               "registration": [label(target)]}
    watcher = {"id": "watcher", "side": "Soviet", "kind": "infantry", "class": "I", "attack": 6,
               "range": 4, "defence": 6, "movement": 1, "at": data.draw(st.sampled_from(cells))}
    g = Game.from_data(ruleset(name), m, units + [mover, battery, watcher], side="German",
                       phase="movement")
    mode = "normal" if ma_one and data.draw(st.booleans()) else "concealed"
    g.begin_move("mover", mode)
    entry = g.enter(label(target))
    spotted = g.spotted("mover")
    if spotted.value or entry.spotted.value:
        assert any(adjacent(e.hex, target) for e in g.enemies_of(g.unit("mover"))), spotted.detail
        assert spotted.detail.startswith("adjacent to"), spotted.detail
    if not spotted.value:
        assert entry.opfire.value == [] and entry.interdiction.value == []
    g.end_move()
    assert g.markers("mover").value == []


# ------------------------------------------------------------ opportunity fire

@given(games(names=("PB",)), st.data())
@SETTINGS
def test_pb_never_opens_opportunity_fire(game, data):
    seen = []

    def on_entry(g, entry):
        seen.append(entry)
        assert entry.opfire.value == [] and entry.interdiction.value == []
        for e in g.enemies_of(g.unit(g.move.unit)):
            assert not g.opportunity_fire([e.id], "X").value

    assert play_movement(game, data, on_entry) == []
    assert not any(e.attacks for e in seen)


@st.composite
def firing_lines(draw, names):
    """Mostly open ground, German tanks on the move, several Soviet guns ready to fire."""
    name = draw(st.sampled_from(names))
    m = draw(maps(min_size=4, max_size=5, terrain=("clear", "clear", "clear", "clear", "woods")))
    cells = [label(h) for h in board(m["columns"], m["rows"])]
    units = []
    for i in range(draw(st.integers(1, 2))):
        units.append({"id": f"tank{i}", "side": "German", "kind": "armoured", "class": "A",
                      "attack": 10, "range": 8, "defence": 8, "movement": draw(st.integers(3, 6)),
                      "at": draw(st.sampled_from(cells))})
    for i in range(draw(st.integers(2, 5))):
        units.append({"id": f"gun{i}", "side": "Soviet", "kind": "gun", "class": "A",
                      "attack": 10, "range": draw(st.integers(4, 12)), "defence": 3,
                      "movement": 1, "at": draw(st.sampled_from(cells))})
    return Game.from_data(ruleset(name), m, units, side="German", phase="movement")


REV_NAMES = tuple(n for n in ruleset_names() if n.split("+")[0] == "REV")


@given(firing_lines(REV_NAMES), st.data())
@SETTINGS
def test_rev_attacks_a_mover_by_opportunity_fire_at_most_once_a_phase(game, data):
    for _ in range(2):                    # two German movement phases
        made: list = []

        def on_entry(g, entry):
            if ("opfire", g.move.unit) in made:
                assert entry.opfire.value == [], entry.opfire.detail

        play_movement(game, data, on_entry, results=("none", "none", "none", "D", "X"), made=made)
        per_mover = Counter(mover for kind, mover in made if kind == "opfire")
        assert all(n <= 1 for n in per_mover.values()), per_mover
        game.end_turn()
        game.end_turn()
        game.end_phase()
        assert (game.side, game.phase) == ("German", "movement")
