"""Revision consistency: the checks ``harmony check`` runs across clauses.

:mod:`harmony.check` checks each object on its own (ids, references, types);
this module checks that the pieces agree with one another. Each check is a
function ``f(model, report)`` named in :data:`harmony.check.CHECKS`:

``prose-number`` (error)
    A number written in a cell's text or card (``+2``, ``1/2``, ``½``,
    ``one quarter``, ``once``) disagrees with the cell's parameters of the
    same kind: a signed number is compared with the cell's ``modifier``
    parameters, a fraction with its ``fraction`` parameters, a plain count
    with its ``int`` parameters (and with any whole value the cell sets).
    A kind the cell sets no parameter of is not compared, so "two hexes",
    "Figure 1" or "PanzerBlitz (1970)" never trip it; :mod:`harmony.numbers`
    says which numbers are read. The fix is the ``{{ name }}`` mark, which
    prints the parameter itself. ``prose-number-literal`` (warning): a
    number in digits that does equal a parameter, which the mark would keep
    in step.
``relation-not-canonical``, ``relation-to-silent-cell`` (errors)
    A revision cell that restates, amends or replaces names cells of a
    canonical rulebook (or of its base), and those cells say something.
``restates-differs`` (error)
    A cell that only restates a clause sets a parameter to another value.
``parameter-conflict`` (error), ``option-conflict`` (warning)
    Two cells of one ruleset set a parameter to different values and both
    apply at once (neither replaces the other). An optional or tournament
    cell may change a value its rulebook's standard rules set: that is what
    an option is for. Two different options that disagree are a warning,
    since switching both on is ambiguous.
``parameter-set-twice`` (error)
    Two cells of one ruleset of the same standing set a parameter to the
    same value, or one replaces the other and both still set it: only the
    first in file order would decide, so the other clause could never be
    named by a ruling. Set it in one cell only.
``parameter-unset`` (error)
    Every parameter of the registry that a ruleset's game reads (all of them,
    for a game that does not say: :attr:`harmony.game.Game.parameters`) has a
    value in that ruleset: set by the rulebook's own cells, inherited from its
    ``base``, or given by the registry's ``default``. A default is the
    registry's deliberate "not stated" and is not reported: warning on each
    would flag every rulebook that is silent on a rule it never had (PB on
    opportunity fire); a parameter with no default must be set, or
    inherited, by every ruleset.
``requirement-*`` (errors)
    Cross references inside a revision, as data: a cell's ``requires`` names
    the clauses its rule depends on (opportunity fire on spotting); each
    must resolve to a covered cell that applies whenever this one does. A
    parameter's ``requires`` names parameters that must be on wherever it
    is on (an observer for interdiction, markers for opportunity-spotted
    markers).
``version-*`` (errors)
    A revision's versions are listed oldest first with unique names and
    dates in order; the source's ``version`` is one of them, the last (when
    it has none, the last listed is current); no cell records a change in a
    version later than the source's current one; ``changed`` appears only on
    cells of a source that lists versions. ``version-empty`` (warning): a
    version after the first that no cell's ``changed`` names.

When the loader left something out (a file or an item with errors), the
checks of absence (``parameter-unset``, ``requirement-off``,
``version-empty``) stay silent: what is missing may be in what was left out.
Scenarios are checked by :func:`harmony.game.check_scenarios`.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Iterable

from .diagnostics import Pos, Report
from .loader import file_text
from .markup import iter_marks
from .model import Cell, Model, Source
from .numbers import Number, numbers_in
from . import game, paramtypes
from .ruleset import OPTIONAL, Ruleset, base_chain, options_of, ruleset_for, setting_for

RULESET_KINDS = ("canonical", "revision", "variant")


# ------------------------------------------------------------------ values

def norm(value: Any, type: str | None = None) -> Any:
    """A parameter value in a form that compares equal when the rules are equal (without
    ``type``, the type the value reads as; see :func:`harmony.paramtypes.norm`).

    >>> norm("1/2") == norm("2/4"), norm(1) == norm("1/1"), norm(["C", "A"]) == norm(["A", "C"])
    (True, True, True)
    """
    return paramtypes.norm(value, type)


def is_on(value: Any, type: str | None = None) -> bool:
    """Whether a value switches its rule on (true, non-zero, not 'none', not empty).

    >>> [is_on(v) for v in (True, 0, "1/2", "none", [], ["C"], None)]
    [True, False, True, False, False, True, False]
    """
    return paramtypes.is_on(value, type)


def shown(value: Any, type: str | None = None) -> str:
    """A parameter value as a reader sees it.

    >>> shown(1, "modifier"), shown(False, "bool")
    ('+1', 'no')
    """
    return paramtypes.render(value, type)


def wrong(model: Model, name: str, value: Any) -> bool:
    """Whether ``value`` does not fit the declared type of parameter ``name``: ``harmony
    check`` reports it at its place, and the checks here leave it out (one wrong value,
    one error, never a comparison the value cannot take part in).

    >>> from harmony.model import Parameter
    >>> m = Model(parameters={"drm": Parameter(name="drm", type="modifier")})
    >>> wrong(m, "drm", "+1"), wrong(m, "drm", -1), wrong(m, "undeclared", "+1")
    (True, False, False)
    """
    p = model.parameters.get(name)
    return p is not None and paramtypes.param_error(p, value) is not None


# ---------------------------------------------------------------- rulesets

def ruleset_sources(model: Model) -> list[str]:
    """Sources the engine plays: canonical rulebooks, revisions, variants, and any
    other source whose cells set parameters (commentary never)."""
    setting = {c.source for cl in model.clauses.values() for c in cl.cells.values() if c.params}
    return sorted(k for k, s in model.sources.items()
                  if s.kind in RULESET_KINDS or (s.kind != "commentary" and k in setting))


def ruleset(model: Model, key: str, options: Iterable[str] = ()) -> Ruleset:
    """The ruleset of source ``key`` with ``options`` on, as the engine resolves it (once per
    model: :func:`harmony.ruleset.ruleset_for`)."""
    return ruleset_for(model, "+".join((key, *options)))


def where(cell: Cell) -> str:
    return f"{cell.clause_id}@{cell.source}"


# ------------------------------------------------------- 1. prose numbers

def _file_lines(path: str) -> tuple[str, ...]:
    return _read_lines(path)


def _read_lines(path: str) -> tuple[str, ...]:
    """The lines of a loaded file, from the text the loader kept (never parsed again)."""
    text = file_text(path)
    lines = _LINES.get(path)
    if lines is None or lines[0] is not text:
        lines = _LINES[path] = (text, tuple(text.splitlines()))
    return lines[1]


_LINES: dict[str, tuple[str, tuple[str, ...]]] = {}


def locate(start: Pos, needle: str, limit: int = 60) -> Pos:
    """Where ``needle`` is first written at or after ``start`` (within ``limit`` lines);
    ``start`` when it cannot be found (folded text split across lines)."""
    lines = _file_lines(start.path)
    for i in range(start.line - 1, min(len(lines), start.line - 1 + limit)):
        col = lines[i].find(needle, start.col - 1 if i == start.line - 1 else 0)
        if col >= 0:
            return Pos(start.path, i + 1, col + 1)
    return start


def _prose(text: str) -> str:
    """Text with its marks resolved for reading numbers: parameters and footnote marks
    blanked (a ``{{ }}`` mark is exactly what we want), glossary links shown."""
    out, last = [], 0
    for m in iter_marks(text):
        out.append(text[last:m.start])
        out.append(m.shown if m.kind == "term" else " " * (m.end - m.start))
        last = m.end
    out.append(text[last:])
    return "".join(out)


def _numeric_params(model: Model, cell: Cell) -> dict[str, list[tuple[str, Any]]]:
    """The cell's parameters by kind of number: modifier, fraction, count."""
    kinds: dict[str, list[tuple[str, Any]]] = {"modifier": [], "fraction": [], "count": []}
    for name, value in cell.params.items():
        p = model.parameters.get(name)
        if p is None or isinstance(value, bool) or value is None or wrong(model, name, value):
            continue
        key = paramtypes.number_kind(p.type)
        if key is None or not isinstance(norm(value), Fraction):
            continue
        kinds[key].append((name, value))
    return kinds


