"""Mutation testing of the rules engine: how many single-point mutants its own tests kill.

Run from the top of a checkout:

    python3 bench/mutation.py [--suite engine|print] [--sample 240] [--seed 1] [--out build/mutation]
                              [--only FILE] [--within NAMES] [--list] [--timeout SECONDS]

Each mutant changes one place of one module of the suite (:data:`SUITES`: the engine's
eight modules, :data:`MODULES`, by default; ``--suite print``: the printer, the cards' fit
bound and the clauses' examples runner):

* a comparison made off by one or turned round (``<`` and ``<=``, ``>`` and ``>=``,
  ``==`` and ``!=``, ``in`` and ``not in``, ``is`` and ``is not``);
* an arithmetic operator swapped (``+`` and ``-``, ``*`` and ``/``, ``//`` to ``*``,
  also in ``+=`` and ``-=``);
* a number made one more (``0`` to ``1``, ``2.5`` to ``3.5``); ``True`` and ``False`` swapped;
* ``return X`` made ``return None``;
* the condition of an ``if``, ``while``, conditional expression or comprehension
  negated (not where it is one ``==``, ``!=``, ``in`` or ``is``: that is the flipped
  comparison already);
* ``and`` and ``or`` swapped.

Docstrings, annotations, f-strings and ``assert`` statements are left alone. The
change is made in the source text (the one expression's text rebuilt from its own
operands' text, in parentheses), so everything else of the file stays as written, and
a mutant that does not compile is dropped.

Every mutant is enumerated; ``--sample`` of them are drawn, deterministically from
``--seed``, in quotas proportional to each module's lines. Each is written into one
copy of the checkout (made once, in a temporary folder; the checkout itself is never
changed) and :data:`TESTS` run on it in a new process, one mutant at a time, under
``nice``: ``pytest -x -q`` on the engine's own test files, the doctests of the eight
modules and the clause examples and scenario rulings of ``rules_data`` (the parse and
play caches off, so nothing remembered from the real code answers for a mutant). A
mutant is *killed* when the tests fail (or cannot be collected), *survived* when they
pass, *timeout* when they run past ``--timeout`` (counted as killed: a hang is caught).
The unmutated copy is run first and must pass.

Written to ``--out`` (under ``build/``, not committed): ``results.jsonl`` (one line per
mutant) and ``survivors.txt`` (each survivor's place, what it changed, and its line);
``--only survivors.txt`` runs just the mutants named in such a file (its first column),
to check that new tests kill them. A benchmark, never a test: nothing here is asserted.

Some mutants cannot be killed, as they change nothing a caller can see: in the sample of
``--seed 1`` these are ``kw_only=False`` on three step classes that every caller builds with
keywords, the value of two rulings the referee records for a show (only their reasons and
settings are read), and a bit set for the corner cell of the line of sight table, two hexes
outside the map, which no segment between two hexes of the map meets.

Why not mutmut: mutmut 3 tests every mutant of every function (it has no sample), first
runs the whole test selection to map tests to functions, and runs pytest in its own process
on a copy in ``mutants/``; how that copy would meet harmony's editable install and its
``pytest11`` plugin was not tried. A driver that changes one place of one file in a copy and
runs the tests one mutant at a time, as a person would, was simpler to trust on two shared
cores.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The modules mutated (issue 26, "Test strength").
MODULES = ("engine", "referee", "steps", "los", "ruleset", "cpcalc", "knowledge", "barriers")

#: The engine's own tests: run on every mutant, the mutated module's doctests first.
TESTS = ("tests/test_engine.py", "tests/test_engine_interdiction.py", "tests/test_engine_owed_markers.py",
         "tests/test_engine_mutants.py", "tests/test_steps.py", "tests/test_los.py",
         "tests/test_los_exact.py", "tests/test_db.py", "tests/test_cp.py", "tests/test_hexgrid.py",
         "rules_data")

#: The suites (``--suite``): the modules mutated, and the tests run on each mutant.
SUITES = {
    "engine": (MODULES, TESTS),
    # the modules changed in session 7: the PDFs' printer, the cards' fit bound, the clauses'
    # examples run for the site
    "print": (("printer", "bound", "examplerun"),
              ("tests/test_printer.py", "tests/test_cardbound.py", "tests/test_clause_examples.py",
               "tests/test_site_examples.py")),
    # session 9: the HTML parser's cache under WeasyPrint, and the tables' checks
    "parse": (("htmlcache", "tablecheck"), ("tests/test_htmlcache.py", "tests/test_tablecheck.py", "tests/test_cp.py")),
    # session 10: PDFs remembered across builds; the search index a preview leaves (its tests
    # build sites: a suite of its own, sampled)
    "printcache": (("printcache",), ("tests/test_printcache.py",)),
    "searchlater": (("searchlater",), ("tests/test_searchlater.py",)),
    # session 11: the rulebooks as EPUBs (the doctests run with the tests)
    "epub": (("epub",), ("tests/test_rulebook_epub.py",)),
    "navigation": (("navigation",), ("tests/test_navigation.py",)),
    # a preview's open pages first (session 12): run with --within makers,_sources,showing_first,
    # data,_hex_geometry (the modules are large; the rest of them is other suites' and tests')
    "preview": (("generate", "build", "sphinxapp", "svg"),
                ("tests/test_generate_data.py", "tests/test_preview_showing.py")),
    # session 13: the explorer's Pyodide started from a snapshot taken under Node.js (each
    # mutant's run takes several Node.js runs: sample it); with --within for explorer.py:
    # engine_zip,rules_json,prepare,_python_ahead,bundle_files
    "snapshot": (("snapshot", "pyodidejob", "bytecode", "explorer"),
                 ("tests/test_explorer_snapshot.py", "tests/test_explorer_bytecode.py",
                  "tests/test_explorer.py", "tests/test_explorer_bundle.py")),
    # session 14: the rulebooks' drawings printed as images (with --within
    # drawings_as_images,print_pdf)
    "rbrender": (("rbrender",), ("tests/test_rulebook.py",)),
    # session 16: a scenario's check and a play's errors remembered (with --within
    # played_errors,_remembered_errors,_remembered_key,_remembered for game.py)
    # and the scratch folders a process killed outright leaves, removed by the next (with
    # --within scratch,_sweep)
    "scratch": (("pyodidejob",), ("tests/test_pyodidejob.py",)),
    "checked": (("playcache", "game", "pbgame"),
                ("tests/test_playcache.py", "tests/test_imports.py")),
    # session 17: the theme's sidebar made once a build
    "sidebar": (("sidebar",), ("tests/test_sidebar.py",)),
    "stemming": (("stemming",), ("tests/test_stemming.py",)),
    # session 18: the cards' measuring cache kept bounded (with --within
    # _card_path,_set_path,_read,_write,_card_read,_card_write,_cache_read,_cache_write);
    # SIGTERM let through doctest (signals.py)
    "fitcache": (("fit",), ("tests/test_cards.py",)),
    "signals": (("signals",), ("tests/test_signals.py", "tests/test_fuzz.py")),
    # session 21: a text edit swapped into the open page before its rebuild (with --within
    # Patch,as_event,_footnotes,text_edits,page_of,cell_html,patches,spliced,set,patch,shown,event,digest,
    # show_ahead)
    "textedit": (("textedit", "livereload", "serve"), ("tests/test_textedit.py",)),
    "pageswap": (("pageswap", "livereload", "serve"), ("tests/test_pageswap.py",)),
    # session 23: the pages that link a PDF written last (with --within linking_last)
    "pdflinks": (("pdflinks",), ("tests/test_pdflinks.py",)),
}

_COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
            ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_COMPARE_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
                 ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}
_BINOP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult}
_BINOP_TEXT = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//"}
#: A condition that is one of these comparisons is not negated as well (it would be the same mutant).
_FLIPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)


@dataclass(frozen=True)
class Mutant:
    """One change of one module: replace ``source[start:end]`` by ``text``."""
    module: str
    line: int
    col: int
    kind: str
    start: int
    end: int
    text: str

    @property
    def id(self) -> str:
        return f"{self.module}:{self.line}:{self.col}:{self.kind}"


class _Finder(ast.NodeVisitor):
    """Collect the mutants of one module's source."""

    def __init__(self, module: str, source: str) -> None:
        self.module, self.source = module, source
        self.offsets = [0]
        for line in source.splitlines(keepends=True):
            self.offsets.append(self.offsets[-1] + len(line.encode("utf-8")))
        self.raw = source.encode("utf-8")
        self.found: list[Mutant] = []

    # -- positions (ast columns are UTF-8 byte offsets)
    def _span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offsets[node.lineno - 1] + node.col_offset,  # type: ignore[attr-defined]
                self.offsets[node.end_lineno - 1] + node.end_col_offset)  # type: ignore[attr-defined]

    def seg(self, node: ast.AST) -> str:
        a, b = self._span(node)
        return self.raw[a:b].decode("utf-8")

    def add(self, node: ast.AST, kind: str, text: str) -> None:
        a, b = self._span(node)
        self.found.append(Mutant(self.module, node.lineno, node.col_offset, kind,  # type: ignore[attr-defined]
                                 a, b, text))

    # -- what is left alone
    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return

    def visit_Assert(self, node: ast.Assert) -> None:
        return

    def visit_arg(self, node: ast.arg) -> None:
        return

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def _body(self, body: list[ast.stmt]) -> None:
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        for stmt in body:
            self.visit(stmt)

    def visit_Module(self, node: ast.Module) -> None:
        self._body(node.body)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(default)
        self._body(node.body)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        self._body(node.body)

    def visit_If(self, node: ast.If) -> None:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return
        self._negate(node.test)
        self.generic_visit(node)

    # -- the mutants
    def _negate(self, test: ast.expr) -> None:
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], _FLIPS):
            return
        self.add(test, "not", f"(not ({self.seg(test)}))")

    def visit_While(self, node: ast.While) -> None:
        self._negate(node.test)
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._negate(node.test)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        for cond in node.ifs:
            self._negate(cond)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left] + node.comparators
        for i, op in enumerate(node.ops):
            new = _COMPARE[type(op)]
            parts = [f"({self.seg(operands[0])})"]
            for j, o in enumerate(node.ops):
                parts.append(_COMPARE_TEXT[new if j == i else type(o)])
                parts.append(f"({self.seg(operands[j + 1])})")
            self.add(node, f"{_COMPARE_TEXT[type(op)].replace(' ', '_')}->{_COMPARE_TEXT[new].replace(' ', '_')}"
                     + (f"@{i}" if len(node.ops) > 1 else ""), "(" + " ".join(parts) + ")")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        new = _BINOP.get(type(node.op))
        if new is not None and not (isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
            self.add(node, f"{_BINOP_TEXT[type(node.op)]}->{_BINOP_TEXT[new]}",
                     f"(({self.seg(node.left)}) {_BINOP_TEXT[new]} ({self.seg(node.right)}))")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, (ast.Add, ast.Sub)):
            new = "-=" if isinstance(node.op, ast.Add) else "+="
            old = "+=" if isinstance(node.op, ast.Add) else "-="
            self.add(node, f"{old}->{new}", f"{self.seg(node.target)} {new} ({self.seg(node.value)})")
        self.visit(node.value)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        new = " or " if isinstance(node.op, ast.And) else " and "
        self.add(node, "and->or" if isinstance(node.op, ast.And) else "or->and",
                 "(" + new.join(f"({self.seg(v)})" for v in node.values) + ")")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        v = node.value
        if isinstance(v, bool):
            self.add(node, f"{v}->{not v}", f"({not v})")
        elif isinstance(v, (int, float)) and not isinstance(v, complex):
            self.add(node, f"{v!r}->{v + 1!r}", f"({v + 1!r})")

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            self.add(node, "return->None", "return None")
            self.visit(node.value)


