"""The Combat Patrol game: scenarios on a table in inches, and the night rules of 7.11.

Each rule is asked through the game (scenarios played, rulings with their clauses), and
each refusal (a negative length, a team of no figures, a light or moon the tables do
not have, the night rules asked of a ruleset without them) is a clear error at its
place, never a traceback.
"""
import copy
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from harmony import game
from harmony.diagnostics import Report
from harmony.games.combatpatrol import GAME
from harmony.games.combatpatrol.calculator import CombatPatrol
from harmony.games.combatpatrol.figures import Figure, FigureError, Point, Table, inches, teams_of
from harmony.games.combatpatrol.night import Light, Night, NightError
from harmony.games.combatpatrol.scenario import check_scenario
from harmony.loader import load
from harmony.model import Scenario
from harmony.ruleset import ruleset_for

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"


@pytest.fixture(scope="module")
def model():
    return load(RULES)[0]


def night(model, ruleset="CP+night-fighting", moon="no-moon", woods=None):
    table = Table.from_data({"inches": [48, 36], "woods": woods or []})
    return Night(ruleset_for(model, ruleset), CombatPatrol(model), table, moon)


def fig(fid, x, y, **kw):
    return Figure(fid, "t", "side", Point(Fraction(x), Fraction(y)), **kw)


def test_the_shipped_scenario_plays_and_every_ruling_matches(model):
    result = game.played(model, "cp-night-sight")
    assert game.scenario_game(model, model.scenarios["cp-night-sight"]) is GAME
    assert not result.errors
    assert len(result.rulings) == 13 and all(r.ok for r in result.rulings)


@pytest.mark.parametrize("moon,limit", [("no-moon", 6), ("half-moon", 12), ("full-moon", 24)])
def test_seen_exactly_at_the_table_6_distance_and_not_a_hair_beyond(model, moon, limit):
    n = night(model, moon=moon)
    spotter = fig("a", 0, 0)
    assert n.seen(spotter, fig("b", limit, 0), []).value is True
    beyond = n.seen(spotter, fig("b", Fraction(limit) + Fraction(1, 1000), 0), [])
    assert beyond.value is False
    assert beyond.reasons == ["alternate-spotting.night-sighting", "cp-night.seen"]


def test_a_device_sees_further(model):
    n = night(model)
    assert n.seen(fig("a", 0, 0, vision="second-generation"), fig("b", 12, 0), []).value is True
    assert n.seen(fig("a", 0, 0), fig("b", 12, 0), []).value is False


def test_woods_limit_sight_between_figures_of_one_patch_only(model):
    woods = [{"id": "w", "from": [0, 0], "to": [10, 10]}]
    n = night(model, moon="full-moon", woods=woods)
    inside = n.seen(fig("a", 1, 1), fig("b", 5, 1), [])         # 4 inches, one patch
    assert inside.value is False and "cp-night.woods" in inside.reasons
    assert n.seen(fig("a", 1, 1), fig("b", 4, 1), []).value is True
    outside = n.seen(fig("a", 1, 1), fig("b", 15, 1), [])      # target out of the woods
    assert outside.value is True and "cp-night.woods" not in outside.reasons


def test_lit_areas_make_a_figure_seen_at_any_distance(model):
    n, cp = night(model), CombatPatrol(model)
    table = Table.from_data({"inches": [48, 36]})
    flare = Light.of(cp, table, {"id": "f", "kind": "medium-flare", "at": [40, 30],
                                 "template-radius": 1})
    # medium flare: three times the template radius
    assert n.seen(fig("a", 0, 0), fig("b", 43, 30), [flare]).value is True
    assert n.seen(fig("a", 0, 0), fig("b", 44, 30), [flare]).value is False
    fire = Light.of(cp, table, {"id": "x", "kind": "large-fire", "from": [30, 0], "to": [32, 2]})
    seen = n.seen(fig("a", 0, 0), fig("b", 40, 2), [fire])     # 8 inches beyond the fire
    assert seen.value is True and "cp-night.large-fires" in seen.reasons
    beam = Light.of(cp, table, {"id": "s", "kind": "searchlight", "cone": [[20, 0], [30, 5], [30, 0]]})
    assert n.seen(fig("a", 0, 0), fig("b", 29, 1), [beam]).reasons == [
        "alternate-spotting.night-sighting", "cp-night.searchlights", "cp-night.seen"]
    assert n.seen(fig("a", 0, 0), fig("b", 21, 4), [beam]).value is False


