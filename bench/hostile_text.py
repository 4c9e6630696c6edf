"""Hostile text: time and peak memory of the scanners, ``check`` and ``fmt`` at 0.25, 0.5 and
1 MB, and the ratio of the time at 1 MB to the time at 0.25 MB (linear is about 4x).

Run from the top of a checkout:

    python3 bench/hostile_text.py [--sizes 0.25,0.5,1] [--cases markup,numbers,loader,words,pageswap,check,fmt]
                                  [--repeats 1]

Every measurement is a new process (this script with ``--one``, or ``python3 -m harmony``),
one at a time; its CPU time (user + system) and peak resident memory come from
``os.wait4``; for the scanners the time is measured inside the process around the one call
(building the input is not counted), for ``check`` and ``fmt`` it is the whole command,
with empty caches (``HARMONY_CACHE``, ``XDG_CACHE_HOME``). The inputs:

* markup (:func:`harmony.markup.marks`): ``[[`` repeated (issue 26: 20,000 took more than
  60 s), ``[[a|`` (links with a target never closed), ``{{ `` and ``[^`` repeated;
* numbers (:func:`harmony.numbers.numbers_in`): ``half `` repeated (950 KB took 18
  minutes), ``a half ``, ``one-`` (a word with dashes to the end), ``once a turn ``;
* loader (:func:`harmony.loader.names_in_text`, run on a file that does not parse): a line
  of blanks, ``id: a`` followed by blanks, ``aliases:`` lines with nothing after them, and
  flow lists of aliases never closed;
* words (:func:`harmony.diff.words.word_diff`, ``harmony diff`` of a clause text): a text of
  words and the same words in the other order;
* pageswap (:func:`harmony.site.pageswap.changed_parts`, ``harmony serve`` after a rebuild,
  on a page holding the text in its main content, and the same page with a byte added):
  start tags never closed (``<a b ``), an attribute value never closed, a ``<`` in the
  text, and elements with ids nested deeper than Python recurses;
* check: ``harmony check`` of the shipped rules plus one YAML file of that size (the
  shipped clauses again, ids renamed, ``bench/corpus.py``'s way), and of a starter harmony
  whose clause text is ``[[`` repeated;
* fmt: ``harmony fmt --check`` of that one YAML file, and of the same file with a comment
  inside every flow mapping of parameters.

A benchmark, never a test: nothing asserts a time.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1_000_000

#: scanner cases: name -> (module, function, piece repeated to the size)
SCANNERS = {
    "markup": {
        "[[": "[[", "[[a|": "[[a|", "{{ ": "{{ ", "[^": "[^",
    },
    "numbers": {
        "half": "half ", "a half": "a half ", "one-": "one-", "once a turn": "once a turn ",
    },
    "loader": {
        "blank line": None, "id and blanks": None, "empty aliases": "aliases:\n",
        "open alias lists": "aliases: [a\n",
    },
    "words": {
        "other order": None,
    },
    "pageswap": {
        "<a b ": "<a b ", "<a b=\"": "<a b=\"", "< a": "< a", "nested ids": None,
    },
}


def scanner_input(group: str, case: str, size: int) -> str:
    piece = SCANNERS[group][case]
    if case == "blank line":
        return " " * size + "x"
    if case == "id and blanks":
        return "id: a" + " " * size + "b"
    if case == "other order":
        return " ".join(str(i % 100) for i in range(size // 3))
    if case == "nested ids":
        n = size // 30
        return "".join(f'<b id="b{i}">' for i in range(n)) + "x" + "</b>" * n
    assert piece is not None
    return piece * (size // len(piece))


def run_scanner(group: str, case: str, size: int) -> float:
    text = scanner_input(group, case, size)
    if group == "markup":
        from harmony.markup import marks as call
    elif group == "numbers":
        from harmony.numbers import numbers_in as call  # type: ignore[assignment]
    elif group == "pageswap":
        from harmony.site.pageswap import changed_parts
        page = ('<html><body><div role="main">' + text + "</div></body></html>").encode()
        start = time.process_time()
        changed_parts(page, page + b" ")
        return time.process_time() - start
    elif group == "words":
        from harmony.diff.words import word_diff
        other = " ".join(reversed(text.split()))
        start = time.process_time()
        word_diff(text, other)
        return time.process_time() - start
    else:
        from harmony.loader import names_in_text as call  # type: ignore[assignment]
    start = time.process_time()
    call(text)
    return time.process_time() - start


# ------------------------------------------------------------------ a big YAML file

def big_yaml(size: int) -> str:
    """One YAML file of about ``size`` bytes: topics and clauses of the shipped rules again,
    copy after copy, ids renamed (scenario lists left out: the copies have no scenarios)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from corpus import _renamer, inventory
    rules = ROOT / "rules_data"
    inv = inventory(rules)
    clause_files = [p for p, kinds in inv["files"].items() if "clauses" in kinds]
    topics, clauses = [], []
    total, k, full = len("topics:\nclauses:\n"), 1, False
    while not full:
        k += 1
        rename = _renamer(inv, k)
        for item in _items(rename((rules / "topics.yaml").read_text("utf-8")), "topics"):
            topics.append(item)
            total += len(item)
        for p in clause_files:
            for item in _items(rename(p.read_text("utf-8")), "clauses"):
                item = re.sub(r"(?m)^    scenarios: \[[^\]]*\]\n", "", item)
                if total + len(item) > size:
                    full = True
                    break
                clauses.append(item)
                total += len(item)
            if full:
                break
    return "topics:\n" + "".join(topics) + "clauses:\n" + "".join(clauses)


