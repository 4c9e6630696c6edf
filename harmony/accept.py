"""``harmony accept``: the expected rulings of the scenarios brought in line with their play.

After a change to the rules (a parameter, a cell), some scenarios play differently: pytest
and ``harmony diff`` say which rulings changed. ``harmony accept`` plays every scenario (or
those named with ``--scenario``) under each of its rulesets and, where the engine's ruling
(its value, or the clauses that decide it) differs from the expected one, rewrites that
expected ``value`` and ``because`` in the scenario's file. It says each change in words
(scenario, step, ruleset, question: old -> new); ``--dry-run`` only says them.

The files are edited with a ruamel.yaml round trip, as :mod:`harmony.fmt` reads and writes
them, and only the lines of the rulings that change are replaced: every other line, its
comments and its layout stay byte for byte as they were (a file whose layout ruamel would
write otherwise keeps it too: the changed lines are put in place of the old ones). The
result is read back and must hold the data with exactly those rulings changed, or the file
is left alone and the command says so. A file with nothing to accept is never written; a
folder with errors (``harmony check``) is refused, since its play cannot be trusted.

Steps are numbered from 1, as everywhere else (pytest, check, diff, the site).
"""
from __future__ import annotations

import difflib
import io
import sys
from dataclasses import dataclass
from typing import Any

from .diagnostics import Pos
from .usage import UsageError, rules_arg

BOM = "\ufeff"


@dataclass(frozen=True)
class Change:
    """One expected ruling that the play no longer gives, and what the play gives now."""

    scenario: str
    file: str
    step: int                 # numbered from 1
    question: str
    ruleset: str
    old_value: Any
    new_value: Any
    old_because: tuple[str, ...]
    new_because: tuple[str, ...]
    pos: Pos                  # of the expected ruling (its mapping)

    def words(self) -> str:
        """The change in words, as the command prints it.

        >>> print(Change("s", "s.yaml", 2, "Spotted?", "PB", True, False, ("a",), ("a",),
        ...              Pos("s.yaml", 9, 17)).words())
        ~ s step 2, PB: Spotted?
            true -> false  because a
        """
        from .diff.text import describe
        head = f"~ {self.scenario} step {self.step}, {self.ruleset}: {self.question}"
        old, new = describe(self.old_value), describe(self.new_value)
        was, now = ", ".join(self.old_because) or "-", ", ".join(self.new_because) or "-"
        because = f"because {now}" if was == now else f"because {was} -> {now}"
        return f"{head}\n    {old} -> {new}  {because}"


def changes(model, scenario_ids: list[str]) -> tuple[list[Change], list[str]]:
    """The rulings of ``scenario_ids`` whose play differs from what they expect, and, in
    words, those the engine gave no answer to (nothing to accept there)."""
    from .game import played
    found: list[Change] = []
    unanswered: list[str] = []
    for sid in scenario_ids:
        sc = model.scenarios[sid]
        for row in played(model, sid).rulings:      # as harmony check played them
            if row.ok:
                continue
            if row.actual is None and not row.reasons:
                unanswered.append(f"{row.pos}: step {row.step + 1}, {row.ruleset}: "
                                  f"{row.question}: the engine gave no answer"
                                  + (f" ({row.detail})" if row.detail else ""))
                continue
            found.append(Change(sid, sc.file, row.step + 1, row.question, row.ruleset,
                                row.expected, row.actual, tuple(row.expected_reasons),
                                tuple(row.reasons), row.pos))
    return found, unanswered


class RewriteError(Exception):
    """A file that cannot be rewritten safely (said in words; the file is left alone)."""