def test_backlit_within_twice_the_distance(model):
    n, cp = night(model), CombatPatrol(model)
    lamp = Light.of(cp, Table.from_data({"inches": [48, 36]}),
                    {"id": "l", "kind": "point-light", "at": [20, 0], "template-radius": 1})
    assert n.seen(fig("a", 0, 0), fig("b", 12, 0), [lamp], lamp).value is True
    assert n.seen(fig("a", 0, 0), fig("b", 13, 0), [lamp], lamp).value is False
    assert n.seen(fig("a", 0, 0), fig("b", 12, 0), [lamp]).value is False


def test_muzzle_flash_shifts_only_where_the_firer_stands(model):
    n = night(model)
    target = fig("b", 30, 0)
    assert n.shifts(fig("a", 0, 0), target, [], {"b": target.at}).value == 2
    assert n.shifts(fig("a", 0, 0), target, [], {"b": Point(Fraction(31), Fraction(0))}).value is None
    assert n.shifts(fig("a", 0, 0), fig("b", 3, 0), [], {}).value == 0


@pytest.mark.parametrize("guts,trained,after", [("elite", False, "regular"), ("regular", False, "green"),
                                                ("green", False, "green"), ("elite", True, "elite")])
def test_guts_at_night(model, guts, trained, after):
    r = night(model).guts(fig("a", 0, 0, guts=guts, night_trained=trained))
    assert (r.value, r.reasons) == (after, ["cp-night.morale"])


def test_without_the_option_the_night_rules_refuse_naming_their_clause(model):
    with pytest.raises(NightError) as e:
        night(model, ruleset="CP").seen(fig("a", 0, 0), fig("b", 1, 0), [])
    assert e.value.clause == "cp-night.seen" and "night-fighting" in str(e.value)
    with pytest.raises(NightError) as e:
        night(model, ruleset="CP").guts(fig("a", 0, 0))
    assert e.value.clause == "cp-night.morale"
    with pytest.raises(NightError, match="not at night"):
        night(model, moon=None).seen(fig("a", 0, 0), fig("b", 1, 0), [])


@pytest.mark.parametrize("value", [-1, 2.5, "-1/2", "1/0", True, "x"])
def test_a_length_that_is_not_inches_is_refused(value):
    with pytest.raises(FigureError, match="is not a length in inches"):
        inches(value)


def test_a_team_of_no_figures_is_refused():
    with pytest.raises(FigureError, match="has no figure"):
        teams_of(Table.from_data({"inches": [5, 5]}), [{"id": "t", "side": "US", "figures": []}])


SCENARIO = {"id": "s", "rulesets": ["CP+night-fighting"], "map": {"inches": [20, 20]},
            "night": {"moon": "no-moon"},
            "teams": [{"id": "t", "side": "US", "figures": [{"id": "f", "at": [1, 1]}]}],
            "steps": [{"fire": "f"}]}


@pytest.mark.parametrize("change,message", [
    (lambda d: d["teams"][0]["figures"][0].update(at=[1, 25]), "(1, 25) is off the table"),
    (lambda d: d["teams"][0]["figures"][0].update(vision="cat-eyes"), "'cat-eyes' is not a vision of Table 6"),
    (lambda d: d["night"].update(moon="blue-moon"), "'blue-moon' is not a phase of the moon of Table 6"),
    (lambda d: d["steps"].append({"light": {"id": "l", "kind": "sun", "at": [1, 1]}}), "'sun' is not a light"),
    (lambda d: d["steps"].append({"move": {"figure": "g", "to": [1, 1]}}), "names figure 'g'"),
    (lambda d: d["steps"].append({"expect": [{"question": "q", "ask": {"seen": "f", "by": "f",
                                             "backlit-by": "lamp"}, "rulings": {}}]}),
     "names light 'lamp', which is not lit by then"),
    (lambda d: d["map"].update(inches=[0, 20]), "no room for a figure"),
])
def test_check_scenario_names_each_problem(model, change, message):
    data = copy.deepcopy(SCENARIO)
    change(data)
    report = Report()
    check_scenario(model, Scenario(id="s", data=data), report)
    assert len(report.diagnostics) == 1 and message in report.diagnostics[0].message


