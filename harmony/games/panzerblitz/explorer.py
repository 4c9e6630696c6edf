"""The ruling explorer's Python side: a position in, every ruleset's rulings out, as JSON.

A *position* is a scenario body: the mapping under ``scenario:`` of a
scenario file (``site/scenarios.rst``) without its id, title and summary, with
or without ``expect``. The explorer page runs this module in the browser
(Pyodide) and talks to it in JSON text only; nothing here raises on a bad
position: the answer is ``{"error": {"message": ..., "path": "units[2].at"}}``.

:meth:`Explorer.decide` adds to the position the questions the engine can
answer about its last step (:func:`questions`), writes the whole as a
scenario file, reads it back with the project's one loader and schema, checks
it as ``harmony check`` does (:func:`harmony.game.check_scenario`) and
plays it with :func:`harmony.games.panzerblitz.scenario.run_scenario`, exactly as pytest plays a
shipped scenario: every answer is the engine's own
:class:`~harmony.rulings.Ruling`, with the clauses that decided it.
:meth:`Explorer.scenario_yaml` writes the same scenario with the engine's
answers as its expectations, a regression test once saved in
``rules_data/scenarios/``.

A position travels in a page address as ``#position=`` and :func:`encode`:

>>> link = encode({"units": [], "rulesets": ["PB"]})
>>> link
'eyJydWxlc2V0cyI6WyJQQiJdLCJ1bml0cyI6W119'
>>> decode("explorer.html#position=" + link)
{'rulesets': ['PB'], 'units': []}
"""
from __future__ import annotations

import base64
import copy
import itertools
import json
import re
from collections.abc import Iterable
from typing import Any

from . import units as units_mod
from harmony.diagnostics import Diagnostic, Pos, Report
from harmony.game import GameError, check_scenario, game_for
from harmony.model import Model, Scenario
from harmony.ruleset import RulesetError, options_of, ruleset_for
from harmony.rulings import ruling_word
from .scenario import run_scenario
from harmony.schema import compile_ahead, definition, quick_check, resolve, schema, validate_items
from .steps import MODES, RESULTS, steps_of
from .terrain import STANDARD_TYPES
from harmony.yamltree import MAX_BYTES, MAX_DEPTH, Document, Marks, PosMap, PosSeq

# Deciding a position imports no YAML library and no jsonschema (the page runs this module
# in the browser, where every module imported is read and compiled at start): the YAML
# writer and the schema's full check are imported where a scenario file is written, a
# position is not valid, or the rules are read from their folder.

#: the keys of a scenario that describe it rather than set up the position
META = ("id", "title", "summary", "isolates", "cite", "clauses")
#: the file name a position is read under (errors name paths in the position instead)
FILE = "position.yaml"
#: the id and title a position is played under when it is not being saved
PLAYED_ID, PLAYED_TITLE = "explorer-position", "A position in the ruling explorer"
SUMMARY = ("Set up in the ruling explorer; its expectations are the engine's rulings when the "
           "position was saved.")
#: a ruling of the right kind for each question asked, to make the scenario well formed
#: while it is played: the explorer reads the engine's answer, never this value
#: a step the schema accepts, standing for the steps while the rest of a scenario is checked
_PLACEHOLDER_STEP = {"end": "phase"}
_UNASKED = {"spotted": False, "can-fire": False, "opfire": [], "interdiction": [],
            "markers": [], "dispersal": "none"}
#: what a unit's optional fields mean when left out (as harmony.games.panzerblitz.units.Unit.from_data reads them)
UNIT_DEFAULTS = {"face": "up", "dispersal": "none", "markers": [], "registration": [],
                 "overrun": False}


