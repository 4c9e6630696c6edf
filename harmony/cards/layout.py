"""Imposition: where each card goes on a sheet of paper. Pure arithmetic, in millimetres.

A sheet holds a grid of *cells*; a cell is the card's trim size plus its
bleed on every side. Cells abut, so without bleed neighbouring cards share
one cut line, and with bleed the printed background of each card runs
``bleed`` mm past its trim line into a gutter of ``2 * bleed`` mm. The grid
is as large as fits inside the paper less a minimum margin on every side,
then centred, so the left and right margins are equal and the back of a
sheet (mirrored for a long-edge duplex flip) lands exactly on the front.

Nine poker cards to an A4 sheet, with equal margins:

>>> im = impose("poker", "a4")
>>> im.cols, im.rows, im.per_sheet, im.margin_x, im.margin_y
(3, 3, 9, 10.5, 16.5)

A 3 mm bleed costs a column (69 mm cells: only two fit in 200 mm):

>>> impose("poker", "a4", bleed=3).per_sheet
6

US letter is wider and shorter:

>>> im = impose("poker", "letter")
>>> im.cols, im.rows, round(im.margin_x, 2), round(im.margin_y, 2)
(3, 3, 13.45, 7.7)

A card that cannot fit at all is refused:

>>> impose("a6", "a4", bleed=60)
Traceback (most recent call last):
...
ValueError: a 225 x 268 mm cell (a6 card with 60 mm bleed) does not fit on a4 paper (210 x 297 mm) inside 5 mm margins
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class CardSize:
    name: str
    width: float    # trim width, mm
    height: float   # trim height, mm
    #: body font sizes tried in turn, largest first; the last is the minimum (pt)
    font_steps: tuple[float, ...]


@dataclass(frozen=True)
class Paper:
    name: str
    width: float    # mm
    height: float   # mm
    css: str        # the exact CSS page size, in the paper's own unit


#: Card trim sizes (mm) and the body font sizes tried to fit a card's text.
CARD_SIZES: dict[str, CardSize] = {
    "poker": CardSize("poker", 63, 88, (8.5, 8, 7.5, 7)),
    "bridge": CardSize("bridge", 57, 89, (8.5, 8, 7.5, 7)),
    "tarot": CardSize("tarot", 70, 120, (9.5, 9, 8.5, 8, 7.5, 7)),
    "a6": CardSize("a6", 105, 148, (10.5, 10, 9.5, 9, 8.5, 8, 7.5, 7)),
}

PAPERS: dict[str, Paper] = {
    "a4": Paper("a4", 210, 297, "210mm 297mm"),
    "letter": Paper("letter", 215.9, 279.4, "8.5in 11in"),
}

#: Smallest distance (mm) from the paper edge to any card: most printers cannot print closer.
MIN_MARGIN = 5.0
#: Crop marks start this far (mm) outside the printed edge of the outer cards ...
CROP_GAP = 1.0
#: ... and run this long (mm), shortened where the margin is narrower, always ending 1 mm
#: inside the paper; they never change the grid.
CROP_LENGTH = 4.0


@dataclass(frozen=True)
class Slot:
    """One card place on a sheet: its index on the sheet and its trim box (mm from the top left)."""

    index: int
    row: int
    col: int
    x: float
    y: float


@dataclass(frozen=True)
class Mark:
    """A crop mark: a line from (x1, y1) to (x2, y2), mm; horizontal or vertical."""

    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True)
class Imposition:
    card: CardSize
    paper: Paper
    bleed: float
    cols: int
    rows: int
    margin_x: float   # paper edge to the outer edge of the outer cells, mm
    margin_y: float

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def cell_width(self) -> float:
        return self.card.width + 2 * self.bleed

    @property
    def cell_height(self) -> float:
        return self.card.height + 2 * self.bleed

    def slot(self, index: int, back: bool = False) -> Slot:
        """Where the card at ``index`` on a sheet goes; on a back sheet each row is mirrored.

        >>> im = impose("poker", "a4")
        >>> s = im.slot(0); (s.row, s.col, s.x, s.y)
        (0, 0, 10.5, 16.5)
        >>> s = im.slot(0, back=True); (s.row, s.col, s.x)
        (0, 2, 136.5)
        >>> im.slot(4).x == im.slot(4, back=True).x   # the middle column stays put
        True
        """
        row, col = divmod(index, self.cols)
        if back:
            col = self.cols - 1 - col
        x = self.margin_x + col * self.cell_width + self.bleed
        y = self.margin_y + row * self.cell_height + self.bleed
        return Slot(index, row, col, round(x, 4), round(y, 4))

    def sheets(self, count: int) -> int:
        """How many sheets ``count`` cards need.

        >>> impose("poker", "a4").sheets(10), impose("poker", "a4").sheets(0)
        (2, 0)
        """
        return math.ceil(count / self.per_sheet) if count > 0 else 0

    def trim_lines(self) -> tuple[list[float], list[float]]:
        """The x and y positions (mm) of every cut line, each once.

        >>> xs, ys = impose("poker", "a4").trim_lines()
        >>> xs
        [10.5, 73.5, 136.5, 199.5]
        >>> len(impose("poker", "a4", bleed=1).trim_lines()[0])   # two lines per column
        6
        """
        xs: set[float] = set()
        ys: set[float] = set()
        for c in range(self.cols):
            x = self.margin_x + c * self.cell_width + self.bleed
            xs.update((round(x, 4), round(x + self.card.width, 4)))
        for r in range(self.rows):
            y = self.margin_y + r * self.cell_height + self.bleed
            ys.update((round(y, 4), round(y + self.card.height, 4)))
        return sorted(xs), sorted(ys)

    def crop_marks(self) -> list[Mark]:
        """Crop marks in the margins, in line with every cut line, clear of the printed cards.

        >>> im = impose("poker", "a4")
        >>> marks = im.crop_marks()
        >>> len(marks)       # 4 vertical cut lines x 2 ends + 4 horizontal x 2 ends
        16
        >>> marks[0]         # above the grid: from 1 mm above its top edge, 4 mm long
        Mark(x1=10.5, y1=11.5, x2=10.5, y2=15.5)
        """
        xs, ys = self.trim_lines()
        top, left = self.margin_y, self.margin_x
        bottom = self.paper.height - self.margin_y
        right = self.paper.width - self.margin_x
        len_y = max(0.0, min(CROP_LENGTH, self.margin_y - CROP_GAP - 1.0))
        len_x = max(0.0, min(CROP_LENGTH, self.margin_x - CROP_GAP - 1.0))
        marks: list[Mark] = []
        r = lambda v: round(v, 4)  # noqa: E731
        for x in xs:
            marks.append(Mark(r(x), r(top - CROP_GAP - len_y), r(x), r(top - CROP_GAP)))
            marks.append(Mark(r(x), r(bottom + CROP_GAP), r(x), r(bottom + CROP_GAP + len_y)))
        for y in ys:
            marks.append(Mark(r(left - CROP_GAP - len_x), r(y), r(left - CROP_GAP), r(y)))
            marks.append(Mark(r(right + CROP_GAP), r(y), r(right + CROP_GAP + len_x), r(y)))
        return marks


def impose(card: str | CardSize, paper: str | Paper, bleed: float = 0.0,
           min_margin: float = MIN_MARGIN) -> Imposition:
    """The largest centred grid of ``card`` cells that fits on ``paper`` inside ``min_margin``."""
    c = CARD_SIZES[card] if isinstance(card, str) else card
    p = PAPERS[paper] if isinstance(paper, str) else paper
    if bleed < 0:
        raise ValueError(f"bleed cannot be negative ({bleed} mm)")
    cw, ch = c.width + 2 * bleed, c.height + 2 * bleed
    cols = int((p.width - 2 * min_margin + 1e-9) // cw)
    rows = int((p.height - 2 * min_margin + 1e-9) // ch)
    if cols < 1 or rows < 1:
        raise ValueError(f"a {cw:g} x {ch:g} mm cell ({c.name} card with {bleed:g} mm bleed) does "
                         f"not fit on {p.name} paper ({p.width:g} x {p.height:g} mm) inside "
                         f"{min_margin:g} mm margins")
    mx = round((p.width - cols * cw) / 2, 4)
    my = round((p.height - rows * ch) / 2, 4)
    return Imposition(c, p, bleed, cols, rows, mx, my)