#: where each module lives now: the hex engine and the Combat Patrol calculator are games
#: (harmony/games/), the ruleset resolver is the core's
WHERE = {"engine": "games/panzerblitz/engine.py", "referee": "games/panzerblitz/referee.py",
         "steps": "games/panzerblitz/steps.py", "los": "games/panzerblitz/los.py",
         "ruleset": "ruleset.py", "cpcalc": "games/combatpatrol/calculator.py",
         "knowledge": "games/panzerblitz/knowledge.py", "barriers": "games/panzerblitz/barriers.py",
         "printer": "printer.py", "bound": "cards/bound.py", "examplerun": "examplerun.py",
         "htmlcache": "htmlcache.py", "tablecheck": "tablecheck.py", "printcache": "printcache.py",
         "searchlater": "site/searchlater.py", "epub": "rulebook/epub.py",
         "navigation": "site/navigation.py", "generate": "site/generate.py", "build": "site/build.py",
         "sphinxapp": "site/sphinxapp.py", "svg": "games/panzerblitz/svg.py",
         "snapshot": "site/snapshot.py", "pyodidejob": "site/pyodidejob.py", "bytecode": "site/bytecode.py",
         "explorer": "site/explorer.py", "rbrender": "rulebook/render.py", "playcache": "playcache.py",
         "game": "game.py", "pbgame": "games/panzerblitz/__init__.py", "sidebar": "site/sidebar.py",
         "stemming": "site/stemming.py", "fit": "cards/fit.py", "signals": "signals.py",
         "textedit": "site/textedit.py", "livereload": "site/livereload.py", "serve": "site/serve.py",
         "pageswap": "site/pageswap.py", "pdflinks": "site/pdflinks.py"}


