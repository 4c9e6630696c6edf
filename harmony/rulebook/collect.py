"""What a ruleset's rulebook holds, read from the model: its title page, its sections (one per
topic, in the order of play), each rule in full with its status and citations, the figures of
the examples that draw a position, its glossary and markers, and, for a revision, what it
changes in the rulebook it revises.

The order of play is the topics' order in the model (``order:`` in topics.yaml): the data
names no sequence of play that orders topics. Within a topic, the standard rules come first
in the topic's aspect order, then the optional rules, grouped by option, then the tournament
rules. A cell that states nothing (``nil`` without text, ``not-covered``) is not a rule: it
is listed at the back, among what the rulebook leaves out, so each cell is printed once.

>>> from harmony.model import Cell, Relation
>>> change_of(Cell(status="rule", relation=Relation(type="adds")), None)
'new'
>>> change_of(Cell(status="rule", relation=Relation(type="restates")), Cell(status="rule"))
>>> change_of(Cell(status="rule", text="b"), Cell(status="rule", text="a"))
'changed'
>>> change_of(Cell(status="rule", text="b"), Cell(status="nil"))
'new'
>>> status_words("optional", "cavalry"), status_words("nil", None)
('Optional rule (cavalry)', 'Not in these rules')
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from ..consistency import current_version
from ..markup import marks
from ..model import Cell, Clause, Model, Source, Term

#: a scenario's drawings come from the game that plays it (:mod:`harmony.game`), never from
#: an engine's module: the core imports no game
from .. import game

#: Statuses printed as rules in the body, in the order a topic groups them.
PRINTED = ("rule", "optional", "tournament")
#: The word and symbol of each status a reader sees (never colour alone).
STATUS_WORDS = {"rule": "Rule", "optional": "Optional rule", "tournament": "Tournament rule",
                "nil": "Not in these rules", "not-covered": "Not covered by the harmony"}
STATUS_SYMBOLS = {"rule": "", "optional": "\u25c7", "tournament": "\u2605", "nil": "\u2205",
                  "not-covered": "?"}


def status_words(status: str, option: str | None) -> str:
    """A cell's status in words, with its option's name."""
    words = STATUS_WORDS.get(status, status)
    return f"{words} ({option})" if option else words


@dataclass
class Cite:
    """One citation, as a footnote prints it."""

    text: str


@dataclass
class Rule:
    """One cell printed in full."""

    number: str          # e.g. "3.2"
    anchor: str
    clause_id: str
    title: str
    aspect: str
    status: str
    status_words: str
    symbol: str
    option: str | None
    text: str            # the cell's text, with its markup (the renderer resolves it)
    note: str | None
    cites: list[Cite]
    params: dict
    change: str | None = None        # new | changed (a revision's cell against its base's)
    change_note: str | None = None   # the cell's ``changed`` record, if any
    relation: str | None = None      # e.g. "amends markers.removal@PL"
    figures: list[Figure] = field(default_factory=list)


@dataclass
class Figure:
    number: int
    anchor: str
    svg: str
    caption: str
    scenario: str


@dataclass
class Group:
    """The rules of a topic of one status (and option): standard, optional, tournament."""

    title: str | None     # None for the standard rules
    anchor: str
    status: str
    rules: list[Rule]


@dataclass
class Section:
    number: int
    id: str
    anchor: str
    title: str
    summary: str
    groups: list[Group]

    @property
    def rules(self) -> list[Rule]:
        return [r for g in self.groups for r in g.rules]


@dataclass
class Omitted:
    """A cell that states no rule: listed at the back, never printed as a rule."""

    clause_id: str
    topic: str
    title: str
    status: str
    status_words: str
    note: str | None


@dataclass
class Change:
    clause_id: str
    number: str
    anchor: str
    title: str
    change: str
    relation: str | None
    note: str | None


@dataclass
class GlossaryEntry:
    term: str
    anchor: str
    definition: str


@dataclass
class Rulebook:
    key: str
    title: str
    short: str
    author: str | None
    publisher: str | None
    year: int | None
    date: str | None
    version: str | None
    last_change: str | None   # date of the last version whose changes these cells record
    cells_hash: str
    base: str | None           # the key of the rulebook it revises
    base_title: str | None
    summary: str | None
    documents: list[dict]
    sections: list[Section]
    omitted: list[Omitted]
    changes: list[Change]
    glossary: list[GlossaryEntry]
    markers: list[GlossaryEntry]
    footnotes: dict[str, str]  # footnote id -> text (with markup)
    terms: dict[str, str]      # a term or alias, lower case -> its glossary anchor

    @property
    def rules(self) -> list[Rule]:
        return [r for s in self.sections for r in s.rules]


def rulesets(model: Model) -> list[str]:
    """The rulesets that get a rulebook: every source with a cell stating a rule, in the order
    the sources are declared (a commentary with no cells gets none).

    >>> from harmony.model import Clause, Source
    >>> m = Model(sources={"A": Source(key="A"), "B": Source(key="B")},
    ...           clauses={"c": Clause(id="c", cells={"B": Cell(status="rule", text="t")})})
    >>> rulesets(m)
    ['B']
    """
    return [k for k in model.sources
            if any(_printed(c.cells.get(k)) for c in model.clauses.values())]


def _printed(cell: Cell | None) -> bool:
    return cell is not None and (cell.status in PRINTED or cell.status == "nil" and bool(cell.text))


def change_of(cell: Cell, base: Cell | None) -> str | None:
    """``new`` or ``changed`` for a revision's cell against the revised rulebook's cell, or
    None when it restates it. The cell's ``relation`` decides; without one, the base cell."""
    if cell.relation is not None:
        return {"adds": "new", "amends": "changed", "replaces": "changed"}.get(cell.relation.type)
    if base is None or base.status in ("nil", "not-covered"):
        return "new"
    if " ".join((base.text or "").split()) == " ".join((cell.text or "").split()):
        return None
    return "changed"