def prose_mismatches(model: Model, cell: Cell, text: str) -> list[tuple[Number, list[tuple[str, Any]], bool]]:
    """``(number, parameters of its kind, agrees)`` for each number read in ``text``
    that has parameters of its kind in the cell to compare with. None in a cell holding a
    value of the wrong type: the number written for it cannot be told from the others."""
    if any(wrong(model, name, value) for name, value in cell.params.items()):
        return []
    kinds = _numeric_params(model, cell)
    whole = {abs(norm(v)) for vs in kinds.values() for _, v in vs if norm(v).denominator == 1}
    out = []
    for n in numbers_in(_prose(text)):
        params = kinds[n.kind]
        if not params:
            continue
        values = {norm(v) for _, v in params}
        agrees = n.value in values or (n.kind == "count" and n.value in whole)
        out.append((n, params, agrees))
    return out


def check_prose_numbers(model: Model, report: Report) -> None:
    for clause in model.clauses.values():
        for cell in clause.cells.values():
            if not cell.params:
                continue
            fields: list[tuple[tuple[str, ...], str | None]] = [(("text",), cell.text)]
            if cell.card:
                fields += [(("card", "title"), cell.card.title), (("card", "text"), cell.card.text)]
            for path, text in fields:
                if not text:
                    continue
                for n, params, agrees in prose_mismatches(model, cell, text):
                    pos = locate(cell.pos(*path), n.text.split("(")[0].strip() or n.text)
                    names = ", ".join(f"{name} = {shown(v, model.parameters[name].type)}"
                                      for name, v in params)
                    mark = " or ".join(f"{{{{ {name} }}}}" for name, _ in params)
                    field = ".".join(path)
                    if not agrees:
                        report.error(pos, f"{where(cell)}: {field} says '{n.text}' but the cell sets "
                                     f"{names}: write {mark} so the prose prints the value the "
                                     "engine uses", "prose-number")
                    elif n.text[:1].isdigit() or n.text[:1] in "+-\u2212" or not n.text[:1].isalpha():
                        report.warning(pos, f"{where(cell)}: {field} writes '{n.text}' by hand; "
                                       f"{mark} prints it from the parameter and cannot drift",
                                       "prose-number-literal")


