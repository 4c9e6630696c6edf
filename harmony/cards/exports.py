"""Card images for card makers: one PNG per card, and Tabletop Simulator deck sheets.

Both come from the same templates, stylesheet and fitted fonts as the PDF:
the cards are laid out by :func:`harmony.cards.render.imposed_html` on pages
of their own size (one card to a page, or a grid of cards with no margin),
printed by WeasyPrint, and turned into PNG by poppler's ``pdftoppm`` at an
exact pixel size: a card of ``w`` mm is ``round(w / 25.4 * dpi)`` pixels
wide (a poker card at 300 dpi is 744 x 1039 px).

A Tabletop Simulator custom deck (cards at trim size, without bleed) is a face sheet of up to 10 x 7 cards whose
last place (bottom right) is the image shown for hidden cards, and a sheet of
backs in the same grid ("unique backs"): so a sheet holds at most 69 cards.

Every image carries harmony's mark (a PNG text chunk, :func:`harmony.outdir.mark_png`)
and a folder of card images carries harmony's stamp file, so a later run replaces
them and nothing else (:mod:`harmony.outdir`); each image is written all at once.
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import outdir
from .collect import CardView
from .layout import Imposition, Paper
from .render import imposed_html, write_pdf

#: Tabletop Simulator's largest deck sheet, in cards, and the cards one sheet holds (the
#: last place shows the hidden card).
TTS_COLS, TTS_ROWS = 10, 7
TTS_CARDS = TTS_COLS * TTS_ROWS - 1


def pixels(mm: float, dpi: float) -> int:
    """The pixels ``mm`` millimetres take at ``dpi``.

    >>> pixels(63, 300), pixels(88, 300), pixels(63, 150)
    (744, 1039, 372)
    """
    return max(1, round(mm / 25.4 * dpi))


@dataclass(frozen=True)
class TtsSheet:
    """One deck sheet written for Tabletop Simulator."""

    faces: Path
    backs: Path
    cols: int
    rows: int
    cards: int


def tts_grid(count: int) -> tuple[int, int]:
    """Columns and rows of a sheet of ``count`` cards plus the hidden-card place.

    >>> tts_grid(9), tts_grid(69), tts_grid(25)
    ((10, 1), (10, 7), (10, 3))
    """
    places = count + 1
    cols = min(TTS_COLS, places)
    return cols, math.ceil(places / cols)


def _grid(template: Imposition, cols: int, rows: int, bleed: bool = True) -> Imposition:
    """Cards edge to edge on a page of exactly their size: with the template's bleed, or
    at trim size (``bleed=False``)."""
    c = template.card
    b = template.bleed if bleed else 0.0
    w, h = c.width + 2 * b, c.height + 2 * b
    paper = Paper("grid", cols * w, rows * h, f"{cols * w:.4f}mm {rows * h:.4f}mm")
    return Imposition(c, paper, b, cols, rows, 0.0, 0.0)


def _png(pdf: bytes, width: int, height: int, dpi: float) -> list[bytes]:
    """Every page of ``pdf`` as a PNG of exactly width x height pixels, carrying harmony's
    mark (:func:`harmony.outdir.mark_png`), so a later run knows it may replace it."""
    if shutil.which("pdftoppm") is None:
        raise RuntimeError("pdftoppm (poppler-utils) is needed to write PNG images")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.pdf"
        src.write_bytes(pdf)
        subprocess.run(["pdftoppm", "-r", f"{dpi:g}", "-scale-to-x", str(width),
                        "-scale-to-y", str(height), "-png", str(src), str(Path(tmp) / "p")],
                       check=True, capture_output=True)
        pages = sorted(Path(tmp).glob("p-*.png"), key=lambda p: int(p.stem.rpartition("-")[2]))
        return [outdir.mark_png(page.read_bytes()) for page in pages]


def write_file(dest: Path, data: bytes) -> Path:
    """Write ``data`` to ``dest`` all at once (a temporary file beside it, then renamed); a
    write that fails removes the temporary file and leaves ``dest`` as it was."""
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        with outdir.writing(dest):
            tmp.write_bytes(data)
            os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def card_name(index: int, card: CardView) -> str:
    """The file name (without .png) of a card's image.

    >>> from harmony.cards.collect import CardView
    >>> card_name(2, CardView("REV", "Revised", "#000", "T", "x", "rule", None, "t", "a",
    ...                       "spotting.rule", "l"))
    '003-REV-spotting.rule'
    """
    return f"{index + 1:03d}-{card.ruleset}-{card.clause_id}"


def write_card_pngs(cards: list[CardView], fonts: list[float], template: Imposition,
                    folder: Path, dpi: float) -> list[Path]:
    """One PNG per card (trim plus bleed) in ``folder``, named by :func:`card_name`."""
    one = _grid(template, 1, 1)
    html = imposed_html(cards, fonts, one)
    pdf = write_pdf(html)
    w, h = pixels(one.paper.width, dpi), pixels(one.paper.height, dpi)
    with outdir.writing(folder):
        folder.mkdir(parents=True, exist_ok=True)
    pages = _png(pdf, w, h, dpi)
    out = [write_file(folder / f"{card_name(i, card)}.png", page)
           for i, (page, card) in enumerate(zip(pages, cards))]
    with outdir.writing(folder):
        outdir.stamp(folder, "cards")
    return out


def write_tts(cards: list[CardView], fonts: list[float], template: Imposition, prefix: Path,
              dpi: float) -> list[TtsSheet]:
    """Deck sheets for Tabletop Simulator: ``PREFIX-N.png`` (faces, the last place the back
    shown for hidden cards) and ``PREFIX-N-back.png`` (each card's back in the same place)."""
    sheets = []
    with outdir.writing(prefix.parent):
        prefix.parent.mkdir(parents=True, exist_ok=True)
    total = math.ceil(len(cards) / TTS_CARDS)
    for n in range(total):
        chunk = cards[n * TTS_CARDS:(n + 1) * TTS_CARDS]
        chunk_fonts = fonts[n * TTS_CARDS:(n + 1) * TTS_CARDS]
        cols, rows = tts_grid(len(chunk))
        im = _grid(template, cols, rows, bleed=False)   # the table shows cards at trim size
        w, h = pixels(im.paper.width, dpi), pixels(im.paper.height, dpi)
        name = f"{prefix.name}-{n + 1}" if total > 1 else prefix.name
        # faces, then the hidden-card place: the first card's back after the last face
        faces_html = imposed_html(chunk, chunk_fonts, im, hidden=chunk[0])
        backs_html = imposed_html(chunk, chunk_fonts, im, backs_only=True)
        faces = write_file(prefix.with_name(name + ".png"), _png(write_pdf(faces_html), w, h, dpi)[0])
        backs = write_file(prefix.with_name(name + "-back.png"),
                           _png(write_pdf(backs_html), w, h, dpi)[0])
        sheets.append(TtsSheet(faces, backs, cols, rows, len(chunk)))
    return sheets
