"""pytest plugin: the examples and scenarios of rules_data run as tests.

Registered as the ``harmony`` pytest11 entry point, so ``python3 -m pytest``
collects, from the YAML files of a rules_data folder:

* ``<clause-id>``: the clause's ``examples:`` doctests (``>>>`` lines), run
  with the engine API in the namespace (see :func:`example_namespace`);
* ``<scenario-id>[<ruleset>]``: every expected ruling of the scenario under
  that ruleset (value and clauses).

The examples are the folder's own Python, run with the user's rights; with
``HARMONY_UNTRUSTED`` set (:mod:`harmony.trust`) each is skipped, saying so, and
the scenarios (data) are still played.

A failure names the YAML file, line and column of the failing example or
expected ruling; a file that cannot be read gives one failing ``load`` item
listing its problems as ``path:line:col: error: ...``.

Which YAML files are collected: those of ``<rootdir>/rules_data``, of any
``testpaths`` entry named ``rules_data`` and of any command-line path that is
(or lies inside) a folder named ``rules_data``; and those of a harmony folder
(one that holds ``sources.yaml``, as ``harmony init`` writes it), whatever its
name, given as a path (``python3 -m pytest myrules``, or one YAML file of it)
or, with no path given, as the current folder (``cd myrules && python3 -m
pytest``): nothing needs to be written for that. YAML files elsewhere (test
fixtures, broken inputs) are never collected, and a folder found both ways is
collected once.

``--harmony-rules PATH`` collects your own rules folder instead, wherever it
is and whatever its name; given no other paths, pytest then runs only its
examples and scenarios::

    python3 -m pytest --harmony-rules ~/my_rules
    python3 -m pytest --harmony-rules ~/my_rules/spotting.yaml

A single file is run against the model of the rules folder around it (the
nearest enclosing folder named ``rules_data`` or holding a ``sources.yaml``,
else the file's own folder), so its examples see the sources, parameters and
scenarios they need.
"""
from __future__ import annotations

import doctest
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from .loader import YAML_SUFFIXES, load

_MODELS = pytest.StashKey[dict]()
_ROOTS = pytest.StashKey[list]()
RULES_FOLDER = "rules_data"
#: the file that makes a folder of any name a harmony to collect (``harmony init`` writes it)
SOURCES_FILE = "sources.yaml"


class Root(NamedTuple):
    """A path to collect (a folder, or one file) and the folder its model is loaded from."""

    collect: Path
    model: Path


def pytest_addoption(parser) -> None:
    group = parser.getgroup("harmony")
    group.addoption("--harmony-rules", action="store", default=None, metavar="PATH",
                    help="run the clause examples and scenarios of this rules folder (or one "
                         "file of it) instead of the rules_data under the rootdir; with no "
                         "other paths given, only these run")


def pytest_configure(config) -> None:
    config.stash[_MODELS] = {}
    opt = config.getoption("harmony_rules", None)
    if opt:
        path = Path(config.invocation_params.dir, opt).resolve()
        if not path.exists():
            raise pytest.UsageError(f"--harmony-rules: no such file or folder: {opt}")
        if path.is_file() and path.suffix not in YAML_SUFFIXES:
            raise pytest.UsageError(f"--harmony-rules: {opt} is not a YAML file "
                                    f"({', '.join(sorted(YAML_SUFFIXES))})")
        root = Root(path, model_folder(path))
        config.stash[_ROOTS] = [root]
        if config.args_source != pytest.Config.ArgsSource.ARGS:
            # No paths on the command line: run the user's rules only, not the testpaths.
            config.args[:] = [str(path)]
        elif not any(_covers(Path(config.invocation_params.dir, a.split("::")[0]).resolve(), path)
                     for a in config.args):
            config.args.append(str(path))   # collect it even outside the given paths
    else:
        config.stash[_ROOTS] = _default_roots(config)


def _covers(arg: Path, path: Path) -> bool:
    return arg == path or arg in path.parents


def model_folder(path: Path) -> Path:
    """The folder whose model a rules file (or folder) is run against."""
    if path.is_dir():
        return path
    for folder in path.parents:
        if folder.name == RULES_FOLDER or (folder / "sources.yaml").is_file():
            return folder
    return path.parent


def is_harmony(folder: Path) -> bool:
    """Whether a folder of any name is a harmony to collect: it holds ``sources.yaml``."""
    return folder.is_dir() and (folder / SOURCES_FILE).is_file()


