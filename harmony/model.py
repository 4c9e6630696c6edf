"""The clause model: sources, topics, clauses and their cells, with positions.

Built by :func:`harmony.loader.load` from validated YAML. Every object keeps
the file and the round-trip node it came from, so ``obj.pos("field")`` points
at the exact line and column of any of its values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import paramtypes
from .diagnostics import Pos
from .yamltree import node_pos, plain

STATUSES = ("rule", "optional", "tournament", "nil", "not-covered")
RELATIONS = ("restates", "amends", "replaces", "adds")
SOURCE_KINDS = ("canonical", "revision", "variant", "other-game", "commentary")


@dataclass
class Located:
    """Base of every model object: where it was read from."""

    file: str = field(default="", repr=False, compare=False)
    node: Any = field(default=None, repr=False, compare=False)

    def pos(self, *path: str | int, key: bool = False) -> Pos:
        return node_pos(self.file, self.node, tuple(path), key=key)


@dataclass
class Document(Located):
    """A document of a source (a rulebook's errata sheet, a magazine article), by its id."""

    id: str = ""
    title: str = ""
    version: str | None = None
    date: str | None = None


@dataclass
class Version(Located):
    """One version of a source (``versions:``), with its date and what changed in it."""

    version: str = ""
    date: str = ""
    note: str | None = None


@dataclass
class Source(Located):
    """A rulebook (or revision, variant, commentary) the clauses cite, by its key."""

    key: str = ""
    title: str = ""
    author: str = ""
    year: int = 0
    kind: str = "canonical"
    short: str | None = None
    publisher: str | None = None
    version: str | None = None
    date: str | None = None
    base: str | None = None
    summary: str | None = None
    documents: list[Document] = field(default_factory=list)
    versions: list[Version] = field(default_factory=list)
    #: the game that plays this rulebook (:mod:`harmony.game`); None: the harmony's
    game: str | None = None

    @property
    def label(self) -> str:
        return self.short or self.key

    @property
    def is_revision(self) -> bool:
        """A source that builds on another (REV and DB build on PB)."""
        return self.base is not None


@dataclass
class Identity(Located):
    """Who a harmony is (the top-level ``harmony:`` mapping, beside ``sources:``): its site's
    title and subtitle, its authors, copyright, the address the site is published at, its
    repository and the language of its pages. Every page, card and ``harmony --help`` names
    the harmony from here; a harmony that has none is a plain "Rules harmony".

    >>> Identity(title="Dice").copyright_line
    'the Dice authors'
    >>> Identity(title="Dice", authors=["Ann", "Bo"]).copyright_line
    'Ann, Bo'
    """

    title: str = "Rules harmony"
    subtitle: str | None = None
    authors: list[str] = field(default_factory=list)
    copyright: str | None = None
    url: str | None = None
    repository: str | None = None
    language: str = "en"

    @property
    def copyright_line(self) -> str:
        """What the site's footer says after the copyright sign."""
        return self.copyright or (", ".join(self.authors) if self.authors
                                  else f"the {self.title} authors")


@dataclass
class Aspect(Located):
    """One row of a topic's table: the aspect of the topic its clauses rule on."""

    id: str = ""
    title: str = ""
    summary: str | None = None


@dataclass
class Topic(Located):
    """A page of the harmony: its rulebooks side by side (``sources``), one row per aspect."""

    id: str = ""
    title: str = ""
    summary: str = ""
    order: int = 0
    sources: list[str] = field(default_factory=list)
    aspects: list[Aspect] = field(default_factory=list)

    def aspect(self, aspect_id: str) -> Aspect | None:
        return next((a for a in self.aspects if a.id == aspect_id), None)


@dataclass
class Citation(Located):
    """Where a text comes from: a source and a place in it (section, figure, table ...)."""

    source: str = ""
    document: str | None = None
    section: str | None = None
    figure: str | None = None
    footnote: str | None = None
    table: str | None = None
    page: str | None = None
    via: str | None = None

    def place(self) -> str:
        """The place in the document, e.g. 'section Recording, footnote 4'."""
        parts = []
        for name in ("section", "figure", "table", "footnote", "page"):
            value = getattr(self, name)
            if value:
                parts.append(value if name == "section" else f"{name} {value}")
        return ", ".join(parts)


@dataclass
class Relation(Located):
    """How a revision's cell stands to the clauses it revises (restates, amends, replaces, adds)."""

    type: str = ""
    clauses: list[str] = field(default_factory=list)


@dataclass
class Card(Located):
    """A cell's rule card: its title and short text."""

    title: str = ""
    text: str = ""


@dataclass
class NoCard(Located):
    """``card: {none: REASON, see: CLAUSE}``: why a rule has no card of its own."""

    none: str = ""
    see: str | None = None


@dataclass
class Unexercised(Located):
    """``exercised: {none: REASON}``: why no example or scenario ruling names a cell
    (pure procedure, or no engine concept yet), for ``harmony check --coverage``."""

    none: str = ""


@dataclass
class Change(Located):
    """``changed: {version, note}``: the version of its source a cell changed in, and how."""

    version: str = ""
    note: str = ""


@dataclass
class Cell(Located):
    """One rulebook's say on a clause: status, text, citations, parameters, card."""

    source: str = ""
    status: str = "not-covered"
    text: str | None = None
    cites: list[Citation] = field(default_factory=list)
    note: str | None = None
    option: str | None = None
    relation: Relation | None = None
    params: dict[str, Any] = field(default_factory=dict)
    card: Card | None = None
    no_card: NoCard | None = None
    #: why nothing exercises the cell (``exercised: {none: why}``), if it says
    unexercised: Unexercised | None = None
    changed: Change | None = None
    requires: list[str] = field(default_factory=list)
    clause_id: str = ""

    @property
    def covered(self) -> bool:
        return self.status != "not-covered"


@dataclass
class QA(Located):
    """A question a source answers about a clause, and its answer."""

    source: str = ""
    question: str = ""
    answer: str = ""
    cite: Citation | None = None


@dataclass
class Clause(Located):
    """One rule, set side by side: a cell per rulebook, in a topic's row (its aspect)."""

    id: str = ""
    topic: str = ""
    aspect: str = ""
    title: str | None = None
    cells: dict[str, Cell] = field(default_factory=dict)
    qa: list[QA] = field(default_factory=list)
    examples: str | None = None
    scenarios: list[str] = field(default_factory=list)


@dataclass
class Parameter(Located):
    """A typed value the engine reads, with the words readers see it in.

    ``label`` is its short reader-facing name, ``words`` the phrase for some of
    its values (keys as written in YAML: ``0``, ``true``, ``"1/2"``, an enum
    value or, for a list, an item), ``key_number`` whether cards print it among
    their key numbers (unset: its type decides; see :mod:`harmony.paramtypes`).

    >>> p = Parameter(name="opfire.per-target-per-phase", type="int",
    ...               label="Attacks on one mover, per phase", words={"0": "no limit"})
    >>> p.phrase(0), p.phrase(2), p.sentence({"PL": 0, "REV": 1})
    ('no limit', '2', 'Attacks on one mover, per phase: PL no limit, REV 1')
    """

    name: str = ""
    type: str = "bool"
    values: list[str] | None = None
    label: str | None = None
    words: dict[str, str] | None = None
    key_number: bool | None = None
    description: str = ""
    default: Any = None
    requires: list[str] = field(default_factory=list)

    def phrase(self, value: Any) -> str:
        """One value as readers see it: the parameter's own words, else its type's rendering."""
        return paramtypes.phrase(self, value)

    def sentence(self, values: dict[str, Any]) -> str:
        """The label and the value in each ruleset: ``Trucks may spot: PB yes, PL no``."""
        return paramtypes.sentence(self, values)


@dataclass
class Term(Located):
    """A glossary term, with its definition and the aliases links may use."""

    term: str = ""
    definition: str = ""
    aliases: list[str] = field(default_factory=list)
    cite: Citation | None = None

    @property
    def anchor(self) -> str:
        return "term-" + "-".join(self.term.lower().split())


@dataclass
class Footnote(Located):
    """A footnote a text marks (``[^id]``), from a source."""

    id: str = ""
    source: str = ""
    text: str = ""
    cite: Citation | None = None


@dataclass
class Note(Located):
    """A note on a topic, from a source."""

    id: str = ""
    source: str = ""
    topic: str = ""
    title: str = ""
    text: str = ""
    cite: Citation | None = None


#: Units a table column may carry: (singular, plural), as printed after a value.
UNITS = {"inches": ("inch", "inches"), "shifts": ("shift", "shifts"),
         "reshuffles": ("reshuffle", "reshuffles"), "hits": ("hit", "hits"),
         "places": ("place", "places")}


@dataclass
class TableColumn(Located):
    """One column of a table: its id, title, the type of its values and their unit."""

    id: str = ""
    title: str = ""
    type: str = "text"
    unit: str | None = None
    values: list[str] | None = None
    optional: bool = False


@dataclass
class Table(Located):
    """A rulebook's table as typed data: ``rows`` map column ids to cells.

    A cell is an ``int``, text, a bool, ``None`` (left empty) or, in a ``range``
    column, ``{"min": ..., "max": ...}`` with ``None`` for an open end.

    A table the rulebook states in a section's prose, not as a numbered table, has no
    ``number``: its ``label`` is then its title, and its ``cite`` names the section.

    >>> t = Table(id="t", number="8", title="Bands", columns=[
    ...     TableColumn(id="spotter", type="key"), TableColumn(id="long", type="int", unit="inches")],
    ...     rows=[{"spotter": "dismounted", "long": 80}])
    >>> t.value("dismounted", "long"), t.shown("dismounted", "long"), t.label
    (80, '80 inches', 'Table 8')
    >>> t.value("mounted", "long")
    Traceback (most recent call last):
    ...
    KeyError: "table 't' has no row 'mounted' (its rows: dismounted)"
    >>> Table(id="h", title="Horse or rider", cite=Citation(source="CP", section="7.10.2")).label
    'Horse or rider'
    """

    id: str = ""
    source: str = ""
    number: str = ""
    title: str = ""
    cite: Citation | None = None
    summary: str | None = None
    columns: list[TableColumn] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``Table 8`` for a numbered table, else its title."""
        return f"Table {self.number}" if self.number else self.title

    @property
    def caption(self) -> str:
        """The heading a reader sees: ``Table 8: Spotting range bands``, or the title alone."""
        return f"{self.label}: {self.title}" if self.number else self.title

    def cited_by(self, cite: Citation) -> bool:
        """True when ``cite`` names this table: by its number, or, for a table with no
        number, by the section it is stated in (a citation naming no table).

        >>> t = Table(source="CP", title="Horse", cite=Citation(source="CP", section="7.10.2"))
        >>> t.cited_by(Citation(source="CP", section="7.10.2")), t.cited_by(Citation(source="CP", section="7.10"))
        (True, False)
        >>> t.cited_by(Citation(source="CP", section="7.10.2", table="5"))
        False
        """
        if cite.source != self.source:
            return False
        if self.number:
            return str(cite.table or "") == self.number
        return (not cite.table and self.cite is not None and bool(cite.section)
                and cite.section == self.cite.section)

    @property
    def key(self) -> str | None:
        """The id of the column that names each row (type ``key``), if any."""
        return next((c.id for c in self.columns if c.type == "key"), None)

    def column(self, column_id: str) -> TableColumn | None:
        return next((c for c in self.columns if c.id == column_id), None)

    def row_ids(self) -> list[str]:
        key = self.key
        return [str(r.get(key)) for r in self.rows] if key else [str(i + 1) for i in range(len(self.rows))]

    def row(self, row_id: str) -> dict[str, Any]:
        """The row named ``row_id`` (its key cell, or its number from 1 when there is no key column)."""
        ids = self.row_ids()
        if str(row_id) not in ids:
            raise KeyError(f"table '{self.id}' has no row '{row_id}' (its rows: {', '.join(ids)})")
        return self.rows[ids.index(str(row_id))]

    def value(self, row_id: str, column_id: str) -> Any:
        """One cell's value; ``KeyError`` naming what is missing."""
        row = self.row(row_id)
        if self.column(column_id) is None:
            known = ", ".join(c.id for c in self.columns)
            raise KeyError(f"table '{self.id}' has no column '{column_id}' (its columns: {known})")
        return row.get(column_id)

    def shown(self, row_id: str, column_id: str) -> str:
        """One cell as a reader sees it, with its unit."""
        return show_cell(self.value(row_id, column_id), self.column(column_id))


def show_cell(value: Any, column: TableColumn | None) -> str:
    """A table cell in words: ``80 inches``, ``3 or less``, ``5 or more``, ``-`` when empty.

    >>> show_cell({"min": None, "max": 3}, TableColumn(type="range")), show_cell(None, None)
    ('3 or less', '\u2013')
    >>> show_cell(1, TableColumn(type="int", unit="shifts")), show_cell(True, TableColumn(type="bool"))
    ('1 shift', 'yes')
    """
    if value is None:
        return "\u2013"
    unit = UNITS.get(column.unit) if column is not None and column.unit else None
    if isinstance(value, dict):
        lo, hi = value.get("min"), value.get("max")
        if lo is None and hi is None:
            text = "any"
        elif lo is None:
            text = f"{hi} or less"
        elif hi is None:
            text = f"{lo} or more"
        else:
            text = str(lo) if lo == hi else f"{lo} to {hi}"
        return f"{text} {unit[1]}" if unit else text
    if isinstance(value, bool):
        return "yes" if value else "no"
    if column is not None and column.type == "key" and isinstance(value, str):
        return value.replace("-", " ").capitalize()
    if unit and isinstance(value, int):
        return f"{value} {unit[0] if value == 1 else unit[1]}"
    return str(value)


@dataclass
class ComparisonCell(Located):
    """What one system says on one aspect of a :class:`Comparison`: the clause cells whose
    text says it (``refs``, written ``from:`` as ``clause-id@SOURCE``), with an optional
    ``summary`` in our own words; or ``status: not-covered`` and a ``note`` saying why."""

    system: str = ""
    refs: list[str] = field(default_factory=list)
    summary: str | None = None
    status: str | None = None
    note: str | None = None

    @property
    def covered(self) -> bool:
        return self.status != "not-covered"


@dataclass
class ComparisonAspect(Located):
    """One row of a comparison: a question, and each system's answer (``cells`` by source)."""

    id: str = ""
    title: str = ""
    summary: str | None = None
    cells: dict[str, ComparisonCell] = field(default_factory=dict)


@dataclass
class Comparison(Located):
    """Several systems (rulebooks, even of other games) set side by side on a few aspects.

    >>> c = Comparison(id="x", systems=["PB", "CP"], aspects=[ComparisonAspect(id="night", cells={
    ...     "PB": ComparisonCell(system="PB", status="not-covered", note="No night rules."),
    ...     "CP": ComparisonCell(system="CP", refs=["cp-night.seen@CP"])})])
    >>> [(k, cell.covered, cell.refs) for k, cell in c.aspect("night").cells.items()]
    [('PB', False, []), ('CP', True, ['cp-night.seen@CP'])]
    """

    id: str = ""
    title: str = ""
    summary: str | None = None
    systems: list[str] = field(default_factory=list)
    aspects: list[ComparisonAspect] = field(default_factory=list)

    def aspect(self, aspect_id: str) -> ComparisonAspect | None:
        return next((a for a in self.aspects if a.id == aspect_id), None)


@dataclass
class Scenario(Located):
    """A worked example; ``data`` is the plain mapping the engine reads."""

    id: str = ""
    title: str = ""
    data: dict = field(default_factory=dict)

    def pos(self, *path: str | int, key: bool = False) -> Pos:
        """As :meth:`Located.pos`, remembering the walk to each parent: reading a scenario's
        steps asks for the places of hundreds of its values, most of them siblings."""
        memo = self.__dict__.setdefault("_walked", {})
        return node_pos(self.file, self.node, tuple(path), key=key, memo=memo)


@dataclass
class Model:
    """Everything read from one rules_data folder."""

    root: str = ""
    sources: dict[str, Source] = field(default_factory=dict)
    topics: dict[str, Topic] = field(default_factory=dict)
    clauses: dict[str, Clause] = field(default_factory=dict)
    parameters: dict[str, Parameter] = field(default_factory=dict)
    glossary: dict[str, Term] = field(default_factory=dict)
    footnotes: dict[str, Footnote] = field(default_factory=dict)
    notes: dict[str, Note] = field(default_factory=dict)
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    comparisons: dict[str, Comparison] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    #: the game of the harmony's rulebooks (the top-level ``game:``; :mod:`harmony.game`)
    game: str | None = None
    game_pos: Pos | None = None
    #: who the harmony is (the top-level ``harmony:``); :class:`Identity` defaults without one
    identity: Identity = field(default_factory=Identity)
    #: a second ``harmony:`` mapping, read after the first (``harmony check`` reports it)
    identity_again: Identity | None = None
    #: objects whose id repeated one already read: (kind, first, duplicate)
    duplicates: list[tuple[str, Located, Located]] = field(default_factory=list)

    def topics_in_order(self) -> list[Topic]:
        return sorted(self.topics.values(), key=lambda t: (t.order, t.id))

    def clauses_of(self, topic_id: str, aspect_id: str | None = None) -> list[Clause]:
        """Clauses of a topic (optionally one row), in the topic's aspect order."""
        topic = self.topics.get(topic_id)
        order = {a.id: i for i, a in enumerate(topic.aspects)} if topic else {}
        found = [c for c in self._by_topic().get(topic_id, ())
                 if aspect_id is None or c.aspect == aspect_id]
        return sorted(found, key=lambda c: (order.get(c.aspect, len(order)), c.file, c.pos().line))

    def _by_topic(self) -> dict[str, list[Clause]]:
        """The clauses of each topic, in the order read: indexed once, and again when the
        clauses are another dict or another number (every page and card set asks for every
        topic's clauses: scanning all clauses each time was quadratic in the data)."""
        stamp = (id(self.clauses), len(self.clauses))
        known = self.__dict__.get("_topic_index")
        if known is None or known[0] != stamp:
            index: dict[str, list[Clause]] = {}
            for c in self.clauses.values():
                index.setdefault(c.topic, []).append(c)
            known = self.__dict__["_topic_index"] = (stamp, index)
        return known[1]

    def term(self, name: str) -> Term | None:
        """A glossary term by its name or an alias, ignoring case (the first in the
        glossary's order that answers to it; the names indexed once, and again when the
        glossary is another dict or another size, as :meth:`clauses_of` indexes topics)."""
        stamp = (id(self.glossary), len(self.glossary))
        known = self.__dict__.get("_term_index")
        if known is None or known[0] != stamp:
            index: dict[str, Term] = {}
            for t in self.glossary.values():
                for n in (t.term, *t.aliases):
                    index.setdefault(str(n).lower(), t)
            known = self.__dict__["_term_index"] = (stamp, index)
        return known[1].get(" ".join(name.lower().split()))

    def table(self, source: str, number: str) -> Table | None:
        """A numbered table: ``model.table("CP", "6")`` (a table with no number is found
        by its id, ``model.tables[id]``, or by a citation of its section, :meth:`cited_tables`)."""
        return next((t for t in self.tables.values()
                     if t.number and t.source == source and t.number == str(number)), None)

    def cited_tables(self, cites: list[Citation]) -> list[Table]:
        """The tables some citations name (:meth:`Table.cited_by`), in order of first citation."""
        out: dict[str, Table] = {}
        for c in cites:
            for t in self.tables.values():
                if t.cited_by(c):
                    out.setdefault(t.id, t)
        return list(out.values())

    def cell(self, ref: str) -> Cell | None:
        """A cell by ``clause-id@SOURCE``."""
        cid, _, src = ref.partition("@")
        clause = self.clauses.get(cid)
        return clause.cells.get(src) if clause else None


# ---------------------------------------------------------------- building

_FIELD_NAMES: dict[type, dict[str, str | None]] = {}


def _fields(cls, node, file: str, **extra):
    """Instantiate ``cls`` from a mapping node, copying the plain values of its known fields
    (a key names the field it spells with '-' for '_': ``clause-id``, ``clause_id``)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = {}
    fields = cls.__dataclass_fields__
    values = {}
    for k, v in node.items():
        name = names.get(k, "")
        if name == "":        # a key not seen yet for this class: which field, if any
            name = names[k] = k.replace("-", "_")
            if name not in fields or name in ("file", "node"):
                name = names[k] = None
        if name is not None:
            values[name] = plain(v)
    values.update(extra)
    return cls(file=file, node=node, **values)


def _citation(node, file: str) -> Citation | None:
    return _fields(Citation, node, file) if isinstance(node, dict) else None


def _citations(node, file: str) -> list[Citation]:
    if node is None:
        return []
    if isinstance(node, list):
        return [_fields(Citation, n, file) for n in node if isinstance(n, dict)]
    c = _citation(node, file)
    return [c] if c else []


def build_cell(source: str, node, file: str, clause_id: str, parent=None) -> Cell:
    if not isinstance(node, dict):  # shorthand: "not-covered"
        cell = Cell(file=file, node=parent, source=source, status=str(node), clause_id=clause_id)
        return cell
    rel = node.get("relation")
    card = node.get("card")
    changed = node.get("changed")
    exercised = node.get("exercised")
    return Cell(
        file=file, node=node, source=source, clause_id=clause_id,
        status=str(node.get("status", "not-covered")),
        text=plain(node.get("text")), note=plain(node.get("note")), option=plain(node.get("option")),
        cites=_citations(node.get("cite"), file),
        relation=_fields(Relation, rel, file) if isinstance(rel, dict) else None,
        params=plain(node.get("params") or {}),
        card=_fields(Card, card, file) if isinstance(card, dict) and "none" not in card else None,
        no_card=_fields(NoCard, card, file) if isinstance(card, dict) and "none" in card else None,
        unexercised=_fields(Unexercised, exercised, file) if isinstance(exercised, dict) else None,
        changed=_fields(Change, changed, file) if isinstance(changed, dict) else None,
        requires=plain(node.get("requires") or []),
    )


def build_clause(node, file: str) -> Clause:
    cid = plain(node.get("id"))
    cells_node = node.get("cells") or {}
    cells = {}
    for src, cnode in cells_node.items():
        cell = build_cell(str(src), cnode, file, cid, parent=cells_node)
        if not isinstance(cnode, dict):
            cell.node = _Pointer(cells_node, str(src))
        cells[str(src)] = cell
    qa = [QA(file=file, node=q, source=plain(q.get("source")), question=plain(q.get("question")),
             answer=plain(q.get("answer")), cite=_citation(q.get("cite"), file))
          for q in node.get("qa") or [] if isinstance(q, dict)]
    return Clause(file=file, node=node, id=cid, topic=plain(node.get("topic")),
                  aspect=plain(node.get("aspect")), title=plain(node.get("title")),
                  cells=cells, qa=qa, examples=plain(node.get("examples")),
                  scenarios=plain(node.get("scenarios") or []))


class _Pointer(dict):
    """Stands in for a shorthand cell's node: positions resolve to the value in its parent."""

    def __init__(self, parent, key):
        super().__init__()
        self.parent, self.key = parent, key

    @property
    def lc(self):
        line, col = self.parent.lc.value(self.key)
        return _LC(line, col)


class _LC:
    def __init__(self, line, col):
        self.line, self.col = line, col

    def key(self, k):
        raise KeyError(k)

    value = key


def build_source(node, file: str) -> Source:
    docs = [_fields(Document, d, file) for d in node.get("documents") or [] if isinstance(d, dict)]
    versions = [_fields(Version, v, file) for v in node.get("versions") or [] if isinstance(v, dict)]
    return _fields(Source, node, file, documents=docs, versions=versions)


def build_topic(node, file: str) -> Topic:
    aspects = [_fields(Aspect, a, file) for a in node.get("aspects") or [] if isinstance(a, dict)]
    return _fields(Topic, node, file, aspects=aspects)


def build_table(node, file: str) -> Table:
    columns = [_fields(TableColumn, c, file) for c in node.get("columns") or [] if isinstance(c, dict)]
    return _fields(Table, node, file, columns=columns, cite=_citation(node.get("cite"), file),
                   rows=[plain(r) for r in node.get("rows") or [] if isinstance(r, dict)],
                   notes=plain(node.get("notes") or []))


def build_comparison(node, file: str) -> Comparison:
    aspects = []
    for a in node.get("aspects") or []:
        if not isinstance(a, dict):
            continue
        cells_node = a.get("cells") or {}
        cells = {str(k): ComparisonCell(file=file, node=c, system=str(k),
                                        refs=[str(r) for r in plain(c.get("from") or [])],
                                        summary=plain(c.get("summary")), status=plain(c.get("status")),
                                        note=plain(c.get("note")))
                 for k, c in cells_node.items() if isinstance(c, dict)}
        aspects.append(_fields(ComparisonAspect, a, file, cells=cells))
    return _fields(Comparison, node, file, aspects=aspects)


def add_document(model: Model, tree, file: str) -> None:
    """Merge one validated file into the model, noting repeated ids."""
    def put(kind: str, table: dict, key: str, obj: Located) -> None:
        if key in table:
            model.duplicates.append((kind, table[key], obj))
        else:
            table[key] = obj

    for node in tree.get("sources") or []:
        s = build_source(node, file)
        put("source", model.sources, s.key, s)
    for node in tree.get("topics") or []:
        t = build_topic(node, file)
        put("topic", model.topics, t.id, t)
    for node in tree.get("clauses") or []:
        c = build_clause(node, file)
        put("clause", model.clauses, c.id, c)
    for node in tree.get("parameters") or []:
        p = _fields(Parameter, node, file)
        put("parameter", model.parameters, p.name, p)
    for node in tree.get("glossary") or []:
        t = _fields(Term, node, file, cite=_citation(node.get("cite"), file))
        put("glossary term", model.glossary, t.term.lower(), t)
    for node in tree.get("footnotes") or []:
        f = _fields(Footnote, node, file, cite=_citation(node.get("cite"), file))
        put("footnote", model.footnotes, f.id, f)
    for node in tree.get("notes") or []:
        n = _fields(Note, node, file, cite=_citation(node.get("cite"), file))
        put("note", model.notes, n.id, n)
    for node in tree.get("tables") or []:
        table = build_table(node, file)
        put("table", model.tables, table.id, table)
    for node in tree.get("comparisons") or []:
        comparison = build_comparison(node, file)
        put("comparison", model.comparisons, comparison.id, comparison)
    who = tree.get("harmony")
    if isinstance(who, dict):
        if model.identity.node is None:
            model.identity = _fields(Identity, who, file)
        elif model.identity_again is None:
            model.identity_again = _fields(Identity, who, file)
    game = tree.get("game")
    if isinstance(game, str) and model.game is None:
        model.game, model.game_pos = game, node_pos(file, tree, ("game",))
    sc = tree.get("scenario")
    if isinstance(sc, dict):
        scen = Scenario(file=file, node=sc, id=plain(sc.get("id")), title=plain(sc.get("title")),
                        data=plain(sc))
        put("scenario", model.scenarios, scen.id, scen)