def _items(text: str, section: str) -> list[str]:
    """The list items (``  - ...`` and the lines under them) of a top-level section."""
    body = text.split(f"\n{section}:\n", 1)[1] if f"\n{section}:\n" in text else \
        text.split(f"{section}:\n", 1)[1]
    body = re.split(r"(?m)^\S", body, maxsplit=1)[0]
    return [("  - " + part) if not part.startswith("  - ") else part
            for part in re.split(r"(?m)^(?=  - )", body) if part.strip()]


def with_flow_comments(text: str) -> str:
    """Every one-line flow mapping of parameters broken after its first item, with a comment."""
    return re.sub(r"(?m)^(\s+params: \{[^,}\n]+,)( [^}\n]*\})$", r"\1  # a comment in a flow\n       \2",
                  text)


def check_folder(work: Path, case: str, size: int) -> list[str]:
    """The command measured for a ``check`` or ``fmt`` case, its inputs written in ``work``."""
    size = min(size, FILE_LIMIT)
    if case in ("check: rules + big file", "fmt: big file", "fmt: flow comments"):
        folder = work / "rules_data"
        shutil.copytree(ROOT / "rules_data", folder)
        text = big_yaml(size)
        if case == "fmt: flow comments":
            text = with_flow_comments(text)[:FILE_LIMIT]
            text = text[:text.rfind("\n  - id:")] + "\n"     # whole clauses, under the limit
        (folder / "big.yaml").write_text(text, "utf-8")
        if case.startswith("fmt"):
            return ["fmt", str(folder / "big.yaml"), "--check"]
        return ["check", str(folder)]
    # check: a starter harmony whose clause text is [[ repeated
    folder = work / "starter"
    shutil.copytree(ROOT / "harmony" / "starter", folder)
    p = folder / "spotting.yaml"
    t = p.read_text("utf-8")
    t = t.replace("text: A unit in [[woods]] may be fired on only while an undispersed enemy unit\n"
                  "          stands next to it. A dispersed neighbour does not count.",
                  "text: '" + "[[" * ((size - len(t)) // 2) + "'", 1)
    p.write_text(t, "utf-8")
    return ["check", str(folder)]


#: the largest file harmony reads is 1,000,000 bytes: the "1 MB" files are a little less
FILE_LIMIT = 990_000
COMMANDS = ["check: rules + big file", "check: [[ in a clause text", "fmt: big file",
            "fmt: flow comments"]


# ------------------------------------------------------------------ measuring

def measure(argv: list[str], env: dict) -> tuple[float, float, str]:
    """(CPU seconds, peak MB, the last line of the output) of one process."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            cwd=ROOT, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, last


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="0.25,0.5,1", help="sizes in MB")
    ap.add_argument("--cases", default="markup,numbers,loader,words,pageswap,check,fmt")
    ap.add_argument("--repeats", type=int, default=1, help="runs of each (the least time is kept)")
    ap.add_argument("--one", nargs=3, metavar=("GROUP", "CASE", "BYTES"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        group, case, size = args.one
        print(f"{run_scanner(group, case, int(size)):.6f}")
        return 0
    sizes = [int(float(s) * MB) for s in args.sizes.split(",")]
    groups = args.cases.split(",")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    rows = []
    for group in [g for g in SCANNERS if g in groups]:
        for case in SCANNERS[group]:
            rows.append((f"{group}: {case}", [sys.executable, __file__, "--one", group, case]))
    for case in COMMANDS:
        if case.split(":")[0] in groups:
            rows.append((case, None))
    print(f"{'case':34s} " + " ".join(f"{s / MB:>5.2f} MB: s / MB peak" for s in sizes)
          + "   1 MB / 0.25 MB")
    for name, cmd in rows:
        cells, times = [], []
        for size in sizes:
            best: tuple[float, float] | None = None
            for _ in range(args.repeats):
                with tempfile.TemporaryDirectory(prefix="harmony-hostile-") as tmp:
                    work = Path(tmp)
                    run_env = {**env, "HARMONY_CACHE": str(work / "cache"),
                               "XDG_CACHE_HOME": str(work / "xdg")}
                    if cmd is not None:
                        cpu, peak, last = measure(cmd + [str(size)], run_env)
                        cpu = float(last)          # the call alone, measured inside
                    else:
                        argv_ = [sys.executable, "-m", "harmony"] + check_folder(work, name, size)
                        cpu, peak, last = measure(argv_, run_env)
                if best is None or cpu < best[0]:
                    best = (cpu, peak)
            assert best is not None
            times.append(best[0])
            cells.append(f"{best[0]:>9.3f} / {best[1]:>6.0f}")
        ratio = times[-1] / times[0] if times[0] > 0 else float("nan")
        print(f"{name:34s} " + " ".join(f"{c:>21s}" for c in cells) + f"   {ratio:>6.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