def _default_roots(config) -> list[Root]:
    root = Path(config.rootpath)
    here = Path(config.invocation_params.dir)
    candidates = [root / RULES_FOLDER]
    candidates += [root / tp for tp in config.getini("testpaths") or []]
    harmonies = [c.resolve() for c in candidates[1:] if is_harmony(c)]
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        for arg in config.args:
            p = Path(here, arg.split("::")[0]).resolve()
            candidates += [q for q in (p, *p.parents) if q.name == RULES_FOLDER][:1]
            if is_harmony(p):
                harmonies.append(p)
            elif p.suffix in YAML_SUFFIXES and p.is_file() and is_harmony(model_folder(p)):
                harmonies.append(model_folder(p).resolve())
    elif is_harmony(here):
        harmonies.append(here.resolve())
    roots: list[Root] = []
    for c in candidates + harmonies:
        c = c.resolve()
        if (c.name == RULES_FOLDER or c in harmonies) and c.is_dir() \
                and c not in [r.collect for r in roots]:
            roots.append(Root(c, c))
    return roots


def rules_roots(config) -> list[Root]:
    """What is collected: each rules folder (or file) and the folder its model comes from."""
    return config.stash[_ROOTS]


def _root_of(config, path: Path) -> Root | None:
    path = path.resolve()
    for r in rules_roots(config):
        if _covers(r.collect, path):
            return r
    return None


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix not in YAML_SUFFIXES:
        return None
    root = _root_of(parent.config, file_path)
    if root is None:
        return None
    return HarmonyFile.from_parent(parent, path=file_path, rules_root=root.model)


def _model(config, root: Path):
    cache = config.stash[_MODELS]
    if root not in cache:
        cache[root] = load(root)
    return cache[root]


