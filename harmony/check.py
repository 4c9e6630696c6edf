"""``harmony check``: every problem in a rules_data folder, positioned.

Reading and schema problems come from the loader. :data:`CHECKS` names every
check that follows, in the order they run. This module's own look at each
object: repeated ids, references that do not resolve, rows missing a cell,
revision cells without their relation, parameters that are unknown or of
the wrong type, and text marks (glossary terms, footnotes, parameters) that
point nowhere. Then the checks that need the whole model: the pieces'
agreement (:mod:`harmony.consistency`), scenarios
(:mod:`harmony.games.panzerblitz.scenario`) and rule cards that must fit
(:mod:`harmony.cards.fit`).
"""
from __future__ import annotations

import os
from typing import Any, Callable, NamedTuple

from . import comparecheck, consistency, game, paramtypes, tablecheck
from .cards.coverage import check_coverage
from .cards.fit import check_cards
from .diagnostics import Pos, Report
from .loader import file_text, load
from .markup import marks
from .model import Cell, Citation, Model, Source
from .ruleset import RulesetError, ruleset_for, wrong_settings
from .trust import Trust



def check_path(path: str | os.PathLike, with_coverage: bool = False,
               trust: Trust | None = None) -> tuple[Model, Report]:
    model, report = load(path)
    game.trusting(model, trust)    # whether a game module of the folder may be loaded
    check_model(model, report, with_coverage)
    return model, report


def check_model(model: Model, report: Report, with_coverage: bool = False) -> None:
    """Run every check of :data:`CHECKS` on a loaded model (those that need the whole
    model only when nothing was left out of it), and :data:`COVERAGE` when asked
    (``harmony check --coverage``)."""
    skipped = False
    for check in CHECKS + ((COVERAGE,) if with_coverage else ()):
        if check.whole_model and report.incomplete:
            skipped = True
            continue
        check.run(model, report)
    if skipped and (model.clauses or model.sources or model.topics):
        report.notes.append("cross-clause checks were not run, since some data could not "
                            "be read: fix the errors above first")


def _close(name: str, known) -> str:
    """'did you mean ...? ' for a near miss, else ''."""
    import difflib     # for an unknown name only
    match = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.6)
    return f"did you mean '{match[0]}'? " if match else ""


def _known(name: str, known, what: str) -> str:
    """The end of an unknown-reference message: a suggestion, or where to define it.

    >>> _known("PBB", {"PB": 1, "PL": 2}, "sources")
    ": did you mean 'PB'? known sources are PB, PL"
    >>> _known("x", {}, "topics")
    ': no topics are defined'
    """
    names = sorted(map(str, known))
    if not names:
        return f": no {what} are defined"
    listed = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    return f": {_close(name, names)}known {what} are {listed}"


_FILE_LINES: dict[str, tuple[str, list[str]]] = {}


def _file_lines(path: str) -> list[str]:
    """The lines of a loaded file, from the text the loader kept (never read again)."""
    text = file_text(path)
    hit = _FILE_LINES.get(path)
    if hit is None or hit[0] is not text:
        hit = _FILE_LINES[path] = (text, text.split("\n"))
    return hit[1]


def _mark_pos(obj, path: tuple, text: str, mark) -> Pos:
    """Where a text mark is in the file: on its own line when the text is written
    out in the file as it is read, else at the start of the text."""
    start = obj.pos(*path)
    raw = text[mark.start:mark.end]
    lines = _file_lines(start.path)
    before = text[:mark.start].count("\n") + text[:mark.start].count(" ") + 2
    for n in range(start.line - 1, min(len(lines), start.line + before)):
        col = lines[n].find(raw, start.col - 1 if n == start.line - 1 else 0)
        if col >= 0:
            return Pos(start.path, n + 1, col + 1)
    return start


def _duplicates(model: Model, report: Report) -> None:
    again = model.identity_again
    if again is not None:
        report.error(again.pos(), "a second harmony: mapping (the first is at "
                     f"{model.identity.pos()}): a harmony has one identity; merge them",
                     "duplicate-id")
    for kind, first, dup in model.duplicates:
        name = getattr(dup, "id", None) or getattr(dup, "key", None) or getattr(dup, "name", None) \
            or getattr(dup, "term", "")
        field = next(f for f in ("id", "key", "name", "term") if hasattr(dup, f) and getattr(dup, f))
        report.error(dup.pos(field), f"duplicate {kind} '{name}' (first defined at {first.pos(field)}): "
                     f"each {kind} needs its own {field}; rename or remove one", "duplicate-id")


