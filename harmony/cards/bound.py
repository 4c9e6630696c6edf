"""A proven upper bound of a card's layout from the fonts' own metrics, without laying it out.

:mod:`harmony.cards.fit` lays every card out with WeasyPrint to find the body
font it fits at, and that layout is nearly all the cost of a first ``harmony
check``. Most cards fit with room to spare, and that can be shown without a
layout: this module works out, for one card at one body font, an **upper
bound** of the height its words need and a **lower bound** of the height they
have, and says the card fits only when the bound fits. A card it cannot vouch
for (``None``) is laid out by WeasyPrint as before, so the font every card
prints at is the same with or without the bound.

Why the bound holds:

* **Widths from above.** A word's width is the sum of its glyphs' advance
  widths in the font file fontconfig gives WeasyPrint for the family, plus
  every *positive* kerning pair (negative pairs only narrow it; a ligature
  only narrows it too), plus the letter spacing after every character, and
  then 1% more for rounding. Text transformed to capitals is measured in
  capitals.
* **Lines from above.** WeasyPrint breaks lines greedily: each line takes
  as much as fits. Breaking greedily only at spaces, with every width at
  least the real one, can only end each line earlier, so it never counts
  fewer lines than WeasyPrint, which may break at more places (after a
  hyphen, say). Not every space is a place to break: Unicode's line breaking
  rules keep a space before a comma, full stop, closing bracket or quotation
  mark, and after an opening one, on one line (``word .5`` cannot part), so
  such words are measured as one piece with their space (:func:`pieces`).
  A word wider than its line, which WeasyPrint would break or let run over,
  is not vouched for.
* **Heights from above.** A block of plain text of one font is its lines
  times its line height (``line-height`` is a number in the stylesheet); the
  margins between blocks are added in full, though CSS lets some collapse
  (and the negative top margin of the option line is counted as nothing).
* **Room from below.** The key numbers table is bounded from above the same
  way (its value column is as wide as its widest value, the labels wrap in
  the rest), so the room left above it is bounded from below.
* **Fonts.** Only DejaVu Sans, the stylesheet's first family, is measured,
  and only when fontconfig resolves the family to it; a character the font
  has no glyph for (WeasyPrint would take it from another font) is not
  vouched for.

The card's boxes (the text area of each card size, the foot, the head) are
given in :data:`BOX` in millimetres as the stylesheet sets them; a test lays a
card out with WeasyPrint and compares (``tests/test_cardbound.py``), and
another checks every shipped card's bound against WeasyPrint's measure.

>>> from harmony.cards.collect import CardView, KeyNumber
>>> card = CardView("REV", "Revised", "#1f4e79", "Spotting", "A unit in woods is spotted "
...                 "when an enemy unit is next to it.", "rule", None, "Spotting", "Rule",
...                 "spotting.rule", "topics/spotting.html#spotting.rule",
...                 [KeyNumber("spot.range", "Spotting range", "1 hex")])
>>> b = bound(card, 8.5, "poker")
>>> b is not None and b.fits and b.needed < b.available
True
>>> long = CardView(**{**card.__dict__, "text": "word " * 900})
>>> bound(long, 8.5, "poker").fits           # too much text: left to WeasyPrint
False
>>> bound(CardView(**{**card.__dict__, "text": "a 漢 in the woods"}), 8.5, "poker") is None
True
"""
from __future__ import annotations

import functools
import hashlib
import math
import os
import re
import subprocess
import unicodedata
from dataclasses import dataclass

from .collect import CardView

PT_MM = 25.4 / 72
#: Widths are taken this much wider than the font's advances say (rounding of positions).
WIDTH_MARGIN = 1.01
#: Extra height (mm) the bound keeps in hand before it vouches for a card.
HEIGHT_MARGIN = 0.3
#: The stylesheet's first font family: the one measured.
FAMILY = "DejaVu Sans"


@dataclass(frozen=True)
class Box:
    """A card size's boxes, mm, as ``cards.css`` sets them."""

    body_width: float      # the text area (``.body``'s content box)
    body_height: float
    head_width: float      # inside ``.head``'s padding
    head_height: float
    foot_height: float