# ---------------------------------------------------------------- examples

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
    harmony.pytest_plugin.ExampleError: 'German tank at A1 movment=4': unknown field 'movment' ...
    >>> unit_data("German zeppelin at A1")
    Traceback (most recent call last):
    ...
    harmony.pytest_plugin.ExampleError: 'German zeppelin at A1': unknown piece 'zeppelin' \
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

    :meth:`under` gives a fresh :class:`~harmony.engine.Game` each time, so
    one position can be asked the same question under several rulebooks.
    """

    def __init__(self, model, units: list[dict], map_data: dict, side: str, phase: str,
                 turn: int = 1):
        self.model, self.units, self.map = model, units, map_data
        self.side, self.phase, self.turn = side, phase, turn

    def under(self, ruleset: str):
        """The position as a game under ``ruleset`` (``"REV"``, ``"PL+opportunity-fire"``)."""
        from .engine import Game
        from .scenario import ruleset_for
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


def example_namespace(model) -> dict[str, Any]:
    """The names a clause example may use.

    ``model`` (the loaded rules_data), ``rules(name)`` (a
    :class:`~harmony.ruleset.Ruleset` of it, e.g. ``rules("REV")``),
    ``position(*units, woods=, town=, size=, phase=)`` (a :class:`Position`
    built from one-line unit descriptions, see :func:`unit_data`; its
    ``under(ruleset)`` is a game), ``board(ruleset, *units, ...)`` (the same,
    straight to a game), ``move(game, unit, "D3 C3", mode=, overrun=)`` (a
    whole move; returns the :class:`~harmony.engine.Entry` of the last hex),
    ``setup(scenario_id, ruleset)`` (a
    :class:`~harmony.engine.Game` at the scenario's start),
    ``game(ruleset, map, units, side, phase)``, ``run_scenario``, ``Game``,
    ``Ruleset``, ``Fraction``, ``parse_label``, ``label``, ``distance``,
    ``sight`` and ``HexMap``.

    >>> from harmony.loader import load
    >>> model, report = load(Path(__file__).parents[1] / "rules_data")
    >>> ns = example_namespace(model)
    >>> g = ns["board"]("PB", "Soviet gun at A3", "German tank at C3", woods="C3")
    >>> g.side, g.phase, g.where("tank")
    ('Soviet', 'fire', 'C3')
    >>> g.can_fire(["gun"], "tank")
    Ruling(value=False, reasons=['spotting.spotted'])
    """
    from fractions import Fraction

    from .engine import Game
    from .hexgrid import distance, label, parse_label
    from .los import sight
    from .ruleset import Ruleset
    from .scenario import ruleset_for, run_scenario
    from .terrain import HexMap

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
            "distance": distance, "sight": sight, "HexMap": HexMap}


class ExampleFailure(Exception):
    """A failed example, expected ruling or load, with its message for humans."""


def _with_load_note(config, root: Path, message: str) -> str:
    """Add to a failure a word on load problems elsewhere in the folder, which may explain it."""
    model, report = _model(config, root)
    if not report.errors:
        return message
    files = sorted({Path(d.pos.path).name for d in report.errors})
    return (f"{message}\n(note: the rules folder has {len(report.errors)} reading or schema "
            f"problem(s), reported by the 'load' item of {', '.join(files)}; this failure may "
            "follow from them)")


class HarmonyFile(pytest.File):
    def __init__(self, *, rules_root: Path, **kw):
        super().__init__(**kw)
        self.rules_root = rules_root

    def collect(self):
        model, report = _model(self.config, self.rules_root)
        me = self.path.resolve()
        mine = lambda obj: Path(obj.file).resolve() == me  # noqa: E731
        problems = [d for d in report.errors if Path(d.pos.path).resolve() == me]
        if problems:
            # One failure for the file: its other items would only fail in its wake.
            yield LoadItem.from_parent(self, name="load", problems=problems)
            return
        for clause in sorted(model.clauses.values(), key=lambda c: c.pos().line):
            if mine(clause) and clause.examples:
                yield ExampleItem.from_parent(self, name=clause.id, clause=clause, model=model)
        for sc in model.scenarios.values():
            if mine(sc):
                for name in sc.data.get("rulesets") or []:
                    yield ScenarioItem.from_parent(self, name=f"{sc.id}[{name}]", scenario=sc,
                                                   ruleset=name, model=model)


class LoadItem(pytest.Item):
    def __init__(self, *, problems, **kw):
        super().__init__(**kw)
        self.problems = problems

    def runtest(self):
        raise ExampleFailure("\n".join(str(d) for d in self.problems))

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, self.problems[0].pos.line - 1, f"{self.path.name}: load"


class ExampleItem(pytest.Item):
    """The doctests of one clause's ``examples:``; a failure names the YAML line of its ``>>>``."""

    def __init__(self, *, clause, model, **kw):
        super().__init__(**kw)
        self.clause, self.model = clause, model
        pos = clause.pos("examples")
        # A block scalar's text starts on the line after 'examples: |'.
        self.first_line = pos.line + 1 if _is_block(clause) else pos.line

    def runtest(self):
        from .trust import Trust
        may = Trust.of()     # a CI job that reviews a change sets HARMONY_UNTRUSTED for pytest too
        if not may.runs_code:
            pytest.skip(f"{may.note}: a clause example is the rules folder's own Python")
        globs = example_namespace(self.model)
        test = doctest.DocTestParser().get_doctest(self.clause.examples, globs, self.clause.id,
                                                   str(self.path), self.first_line - 1)
        failures: list[tuple[doctest.Example, str]] = []

        class Collect(doctest.DocTestRunner):
            def report_failure(self, out, test, example, got):
                failures.append((example, f"expected:\n{example.want}got:\n{got}"))

            def report_unexpected_exception(self, out, test, example, exc_info):
                import traceback
                raised = "".join(traceback.format_exception_only(exc_info[0], exc_info[1]))
                failures.append((example, f"raised:\n{raised}"))

        runner = Collect(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test, out=lambda text: None, clear_globs=False)
        if failures:
            raise ExampleFailure("\n".join(self._explain(example, why)
                                           for example, why in failures))

    def _explain(self, example: doctest.Example, why: str) -> str:
        from .diagnostics import display_path
        line = self.first_line + example.lineno
        try:
            text = self.path.read_text(encoding="utf-8").split("\n")[line - 1]
            col = text.index(">>>") + 1
        except (OSError, IndexError, ValueError):
            col = 1
        source = example.source.rstrip("\n").split("\n")
        shown = "\n".join([f">>> {source[0]}"] + [f"... {s}" for s in source[1:]])
        return (f"{display_path(str(self.path))}:{line}:{col}: example of clause "
                f"{self.clause.id} failed\n{shown}\n{why}")

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExampleFailure):
            assert isinstance(self.parent, HarmonyFile)
            return _with_load_note(self.config, self.parent.rules_root, str(excinfo.value))
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, self.first_line - 1, f"clause {self.clause.id} examples"


def _is_block(clause) -> bool:
    node = clause.node.get("examples") if hasattr(clause.node, "get") else None
    return type(node).__name__ in ("LiteralScalarString", "FoldedScalarString")


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario, ruleset, model, **kw):
        super().__init__(**kw)
        self.scenario, self.ruleset, self.model = scenario, ruleset, model

    def runtest(self):
        from .scenario import run_scenario
        result = run_scenario(self.model, self.scenario.id, [self.ruleset])
        problems = [str(e) for e in result.errors]
        problems += [row.explain() for row in result.rulings if not row.ok]
        if not result.rulings and not problems:
            problems.append(f"{self.scenario.pos()}: scenario {self.scenario.id} states no ruling "
                            f"for {self.ruleset}")
        if problems:
            raise ExampleFailure("\n".join(problems))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExampleFailure):
            assert isinstance(self.parent, HarmonyFile)
            return _with_load_note(self.config, self.parent.rules_root, str(excinfo.value))
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, self.scenario.pos().line - 1, f"scenario {self.scenario.id} under {self.ruleset}"
