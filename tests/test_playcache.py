"""Scenario results remembered across processes: a new process plays only the scenarios
whose text or resolved rulesets changed, and what it recalls is exactly what playing
would have given."""
from __future__ import annotations



from harmony import game, playcache
from harmony.check import check_path

from editing import clean_model, edit

STANDS_DOWN = "rev-interdictor-stands-down"
RUN = game.run_scenario     # playing, never recalling (the tests count the calls)


def _checks(monkeypatch) -> list[str]:
    """The scenarios the hex wargame actually checks (not recalled) from now on."""
    from harmony.games.panzerblitz import checks
    checked: list[str] = []
    real = checks.scenario_problems
    monkeypatch.setattr(checks, "scenario_problems", lambda sc: checked.append(sc.id) or real(sc))
    return checked


def _plays(monkeypatch) -> list[str]:
    """The scenarios actually played (not recalled) from now on."""
    played: list[str] = []
    real = game.run_scenario

    def counting(model, scenario_id, rulesets=None):
        played.append(scenario_id)
        return real(model, scenario_id, rulesets)
    monkeypatch.setattr(game, "run_scenario", counting)
    return played


def _fresh(model, sid):
    return RUN(model, sid)


def test_a_second_process_recalls_every_scenario_exactly(harmony_cache, rules_copy, new_process,
        monkeypatch):
    first = clean_model(rules_copy)
    played = _plays(monkeypatch)
    results = {sid: game.played(first, sid) for sid in sorted(first.scenarios)}
    assert played == sorted(first.scenarios)

    new_process()
    second = clean_model(rules_copy)
    played.clear()
    for sid in sorted(second.scenarios):
        recalled = game.played(second, sid)
        assert recalled.scenario is second.scenarios[sid]
        # the same rows, snapshots, map and errors as playing it now (and as the first process)
        fresh = _fresh(second, sid)
        assert recalled == fresh, sid
        assert recalled.rulings == results[sid].rulings
    assert played == [], "a scenario was played again though nothing changed"


def test_an_edit_to_a_parameter_plays_the_scenarios_again(harmony_cache, rules_copy, new_process,
        monkeypatch):
    model = clean_model(rules_copy)
    before = game.played(model, STANDS_DOWN)
    assert before.ok
    edit(rules_copy, "interdiction.yaml", "params: {interdiction.firer-inverted: true}",
         "params: {interdiction.firer-inverted: false}")
    new_process()
    played = _plays(monkeypatch)
    after_model = clean_model(rules_copy)
    after = game.played(after_model, STANDS_DOWN)
    assert STANDS_DOWN in played
    # no stale answer: the interdictor now stays face up, and the scenario's expectations fail
    assert after == _fresh(after_model, STANDS_DOWN)
    assert not after.ok and before.rulings != after.rulings


def test_an_edit_to_prose_alone_plays_nothing_again(harmony_cache, rules_copy, new_process,
        monkeypatch):
    model = clean_model(rules_copy)
    for sid in model.scenarios:
        game.played(model, sid)
    edit(rules_copy, "interdiction.yaml", "The firer is inverted after the attack",
         "After the attack the firer is inverted")
    new_process()
    played = _plays(monkeypatch)
    again = clean_model(rules_copy)
    for sid in again.scenarios:
        game.played(again, sid)
    assert played == []


def test_an_edit_to_the_scenario_plays_it_again_with_its_new_positions(harmony_cache, rules_copy, new_process,
        monkeypatch):
    model = clean_model(rules_copy)
    game.played(model, STANDS_DOWN)
    path = rules_copy / "scenarios" / f"{STANDS_DOWN}.yaml"
    path.write_text("# a comment line moves every position down\n" + path.read_text("utf-8"), "utf-8")
    new_process()
    played = _plays(monkeypatch)
    again = clean_model(rules_copy)
    result = game.played(again, STANDS_DOWN)
    assert played == [STANDS_DOWN]
    old = {(r.step, r.ruleset, r.question): r.pos.line for r in game.played(model, STANDS_DOWN).rulings}
    assert {(r.step, r.ruleset, r.question): r.pos.line - 1 for r in result.rulings} == old


