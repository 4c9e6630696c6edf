"""The model written as JSON (harmony.modeljson) and read back is the loader's own: the same
objects in the same order, every position the same, every ruleset the same. The ruling
explorer reads its rules this way in the browser, so its rulings rest on this."""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from harmony import modeljson
from harmony.loader import load
from harmony.model import Located, Model
from harmony.ruleset import RulesetError, options_of, ruleset_for
from harmony.yamltree import node_pos, walk

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"
COLLECTIONS = ("sources", "topics", "clauses", "parameters", "glossary", "footnotes", "notes",
               "scenarios", "tables", "comparisons")


def located(value, out: list) -> list:
    """Every model object (with a place) inside ``value``, in order."""
    if isinstance(value, Located):
        out.append(value)
        for f in dataclasses.fields(value):
            if f.name not in ("file", "node"):
                located(getattr(value, f.name), out)
    elif isinstance(value, dict):
        for v in value.values():
            located(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            located(v, out)
    return out


def assert_same(json_model: Model, yaml_model: Model) -> None:
    for name in COLLECTIONS:
        a, b = getattr(json_model, name), getattr(yaml_model, name)
        assert list(a) == list(b), name
        assert a == b, name                      # every field but the file and the node
    assert json_model.files == yaml_model.files and json_model.root == yaml_model.root
    assert (json_model.game, json_model.game_pos) == (yaml_model.game, yaml_model.game_pos)
    assert json_model.identity == yaml_model.identity
    assert [(k, a.file, a.pos(), b.pos()) for k, a, b in json_model.duplicates] == \
        [(k, a.file, a.pos(), b.pos()) for k, a, b in yaml_model.duplicates]
    def objects(m: Model) -> list:    # (not the caches a model keeps in its __dict__)
        return located([getattr(m, n) for n in COLLECTIONS] + [m.identity], [])
    mine, theirs = objects(json_model), objects(yaml_model)
    assert len(mine) == len(theirs) > 0
    for a, b in zip(mine, theirs):
        assert (type(a), a.file, a.pos()) == (type(b), b.file, b.pos())
        if isinstance(b.node, dict) and hasattr(b.node, "lc"):
            for path, _ in walk(b.node):
                for key in (False, True):
                    assert node_pos(a.file, a.node, path, key=key) == node_pos(b.file, b.node, path, key=key), \
                        (a.file, path, key)


def test_the_shipped_rules_read_back_as_the_loader_reads_them(shipped_model):
    text = modeljson.dumps(RULES)
    model, problems = modeljson.loads(text)
    assert problems == []
    assert_same(model, shipped_model)
    # every ruleset (each source alone and with each of its options) resolves alike: the
    # same values, set by the same clauses (which clause wins goes by file and line)
    names = [k for k in shipped_model.sources]
    names += [f"{k}+{o}" for k in shipped_model.sources for o in options_of(shipped_model, k)]
    for name in names:
        try:
            expected = ruleset_for(shipped_model, name)
        except RulesetError as e:
            with pytest.raises(RulesetError, match=str(e)[:30]):
                ruleset_for(model, name)
            continue
        got = ruleset_for(model, name)
        assert (got.chain, got.options) == (expected.chain, expected.options), name
        assert {k: (s.value, s.clause, s.source, s.origin, s.unset) for k, s in got.settings.items()} == \
            {k: (s.value, s.clause, s.source, s.origin, s.unset) for k, s in expected.settings.items()}, name


def test_the_text_is_deterministic_json_of_plain_values():
    text = modeljson.dumps(RULES)
    assert modeljson.dumps(RULES) == text
    assert text.isascii()
    data = json.loads(text)
    assert data["format"] == modeljson.FORMAT and len(data["files"]) == len(load(RULES)[0].files)


def test_a_folder_with_problems_keeps_what_the_loader_keeps(tmp_path):
    """A file that does not parse, an item the schema refuses, a repeated id: the model read
    back holds what the loader's holds, and the problems come with it."""
    rules = tmp_path / "rules"
    shutil.copytree(RULES, rules)
    (rules / "broken.yaml").write_text("clauses: [\n", "utf-8")
    (rules / "half.yaml").write_text(
        "glossary:\n  - term: zzz-one\n    definition: Fine.\n  - term: zzz-two\n    definition: 3\n"
        "footnotes:\n  - id: zzz-note\n    source: PB\n    text: Fine too.\n", "utf-8")
    (rules / "again.yaml").write_text((RULES / "notes.yaml").read_text("utf-8"), "utf-8")
    yaml_model, report = load(rules)
    assert report.errors and yaml_model.duplicates
    model, problems = modeljson.loads(modeljson.dumps(rules))
    assert problems == [str(d) for d in report.errors]
    assert "zzz-one" in model.glossary and "zzz-two" not in model.glossary
    assert_same(model, yaml_model)


@pytest.mark.parametrize("text", ["", "[1]", '{"format": 99}', "{not json", '"x"'])
def test_text_that_is_not_a_model_is_refused_in_one_line(text):
    with pytest.raises(modeljson.ModelJSONError) as e:
        modeljson.loads(text)
    assert "\n" not in str(e.value) and "modeljson" in str(e.value)


def test_without_scenarios_the_model_is_the_same_but_for_them(shipped_model):
    """The explorer's bundle leaves the worked examples out (the page plays positions of its
    own): everything else, places and rulesets included, is the loader's."""
    model, problems = modeljson.loads(modeljson.dumps(RULES, scenarios=False))
    assert problems == [] and model.scenarios == {} and shipped_model.scenarios
    full = dataclasses.replace(shipped_model, scenarios={})
    assert_same(model, full)
    for name in shipped_model.sources:
        try:
            expected = ruleset_for(shipped_model, name)
        except RulesetError:
            continue
        assert {k: (s.value, s.clause) for k, s in ruleset_for(model, name).settings.items()} == \
            {k: (s.value, s.clause) for k, s in expected.settings.items()}