def _node_at(steps, change: Change):
    """The mapping ``{value, because}`` of ``change`` in the round-trip tree: in its step's
    questions, the ruling of its ruleset at its position (else the one of its question)."""
    step = steps[change.step - 1]
    candidates = []
    for exp in step.get("expect") or []:
        rulings: Any = exp.get("rulings") if hasattr(exp, "get") else None
        if not isinstance(rulings, dict) or change.ruleset not in rulings:
            continue
        line, col = getattr(rulings, "lc").value(change.ruleset)
        if (line + 1, col + 1) == (change.pos.line, change.pos.col):
            return rulings[change.ruleset]
        if str(exp.get("question")) == change.question:
            candidates.append(rulings[change.ruleset])
    if len(candidates) == 1:
        return candidates[0]
    raise RewriteError(f"step {change.step}, {change.ruleset}: the ruling of '{change.question}' "
                       "was not found in the file")


def _yaml_value(value: Any, like: Any) -> Any:
    """``value`` as the file writes it: a list in the style of the list it replaces (flow
    style by default), other values as they are."""
    from ruamel.yaml.comments import CommentedSeq
    if isinstance(value, (list, tuple)):
        seq = CommentedSeq([_yaml_value(v, None) for v in value])
        flow = like.fa.flow_style() if isinstance(like, CommentedSeq) else True
        if flow:
            seq.fa.set_flow_style()
        else:
            seq.fa.set_block_style()
        return seq
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise RewriteError(f"the value {value!r} cannot be written in YAML")


def _dump(tree) -> str:
    from .loader import new_yaml
    out = io.StringIO()
    new_yaml().dump(tree, out)
    return "\n".join(line.rstrip(" ") for line in out.getvalue().split("\n"))


def _splice(original: str, before: str, after: str) -> str:
    """``original`` with the lines that differ between ``before`` and ``after`` (two dumps
    of one tree, before and after the change) replaced, everything else kept as it is.

    >>> _splice("a:   1  # mine\\nb: 2\\n", "a: 1  # mine\\nb: 2\\n", "a: 1  # mine\\nb: 3\\n")
    'a:   1  # mine\\nb: 3\\n'
    """
    newline = "\r\n" if "\r\n" in original else "\n"
    orig = original.split(newline)
    old, new = before.split("\n"), after.split("\n")
    if old == orig:
        return newline.join(new)
    to_orig: dict[int, int] = {}
    for tag, i1, i2, j1, _ in difflib.SequenceMatcher(None, old, orig, autojunk=False).get_opcodes():
        if tag == "equal":
            to_orig.update({i1 + k: j1 + k for k in range(i2 - i1)})
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 < i2:
            at = [to_orig.get(k, -1) for k in range(i1, i2)]
            if at != list(range(at[0], at[0] + len(at))) or at[0] < 0:
                raise RewriteError("its layout is not the one harmony fmt writes around the "
                                   "rulings to change; run harmony fmt on it first")
            start, end = at[0], at[-1] + 1
        elif i1 in to_orig:
            start = end = to_orig[i1]
        elif i1 - 1 in to_orig:
            start = end = to_orig[i1 - 1] + 1
        else:
            raise RewriteError("its layout is not the one harmony fmt writes around the rulings "
                               "to change; run harmony fmt on it first")
        edits.append((start, end, new[j1:j2]))
    for start, end, lines in reversed(edits):
        orig[start:end] = lines
    return newline.join(orig)


def _comments(text: str) -> set[str]:
    """The comments of a YAML text, each as written (a ``#`` at the start of a line or after
    a blank, to the end of the line), for the check that none is lost.

    >>> sorted(_comments("a: 1  # one\\n# two\\nb: 'x#y'\\n"))
    ['# one', '# two']
    """
    import re
    return {m.group(1).rstrip() for m in re.finditer(r"(?:^|[ \t])(#.*)$", text, re.M)}