def _box(card_w: float, card_h: float, panel_top: float, panel_side: float, panel_bottom: float,
         head_padding: float) -> Box:
    # .panel is inset in the trim; .body is inset 2.2 mm (top) and 2.6 mm (sides) in the
    # panel and stops 10.3 mm above its bottom (the foot's room); .foot is 8.6 mm tall
    inner_w = card_w - 2 * panel_side - 2 * 2.6
    return Box(inner_w, card_h - panel_top - panel_bottom - 2.2 - 10.3,
               card_w - head_padding, 7.0, 8.6)


#: Each card size's boxes: poker, bridge and tarot share the default frame; A6 has a wider one.
BOX = {
    "poker": _box(63, 88, 7.0, 2.2, 2.2, 2.6 + 3.0),
    "bridge": _box(57, 89, 7.0, 2.2, 2.2, 2.6 + 3.0),
    "tarot": _box(70, 120, 7.0, 2.2, 2.2, 2.6 + 3.0),
    "a6": _box(105, 148, 10.4, 5.0, 5.0, 5.0 + 5.0),
}


@dataclass(frozen=True)
class Bound:
    """A card at one font, bounded: ``needed`` (mm, from above) and ``available`` (mm, from
    below) for its words; the foot's and the head's heights; the widest line piece."""

    needed: float
    available: float
    foot_needed: float
    foot_available: float
    head_needed: float
    head_available: float
    width_needed: float
    width_available: float

    @property
    def fits(self) -> bool:
        return (self.needed + HEIGHT_MARGIN <= self.available
                and self.foot_needed <= self.foot_available
                and self.head_needed <= self.head_available
                and self.width_needed <= self.width_available)


# ------------------------------------------------------------------ fonts
class Face:
    """One font file's advance widths and positive kerning, in em."""

    def __init__(self, path: str):
        from fontTools.ttLib import TTFont
        font = TTFont(path, lazy=True)
        self.upem = font["head"].unitsPerEm
        self.glyph = font.getBestCmap()
        metrics = font["hmtx"].metrics
        self.advance = {cp: metrics[g][0] / self.upem for cp, g in self.glyph.items()}
        # HarfBuzz kerns with the GPOS table's "kern" lookups when the font has them, else
        # with the old "kern" table: both are read, and only their positive pairs kept
        self.pairs: list[tuple[set, dict, dict, dict]] = _gpos_positive(font, self.upem)
        self.old: dict[tuple[str, str], float] = {}
        if "kern" in font:
            for table in font["kern"].kernTables:
                for pair, value in getattr(table, "kernTable", {}).items():
                    if value > 0:
                        self.old[pair] = max(self.old.get(pair, 0.0), value / self.upem)
        self._ems: dict[tuple[str, float], float | None] = {}
        font.close()

    def _kern(self, a: str, b: str) -> float:
        """The most a pair of glyphs can be pushed apart (em): every positive adjustment
        of every table that covers it, added."""
        extra = self.old.get((a, b), 0.0)
        for covered, first, second, positive in self.pairs:
            if a in covered:
                extra += positive.get((first.get(a, 0), second.get(b, 0)), 0.0)
        return extra

    def em(self, text: str, spacing: float = 0.0) -> float | None:
        """The width of ``text`` in em with ``spacing`` em after every character, from
        above; None if a character has no glyph here."""
        key = (text, spacing)
        if key in self._ems:
            return self._ems[key]
        total, prev = 0.0, None
        for ch in text:
            adv = self.advance.get(ord(ch))
            if adv is None:
                self._ems[key] = None
                return None
            g = self.glyph[ord(ch)]
            total += adv + spacing + (self._kern(prev, g) if prev is not None else 0.0)
            prev = g
        self._ems[key] = total
        return total

    def width(self, text: str, size: float, spacing: float = 0.0) -> float | None:
        """The width of ``text`` (mm) at ``size`` pt, from above (see :meth:`em`)."""
        em = self.em(text, spacing)
        return None if em is None else em * size * PT_MM * WIDTH_MARGIN


