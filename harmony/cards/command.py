"""``harmony cards``: the rule cards of one or more rulesets as a PDF ready to print and cut,
and, if asked, as card images (one PNG per card, Tabletop Simulator deck sheets).

Every option is checked before anything is rendered: a number that is not one (``nan``,
``inf``, a negative size) is a usage error in plain words, and so is an output that cannot
be written, or one harmony may not write (:mod:`harmony.outdir`: the PDF and the deck
sheets replace only files harmony wrote, the card images go into a new or empty folder or
one harmony wrote them into). A folder the outputs need is made, and the command says so.
A full disk is one line; a failed write leaves no temporary file behind, and one a killed
run left beside the PDF is removed by the next run.
"""
from __future__ import annotations

import dataclasses
import math
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from .. import outdir
from ..usage import UsageError, rules_arg
from .collect import SITE_URL_ENV
from .layout import CARD_SIZES, MIN_MARGIN, PAPERS

DEFAULT_OUT = "build/cards.pdf"
DEFAULT_DPI = 300.0


def cards_args(p) -> None:
    p.add_argument("path", nargs="?", help="a rules_data folder or one YAML file "
                   "(default: the harmony in the current folder, else ./rules_data)")
    p.add_argument("--rules", action="append", metavar="KEY[,KEY...]",
                   help="the rulesets to print, a set each, in this order; repeat the option "
                   "or separate keys with commas, e.g. --rules PB,PL "
                   "(default: every ruleset that has cards, the revisions first)")
    p.add_argument("--size", choices=tuple(CARD_SIZES), default="poker",
                   help="card size: " + ", ".join(f"{c.name} {c.width:g}x{c.height:g} mm"
                                                  for c in CARD_SIZES.values()) + " (default poker)")
    p.add_argument("--paper", choices=tuple(PAPERS), default="a4", help="paper size (default a4); "
                   "the sheet is turned to landscape when that fits more cards")
    p.add_argument("--bleed", default="0", metavar="MM",
                   help="extend each card's background this many mm past its trim (default 0)")
    p.add_argument("--margin", default=f"{MIN_MARGIN:g}", metavar="MM",
                   help=f"least distance from the paper edge to a card (default {MIN_MARGIN:g}: "
                   "what most printers can reach)")
    p.add_argument("--crop-marks", action="store_true",
                   help="draw cut marks in line with every cut: in the margins and, with bleed, "
                   "in the gaps between cards (front sheets only)")
    p.add_argument("--backs", action="store_true",
                   help="follow each sheet of fronts with its backs, for duplex printing "
                   "flipped on the long edge")
    p.add_argument("--site-url", metavar="URL",
                   help=f"base of the site, so each card links to its rule in full (default: "
                   f"${SITE_URL_ENV}, else the url: of the harmony's harmony: metadata; without any "
                   "the links are relative to the site root)")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="FILE",
                   help=f"the PDF to write (default {DEFAULT_OUT}): a new file, or cards harmony "
                   "wrote; any other file is refused")
    p.add_argument("--png", metavar="DIR", help="also write one PNG per card (trim plus bleed) "
                   "into DIR (new, empty, or harmony's card images), for squib, nanDECK and the like")
    p.add_argument("--tts", metavar="PREFIX", help="also write Tabletop Simulator deck sheets: "
                   "PREFIX.png (up to 10 x 7 cards, the last place the hidden-card image) and "
                   "PREFIX-back.png (the backs in the same grid); PREFIX-N... for more than 69 "
                   "cards")
    p.add_argument("--dpi", default=f"{DEFAULT_DPI:g}", metavar="N",
                   help=f"resolution of --png and --tts images (default {DEFAULT_DPI:g})")


def number(option: str, text: str, least: float, most: float, unit: str = "mm") -> float:
    """The value of a numeric option, or a :class:`UsageError` in plain words.

    >>> number("--bleed", "3", 0, 20)
    3.0
    >>> number("--bleed", "nan", 0, 20)
    Traceback (most recent call last):
    ...
    harmony.usage.UsageError: --bleed must be a number of mm from 0 to 20, not 'nan'
    >>> number("--dpi", "-5", 10, 1200, "dots per inch")
    Traceback (most recent call last):
    ...
    harmony.usage.UsageError: --dpi must be a number of dots per inch from 10 to 1200, not '-5'
    """
    try:
        value = float(str(text).strip())
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not least <= value <= most:
        raise UsageError(f"{option} must be a number of {unit} from {least:g} to {most:g}, "
                         f"not '{text}'")
    return value


