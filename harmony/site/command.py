"""The ``build`` and ``serve`` commands (listed in :data:`harmony.cli.COMMANDS`)."""
from __future__ import annotations

import sys
from pathlib import Path

from .. import outdir, trust
from ..usage import UsageError, rules_arg

DEFAULT_OUT = Path("build") / "site"


def _site_args(p):
    p.add_argument("path", nargs="?", help="a rules_data folder (default: the harmony in the "
                   "current folder, else ./rules_data)")
    p.add_argument("--out", default=str(DEFAULT_OUT),
                   help="output folder (default: build/site under the current folder): a new or "
                        "empty folder, or a site harmony built; any other folder is refused")
    trust.add_argument(p)


def build_args(p):
    _site_args(p)
    p.add_argument("--check-links", action="store_true",
                   help="then crawl the built site and fail, naming them, if any internal link "
                        "or #anchor is broken")


def serve_args(p):
    _site_args(p)
    p.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; "
                   "0 picks a free one)")


def _folder(value: str | None) -> Path:
    return rules_arg(value, folder=True).root


def run_build(args) -> int:
    from .build import BuildError, build_site
    rules = _folder(args.path)
    may = trust.Trust.of(args.untrusted)
    try:
        res = build_site(rules, Path(args.out), trust=may)
    except outdir.WriteFailed as e:
        print(f"harmony build: error: {e}", file=sys.stderr)
        return 1
    except BuildError as e:
        if e.report is not None:
            for d in e.report.sorted():
                print(d, file=sys.stderr)
        print(f"harmony build: {e}", file=sys.stderr)
        return 1
    for w in res.warnings:
        print(w, file=sys.stderr)
    print(f"built {len(res.written)} page(s) ({len(res.staged.written)} source(s) changed) "
          f"in {res.seconds:.1f}s" + (f", {len(res.warnings)} warning(s)" if res.warnings else ""))
    print(f"the site is in {res.out}/ (open {res.index})")
    print(res.explorer)
    if not may.runs_code:
        print(f"{may.note}: the rule coverage page marks them {may.mark}")
    pdf = res.out / "print" / "harmony-cards.pdf"
    if pdf.is_file():
        print(f"the rule cards are in {pdf}")
    if getattr(args, "check_links", False):
        return _report_links(res.out)
    return 0


def _report_links(out: Path) -> int:
    """``--check-links``: crawl the built site; each broken link on its own line (exit 1)."""
    from .links import check_links
    found = check_links(out)
    for line in found.broken:
        print(f"{out}/{line}", file=sys.stderr)
    if found.broken:
        print(f"harmony build: {len(found.broken)} broken link(s) of {found.checked} in "
              f"{found.pages} page(s)", file=sys.stderr)
        return 1
    print(f"checked {found.checked} internal link(s) in {found.pages} page(s): none broken")
    return 0


def run_serve(args) -> int:
    from .serve import serve
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: use 0 to 65535")
    rules = _folder(args.path)
    out = outdir.folder(args.out, "site", "--out", rules)
    try:
        return serve(rules, out, args.port, trust=trust.Trust.of(args.untrusted))
    except outdir.WriteFailed as e:
        print(f"harmony serve: error: {e}", file=sys.stderr)
        return 1