def test_the_schema_takes_a_map_in_inches_and_refuses_a_negative_length(tmp_path):
    import shutil
    from harmony.check import check_path
    folder = tmp_path / "rules"
    shutil.copytree(RULES, folder)
    sc = folder / "scenarios" / "cp-night-sight.yaml"
    text = sc.read_text()
    line = text.splitlines().index(next(x for x in text.splitlines() if "at: [14, 13]" in x)) + 1
    sc.write_text(text.replace("at: [14, 13]", "at: [-14, 13]"))
    _, report = check_path(folder)
    assert [(d.pos.line, d.code) for d in report.errors] == [(line, "schema-range")]
    assert "-14 is out of range" in report.errors[0].message


# ------------------------------------------------------------------ alternate spotting (7.12)

from harmony.games.combatpatrol.spotting import SpotError, Spotting  # noqa: E402


def spotting(model, figures, ruleset="CP+alternate-spotting", moon=None, woods=None, blocks=None):
    table = Table.from_data({"inches": [100, 60], "woods": woods or [], "blocks": blocks or []})
    return Spotting(ruleset_for(model, ruleset), CombatPatrol(model), table, moon, figures)


def team_fig(fid, team, side, x, y, **kw):
    return Figure(fid, team, side, Point(Fraction(x), Fraction(y)), platoon=team, **kw)


WOOD = [{"id": "w", "from": [40, 0], "to": [60, 20]}]


def squads(*extra):
    figs = {f.id: f for f in [team_fig("us", "u", "US", 10, 10), team_fig("de", "g", "DE", 45, 10),
                              team_fig("de2", "g", "DE", 46, 10), *extra]}
    return figs


def test_table_9_moving_vehicles_in_woods_are_spotted_by_infantry_but_not_personnel(model):
    tank = team_fig("tank", "g", "DE", 50, 10, kind="vehicle", sees_as="buttoned")
    s = spotting(model, squads(tank), woods=WOOD)
    s.automatic({"tank", "de"}, set())
    assert s.spotted("tank", "u").value is True
    assert "alternate-spotting.automatic" in s.spotted("tank", "u").reasons
    assert s.spotted("de", "u").value is False


def test_an_attempt_uses_the_card_symbol_after_table_10_shifts(model):
    s = spotting(model, squads(), woods=WOOD)
    s.activate("u")
    r = s.attempt("u", ["de", "de2"], ["miss", "miss", "bullet-hole"])   # medium, infantry: 2
    assert r.value is True and "alternate-spotting.modifiers" in r.reasons
    assert s.spotted("de2", "u").value is True


@pytest.mark.parametrize("setup,order,clause", [
    (lambda s: None, ("u", ["de"], ["bullet-hole"]), "alternate-spotting.attempt"),          # not active
    (lambda s: (s.activate("u"), s.attempt("u", ["de"], ["miss", "miss", "miss"])),
     ("u", ["de"], ["bullet-hole"] * 3), "alternate-spotting.attempt"),                      # twice
    (lambda s: s.activate("u"), ("u", ["de", "tank"], ["bullet-hole"] * 3),
     "alternate-spotting.attempt"),                                                          # mixed
    (lambda s: s.activate("u"), ("u", ["de", "far"], ["bullet-hole"] * 3),
     "alternate-spotting.attempt"),                                                          # too wide
    (lambda s: s.activate("u"), ("u", ["de"], ["miss"]), "alternate-spotting.attempt"),      # card short
    (lambda s: s.activate("u"), ("u", ["hid"], ["bullet-hole"] * 3),
     "alternate-spotting.line-of-sight"),                                                    # no sight
])
def test_an_attempt_the_rules_refuse_names_its_clause(model, setup, order, clause):
    extra = [team_fig("tank", "g", "DE", 47, 10, kind="vehicle", sees_as="buttoned"),
             team_fig("far", "g", "DE", 45, 14), team_fig("hid", "g", "DE", 10, 40)]
    s = spotting(model, squads(*extra), woods=WOOD,
                 blocks=[{"id": "wall", "from": [0, 30], "to": [20, 31]}])
    setup(s)
    with pytest.raises(SpotError) as e:
        s.attempt(*order)
    assert e.value.clause == clause


def test_without_the_option_spotting_questions_are_refused(model):
    s = spotting(model, squads(), ruleset="CP")
    with pytest.raises(SpotError) as e:
        s.spotted("de", "u")
    assert e.value.clause == "alternate-spotting.rule"


