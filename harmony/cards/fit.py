"""Does each card's text fit its card? Proven from the fonts' metrics, or measured with
WeasyPrint's own layout; never guessed.

First, :func:`harmony.cards.bound.bound` works out from the font files an upper bound
of the height each card's words need and a lower bound of the room they have at the
largest body font: a card whose bound fits is known to fit there without a layout
(its :class:`Measure` then holds the bound's figures), and is not laid out. That is
most cards, and the layout was nearly all the cost of a first ``harmony check``.
Every other card (a long text, a word the bound cannot vouch for) is measured:

Every such card is laid out with the real templates and stylesheet, one card to a
very tall page, at the first body font size of its card size
(:data:`harmony.cards.layout.CARD_SIZES`, e.g. 8.5 pt on a poker card). A
card whose words run past the bottom of its text area is laid out again at
the next smaller size, down to the minimum (7 pt for every size: still
legible at arm's length). One WeasyPrint layout covers the whole set at each
step, and only the cards that still overflow go on to the next step, so a
set that fits costs a single layout (about a second for a few dozen cards,
plus a second to import WeasyPrint). The outcome is remembered on disk, card by
card (see :func:`cache_dir`), keyed by everything the layout depends on, so
``harmony check`` measures again only the cards that changed (all of them when
the templates or the fonts change).

Width is measured as well as height: a word longer than the text area, a
key-numbers table or a head wider than its card runs past the right edge
and would be cut, so it counts as not fitting too (a smaller font may cure
it). The message names the offending word, at its own line and column in the
clause file when it is found there.

A card that does not fit even at the minimum is an error: ``harmony check``
reports it at the card text in its clause file (code ``card-overflow``), and
``harmony cards`` refuses to print. Nothing is ever cut silently.

``harmony check`` measures every card of every ruleset at the default size
(poker); ``harmony cards --size`` measures again at the size it prints.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

from .. import htmlcache, paramtypes, parsecache, resources
from ..parsecache import installed
from ..diagnostics import Pos, Report
from ..model import Model
from .collect import CardView, collect
from .layout import CARD_SIZES

PX_MM = 25.4 / 96  # WeasyPrint lays out in CSS pixels
#: Least space (mm) between the last line of text and the key numbers table.
KEYS_GAP = 1.5
#: Bumped whenever :class:`Measure` changes, so older cached measures are not read.
MEASURE_VERSION = 4
#: Size ``harmony check`` measures at: the default of ``harmony cards``.
CHECK_SIZE = "poker"


@dataclass(frozen=True)
class Fit:
    """The outcome for one card: the font it prints at (None if it never fits) and the
    measure at that font (at the minimum font if it never fits). A card vouched for by
    :mod:`harmony.cards.bound` has the bound's figures as its measure (heights needed from
    above, room from below); a card that does not fit always has WeasyPrint's."""

    font: float | None
    measure: "Measure"

    @property
    def fits(self) -> bool:
        return self.font is not None and self.measure.foot_fits and self.measure.head_fits


def _boxes(box):
    yield box
    for child in getattr(box, "children", None) or ():
        yield from _boxes(child)


def _reach(box, start: str, size: str) -> float:
    """The furthest point (px) of a box and all it holds, down (``position_y``,
    ``margin_height``) or across (``position_x``, ``margin_width``)."""
    return max(getattr(b, start) + getattr(b, size)() for b in _boxes(box)
               if hasattr(b, start) and hasattr(b, size))


def _bottom(box) -> float:
    """The lowest point (px) of a box and all it holds."""
    return _reach(box, "position_y", "margin_height")


def _right(box) -> float:
    """The rightmost point (px) of a box and all it holds."""
    return _reach(box, "position_x", "margin_width")


def _widest_text(box, limit: float) -> str:
    """The text of the line piece that reaches furthest past ``limit`` (px), or ''."""
    worst, text = limit + 0.01 / PX_MM, ""
    for b in _boxes(box):
        t = getattr(b, "text", None)
        if t and hasattr(b, "position_x") and b.position_x + b.margin_width() > worst:
            worst, text = b.position_x + b.margin_width(), t.strip()
    return text