#: the largest position, as JSON text, that is read: a scenario file's limit (bytes of UTF-8)
MAX_TEXT = MAX_BYTES
#: the longest ``#position=`` code of a link: base64 of :data:`MAX_TEXT` bytes
MAX_LINK = -(-MAX_TEXT // 3) * 4
#: the deepest a position may nest lists and mappings: a scenario file's limit, the position
#: sitting one level down, under ``scenario:``
MAX_NESTING = MAX_DEPTH - 1


# ------------------------------------------------------------------ links

def limits() -> dict:
    """The limits a position from a link must keep, which the explorer's page checks in the
    link's raw text before it parses or draws anything (then :meth:`Explorer.check` reads the
    whole position as a scenario file is read): the longest link code, the deepest nesting,
    and the schema's largest map and most units and steps.

    >>> limits()
    {'columns': 60, 'link': 1333336, 'nesting': 39, 'rows': 60, 'steps': 1000, 'units': 10000}
    """
    scenario = schema()["$defs"]["scenario"]
    board = resolve(scenario["$defs"]["map"])["properties"]
    return {"columns": board["columns"]["maximum"], "link": MAX_LINK, "nesting": MAX_NESTING,
            "rows": board["rows"]["maximum"], "steps": scenario["properties"]["steps"]["maxItems"],
            "units": scenario["properties"]["units"]["maxItems"]}


def encode(position: dict) -> str:
    """The ``#position=`` part of an explorer link: base64url (no padding) of the position
    as UTF-8 compact JSON with sorted keys.

    >>> encode({"b": 1, "a": "é"})
    'eyJhIjoiw6kiLCJiIjoxfQ'
    """
    text = json.dumps(position, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def decode(text: str) -> dict:
    """The position in a link made by :func:`encode` (the whole address, the fragment or
    just the code); a ``ValueError`` says what is wrong with it.

    >>> decode("#position=eyJhIjoiw6kiLCJiIjoxfQ")
    {'a': 'é', 'b': 1}
    >>> decode("#position=e30x")
    Traceback (most recent call last):
    ...
    ValueError: not an explorer position: the link's code is not base64url of JSON text
    """
    code = text.strip()
    if "position=" in code:
        code = code.split("position=", 1)[1]
    code = code.split("&", 1)[0]
    if len(code) > MAX_LINK:
        raise ValueError(f"not an explorer position: the link's code is too long ({len(code):,} "
                         f"characters; the limit is {MAX_LINK:,})")
    try:
        text = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4)).decode("utf-8")
    except ValueError:
        raise ValueError("not an explorer position: the link's code is not base64url of JSON "
                         "text") from None
    data = read_position(text)
    if "error" in data and len(data) == 1 and isinstance(data["error"], dict):
        message = data["error"]["message"]
        if message.startswith("the position is not JSON text"):
            message = "the link's code is not base64url of JSON text"
        raise ValueError(f"not an explorer position: {message}")
    return data


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def nesting(text: str) -> int:
    """How deeply JSON text nests lists and mappings, found in one pass over it before it is
    parsed (a bracket inside a string does not count).

    >>> nesting('{"a": [1, {"b": "[[[{"}]}'), nesting("[[[]], []]"), nesting("3")
    (3, 3, 0)
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(itertools.accumulate(1 if c in "[{" else -1 for c in brackets), default=0)


def read_position(text: str) -> dict:
    """The position in JSON text, or ``{"error": {"message", "path"}}`` saying why it is not
    one: text larger than :data:`MAX_TEXT`, nesting deeper than :data:`MAX_NESTING` (both
    checked before the text is parsed), not JSON, or not a mapping.

    >>> read_position('{"units": []}'), read_position("[1]")["error"]["message"]
    ({'units': []}, 'a position is a mapping (map, units, start, rulesets, steps), not a list')
    >>> read_position("[" * 100 + "]" * 100)["error"]["message"]
    'the position nests lists and mappings 100 deep; the limit is 39'
    """
    if not isinstance(text, str):
        return _error("a position is JSON text")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_TEXT:
        return _error(f"the position is too large ({size:,} bytes; the limit is {MAX_TEXT:,}, "
                      "a scenario file's)")
    depth = nesting(text)
    if depth > MAX_NESTING:
        return _error(f"the position nests lists and mappings {depth} deep; the limit is "
                      f"{MAX_NESTING}")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        return _error(f"the position is not JSON text: {e}")
    if not isinstance(data, dict):
        kind = {list: "a list", str: "text", bool: "true or false", type(None): "null"}.get(
            type(data), "a number")
        return _error(f"a position is a mapping (map, units, start, rulesets, steps), not {kind}")
    return data


def position_of(model: Model, scenario_id: str) -> dict:
    """The position of a scenario: its body without what describes it and without its
    expectations (a step that only asked is left out).

    >>> sc = Scenario(id="x", data={"id": "x", "title": "X", "rulesets": ["PB"], "steps": [
    ...     {"end": "phase", "expect": [{"question": "Q?"}]}, {"note": "ask", "expect": []}]})
    >>> position_of(Model(scenarios={"x": sc}), "x")
    {'rulesets': ['PB'], 'steps': [{'end': 'phase'}]}
    """
    data = copy.deepcopy(model.scenarios[scenario_id].data)
    for key in META:
        data.pop(key, None)
    steps = []
    for step in data.get("steps") or []:
        step.pop("expect", None)
        if set(step) - {"note"}:
            steps.append(step)
    data["steps"] = steps
    return data


def link_of(model: Model, scenario_id: str, page: str = "explorer.html") -> str:
    """The explorer link (relative to the site's root) opening a scenario's position.

    >>> sc = Scenario(id="x", data={"rulesets": ["PB"], "steps": []})
    >>> link_of(Model(scenarios={"x": sc}), "x")
    'explorer.html#position=eyJydWxlc2V0cyI6WyJQQiJdLCJzdGVwcyI6W119'
    """
    return f"{page}#position={encode(position_of(model, scenario_id))}"


# ------------------------------------------------------------------ questions

def _name(unit: dict) -> str:
    return str(unit.get("name") or unit.get("id"))


def questions(position: dict) -> tuple[list[dict], list[dict], list[int | None]]:
    """The questions to ask about a position's last step, and the steps that ask them.

    Returns ``(steps, asked, origin)``: the position's steps with the questions
    added (each an ``expect`` item without its rulings), the questions (``id``,
    ``text``, ``ask``, ``when``, and where they are: ``step``, ``item``), and for
    each step the index of the position's step it is (None: a step added to ask).

    * a move: at each hex entered, is the mover spotted, which opportunity fire and
      interdiction attacks are open on it; after it, is it spotted and what markers
      it carries; once the phase is over, may each enemy unit fire at it;
    * a fire: before it, may the units fire at the target; after it, the target's
      state and the firers' markers;
    * otherwise (no step, the end of a phase, orders): is each unit spotted, its
      markers, and may each unit fire at each enemy unit.

    >>> units = [{"id": "t", "side": "G", "at": "C3"}, {"id": "g", "side": "S", "at": "C1"}]
    >>> steps, asked, origin = questions({"units": units, "steps": [
    ...     {"move": {"unit": "t", "path": ["C4"]}}]})
    >>> [(q["id"], q["when"], q["step"]) for q in asked]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('spotted@C4', 'during', 0), ('opfire@C4', 'during', 0), ('interdiction@C4', 'during', 0),
     ('spotted', 'after', 0), ('markers', 'after', 0), ('can-fire:g', 'next-phase', 1)]
    >>> steps[1]["end"], steps[1]["expect"][0]["ask"], origin
    ('phase', {'can-fire': ['g'], 'target': 't'}, [0, None])
    """
    units = position.get("units")
    units = [u for u in units if isinstance(u, dict) and isinstance(u.get("id"), str)
             and isinstance(u.get("side"), str)] if isinstance(units, list) else []
    by_id = {u["id"]: u for u in units}
    steps = position.get("steps")
    steps = [copy.deepcopy(s) for s in steps] if isinstance(steps, list) else []
    for s in steps:
        if isinstance(s, dict):
            s.pop("expect", None)
    origin: list[int | None] = list(range(len(steps)))
    asked: list[dict] = []
    last = steps[-1] if steps and isinstance(steps[-1], dict) else None

    def ask(step: int, qid: str, text: str, mapping: dict, when: str) -> None:
        asked.append({"id": qid, "text": text, "ask": mapping, "when": when, "step": step})

    move = last.get("move") if last is not None else None
    fire = last.get("fire") if last is not None else None
    if (isinstance(move, dict) and isinstance(move.get("path"), list)
            and isinstance(move.get("unit"), str) and move["unit"] in by_id):
        k, uid = len(steps) - 1, move["unit"]
        name = _name(by_id[uid])
        for h in dict.fromkeys(h for h in move["path"] if isinstance(h, str)):
            ask(k, f"spotted@{h}", f"Is {name} spotted in {h}?", {"spotted": uid, "at": h}, "during")
            ask(k, f"opfire@{h}", f"Which opportunity fire attacks are open on {name} in {h}?",
                {"opfire": uid, "at": h}, "during")
            ask(k, f"interdiction@{h}", f"Which interdiction attacks are open on {name} in {h}?",
                {"interdiction": uid, "at": h}, "during")
        ask(k, "spotted", f"Is {name} spotted after its move?", {"spotted": uid}, "after")
        ask(k, "markers", f"Which markers does {name} carry after its move?", {"markers": uid},
            "after")
        steps.append({"note": "The movement phase ends.", "end": "phase"})
        origin.append(None)
        side = by_id[uid].get("side")
        for e in units:
            if e.get("side") != side:
                ask(k + 1, f"can-fire:{e.get('id')}", f"In the fire phase that follows, may "
                    f"{_name(e)} fire at {name}?", {"can-fire": [e.get("id")], "target": uid},
                    "next-phase")
    elif (isinstance(fire, dict) and isinstance(fire.get("units"), list) and fire["units"]
          and all(isinstance(f, str) for f in fire["units"]) and isinstance(fire.get("target"), str)):
        k = len(steps) - 1
        firers, target = fire["units"], fire.get("target")
        tname = _name(by_id.get(target) or {"id": target})
        names = " and ".join(_name(by_id.get(f) or {"id": f}) for f in firers)
        steps.insert(k, {"note": "Before the fire."})
        origin.insert(k, None)
        ask(k, "can-fire", f"May {names} fire at {tname}?", {"can-fire": list(firers),
            "target": target}, "before")
        ask(k + 1, f"dispersal:{target}", f"What is the state of {tname} after the fire?",
            {"dispersal": target}, "after")
        for f in dict.fromkeys(firers):
            ask(k + 1, f"markers:{f}", f"Which markers does {_name(by_id.get(f) or {'id': f})} "
                "carry after firing?", {"markers": f}, "after")
    else:
        steps.append({"note": "The position as it stands."})
        origin.append(None)
        k = len(steps) - 1
        for u in units:
            uid = u.get("id")
            ask(k, f"spotted:{uid}", f"Is {_name(u)} spotted?", {"spotted": uid}, "after")
            ask(k, f"markers:{uid}", f"Which markers does {_name(u)} carry?", {"markers": uid},
                "after")
        for f in units:
            for t in units:
                if f.get("side") != t.get("side"):
                    ask(k, f"can-fire:{f.get('id')}:{t.get('id')}", f"May {_name(f)} fire at "
                        f"{_name(t)}?", {"can-fire": [f.get("id")], "target": t.get("id")}, "after")
    for q in asked:
        step = steps[q["step"]]
        step.setdefault("expect", [])
        q["item"] = len(step["expect"])
        step["expect"].append({"question": q["text"], "ask": q["ask"]})
    return steps, asked, origin


# ------------------------------------------------------------------ the explorer

#: a list or mapping this short (as compact JSON) is written on one line, in flow style
FLOW_WIDTH = 72


def _styled(value: Any) -> Any:
    """Plain data as a round-trip tree (nothing shared, so no YAML anchors), a small list or
    mapping in flow style as the shipped scenarios write them."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    if isinstance(value, dict):
        node: Any = CommentedMap((k, _styled(v)) for k, v in value.items())
    elif isinstance(value, list):
        node = CommentedSeq(_styled(v) for v in value)
    else:
        return value
    leaves = all(not isinstance(v, (dict, list)) for v in value.values()) \
        if isinstance(value, dict) else all(not isinstance(v, (dict, list)) for v in value)
    if leaves or len(json.dumps(value, separators=(",", ":"))) <= FLOW_WIDTH:
        node.fa.set_flow_style()
    return node