def test_a_spotted_figure_out_of_every_enemy_sight_at_the_end_of_its_activation_is_lost(model):
    figs = squads()
    s = spotting(model, figs, blocks=[{"id": "wall", "from": [20, 0], "to": [21, 60]}])
    s.automatic(set(), set())
    assert s.spotted("de", "u").value is False          # the wall hides both sides
    figs["de"] = replace(figs["de"], at=Point(Fraction(15), Fraction(10)))
    s.automatic({"de"}, set())
    assert s.spotted("de", "u").value is True           # in the open, in sight
    figs["de"] = replace(figs["de"], at=Point(Fraction(45), Fraction(10)))
    s.end_activation("g")
    lost = s.spotted("de", "u")
    assert lost.value is False and "alternate-spotting.persistence" in lost.reasons


def test_the_shipped_spotting_scenario_plays(model):
    result = game.played(model, "cp-spotting")
    assert not result.errors and len(result.rulings) == 7 and all(r.ok for r in result.rulings)


# ------------------------------------------------------------------ movement and command (7.2-7.4, 7.8)

from harmony.games.combatpatrol.command import Column, Command, CommandError, Platoon  # noqa: E402
from harmony.games.combatpatrol.movement import MoveError, Movement  # noqa: E402

SPRINT = "CP+sprinting+move-toward-leader"


def movement(model, figures, ruleset=SPRINT, leaders=None):
    return Movement(ruleset_for(model, ruleset), Table.from_data({"inches": [60, 40]}), figures,
                    leaders or {})


def P(x, y):
    return Point(Fraction(x), Fraction(y))


def test_a_sprint_moves_up_to_the_sum_of_its_cards_and_no_further(model):
    m = movement(model, {"a": fig("a", 0, 0)})
    m.move("a", P(9, 0), [Fraction(4), Fraction(5)], True)
    assert m.is_stunned("a").value is True
    m2 = movement(model, {"a": fig("a", 0, 0)})
    with pytest.raises(MoveError, match="may move 9 inches") as e:
        m2.move("a", P(9, Fraction(1, 100)), [Fraction(4), Fraction(5)], True)
    assert e.value.clause == "cp-movement.sprinting"


@pytest.mark.parametrize("cards,sprint,clause", [
    ([4], True, "cp-movement.sprinting"),                  # a sprint draws two cards
    ([4, 5], False, "cp-movement.sprint-commitment"),      # a walker gets no second card
])
def test_the_cards_of_a_move_are_checked(model, cards, sprint, clause):
    with pytest.raises(MoveError) as e:
        movement(model, {"a": fig("a", 0, 0)}).move("a", P(1, 0), [Fraction(c) for c in cards], sprint)
    assert e.value.clause == clause


def test_sprinting_is_refused_by_a_ruleset_without_it(model):
    with pytest.raises(MoveError, match="does not play sprinting") as e:
        movement(model, {"a": fig("a", 0, 0)}, ruleset="CP").move("a", P(1, 0), [Fraction(1)] * 2, True)
    assert e.value.clause == "cp-movement.sprinting"


def test_out_of_command_figures_may_only_move_toward_their_leader_and_not_fire(model):
    figs = {"sgt": fig("sgt", 0, 0), "b": fig("b", 10, 0)}
    m = movement(model, figs, leaders={"t": ("sgt", Fraction(6))})
    assert m.may_fire("b").value is False
    with pytest.raises(MoveError) as e:
        m.fire("b")
    assert e.value.clause == "cp-movement.out-of-command"
    with pytest.raises(MoveError, match="may only move toward sgt"):
        m.move("b", P(11, 0), None, False)
    m.move("b", P(6, 0), None, False)
    assert m.may_fire("b").value is True
    plain = movement(model, {"sgt": fig("sgt", 0, 0), "b": fig("b", 10, 0)}, ruleset="CP",
                     leaders={"t": ("sgt", Fraction(6))})
    plain.move("b", P(11, 0), None, False)               # without the option: no such limit


def command(model, ruleset="CP+activating-columns+platoon-leader-loss", second="sgt"):
    figs = {f.id: f for f in [Figure("lt", "hq", "US", P(0, 0), platoon="p"),
                              Figure("sgt", "hq", "US", P(1, 0), platoon="p"),
                              Figure("cpl", "sq", "US", P(2, 0), platoon="p"),
                              Figure("pvt", "sq", "US", P(3, 0), platoon="p")]}
    return Command(ruleset_for(model, ruleset), figs, [Platoon("p", "lt", second)],
                   [Column(["c1", "c2"], [3, 3])], {})