# ---------------------------------------------------------- 2. relations

def _ref(ref: str, default_source: str) -> tuple[str, str | None]:
    cid, _, key = ref.partition("@")
    return cid, (key or None)


def _canonical_for(model: Model, src: Source) -> set[str]:
    ok = {k for k, s in model.sources.items() if s.kind == "canonical"}
    return ok | set(base_chain(model, src.key)[1:])


def check_relations(model: Model, report: Report) -> None:
    for clause in model.clauses.values():
        for cell in clause.cells.values():
            src = model.sources.get(cell.source)
            rel = cell.relation
            if src is None or rel is None or not src.is_revision:
                continue
            allowed = _canonical_for(model, src)
            if rel.type == "adds":
                continue  # an addition may build on the revision's own clauses
            for i, ref in enumerate(rel.clauses):
                cid, key = _ref(ref, cell.source)
                target = model.clauses.get(cid)
                if target is None or (key and key not in target.cells):
                    continue  # harmony.check reports it (unresolved-clause)
                pos = cell.pos("relation", "clauses", i)
                if key is not None:
                    if key == cell.source or key not in allowed:
                        report.error(pos, f"{where(cell)}: {rel.type} names {ref}, a cell of "
                                     f"{key}; a {src.kind} revises the canonical rulebooks "
                                     f"({', '.join(sorted(allowed))})", "relation-not-canonical")
                    elif not target.cells[key].covered:
                        report.error(pos, f"{where(cell)}: {rel.type} names {ref}, which is "
                                     "not-covered (the rulebook says nothing there to revise)",
                                     "relation-to-silent-cell")
                elif not any(
                        k in allowed and c.covered for k, c in target.cells.items()):
                    report.error(pos, f"{where(cell)}: {rel.type} names clause '{cid}', which has "
                                 "no covered cell of a canonical rulebook to revise",
                                 "relation-to-silent-cell")
            if rel.type == "restates":
                _restates(model, report, cell, src)


