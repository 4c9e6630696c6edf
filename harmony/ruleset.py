"""Rulesets: every engine parameter resolved for one rulebook and its options.

A ruleset is named by a source key, optionally with options switched on:
``"REV"``, ``"PL+opportunity-fire"``, ``"REV+concealed-movement"``. Each
parameter of the registry (``rules_data/parameters.yaml``) is resolved, in
order of precedence:

1. the source's own cells that set it (an ``optional`` or ``tournament``
   cell only when its option is on; an enabled option's cell wins over a
   plain rule cell of the same source);
2. the same, for its base (REV and DB build on PB), then the base's base;
3. the parameter's declared ``default``. When an optional cell of the chain
   would set the parameter but its option is off, the default is kept and
   that cell's clause is named as the reason (origin ``option-off``). When
   the source has a cell (``not-covered``, ``nil`` or a rule that does not set
   it) in a row where other rulebooks set the parameter, that row's clause is
   named (origin ``silent``): the row where the rulebook says nothing of it (the first
   such row in the harmony's reading order: topics in order, a topic's rows in order).

Within one source, the cells are read in file order (file, then line): when
two cells of the same standing (two plain rule cells, or the cells of two
options both switched on) set the parameter, the first wins. ``harmony check``
refuses two cells of one source and one standing that set the same parameter
(``parameter-conflict``, ``parameter-set-twice``), so in checked rules only
cells of two different options, both switched on, meet that rule.
A parameter that no cell sets and that declares no default has no value in
the ruleset (:attr:`Setting.unset`).

Each value remembers the clause that set it (:class:`Setting`), so the engine
can say *why* it ruled as it did. The engine never looks at a ruleset's name.
This is the one place parameters are resolved: the engine, the checks
(:mod:`harmony.consistency`), the version pages and the site read rulesets
from here.

>>> rs = Ruleset.from_values("X", {"opfire.drm": 1, "opfire.range-fraction": "1/2"})
>>> rs["opfire.drm"], rs["opfire.range-fraction"]
(1, Fraction(1, 2))
>>> rs.setting("opfire.drm")
Setting(name='opfire.drm', value=1, clause='test.x', source='X', origin='own', cell='test.x@X')
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable

from . import paramtypes
from .diagnostics import Pos
from .model import Cell, Model

#: statuses whose cells apply only when their option is on
OPTIONAL = ("optional", "tournament")


@dataclass(frozen=True)
class Setting:
    """One resolved parameter and where its value came from."""

    name: str
    value: Any
    clause: str | None       # the clause id that set it; None for the declared default
    source: str | None       # the source whose cell set it (REV's base PB, say)
    origin: str              # own | base | default | option-off | silent (see _resolve)
    cell: str | None = None  # "clause-id@SOURCE"
    #: the cell itself (that set it, or that is off or silent), for positions and text
    at: Cell | None = field(default=None, repr=False, compare=False)
    #: no cell sets it and the registry declares no default: the ruleset has no value
    unset: bool = field(default=False, repr=False)

    @property
    def set_by_cell(self) -> bool:
        """Whether a cell of the ruleset (own or base) gives the value."""
        return self.origin in ("own", "base")


class RulesetError(ValueError):
    """An unknown source or option in a ruleset name."""


class UndeclaredParameter(RulesetError, KeyError):
    """A parameter the engine reads that rules_data does not declare: a problem of the
    data (a scenario step reports it at its position), still a ``KeyError`` to callers."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def parse_name(name: str) -> tuple[str, tuple[str, ...]]:
    """Split ``"REV+concealed-movement"`` into the source key and its options.

    >>> parse_name("REV+concealed-movement+revealed-movement")
    ('REV', ('concealed-movement', 'revealed-movement'))
    """
    key, *options = name.split("+")
    return key, tuple(options)


