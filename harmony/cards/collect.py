"""What goes on each card, read from the model: one card per cell that has a ``card:``.

A card shows the card title, the ruleset's badge (its key, short name and
colour), the card text in plain words (glossary marks shown as their words,
``{{ param }}`` marks printed from the cell's own parameters), the key numbers
(the cell's parameters that a player looks up at the table: die-roll
modifiers, fractions, counts and the yes/no rules marked ``key-number: true``,
each under its ``label`` and in its ``words`` from ``parameters.yaml``, printed
from the parameter values, never retyped) and the clause id with its permalink.

>>> from harmony.model import Parameter
>>> types = {"opfire.drm": Parameter(name="opfire.drm", type="modifier", label="Die-roll modifier"),
...          "opfire.enabled": Parameter(name="opfire.enabled", type="bool"),
...          "opfire.range-fraction": Parameter(name="opfire.range-fraction", type="fraction",
...                                             label="Range (share of full)", words={"1": "full"})}
>>> [(k.label, k.value) for k in key_numbers(
...     {"opfire.enabled": True, "opfire.drm": 1, "opfire.range-fraction": "1/2"}, types)]
[('Die-roll modifier', '+1'), ('Range (share of full)', '1/2')]
>>> [k.value for k in key_numbers({"opfire.range-fraction": 1}, types)]
['full']
>>> permalink("spotting", "spotting.markers")
'topics/spotting.html#spotting.markers'
>>> permalink("spotting", "spotting.markers", "https://example.org/harmony")
'https://example.org/harmony/topics/spotting.html#spotting.markers'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import paramtypes
from ..markup import plain_text
from ..model import Cell, Clause, Model, Parameter

#: Colours of the ruleset badges, given out in the order the sources are declared.
#: Dark enough for white text, distinct in print and for the common colour blindnesses.
PALETTE = ("#1f4e79", "#7a2e0e", "#2d6a2e", "#6b2c6b", "#8a6d00", "#1b6b6b", "#5a5a5a",
           "#9c2f4f")

@dataclass(frozen=True)
class KeyNumber:
    """A parameter a card prints among its key numbers: its name, label and value."""

    name: str
    label: str
    value: str


@dataclass
class CardView:
    """Everything printed on one card, as plain strings (the template escapes them)."""

    ruleset: str          # source key, e.g. REV
    ruleset_name: str     # its short name
    colour: str
    title: str
    text: str
    status: str           # rule | optional | tournament | nil
    option: str | None
    topic: str            # topic title
    aspect: str           # aspect title
    clause_id: str
    link: str
    keys: list[KeyNumber] = field(default_factory=list)
    cell: Cell | None = field(default=None, repr=False)

    @property
    def paragraphs(self) -> list[str]:
        """The card text split at blank lines, each paragraph's lines joined."""
        return [" ".join(p.split()) for p in self.text.split("\n\n") if p.strip()]


def label(param: Parameter) -> str:
    """A parameter's label on a card: its ``label`` in parameters.yaml, else its name in words.

    >>> label(Parameter(name="opfire.drm", label="Die-roll modifier"))
    'Die-roll modifier'
    >>> label(Parameter(name="spot.some-new-count"))
    'Some new count'
    """
    return paramtypes.label(param)


def key_numbers(params: dict[str, Any], parameters: dict[str, Parameter]) -> list[KeyNumber]:
    """The cell's parameters that cards print among the key numbers, in the cell's order,
    each with its label and value in the words of ``parameters.yaml``."""
    out: list[KeyNumber] = []
    if not isinstance(params, dict):
        return out
    for name, value in params.items():
        p = parameters.get(name)
        if p is None or not paramtypes.is_key_number(p) or paramtypes.param_error(p, value):
            continue
        out.append(KeyNumber(name, label(p), p.phrase(value)))
    return out


#: The environment variable that gives the site's URL to every build (the build
#: configuration), so the printed cards link to their rules in full.
SITE_URL_ENV = "HARMONY_SITE_URL"