def _restates(model: Model, report: Report, cell: Cell, src: Source) -> None:
    assert cell.relation is not None, "called for a cell with a relation"
    for i, ref in enumerate(cell.relation.clauses):
        cid, key = _ref(ref, cell.source)
        target = model.clauses.get(cid)
        if target is None:
            continue
        keys = [key] if key else [src.base] if src.base else []
        for k in keys:
            other = target.cells.get(k)
            if other is None:
                continue
            for name, value in cell.params.items():
                if wrong(model, name, value) or wrong(model, name, other.params.get(name)):
                    continue
                if name in other.params and norm(other.params[name]) != norm(value):
                    t = model.parameters[name].type if name in model.parameters else None
                    report.error(cell.pos("params", name), f"{where(cell)}: restates {cid}@{k} "
                                 f"but sets {name} = {shown(value, t)} where {cid}@{k} sets "
                                 f"{shown(other.params[name], t)}: say 'amends' or 'replaces', "
                                 "or keep the value", "restates-differs")


# ----------------------------------------------- 2. one value per ruleset

def _replaces(a: Cell, b: Cell) -> bool:
    """Whether cell ``a`` states that it replaces cell ``b`` (or b's clause)."""
    if a.relation is None or a.relation.type != "replaces":
        return False
    for ref in a.relation.clauses:
        cid, _, key = ref.partition("@")
        if cid == b.clause_id and (not key or key == b.source):
            return True
    return False


def check_parameter_conflicts(model: Model, report: Report) -> None:
    by: dict[tuple[str, str], list[Cell]] = {}
    for clause in model.clauses.values():
        for cell in clause.cells.values():
            for name, value in cell.params.items():
                if not wrong(model, name, value):
                    by.setdefault((cell.source, name), []).append(cell)
    for (source, name), cells in sorted(by.items(), key=lambda kv: kv[0]):
        p = model.parameters.get(name)
        t = p.type if p else None
        reported: set[str] = set()
        normed = [norm(c.params[name]) for c in cells]     # once a cell, not once a pair
        for i, a in enumerate(cells):
            for j in range(i + 1, len(cells)):
                b = cells[j]
                if normed[i] == normed[j] or _replaces(a, b) or _replaces(b, a):
                    continue
                va, vb = a.params[name], b.params[name]
                oa = a.option if a.status in OPTIONAL else None
                ob = b.option if b.status in OPTIONAL else None
                if (oa is None) != (ob is None):
                    continue  # an option changes a standing value: its purpose
                if where(b) in reported:
                    continue
                reported.add(where(b))
                msg = (f"{where(b)} sets {name} = {shown(vb, t)} but {where(a)} "
                       f"(at {a.pos('params', name)}) sets {shown(va, t)}")
                if oa == ob:
                    scope = f"with option {oa} on" if oa else "in its standard rules"
                    report.error(b.pos("params", name), f"{msg}; both apply to {source} {scope}: "
                                 "set it in one cell only", "parameter-conflict")
                else:
                    report.warning(b.pos("params", name), f"{msg}; ruleset {source}+{oa}+{ob} "
                                   "would have both", "option-conflict")


def _standing(cell: Cell) -> str | None:
    """When a cell applies within its ruleset: always (None), or with its option on."""
    return cell.option if cell.status in OPTIONAL else None


def check_parameter_set_twice(model: Model, report: Report) -> None:
    """Two cells of one rulebook, of the same standing (both standard rules, or both of one
    option), set the same parameter: the resolver (:mod:`harmony.ruleset`) would take the
    first in file order and name its clause, and the other clause could never decide a ruling.

    Reported at the second cell in file order, naming the first's position. Pairs that set
    different values without either replacing the other are ``parameter-conflict``
    (:func:`check_parameter_conflicts`), not reported again here.
    """
    by: dict[tuple[str, str, str | None], list[Cell]] = {}
    for clause in model.clauses.values():
        for cell in clause.cells.values():
            for name in cell.params:
                by.setdefault((cell.source, name, _standing(cell)), []).append(cell)
    for (source, name, option), cells in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                          kv[0][2] or "")):
        if len(cells) < 2:
            continue
        cells = sorted(cells, key=lambda c: (c.pos().path, c.pos().line, c.pos().col, c.clause_id))
        first = cells[0]
        p = model.parameters.get(name)
        t = p.type if p else None
        scope = f"with option {option} on" if option else "in its standard rules"
        for b in cells[1:]:
            a = first
            replaced = a if _replaces(b, a) else b if _replaces(a, b) else None
            if replaced is None and norm(a.params[name]) != norm(b.params[name]):
                continue      # a parameter-conflict
            head = (f"{where(b)} sets {name}, which {where(a)} (at {a.pos('params', name)}) "
                    f"also sets for {source} {scope}")
            if replaced is not None:
                other = b if replaced is a else a
                fix = (f"{where(other)} replaces {where(replaced)}, so remove {name} from the "
                       f"params of {where(replaced)}")
            else:
                fix = f"both set {shown(a.params[name], t)}; set it in one cell only"
            report.error(b.pos("params", name), f"{head}: {fix}", "parameter-set-twice")


