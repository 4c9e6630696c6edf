"""``harmony cards``: the rule cards of one or more rulesets as a PDF ready to print and cut."""
from __future__ import annotations

import dataclasses
import os
import sys
import time

from ..usage import UsageError, rules_arg
from .layout import CARD_SIZES, MIN_MARGIN, PAPERS

DEFAULT_OUT = "build/cards.pdf"


def cards_args(p) -> None:
    p.add_argument("path", nargs="?", help="a rules_data folder or one YAML file "
                   "(default: the shipped rules_data)")
    p.add_argument("--rules", nargs="+", metavar="KEY",
                   help="the rulesets to print, a set each, in this order "
                   "(default: the revisions, i.e. sources of kind revision)")
    p.add_argument("--size", choices=tuple(CARD_SIZES), default="poker",
                   help="card size: " + ", ".join(f"{c.name} {c.width:g}x{c.height:g} mm"
                                                  for c in CARD_SIZES.values()) + " (default poker)")
    p.add_argument("--paper", choices=tuple(PAPERS), default="a4", help="paper size (default a4)")
    p.add_argument("--bleed", type=float, default=0.0, metavar="MM",
                   help="extend each card's background this many mm past its trim (default 0)")
    p.add_argument("--margin", type=float, default=MIN_MARGIN, metavar="MM",
                   help=f"least distance from the paper edge to a card (default {MIN_MARGIN:g}: "
                   "what most printers can reach)")
    p.add_argument("--crop-marks", action="store_true", help="draw cut marks in the margins, in line with every cut (front sheets only)")
    p.add_argument("--backs", action="store_true",
                   help="follow each sheet of fronts with its backs, mirrored for long-edge duplex")
    p.add_argument("--site-url", metavar="URL",
                   help="base of the site for the permalinks (default: links relative to the site root)")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="FILE",
                   help=f"the PDF to write (default {DEFAULT_OUT})")


def run_cards(args) -> int:
    from ..loader import load
    from . import CardOverflow, render_pdf
    from .fit import card_pos, overflow_message
    from .layout import impose

    given = rules_arg(args.path)
    if args.bleed < 0 or args.bleed > 20:
        raise UsageError(f"--bleed must be between 0 and 20 mm, not {args.bleed:g}")
    if args.margin < 0:
        raise UsageError(f"--margin cannot be negative ({args.margin:g})")
    try:
        impose(args.size, args.paper, args.bleed, args.margin)
    except ValueError as e:
        raise UsageError(str(e))
    model, report = load(given.root)
    if report.errors:
        shown = report.within(given.only, given.root) if given.only else report
        sys.stderr.write(shown.to_text())
        print(f"harmony cards: {given.root} has errors; fix them first (harmony check)",
              file=sys.stderr)
        return 1
    if given.only is not None:   # the cards of that file's cells, with the folder's sources
        mine = os.path.realpath(given.only)
        model = dataclasses.replace(model, clauses={
            k: c for k, c in model.clauses.items() if os.path.realpath(c.file) == mine})
    rules = args.rules
    if rules is not None:
        unknown = [k for k in rules if k not in model.sources]
        if unknown:
            raise UsageError(f"unknown ruleset {', '.join(unknown)} (known: {', '.join(model.sources)})")
    start = time.perf_counter()
    try:
        pdf, cards = render_pdf(model, rules, args.size, paper=args.paper, bleed=args.bleed,
                                crop_marks=args.crop_marks, backs=args.backs,
                                site_url=args.site_url, margin=args.margin, out=None)
    except CardOverflow as e:
        problems = e.problems
        if args.site_url:  # a link too long for the foot is the URL's fault: say so once
            feet = [r for _, r in problems if not r.measure.foot_fits]
            if feet:
                worst = max(r.measure.foot_needed for r in feet)
                print(f"harmony cards: error: --site-url {args.site_url} makes the permalinks of "
                      f"{len(feet)} card(s) too long for the foot of a {args.size} card (they need "
                      f"up to {worst:.1f} mm of {feet[0].measure.foot_available:.1f} mm): use a "
                      "shorter site URL", file=sys.stderr)
                problems = [(c, r) for c, r in problems if r.measure.foot_fits]
        for card, result in problems:
            print(f"{card_pos(card, result)}: error: {overflow_message(card, result, e.size)} "
                  "[card-overflow]", file=sys.stderr)
        print(f"harmony cards: {len(e.problems)} card(s) too long to print; nothing written",
              file=sys.stderr)
        return 1
    if not cards:
        from .collect import default_rules
        asked = rules if rules is not None else default_rules(model)
        where = f" in {given.only}" if given.only is not None else ""
        print(f"harmony cards: no cards to print: no cell of {', '.join(asked) or 'any ruleset'}"
              f"{where} has a card (add card: {{title, text}} to its cells)", file=sys.stderr)
        return 1
    from pathlib import Path
    out = Path(args.out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(pdf)
    except OSError as e:
        print(f"harmony cards: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return 1
    im = impose(args.size, args.paper, args.bleed, args.margin)
    sheets = im.sheets(len(cards))
    pages = sheets * (2 if args.backs else 1)
    print(f"wrote {out}: {len(cards)} cards, {im.per_sheet} to a sheet, {pages} pages "
          f"({time.perf_counter() - start:.1f} s)")
    return 0
