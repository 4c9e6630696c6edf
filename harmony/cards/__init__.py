"""Rule cards: the short form of each rule, printed to cut out and use at the table.

- :mod:`~harmony.cards.collect`: what goes on each card, read from the model;
- :mod:`~harmony.cards.layout`: imposition (where each card goes on a sheet);
- :mod:`~harmony.cards.render`: cards to HTML (``templates/cards/``) and PDF (WeasyPrint);
- :mod:`~harmony.cards.fit`: that each card's text fits, for ``harmony check`` too;
- :mod:`~harmony.cards.command`: the ``harmony cards`` command.
"""
from __future__ import annotations

from pathlib import Path

from ..model import Model
from .collect import CardView, collect, rules_with_cards
from .fit import Fit, fit
from .layout import MIN_MARGIN

# :mod:`.render` (Jinja) is imported by the functions that render: ``harmony check`` reads
# :mod:`.fit` and :mod:`.collect` of this package, and renders nothing

__all__ = ["CardView", "CardOverflow", "collect", "fit", "pdf_html", "render_html", "render_pdf",
           "print_pdf", "rules_with_cards", "write_pdf"]


def __getattr__(name: str):
    if name in ("write_pdf", "print_pdf"):
        from . import render
        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class CardOverflow(Exception):
    """Cards whose text does not fit even at the minimum font size."""

    def __init__(self, problems: list[tuple[CardView, Fit]], size: str):
        self.problems, self.size = problems, size
        super().__init__(f"{len(problems)} card(s) do not fit a {size} card")


def cards_title(model: Model) -> str:
    """The title of the cards' page and PDF: the harmony's own (its ``harmony:`` title).

    >>> from harmony.model import Identity
    >>> cards_title(Model(identity=Identity(title="Dice")))
    'Dice: rule cards'
    """
    return f"{model.identity.title}: rule cards"


def render_html(model: Model, rules: list[str] | None = None, size: str = "poker", *,
                paper: str = "a4", bleed: float = 0.0, crop_marks: bool = False,
                backs: bool = False, site_url: str | None = None,
                margin: float = MIN_MARGIN) -> str:
    """A standalone printable HTML page of the cards (the PDF's templates and stylesheet).

    Sheets show as pages on screen and print at their exact size. A card too
    long for its size is shown whole, outlined in red, rather than cut
    (``harmony check`` reports it).
    """
    from .render import imposed_html, imposition
    cards = collect(model, rules, site_url)
    im = imposition(size, paper, bleed, margin, crop_marks)
    results = fit(cards, size) if cards else []
    fonts = [r.font or im.card.font_steps[-1] for r in results]
    bad = {i for i, r in enumerate(results) if not r.fits}
    return imposed_html(cards, fonts, im, crop_marks=crop_marks, backs=backs, screen=True,
                        overflowing=bad, title=cards_title(model))


def pdf_html(model: Model, rules: list[str] | None = None, size: str = "poker", *,
             paper: str = "a4", bleed: float = 0.0, crop_marks: bool = False,
             backs: bool = False, site_url: str | None = None,
             margin: float = MIN_MARGIN, with_fonts: bool = False):
    """The HTML WeasyPrint prints, and the cards in it (and, ``with_fonts``, the font size
    each fits at); raises :class:`CardOverflow` rather than cut. The same model and options
    give the same text, so a caller can hash it to know whether the PDF needs printing
    again."""
    from .render import imposed_html, imposition
    cards = collect(model, rules, site_url)
    im = imposition(size, paper, bleed, margin, crop_marks)
    results = fit(cards, size) if cards else []
    bad = [(c, r) for c, r in zip(cards, results) if not r.fits]
    if bad:
        raise CardOverflow(bad, size)
    fonts = [r.font for r in results if r.font is not None]   # all of them: every card fits
    html = imposed_html(cards, fonts, im, crop_marks=crop_marks, backs=backs,
                        title=cards_title(model))
    return (html, cards, fonts) if with_fonts else (html, cards)


def render_pdf(model: Model, rules: list[str] | None = None, size: str = "poker", *,
               paper: str = "a4", bleed: float = 0.0, crop_marks: bool = False,
               backs: bool = False, site_url: str | None = None,
               margin: float = MIN_MARGIN, out: str | Path | None = None) -> tuple[bytes, list[CardView]]:
    """The PDF of the cards and the cards in it; raises :class:`CardOverflow` rather than cut."""
    html, cards = pdf_html(model, rules, size, paper=paper, bleed=bleed, crop_marks=crop_marks,
                           backs=backs, site_url=site_url, margin=margin)
    from .render import write_pdf
    return write_pdf(html, out), cards