def rule_keys(values: list[str] | None) -> list[str] | None:
    """The ruleset keys of every ``--rules``, split at commas, in order, each once.

    >>> rule_keys(["PB,PL", "REV", "PL"])
    ['PB', 'PL', 'REV']
    >>> rule_keys(None) is None
    True
    >>> rule_keys([" , "])
    Traceback (most recent call last):
    ...
    harmony.usage.UsageError: --rules needs ruleset keys, e.g. --rules PB,PL
    """
    if values is None:
        return None
    keys: list[str] = []
    for value in values:
        for key in value.split(","):
            key = key.strip()
            if key and key not in keys:
                keys.append(key)
    if not keys:
        raise UsageError("--rules needs ruleset keys, e.g. --rules PB,PL")
    return keys


def default_deck(model) -> list[str]:
    """The rulesets printed when ``--rules`` is not given: every ruleset with a card, the
    revisions (sources of kind ``revision``) first, each group in the order of the sources.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> default_deck(load(default_rules_data())[0])
    ['REV', 'PB', 'PL', 'AIW', 'DB', 'CP']
    """
    from .collect import rules_with_cards
    having = rules_with_cards(model)
    revisions = [k for k in having if model.sources[k].kind == "revision"]
    return revisions + [k for k in having if k not in revisions]


def no_cards_message(model, rules: list[str] | None, where: str) -> str:
    """Why there is no card to print, in one true sentence: no cell ``where`` has a card, or
    the rulesets given with ``--rules`` have none there (naming them, and those that do)."""
    from .collect import rules_with_cards
    add = "add card: {title, text} to its cells"
    if rules is None:
        return f"no cards to print: no cell {where} has a card ({add})"
    having = rules_with_cards(model)
    others = (f"; rulesets with cards: {', '.join(having)}" if having
              else f"; no ruleset has one there ({add})")
    return (f"no cards to print: no cell of {', '.join(rules)} (--rules) {where} has a card"
            + others)


def writable(path: Path, option: str, folder: bool = False) -> list[Path]:
    """Check, before anything is rendered, that ``path`` (a file, or a folder if
    ``folder``) can be written; return the folders that will have to be made for it.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     [p.name for p in writable(Path(d) / "a" / "b" / "cards.pdf", "--out")]
    ['a', 'b']
    >>> writable(Path("/etc/hostname/cards.pdf"), "--out")
    Traceback (most recent call last):
    ...
    harmony.usage.UsageError: --out /etc/hostname/cards.pdf cannot be written: /etc/hostname is not a folder
    """
    target = path if folder else path.parent
    if not folder and path.is_dir():
        raise UsageError(f"{option} {path} is a folder; give a file name")
    if not folder and path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path} cannot be written: it is read-only")
    missing: list[Path] = []
    here = target if str(target) else Path(".")
    while not here.exists():
        missing.append(here)
        if here.parent == here:
            break
        here = here.parent
    if not here.is_dir():
        raise UsageError(f"{option} {path} cannot be written: {here} is not a folder")
    try:   # really try: access() says yes to root even on a read-only file system
        fd, probe = tempfile.mkstemp(prefix=".harmony-probe-", dir=here)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise UsageError(f"{option} {path} cannot be written: {here} is not a writable folder "
                         f"({e.strerror or e})")
    return list(reversed(missing))