def resolve_site_url(given: str | None = None) -> str | None:
    """The site's URL for the cards' links: ``given``, else ``$HARMONY_SITE_URL``, else None
    (links relative to the site root).

    >>> resolve_site_url("https://example.org/h")
    'https://example.org/h'
    """
    import os
    value = given if given is not None else os.environ.get(SITE_URL_ENV)
    return value.strip() or None if value is not None else None


def permalink(topic: str, clause_id: str, base: str | None = None) -> str:
    """The site page of a clause: relative to the site root unless ``base`` is given."""
    rel = f"topics/{topic}.html#{clause_id}"
    return f"{base.rstrip('/')}/{rel}" if base else rel


def colours(model: Model) -> dict[str, str]:
    """One badge colour per ruleset, by the order the sources are declared in."""
    return {key: PALETTE[i % len(PALETTE)] for i, key in enumerate(model.sources)}


def _types(model: Model) -> dict[str, str]:
    """Each parameter's type, by name; worked out once per model and set of parameters
    (every card asks: per card, the cards of a harmony grew as cards times parameters)."""
    stamp = (id(model.parameters), len(model.parameters))
    known = model.__dict__.get("_card_types")
    if known is None or known[0] != stamp:
        known = model.__dict__["_card_types"] = (stamp, {n: p.type for n, p in model.parameters.items()})
    return known[1]


def card_view(model: Model, clause: Clause, cell: Cell, site_url: str | None = None,
              colour_of: dict[str, str] | None = None) -> CardView:
    assert cell.card is not None, "card_view is for cells that carry a card"
    types = _types(model)
    src = model.sources.get(cell.source)
    topic = model.topics.get(clause.topic)
    aspect = topic.aspect(clause.aspect) if topic else None
    colour_of = colour_of or colours(model)
    return CardView(
        ruleset=cell.source, ruleset_name=src.label if src else cell.source,
        colour=colour_of.get(cell.source, PALETTE[-1]),
        title=" ".join(plain_text(cell.card.title or clause.title or clause.id, cell.params,
                                  types, model.tables).split()),
        text=plain_text(cell.card.text, cell.params, types, model.tables).strip(),
        status=cell.status, option=cell.option,
        topic=topic.title if topic else clause.topic,
        aspect=aspect.title if aspect else clause.aspect,
        clause_id=clause.id, link=permalink(clause.topic, clause.id, site_url),
        keys=key_numbers(cell.params, model.parameters), cell=cell)


def default_rules(model: Model) -> list[str]:
    """The rulesets printed when none is asked for: the revisions (kind ``revision``)."""
    return [k for k, s in model.sources.items() if s.kind == "revision"]


def rules_with_cards(model: Model) -> list[str]:
    """Every ruleset that has at least one card, in the order of the sources (the site prints
    them all)."""
    return [k for k in model.sources
            if any(c.cells.get(k) is not None and c.cells[k].card is not None
                   for c in model.clauses.values())]


def collect(model: Model, rules: list[str] | None = None, site_url: str | None = None) -> list[CardView]:
    """The cards of ``rules`` (default: the revisions), a set per ruleset in the order asked,
    each set in topic order, then the topic's aspect order.

    Clauses whose topic is unknown (``harmony check`` reports them) come last, by id.
    """
    rules = default_rules(model) if rules is None else rules
    site_url = resolve_site_url(site_url)
    colour_of = colours(model)
    ordered: list[Clause] = []
    for topic in model.topics_in_order():
        ordered.extend(model.clauses_of(topic.id))
    ordered.extend(sorted((c for c in model.clauses.values() if c.topic not in model.topics),
                          key=lambda c: c.id))
    cards = []
    for key in rules:
        for clause in ordered:
            cell = clause.cells.get(key)
            if cell is not None and cell.card is not None:
                cards.append(card_view(model, clause, cell, site_url, colour_of))
    return cards
