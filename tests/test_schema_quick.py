"""The compiled schema validator (:func:`harmony.schema.quick_valid`) is trusted only to say
"valid": a file it accepts is not walked by jsonschema, so it must never accept a document
that jsonschema rejects, or the loader would lose that document's errors."""
from __future__ import annotations

import copy
import datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from harmony import schema

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "rules_data").rglob("*.yaml"))
DOCS = {p.relative_to(ROOT).as_posix(): yaml.load(p.read_bytes(), Loader=yaml.SafeLoader)
        for p in FILES}


def full_valid(data) -> bool:
    return not any(True for _ in schema.validator().iter_errors(data))


@pytest.mark.parametrize("name", sorted(DOCS))
def test_both_validators_accept_every_shipped_file(name):
    assert schema.quick_valid(DOCS[name]) is True
    assert full_valid(DOCS[name])


def _places(data, path=()):
    """Every (path, value) of a plain YAML document, the top included."""
    yield path, data
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _places(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _places(v, path + (i,))


def _at(data, path):
    for p in path:
        data = data[p]
    return data


values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 300) | st.floats(allow_nan=False, width=32)
    | st.text(max_size=12) | st.sampled_from(["", "PB", "REV", "spotting", "woods", "A1", "x y",
                                               "1/2", "+1", "rule", "nil", "yes"])
    | st.dates(min_value=datetime.date(1970, 1, 1), max_value=datetime.date(2030, 1, 1)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6)


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(DOCS)))
    doc = copy.deepcopy(DOCS[name])
    for _ in range(draw(st.integers(1, 3))):
        places = list(_places(doc))
        path, value = draw(st.sampled_from(places))
        kind = draw(st.sampled_from(["replace", "delete", "add-key", "copy-item", "retype"]))
        if kind == "replace" and path:
            _at(doc, path[:-1])[path[-1]] = draw(values)
        elif kind == "delete" and path:
            parent = _at(doc, path[:-1])
            del parent[path[-1]]
        elif kind == "add-key" and isinstance(value, dict):
            value[draw(st.sampled_from(["id", "title", "text", "note", "params", "extra",
                                        "status", "cite", "x"]))] = draw(values)
        elif kind == "copy-item" and isinstance(value, list) and value:
            value.append(copy.deepcopy(value[0]))
        elif kind == "retype" and path:
            parent = _at(doc, path[:-1])
            old = parent[path[-1]]
            parent[path[-1]] = (str(old) if not isinstance(old, str)
                                else [old] if draw(st.booleans()) else {"value": old})
    return name, doc


@settings(max_examples=400, deadline=None)
@given(mutated())
def test_the_quick_validator_never_accepts_what_jsonschema_rejects(case):
    name, doc = case
    if schema.quick_valid(doc):
        assert full_valid(doc), f"{name}: the quick validator accepted a document jsonschema rejects"


def test_a_rejected_file_is_still_reported_in_full(tmp_path):
    """Through the loader: a file the quick validator rejects gets jsonschema's positioned errors."""
    from harmony.loader import load
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "g.yaml").write_text("glossary:\n  - term: spotted\n    definition: 3\n    colour: red\n",
                                  "utf-8")
    _, report = load(rules)
    text = report.to_text()
    assert "g.yaml:4:5" in text and "colour" in text, text
    assert "g.yaml:3:17" in text, text


def test_the_quick_validator_changes_neither_the_schema_nor_the_document():
    schema._quick.cache_clear()
    schema.quick_check.cache_clear()
    before = copy.deepcopy(schema.schema())
    doc = copy.deepcopy(DOCS[sorted(DOCS)[0]])
    kept = copy.deepcopy(doc)
    schema.quick_valid(doc)
    assert schema.schema() == before     # fmt reads its key order from the schema
    assert doc == kept                   # no default written into the document


# ---------------------------------------------------------------- compiled ahead (the explorer's)

