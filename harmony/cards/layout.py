"""Imposition: where each card goes on a sheet of paper. Pure arithmetic, in millimetres.

A sheet holds a grid of *cells*; a cell is the card's trim size plus its
bleed on every side. Without bleed cells abut, so neighbouring cards share
one cut line. With bleed the printed background of each card runs ``bleed``
mm past its trim line, and where the sheet has room the cells are set apart
by a white gap (up to :data:`GUTTER` mm) so that crop marks can be drawn
between cards as well as in the outer margins. The grid is as large as fits
inside the paper less a minimum margin on every side, then centred, so
opposite margins are equal and the back of a sheet (flipped on the paper's
long edge for duplex) lands exactly on the front.

:func:`choose` picks, for a card size and paper, the layout with the most
cards to a sheet: portrait or landscape, and *edge to edge* (no margin) for
a card whose own inner margin keeps every word at least the printer's
margin (:data:`MIN_MARGIN`, 5 mm) inside its trim. A6 cards are designed so
(their frame is 5 mm wide), and four of them tile an A4 sheet exactly (2 x
105 = 210 mm, 2 x 148 = 296 mm): a printer that cannot reach the paper's edge
loses only some of the coloured frame on the outer sides, never a word.
Smaller cards have a narrow frame, so they always keep the 5 mm margin.
Edge to edge leaves no room for crop marks: with ``--crop-marks`` the chooser
takes the best layout that has room (A6 on A4: two to a landscape sheet).

Nine poker cards to an A4 sheet, with equal margins:

>>> im = impose("poker", "a4")
>>> im.cols, im.rows, im.per_sheet, im.margin_x, im.margin_y
(3, 3, 9, 10.5, 16.5)

A 3 mm bleed costs a column on a portrait sheet (69 mm cells: only two fit in 200 mm;
:func:`choose` turns the sheet to landscape then, for eight):

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
    """A card size: its trim, the body font sizes tried, and its safe margin."""

    name: str
    width: float    # trim width, mm
    height: float   # trim height, mm
    #: body font sizes tried in turn, largest first; the last is the minimum (pt)
    font_steps: tuple[float, ...]
    #: how far inside its trim the card keeps every word (mm): a card whose words keep at
    #: least the printer's margin (:data:`MIN_MARGIN`) may be printed edge to edge
    safe: float = 1.4


@dataclass(frozen=True)
class Paper:
    """A paper size, and the CSS page size that prints it."""

    name: str
    width: float    # mm
    height: float   # mm
    css: str        # the exact CSS page size, in the paper's own unit

    def turned(self) -> "Paper":
        """The same paper in landscape (long side across).

        >>> PAPERS["a4"].turned()
        Paper(name='a4', width=297, height=210, css='297mm 210mm')
        """
        w, h = self.css.split()
        return Paper(self.name, self.height, self.width, f"{h} {w}")


#: Card trim sizes (mm) and the body font sizes tried to fit a card's text.
CARD_SIZES: dict[str, CardSize] = {
    "poker": CardSize("poker", 63, 88, (8.5, 8, 7.5, 7)),
    "bridge": CardSize("bridge", 57, 89, (8.5, 8, 7.5, 7)),
    "tarot": CardSize("tarot", 70, 120, (9.5, 9, 8.5, 8, 7.5, 7)),
    "a6": CardSize("a6", 105, 148, (10.5, 10, 9.5, 9, 8.5, 8, 7.5, 7), safe=5.0),
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
#: The shortest crop mark worth drawing (mm); a layout with less room has no crop marks.
MIN_MARK = 2.0
#: White space (mm) put between cards with bleed, when the sheet has room for it, so crop
#: marks can be drawn between them too (a gap narrower than 2 * CROP_GAP + MIN_MARK is not
#: worth having and is left out).
GUTTER = 6.0


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
    """How cards of one size sit on a sheet of one paper: grid, margins, gaps and bleed."""

    card: CardSize
    paper: Paper      # as printed: turned for a landscape layout
    bleed: float
    cols: int
    rows: int
    margin_x: float   # paper edge to the outer edge of the outer cells, mm
    margin_y: float
    gap_x: float = 0.0   # white space between neighbouring cells, mm
    gap_y: float = 0.0

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def landscape(self) -> bool:
        return self.paper.width > self.paper.height

    @property
    def edge_to_edge(self) -> bool:
        """The cards touch the paper's edge (no margin): the card keeps its words clear of it."""
        return min(self.margin_x, self.margin_y) < 0.01

    @property
    def cell_width(self) -> float:
        return self.card.width + 2 * self.bleed

    @property
    def cell_height(self) -> float:
        return self.card.height + 2 * self.bleed

    def describe(self) -> str:
        """What was chosen, in words.

        >>> impose("poker", "a4").describe()
        '9 poker cards to a portrait a4 sheet (3 x 3)'
        >>> choose("a6", "a4").describe()
        '4 a6 cards to a portrait a4 sheet (2 x 2), edge to edge'
        """
        side = "landscape" if self.landscape else "portrait"
        extra = ", edge to edge" if self.edge_to_edge else ""
        return (f"{self.per_sheet} {self.card.name} card{'s' if self.per_sheet != 1 else ''} to a "
                f"{side} {self.paper.name} sheet ({self.cols} x {self.rows}){extra}")

    def _cell_x(self, col: int) -> float:
        return self.margin_x + col * (self.cell_width + self.gap_x)

    def _cell_y(self, row: int) -> float:
        return self.margin_y + row * (self.cell_height + self.gap_y)

    def slot(self, index: int, back: bool = False) -> Slot:
        """Where the card at ``index`` on a sheet goes. A back sheet is the front flipped on
        the paper's long edge: each row mirrored on a portrait sheet, each column on a
        landscape one.

        >>> im = impose("poker", "a4")
        >>> s = im.slot(0); (s.row, s.col, s.x, s.y)
        (0, 0, 10.5, 16.5)
        >>> s = im.slot(0, back=True); (s.row, s.col, s.x)
        (0, 2, 136.5)
        >>> im.slot(4).x == im.slot(4, back=True).x   # the middle column stays put
        True
        >>> im = impose("poker", "a4", bleed=3, landscape=True)
        >>> s = im.slot(0, back=True); (s.row, s.col)
        (1, 0)
        """
        row, col = divmod(index, self.cols)
        if back and self.landscape:
            row = self.rows - 1 - row
        elif back:
            col = self.cols - 1 - col
        x = self._cell_x(col) + self.bleed
        y = self._cell_y(row) + self.bleed
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
            x = self._cell_x(c) + self.bleed
            xs.update((round(x, 4), round(x + self.card.width, 4)))
        for r in range(self.rows):
            y = self._cell_y(r) + self.bleed
            ys.update((round(y, 4), round(y + self.card.height, 4)))
        return sorted(xs), sorted(ys)

    def mark_room(self) -> float:
        """The length (mm) of the crop marks in the outer margins: what the narrower margin
        leaves after :data:`CROP_GAP` from the cards and 1 mm from the paper's edge, at most
        :data:`CROP_LENGTH`.

        >>> impose("poker", "a4").mark_room(), choose("a6", "a4").mark_room()
        (4.0, 0.0)
        """
        return max(0.0, min(CROP_LENGTH, min(self.margin_x, self.margin_y) - CROP_GAP - 1.0))

    def crop_marks(self) -> list[Mark]:
        """Crop marks in line with every cut line: at both ends of it in the outer margins,
        and in the white gaps between cards (where bleed left room for a gap). Raises
        ValueError if the margins leave no room for a mark of :data:`MIN_MARK` mm.

        >>> im = impose("poker", "a4")
        >>> marks = im.crop_marks()
        >>> len(marks)       # 4 vertical cut lines x 2 ends + 4 horizontal x 2 ends
        16
        >>> marks[0]         # above the grid: from 1 mm above its top edge, 4 mm long
        Mark(x1=10.5, y1=11.5, x2=10.5, y2=15.5)
        >>> im = impose("poker", "a4", bleed=3)   # a white gap between the two columns
        >>> im.gap_x, len(im.crop_marks())        # 8 + 12 in the margins, 6 in the gap
        (6.0, 26)
        >>> choose("a6", "a4").crop_marks()
        Traceback (most recent call last):
        ...
        ValueError: 4 a6 cards to a portrait a4 sheet (2 x 2), edge to edge leaves no margin for crop marks (they need 4 mm: 1 mm clear of the cards, 2 mm of mark, 1 mm from the paper's edge)
        """  # noqa: E501
        length = self.mark_room()
        if length < MIN_MARK - 1e-9:
            raise ValueError(f"{self.describe()} leaves no margin for crop marks (they need "
                             f"{CROP_GAP + MIN_MARK + 1:g} mm: {CROP_GAP:g} mm clear of the "
                             f"cards, {MIN_MARK:g} mm of mark, 1 mm from the paper's edge)")
        xs, ys = self.trim_lines()
        top, left = self.margin_y, self.margin_x
        bottom = self.paper.height - self.margin_y
        right = self.paper.width - self.margin_x
        marks: list[Mark] = []
        r = lambda v: round(v, 4)  # noqa: E731
        for x in xs:
            marks.append(Mark(r(x), r(top - CROP_GAP - length), r(x), r(top - CROP_GAP)))
            marks.append(Mark(r(x), r(bottom + CROP_GAP), r(x), r(bottom + CROP_GAP + length)))
        for y in ys:
            marks.append(Mark(r(left - CROP_GAP - length), r(y), r(left - CROP_GAP), r(y)))
            marks.append(Mark(r(right + CROP_GAP), r(y), r(right + CROP_GAP + length), r(y)))
        if self.gap_x - 2 * CROP_GAP >= MIN_MARK - 1e-9:   # between columns, at every row cut
            for c in range(self.cols - 1):
                x1 = self._cell_x(c) + self.cell_width + CROP_GAP
                x2 = self._cell_x(c + 1) - CROP_GAP
                marks.extend(Mark(r(x1), r(y), r(x2), r(y)) for y in ys)
        if self.gap_y - 2 * CROP_GAP >= MIN_MARK - 1e-9:   # between rows, at every column cut
            for row in range(self.rows - 1):
                y1 = self._cell_y(row) + self.cell_height + CROP_GAP
                y2 = self._cell_y(row + 1) - CROP_GAP
                marks.extend(Mark(r(x), r(y1), r(x), r(y2)) for x in xs)
        return marks


