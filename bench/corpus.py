"""Benchmark corpus: the shipped rules_data replicated to N clauses, still checking clean.

Run from the top of a checkout:

    python3 bench/corpus.py OUT --clauses 2000 [--rules rules_data] [--no-scenarios]

Copy 1 is the shipped data as it is, in ``OUT/copy-001/`` but for the file defining the
sources, which goes to ``OUT/`` itself (a rules folder names its sources at its top).
Every further copy ``k`` is written to its own folder ``OUT/copy-NNN/`` and holds the topic
files, the topics, the notes and (unless ``--no-scenarios``) the scenarios again, with every topic id, clause id,
note id, scenario id and comparison id renamed (``spotting`` becomes ``spotting-k2``,
``spotting.rule`` becomes ``spotting-k2.rule``; the copy number is written in base 36, so
copy 100 is ``-k2s``). Each copy declares its own parameters (``spot.adjacent-k2``, in its
own ``parameters.yaml``), so its cells do not set for a ruleset what copy 1 sets already
(``parameter-set-twice``); the games read copy 1's. Sources, glossary,
footnotes and tables stay shared, as in one real harmony (a table's citation names one
printed table, which every copy's marks print). Renaming is done on the text with
whole-word patterns, so the comments and prose of every file are those of the
shipped data (``harmony check`` passes on the corpus; a renamed id may make a
line longer than ``harmony fmt`` would write it).

The number of clauses is rounded up to whole copies (the shipped data has 94).
A tool for the benchmark, not a test.
"""
from __future__ import annotations

import argparse
import math
import re
import shutil
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent

SHARED = ("sources", "parameters", "glossary", "footnotes", "tables")