def base_chain(model: Model, key: str) -> list[str]:
    """The source and its bases, nearest first (stops on a cycle or an unknown source).

    >>> from harmony.model import Source
    >>> m = Model(sources={"PB": Source(key="PB"), "REV": Source(key="REV", base="PB")})
    >>> base_chain(m, "REV")
    ['REV', 'PB']
    """
    chain: list[str] = []
    cur: str | None = key
    while cur and cur in model.sources and cur not in chain:
        chain.append(cur)
        cur = model.sources[cur].base
    return chain


def options_of(model: Model, key: str) -> list[str]:
    """The options a ruleset of ``key`` may switch on: those its optional and tournament
    cells (and its bases') name."""
    chain = base_chain(model, key)
    by_source = _options_by_source(model)
    return sorted({o for src in chain for o in by_source.get(src, ())})


def _options_by_source(model: Model) -> dict[str, set[str]]:
    """Every option an optional or tournament cell names, by the cell's source; worked out
    once per model (kept on it, as :func:`ruleset_for` keeps rulesets)."""
    known = model.__dict__.get("_options_by_source")
    if known is None:
        known = {}
        for cl in model.clauses.values():
            for c in cl.cells.values():
                if c.option and c.status in OPTIONAL:
                    known.setdefault(c.source, set()).add(c.option)
        model.__dict__["_options_by_source"] = known
    return known


def _setters(model: Model) -> dict[str, list]:
    """Each parameter's clauses with a cell that sets it, in file and line order: no other
    clause can decide it, so resolving stays linear in the data. Worked out once per model
    (every ruleset shares it)."""
    known = model.__dict__.get("_setters")
    if known is None:
        known = {}
        clauses = sorted(model.clauses.values(), key=lambda c: (c.file, c.pos().line, c.id))
        for clause in clauses:
            for pname in {p for c in clause.cells.values() for p in (c.params or {})}:
                known.setdefault(pname, []).append(clause)
        model.__dict__["_setters"] = known
    return known


def _reading_order(model: Model) -> dict[str, list]:
    """:func:`_setters` in the order a reader meets the rows (topics in their order, a
    topic's rows in its aspects' order, then file and line): the row named for a rulebook
    that is silent on a parameter is the first such row a reader of the harmony reaches, so
    the topic about the parameter (movement, for the modes) comes before a variant's topic
    that also sets it for itself (Double-Blind's moving blind)."""
    known = model.__dict__.get("_reading_order")
    if known is None:
        topics = {t.id: i for i, t in enumerate(model.topics_in_order())}
        aspects = {(t.id, a.id): i for t in model.topics.values() for i, a in enumerate(t.aspects)}

        def place(c) -> tuple:
            return (topics.get(c.topic, len(topics)), aspects.get((c.topic, c.aspect), len(aspects)),
                    c.file, c.pos().line, c.id)
        known = {p: sorted(cs, key=place) for p, cs in _setters(model).items()}
        model.__dict__["_reading_order"] = known
    return known


def coerce(type_: str | None, value: Any) -> Any:
    """A parameter value in the engine's terms (fractions as :class:`Fraction`), as the
    type table :mod:`harmony.paramtypes` says.

    >>> coerce("fraction", "1/2"), coerce("list", None), coerce("modifier", -1)
    (Fraction(1, 2), [], -1)
    """
    return paramtypes.coerce(type_, value)