def _cite(model: Model, report: Report, cite: Citation) -> None:
    src = model.sources.get(cite.source)
    if src is None and report.was_left_out(cite.source):
        pass
    elif src is None:
        report.error(cite.pos("source"), f"citation names unknown source '{cite.source}'"
                     f"{_known(cite.source, model.sources, 'sources')}", "unresolved-source")
    elif cite.document and src.documents and cite.document not in {d.id for d in src.documents}:
        known = ", ".join(d.id for d in src.documents)
        report.error(cite.pos("document"), f"source {cite.source} has no document '{cite.document}' "
                     f"(its documents: {known})", "unresolved-document")
    if cite.via and cite.via not in model.sources and not report.was_left_out(cite.via):
        report.error(cite.pos("via"), f"citation names unknown source '{cite.via}' in 'via'"
                     f"{_known(cite.via, model.sources, 'sources')}", "unresolved-source")
    if not any((cite.section, cite.figure, cite.footnote, cite.table, cite.page, cite.document)):
        report.warning(cite.pos(), "citation names no place in the document (section, figure, "
                       "footnote, table or page)", "citation-vague")


def _sources(model: Model, report: Report) -> None:
    for s in model.sources.values():
        if s.base is not None:
            if s.base not in model.sources:
                if not report.was_left_out(s.base):
                    report.error(s.pos("base"), f"base names unknown source '{s.base}'"
                                 f"{_known(s.base, model.sources, 'sources')}", "unresolved-source")
            elif s.base == s.key:
                report.error(s.pos("base"), f"source {s.key} cannot be its own base", "base-cycle")
        if s.kind in ("revision", "variant") and s.base is None:
            report.warning(s.pos("kind"), f"{s.kind} {s.key} names no base source", "missing-base")
    # cycles longer than one
    for s in model.sources.values():
        seen = set()
        cur: Source | None = s
        while cur is not None and cur.base:
            if cur.key in seen:
                report.error(s.pos("base"), f"base sources of {s.key} form a cycle", "base-cycle")
                break
            seen.add(cur.key)
            cur = model.sources.get(cur.base)


def _topics(model: Model, report: Report) -> None:
    quiet = bool(report.left_out) or any(c.topic not in model.topics for c in model.clauses.values())
    aspects_used: dict[str, set[str]] = {}
    for c in model.clauses.values():
        aspects_used.setdefault(c.topic, set()).add(c.aspect)
    for t in model.topics.values():
        for i, key in enumerate(t.sources):
            if key not in model.sources and not report.was_left_out(key):
                report.error(t.pos("sources", i), f"topic '{t.id}' names unknown source '{key}'"
                             f"{_known(key, model.sources, 'sources')}", "unresolved-source")
        seen: dict[str, Any] = {}
        for i, a in enumerate(t.aspects):
            if a.id in seen:
                report.error(a.pos("id"), f"duplicate aspect '{a.id}' in topic '{t.id}' (first at "
                             f"{seen[a.id].pos('id')}): rename or remove one", "duplicate-id")
                continue
            seen[a.id] = a
        used = aspects_used.get(t.id, set())
        if quiet or not used <= set(seen):
            continue  # a clause left out or misplaced: its row is not really empty
        for a in t.aspects:
            if a.id not in used:
                report.warning(a.pos("id"), f"aspect '{a.id}' of topic '{t.id}' has no clause",
                               "empty-row")


def _clauses(model: Model, report: Report) -> None:
    for clause in model.clauses.values():
        _clause(model, report, clause)