def cite_text(model: Model, cite) -> str:
    """A citation in words: the document, its author, the place, and the page it was read
    through (``via``)."""
    src = model.sources.get(cite.source)
    title = src.title if src else cite.source
    if src and cite.document:
        title = next((d.title for d in src.documents if d.id == cite.document), cite.document)
    parts = [title]
    if src and src.author and cite.document:
        parts.append(src.author)
    place = cite.place()
    if place:
        parts.append(place)
    text = ", ".join(parts)
    if cite.via:
        via = model.sources.get(cite.via)
        text += f" (as set out in {via.title if via else cite.via})"
    return text + "."


def cells_hash(model: Model, key: str) -> str:
    """A short hash of every cell of ruleset ``key``: what a printed copy was made from.

    >>> from harmony.model import Clause
    >>> m = Model(clauses={"c": Clause(id="c", cells={"A": Cell(status="rule", text="t")})})
    >>> h = cells_hash(m, "A"); len(h), h == cells_hash(m, "A")
    (12, True)
    >>> m.clauses["c"].cells["A"].text = "u"; cells_hash(m, "A") == h
    False
    """
    items = []
    for cid in sorted(model.clauses):
        cell = model.clauses[cid].cells.get(key)
        if cell is None:
            continue
        items.append([cid, cell.status, cell.text, cell.note, cell.option,
                      [[c.source, c.document, c.place(), c.via] for c in cell.cites],
                      cell.params, cell.relation.type if cell.relation else None,
                      list(cell.relation.clauses) if cell.relation else None,
                      [cell.changed.version, cell.changed.note] if cell.changed else None])
    blob = json.dumps(items, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def last_change(model: Model, src: Source) -> str | None:
    """The date of the last version of ``src`` whose changes its cells record (``changed:``),
    else of its first version (cells without a change record date from it); None when the
    source lists no dated versions."""
    if not src.versions:
        return None
    named = set()
    for clause in model.clauses.values():
        change = clause.cells[src.key].changed if src.key in clause.cells else None
        if change is not None:
            named.add(change.version)
    current = current_version(src)
    dated = [v for v in src.versions if v.date]
    last = dated[0] if dated else None
    for v in dated:
        if v.version in named:
            last = v
        if v.version == current:
            break
    return last.date if last else None


def _ordered(model: Model, topic_id: str, key: str) -> list[tuple[Clause, Cell]]:
    return [(c, c.cells[key]) for c in model.clauses_of(topic_id) if key in c.cells]


def _groups(rules: list[Rule], anchor: str) -> list[Group]:
    groups = [Group(None, f"{anchor}-rules", "rule", [r for r in rules if r.status in ("rule", "nil")])]
    options: dict[str | None, list[Rule]] = {}
    for r in rules:
        if r.status == "optional":
            options.setdefault(r.option, []).append(r)
    for option, members in options.items():
        title = f"Optional rule: {option}" if option else "Optional rules"
        groups.append(Group(title, f"{anchor}-optional-{option or 'all'}", "optional", members))
    tournament = [r for r in rules if r.status == "tournament"]
    if tournament:
        groups.append(Group("Tournament rules", f"{anchor}-tournament", "tournament", tournament))
    return [g for g in groups if g.rules]


def collect(model: Model, key: str) -> Rulebook:
    """The rulebook of ruleset ``key`` (a source of ``model``)."""
    src = model.sources[key]
    base = model.sources.get(src.base) if src.base else None
    # scenarios played under this ruleset, each drawn at the first of its clauses in the book
    scen: list[tuple[str, list[str]]] = []
    for sid in sorted(model.scenarios):
        sc = model.scenarios[sid]
        played = [str(r) for r in sc.data.get("rulesets") or []]
        if any(r == key or r.startswith(key + "+") for r in played):
            named = [str(c) for c in sc.data.get("clauses") or []]
            named += sorted(c.id for c in model.clauses.values()
                            if sid in c.scenarios and c.id not in named)
            scen.append((sid, named))
    sections: list[Section] = []
    omitted: list[Omitted] = []
    changes: list[Change] = []
    drawn: set[str] = set()
    figure_no = 0
    number = 0
    topics = model.topics_in_order()
    known = {t.id for t in topics}
    strays = sorted({c.topic for c in model.clauses.values() if c.topic not in known})
    for topic_id in [t.id for t in topics] + strays:
        topic = model.topics.get(topic_id)
        title = topic.title if topic else topic_id
        pairs = _ordered(model, topic_id, key)
        printed = [(c, cell) for c, cell in pairs if _printed(cell)]
        for c, cell in pairs:
            if not _printed(cell):
                omitted.append(Omitted(c.id, title, c.title or c.id, cell.status,
                                       STATUS_WORDS.get(cell.status, cell.status), cell.note))
        if not printed:
            continue
        number += 1
        anchor = f"s-{topic_id}"
        rank = {"rule": 0, "nil": 0, "optional": 1, "tournament": 2}
        options: list[str | None] = []
        for _, cell in printed:
            if cell.status == "optional" and cell.option not in options:
                options.append(cell.option)
        printed.sort(key=lambda p: (rank[p[1].status], options.index(p[1].option)
                                    if p[1].status == "optional" else 0))
        rules: list[Rule] = []
        for i, (c, cell) in enumerate(printed, 1):
            aspect = topic.aspect(c.aspect) if topic else None
            rule = Rule(
                number=f"{number}.{i}", anchor=f"r-{c.id}", clause_id=c.id,
                title=c.title or (aspect.title if aspect else c.id),
                aspect=aspect.title if aspect else c.aspect, status=cell.status,
                status_words=status_words(cell.status, cell.option),
                symbol=STATUS_SYMBOLS.get(cell.status, ""), option=cell.option,
                text=cell.text or "", note=cell.note,
                cites=[Cite(cite_text(model, ct)) for ct in cell.cites], params=cell.params,
                change_note=cell.changed.note if cell.changed else None,
                relation=(f"{cell.relation.type} {', '.join(cell.relation.clauses)}"
                          if cell.relation else None))
            if base is not None:
                rule.change = change_of(cell, c.cells.get(base.key))
                if rule.change:
                    changes.append(Change(c.id, rule.number, rule.anchor, rule.title, rule.change,
                                          rule.relation, rule.change_note))
            for sid, named in scen:   # a position is drawn beside a rule, not beside "none"
                if sid not in drawn and c.id in named and cell.status in PRINTED:
                    drawn.add(sid)
                    svg = setup_drawing(model, sid)
                    if svg is None:
                        continue
                    figure_no += 1
                    sc = model.scenarios[sid]
                    rule.figures.append(Figure(figure_no, f"fig-{sid}", svg, caption(sc.title), sid))
            rules.append(rule)
        sections.append(Section(number, topic_id, anchor, title, topic.summary if topic else "",
                                _groups(rules, anchor)))
    texts = [t for s in sections for r in s.rules for t in (r.text, r.note)]
    footnotes: dict[str, str] = {}
    for text in texts:
        for m in marks(text):
            if m.kind == "footnote" and m.target in model.footnotes:
                footnotes.setdefault(m.target, model.footnotes[m.target].text)
    glossary = _glossary(model, texts + list(footnotes.values()))
    markers = [g for g in glossary if is_marker(model.term(g.term))]
    terms: dict[str, str] = {}
    for g in glossary:
        t = model.term(g.term)
        assert t is not None
        for name in [t.term] + list(t.aliases):
            terms[" ".join(name.lower().split())] = g.anchor
    return Rulebook(
        key=key, title=src.title, short=src.label, author=src.author or None,
        publisher=src.publisher, year=src.year or None, date=src.date,
        version=current_version(src), last_change=last_change(model, src),
        cells_hash=cells_hash(model, key), base=base.key if base else None,
        base_title=base.title if base else None, summary=src.summary,
        documents=[{"title": d.title, "version": d.version, "date": d.date} for d in src.documents],
        sections=sections, omitted=omitted, changes=changes, glossary=glossary, markers=markers,
        footnotes=footnotes, terms=terms)


def setup_drawing(model: Model, sid: str) -> str | None:
    """The first figure its game draws of scenario ``sid`` (the position at the start), as
    SVG; None when its game draws none."""
    sc = model.scenarios[sid]
    try:
        played_by = game.scenario_game(model, sc)
        if played_by.draw is None:
            return None
        figures = played_by.draw(sc, game.played(model, sid)).get("figures") or []
    except game.GameError:
        return None
    return str(figures[0]["svg"]) if figures and figures[0].get("svg") else None


def caption(title: str) -> str:
    """A figure's caption from its scenario's title, without the title's own figure number.

    >>> caption("Figure 1: the Hetzer slips past"), caption("Overrun")
    ('The Hetzer slips past: the position at the start.', 'Overrun: the position at the start.')
    """
    title = re.sub(r"^Figure\s+\S+?:\s*", "", " ".join(title.split()))
    return f"{title[:1].upper()}{title[1:]}: the position at the start."


def is_marker(term: Term | None) -> bool:
    """Whether a glossary term names a marker or counter (by its name or an alias): the
    rulebook lists those again under Markers.

    >>> is_marker(Term(term="opportunity spotted", aliases=["opportunity spotted marker"]))
    True
    >>> is_marker(Term(term="line of sight"))
    False
    """
    names = [term.term] + list(term.aliases) if term is not None else []
    return any(w in n.lower().split() for n in names for w in ("marker", "counter", "markers",
                                                                  "counters"))


def _glossary(model: Model, texts: list[str | None]) -> list[GlossaryEntry]:
    """The glossary terms the texts link, and the terms their definitions link, by name."""
    found: dict[str, Term] = {}
    todo = list(texts)
    while todo:
        text = todo.pop()
        for m in marks(text):
            if m.kind != "term":
                continue
            t = model.term(m.target)
            if t is not None and t.term.lower() not in found:
                found[t.term.lower()] = t
                todo.append(t.definition)
    return [GlossaryEntry(t.term, t.anchor, t.definition)
            for t in sorted(found.values(), key=lambda t: t.term.lower())]
