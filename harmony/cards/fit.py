"""Does each card's text fit its card? Measured with WeasyPrint's own layout, never guessed.

Every card is laid out with the real templates and stylesheet, one card to a
very tall page, at the first body font size of its card size
(:data:`harmony.cards.layout.CARD_SIZES`, e.g. 8.5 pt on a poker card). A
card whose words run past the bottom of its text area is laid out again at
the next smaller size, down to the minimum (7 pt for every size: still
legible at arm's length). One WeasyPrint layout covers the whole set at each
step, and only the cards that still overflow go on to the next step, so a
set that fits costs a single layout (about a second for a few dozen cards).

A card that does not fit even at the minimum is an error: ``harmony check``
reports it at the card text in its clause file (code ``card-overflow``), and
``harmony cards`` refuses to print. Nothing is ever cut silently.

``harmony check`` measures every card of every ruleset at the default size
(poker); ``harmony cards --size`` measures again at the size it prints.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..check import EXTRA_CHECKS
from ..diagnostics import Pos, Report
from ..model import Model
from .collect import CardView, collect
from .layout import CARD_SIZES
from .render import measuring_html

PX_MM = 25.4 / 96  # WeasyPrint lays out in CSS pixels
#: Size ``harmony check`` measures at: the default of ``harmony cards``.
CHECK_SIZE = "poker"


@dataclass(frozen=True)
class Fit:
    """The outcome for one card: the font it prints at (None if it never fits) and the
    measure at that font (at the minimum font if it never fits)."""

    font: float | None
    measure: "Measure"

    @property
    def fits(self) -> bool:
        return self.font is not None and self.measure.foot_fits


def _boxes(box):
    yield box
    for child in getattr(box, "children", None) or ():
        yield from _boxes(child)


def _bottom(box) -> float:
    """The lowest point (px) of a box and all it holds."""
    low = box.position_y + box.margin_height()
    for b in _boxes(box):
        if hasattr(b, "position_y") and hasattr(b, "margin_height"):
            low = max(low, b.position_y + b.margin_height())
    return low


@dataclass(frozen=True)
class Measure:
    """Heights in mm: the card's words and their area; the clause id and link and the foot."""

    needed: float
    available: float
    foot_needed: float
    foot_available: float

    @property
    def fits(self) -> bool:
        return self.needed <= self.available + 0.01

    @property
    def foot_fits(self) -> bool:
        return self.foot_needed <= self.foot_available + 0.01


def measure(cards: list[CardView], fonts: list[float], size: str) -> list[Measure]:
    """How tall each card's contents are, and how much room they have, at the given fonts."""
    from weasyprint import HTML
    doc = HTML(string=measuring_html(cards, fonts, size)).render()
    out: list[Measure] = []
    for i, page in enumerate(doc.pages):
        found: dict[str, object] = {}
        for b in _boxes(page._page_box):
            el = getattr(b, "element", None)
            if el is None or getattr(b, "element_tag", None) != "div":
                continue
            name = el.get("id", "").rpartition("-")[0]
            if name in ("body", "flow", "foot", "footflow") and name not in found:
                found[name] = b
        if len(found) != 4:  # pragma: no cover - the template always has all four
            raise RuntimeError(f"card {i}: the card template lost its body, flow or foot box")
        body, flow, foot, footflow = (found[k] for k in ("body", "flow", "foot", "footflow"))
        top = body.content_box_y()
        out.append(Measure((_bottom(flow) - top) * PX_MM, body.height * PX_MM,
                           footflow.margin_height() * PX_MM, foot.height * PX_MM))
    return out


def fit(cards: list[CardView], size: str = "poker") -> list[Fit]:
    """The largest font of ``size``'s steps at which each card's text fits, smallest step last."""
    steps = CARD_SIZES[size].font_steps
    results: list[Fit | None] = [None] * len(cards)
    todo = list(range(len(cards)))
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


def overflow_message(card: CardView, result: Fit, size: str) -> str:
    c = CARD_SIZES[size]
    m = result.measure
    where = f"{card.clause_id}@{card.ruleset}: "
    if not m.foot_fits:
        return (where + f"the clause id and permalink need {m.foot_needed:.1f} mm of the "
                f"{m.foot_available:.1f} mm foot of a {size} card; use a shorter clause id or "
                "site URL")
    return (where + f"card text does not fit a {size} card ({c.width:g} x {c.height:g} mm) even "
            f"at the minimum font size {c.font_steps[-1]:g} pt: its title, text and key numbers "
            f"need {m.needed:.1f} mm of the {m.available:.1f} mm available; shorten card.text "
            "or card.title")


def card_pos(card: CardView) -> Pos:
    cell = card.cell
    return cell.pos("card", "text") if cell is not None else Pos("?")


def check_cards(model: Model, report: Report) -> None:
    """``harmony check``: every card of every ruleset must fit a poker card."""
    cards = collect(model, list(model.sources))
    if not cards:
        return
    try:
        results = fit(cards, CHECK_SIZE)
    except Exception as e:  # a layout failure is reported, never a traceback
        report.error(card_pos(cards[0]), f"could not lay out the rule cards: {e}", "card-layout")
        return
    for card, result in zip(cards, results):
        if not result.fits:
            report.error(card_pos(card), overflow_message(card, result, CHECK_SIZE), "card-overflow")


if check_cards not in EXTRA_CHECKS:
    EXTRA_CHECKS.append(check_cards)