@dataclass(frozen=True)
class Measure:
    """Heights in mm: the card's words and their area; the clause id and link and the foot.
    Widths in mm: the widest line (a long word, the key numbers table, the head) and the
    width it has; ``wide`` is the piece of text that runs past it, if one does."""

    needed: float
    available: float
    foot_needed: float
    foot_available: float
    head_needed: float = 0.0
    head_available: float = 0.0
    width_needed: float = 0.0
    width_available: float = 0.0
    wide: str = ""

    @property
    def fits(self) -> bool:
        return self.needed <= self.available + 0.01 and self.width_fits

    @property
    def width_fits(self) -> bool:
        return self.width_needed <= self.width_available + 0.01

    @property
    def foot_fits(self) -> bool:
        return self.foot_needed <= self.foot_available + 0.01

    @property
    def head_fits(self) -> bool:
        return self.head_needed <= self.head_available + 0.01


#: The boxes of a card that are measured (ids ``NAME-INDEX`` in the card template).
PARTS = ("head", "headflow", "body", "flow", "keys", "foot", "footflow")


#: Cards laid out in one WeasyPrint document when measuring. WeasyPrint's layout of a
#: document grows faster than its page count (issue 16: the cards of 10,000 clauses in
#: one document, 1,722 s and 6.7 GB), so cards are measured in documents of this many:
#: time linear in the cards, memory bounded by one batch. Each card is one page, and its
#: measure depends on that page only, so batching changes no measure (bench/RESULTS.md).
MEASURE_BATCH = 40


def measure(cards: list[CardView], fonts: list[float], size: str) -> list[Measure]:
    """How tall each card's contents are, and how much room they have, at the given fonts."""
    out: list[Measure] = []
    for start in range(0, len(cards), MEASURE_BATCH):
        out += _measure_batch(cards[start:start + MEASURE_BATCH],
                              fonts[start:start + MEASURE_BATCH], size, start)
    return out


def _measure_batch(cards: list[CardView], fonts: list[float], size: str,
                   first: int = 0) -> list[Measure]:
    """:func:`measure` of one WeasyPrint document (``first``: the index of its first card)."""
    from .render import measuring_html     # Jinja: imported only when a card is laid out
    doc = htmlcache.document(measuring_html(cards, fonts, size)).render()
    out: list[Measure] = []
    for i, page in enumerate(doc.pages, first):
        found: dict[str, Any] = {}   # WeasyPrint's layout boxes
        for b in _boxes(page._page_box):
            el = getattr(b, "element", None)
            if el is None:
                continue
            name = el.get("id", "").rpartition("-")[0]
            if name in PARTS and name not in found:
                found[name] = b
        if not set(PARTS) - {"keys"} <= set(found):  # pragma: no cover
            raise RuntimeError(f"card {i}: the card template lost one of its boxes "
                               f"({', '.join(sorted(set(PARTS) - set(found)))})")
        body, flow, foot, footflow = (found[k] for k in ("body", "flow", "foot", "footflow"))
        top = body.content_box_y()
        available = body.height
        if "keys" in found:  # the key numbers sit at the bottom; the words must end above them
            available = found["keys"].position_y - top - KEYS_GAP / PX_MM
        # widths: every piece of the card against the inner edge of the box that holds it
        widths = []   # (past the edge, needed, available, inner box, edge), px
        for outer, inner in (("body", "flow"), ("body", "keys"), ("foot", "footflow"),
                             ("head", "headflow")):
            if inner in found:
                box = found[outer]
                limit = box.content_box_x() + box.width
                reach = _right(found[inner])
                widths.append((reach - limit, reach - box.content_box_x(), box.width, inner,
                               limit))
        over, need, have, inner, limit = max(widths, key=lambda w: w[0])
        wide = _widest_text(found[inner], limit) if over > 0.01 / PX_MM else ""
        out.append(Measure((_bottom(flow) - top) * PX_MM, available * PX_MM,
                           footflow.margin_height() * PX_MM, foot.height * PX_MM,
                           found["headflow"].margin_height() * PX_MM, found["head"].height * PX_MM,
                           round(need * PX_MM, 3), round(have * PX_MM, 3), wide))
    return out