def test_a_platoon_without_a_second_in_command_is_pinned_at_once(model):
    c = command(model, second=None)
    c.incapacitate("lt")
    assert c.is_pinned("sq").value is True and c.is_pinned("sq").reasons == ["cp-movement.platoon-leader"]


def test_the_promotion_is_checked(model):
    c = command(model)
    with pytest.raises(CommandError, match="is not incapacitated"):
        c.reshuffle("p", "cpl", "pvt")
    c.incapacitate("lt")
    with pytest.raises(CommandError, match="is not another figure"):
        c.reshuffle("p", "cpl", "cpl")
    c.reshuffle("p", "cpl", "pvt")
    assert c.leader_of("p").value == "cpl"


def test_column_dice_go_front_first_even_when_equal(model):
    c = command(model)
    assert (c.card(3), c.card(3), c.card(3)) == ("c1", "c2", None)
    assert c.die_of("c2").value == 3


def test_leaving_a_column_needs_a_die_it_can_take(model):
    c = command(model)
    with pytest.raises(CommandError, match="name its die, one of \\[3, 3\\]") as e:
        c.leave("c2", 5)
    assert e.value.clause == "cp-movement.leaving-column"
    with pytest.raises(CommandError, match="in no column"):
        command(model, ruleset="CP").leave("c2", 3)


# ------------------------------------------------------------------ cavalry (7.10)

from harmony.games.combatpatrol.cavalry import Cavalry  # noqa: E402


def cavalry(model, ruleset="CP+cavalry"):
    figs = {"r": fig("r", 0, 0), "foot": fig("foot", 5, 0)}
    return Cavalry(ruleset_for(model, ruleset), figs, {"r"})


@pytest.mark.parametrize("cards,sprint,message", [
    ([4, 5], True, "gives no number of cards"),        # a gallop: the booklet leaves it open
    ([4], False, "draws 2 movement cards"),
    ([1, 1], False, "may move 2 inches"),
])
def test_mounted_moves_are_checked_by_the_movement_clause(model, cards, sprint, message):
    with pytest.raises(MoveError, match=message) as e:
        cavalry(model).check_move("r", P(3, 0), [Fraction(c) for c in cards], sprint)
    assert e.value.clause == "cp-cavalry.movement"


def test_a_rider_needs_the_cavalry_option(model):
    with pytest.raises(MoveError, match="does not play cavalry"):
        cavalry(model, ruleset="CP").check_move("r", P(3, 0), [Fraction(2)] * 2, False)


def test_a_horse_hit_with_no_burst_lets_the_rider_down_safely(model):
    c = cavalry(model)
    assert c.check_move("foot", P(6, 0), [Fraction(1)], False) is False     # on foot: not its job
    c.horse_hit("r", "none")
    assert c.rider_thrown("r").value is False and c.is_mounted("r").value is False
    with pytest.raises(MoveError, match="is not mounted"):
        c.horse_hit("r", "medium-burst")


def test_the_charge_bonus_needs_the_full_straight_run(model):
    c = cavalry(model)
    c.moved("r", P(0, 0), P(Fraction(39, 10), 0))
    assert c.melee_bonus("r", "foot").value == 0
    c.moved("r", P(0, 0), P(4, 0))
    assert c.melee_bonus("r", "foot").value == 1


# ------------------------------------------------------------------ vehicles and guns (7.5-7.7)

from harmony.games.combatpatrol.vehicles import Vehicles  # noqa: E402

M1 = "CP+small-arms-method-1+disabling-anti-tank-guns+soft-skinned-vehicles"


def vehicles(model, ruleset=M1):
    return Vehicles(ruleset_for(model, ruleset), CombatPatrol(model))


@pytest.mark.parametrize("penetration,effect", [(0, "crew-damage"), (4, "small-icon-knocks-out"),
                                                (9, "usual-procedure")])
def test_method_1_reads_table_5_by_penetration(model, penetration, effect):
    assert vehicles(model).hit("v", penetration, False, True).value == effect


def test_a_penetration_value_outside_table_5_is_refused(model):
    from harmony.games.combatpatrol.calculator import TableError
    with pytest.raises(TableError, match="-1 is not a penetration value for Table 5"):
        vehicles(model).hit("v", -1, True, True)