def _clause(model: Model, report: Report, clause) -> None:
    topic = model.topics.get(clause.topic)
    if topic is None:
        if not report.was_left_out(clause.topic):
            report.error(clause.pos("topic"), f"clause '{clause.id}' names unknown topic "
                         f"'{clause.topic}'{_known(clause.topic, model.topics, 'topics')}",
                         "unresolved-topic")
    elif topic.aspect(clause.aspect) is None:
        known = ", ".join(a.id for a in topic.aspects)
        report.error(clause.pos("aspect"), f"topic '{topic.id}' has no aspect '{clause.aspect}': "
                     f"{_close(clause.aspect, [a.id for a in topic.aspects])}use one of its aspects "
                     f"({known}) or add the aspect to the topic", "unresolved-aspect")
    if topic is not None:
        for key in topic.sources:
            if key not in clause.cells:
                report.error(clause.pos("cells", key=True),
                             f"clause '{clause.id}' has no cell for {key}, a column of topic "
                             f"'{topic.id}': add one, with status nil or not-covered if the source "
                             "says nothing", "missing-cell")
    for key, cell in clause.cells.items():
        src = model.sources.get(key)
        if src is None:
            if not report.was_left_out(key):
                report.error(clause.pos("cells", key, key=True), f"cell for unknown source '{key}'"
                             f"{_known(key, model.sources, 'sources')}", "unresolved-source")
        elif topic is not None and key not in topic.sources:
            report.error(clause.pos("cells", key, key=True), f"{key} is not a column of topic "
                         f"'{topic.id}' (its columns: {', '.join(topic.sources)}): remove the cell "
                         "or add the source to the topic's sources", "unknown-column")
        _cell(model, report, cell, src)
    for qa in clause.qa:
        if qa.source not in model.sources and not report.was_left_out(qa.source):
            report.error(qa.pos("source"), f"Q&A names unknown source '{qa.source}'"
                         f"{_known(qa.source, model.sources, 'sources')}", "unresolved-source")
        if qa.cite:
            _cite(model, report, qa.cite)
        _text_marks(model, report, qa, ("question", qa.question), ("answer", qa.answer))
    for i, sid in enumerate(clause.scenarios):
        if sid not in model.scenarios and not report.was_left_out(sid):
            report.error(clause.pos("scenarios", i), f"clause '{clause.id}' names unknown scenario "
                         f"'{sid}'{_known(sid, model.scenarios, 'scenario files')}", "unresolved-scenario")


def _cell(model: Model, report: Report, cell: Cell, src) -> None:
    where = f"{cell.clause_id}@{cell.source}"
    if cell.status in ("rule", "optional", "tournament"):
        if not cell.text:
            report.error(cell.pos("status"), f"{where}: a {cell.status} cell needs its text",
                         "missing-text")
    if cell.status in ("rule", "optional", "tournament", "nil") and not cell.cites:
        report.error(cell.pos("status"), f"{where}: a {cell.status} cell needs a citation (cite)",
                     "missing-citation")
    if cell.status in ("optional", "tournament") and not cell.option:
        report.error(cell.pos("status"), f"{where}: an {cell.status} cell names its option "
                     "(option: name)", "missing-option")
    if cell.option and cell.status not in ("optional", "tournament"):
        report.error(cell.pos("option"), f"{where}: only optional or tournament cells name an option",
                     "stray-option")
    for c in cell.cites:
        _cite(model, report, c)
    if src is not None and src.is_revision and cell.covered:
        if cell.relation is None:
            report.error(cell.pos("status"), f"{where}: {src.key} revises {src.base}, so the cell "
                         "states its relation (restates, amends, replaces or adds) and the "
                         "clauses it revises", "missing-relation")
    if cell.relation is not None:
        if src is not None and not src.is_revision:
            report.warning(cell.pos("relation"), f"{where}: {cell.source} is not a revision; "
                           "relation ignored", "stray-relation")
        if cell.relation.type != "adds" and not cell.relation.clauses:
            verb = cell.relation.type[:-1] if cell.relation.type.endswith("es") else cell.relation.type
            report.error(cell.pos("relation", "clauses"), f"{where}: a relation of type "
                         f"'{cell.relation.type}' lists the clauses it {verb}s (clause-id or "
                         "clause-id@SOURCE)", "missing-relation")
        for i, ref in enumerate(cell.relation.clauses):
            cid, _, key = ref.partition("@")
            if cid not in model.clauses:
                if not report.was_left_out(cid):
                    report.error(cell.pos("relation", "clauses", i), f"{where}: relation names unknown "
                                 f"clause '{cid}'{_known(cid, model.clauses, 'clauses')}",
                                 "unresolved-clause")
            elif key and key not in model.clauses[cid].cells:
                report.error(cell.pos("relation", "clauses", i), f"{where}: clause '{cid}' has no "
                             f"cell for {key} (its cells: {', '.join(model.clauses[cid].cells)})",
                             "unresolved-clause")
    for name, value in cell.params.items():
        _param(model, report, cell, name, value)
    if cell.params and cell.status in ("nil", "not-covered"):
        pass  # a nil cell may still set parameters (PB: opportunity fire off)
    _text_marks(model, report, cell, ("text", cell.text), ("note", cell.note),
                *((("card", "text"), cell.card.text),) if cell.card else ())
    if cell.changed and src is not None and src.versions and \
            cell.changed.version not in {v.version for v in src.versions}:
        report.error(cell.pos("changed", "version"), f"{where}: {src.key} has no version "
                     f"'{cell.changed.version}'", "unresolved-version")