# ------------------------------------------ 2. every parameter has a value

def _partial(report: Report) -> bool:
    """Whether the loader left something out (a file or item with errors): then what is
    absent cannot be judged, and the checks of absence stay silent."""
    return bool(getattr(report, "left_out", None))


def _left_out(report: Report, name: str) -> bool:
    return bool(getattr(report, "was_left_out", lambda n: False)(name))


def _reads(names: tuple[str, ...] | None, name: str) -> bool:
    return names is None or name in names


def check_parameter_coverage(model: Model, report: Report) -> None:
    if _partial(report):
        return
    rulesets = ruleset_sources(model)
    full = {k: ruleset(model, k, options_of(model, k)) for k in rulesets}
    read = {k: game.reads(model, k) for k in rulesets}   # what each rulebook's game reads
    for name, p in sorted(model.parameters.items()):
        missing = [k for k in rulesets if _reads(read[k], name) and full[k].setting(name).unset]
        if missing:
            report.error(p.pos("name"), f"parameter '{name}' has no value in "
                         f"{', '.join(missing)}: no cell of the rulebook (or of its base) sets it "
                         "and the registry gives no default; set it in a cell, or declare "
                         "default: for rulebooks that say nothing", "parameter-unset")


# ------------------------------------------------------- 2. requirements

def check_requirements(model: Model, report: Report) -> None:
    # clause requirements: cell.requires
    for clause in model.clauses.values():
        for cell in clause.cells.values():
            for i, ref in enumerate(cell.requires):
                pos = cell.pos("requires", i)
                cid, _, key = ref.partition("@")
                key = key or cell.source
                target = model.clauses.get(cid)
                if target is None:
                    if not _left_out(report, cid):
                        report.error(pos, f"{where(cell)}: requires unknown clause '{cid}'",
                                     "requirement-unresolved")
                    continue
                other = target.cells.get(key)
                if other is None or other.status not in ("rule", "optional", "tournament"):
                    state = "has no cell for it" if other is None else f"is {other.status}"
                    report.error(pos, f"{where(cell)}: requires {cid}@{key}, which {state}: the "
                                 "rule it depends on is missing", "requirement-missing")
                    continue
                if key != cell.source and key not in base_chain(model, cell.source):
                    report.error(pos, f"{where(cell)}: requires {cid}@{key}, a rule of another "
                                 "rulebook; a ruleset plays only its own rules and its base's",
                                 "requirement-foreign")
                    continue
                if other.status in OPTIONAL and not (cell.status in OPTIONAL and
                                                     cell.option == other.option):
                    report.error(pos, f"{where(cell)}: requires {cid}@{key}, which applies only "
                                 f"with option {other.option}, while this cell applies "
                                 f"{'with option ' + cell.option if cell.option else 'always'}",
                                 "requirement-optional")
    # parameter requirements: parameter.requires, in every ruleset and option
    for name, p in sorted(model.parameters.items()):
        for i, req in enumerate(p.requires):
            if req not in model.parameters and not _left_out(report, req):
                report.error(p.pos("requires", i), f"parameter '{name}' requires unknown "
                             f"parameter '{req}'", "requirement-unresolved")
    if _partial(report):
        return
    # the parameters that require others, and only those, resolved in each combination
    requiring = [(name, p) for name, p in sorted(model.parameters.items()) if p.requires]
    for key in ruleset_sources(model):
        opts = options_of(model, key)
        combos = [()] + [(o,) for o in opts] + ([tuple(opts)] if len(opts) > 1 else [])
        seen: set[tuple[str, str]] = set()
        for combo in combos:
            rs = "+".join((key,) + combo)
            for name, p in requiring:
                own = setting_for(model, rs, name)
                if own.unset or wrong(model, name, own.value) or not is_on(own.value):
                    continue
                for req in p.requires:
                    if req not in model.parameters or (name, req) in seen:
                        continue
                    r = setting_for(model, rs, req)
                    if not r.unset and wrong(model, req, r.value):
                        continue
                    if r.unset or not is_on(r.value):
                        seen.add((name, req))
                        at = own.at if own.set_by_cell else None
                        pos = at.pos("params", name) if at is not None else p.pos("requires")
                        got = "no value" if r.unset else shown(r.value, model.parameters[req].type)
                        report.error(pos, f"ruleset {rs}: {name} is on but it requires {req}, "
                                     f"which is {got} there", "requirement-off")


