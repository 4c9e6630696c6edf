"""``harmony diff OLD NEW``: the command's arguments and its run.

Exit codes: 0 when the diff was computed (changes or none), 2 for a usage
error (an unknown revision, a missing folder, a revision outside any git
repository).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..diagnostics import safe_text
from .compare import diff_models
from .markdown import to_markdown
from .plain import jsonable
from .revisions import RULES_DIR, Side, find_repo, folder_side, revision_side
from .rst import changes_rst
from .text import to_text
from ..usage import harmony_here


def diff_args(p):
    p.add_argument("old", help="a git revision (HEAD~3, a tag, a commit, :/message) or a rules_data "
                   "folder; revisions are read from the git repository holding the other side's "
                   "folder, else the current folder")
    p.add_argument("new", help="a git revision or a rules_data folder")
    p.add_argument("--format", choices=("text", "json", "rst", "markdown"), default="text",
                   help="text (word diffs as [-old-]{+new+}), json, rst (a 'what changed' page) "
                   "or markdown (the changed rulings and clauses, to post on a pull request)")
    p.add_argument("--rules-dir", default=None,
                   help="the folder read at a git revision (default: the harmony in the current "
                   f"folder, where it is in the repository, '.' at its top; else {RULES_DIR})")
    p.add_argument("--no-rulings", action="store_true",
                   help="skip the behavioural diff (running the scenarios)")


def _open(spec: str, args, folders: list[Path]) -> Side:
    """One side as the user named it: a folder (the one place a folder side is read), else a
    revision of the git repository holding the other side's folder or the current folder."""
    if Path(spec).exists():
        return folder_side(spec, args.rules_dir or RULES_DIR)
    repo = find_repo(spec, folders)
    return revision_side(spec, _rules_dir(args.rules_dir, repo), repo)


def _rules_dir(given: str | None, repo: Path) -> str:
    """``--rules-dir``, else the harmony in the current folder (:func:`harmony_here`) as a
    path inside ``repo`` (``.`` for a harmony at the top of its repository), else rules_data."""
    if given is not None:
        return given
    here = harmony_here()
    if here is not None:
        inside = Path(os.path.relpath(here.resolve(), repo.resolve())).as_posix()
        if not inside.startswith(".."):
            return inside
    return RULES_DIR


def _write(text: str) -> None:
    """Write the diff: a character that is not text (a control character but tab and
    newline, which could drive the terminal; a lone surrogate, which no encoding writes)
    as its escape. rules_data holds none (``harmony check`` refuses them); a side's label
    (a path given on the command line) may."""
    sys.stdout.write(safe_text(text))


def run_diff(args) -> int:
    folders = [Path(spec) for spec in (args.old, args.new) if Path(spec).exists()]
    old = _open(args.old, args, folders)
    try:
        new = _open(args.new, args, folders)
    except BaseException:
        old.close()
        raise
    try:
        for side in (old, new):
            for diag in side.report.errors:
                print(safe_text(f"harmony diff: {side.label}: {diag}"), file=sys.stderr)
        if args.format == "rst":
            _write(changes_rst(old.model, new.model, f"Changes from {old.label} to {new.label}",
                               rulings=not args.no_rulings))
            return 0
        d = diff_models(old.model, new.model, rulings=not args.no_rulings)
        if args.format == "json":
            d = {"old": old.label, "new": new.label, "read_errors": {
                "old": len(old.report.errors), "new": len(new.report.errors)}, **d}
            _write(json.dumps(jsonable(d), indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        elif args.format == "markdown":
            _write(to_markdown(d, old.label, new.label))
        else:
            _write(to_text(d, old.label, new.label))
    finally:
        old.close()
        new.close()
    return 0
