"""Cards to HTML (Jinja2 templates in ``templates/cards/``) and HTML to PDF (WeasyPrint).

The same HTML serves three uses: the PDF, the printable HTML page on the
site, and the measuring document of :mod:`harmony.cards.fit` (one card to a
very tall page, so nothing is cut while it is measured).
"""
from __future__ import annotations

import functools
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

import jinja2

from .. import htmlcache, printcache, resources
from .collect import CardView
from .layout import CARD_SIZES, CROP_GAP, MIN_MARGIN, PAPERS, Imposition, choose

TEMPLATES = resources.templates() / "cards"
#: Width of a crop mark line, mm (about 0.4 pt).
HAIRLINE = 0.15
#: What every front sheet says in its bottom margin (and the site's cards page says too).
PRINT_NOTE = "Print at 100% (actual size, no scaling); for backs print duplex, flip on the long edge."
#: Least bottom margin (mm) that holds the note, a line of 5.5 pt, clear of the cards.
NOTE_ROOM = 4.0


def mm(value: float) -> str:
    """A length for CSS, in millimetres, rounded so output is stable.

    >>> mm(10.5), mm(63), mm(1 / 3)
    ('10.5mm', '63mm', '0.3333mm')
    """
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return ("0" if text in ("-0", "") else text) + "mm"


@dataclass(frozen=True)
class Geometry:
    """Sizes the templates need, mm."""

    paper_css: str
    paper_w: float
    paper_h: float
    card_w: float
    card_h: float
    bleed: float
    hair: float = HAIRLINE
    size: str = "poker"


@dataclass
class Slot:
    card: CardView
    x: float
    y: float
    font: float
    id: str


@dataclass
class Note:
    """A line of print guidance in a sheet's margin: its top left and width, mm."""

    text: str
    x: float
    y: float
    width: float


@dataclass
class Sheet:
    side: str          # front | back
    slots: list[Slot]
    marks: list
    note: Note | None = None
    turned: bool = False   # a back flipped top to bottom (landscape): its cards upside down
    hidden: Slot | None = None   # a back shown among the fronts (Tabletop Simulator)


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The cards' Jinja environment, made once per process (its templates are compiled
    once: the fit cache renders every card on its own)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=False, lstrip_blocks=False, keep_trailing_newline=True)
    env.globals["mm"] = mm
    return env


def stylesheet() -> str:
    return (TEMPLATES / "cards.css").read_text(encoding="utf-8")


def _page(sheets: list[Sheet], g: Geometry, title: str, screen: bool) -> str:
    tpl = environment().get_template("sheets.html.j2")
    return tpl.render(sheets=sheets, g=g, title=title, css=stylesheet(),
                      body_class="screen" if screen else "print")


def imposed_html(cards: list[CardView], fonts: list[float], im: Imposition, *,
                 crop_marks: bool = False, backs: bool = False, title: str = "harmony rule cards",
                 screen: bool = False, overflowing: AbstractSet[int] = frozenset(),
                 backs_only: bool = False, hidden: CardView | None = None) -> str:
    """The sheets of ``cards`` laid out by ``im``: fronts, each followed by its backs if asked.

    ``fonts[i]`` is the body font size (pt) of card ``i``. ``backs_only``: only the backs,
    each in its front's place (a sheet of backs for an image, not for duplex printing).
    ``hidden``: a card whose back goes in the last place of every front sheet (the image
    Tabletop Simulator shows for a hidden card).
    """
    g = Geometry(im.paper.css, im.paper.width, im.paper.height, im.card.width, im.card.height,
                 im.bleed, size=im.card.name)
    marks = im.crop_marks() if crop_marks else []
    note = print_note(im)
    sheets: list[Sheet] = []
    n = im.per_sheet
    for start in range(0, len(cards), n):
        chunk = range(start, min(start + n, len(cards)))
        if backs_only:
            sheets.append(Sheet("back", [Slot(cards[i], *_xy(im, i - start, False), fonts[i],
                                              str(i)) for i in chunk], []))
            continue
        front = [Slot(cards[i], *_xy(im, i - start, False), fonts[i], str(i)) for i in chunk]
        sheets.append(Sheet("front", front, marks, note))
        if hidden is not None:
            sheets[-1].hidden = Slot(hidden, *_xy(im, n - 1, False), 0.0, "hidden")
        if backs:
            back = [Slot(cards[i], *_xy(im, i - start, True), fonts[i], str(i)) for i in chunk]
            sheets.append(Sheet("back", back, [], None, im.landscape))
    html = _page(sheets, g, title, screen)
    for i in overflowing:  # flag, in the HTML page only, a card too long to fit (never cut it)
        html = html.replace(f'class="card front" id="card-{i}"', f'class="card front overflow" id="card-{i}"', 1)
    return html