def fit(cards: list[CardView], size: str = "poker", cache: bool = True,
        bound: bool = True) -> list[Fit]:
    """The largest font of ``size``'s steps at which each card's text fit, smallest step last.

    With ``cache`` (the default) a set measured before on this machine is not laid out
    again, and of a set that changed only the cards that changed are: see
    :func:`cache_dir`. With ``bound`` (the default) a card the font metrics prove to fit
    at the largest step is not laid out (``bound=False``, for tests and benchmarks, lays
    out every card; the fonts chosen are the same).
    """
    if not cards:
        return []
    keys = _card_keys(cards, size) if cache else None
    if keys is None:
        return _fit(cards, size, bound)
    whole = hashlib.sha256("\n".join(keys).encode()).hexdigest()
    hit = _cache_read(whole, len(cards))
    if hit is not None:
        return hit
    results: list[Fit | None] = [_card_read(k) for k in keys]
    todo = [i for i, r in enumerate(results) if r is None]
    if todo:
        for i, r in zip(todo, _fit([cards[i] for i in todo], size, bound)):
            results[i] = r
            _card_write(keys[i], r)
    done = [r for r in results if r is not None]
    _cache_write(whole, done)
    return done


def _fit(cards: list[CardView], size: str, bound: bool = True) -> list[Fit]:
    steps = CARD_SIZES[size].font_steps
    results: list[Fit | None] = [None] * len(cards)
    todo = list(range(len(cards)))
    if bound:
        from .bound import bound as bound_of
        still = []
        for i in todo:
            b = bound_of(cards[i], steps[0], size)
            if b is not None and b.fits:
                results[i] = Fit(steps[0], Measure(b.needed, b.available, b.foot_needed,
                                                   b.foot_available, b.head_needed,
                                                   b.head_available, b.width_needed,
                                                   b.width_available))
            else:
                still.append(i)
        todo = still
    for n, font in enumerate(steps):
        if not todo:
            break
        sizes = measure([cards[i] for i in todo], [font] * len(todo), size)
        still = []
        for i, m in zip(todo, sizes):
            if m.fits:
                results[i] = Fit(font, m)
            elif n == len(steps) - 1:
                results[i] = Fit(None, m)
            else:
                still.append(i)
        todo = still
    return [r for r in results]  # type: ignore[misc]


# ------------------------------------------------------------------ the cache
#
# Laying out a card set takes WeasyPrint about a second for a few dozen cards, plus a
# second to import it; a card that has not changed since it was last measured need not
# be laid out again. Each card's key covers everything its layout depends on (each card
# is its own page of the measuring document, so no card depends on another): what its
# measuring HTML is made from (the card's printed values, the templates, the stylesheet,
# the code of harmony.cards, the card size), the font
# steps, the WeasyPrint, Jinja and pydyf installations, and the installed font files (path, size,
# time). A set's key is the list of its cards' keys: an unchanged set is one read, and in
# a changed set only the changed cards are measured. A changed card, template or font
# means a new key; old entries are never read again, and the oldest written are removed
# beyond :data:`MAX_ENTRIES` (cards and sets together, in sub-folder ``cards-fit``).

#: the card fits and card sets kept on disk at most (a card's is about 300 bytes, a set's a
#: few kilobytes); beyond it, the oldest written are removed as new ones are written
MAX_ENTRIES = 20_000
_KIND = "cards-fit"
#: where this cache kept each set before it kept them in ``cards-fit/sets/``: the top of the
#: cache folder, never pruned (removed now, when sets are pruned)
_OLD_SET = re.compile(r"cards-fit-[0-9a-f]{64}\.json")

FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts")