@dataclass
class Ruleset:
    """The parameters of one ruleset, each with the clause that set it."""

    name: str
    source: str
    options: tuple[str, ...] = ()
    settings: dict[str, Setting] = field(default_factory=dict)
    #: the chain of sources consulted, own first (["REV", "PB"])
    chain: tuple[str, ...] = ()

    # ------------------------------------------------------------ building
    @classmethod
    def from_model(cls, model: Model, name: str) -> "Ruleset":
        """Resolve every registered parameter for ``name`` (e.g. ``"REV+concealed-movement"``).

        Raises :class:`RulesetError` for an unknown source or an option that
        no cell of the source (or its bases) names.
        """
        key, options, chain = _named(model, name)
        setting, reading = _setters(model), _reading_order(model)
        settings: dict[str, Setting] = {}
        for pname, param in sorted(model.parameters.items()):
            settings[pname] = _resolve(pname, param.type, param.default, chain, options,
                                       setting.get(pname, []), reading.get(pname, []))
        return cls(name=name, source=key, options=options, settings=settings, chain=tuple(chain))

    @classmethod
    def from_values(cls, name: str, values: dict[str, Any], registry: Model | None = None,
                    clause: str = "test.x") -> "Ruleset":
        """A ruleset from plain values (for examples and tests): each value 'set' by ``clause``.

        Every other parameter of ``registry`` (a model: its ``parameters``)
        takes its declared default, with no clause behind it.
        """
        settings = {}
        for pname, param in sorted((registry.parameters if registry else {}).items()):
            settings[pname] = _resolve(pname, param.type, param.default, (), (), [])
        for pname, value in values.items():
            settings[pname] = Setting(pname, _guess(value), clause, name, "own", f"{clause}@{name}")
        return cls(name=name, source=name, settings=settings, chain=(name,))

    # ------------------------------------------------------------- reading
    def __getitem__(self, pname: str) -> Any:
        return self.setting(pname).value

    def setting(self, pname: str) -> Setting:
        try:
            return self.settings[pname]
        except KeyError:
            raise UndeclaredParameter(f"ruleset {self.name} has no parameter '{pname}' "
                           "(declare it in rules_data/parameters.yaml)") from None

    def get(self, pname: str, default: Any = None) -> Any:
        s = self.settings.get(pname)
        return default if s is None else s.value

    def clauses(self) -> list[str]:
        """Every clause that sets one of this ruleset's parameters."""
        return sorted({s.clause for s in self.settings.values() if s.clause})

    @functools.cached_property
    def digest(self) -> bytes:
        """A digest of everything this ruleset resolved (names, chain, and each setting's
        value, type and origin): what the remembered results of scenarios played under it
        are keyed by (:mod:`harmony.playcache`). Computed once; a ruleset is never changed
        once resolved."""
        h = hashlib.sha256(repr((self.name, self.source, self.options, self.chain)).encode() + b"\0")
        for name, s in sorted(self.settings.items()):
            h.update(repr((name, type(s.value).__name__, s.value, s.clause, s.source,
                           s.origin, s.cell, s.unset)).encode() + b"\0")
        return h.digest()

    def as_data(self) -> dict:
        """Plain data: parameter -> value and clause, for the site and tests."""
        return {n: {"value": str(s.value) if isinstance(s.value, Fraction) else s.value,
                    "clause": s.clause, "cell": s.cell, "origin": s.origin}
                for n, s in sorted(self.settings.items())}


def _guess(value: Any) -> Any:
    if isinstance(value, str) and "/" in value:
        try:
            return Fraction(value)
        except ValueError:
            return value
    return value


def _resolve(pname: str, ptype: str, default: Any, chain: Iterable[str], options: tuple[str, ...],
             clauses: list, silent_order: list | None = None) -> Setting:
    off = None   # the first optional cell of the chain that would set it, its option off
    for depth, src in enumerate(chain):
        plain_hit = option_hit = None
        for clause in clauses:
            cell = clause.cells.get(src)
            if cell is None or pname not in (cell.params or {}):
                continue
            if cell.status in OPTIONAL:
                if cell.option in options and option_hit is None:
                    option_hit = cell
                elif cell.option not in options and off is None:
                    off = (cell, src)
            elif plain_hit is None:
                plain_hit = cell
        hit = option_hit or plain_hit
        if hit is not None:
            return Setting(pname, coerce(ptype, hit.params[pname]), hit.clause_id, src,
                           "own" if depth == 0 else "base", f"{hit.clause_id}@{src}", hit)
    unset = default is None
    if off is not None:
        # Not set, because the optional rule that would set it is off: that clause decides.
        cell, src = off
        return Setting(pname, coerce(ptype, default), cell.clause_id, src, "option-off",
                       f"{cell.clause_id}@{src}", cell, unset)
    own = next(iter(chain), None)
    for clause in clauses if silent_order is None else silent_order:
        # The row where other rulebooks set it and this one says nothing (or "no such rule").
        cell = clause.cells.get(own)
        if cell is not None and any(pname in (c.params or {}) for c in clause.cells.values()):
            return Setting(pname, coerce(ptype, default), clause.id,
                           own, "silent", f"{clause.id}@{own}", cell, unset)
    return Setting(pname, coerce(ptype, default), None, None, "default", None, None, unset)