def rel_of(module: str) -> str:
    """The module's file, relative to the checkout."""
    return f"harmony/{WHERE[module]}"


def path_of(module: str, root: Path = ROOT) -> Path:
    return root / rel_of(module)


def apply(source: str, m: Mutant) -> str:
    raw = source.encode("utf-8")
    return (raw[:m.start] + m.text.encode("utf-8") + raw[m.end:]).decode("utf-8")


def enumerate_mutants(module: str, root: Path = ROOT) -> tuple[list[Mutant], int]:
    """Every mutant of ``module`` that compiles, and how many did not."""
    source = path_of(module, root).read_text(encoding="utf-8")
    finder = _Finder(module, source)
    finder.visit(ast.parse(source))
    good, bad = [], 0
    seen = set()
    for m in finder.found:
        if m.id in seen:
            continue
        seen.add(m.id)
        try:
            compile(apply(source, m), module, "exec")
        except SyntaxError:
            bad += 1
            continue
        good.append(m)
    return good, bad


def within(module: str, names: set[str], pool: list[Mutant], root: Path = ROOT) -> list[Mutant]:
    """The mutants of ``pool`` inside the functions or classes of ``module`` named ``names``."""
    tree = ast.parse(path_of(module, root).read_text(encoding="utf-8"))
    spans = [(node.lineno, node.end_lineno or node.lineno) for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in names]
    return [m for m in pool if any(a <= m.line <= b for a, b in spans)]