def rewritten(path: str, file_changes: list[Change]) -> str:
    """The text of scenario file ``path`` with ``file_changes`` made (every other line as it
    was), or :class:`RewriteError`."""
    from .fmt import keep_flow_comments
    from .loader import new_yaml, plain, read_file
    with open(path, "rb") as f:
        raw = f.read()
    try:
        original = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RewriteError("it is not UTF-8") from None
    bom = original.startswith(BOM)
    doc = read_file(path)
    if doc.tree is None or doc.report.errors:
        raise RewriteError("it cannot be read back (harmony check)")
    tree = doc.tree
    keep_flow_comments(tree, doc.text)
    before = _dump(tree)
    steps = tree["scenario"]["steps"]
    for change in file_changes:
        node = _node_at(steps, change)
        node["value"] = _yaml_value(change.new_value, node.get("value"))
        node["because"] = _yaml_value(list(change.new_because), node.get("because"))
    wanted = plain(tree)
    after = _dump(tree)
    text = _splice(original[1:] if bom else original, before, after)
    try:
        ok = plain(new_yaml().load(text)) == wanted
    except Exception:  # noqa: BLE001 - any failure means: do not write this text
        ok = False
    if not ok:
        raise RewriteError("the rewritten file would not read back as the changed rulings; "
                           "run harmony fmt on it first")
    lost = _comments(original) - _comments(text)
    if lost:
        raise RewriteError(f"a comment would be lost ({sorted(lost)[0]}); edit its rulings by hand")
    return (BOM if bom else "") + text


# ------------------------------------------------------------------ the command

def accept_args(p) -> None:
    p.add_argument("path", nargs="?", help="a rules_data folder, or one scenario file of it "
                   "(default: the harmony in the current folder, else ./rules_data)")
    p.add_argument("--scenario", action="append", metavar="ID[,ID...]",
                   help="accept the rulings of these scenarios only: repeat the option or "
                   "separate ids with commas")
    p.add_argument("--dry-run", action="store_true",
                   help="say what would change and write nothing")


def run_accept(args) -> int:
    import os

    from .check import check_path
    from .fmt import write_atomic
    rules = rules_arg(args.path)
    model, report = check_path(rules.root)
    if report.errors:
        sys.stderr.write(report.to_text())
        print(f"harmony accept: {rules.root} has errors; fix them first (harmony check)",
              file=sys.stderr)
        return 1
    ids = sorted(model.scenarios)
    if rules.only is not None:
        mine = os.path.realpath(rules.only)
        ids = [s for s in ids if os.path.realpath(model.scenarios[s].file) == mine]
    if args.scenario:
        named = [s.strip() for v in args.scenario for s in v.split(",") if s.strip()]
        unknown = [s for s in named if s not in model.scenarios]
        if unknown or not named:
            raise UsageError(f"unknown scenario {', '.join(unknown) or repr(args.scenario[0])} "
                             f"(scenarios: {', '.join(sorted(model.scenarios)) or 'none'})")
        ids = [s for s in ids if s in named]
        if not ids:
            raise UsageError(f"scenario {', '.join(named)} is not in {rules.given}")
    found, unanswered = changes(model, ids)
    by_file: dict[str, list[Change]] = {}
    for c in found:
        by_file.setdefault(c.file, []).append(c)
    failed = 0
    accepted: list[Change] = []
    for path, file_changes in sorted(by_file.items()):
        try:
            text = rewritten(path, file_changes)
        except RewriteError as e:
            failed += 1
            print(f"harmony accept: {path}: not changed: {e}", file=sys.stderr)
            continue
        for c in file_changes:
            print(c.words())
        if not args.dry_run:
            try:
                write_atomic(path, text)
            except OSError as e:
                failed += 1
                print(f"harmony accept: cannot write {path} ({e.strerror or e}); it is left as "
                      "it was", file=sys.stderr)
                continue
        accepted += file_changes
    for line in unanswered:
        print(f"{line}: not accepted", file=sys.stderr)
    files = len({c.file for c in accepted})
    if accepted:
        verb = "would accept" if args.dry_run else "accepted"
        print(f"{verb} {len(accepted)} ruling(s) in {files} file(s)"
              + (" (--dry-run: nothing written)" if args.dry_run else ""))
    elif not failed and not unanswered:
        print(f"nothing to accept: the {len(ids)} scenario(s) play as they expect")
    return 1 if failed or unanswered else 0