def run_cards(args) -> int:
    from ..loader import load
    from . import CardOverflow, pdf_html
    from .fit import card_pos, overflow_message
    from .render import imposition, write_pdf

    given = rules_arg(args.path)
    bleed = number("--bleed", args.bleed, 0, 20)
    margin = number("--margin", args.margin, 0, 50)
    dpi = number("--dpi", args.dpi, 10, 1200, "dots per inch")
    rules = rule_keys(args.rules)
    site_url = args.site_url if args.site_url is not None else os.environ.get(SITE_URL_ENV)
    if site_url is not None:
        site_url = site_url.strip()
        if not site_url.startswith(("https://", "http://")):
            origin = "--site-url" if args.site_url is not None else f"${SITE_URL_ENV}"
            raise UsageError(f"{origin} must be a full web address starting with https:// "
                             f"or http://, not '{site_url}'")
    try:
        im = imposition(args.size, args.paper, bleed, margin, args.crop_marks)
        if args.crop_marks:
            im.crop_marks()
    except ValueError as e:
        raise UsageError(str(e) + (": leave out --crop-marks, or give a smaller --margin or "
                                   "--bleed" if args.crop_marks else ""))
    out = Path(args.out)
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; give a file name")
    if out.suffix.lower() != ".pdf":
        raise UsageError(f"--out {out} should name a .pdf file")
    # may harmony write there (nothing of yours replaced), then can it (really tried)
    outdir.file(out, "pdf", "--out")
    if args.png:
        outdir.folder(args.png, "cards", "--png", given.root)
    if args.tts:
        for sheet in tts_files(Path(args.tts)):
            outdir.file(sheet, "png", "--tts")
    to_make = writable(out, "--out")
    if args.png:
        to_make += writable(Path(args.png), "--png", folder=True)
    if args.tts:
        to_make += writable(Path(args.tts + ".png"), "--tts")
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
    if rules is not None:
        unknown = [k for k in rules if k not in model.sources]
        if unknown:
            raise UsageError(f"unknown ruleset {', '.join(unknown)} (known: {', '.join(model.sources)})")
    if site_url is None:        # the address the harmony says its site is published at
        site_url = model.identity.url
    deck = rules if rules is not None else default_deck(model)
    start = time.perf_counter()
    try:
        html, cards, fonts = pdf_html(model, deck, args.size, paper=args.paper, bleed=bleed,
                                      crop_marks=args.crop_marks, backs=args.backs,
                                      site_url=site_url, margin=margin, with_fonts=True)
    except CardOverflow as e:
        problems = e.problems
        if site_url:  # a link too long for the foot is the URL's fault: say so once
            feet = [r for _, r in problems if not r.measure.foot_fits]
            if feet:
                worst = max(r.measure.foot_needed for r in feet)
                print(f"harmony cards: error: --site-url {site_url} makes the permalinks of "
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
        where = f"in {given.only if given.only is not None else given.root}"
        print(f"harmony cards: {no_cards_message(model, rules, where)}", file=sys.stderr)
        return 1
    pdf = write_pdf(html)
    if not outdir.write_file(out, pdf, to_make, "harmony cards"):
        return 1
    sheets = im.sheets(len(cards))
    pages = sheets * (2 if args.backs else 1)
    print(f"layout: {im.describe()}" + (" (crop marks in the margins"
                                        + (" and between cards)" if im.gap_x or im.gap_y else ")")
                                        if args.crop_marks else ""))
    print(f"wrote {out}: {len(cards)} cards, {pages} pages; print at 100% (no scaling)"
          + (", duplex flipped on the long edge" if args.backs else "")
          + f" ({time.perf_counter() - start:.1f} s)")
    try:
        if args.png:
            from .exports import pixels, write_card_pngs
            files = write_card_pngs(cards, fonts, im, Path(args.png), dpi)
            print(f"wrote {len(files)} card images to {args.png} ({pixels(im.cell_width, dpi)} x "
                  f"{pixels(im.cell_height, dpi)} px at {dpi:g} dpi)")
        if args.tts:
            from .exports import write_tts
            for s in write_tts(cards, fonts, im, Path(args.tts), dpi):
                print(f"wrote {s.faces} and {s.backs}: Tabletop Simulator deck of {s.cards} cards, "
                      f"{s.cols} wide x {s.rows} high (the last place is the hidden card)")
    except outdir.WriteFailed as e:
        print(f"harmony cards: error: {e}", file=sys.stderr)
        return 1
    return 0


def tts_files(prefix: Path) -> list[Path]:
    """The files ``--tts PREFIX`` may write that are there already: ``PREFIX.png``,
    ``PREFIX-back.png``, ``PREFIX-N.png``, ``PREFIX-N-back.png``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for name in ("deck.png", "deck-2-back.png", "deck-notes.png", "decks.png"):
    ...         _ = (Path(d) / name).write_bytes(b"")
    ...     [p.name for p in tts_files(Path(d) / "deck")]
    ['deck-2-back.png', 'deck.png']
    """
    sheet = re.compile(re.escape(prefix.name) + r"(?:-\d+)?(?:-back)?\.png")
    try:
        return sorted(p for p in prefix.parent.iterdir() if sheet.fullmatch(p.name))
    except OSError:
        return []


#: the temporary files a killed ``harmony cards`` left beside its PDF (:mod:`harmony.outdir`)
remove_leftovers = outdir.remove_temporaries