# ------------------------------------------------------------ 3. versions

def current_version(src: Source) -> str | None:
    """The version a source is at: its ``version``, else the last it lists."""
    if src.version is not None:
        return src.version
    return src.versions[-1].version if src.versions else None


def _numeric(version: str) -> tuple | None:
    parts = re.split(r"[.\-]", version)
    ok = all(x.isdecimal() and len(x) <= 100 for x in parts)  # (not "²", not 5,000 digits)
    return tuple(int(x) for x in parts) if ok else None


def check_versions(model: Model, report: Report) -> None:
    for src in model.sources.values():
        names = [v.version for v in src.versions]
        for i, v in enumerate(src.versions):
            if v.version in names[:i]:
                report.error(v.pos("version"), f"source {src.key} lists version {v.version} twice",
                             "version-duplicate")
            if i:
                prev = src.versions[i - 1]
                a, b = _numeric(prev.version), _numeric(v.version)
                if (a is not None and b is not None and b <= a) or (v.date and prev.date and v.date < prev.date):
                    report.error(v.pos("version"), f"source {src.key}: version {v.version} "
                                 f"({v.date}) is listed after {prev.version} ({prev.date}); list "
                                 "versions oldest first", "version-order")
        if src.versions and src.version is not None and src.version not in names:
            report.error(src.pos("version"), f"source {src.key} is at version {src.version}, which "
                         f"is not among its versions ({', '.join(names)})", "version-current")
        elif src.versions and src.version in names:
            cur = src.versions[names.index(src.version)]
            if src.date and cur.date and src.date != cur.date:
                report.error(src.pos("date"), f"source {src.key}: date {src.date} differs from the "
                             f"date of version {src.version} ({cur.date})", "version-date")
            if names.index(src.version) != len(names) - 1:
                report.error(src.pos("version"), f"source {src.key} is at version {src.version} but "
                             f"lists the later version {names[-1]}", "version-current")
        for d in src.documents:
            if d.version and src.versions and d.version not in names:
                report.error(d.pos("version"), f"document {d.id} of {src.key} is at version "
                             f"{d.version}, which is not among the source's versions", "version-unknown")
    recorded = {(c.source, c.changed.version) for cl in model.clauses.values()
                for c in cl.cells.values() if c.changed}
    for src in model.sources.values():
        for v in src.versions[1:]:
            if (src.key, v.version) not in recorded and not _partial(report):
                report.warning(v.pos("version"), f"source {src.key}: no cell records a change in "
                               f"version {v.version} (changed: {{version: '{v.version}', note: ...}})",
                               "version-empty")
    for clause in model.clauses.values():
        for cell in clause.cells.values():
            ch = cell.changed
            if ch is None or cell.source not in model.sources:
                continue
            src = model.sources[cell.source]
            names = [v.version for v in src.versions]
            current = current_version(src)
            if not src.versions:
                report.error(cell.pos("changed"), f"{where(cell)}: records a change in version "
                             f"{ch.version} but {src.key} lists no versions (versions:)",
                             "version-unknown")
            elif ch.version not in names:
                continue  # harmony.check reports it (unresolved-version)
            elif current in names and names.index(ch.version) > names.index(current):
                report.error(cell.pos("changed", "version"), f"{where(cell)}: changed in version "
                             f"{ch.version}, later than {src.key}'s current version {current}",
                             "version-after-current")
            if not cell.covered and ch is not None and src.versions and cell.status == "not-covered":
                report.warning(cell.pos("changed"), f"{where(cell)}: a change recorded on a cell "
                               "that says nothing (not-covered)", "version-silent-change")
