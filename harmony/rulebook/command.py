"""``harmony rulebook``: one ruleset's full rules as a PDF to read or print, or as an EPUB
for an e-reader (``--out`` naming a ``.epub`` file: :mod:`harmony.rulebook.epub`).

The output is checked before anything is rendered: a folder where a file is asked for, a
file harmony did not write (:mod:`harmony.outdir`: only a PDF or EPUB of harmony's is replaced), a
read-only file or folder is a usage error; a folder the output needs is made, and the
command says so.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from ..usage import UsageError, rules_arg
from .render import PAPERS

DEFAULT_OUT = "build/{key}-rulebook.pdf"


def rulebook_args(p) -> None:
    p.add_argument("key", metavar="KEY", help="the ruleset to print, by its source key (e.g. REV)")
    p.add_argument("path", nargs="?", help="a rules_data folder (default: the shipped rules_data)")
    p.add_argument("--paper", choices=tuple(PAPERS), default="a4",
                   help="paper size (default a4)")
    p.add_argument("--out", metavar="FILE",
                   help="the file to write: a .pdf, or a .epub for an e-reader (default "
                        + DEFAULT_OUT.format(key="KEY") + ")")


def run_rulebook(args) -> int:
    from .. import outdir
    from ..cards.command import writable
    from ..loader import load
    from . import pdf_html, print_pdf, rulesets

    given = rules_arg(args.path, folder=True)
    out = Path(args.out or DEFAULT_OUT.format(key=args.key))
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; give a file name")
    kind = out.suffix.lower().lstrip(".")
    if kind not in ("pdf", "epub"):
        raise UsageError(f"--out {out} should name a .pdf or .epub file")
    # may harmony write there (nothing of yours replaced), then can it (really tried)
    outdir.file(out, kind, "--out")
    to_make = writable(out, "--out")
    model, report = load(given.root)
    if report.errors:
        sys.stderr.write(report.to_text())
        print(f"harmony rulebook: {given.root} has errors; fix them first (harmony check)",
              file=sys.stderr)
        return 1
    if args.key not in model.sources:
        raise UsageError(f"unknown ruleset {args.key} (known: {', '.join(model.sources)})")
    if args.key not in rulesets(model):
        print(f"harmony rulebook: {args.key} has no rules to print: none of its cells states a "
              "rule (status rule, optional or tournament)", file=sys.stderr)
        return 1
    start = time.perf_counter()
    html = pdf_html(model, args.key, args.paper)
    if kind == "epub":
        from .epub import print_epub
        data, notes = print_epub(html)
        what = f"an EPUB with {notes} notes"
    else:
        data, pages = print_pdf(html)
        what = f"{pages} pages, {args.paper}"
    if not outdir.write_file(out, data, to_make, "harmony rulebook"):
        return 1
    print(f"wrote {out}: the {args.key} rulebook, {what} ({time.perf_counter() - start:.1f} s)")
    return 0