def _gpos_positive(font, upem: int) -> list[tuple[set, dict, dict, dict]]:
    """The pair adjustments of the GPOS "kern" lookups that push glyphs apart: for each
    subtable, the glyphs it covers first, its two class maps and its positive values (em)
    by class pair (a subtable of single pairs is put in the same form, a class per glyph)."""
    out: list[tuple[set, dict, dict, dict]] = []
    if "GPOS" not in font:
        return out
    table = font["GPOS"].table
    wanted = sorted({i for rec in table.FeatureList.FeatureRecord if rec.FeatureTag == "kern"
                     for i in rec.Feature.LookupListIndex})
    for index in wanted:
        for sub in table.LookupList.Lookup[index].SubTable:
            sub = getattr(sub, "ExtSubTable", sub)
            if getattr(sub, "LookupType", 2) != 2:
                continue
            covered = set(sub.Coverage.glyphs)
            if sub.Format == 1:
                first: dict[str, int] = {}
                second: dict[str, int] = {}
                positive: dict[tuple[int, int], float] = {}
                for i, (glyph, pairset) in enumerate(zip(sub.Coverage.glyphs, sub.PairSet)):
                    first[glyph] = i + 1
                    for rec in pairset.PairValueRecord:
                        v = getattr(rec.Value1, "XAdvance", 0) if rec.Value1 else 0
                        if v and v > 0:
                            second.setdefault(rec.SecondGlyph, len(second) + 1)
                            positive[(i + 1, second[rec.SecondGlyph])] = v / upem
                out.append((covered, first, second, positive))
            elif sub.Format == 2:
                positive = {}
                for c1, rec1 in enumerate(sub.Class1Record):
                    for c2, rec2 in enumerate(rec1.Class2Record):
                        v = getattr(rec2.Value1, "XAdvance", 0) if rec2.Value1 else 0
                        if v and v > 0:
                            positive[(c1, c2)] = v / upem
                out.append((covered, dict(sub.ClassDef1.classDefs), dict(sub.ClassDef2.classDefs),
                            positive))
    return out


@functools.lru_cache(maxsize=1)
def faces() -> dict[str, Face] | None:
    """The family's regular, bold and oblique faces as fontconfig resolves them for
    WeasyPrint, or None when it resolves the family to another one (nothing is vouched for)."""
    out = {}
    for style, pattern in (("regular", FAMILY), ("bold", f"{FAMILY}:bold"),
                           ("italic", f"{FAMILY}:italic")):
        try:
            found = subprocess.run(["fc-match", "-f", "%{family}|%{file}", pattern],
                                   capture_output=True, text=True, timeout=20, check=True).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        family, _, path = found.partition("|")
        if FAMILY not in [f.strip() for f in family.split(",")] or not path:
            return None
        try:
            out[style] = _face(path)
        except Exception:   # noqa: BLE001 - an unreadable font: nothing is vouched for
            return None
    return out


def _face(path: str) -> Face:
    """:class:`Face` of a font file, remembered on disk (``fonts/`` beside the parse cache)
    under the file's path, size and time and harmony's code: reading the kerning of three
    faces with fontTools took a third of a second of every first check."""
    from .. import parsecache
    st = os.stat(path)
    key = hashlib.sha256(repr((path, st.st_size, st.st_mtime_ns)).encode()
                         + parsecache.code_fingerprint()).hexdigest()
    got = parsecache.get(key, "fonts")
    if isinstance(got, Face):
        return got
    face = Face(path)
    parsecache.put(key, face, "fonts")
    return face


# ------------------------------------------------------------------ lines
def lines(words: list[float], space: float, width: float) -> int | None:
    """How many lines greedy breaking at spaces gives (each word's width, the space's and
    the line's, mm); None when a word is wider than the line.

    >>> lines([10, 10, 10], 1, 21), lines([10, 10, 10], 1, 32), lines([], 1, 5), lines([6], 1, 5)
    (2, 1, 1, None)
    """
    return greedy([(w, space) for w in words], width)


def greedy(pieces: list[tuple[float, float]], width: float) -> int | None:
    """Lines of ``pieces`` (each its width and the glue before it, mm: a space, or nothing
    between two parts of one word) broken greedily, the glue dropped at a break; None when
    a piece is wider than the line.

    >>> greedy([(10, 0), (10, 1), (5, 0)], 21), greedy([(10, 0), (10, 1), (5, 0)], 26)
    (2, 1)
    """
    count, used = 1, None
    for w, glue in pieces:
        if w > width:
            return None
        if used is None:
            used = w
        elif used + glue + w <= width:
            used += glue + w
        else:
            count, used = count + 1, w
    return count


