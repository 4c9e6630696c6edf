"""The package's import graph has no cycle, and ``harmony check`` imports only what checking
needs.

Every module of ``harmony`` is parsed with :mod:`ast`; every import statement
counts, at the top of the module or inside a function (an import moved into a
function to dodge a cycle still makes one). Relative imports are resolved, and
``from pkg import name`` where ``name`` is a submodule is an import of that
submodule.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "harmony"


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that module ``name`` (at ``path``) imports.

    Importing ``a.b.c`` also runs ``a.b``'s ``__init__`` (an edge to ``a.b``),
    unless ``a.b`` encloses the importing module: it is then already being
    imported, as the parent of the importer.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    own = _package_of(name, path)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = own.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
    edges = set()
    for mod in found:
        parts = mod.split(".")
        for i in range(1, len(parts) + 1):
            parent = ".".join(parts[:i])
            enclosing = own == parent or own.startswith(parent + ".")
            if parent in known and (parent == mod or not enclosing):
                edges.add(parent)
    return edges - {name}


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    mods = modules(root)
    return {name: imports_of(name, path, set(mods)) for name, path in mods.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as ``[a, b, ..., a]``, or None when it is acyclic.

    >>> find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    ['a', 'b', 'c', 'a']
    >>> find_cycle({"a": {"b"}, "b": set()}) is None
    True
    """
    state: dict[str, int] = {}   # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_graph_sees_every_kind_of_import(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("import pkg.c\n")
    (pkg / "c.py").write_text("from . import sub\nfrom .sub.b import x\n")
    (pkg / "sub" / "e.py").write_text("from . import b\nfrom .. import VERSION\n")
    (pkg / "d.py").write_text("from pkg import a, VERSION\nimport os.path\n")
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.sub", "pkg.sub.b"}          # inside a function
    assert graph["pkg.sub.b"] == {"pkg.c"}
    assert graph["pkg.c"] == {"pkg.sub", "pkg.sub.b"}          # a submodule named in from-import
    assert graph["pkg.sub.e"] == {"pkg.sub.b", "pkg"}          # relative, one and two levels
    assert graph["pkg.d"] == {"pkg", "pkg.a"}                  # a name of the package itself
    cycle = find_cycle(graph)
    assert cycle[0] == cycle[-1] and sorted(cycle[1:]) == ["pkg.c", "pkg.sub.b"]
    graph["pkg.sub.b"].clear()
    assert find_cycle(graph) is None


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    assert "harmony.check" in graph and "harmony.cards.fit" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


# ------------------------------------------------------------------ core and games

#: the games' code: everything under harmony.games (harmony.game lists them by name only)
GAMES = "harmony.games"


def is_game(name: str) -> bool:
    return name == GAMES or name.startswith(GAMES + ".")


def core_to_game(graph: dict[str, set[str]]) -> list[str]:
    """Every import that goes from a core module to a game module, as ``core -> game``."""
    return sorted(f"{name} -> {target}" for name, targets in graph.items() if not is_game(name)
                  for target in targets if is_game(target))


def test_a_core_to_game_import_is_found(tmp_path):
    pkg = tmp_path / "harmony"
    (pkg / "games" / "hex").mkdir(parents=True)
    for f in ("__init__.py", "games/__init__.py", "games/hex/__init__.py", "games/hex/engine.py"):
        (pkg / f).write_text("")
    (pkg / "game.py").write_text("import importlib\n")
    (pkg / "check.py").write_text("def f():\n    from .games.hex import engine\n")
    (pkg / "games" / "hex" / "rules.py").write_text("from ...game import x\n")
    assert core_to_game(import_graph(pkg)) == ["harmony.check -> harmony.games",
                                               "harmony.check -> harmony.games.hex",
                                               "harmony.check -> harmony.games.hex.engine"]


def test_no_import_goes_from_the_core_to_a_game():
    graph = import_graph()
    assert "harmony.games.panzerblitz.engine" in graph and "harmony.game" in graph
    assert "harmony.games.combatpatrol.calculator" in graph
    assert core_to_game(graph) == []


def test_the_core_names_its_builtin_games_without_importing_them():
    from harmony import game
    mods = modules()
    for name, target in game.BUILTIN.items():
        module = target.partition(":")[0]
        assert module in mods and is_game(module), target
        assert game.builtin(name).name == name


# ------------------------------------------------------------------ what a check imports

#: what a check never needs, once the cards it measures are remembered: the site (Sphinx,
#: docutils), printing (WeasyPrint, Jinja), the full schema validator (jsonschema, for a
#: file the compiled one rejects), the examples' runner (doctest), PyYAML (for a file read
#: anew), package metadata, and the hex wargame's engine (for a scenario played anew)
NOT_IMPORTED = ("sphinx", "docutils", "weasyprint", "jinja2", "jsonschema", "doctest", "yaml",
                "importlib.metadata", "harmony.site", "harmony.games.panzerblitz.engine")

CHECK_AND_LIST = """
import json, sys
from harmony.cli import main
code = main(["check", sys.argv[1]])
print(json.dumps([code, sorted(sys.modules)]))
"""


def check_modules(rules: Path, cache: Path) -> tuple[int, list[str]]:
    """Run ``harmony check rules`` in a new process with the on-disk caches in ``cache``:
    its exit code and every module it imported."""
    import harmony
    here = str(Path(harmony.__file__).resolve().parent.parent)    # the harmony under test
    env = dict(os.environ, HARMONY_CACHE=str(cache),
               PYTHONPATH=os.pathsep.join([here] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    out = subprocess.run([sys.executable, "-c", CHECK_AND_LIST, str(rules)], env=env, cwd=cache.parent,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    code, mods = json.loads(out.stdout.strip().splitlines()[-1])
    return code, mods


def test_a_check_imports_only_what_checking_needs(tmp_path):
    rules = Path(__file__).resolve().parent.parent / "rules_data"
    first, _ = check_modules(rules, tmp_path / "cache")     # fills the caches
    code, mods = check_modules(rules, tmp_path / "cache")
    assert first == code == 0
    heavy = [m for m in mods if any(m == n or m.startswith(n + ".") for n in NOT_IMPORTED)]
    assert heavy == []
    # what each scenario's check found and each play's errors are read from the cache: the
    # hex wargame's package is imported, and none of its modules (checks, steps, engine)
    assert "harmony.check" in mods and "harmony.games.panzerblitz" in mods
    assert [m for m in mods if m.startswith("harmony.games.panzerblitz.")] == []