def _dump(data: dict) -> str:
    """A scenario file's text for plain data: written as ``harmony fmt`` would write it."""
    import io

    from harmony.loader import new_yaml
    out = io.StringIO()
    new_yaml().dump(_styled(data), out)
    return out.getvalue()


def _tree(data: Any, nodes: bool = True) -> tuple[Any, dict[tuple, int]]:
    """Plain data as the tree the loader would read from a file, each value and key at a
    place of its own (a line per value), and the line of each path's value (and key). The
    schema and the checks report positions, the explorer answers with paths. (Cheaper than
    writing the file and reading it back, which is most of a ruling's time.) With
    ``nodes=False`` only the lines are counted (the tree is ``None``): a position the schema
    accepts is read from its lines alone (:class:`_Placed`).

    >>> tree, lines = _tree({"a": [1, {"b": 2}]})
    >>> from harmony.yamltree import node_pos
    >>> at = node_pos(FILE, tree, ("a", 1, "b"))
    >>> at, lines[("a", 1, "b")], _place(lines, ("a", 1, "b"))
    (Pos(path='position.yaml', line=5, col=2), 5, Pos(path='position.yaml', line=5, col=2))
    >>> _tree({"a": [1, {"b": 2}]}, nodes=False)[1] == lines
    True
    """
    lines: dict[tuple, int] = {}
    line = [1]

    def build(value: Any, path: tuple) -> Any:
        items: Iterable[tuple[Any, Any]]
        node: Any
        if isinstance(value, dict):
            items, node = value.items(), (PosMap() if nodes else None)
        elif isinstance(value, list):
            items, node = enumerate(value), (PosSeq() if nodes else None)
        else:
            return value
        if node is not None:
            node.lc = Marks(None, None, {})  # type: ignore[arg-type]   # placed below
        for k, v in items:
            line[0] += 1
            at = line[0]
            sub = path + (k,)
            lines[sub] = at
            child = build(v, sub)
            if isinstance(node, PosMap):
                node[k] = child
                node.lc.data[k] = (at - 1, 0, at - 1, 1)
            elif node is not None:
                node.append(child)
                node.lc.data[k] = (at - 1, 1)
        return node

    tree = build(data, ())
    if nodes:
        tree.lc.line, tree.lc.col = 0, 0
    return tree, lines