def print_note(im: Imposition) -> Note | None:
    """Where the printing note goes: in the bottom margin, between the first two vertical
    cut lines (clear of every crop mark), if the margin has room for it.

    >>> from harmony.cards.layout import impose
    >>> n = print_note(impose("poker", "a4")); (n.x, n.y, n.width)
    (11.5, 281.5, 61.0)
    >>> print_note(impose("a6", "a4", edge_to_edge=True)) is None
    True
    """
    if im.margin_y < NOTE_ROOM + CROP_GAP:
        return None
    xs, _ = im.trim_lines()
    bottom = im.paper.height - im.margin_y
    return Note(PRINT_NOTE, xs[0] + 1, round(bottom + CROP_GAP, 4), round(xs[1] - xs[0] - 2, 4))


def _xy(im: Imposition, index: int, back: bool) -> tuple[float, float]:
    s = im.slot(index, back=back)
    return s.x, s.y


#: Height of the measuring page, mm: far more than any card, so the text is never split.
MEASURE_PAGE = 2000.0


def measuring_html(cards: list[CardView], fonts: list[float], size: str) -> str:
    """One card to a page of the card's width and a great height, for :mod:`harmony.cards.fit`."""
    c = CARD_SIZES[size]
    g = Geometry(f"{mm(c.width)} {mm(MEASURE_PAGE)}", c.width, MEASURE_PAGE, c.width, c.height, 0.0,
                 size=c.name)
    sheets = [Sheet("front", [Slot(card, 0.0, 0.0, fonts[i], str(i))], [])
              for i, card in enumerate(cards)]
    return _page(sheets, g, "measure", False)


def _viewer_preferences(document, pdf) -> None:
    """Ask PDF viewers to print at actual size, and duplex flipping on the long edge."""
    import pydyf
    pdf.catalog["ViewerPreferences"] = pydyf.Dictionary({
        "PrintScaling": "/None", "Duplex": "/DuplexFlipLongEdge"})


def print_pdf(html: str) -> tuple[bytes, int]:
    """Render ``html`` with WeasyPrint: the PDF bytes and its number of pages.

    The PDF asks viewers not to scale it when printing (``/PrintScaling /None``) and to
    print duplex flipping on the long edge, the flip the backs are laid out for."""
    document = htmlcache.document(html, base_url=str(TEMPLATES)).render()
    return document.write_pdf(finisher=_viewer_preferences), len(document.pages)


def write_pdf(html: str, out: str | Path | None = None) -> bytes:
    """The PDF of ``html`` (:func:`print_pdf`, or the same PDF remembered by
    :mod:`harmony.printcache`); written to ``out`` if given."""
    pdf = printcache.printed(print_pdf, html)[0]
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_bytes(pdf)
    return pdf


def imposition(size: str = "poker", paper: str = "a4", bleed: float = 0.0,
               margin: float = MIN_MARGIN, crop_marks: bool = False) -> Imposition:
    """The layout with the most cards to a sheet (:func:`harmony.cards.layout.choose`)."""
    if size not in CARD_SIZES:
        raise ValueError(f"unknown card size '{size}' (sizes: {', '.join(CARD_SIZES)})")
    if paper not in PAPERS:
        raise ValueError(f"unknown paper '{paper}' (papers: {', '.join(PAPERS)})")
    return choose(size, paper, bleed, margin, crop_marks)