def sample(pools: dict[str, list[Mutant]], n: int, seed: int, root: Path = ROOT) -> list[Mutant]:
    """``n`` mutants (about: quotas are rounded), each module's share proportional to its lines."""
    lines = {mod: len(path_of(mod, root).read_text(encoding="utf-8").splitlines()) for mod in pools}
    total = sum(lines.values())
    chosen: list[Mutant] = []
    for mod, pool in pools.items():
        quota = min(len(pool), round(n * lines[mod] / total))
        rng = random.Random(f"{seed}:{mod}")
        chosen.extend(sorted(rng.sample(pool, quota), key=lambda m: m.start))
    return chosen


def copy_tree(dest: Path) -> Path:
    """The checkout's files that the tests read, copied into ``dest`` and compiled once."""
    tree = dest / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", "node_modules", "build", "__pycache__", ".hypothesis", ".mypy_cache", ".ruff_cache", ".venv"))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "harmony")], check=True)
    return tree


def run_tests(tree: Path, module: str, timeout: float, suite: str = "engine") -> tuple[str, int | None, float, str]:
    """Run the suite's tests (:data:`SUITES`) on ``tree``: (outcome, exit code, seconds, last line
    of output)."""
    modules, suite_tests = SUITES[suite]
    first = [rel_of(module)]
    doctests = first + [rel_of(m) for m in modules if m != module]
    tests = [t for t in suite_tests if (tree / t).exists()]
    cmd = ["nice", "-n", "15", sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly",
           "-p", "no:cacheprovider", *doctests, *tests]
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1", HARMONY_CACHE="off",
               PYTHONHASHSEED="0")
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return "timeout", None, time.monotonic() - t0, ""
    took = time.monotonic() - t0
    out = [line for line in proc.stdout.splitlines() if line.strip()]
    last = out[-1] if out else proc.stderr.strip()[-200:]
    if proc.returncode == 0:
        return "survived", 0, took, last
    if proc.returncode in (1, 2, 3):
        return "killed", proc.returncode, took, last
    return "error", proc.returncode, took, last


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", choices=sorted(SUITES), default="engine",
                    help="which modules are mutated and which tests run (default: the engine's)")
    ap.add_argument("--sample", type=int, default=240)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "mutation")
    ap.add_argument("--only", type=Path, help="run only the mutants whose ids begin the lines of this file")
    ap.add_argument("--within", default="", help="only the mutants inside these functions or classes "
                    "(names, comma-separated)")
    ap.add_argument("--list", action="store_true", help="count the mutants and the sample; run nothing")
    ap.add_argument("--timeout", type=float, default=0, help="seconds per mutant (default 5x the clean run, >= 60)")
    args = ap.parse_args(argv)

    modules = SUITES[args.suite][0]
    pools, dropped = {}, 0
    for mod in modules:
        pools[mod], bad = enumerate_mutants(mod)
        dropped += bad
        if args.within:
            pools[mod] = within(mod, set(args.within.split(",")), pools[mod])
    everything = {m.id: m for pool in pools.values() for m in pool}
    if args.only:
        ids = [line.split()[0] for line in args.only.read_text().splitlines() if line.strip()]
        missing = [i for i in ids if i not in everything]
        if missing:
            print(f"not mutants of the current code: {', '.join(missing)}", file=sys.stderr)
        chosen = [everything[i] for i in ids if i in everything]
    else:
        chosen = sample(pools, args.sample, args.seed)
    print(f"{len(everything)} mutants in {len(modules)} modules ({dropped} that do not compile left out); "
          + ", ".join(f"{mod} {len(p)}" for mod, p in pools.items()))
    print(f"running {len(chosen)}: " + ", ".join(
        f"{mod} {sum(m.module == mod for m in chosen)}" for mod in modules))
    if args.list:
        return 0

    args.out.mkdir(parents=True, exist_ok=True)
    sources = {mod: path_of(mod).read_text(encoding="utf-8") for mod in modules}
    with tempfile.TemporaryDirectory(prefix="harmony-mutation-") as tmp:
        tree = copy_tree(Path(tmp))
        outcome, code, clean, last = run_tests(tree, modules[0], timeout=600, suite=args.suite)
        if outcome != "survived":
            print(f"the tests fail without any mutant ({code}): {last}", file=sys.stderr)
            return 1
        timeout = args.timeout or max(60.0, 5 * clean)
        print(f"clean run {clean:.1f} s ({last}); timeout {timeout:.0f} s per mutant", flush=True)
        counts: dict[str, int] = {}
        survivors = []
        started = time.monotonic()
        with open(args.out / "results.jsonl", "w", encoding="utf-8") as results:
            for n, m in enumerate(chosen, 1):
                target = path_of(m.module, tree)
                target.write_text(apply(sources[m.module], m), encoding="utf-8")
                for pyc in (target.parent / "__pycache__").glob(f"{m.module}.*.pyc"):
                    pyc.unlink()
                try:
                    outcome, code, took, last = run_tests(tree, m.module, timeout, suite=args.suite)
                finally:
                    target.write_text(sources[m.module], encoding="utf-8")
                counts[outcome] = counts.get(outcome, 0) + 1
                line = sources[m.module].splitlines()[m.line - 1].strip()
                results.write(json.dumps({"id": m.id, "outcome": outcome, "code": code, "seconds": round(took, 1),
                                          "replacement": m.text, "line": line, "last": last}) + "\n")
                results.flush()
                if outcome == "survived":
                    text = m.text.replace("\n", "\\n")
                    survivors.append(f"{m.id}\t{text}\t| {line}")
                print(f"[{n}/{len(chosen)}] {outcome:8} {took:5.1f}s {m.id}", flush=True)
        (args.out / "survivors.txt").write_text("".join(s + "\n" for s in survivors), encoding="utf-8")
    caught = counts.get("killed", 0) + counts.get("timeout", 0)
    ran = len(chosen) - counts.get("error", 0)
    print(f"\n{caught} of {ran} mutants killed ({100 * caught / max(ran, 1):.1f}%): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
          + f"; {time.monotonic() - started:.0f} s; survivors in {args.out / 'survivors.txt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