def param_type_error(param, value) -> str | None:
    """Why ``value`` does not fit parameter ``param``, or None (the type table
    :mod:`harmony.paramtypes` decides).

    >>> from harmony.model import Parameter
    >>> param_type_error(Parameter(name="x", type="fraction"), "1/2") is None
    True
    >>> param_type_error(Parameter(name="x", type="enum", values=["a"]), "b")
    "'b' is not one of: a"
    """
    return paramtypes.param_error(param, value)


def _param(model: Model, report: Report, cell: Cell, name: str, value) -> None:
    where = f"{cell.clause_id}@{cell.source}"
    param = model.parameters.get(name)
    if param is None:
        if report.was_left_out(name):
            return
        report.error(cell.pos("params", name, key=True), f"{where}: unknown parameter '{name}': "
                     f"{_close(name, model.parameters)}declare it under parameters: or fix the "
                     "spelling", "unknown-parameter")
        return
    problem = param_type_error(param, value)
    if problem:
        report.error(cell.pos("params", name), f"{where}: parameter '{name}' ({param.type}): {problem}",
                     "parameter-type")


def _text_marks(model: Model, report: Report, obj, *fields) -> None:
    params = getattr(obj, "params", {}) or {}
    for field_path, text in fields:
        path = field_path if isinstance(field_path, tuple) else (field_path,)
        for m in marks(text):
            if m.kind == "term" and model.term(m.target) is None \
                    and not report.was_left_out(" ".join(m.target.lower().split())):
                report.error(_mark_pos(obj, path, text, m), f"text links glossary term "
                             f"'{m.target}', which the glossary does not define: "
                             f"{_close(m.target, [n for t in model.glossary.values() for n in (t.term, *t.aliases)])}"
                             "add it "
                             "to the glossary (or as an alias of a term) or fix the link",
                             "unresolved-term")
            elif m.kind == "footnote" and m.target not in model.footnotes \
                    and not report.was_left_out(m.target):
                report.error(_mark_pos(obj, path, text, m), f"text marks footnote '[^{m.target}]', "
                             f"which is not defined: {_close(m.target, model.footnotes)}define it "
                             "under footnotes: or fix the mark", "unresolved-footnote")
            elif m.kind == "param" and m.target not in params:
                report.error(_mark_pos(obj, path, text, m), f"text prints parameter "
                             f"'{{{{ {m.target} }}}}', which this cell does not set: "
                             f"{_close(m.target, params)}set it under the cell's params: or fix "
                             "the mark", "unresolved-parameter")


def _glossary_and_notes(model: Model, report: Report) -> None:
    for t in model.glossary.values():
        if t.cite:
            _cite(model, report, t.cite)
        _text_marks(model, report, t, ("definition", t.definition))
    for f in model.footnotes.values():
        if f.source not in model.sources and not report.was_left_out(f.source):
            report.error(f.pos("source"), f"footnote names unknown source '{f.source}'"
                         f"{_known(f.source, model.sources, 'sources')}", "unresolved-source")
        if f.cite:
            _cite(model, report, f.cite)
    for n in model.notes.values():
        if n.source not in model.sources and not report.was_left_out(n.source):
            report.error(n.pos("source"), f"note names unknown source '{n.source}'"
                         f"{_known(n.source, model.sources, 'sources')}", "unresolved-source")
        if n.topic not in model.topics and not report.was_left_out(n.topic):
            report.error(n.pos("topic"), f"note names unknown topic '{n.topic}'"
                         f"{_known(n.topic, model.topics, 'topics')}", "unresolved-topic")
        if n.cite:
            _cite(model, report, n.cite)
        _text_marks(model, report, n, ("text", n.text))
    for p in model.parameters.values():
        _parameter(report, p)