def _sections(path: Path) -> dict:
    return yaml.load(path.read_text("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}


def inventory(rules: Path) -> dict:
    """What the shipped data names, by kind: topic, clause, note, scenario, comparison ids and
    parameter names."""
    found = {"topic": set(), "clause": set(), "note": set(), "scenario": set(),
             "comparison": set(), "parameter": set(), "files": {}}
    for p in sorted(rules.rglob("*.yaml")):
        data = _sections(p)
        kinds = set(data)
        found["files"][p] = kinds
        for t in data.get("topics", []) or []:
            found["topic"].add(t["id"])
        for c in data.get("clauses", []) or []:
            found["clause"].add(c["id"])
        for n in data.get("notes", []) or []:
            found["note"].add(n["id"])
        for n in data.get("comparisons", []) or []:
            found["comparison"].add(n["id"])
        for n in data.get("parameters", []) or []:
            found["parameter"].add(n["name"])
        if "scenario" in data:
            found["scenario"].add(data["scenario"]["id"])
    return found


def count_clauses(rules: Path) -> int:
    """Clauses in one copy of ``rules``.

    >>> count_clauses(ROOT / "rules_data") > 0
    True
    """
    return len(inventory(rules)["clause"])


def _base36(k: int) -> str:
    """``k`` in lower-case base 36: copy 100 is ``2s``, so a renamed id grows by at most two
    characters up to copy 1,295 (with ``-k100`` some clause ids no longer fit a card's foot,
    and the corpus stopped checking clean past 99 copies).

    >>> [_base36(k) for k in (2, 9, 10, 35, 36, 100, 1295)]
    ['2', '9', 'a', 'z', '10', '2s', 'zz']
    """
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        k, r = divmod(k, 36)
        out = digits[r] + out
        if k == 0:
            return out


def _renamer(inv: dict, k: int):
    """A function renaming every id of copy ``k`` in a file's text.

    Clause, note, scenario and comparison ids (they hold a '.' or a '-') are renamed wherever
    they are written as whole words, except as a key (a parameter may share a clause's
    name: ``params: {sequence.face-up: ...}``); topic ids (plain words such as ``spotting``, also
    common in prose) only as the value of a ``topic:`` key or the ``id:`` of a top-level item.

    >>> inv = {"topic": {"spotting"}, "clause": {"spotting.rule"}, "note": set(), "scenario": set()}
    >>> print(_renamer(inv, 2)("topic: spotting\\n  - id: spotting.rule  # spotting\\nsee spotting.rule."
    ...                        "\\nparams: {spotting.rule: 1}"))
    topic: spotting-k2
      - id: spotting-k2.rule  # spotting
    see spotting-k2.rule.
    params: {spotting.rule: 1}
    """
    suffix = f"-k{_base36(k)}"
    mapping = {}
    for c in inv["clause"]:
        topic, _, rest = c.partition(".")
        mapping[c] = (topic + suffix + "." + rest) if rest else c + suffix
    for n in inv["note"] | inv["scenario"] | inv.get("comparison", set()):
        mapping[n] = n + suffix
    names = sorted(mapping, key=len, reverse=True)
    words = re.compile(r"(?<![\w.\-/])(" + "|".join(map(re.escape, names)) + r")(?![\w\-]|\.\w|:)")
    params = _param_renamer(inv, k)
    topics = re.compile(r"^((?:  - id|[ \t]*topic)[ \t]*:[ \t]*)("
                        + "|".join(map(re.escape, sorted(inv["topic"], key=len, reverse=True)))
                        + r")([ \t]*(?:#.*)?)$", re.M)

    def rename(text: str) -> str:
        text = params(text)
        text = topics.sub(lambda m: m.group(1) + m.group(2) + suffix + m.group(3), text)
        return words.sub(lambda m: mapping[m.group(1)], text)
    return rename


def _param_renamer(inv: dict, k: int):
    """A function renaming every parameter name of copy ``k`` in a file's text, as a key too
    (``params: {spot.adjacent: true}``): each copy declares its own parameters (see
    :func:`generate`), so its cells set them for the rulesets without setting what another
    copy's cells set (``parameter-set-twice``).

    >>> inv = {"parameter": {"spot.adjacent"}}
    >>> print(_param_renamer(inv, 2)("- name: spot.adjacent\\nparams: {spot.adjacent: true}\\n"
    ...                              "{{ spot.adjacent }} spot.adjacent-x"))
    - name: spot.adjacent-k2
    params: {spot.adjacent-k2: true}
    {{ spot.adjacent-k2 }} spot.adjacent-x
    """
    names = sorted(inv.get("parameter", ()), key=len, reverse=True)
    if not names:
        return lambda text: text
    suffix = f"-k{_base36(k)}"
    words = re.compile(r"(?<![\w.\-/])(" + "|".join(map(re.escape, names)) + r")(?![\w\-]|\.\w)")
    return lambda text: words.sub(lambda m: m.group(1) + suffix, text)


def generate(out: Path, clauses: int, rules: Path = ROOT / "rules_data",
             scenarios: bool = True) -> int:
    """Write a corpus of at least ``clauses`` clauses to ``out``; returns the clause count."""
    inv = inventory(rules)
    per_copy = len(inv["clause"])
    copies = max(1, math.ceil(clauses / per_copy))
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(rules, out / "copy-001")
    for p, kinds in inv["files"].items():
        if "sources" in kinds and p.parent == rules:
            # a rules folder defines its sources in a file of its own top folder
            (out / "copy-001" / p.name).rename(out / p.name)
    for k in range(2, copies + 1):
        rename = _renamer(inv, k)
        dest = out / f"copy-{k:03d}"
        for p, kinds in inv["files"].items():
            if kinds == {"parameters"}:      # each copy declares its own parameters
                target = dest / p.relative_to(rules)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(_param_renamer(inv, k)(p.read_text("utf-8")), "utf-8")
                continue
            if kinds & set(SHARED):
                continue
            rel = p.relative_to(rules)
            if not scenarios and "scenario" in kinds:
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(rename(p.read_text("utf-8")), "utf-8")
    return copies * per_copy


def copies_in(out: Path) -> int:
    """How many copies the corpus in ``out`` holds."""
    return len(list(out.glob("copy-*")))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--clauses", type=int, default=500)
    ap.add_argument("--rules", type=Path, default=ROOT / "rules_data")
    ap.add_argument("--no-scenarios", action="store_true")
    a = ap.parse_args(argv)
    n = generate(a.out, a.clauses, a.rules, scenarios=not a.no_scenarios)
    print(f"{a.out}: {n} clauses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
