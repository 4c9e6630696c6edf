"""Cards to HTML (Jinja2 templates in ``templates/cards/``) and HTML to PDF (WeasyPrint).

The same HTML serves three uses: the PDF, the printable HTML page on the
site, and the measuring document of :mod:`harmony.cards.fit` (one card to a
very tall page, so nothing is cut while it is measured).
"""
from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

import jinja2

from .. import resources
from .collect import CardView
from .layout import CARD_SIZES, MIN_MARGIN, PAPERS, Imposition, impose

TEMPLATES = resources.templates() / "cards"
#: Width of a crop mark line, mm (about 0.4 pt).
HAIRLINE = 0.15


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


@dataclass
class Slot:
    card: CardView
    x: float
    y: float
    font: float
    id: str


@dataclass
class Sheet:
    side: str          # front | back
    slots: list[Slot]
    marks: list


def environment() -> jinja2.Environment:
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
                 screen: bool = False, overflowing: AbstractSet[int] = frozenset()) -> str:
    """The sheets of ``cards`` laid out by ``im``: fronts, each followed by its backs if asked.

    ``fonts[i]`` is the body font size (pt) of card ``i``.
    """
    g = Geometry(im.paper.css, im.paper.width, im.paper.height, im.card.width, im.card.height,
                 im.bleed)
    marks = im.crop_marks() if crop_marks else []
    sheets: list[Sheet] = []
    n = im.per_sheet
    for start in range(0, len(cards), n):
        chunk = range(start, min(start + n, len(cards)))
        front = [Slot(cards[i], *_xy(im, i - start, False), fonts[i], str(i)) for i in chunk]
        sheets.append(Sheet("front", front, marks))
        if backs:
            back = [Slot(cards[i], *_xy(im, i - start, True), fonts[i], str(i)) for i in chunk]
            sheets.append(Sheet("back", back, []))
    html = _page(sheets, g, title, screen)
    for i in overflowing:  # flag, in the HTML page only, a card too long to fit (never cut it)
        html = html.replace(f'class="card front" id="card-{i}"', f'class="card front overflow" id="card-{i}"', 1)
    return html


def _xy(im: Imposition, index: int, back: bool) -> tuple[float, float]:
    s = im.slot(index, back=back)
    return s.x, s.y


#: Height of the measuring page, mm: far more than any card, so the text is never split.
MEASURE_PAGE = 2000.0


def measuring_html(cards: list[CardView], fonts: list[float], size: str) -> str:
    """One card to a page of the card's width and a great height, for :mod:`harmony.cards.fit`."""
    c = CARD_SIZES[size]
    g = Geometry(f"{mm(c.width)} {mm(MEASURE_PAGE)}", c.width, MEASURE_PAGE, c.width, c.height, 0.0)
    sheets = [Sheet("front", [Slot(card, 0.0, 0.0, fonts[i], str(i))], [])
              for i, card in enumerate(cards)]
    return _page(sheets, g, "measure", False)


def write_pdf(html: str, out: str | Path | None = None) -> bytes:
    """Render ``html`` with WeasyPrint; write it to ``out`` if given; return the PDF bytes."""
    from weasyprint import HTML
    pdf = HTML(string=html, base_url=str(TEMPLATES)).write_pdf()
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_bytes(pdf)
    return pdf


def imposition(size: str = "poker", paper: str = "a4", bleed: float = 0.0,
               margin: float = MIN_MARGIN) -> Imposition:
    if size not in CARD_SIZES:
        raise ValueError(f"unknown card size '{size}' (sizes: {', '.join(CARD_SIZES)})")
    if paper not in PAPERS:
        raise ValueError(f"unknown paper '{paper}' (papers: {', '.join(PAPERS)})")
    return impose(size, paper, bleed, margin)