def _parameter(report: Report, p) -> None:
    """A declared parameter: its values, default and reader-facing words fit its type."""
    problem = paramtypes.values_error(p)
    if problem:
        report.error(p.pos("values" if p.values else "type"), f"parameter '{p.name}': {problem}",
                     "parameter-values")
        if not p.values:
            return
    problem = param_type_error(p, p.default) if p.default is not None else None
    if problem:
        report.error(p.pos("default"), f"parameter '{p.name}': default {problem}", "parameter-type")
    raw = p.node.get("words") if isinstance(p.node, dict) else None
    for key in (raw if isinstance(raw, dict) else p.words or {}):
        problem = paramtypes.word_key_error(p, str(key))
        if problem:
            report.error(p.pos("words", key, key=True), f"parameter '{p.name}': {problem}",
                         "parameter-words")


def _unplayed(model: Model, report: Report) -> None:
    """A note naming the scenarios not played, and under which rulesets, because those
    rulesets hold a parameter value of the wrong type (each reported above at its place by
    :func:`_param`): the engine computes with the values of its ruleset, any of them at any
    step, so a scenario is played under none that holds a wrong one; its other rulesets are
    played as usual (:func:`harmony.ruleset.wrong_settings`)."""
    unplayed: dict[str, list[str]] = {}
    names: set[str] = set()
    for sc in sorted(model.scenarios.values(), key=lambda s: (s.file, s.id)):
        rulesets = sc.data.get("rulesets") if isinstance(sc.data, dict) else None
        for name in rulesets if isinstance(rulesets, list) else ():
            try:
                wrong = wrong_settings(model, ruleset_for(model, str(name)))
            except RulesetError:
                continue        # the scenario check reports the name
            if wrong:
                unplayed.setdefault(sc.id, []).append(str(name))
                names |= {s.name for s, _, _ in wrong}
    if unplayed:
        listed = "; ".join(f"{sid} under {', '.join(rs)}" for sid, rs in unplayed.items())
        report.notes.append(f"scenarios not played, since their rulesets hold parameter values of "
                            f"the wrong type ({', '.join(sorted(names))}): {listed}; fix the "
                            "errors above first")


class Check(NamedTuple):
    """One check of ``harmony check``: ``run(model, report)`` adds its diagnostics."""

    run: Callable[[Model, Report], None]
    #: needs the whole model: not run when something could not be read (what looks
    #: absent or in disagreement may be in what was left out)
    whole_model: bool = False


#: Every check ``harmony check`` runs, in this order.
CHECKS: tuple[Check, ...] = (
    Check(_duplicates),
    Check(_sources),
    Check(_topics),
    Check(_clauses),
    Check(_glossary_and_notes),
    Check(tablecheck.check_tables),
    Check(tablecheck.check_table_prose, whole_model=True),
    Check(comparecheck.check_comparisons, whole_model=True),
    Check(consistency.check_prose_numbers, whole_model=True),
    Check(consistency.check_relations, whole_model=True),
    Check(consistency.check_parameter_conflicts, whole_model=True),
    Check(consistency.check_parameter_set_twice, whole_model=True),
    Check(consistency.check_parameter_coverage, whole_model=True),
    Check(consistency.check_requirements, whole_model=True),
    Check(consistency.check_versions, whole_model=True),
    Check(game.check_scenarios, whole_model=True),
    Check(_unplayed, whole_model=True),
    Check(check_coverage, whole_model=True),
    Check(check_cards, whole_model=True),
)

#: ``harmony check --coverage`` adds this one: a warning at each rule cell that no example
#: or scenario exercises (:mod:`harmony.coverage`).
def _coverage(model: Model, report: Report) -> None:
    from .coverage import check_coverage   # runs the examples: imported only when asked
    check_coverage(model, report)


COVERAGE = Check(_coverage, whole_model=True)