def _place(lines: dict[tuple, int], path: tuple, key: bool = False) -> Pos:
    """The place of the value (or key) at ``path`` in a tree :func:`_tree` numbered, or of the
    nearest enclosing value it holds: what :func:`harmony.yamltree.node_pos` finds by walking
    the tree. (A key is in column 1 of its line, a value or list item in column 2; a path
    ending in a string names a key of a mapping, JSON having no other keys.)

    >>> lines = _tree({"a": [1, {"b": 2}]}, nodes=False)[1]
    >>> _place(lines, ("a", 1, "b"), key=True), _place(lines, ("a", 7, "b")), _place(lines, ())
    ... # doctest: +NORMALIZE_WHITESPACE
    (Pos(path='position.yaml', line=5, col=1), Pos(path='position.yaml', line=2, col=2),
     Pos(path='position.yaml', line=1, col=1))
    """
    for n in range(len(path), 0, -1):
        try:
            at = lines.get(path[:n] if n < len(path) else path)
        except TypeError:           # an unhashable step: no place of the tree
            continue
        if at is not None:
            return Pos(FILE, at, 1 if key and n == len(path) and isinstance(path[-1], str) else 2)
    return Pos(FILE, 1, 1)


def _paths(lines: dict[tuple, int]) -> dict[Pos, tuple]:
    """The path at each place of a tree :func:`_tree` numbered (for an error's place)."""
    paths: dict[Pos, tuple] = {Pos(FILE, 1, 1): ()}
    for path, at in lines.items():
        paths[Pos(FILE, at, 2)] = path
        if isinstance(path[-1], str):
            paths[Pos(FILE, at, 1)] = path
    return paths


class _Placed(Scenario):
    """A scenario read from a position: the place of each value is looked up in the lines
    :func:`_tree` counted rather than found by walking a tree (the steps and the checks ask
    for thousands of places a decision), to the same answer. It is built in memory: its
    steps are never looked up in the disk cache of shipped scenarios (:func:`.steps.steps_of`)."""

    in_memory = True

    def __init__(self, lines: dict[tuple, int], **fields):
        super().__init__(**fields)
        self._lines = lines

    def pos(self, *path: str | int, key: bool = False) -> Pos:
        if not path:
            return Pos(FILE, 1, 1)
        return _place(self._lines, ("scenario",) + path, key)


def _path_text(path: tuple) -> str:
    """``("scenario", "units", 2, "at")`` as ``units[2].at``."""
    out = ""
    for step in path[1:]:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def _error(message: str, path: str = "") -> dict:
    return {"error": {"message": message, "path": path}}


class _Played:
    """A position played: the scenario read from it, its questions and the result."""

    def __init__(self, scenario: Scenario, asked: list[dict], origin: list[int | None],
                 result, lines: dict[tuple, int]):
        self.scenario, self.asked, self.origin, self.result = scenario, asked, origin, result
        self.lines = lines


#: the definitions of the schema the parts of a position are checked against, by kind: the
#: scenario (a position always has a map, units and a start: the file schema takes it as this
#: game's scenario, so a document holding only it is valid when the scenario is), each step
#: and each question
PARTS = {"scenario": "#/$defs/scenario", "step": "#/$defs/scenario/$defs/step",
         "expectation": "#/$defs/scenario/$defs/expectation"}


