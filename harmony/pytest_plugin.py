"""pytest plugin: the examples and scenarios of rules_data run as tests.

Registered as the ``harmony`` pytest11 entry point, so ``python3 -m pytest``
collects, from the YAML files of a rules_data folder:

* ``<clause-id>``: the clause's ``examples:`` doctests (``>>>`` lines), run
  with the names of the clause's game in the namespace (see
  :func:`harmony.game.example_namespace`);
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

from . import examplerun, game
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

def example_namespace(model, clause=None) -> dict[str, Any]:
    """The names a clause example may use: :func:`harmony.game.example_namespace`, the
    core's names and those of the clause's game."""
    return game.example_namespace(model, clause)


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
        globs = example_namespace(self.model, self.clause)
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

        runner = Collect(optionflags=examplerun.FLAGS)   # as the site checks them
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
        result = game.run_scenario(self.model, self.scenario.id, [self.ruleset])
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