def _ahead() -> dict:
    """The validators the explorer's bundle ships (harmony.schema.compile_ahead), run from
    their source, as the browser runs them: without fastjsonschema."""
    from harmony.games.panzerblitz.explorer import schema_ahead
    namespace: dict = {}
    exec(compile(schema_ahead(), schema.AHEAD, "exec"), namespace)
    invalid = namespace["JsonSchemaException"]

    def checker(check):
        def accepts(data) -> bool:
            try:
                check(data)
            except invalid:
                return False
            return True
        return accepts
    return {ref: checker(check) for ref, check in namespace["VALIDATORS"].items()}


AHEAD = _ahead()
HEX_SCENARIOS = sorted(n for n, d in DOCS.items() if isinstance(d.get("scenario"), dict)
                       and "units" in d["scenario"])


def _parts(doc: dict) -> list[tuple[str, object]]:
    """The parts of a scenario file the explorer checks one by one: the scenario, each step,
    each question."""
    from harmony.games.panzerblitz.explorer import PARTS
    sc = doc["scenario"]
    out: list[tuple[str, object]] = [(PARTS["scenario"], sc)]
    for step in sc.get("steps") or []:
        out.append((PARTS["step"], step))
        out.extend((PARTS["expectation"], e) for e in step.get("expect") or [])
    return out


def _full(ref: str, data) -> bool:
    from jsonschema import Draft202012Validator
    if ref.endswith("/scenario"):      # the explorer asks about a file holding the scenario alone
        return full_valid({"scenario": data})
    return not any(True for _ in Draft202012Validator(schema.definition(ref)).iter_errors(data))


def test_the_validators_compiled_ahead_accept_every_part_of_every_shipped_scenario():
    assert HEX_SCENARIOS
    for name in HEX_SCENARIOS:
        for ref, part in _parts(DOCS[name]):
            assert AHEAD[ref](part) and _full(ref, part), (name, ref)


@st.composite
def mutated_part(draw):
    name = draw(st.sampled_from(HEX_SCENARIOS))
    ref, part = draw(st.sampled_from(_parts(DOCS[name])))
    part = copy.deepcopy(part)
    holder = {"part": part}
    for _ in range(draw(st.integers(1, 3))):
        path, value = draw(st.sampled_from(list(_places(holder))[1:]))
        kind = draw(st.sampled_from(["replace", "delete", "add-key", "copy-item"]))
        if kind == "replace":
            _at(holder, path[:-1])[path[-1]] = draw(values)
        elif kind == "delete" and len(path) > 1:
            del _at(holder, path[:-1])[path[-1]]
        elif kind == "add-key" and isinstance(value, dict):
            value[draw(st.sampled_from(["id", "at", "unit", "path", "mode", "ask", "rulings",
                                        "extra", "end", "note"]))] = draw(values)
        elif kind == "copy-item" and isinstance(value, list) and value:
            value.append(copy.deepcopy(value[0]))
    return name, ref, holder["part"]


@settings(max_examples=400, deadline=None)
@given(mutated_part())
def test_a_validator_compiled_ahead_never_accepts_what_jsonschema_rejects(case):
    name, ref, part = case
    if AHEAD[ref](part):
        assert _full(ref, part), f"{name}: {ref} compiled ahead accepted what jsonschema rejects"


def test_a_may_move_question_without_its_mode_is_refused_by_both_validators():
    """Found by the property above in CI: the schema said "may-move needs a mode" with
    ``dependentRequired``, a keyword of a later draft than the compiled validator knows, so
    it accepted the question without its mode. The schema says it with ``if``/``then`` now."""
    from harmony.games.panzerblitz.explorer import PARTS
    ref = PARTS["expectation"]
    asked = {"question": "May it?", "ask": {"may-move": "german-infantry"},
             "rulings": {"REV": {"value": True, "because": ["movement.modes"]}}}
    assert not AHEAD[ref](asked) and not _full(ref, asked)
    asked["ask"]["mode"] = "quick-march"
    assert AHEAD[ref](asked) and _full(ref, asked)