def _named(model: Model, name: str) -> tuple[str, tuple[str, ...], list[str]]:
    """The source key, options and base chain of ruleset ``name``; :class:`RulesetError`
    for an unknown source or option."""
    key, options = parse_name(name)
    if key not in model.sources:
        raise RulesetError(f"unknown ruleset source '{key}' (known: {', '.join(sorted(model.sources))})")
    known_options = options_of(model, key)
    for opt in options:
        if opt not in known_options:
            raise RulesetError(f"{key} has no option '{opt}' (its options: "
                               f"{', '.join(known_options) or 'none'})")
    return key, options, base_chain(model, key)


def setting_for(model: Model, name: str, pname: str) -> Setting:
    """``ruleset_for(model, name).setting(pname)``, resolving that one parameter only when
    the ruleset is not resolved yet (a check that reads a few parameters of many option
    combinations need not resolve every parameter of each).

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> m, _ = load(default_rules_data())
    >>> setting_for(m, "PL", "spot.adjacent") == Ruleset.from_model(m, "PL").setting("spot.adjacent")
    True
    """
    known = model.__dict__.get("_rulesets", {}).get(name)
    if known is not None:
        return known.setting(pname)
    _, options, chain = _named(model, name)
    param = model.parameters.get(pname)
    if param is None:
        raise UndeclaredParameter(f"ruleset {name} has no parameter '{pname}' "
                                  "(declare it in rules_data/parameters.yaml)")
    return _resolve(pname, param.type, param.default, chain, options, _setters(model).get(pname, []),
                    _reading_order(model).get(pname, []))


def ruleset_for(model: Model, name: str) -> Ruleset:
    """``Ruleset.from_model``, cached on the model itself: the cache lives and dies with
    the model it was computed from, so a model loaded later never sees stale rulesets."""
    cache = model.__dict__.setdefault("_rulesets", {})
    if name not in cache:
        cache[name] = Ruleset.from_model(model, name)
    return cache[name]


def wrong_values(model: Model, rs: Ruleset) -> dict[str, str]:
    """The parameters of ``rs`` set to a value that does not fit their type, each with why
    (:func:`harmony.paramtypes.wrong_values` of its settings that have a value), judged once
    per model and ruleset: the checks and every scenario played under ``rs`` ask again."""
    known = model.__dict__.setdefault("_wrong_values", {})
    hit = known.get(id(rs))
    if hit is None or hit[0] is not rs:
        values = {n: s.value for n, s in rs.settings.items() if not s.unset}
        hit = known[id(rs)] = (rs, paramtypes.wrong_values(model.parameters, values))
    return hit[1]


def wrong_settings(model: Model, rs: Ruleset) -> list[tuple[Setting, Pos, str]]:
    """The settings of ``rs`` whose value does not fit its parameter's type (text where a
    number belongs...), each with where the value is written and why it does not fit
    (:func:`wrong_values`); ``harmony check`` reports each at that place, and no game plays
    a scenario under ``rs``."""
    out = []
    for pname, why in sorted(wrong_values(model, rs).items()):
        s = rs.settings[pname]
        if s.set_by_cell and s.at is not None:
            pos = s.at.pos("params", pname)
        else:
            pos = model.parameters[pname].pos("default")
        out.append((s, pos, why))
    return out