#: what no line may begin with, even after a space, besides closing punctuation (Unicode's
#: line breaking rules LB13 and LB16: the fraction slash is an infix separator)
_NO_BREAK_BEFORE = frozenset("\u2044")
#: what no line may end with, even before a space, besides opening punctuation (LB14: the
#: inverted marks open a sentence)
_NO_BREAK_AFTER = frozenset("\u00a1\u00bf\u2e18")
#: quotation marks (class QU): a space after one does not part it from an opening bracket (LB15)
_QUOTES = frozenset("\"'\u275b\u275c\u275d\u275e\u2e42")


def _glued(before: str, after: str) -> bool:
    """Whether the space between two words is no place to break a line (Unicode's line
    breaking, UAX #14, rules LB13 to LB17, taken wider where that is simpler: every other
    punctuation mark a word may begin with counts as closing). Gluing more than the rules
    do only counts more lines, so the bound stays a bound."""
    first, last = unicodedata.category(after[0]), unicodedata.category(before[-1])
    return (first in ("Po", "Pe", "Pf") or after[0] in _NO_BREAK_BEFORE      # LB13, LB15b, LB16
            or last in ("Ps", "Pi") or before[-1] in _NO_BREAK_AFTER          # LB14, LB15a
            or (first == "Ps" and (last == "Pf" or before[-1] in _QUOTES))    # LB15
            or before[-1] == after[0] == "\u2014")                           # LB17


def pieces(text: str) -> list[str]:
    """``text`` cut where a line may break: at the spaces CSS collapses (a no-break space
    is part of its word), each space kept where the line breaking rules forbid a break
    there (:func:`_glued`).

    >>> pieces("spotted , then ( at once ) fired on .5 «at night »")
    ['spotted ,', 'then', '( at', 'once )', 'fired', 'on .5', '«at', 'night »']
    >>> pieces("one\u00a0hex —  — two")
    ['one\xa0hex', '— —', 'two']
    """
    out: list[str] = []
    for word in re.split(r"[ \t\n\r\f]+", text.strip(" \t\n\r\f")):
        if not word:
            continue
        if out and _glued(out[-1], word):
            out[-1] += " " + word
        else:
            out.append(word)
    return out


def _block(face: Face, text: str, size: float, width: float, spacing: float = 0.0,
           upper: bool = False) -> tuple[int, float] | None:
    """Lines of ``text`` in a block ``width`` mm wide, from above, and its widest piece (mm)."""
    text = text.upper() if upper else text
    words = [face.width(w, size, spacing) for w in pieces(text)]
    space = face.width(" ", size, spacing)
    if space is None or any(w is None for w in words):
        return None
    known = [w for w in words if w is not None]
    n = lines(known, space, width)
    return None if n is None else (n, max(known, default=0.0))


# ------------------------------------------------------------------ the card
def bound(card: CardView, font: float, size: str) -> Bound | None:
    """The card at body ``font`` (pt) on a ``size`` card, bounded; None when it cannot be
    vouched for (fonts not the stylesheet's, a character without a glyph, a word wider than
    its line): then only a layout tells."""
    f = faces()
    box = BOX.get(size)
    if f is None or box is None:
        return None
    reg, bold, ital = f["regular"], f["bold"], f["italic"]
    w = box.body_width
    # the flow: where line, title, option line, paragraphs (cards.css), margins in full
    blocks = [(bold, f"{card.topic} · {card.aspect}", 0.74 * font, 1.2, 0.05, True, 0.6),
              (bold, card.title, 1.36 * font, 1.12, 0.0, False, 1.6)]
    if card.option:
        blocks.append((ital, f"{card.status.capitalize()} rule, option “{card.option}”",
                       0.86 * font, 1.28, 0.0, False, 1.4))
    blocks += [(reg, p, font, 1.28, 0.0, False, 1.4) for p in card.paragraphs]
    needed = widest = 0.0
    for face, text, pt, lh, spacing, upper, margin in blocks:
        got = _block(face, text, pt, w, spacing, upper)
        if got is None:
            return None
        needed += got[0] * lh * pt * PT_MM + margin
        widest = max(widest, got[1])
    available = box.body_height
    if card.keys:
        table = _keys_height(card, font, w)
        if table is None:
            return None
        available -= table + 1.5   # fit.KEYS_GAP
    foot = _foot_height(card, w)
    head = _head_height(card, box.head_width)
    if foot is None or head is None:
        return None
    return Bound(_up(needed), _down(available), _up(foot), box.foot_height, _up(head),
                 box.head_height, _up(widest), _down(w))