def test_without_either_method_a_hit_is_refused(model):
    with pytest.raises(MoveError, match="plays neither method") as e:
        vehicles(model, "CP").hit("v", 3, True, True)
    assert e.value.clause == "cp-vehicles.rule"


@pytest.mark.parametrize("size,over,icon,out", [("medium", True, "small-explosion", True),
                                                ("small", True, "small-explosion", False),
                                                ("large", False, "small-explosion", False),
                                                ("large", True, "large-explosion", False)])
def test_an_anti_tank_gun_is_disabled_only_as_section_7_6_says(model, size, over, icon, out):
    v = vehicles(model)
    v.he_burst("gun", size, over, icon)
    assert v.gun_disabled("gun").value is out and v.gun_disabled("gun").reasons == ["cp-vehicles.anti-tank-guns"]


def test_a_disabled_gun_stays_disabled_and_the_options_are_needed(model):
    v = vehicles(model)
    v.he_burst("gun", "medium", True, "small-explosion")
    v.he_burst("gun", "medium", True, "none")
    assert v.gun_disabled("gun").value is True
    with pytest.raises(MoveError, match="disabling-anti-tank-guns"):
        vehicles(model, "CP").he_burst("gun", "medium", True, "small-explosion")
    with pytest.raises(MoveError, match="soft-skinned-vehicles"):
        vehicles(model, "CP").engine_hit("truck", True)


# ------------------------------------------------------------------ body armour (7.9)

from harmony.games.combatpatrol.bodyarmour import BodyArmour  # noqa: E402


def armour(model, ruleset="CP+body-armour", worn=("V", ["torso"])):
    return BodyArmour(ruleset_for(model, ruleset), CombatPatrol(model), {"t": worn})


@pytest.mark.parametrize("penetration,die,result", [(1, 4, "stunned"), (1, 5, "wounded"),
                                                    (4, 1, "stunned"), (4, 2, "wounded"),
                                                    (0, 10, "incapacitated")])
def test_the_round_gets_through_only_when_penetration_and_die_beat_the_class(model, penetration, die,
                                                                               result):
    assert armour(model).hit("t", "incapacitated", False, "torso", penetration, die).value == result


def test_armour_refusals(model):
    from harmony.games.combatpatrol.calculator import TableError
    with pytest.raises(TableError, match="'killed' is not a hit's effect"):
        armour(model).hit("t", "killed", False, "torso", 1, 5)
    with pytest.raises(TableError, match="11 is not a face of the die icon"):
        armour(model).hit("t", "wounded", False, "torso", 1, 11)
    with pytest.raises(MoveError, match="does not play body armour") as e:
        armour(model, "CP").hit("t", "wounded", False, "torso", 1, 5)
    assert e.value.clause == "cp-body-armour.hit-location"
    with pytest.raises(MoveError, match="is not an armour class") as e:
        armour(model, worn=("XI", ["torso"])).hit("t", "wounded", False, "torso", 1, 5)
    assert e.value.clause == "cp-body-armour.classes"


# ------------------------------------------------------------------ the site

@pytest.mark.parametrize("sid", ["cp-night-sight", "cp-spotting", "cp-sprint", "cp-platoon", "cp-cavalry",
                                 "cp-vehicles", "cp-body-armour"])
def test_the_site_shows_each_cp_scenario_in_its_outcome_matrix(model, sid):
    from harmony.site.generate import scenario_view
    view = scenario_view(model, sid)
    cells = [c for row in view["matrix"]["rows"] for c in row["cells"]]
    assert cells and all(c["ok"] and c["reasons"] for c in cells if not c.get("missing"))
    assert not view["matrix"]["errors"]


def test_a_parameter_of_the_wrong_type_is_not_played_with(tmp_path):
    import shutil
    folder = tmp_path / "rules"
    shutil.copytree(RULES, folder)
    path = folder / "combat-patrol-body-armour.yaml"
    path.write_text(path.read_text().replace("params: {cp.armour-by-location: true}",
                                             "params: {cp.armour-by-location: '+0'}"))
    result = game.run_scenario(load(folder)[0], "cp-body-armour")
    [err] = result.errors
    assert err.code == "scenario-parameter" and "'cp.armour-by-location'" in err.message
    assert result.rulings and all(r.actual is None and not r.ok for r in result.rulings)