def cache_dir() -> Path | None:
    """Where measured cards and card sets are remembered: sub-folder ``cards-fit`` of
    harmony's cache (:func:`harmony.parsecache.folder`: ``$HARMONY_CACHE``, else
    ``$XDG_CACHE_HOME/harmony``, ``~/.cache/harmony``); None when ``HARMONY_CACHE=off``."""
    return parsecache.folder(_KIND)


def _fonts_fingerprint() -> str:
    h = hashlib.sha256()
    for root in FONT_DIRS:
        root = os.path.expanduser(root)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                try:
                    st = os.stat(os.path.join(dirpath, name))
                except OSError:
                    continue
                h.update(f"{dirpath}/{name}:{st.st_size}:{int(st.st_mtime)}\n".encode())
    return h.hexdigest()




def _card_keys(cards: list[CardView], size: str) -> list[str] | None:
    """The key of each card (see above); None when the cache is off."""
    if cache_dir() is None:
        return None
    steps = CARD_SIZES[size].font_steps
    common = hashlib.sha256(repr((MEASURE_VERSION, steps, KEYS_GAP, installed("weasyprint"),
                                  installed("jinja2"), installed("pydyf"))).encode())
    common.update(_fonts_fingerprint().encode())
    common.update(size.encode() + b"\0" + _layout_fingerprint())
    keys = []
    for card in cards:
        h = common.copy()
        h.update(repr(card).encode())
        keys.append(h.hexdigest())
    return keys


_LAYOUT: list[bytes] = []


def _layout_fingerprint() -> bytes:
    """A digest of everything besides a card's own values that its measuring HTML is made
    from: the card templates and stylesheet and the code of :mod:`harmony.cards` (the
    page geometry, the Jinja environment and its filters). With it, a card's key is its
    values (``repr`` of the :class:`CardView`, every printed field) and never needs the
    HTML rendered: 2,600 cards were a second of Jinja for their keys alone."""
    if not _LAYOUT:
        h = hashlib.sha256()
        here = Path(__file__).resolve().parent
        for p in sorted(here.glob("*.py")) + sorted((resources.templates() / "cards").iterdir()):
            if p.is_file():
                h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
        _LAYOUT.append(h.digest())
    return _LAYOUT[0]


def _card_path(key: str) -> Path | None:
    folder = cache_dir()
    return None if folder is None else folder / key[:2] / f"{key}.json"


def _set_path(key: str) -> Path | None:
    folder = cache_dir()
    return None if folder is None else folder / "sets" / f"{key}.json"