def schema_ahead() -> str:
    """The quick validators of :data:`PARTS` compiled ahead, as a module's source
    (:func:`harmony.schema.compile_ahead`): the explorer's bundle ships it, so that the
    browser checks a position without fastjsonschema or jsonschema.

    >>> "VALIDATORS = {" in schema_ahead()
    True
    """
    return compile_ahead(PARTS["scenario"], (PARTS["step"], PARTS["expectation"]))


class Explorer:
    """The rules of one rules_data folder (or a model already read), loaded once, answering
    positions in JSON.

    >>> ex = Explorer("rules_data")
    >>> [r["name"] for r in json.loads(ex.catalogue())["rulesets"]][:4]
    ['PB', 'PL', 'AIW', 'REV']
    >>> Explorer(ex.model).model is ex.model
    True
    """

    def __init__(self, rules: str | Model, reuse: bool = True, problems: Iterable[str] = ()):
        if isinstance(rules, Model):
            self.model, self.problems = rules, list(problems)
        else:
            from harmony.loader import load
            self.model, report = load(rules)
            self.problems = [str(d) for d in report.errors]
        #: whether to remember what was checked (False: every decision validates the whole
        #: position against the schema, as the first one does; the tests compare the two)
        self.reuse = reuse
        self._checked: dict[tuple[str, str], bool] = {}
        self._validators: dict[str, Any] = {}

    @classmethod
    def from_json(cls, text: str | bytes) -> Explorer:
        """The explorer of a model written by :func:`harmony.modeljson.dumps` (the page's:
        the rules as the site was built from them, read without YAML).

        >>> from harmony import modeljson
        >>> ex = Explorer.from_json(modeljson.dumps("rules_data"))
        >>> sorted(ex.model.sources)[:3], ex.problems
        (['AIW', 'CP', 'DB'], [])
        """
        from harmony import modeljson
        model, problems = modeljson.loads(text)
        return cls(model, problems=problems)

    # ---------------------------------------------------------------- the schema, in parts
    def _valid(self, whole: dict) -> bool:
        """Whether a scenario document (``{"scenario": ...}``) has no schema problem, told from
        its parts, each remembered by its JSON text: the scenario without its steps, each step
        without its questions, each question. A reader's edit changes one part; the questions
        the explorer adds recur from one decision to the next. This says "valid" exactly when
        the schema does (the steps and questions are lists of items each valid on its own:
        no ``uniqueItems``, no ``maxItems``); where it says "not valid", the caller validates
        the whole document to report its problems as ``harmony check`` would.

        >>> ex = Explorer("rules_data")
        >>> doc = {"scenario": {"id": "x", "title": "X", "summary": "S.", "rulesets": ["PB"],
        ...     "map": {"columns": 3, "rows": 3}, "units": [{"id": "t", "side": "German",
        ...     "kind": "armoured", "class": "A", "attack": 1, "range": 1, "defence": 1,
        ...     "movement": 1, "at": "B2"}], "start": {"side": "German", "phase": "movement"},
        ...     "steps": [{"end": "phase"}]}}
        >>> ex._valid(doc), ex._valid(dict(doc, scenario=dict(doc["scenario"], steps=[{"end": 1}])))
        (True, False)
        """
        if not self.reuse:
            return False
        sc = whole.get("scenario")
        if not isinstance(sc, dict):
            return False
        steps = sc.get("steps")
        if not isinstance(steps, list) or not steps:
            return False
        parts: list[tuple[str, Any]] = [("scenario", {"scenario": dict(sc, steps=[_PLACEHOLDER_STEP])})]
        for step in steps:
            expect = step.get("expect") if isinstance(step, dict) else None
            if isinstance(expect, list) and expect:
                parts.append(("step", dict(step, expect=expect[:1])))
                parts.extend(("expectation", e) for e in expect)
            else:
                parts.append(("step", step))
        return all(self._part_valid(kind, value) for kind, value in parts)

    def _part_valid(self, kind: str, value: Any) -> bool:
        key = (kind, json.dumps(value, sort_keys=True))
        known = self._checked.get(key)
        if known is None:
            if len(self._checked) > 20_000:     # a long session: start afresh
                self._checked.clear()
            known = self._checked[key] = (self._quick(kind, value)
                                          or self._validator(kind).is_valid(value))
        return known

    @staticmethod
    def _quick(kind: str, value: Any) -> bool:
        """Whether a part is valid by the quick validator of its kind (trusted only when it
        says so; False: ask jsonschema). A scenario part is a document holding the scenario
        alone, which is valid when the scenario is (see :data:`PARTS`)."""
        check = quick_check(PARTS[kind])
        if kind == "scenario":
            if not (isinstance(value, dict) and list(value) == ["scenario"]):
                return False
            value = value["scenario"]
        return check is not None and check(value)

    def _validator(self, kind: str):
        """The schema's validator for a whole document, a step or a question."""
        if kind not in self._validators:
            from jsonschema import Draft202012Validator
            sub = schema() if kind == "scenario" else definition(PARTS[kind])
            self._validators[kind] = Draft202012Validator(sub)
        return self._validators[kind]

    # ---------------------------------------------------------------- catalogue
    def modes_of(self, key: str) -> dict[str, list[str]]:
        """The movement modes each ruleset of source ``key`` offers (its ``move.modes``,
        alone and with each of its options), for the move's mode select.

        >>> ex = Explorer("rules_data")
        >>> ex.modes_of("PB")
        {'PB': ['normal', 'concealed', 'revealed']}
        >>> ex.modes_of("REV")["REV+concealed-movement"]
        ['normal', 'concealed', 'revealed', 'quick-march', 'road']
        """
        out: dict[str, list[str]] = {}
        for name in [key] + [f"{key}+{o}" for o in options_of(self.model, key)]:
            try:
                offered = ruleset_for(self.model, name).get("move.modes")
            except RulesetError:
                continue
            out[name] = [m for m in MODES if m in (offered or ())]
        return out

    def _explores(self, key: str) -> bool:
        """Whether the ruleset ``key`` is played by a game that offers this explorer (a hex
        board): Combat Patrol's rulebooks, on a table in inches, are not offered.

        >>> ex = Explorer("rules_data")
        >>> ex._explores("REV"), ex._explores("CP")
        (True, False)
        """
        try:
            return game_for(self.model, key).explorer is not None
        except GameError:
            return False

    def catalogue(self) -> str:
        """What a position may hold, as JSON: rulesets (in the model's order, with their
        options), the sides of the shipped scenarios, unit kinds and classes, terrain and
        hexside types, and the unit fields with their types and defaults.

        >>> cat = json.loads(Explorer("rules_data").catalogue())
        >>> cat["rulesets"][1]["options"], cat["terrain"][1]["name"], cat["hexsides"][0]["name"]
        (['opportunity-fire'], 'woods', 'slope-side')
        >>> [(f["name"], f["required"], f.get("default")) for f in cat["unit_fields"]][9:11]
        [('name', False, None), ('face', False, 'up')]
        """
        m = self.model
        rulesets = [{"name": s.key, "label": s.label, "title": s.title, "kind": s.kind,
                     "options": options_of(m, s.key), "modes": self.modes_of(s.key)}
                    for s in m.sources.values() if s.kind != "commentary" and self._explores(s.key)]
        sides: dict[str, None] = {}
        for sid in sorted(m.scenarios):
            for u in m.scenarios[sid].data.get("units") or []:
                sides.setdefault(u["side"])
        unit = resolve(schema()["$defs"]["scenario"]["$defs"]["unit"])
        fields = []
        for name in list(unit["required"]) + [k for k in unit["properties"]
                                                if k not in unit["required"]]:
            spec = resolve(unit["properties"][name])
            f: dict[str, Any] = {"name": name, "required": name in unit["required"]}
            for key in ("type", "enum", "minimum", "maximum", "pattern", "description"):
                if key in spec:
                    f[key] = spec[key]
            if spec.get("type") == "array":
                f["items"] = resolve(spec.get("items", {}))
            if name in UNIT_DEFAULTS:
                f["default"] = UNIT_DEFAULTS[name]
            fields.append(f)

        def terrain(t) -> dict:
            return {"name": t.name, "concealing": t.concealing, "blocks-los": t.blocks_los,
                    "elevation": t.elevation, "drm": t.drm, "move-cost": t.move_cost}
        return json.dumps({
            "rulesets": rulesets, "sides": list(sides), "kinds": list(units_mod.KINDS),
            "classes": list(units_mod.WEAPON_CLASSES), "results": list(RESULTS),
            "modes": list(MODES), "phases": ["fire", "movement"],
            "terrain": [terrain(t) for t in STANDARD_TYPES.values() if not t.hexside],
            "hexsides": [terrain(t) for t in STANDARD_TYPES.values() if t.hexside],
            "unit_fields": fields}, sort_keys=True)

    # ---------------------------------------------------------------- playing
    def check(self, position_json: str) -> str:
        """Whether a position (from a link, say) may be drawn and decided, as JSON text:
        ``{"ok": true}`` or ``{"error": {"message", "path"}}`` naming the first problem.

        A position is read by the rules a scenario file is read by (:func:`read_position`'s
        size and nesting, the schema: its shape, the map's size, the number of units and
        steps; and what ``harmony check`` finds in a scenario: units and hexes on the map,
        steps naming units and hexes that exist), without playing it. What the page lets a
        reader leave empty while editing is accepted: no ruleset, no unit, no step.

        >>> ex = Explorer("rules_data")
        >>> pos = {"rulesets": ["PB"], "map": {"columns": 3, "rows": 3}, "start": {"side":
        ...   "German", "phase": "movement"}, "units": [{"id": "t", "side": "German", "kind":
        ...   "armoured", "class": "A", "attack": 1, "range": 1, "defence": 1, "movement": 1,
        ...   "at": "B2"}], "steps": [{"move": {"unit": "t", "path": ["B3"]}}]}
        >>> ex.check(json.dumps(pos))
        '{"ok": true}'
        >>> ex.check(json.dumps(dict(pos, units=[], steps=[], rulesets=[])))
        '{"ok": true}'
        >>> pos["units"][0]["at"] = "Z9"
        >>> json.loads(ex.check(json.dumps(pos)))["error"]
        {'message': 'hex Z9 is off the map (3 columns, 3 rows)', 'path': 'units[0].at'}
        >>> err = json.loads(ex.check(json.dumps(dict(pos, map={"columns": 100000, "rows": 2}))))["error"]
        >>> err["path"], err["message"]
        ('map.columns', "100000 is out of range for 'columns' of the scenario: it must be at most 60")
        """
        position = read_position(position_json)
        if "error" in position and len(position) == 1:
            return json.dumps(position, sort_keys=True)
        position = {k: v for k, v in position.items() if k not in META}
        steps = position.get("steps")
        body = dict(position, steps=[_PLACEHOLDER_STEP]) if steps == [] else position
        whole = {"scenario": {"id": PLAYED_ID, "title": PLAYED_TITLE, "summary": SUMMARY, **body}}
        empty = {k for k in ("units", "rulesets") if position.get(k) == []}
        if not empty and self._quick("scenario", whole):   # the schema's compiled check: no tree needed
            tree, lines = None, _tree(whole, nodes=False)[1]
        else:
            tree, lines = _tree(whole)
        paths = _paths(lines)

        def allowed(d: Diagnostic) -> bool:
            path = paths.get(d.pos, ())
            return ((len(path) == 2 and path[1] in empty)
                    or ("units" in empty and d.code == "unresolved-side"))
        origin: list[int | None] = list(range(len(steps))) if isinstance(steps, list) else []
        if tree is not None:
            report, _broken = validate_items(Document(FILE, tree=tree))
            errors = [d for d in report.errors if not allowed(d)]
            if errors:
                return json.dumps(self._first_error(errors, lines, origin), sort_keys=True)
        sc = _Placed(lines, file=FILE, id=PLAYED_ID, title=PLAYED_TITLE,
                     data=json.loads(json.dumps(whole["scenario"])))
        report = Report()
        check_scenario(self.model, sc, report)
        errors = [d for d in report.errors if not allowed(d)]
        if errors:
            return json.dumps(self._first_error(errors, lines, origin), sort_keys=True)
        return json.dumps({"ok": True})

    def _play(self, position_json: str, sid: str = PLAYED_ID, title: str = PLAYED_TITLE
              ) -> _Played | dict:
        """Read, check and play a position; a dict is the error to answer with."""
        position = read_position(position_json)
        if "error" in position and len(position) == 1:
            return position
        position = {k: v for k, v in position.items() if k not in META}
        steps, asked, origin = questions(position)
        rulesets = position.get("rulesets")
        names = [r for r in rulesets if isinstance(r, str)] if isinstance(rulesets, list) else []
        for q in asked:
            item = steps[q["step"]]["expect"][q["item"]]
            item["rulings"] = {r: {"value": _UNASKED[next(iter(q["ask"]))], "because": []}
                               for r in names} or {"PB": {"value": None, "because": []}}
        body = dict(position, steps=steps) if isinstance(position.get("steps", []), list) \
            else position
        whole = {"scenario": {"id": sid, "title": title, "summary": SUMMARY, **body}}
        if self._valid(whole):
            report = Report()
            _, lines = _tree(whole, nodes=False)
        else:
            tree, lines = _tree(whole)
            report, _broken = validate_items(Document(FILE, tree=tree))
            if report.errors:
                return self._first_error(report.errors, lines, origin)
        # the data the engine reads, sharing nothing with what the explorer keeps
        data = json.loads(json.dumps(whole["scenario"]))
        sc = _Placed(lines, file=FILE, id=sid, title=title, data=data)
        check_scenario(self.model, sc, report)
        if report.errors:
            return self._first_error(report.errors, lines, origin)
        model = copy.copy(self.model)
        model.scenarios = {sid: sc}
        result = run_scenario(model, sid)
        setup = [d for d in result.errors if d.code != "scenario-step"]
        if setup:
            return self._first_error(setup, lines, origin)
        return _Played(sc, asked, origin, result, lines)

    def _first_error(self, errors: list[Diagnostic], lines: dict[tuple, int],
                     origin: list[int | None]) -> dict:
        """The first problem in the reader's own position (else the first of all), at its path
        in the position."""
        paths = _paths(lines)

        def place(d: Diagnostic) -> tuple[bool, str]:
            path = paths.get(d.pos, ("scenario",))
            mine = False
            if len(path) > 2 and path[1] == "steps" and isinstance(path[2], int):
                k = path[2]
                if k < len(origin) and origin[k] is not None:
                    path = path[:2] + (origin[k],) + path[3:]
                    mine = "expect" in path
                else:
                    mine = True
            return mine, _path_text(path)
        placed = [(place(d), d) for d in errors]
        (_mine, path), d = min(placed, key=lambda x: (x[0][0], x[1].pos))
        message = d.message.removeprefix(f"scenario {PLAYED_ID}: ")
        return _error(message, path)

    def decide(self, position_json: str, snapshots: bool = True) -> str:
        """The engine's rulings on a position under each of its rulesets, as JSON text:
        ``{"rulesets", "questions": [{"id", "text", "ask", "when", "rulings": {ruleset:
        {"value", "words", "reasons"} | {"refused", "clause"}}}], "snapshot", "snapshots"}``,
        or ``{"error": {"message", "path"}}``. With ``snapshots=False`` the boards after the
        last step (``snapshot``, ``snapshots``: three quarters of the text for a long move)
        are left out, for a reader of the rulings alone (the explorer page).

        >>> ex = Explorer("rules_data")
        >>> pos = {"rulesets": ["PB", "REV"], "map": {"columns": 5, "rows": 5, "hexes": {"C3": "woods"}},
        ...   "units": [{"id": "tank", "side": "German", "kind": "armoured", "class": "A", "attack": 12,
        ...              "range": 8, "defence": 8, "movement": 4, "at": "C5"},
        ...             {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 8,
        ...              "range": 6, "defence": 2, "movement": 1, "at": "C1"}],
        ...   "start": {"side": "German", "phase": "movement"},
        ...   "steps": [{"move": {"unit": "tank", "path": ["C4", "C3"]}}]}
        >>> out = json.loads(ex.decide(json.dumps(pos)))
        >>> q = next(q for q in out["questions"] if q["id"] == "spotted@C3")
        >>> q["text"], q["rulings"]["PB"]["words"], q["rulings"]["REV"]["reasons"][:2]
        ('Is tank spotted in C3?', 'no', ['movement.spotting', 'spotting.limitation'])
        >>> sorted(json.loads(ex.decide(json.dumps(pos), snapshots=False)))
        ['questions', 'rulesets']
        >>> pos["units"][1]["at"] = "C9"
        >>> json.loads(ex.decide(json.dumps(pos)))["error"]["path"]
        'units[1].at'
        """
        played = self._play(position_json)
        if isinstance(played, dict):
            return json.dumps(played, sort_keys=True)
        return json.dumps(_decision(played, snapshots), sort_keys=True)

    def scenario_yaml(self, position_json: str, id: str, title: str) -> str:
        """The position as a scenario file, whose expectations are the engine's rulings on
        every question :meth:`decide` asks (a question a ruleset leaves unanswered, because
        the mover stopped before the hex, has no ruling for it). A position that some ruleset
        cannot play, or a bad id, gives the JSON text of an error instead.

        >>> ex = Explorer("rules_data")
        >>> pos = {"rulesets": ["PB"], "map": {"columns": 3, "rows": 3},
        ...   "units": [{"id": "tank", "side": "German", "kind": "armoured", "class": "A",
        ...     "attack": 12, "range": 8, "defence": 8, "movement": 4, "at": "B3"}],
        ...   "start": {"side": "German", "phase": "movement"},
        ...   "steps": [{"move": {"unit": "tank", "path": ["B2"]}}]}
        >>> text = ex.scenario_yaml(json.dumps(pos), "my-tank", "My tank")
        >>> print(text[:text.index("  units:")])
        scenario:
          id: my-tank
          title: My tank
          summary: Set up in the ruling explorer; its expectations are the engine's rulings when
            the position was saved.
          rulesets: [PB]
          map: {columns: 3, rows: 3}
        <BLANKLINE>
        >>> json.loads(ex.scenario_yaml(json.dumps(pos), "My tank", "x"))["error"]["path"]
        'id'
        """
        played = self._play(position_json, id, title)
        if isinstance(played, dict):
            return json.dumps(played, sort_keys=True)
        refused = [d for d in played.result.errors if d.code == "scenario-step"]
        if refused:
            err = self._first_error(refused, played.lines, played.origin)
            err["error"]["message"] += (" (a scenario file must play under each of its "
                                        "rulesets)")
            return json.dumps(err, sort_keys=True)
        data = copy.deepcopy(played.scenario.data)
        answers = _answers(played)
        for q in played.asked:
            item = data["steps"][q["step"]]["expect"][q["item"]]
            item["rulings"] = {r: {"value": a["value"], "because": a["reasons"]}
                               for r, a in answers[q["id"]].items() if "value" in a}
        for step in data["steps"]:
            step["expect"] = [e for e in step.get("expect", []) if e["rulings"]]
            if not step["expect"]:
                del step["expect"]
        data["steps"] = [s for s in data["steps"] if set(s) - {"note"}]
        data.update(id=id, title=title)
        from harmony.fmt import FormatError, formatted
        from harmony.loader import read_text
        doc = read_text(f"{id}.yaml", _dump({"scenario": data}))
        try:
            return formatted(doc)
        except FormatError:
            return _dump({"scenario": data})