def _fit_line(length: float, cell: float, margin: float, bleed: float) -> tuple[int, float, float]:
    """How many cells fit along ``length`` inside ``margin``; the gap between them and the
    margin that centres them."""
    n = int((length - 2 * margin + 1e-9) // cell)
    if n < 1:
        return 0, 0.0, 0.0
    gap = 0.0
    if bleed > 0 and n > 1:
        gap = min(GUTTER, (length - 2 * margin - n * cell) / (n - 1))
        if gap < 2 * CROP_GAP + MIN_MARK:
            gap = 0.0
    return n, round(gap, 4), round((length - n * cell - (n - 1) * gap) / 2, 4)


def impose(card: str | CardSize, paper: str | Paper, bleed: float = 0.0,
           min_margin: float = MIN_MARGIN, landscape: bool = False,
           edge_to_edge: bool = False) -> Imposition:
    """The largest centred grid of ``card`` cells that fits on ``paper`` (turned if
    ``landscape``) inside ``min_margin``, or with no margin at all if ``edge_to_edge``
    (allowed only without bleed, for a card that keeps its words ``min_margin`` clear of its
    trim). Cells with bleed are set apart by a white gap of up to :data:`GUTTER` mm where
    there is room."""
    c = CARD_SIZES[card] if isinstance(card, str) else card
    p = PAPERS[paper] if isinstance(paper, str) else paper
    if landscape:
        p = p.turned()
    if not (bleed >= 0 and math.isfinite(bleed)):
        raise ValueError(f"bleed must be a number of mm, 0 or more (not {bleed})")
    cw, ch = c.width + 2 * bleed, c.height + 2 * bleed
    margin = min_margin
    if edge_to_edge:
        if bleed > 0 or c.safe < min_margin:
            raise ValueError(f"{c.name} cards cannot print edge to edge"
                             + (" with bleed" if bleed > 0 else f": their words come within "
                                f"{c.safe:g} mm of the trim, inside the printer's {min_margin:g} mm"))
        margin = 0.0
    cols, gx, mx = _fit_line(p.width, cw, margin, bleed)
    rows, gy, my = _fit_line(p.height, ch, margin, bleed)
    if cols < 1 or rows < 1:
        raise ValueError(f"a {cw:g} x {ch:g} mm cell ({c.name} card with {bleed:g} mm bleed) does "
                         f"not fit on {p.name} paper ({p.width:g} x {p.height:g} mm) inside "
                         f"{min_margin:g} mm margins")
    return Imposition(c, p, bleed, cols, rows, mx, my, gx, gy)


def choose(card: str | CardSize, paper: str | Paper, bleed: float = 0.0,
           min_margin: float = MIN_MARGIN, crop_marks: bool = False) -> Imposition:
    """The layout with the most cards to a sheet: portrait or landscape, and edge to edge
    where the card allows it (no bleed, words clear of the printer's margin, no crop marks,
    which need a margin). On a tie: portrait, then with margins.

    >>> choose("poker", "a4").describe()
    '9 poker cards to a portrait a4 sheet (3 x 3)'
    >>> choose("poker", "a4", bleed=3).describe()     # landscape gains two cards
    '8 poker cards to a landscape a4 sheet (4 x 2)'
    >>> choose("a6", "a4").describe()
    '4 a6 cards to a portrait a4 sheet (2 x 2), edge to edge'
    >>> choose("a6", "a4", crop_marks=True).describe()
    '2 a6 cards to a landscape a4 sheet (2 x 1)'
    """
    tried: list[Imposition] = []
    fits: list[Imposition] = []
    error: ValueError | None = None
    for edge in (False, True):
        for landscape in (False, True):
            try:
                im = impose(card, paper, bleed, min_margin, landscape, edge)
            except ValueError as e:
                error = error or e
                continue
            fits.append(im)
            if crop_marks and im.mark_room() < MIN_MARK - 1e-9:
                continue
            tried.append(im)
    if not tried:
        if fits:
            fits[0].crop_marks()   # raises, saying why there is no room for them
        raise error or ValueError("no layout fits")
    best = max(tried, key=lambda im: im.per_sheet)
    return next(im for im in tried if im.per_sheet == best.per_sheet)