def _read(path: Path | None) -> Any:
    """The JSON of ``path``, or None (no cache, no entry, or one cut short)."""
    try:
        return None if path is None else json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write(path: Path | None, data: Any, prune: bool) -> None:
    """Write ``data`` as the entry ``path`` whole (a reader finds the old one or the new one);
    with ``prune``, then remove the oldest entries beyond :data:`MAX_ENTRIES`."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        return  # only a cache: a read-only home changes nothing but speed
    if prune:
        parsecache.prune(MAX_ENTRIES, _KIND, ".json")


def _card_read(key: str) -> Fit | None:
    try:
        font, m = _read(_card_path(key))
        return Fit(font, Measure(*m))
    except (ValueError, TypeError):
        return None


def _card_write(key: str, result: Fit) -> None:
    # the cache kept bounded now and then: one card written in 256
    _write(_card_path(key), [result.font, list(astuple(result.measure))], prune=key[2:4] == "00")


def _cache_read(key: str, count: int) -> list[Fit] | None:
    try:
        out = [Fit(font, Measure(*m)) for font, m in _read(_set_path(key))]
    except (ValueError, TypeError):
        return None
    return out if len(out) == count else None


def _cache_write(key: str, results: list[Fit]) -> None:
    prune = key[2] == "0"   # one set written in 16 (a build writes one)
    _write(_set_path(key), [[r.font, list(astuple(r.measure))] for r in results], prune)
    folder = cache_dir()
    if prune and folder is not None:
        for old in folder.parent.glob("cards-fit-*.json"):
            if _OLD_SET.fullmatch(old.name):
                try:
                    old.unlink()
                except OSError:
                    pass   # another build's, removed first; or a read-only cache


def overflow_message(card: CardView, result: Fit, size: str) -> str:
    c = CARD_SIZES[size]
    m = result.measure
    where = f"{card.clause_id}@{card.ruleset}: "
    if not m.head_fits:
        return (where + f"the ruleset's short name and the status do not fit in the head of a "
                f"{size} card; give source {card.ruleset} a shorter short:")
    if not m.width_fits:
        word = longest_word(m.wide)
        what = f"the word '{_short(word)}' ({len(word)} characters)" if word else "a line"
        return (where + f"{what} needs {m.width_needed:.1f} mm of the {m.width_available:.1f} mm "
                f"width of a {size} card even at the minimum font size {c.font_steps[-1]:g} pt; "
                "break it up or shorten it")
    if not m.foot_fits:
        return (where + f"the clause id and permalink need {m.foot_needed:.1f} mm of the "
                f"{m.foot_available:.1f} mm foot of a {size} card; use a shorter clause id or "
                "site URL")
    return (where + f"card text does not fit a {size} card ({c.width:g} x {c.height:g} mm) even "
            f"at the minimum font size {c.font_steps[-1]:g} pt: its title, text and key numbers "
            f"need {m.needed:.1f} mm of the {m.available:.1f} mm available; shorten card.text "
            "or card.title")


def longest_word(text: str) -> str:
    """The longest run of text without a space in ``text``.

    >>> longest_word("a unit in woodsandtowns here")
    'woodsandtowns'
    >>> longest_word("")
    ''
    """
    return max(text.split(), key=len, default="")


def _short(word: str, most: int = 24) -> str:
    return word if len(word) <= most else word[:most - 1] + "…"


def find_in_file(path: str, start: Pos, needle: str) -> Pos | None:
    r"""Where ``needle`` first occurs in the file at or after ``start``, as a position.

    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    >>> _ = f.write("card:\n  text: one two\n    threefourfive six\n"); f.close()
    >>> p = find_in_file(f.name, Pos(f.name, 2, 9), "threefourfive"); (p.line, p.col)
    (3, 5)
    >>> find_in_file(f.name, Pos(f.name, 2, 9), "card") is None
    True
    >>> os.unlink(f.name)
    """
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
    except OSError:
        return None
    for n in range(start.line - 1, len(lines)):
        col = lines[n].find(needle, start.col - 1 if n == start.line - 1 else 0)
        if col >= 0:
            return Pos(start.path, n + 1, col + 1)
    return None


def card_pos(card: CardView, result: Fit | None = None) -> Pos:
    """Where a card's problem is: the word too wide for it, if one is, else its text."""
    cell = card.cell
    if cell is None:
        return Pos("?")
    pos = cell.pos("card", "text")
    word = longest_word(result.measure.wide) if result is not None else ""
    if word and cell.card is not None:
        field = "title" if word in cell.card.title and word not in cell.card.text else "text"
        start = cell.pos("card", field)
        found = find_in_file(cell.file, start, word) if cell.file else None
        if found is not None and found.line - start.line < 40:
            return found
    return pos


def check_cards(model: Model, report: Report) -> None:
    """``harmony check``: every card of every ruleset must fit a poker card (but for the cards
    of cells holding a parameter value of the wrong type: check reports the value, and the
    card cannot be judged until it is right)."""
    cards = [c for c in collect(model, list(model.sources))
             if c.cell is None or not paramtypes.wrong_values(model.parameters, c.cell.params)]
    if not cards:
        return
    try:
        results = fit(cards, CHECK_SIZE)
    except Exception as e:  # a layout failure is reported, never a traceback
        report.error(card_pos(cards[0]), f"could not lay out the rule cards: {e}", "card-layout")
        return
    for card, result in zip(cards, results):
        if not result.fits:
            report.error(card_pos(card, result), overflow_message(card, result, CHECK_SIZE),
                         "card-overflow")