def _answers(played: _Played) -> dict[str, dict[str, dict]]:
    """question id -> ruleset -> the engine's answer (or why it gave none)."""
    parsed = steps_of(played.scenario)
    ids = {}
    for q in played.asked:
        step = next(s for s in parsed.steps if s.index == q["step"])
        ids[id(step.expect[q["item"]].ask)] = q["id"]
    out: dict[str, dict[str, dict]] = {q["id"]: {} for q in played.asked}
    for row in played.result.rulings:
        qid = ids.get(id(row.ask))
        if qid is None:
            continue
        if row.actual is None and not row.reasons and row.detail:
            out[qid][row.ruleset] = {"refused": row.detail, "clause": row.clause}
        else:
            out[qid][row.ruleset] = {"value": row.actual, "words": ruling_word(row.actual),
                                     "reasons": list(row.reasons)}
    return out


def _decision(played: _Played, snapshots: bool = True) -> dict:
    answers = _answers(played)
    result = played.result
    questions_out = [{"id": q["id"], "text": q["text"], "ask": q["ask"], "when": q["when"],
                      "rulings": answers[q["id"]]} for q in played.asked]
    if not snapshots:
        return {"rulesets": list(result.rulesets), "questions": questions_out}
    last = max((k for k, o in enumerate(played.origin) if o is not None), default=None)
    boards: dict[str, dict] = {}
    for name, snaps in result.snapshots.items():
        chosen = [s for s in snaps if s["step"] == last] or snaps[-1:]
        if chosen:
            boards[name] = dict(chosen[0], step=played.origin[chosen[0]["step"]])
    first: dict = next(iter(boards.values()), {})
    return {"rulesets": list(result.rulesets), "questions": questions_out,
            "snapshot": dict(first, map=result.map), "snapshots": boards}


__all__ = ["Explorer", "encode", "decode", "read_position", "nesting", "position_of", "link_of",
           "questions", "META", "MAX_TEXT", "MAX_LINK", "MAX_NESTING"]
