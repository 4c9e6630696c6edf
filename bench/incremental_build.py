"""Benchmark: full site build, rebuild after a one-clause edit, rebuild with no change.

Run from the top of a checkout:  python3 bench/incremental_build.py [RULES_DATA]

Builds a copy of rules_data in a temporary folder four times (the last with the
loader's parse cache dropped, as a new process) and prints, for
each build, the generated sources rewritten, the pages Sphinx re-read and
wrote, the HTML files whose bytes changed, and the seconds taken. A benchmark,
not a test: nothing here asserts a time.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harmony import loader  # noqa: E402
from harmony.loader import load, new_yaml  # noqa: E402
from harmony.site.build import CACHE, build_site  # noqa: E402


def html_bytes(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.html")
            if CACHE not in p.relative_to(out).parts}


def edit_one_clause(rules: Path) -> str:
    """Append a word to the text of one canonical cell; returns the clause id."""
    model, _ = load(rules)
    for cid in sorted(model.clauses):
        clause = model.clauses[cid]
        key = next((k for k in ("PL", "PB", "AIW") if k in clause.cells and clause.cells[k].text), None)
        if key is None:
            continue
        y = new_yaml()
        path = Path(clause.file)
        if not path.is_absolute():
            path = rules / Path(clause.file).relative_to(Path(clause.file).parts[0])
        tree = y.load(path.read_text("utf-8"))
        node = next(c for c in tree["clauses"] if c["id"] == cid)
        node["cells"][key]["text"] = str(node["cells"][key]["text"]) + " (edited)"
        with path.open("w", encoding="utf-8") as f:
            y.dump(tree, f)
        return f"{cid}@{key}"
    raise SystemExit("no clause with text to edit")


def run(label: str, rules: Path, out: Path, rows: list) -> None:
    before = html_bytes(out) if out.exists() else {}
    t = time.perf_counter()
    res = build_site(rules, out)
    seconds = time.perf_counter() - t
    after = html_bytes(out)
    changed = sorted(k for k in after if before.get(k) != after[k])
    ph = res.phases
    rows.append((label, len(res.staged.written), len(res.read), len(res.written), len(changed),
                 f"{seconds:.2f}", f"{ph['load and check']:.2f}", f"{ph['generate']:.2f}",
                 f"{ph['sphinx']:.2f}", f"{ph['extras']:.2f}",
                 ", ".join(changed) if len(changed) <= 4 else f"{len(changed)} files"))


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else ROOT / "rules_data"
    with tempfile.TemporaryDirectory(prefix="harmony-bench-") as tmp:
        rules = Path(tmp) / "rules_data"
        shutil.copytree(source, rules)
        out = Path(tmp) / "site"
        rows: list = []
        run("full build (empty cache)", rules, out, rows)
        edited = edit_one_clause(rules)
        run(f"after editing {edited}", rules, out, rows)
        run("no change", rules, out, rows)
        loader._READ.clear()        # as a new process would: every file parsed again
        run("no change, files parsed again", rules, out, rows)
    head = ("build", "sources rewritten", "pages re-read", "pages written", "HTML files changed",
            "seconds", "of which load+check", "generate", "Sphinx", "cards page+PDF", "changed")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