def test_a_damaged_entry_is_a_miss_and_check_stays_clean(harmony_cache, rules_copy, new_process,
        monkeypatch):
    """Every entry cut short (a played result, its errors alone, a scenario's check): each
    scenario is checked and played again, and the check stays clean."""
    model = clean_model(rules_copy)
    check_path(rules_copy)
    kinds = (playcache.KIND, playcache.ERRORS, playcache.CHECKED)
    entries = {kind: sorted((harmony_cache / kind).rglob("*.pickle")) for kind in kinds}
    assert all(entries.values()), entries
    for p in (p for kind in kinds for p in entries[kind]):
        data = p.read_bytes()
        p.write_bytes(data[:len(data) // 2])
    new_process()
    played = _plays(monkeypatch)
    checked = _checks(monkeypatch)
    _, report = check_path(rules_copy)
    assert not report.errors and not report.warnings, report.to_text()
    assert sorted(played) == sorted(model.scenarios)    # every damaged entry played again
    hex_wargame = sorted(sid for sid, sc in model.scenarios.items()
                         if game.scenario_game(model, sc).name == "panzerblitz")
    assert sorted(checked) == hex_wargame != []         # and checked again


def test_an_entry_of_another_kind_under_the_key_is_a_miss(harmony_cache, rules_copy):
    model = clean_model(rules_copy)
    sc = model.scenarios[STANDS_DOWN]
    k = playcache.key(sc, [game.ruleset_for(model, "REV")])
    playcache.parsecache.put(k, b"not a pickle", playcache.KIND)
    assert playcache.recall(k, sc) is None
    playcache.parsecache.put(k, ["a list, not bytes"], playcache.KIND)
    assert playcache.recall(k, sc) is None


def test_cache_off_writes_nothing(tmp_path, rules_copy, monkeypatch):
    monkeypatch.setenv("HARMONY_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    model = clean_model(rules_copy)
    assert game.played(model, STANDS_DOWN).ok
    assert not (tmp_path / "xdg").exists()


def test_parsed_steps_are_recalled_exactly_and_read_again_after_an_edit(harmony_cache, rules_copy,
        new_process, monkeypatch):
    """A scenario's parsed steps come back from disk in a new process, equal to reading them
    now (positions included); an edit to the scenario file reads them again."""
    from harmony.games.panzerblitz import steps
    first = clean_model(rules_copy)
    fresh = {sid: steps.parse_steps(sc) for sid, sc in first.scenarios.items()}
    # (repr: the positions of values are left out of their equality, not of their repr)
    assert all(repr(steps.steps_of(sc)) == repr(fresh[sid]) for sid, sc in first.scenarios.items())
    assert list((harmony_cache / playcache.STEPS).rglob("*.pickle"))

    new_process()
    second = clean_model(rules_copy)
    read: list[str] = []
    real = steps.parse_steps
    monkeypatch.setattr(steps, "parse_steps", lambda sc: read.append(sc.id) or real(sc))
    for sid, sc in second.scenarios.items():
        assert repr(steps.steps_of(sc)) == repr(real(sc)) == repr(fresh[sid]), sid
    assert read == [], "steps read again though the scenario did not change"

    path = rules_copy / "scenarios" / f"{STANDS_DOWN}.yaml"
    path.write_text("# a comment line moves every position down\n" + path.read_text("utf-8"), "utf-8")
    new_process()
    third = clean_model(rules_copy)
    moved = steps.steps_of(third.scenarios[STANDS_DOWN])
    assert read == [STANDS_DOWN]
    assert repr(moved) == repr(real(third.scenarios[STANDS_DOWN])) != repr(fresh[STANDS_DOWN])


def test_a_second_check_finds_each_scenarios_problems_again_without_checking_or_playing_it(
        harmony_cache, rules_copy, new_process, monkeypatch):
    """What the hex wargame's check found in each scenario, and the errors of each play, come
    back from disk in a new process: the same diagnostics at the same positions, with neither
    the check nor the play run again. An edit to a scenario checks it again, at its new
    positions."""
    woods = rules_copy / "scenarios" / "aiw-moving-in-woods.yaml"     # a step the engine refuses
    woods.write_text(woods.read_text("utf-8") + "    - move: {unit: german-platoon, path: [D3]}\n", "utf-8")
    stands = rules_copy / "scenarios" / f"{STANDS_DOWN}.yaml"          # a unit that is not there
    stands.write_text(stands.read_text("utf-8") + "    - move: {unit: nobody, path: [D3]}\n", "utf-8")
    _, first = check_path(rules_copy)
    said = [(d.pos, d.severity, d.code, d.message) for d in first.diagnostics]
    assert {"scenario-step", "unresolved-unit"} <= {d.code for d in first.errors}, first.to_text()

    new_process()
    played = _plays(monkeypatch)
    checked = _checks(monkeypatch)
    _, second = check_path(rules_copy)
    assert [(d.pos, d.severity, d.code, d.message) for d in second.diagnostics] == said
    assert played == [] and checked == []

    stands.write_text("# a comment line moves every position down\n" + stands.read_text("utf-8"), "utf-8")
    new_process()
    _, third = check_path(rules_copy)
    assert checked == [STANDS_DOWN]

    def unresolved(report) -> list[tuple[int, int, str]]:
        return [(d.pos.line, d.pos.col, d.message) for d in report.errors if d.code == "unresolved-unit"]
    assert unresolved(third) == [(line + 1, col, message) for line, col, message in unresolved(first)] != []