def _up(mm: float) -> float:
    """``mm`` rounded up to a thousandth (a bound stays a bound when rounded)."""
    return math.ceil(mm * 1000) / 1000


def _down(mm: float) -> float:
    return math.floor(mm * 1000) / 1000


def _keys_height(card: CardView, font: float, width: float) -> float | None:
    """The key numbers table's height (mm) from above; None if not vouched for."""
    f = faces()
    assert f is not None
    pt = 0.94 * font
    lh = 1.28 * pt * PT_MM
    values = [f["bold"].width(k.value, pt) for k in card.keys]
    if any(v is None for v in values):
        return None
    value_col = max(v for v in values if v is not None) + 2.4          # padding 1.2 mm a side
    label_col = width - 2 * 0.3 - value_col - 2.4                      # the table's borders
    caption_pt = 0.74 * pt
    caption = _block(f["bold"], "Key numbers", caption_pt, width - 2.4 - 0.6, 0.06, True)
    if caption is None or label_col <= 0:
        return None
    height = caption[0] * 1.28 * caption_pt * PT_MM + 0.7 + 2 * 0.3
    for k in card.keys:
        row = _block(f["regular"], k.label, pt, label_col)
        if row is None:
            return None
        height += row[0] * lh + 1.0 + 0.3                                   # padding, rule between rows
    return height


def _foot_height(card: CardView, width: float) -> float | None:
    """The foot's height (mm) from above: 6 pt lines of 1.2, a rule and 0.6 mm above them.

    The link is broken only after a hyphen between letters (``alternate-|spotting``), a
    place every line breaker may break (Unicode's line breaking rules); WeasyPrint breaks it
    at more places of its own (before or after a slash, say), and breaking at fewer places
    than it does is sure to count no fewer lines. A piece wider than the foot is not vouched
    for."""
    f = faces()
    assert f is not None
    pt = 6.0
    space = f["regular"].width(" ", pt)
    words = [f["bold"].width(card.clause_id, pt)] + \
        [f["regular"].width(x, pt) for x in ("·", "full", "text:")]
    parts = [f["regular"].width(x, pt) for x in _after_hyphens(card.link)]
    if space is None or None in words or None in parts:
        return None
    pieces = [(w, space) for w in words if w is not None] + \
        [(w, space if i == 0 else 0.0) for i, w in enumerate(parts) if w is not None]
    n = greedy(pieces, width)
    return None if n is None else n * 1.2 * pt * PT_MM + 0.6 + 0.2


def _after_hyphens(text: str) -> list[str]:
    """``text`` cut after each hyphen that stands between two letters.

    >>> _after_hyphens("topics/alternate-spotting.html#a-1")
    ['topics/alternate-', 'spotting.html#a-1']
    >>> _after_hyphens("-leading-and-trailing")     # a first hyphen stands between no letters
    ['-leading-', 'and-', 'trailing']
    """
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch == "-" and 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha():
            out.append(text[start:i + 1])
            start = i + 1
    return out + [text[start:]]


def _head_height(card: CardView, width: float) -> float | None:
    """The head's height (mm): its 7 mm when the badge, the name and the status share one
    line (then nothing in it is taller than the band), else not vouched for."""
    f = faces()
    assert f is not None
    badge = f["bold"].width(card.ruleset, 7.6, 0.02)
    name = f["bold"].width(card.ruleset_name, 7.2, 0.02)
    space = f["regular"].width(" ", 7.2)
    status = 0.0
    if card.status != "rule":
        s = f["bold"].width(card.status.upper(), 5.6, 0.05)
        if s is None:
            return None
        status = s + 2 * 0.9 + 2 * 0.25 + 1.5
    if badge is None or name is None or space is None:
        return None
    total = badge + 2 * 1.2 + 0.6 + space + name + status
    return 7.0 if total <= width else None
