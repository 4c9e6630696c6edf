"""The model as plain data for the site's templates and directives.

Every page of the site is generated from the dictionaries made here. They hold
clause text exactly as written (data, never markup: the directives of
:mod:`harmony.site.directives` turn it into docutils text nodes), with the
parameter values already rendered by :func:`harmony.markup.render_value`, so a
generated page's bytes change exactly when what it shows changes.

>>> from harmony.model import Citation, Model, Source
>>> m = Model(sources={"PL": Source(key="PL", title="Panzer Leader", author="Avalon Hill", year=1974)})
>>> cite_view(m, Citation(source="PL", section="Spotting", via="HARMONY"))["place"]
'Spotting'
>>> anchor_of("spotting.recording", "PL")
'spotting.recording@PL'
"""
from __future__ import annotations

import hashlib
import unicodedata
from typing import Any

from .. import examplerun, paramtypes
from ..markup import marks, render_value
from ..model import Cell, Citation, Clause, Model, Source, Topic
from ..ruleset import OPTIONAL, Ruleset, RulesetError, ruleset_for
from ..rulings import ruling_word  # noqa: F401 (the examples' pages read it here)
from ..trust import Trust
from .tables import cited_tables, mark_values, table_view

#: Where a revision's own order puts each row (its papers read rule, eligibility,
#: recording, limitation, note, then tournament); other aspects follow in topic order.
REVISION_ORDER = ("rule", "eligibility", "recording", "limitation", "note", "tournament")

STATUS_LABELS = {"rule": "rule", "optional": "optional", "tournament": "tournament",
                 "nil": "nil", "not-covered": "not covered"}


def anchor_of(clause_id: str, source: str | None = None) -> str:
    """The permalink anchor of a clause (its id) or of one of its cells (``id@SRC``)."""
    return f"{clause_id}@{source}" if source else clause_id


def topic_doc(topic_id: str) -> str:
    return f"topics/{topic_id}"


def revision_doc(key: str) -> str:
    return f"revisions/{key}"


def scenario_doc(scenario_id: str) -> str:
    return f"examples/{scenario_id}"


def source_view(src: Source) -> dict:
    return {
        "key": src.key, "title": src.title, "label": src.label, "author": src.author,
        "year": src.year or None, "kind": src.kind, "version": src.version, "date": src.date,
        "publisher": src.publisher, "base": src.base, "summary": src.summary,
        "documents": [{"id": d.id, "title": d.title, "version": d.version, "date": d.date}
                      for d in src.documents],
        "versions": [{"version": v.version, "date": v.date, "note": v.note} for v in src.versions],
    }


def cite_view(model: Model, cite: Citation) -> dict:
    """A citation as the reader sees it: the source's title and author, the place, the via."""
    src = model.sources.get(cite.source)
    doc = None
    if src and cite.document:
        doc = next((d.title for d in src.documents if d.id == cite.document), cite.document)
    via = model.sources.get(cite.via) if cite.via else None
    return {
        "source": cite.source,
        "title": src.title if src else cite.source,
        "author": src.author if src else None,
        "year": (src.year or None) if src else None,
        "document": doc,
        "place": cite.place(),
        "via": cite.via,
        "via_title": via.label if via else cite.via,
    }


def _terms(model: Model, *texts: str | None) -> dict[str, str]:
    """Glossary anchors of the terms linked from ``texts``."""
    found = {}
    for text in texts:
        for m in marks(text):
            if m.kind == "term":
                term = model.term(m.target)
                if term is not None:
                    found[m.target] = term.anchor
    return dict(sorted(found.items()))


def footnotes_in(*texts: str | None) -> list[str]:
    """Footnote ids marked in ``texts``, in order of first mark."""
    seen: list[str] = []
    for text in texts:
        for m in marks(text):
            if m.kind == "footnote" and m.target not in seen:
                seen.append(m.target)
    return seen


def params_view(model: Model, params: dict[str, Any]) -> dict[str, str]:
    """Parameter values as a player reads them (``+1``, ``yes``, ``1/2``)."""
    out = {}
    for name, value in sorted(params.items()):
        p = model.parameters.get(name)
        out[name] = render_value(value, p.type if p else None)
    return out


def cell_view(model: Model, clause: Clause, key: str) -> dict:
    cell: Cell | None = clause.cells.get(key)
    src = model.sources.get(key)
    if cell is None:
        cell = Cell(source=key, status="not-covered", clause_id=clause.id)
    view = {
        "clause": clause.id,
        "source": key,
        "anchor": anchor_of(clause.id, key),
        "label": src.label if src else key,
        "kind": src.kind if src else "canonical",
        "revision": bool(src and src.is_revision),
        "status": cell.status,
        "status_label": STATUS_LABELS.get(cell.status, cell.status),
        "option": cell.option,
        "text": cell.text,
        "note": cell.note,
        "params": params_view(model, cell.params),
        "table_marks": mark_values(model, cell.text, cell.note),
        "cites": [cite_view(model, c) for c in cell.cites],
        "relation": ({"type": cell.relation.type, "targets": list(cell.relation.clauses)}
                     if cell.relation else None),
        "changed": None,
        "terms": _terms(model, cell.text, cell.note),
    }
    if cell.changed:
        date = None
        if src:
            date = next((v.date for v in src.versions if v.version == cell.changed.version), None)
        view["changed"] = {"version": cell.changed.version, "note": cell.changed.note, "date": date}
    return view


def qa_view(model: Model, clause: Clause) -> list[dict]:
    out = []
    for qa in clause.qa:
        src = model.sources.get(qa.source)
        out.append({"source": qa.source, "label": src.label if src else qa.source,
                    "question": qa.question, "answer": qa.answer,
                    "cite": cite_view(model, qa.cite) if qa.cite else None,
                    "terms": _terms(model, qa.question, qa.answer)})
    return out


def clause_footnotes(clause: Clause, keys: list[str] | None = None) -> list[str]:
    texts = []
    for key, cell in clause.cells.items():
        if keys is None or key in keys:
            texts += [cell.text, cell.note]
    for qa in clause.qa:
        texts += [qa.question, qa.answer]
    return footnotes_in(*texts)


def row_view(model: Model, topic: Topic, clause: Clause, footnote_numbers: dict[str, int],
             trust: Trust | None = None) -> dict:
    """One row of a topic table: the clause in every column of the topic, and its examples
    (:func:`examples_view`, run when ``trust`` lets them: by default, as the environment
    says)."""
    aspect = topic.aspect(clause.aspect)
    return {
        "id": clause.id,
        "anchor": anchor_of(clause.id),
        "topic": topic.id,
        "aspect": clause.aspect,
        "aspect_title": aspect.title if aspect else clause.aspect,
        "title": clause.title,
        "cells": [cell_view(model, clause, key) for key in topic.sources],
        "qa": qa_view(model, clause),
        "footnotes": {f: footnote_numbers[f] for f in clause_footnotes(clause) if f in footnote_numbers},
        "scenarios": [{"id": s, "title": model.scenarios[s].title if s in model.scenarios else s}
                      for s in clause.scenarios],
        "examples": examples_view(model, clause, Trust.of() if trust is None else trust),
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def examples_view(model: Model, clause: Clause, trust: Trust) -> dict | None:
    """A clause's examples for its row (None without any): its prose, then each run of
    doctest lines as one block with the output each was checked against, and the figures
    of the positions they set up (:mod:`harmony.examplerun`). The examples run when
    ``trust`` lets them, and each line's output is the one written in the rules, which
    pytest checks: a line that printed anything else when the site was built is listed
    with what it printed (``failed``). Not run, the lines are shown without output and
    ``note`` says why.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> m, _ = load(default_rules_data())
    >>> ex = examples_view(m, m.clauses["spotting.spotted"], Trust())
    >>> ex["parts"][0]["prose"]
    'An adjacent enemy unit spots a unit in woods under every rulebook.'
    >>> ex["parts"][1]["code"].splitlines()[3]
    "PB Ruling(value=True, reasons=['spotting.spotted'])"
    >>> ex["summary"], ex["failed"]
    ('Examples: 12 lines checked, 5 diagrams', 0)
    >>> untrusted = examples_view(m, m.clauses["spotting.spotted"], Trust(False, "--untrusted"))
    >>> untrusted["parts"][1]["code"].splitlines()[1:], untrusted["summary"]
    ... # doctest: +NORMALIZE_WHITESPACE
    (['>>> for rules in "PB", "PL", "AIW", "REV":',
      '...     print(rules, next_to_it.under(rules).spotted("tank"))'], 'Examples: 12 lines, not run')
    >>> untrusted["note"]
    'The examples were not run (built with --untrusted), so no output is shown: the lines are as written in the rules.'
    """
    if not clause.examples:
        return None
    done = examplerun.ran(model, clause) if trust.runs_code else examplerun.read(clause)
    shown = done.ran and not done.why
    parts: list[dict] = []
    for part in done.parts:
        if part.kind == "prose":
            parts.append({"prose": part.text})
            continue
        code = "\n".join(line.shown + ("\n" + line.want.rstrip("\n") if shown and line.want.strip()
                                       else "") for line in part.lines)
        failed = [{"line": line.shown, "want": line.want.rstrip("\n"), "got": (line.got or "").rstrip("\n")}
                  for line in part.lines if line.ok is False]
        parts.append({"code": code, "failed": failed, "figures": part.figures})
    lines = sum(1 for _ in done.lines())
    figures = len(done.figures)
    if not lines and not done.why:
        summary, note = "Examples", ""
    elif shown:
        summary = f"Examples: {_plural(lines, 'line')} checked" + (
            f", {len(done.failed)} of them printing something else" if done.failed else "") + (
            f", {_plural(figures, 'diagram')}" if figures else "")
        note = ("Under each line is the output the rules expect of it, as the tests check it; "
                "when this site was built, "
                + ("the lines listed below their block printed something else." if done.failed
                   else "every line ran and printed that output."))
    else:
        summary = f"Examples: {_plural(lines, 'line')}, not run"
        why = trust.mark if not trust.runs_code else f"not run ({done.why})"
        note = (f"The examples were {why}, so no output is shown: the lines are as written in "
                "the rules.")
    return {"anchor": f"examples-{anchor_of(clause.id)}", "title": clause.title or clause.id,
            "summary": summary, "note": note, "parts": parts, "ran": shown,
            "failed": len(done.failed)}


def footnote_view(model: Model, fid: str, number: int) -> dict:
    f = model.footnotes.get(fid)
    return {"id": fid, "anchor": f"fn-{fid}", "number": number,
            "source": f.source if f else None, "text": f.text if f else fid,
            "cite": cite_view(model, f.cite) if f and f.cite else None,
            "terms": _terms(model, f.text) if f else {}}


def note_view(model: Model, note) -> dict:
    return {"id": note.id, "anchor": f"note-{note.id}", "source": note.source, "topic": note.topic,
            "title": note.title, "text": note.text,
            "cite": cite_view(model, note.cite) if note.cite else None,
            "terms": _terms(model, note.text)}


def footnote_numbers(model: Model, topic: Topic) -> dict[str, int]:
    """The number of each footnote on a topic's page: in the order the rows first mark them."""
    fn_ids: list[str] = []
    for c in model.clauses_of(topic.id):
        for f in clause_footnotes(c, topic.sources):
            if f not in fn_ids:
                fn_ids.append(f)
    return {f: i + 1 for i, f in enumerate(fn_ids)}


def topic_view(model: Model, topic: Topic, trust: Trust | None = None) -> dict:
    """A topic page: a row per clause (:func:`row_view`), its footnotes, notes and tables."""
    clauses = model.clauses_of(topic.id)
    numbers = footnote_numbers(model, topic)
    fn_ids = list(numbers)
    columns = []
    for key in topic.sources:
        src = model.sources.get(key)
        columns.append({"key": key, "label": src.label if src else key,
                        "title": src.title if src else key, "kind": src.kind if src else "canonical",
                        "revision": bool(src and src.is_revision), "base": src.base if src else None})
    return {
        "id": topic.id, "doc": topic_doc(topic.id), "title": topic.title, "summary": topic.summary,
        "columns": columns,
        "aspects": [{"id": a.id, "title": a.title, "summary": a.summary} for a in topic.aspects],
        "rows": [row_view(model, topic, c, numbers, trust) for c in clauses],
        "footnotes": [footnote_view(model, f, numbers[f]) for f in fn_ids],
        "notes": [note_view(model, n) for n in sorted(model.notes.values(), key=lambda n: n.id)
                  if n.topic == topic.id],
        "tables": [table_view(t, cite_view(model, t.cite) if t.cite else None)
                   for t in cited_tables(model, clauses)],
    }


def _revision_rank(topic: Topic, aspect_id: str) -> tuple[int, int]:
    if aspect_id in REVISION_ORDER:
        return (REVISION_ORDER.index(aspect_id), 0)
    order = [a.id for a in topic.aspects]
    return (len(REVISION_ORDER), order.index(aspect_id) if aspect_id in order else len(order))


def revision_view(model: Model, key: str) -> dict:
    """A revision (REV) or variant (DB) in its own order: its papers, then per paper its
    rules, tournament rules, footnotes and designer's notes."""
    src = model.sources[key]
    sections: list[dict] = []
    for topic in model.topics_in_order():
        if key not in topic.sources:
            continue
        rules: list[dict] = []
        tournament: list[dict] = []
        for clause in sorted(model.clauses_of(topic.id),
                             key=lambda c: _revision_rank(topic, c.aspect)):
            cell = clause.cells.get(key)
            if cell is None or not cell.covered or cell.status == "nil" and not cell.text:
                continue
            aspect = topic.aspect(clause.aspect)
            item = cell_view(model, clause, key)
            item.update(anchor=f"{key.lower()}-{clause.id}", aspect_title=aspect.title if aspect
                        else clause.aspect, title=clause.title, topic_title=topic.title,
                        topic_doc=topic_doc(topic.id))
            (tournament if cell.status == "tournament" else rules).append(item)
        if rules or tournament:
            sections.append({"id": topic.id, "title": topic.title, "rules": rules,
                             "tournament": tournament})
    fn_ids: list[str] = []
    for sec in sections:
        for item in sec["rules"] + sec["tournament"]:
            for f in footnotes_in(item["text"], item["note"]):
                if f not in fn_ids:
                    fn_ids.append(f)
    for fn in sorted(model.footnotes.values(), key=lambda fn: fn.id):
        if fn.source == key and fn.id not in fn_ids:
            fn_ids.append(fn.id)
    numbers = {f: i + 1 for i, f in enumerate(fn_ids)}
    for sec in sections:
        for item in sec["rules"] + sec["tournament"]:
            item["footnotes"] = {f: numbers[f] for f in footnotes_in(item["text"], item["note"])}
    notes = [note_view(model, n) for n in sorted(model.notes.values(), key=lambda n: n.id)
             if n.source == key]
    for n in notes:
        n["footnotes"] = {f: numbers[f] for f in footnotes_in(n["text"]) if f in numbers}
    return {"key": key, "doc": revision_doc(key), "source": source_view(src),
            "sections": sections, "footnotes": [footnote_view(model, f, numbers[f]) for f in fn_ids],
            "notes": notes}


def revisions(model: Model) -> list[str]:
    """Keys of the sources that revise another (REV, DB) and have cells to show."""
    keys = []
    for s in sorted(model.sources.values(), key=lambda s: (s.year or 0, s.key)):
        if s.is_revision and any(s.key in t.sources for t in model.topics.values()):
            keys.append(s.key)
    return keys


def value_words(model: Model, clause: Clause, key: str, pname: str, rulesets: dict) -> str:
    """How rulebook ``key`` sets parameter ``pname`` in a row, in the parameter's words
    (``parameters.yaml``: ``label``/``words``): the cell's own value when it sets it
    ("(optional)" when only its option does), else what the ruleset resolves (its base's
    value, the default), else "not stated". ``rulesets`` caches key -> Ruleset (or None).

    >>> from harmony.model import Parameter
    >>> m = Model(sources={"PB": Source(key="PB", title="PanzerBlitz", author="AH", year=1970)},
    ...           parameters={"spot.t": Parameter(name="spot.t", type="bool", label="Trucks may spot")})
    >>> c = Clause(id="s.t", topic="s", aspect="rule", cells={"PB": Cell(source="PB", status="rule",
    ...            text="Trucks spot.", params={"spot.t": True}, clause_id="s.t")})
    >>> value_words(m, c, "PB", "spot.t", {}), value_words(m, c, "XX", "spot.t", {})
    ('yes', 'not stated')
    """
    param = model.parameters.get(pname)
    cell = clause.cells.get(key)
    if param is None:
        return render_value(cell.params[pname]) if cell and pname in cell.params else "not stated"
    if cell is not None and pname in cell.params:
        words = paramtypes.phrase(param, cell.params[pname])
        return f"{words} (optional)" if cell.status in OPTIONAL else words
    if key not in rulesets:
        try:
            rulesets[key] = Ruleset.from_model(model, key)
        except RulesetError:
            rulesets[key] = None
    rs = rulesets[key]
    setting = rs.settings.get(pname) if rs is not None else None
    if setting is None or setting.unset:
        return "not stated"
    return paramtypes.phrase(param, setting.value)


def difference_sentences(model: Model, clause: Clause, keys: list[str], differing: list[str],
                         rulesets: dict) -> list[str]:
    """How the rulebooks ``keys`` differ on one row, one sentence per difference:
    "Trucks may spot: PB yes, PL no, AIW no, REV yes" for each differing parameter
    (words from ``parameters.yaml``), the standing when it differs, and a word on the
    texts when only they differ."""
    out = []
    stated = [k for k in keys if k in clause.cells and clause.cells[k].covered]
    statuses = {k: clause.cells[k].status for k in stated}
    if len(set(statuses.values())) > 1:
        out.append("Standing: " + ", ".join(
            f"{k} {STATUS_WORDS.get(v, v)}" for k, v in statuses.items()))
    for pname in differing:
        param = model.parameters.get(pname)
        name = paramtypes.label(param) if param is not None else pname
        words = {k: value_words(model, clause, k, pname, rulesets) for k in stated}
        if len(set(words.values())) > 1:   # set in one cell, inherited alike in another: no difference
            out.append(f"{name}: " + ", ".join(f"{k} {w}" for k, w in words.items()))
    if not out:
        out.append("Worded differently, the same in standing and parameters: "
                   + ", ".join(stated))
    return out


#: a cell's standing, in the words of a difference sentence
STATUS_WORDS = {"rule": "a rule", "optional": "optional", "tournament": "tournament only",
                "nil": "no such rule", "not-covered": "silent"}


def differences_view(model: Model) -> list[dict]:
    """Per topic, every row where the rulebooks disagree: cells of one clause that differ in
    status, text or parameters (not-covered cells are left out of the comparison), said in
    sentences (:func:`difference_sentences`) beside each cell's own text."""
    out = []
    rulesets: dict = {}
    for topic in model.topics_in_order():
        rows = []
        for clause in model.clauses_of(topic.id):
            cells = [clause.cells[k] for k in topic.sources if k in clause.cells]
            stated = [c for c in cells if c.covered]
            keys = {(c.status, (c.text or "").strip(), tuple(sorted(map(str, c.params.items()))))
                    for c in stated}
            if len(keys) <= 1:
                continue
            all_params = sorted({p for c in stated for p in c.params})
            differing = []
            for name in all_params:
                values = {c.source: c.params.get(name, None) for c in stated}
                if len({repr(v) for v in values.values()}) > 1:
                    differing.append(name)
            aspect = topic.aspect(clause.aspect)
            row_cells = []
            for k in topic.sources:
                view = cell_view(model, clause, k)
                row_cells.append({key: view[key] for key in (
                    "source", "label", "status", "status_label", "text", "terms", "params",
                    "option", "anchor")})
            rows.append({
                "id": clause.id, "title": clause.title or (aspect.title if aspect else clause.aspect),
                "aspect_title": aspect.title if aspect else clause.aspect,
                "sentences": difference_sentences(model, clause, list(topic.sources), differing,
                                                  rulesets),
                "cells": row_cells,
                "differs_in": [w for w, test in (
                    ("status", len({c.status for c in stated}) > 1),
                    ("text", len({(c.text or "").strip() for c in stated}) > 1),
                    ("parameters", bool(differing))) if test],
            })
        if rows:
            out.append({"id": topic.id, "title": topic.title, "doc": topic_doc(topic.id),
                        "columns": [{"key": k, "label": model.sources[k].label
                                     if k in model.sources else k} for k in topic.sources],
                        "rows": rows})
    return out


def glossary_view(model: Model) -> list[dict]:
    uses: dict[str, list[str]] = {}
    for clause in sorted(model.clauses.values(), key=lambda c: c.id):
        texts = [t for cell in clause.cells.values() for t in (cell.text, cell.note)]
        texts += [t for qa in clause.qa for t in (qa.question, qa.answer)]
        for m in (m for t in texts for m in marks(t)):
            if m.kind == "term":
                term = model.term(m.target)
                if term is not None and clause.id not in uses.setdefault(term.anchor, []):
                    uses[term.anchor].append(clause.id)
    out = []
    for t in sorted(model.glossary.values(), key=lambda t: t.term.lower()):
        out.append({"term": t.term, "anchor": t.anchor, "definition": t.definition,
                    "aliases": list(t.aliases), "cite": cite_view(model, t.cite) if t.cite else None,
                    "terms": _terms(model, t.definition), "used_in": uses.get(t.anchor, [])})
    return out


def scoreboard_view(scenarios: list[dict]) -> dict:
    """The examples' disagreement scoreboard: one row per example question, one column per
    ruleset met in any example, each cell the ruling in a word; a row is a split when the
    rulesets that decide it do not all say the same.

    >>> sc = {"id": "x", "title": "X", "matrix": {"rulesets": [{"key": "PB", "label": "PB"}],
    ...       "rows": [{"step_label": "Step 1", "question": "Q?", "cells": [{"ruleset": "PB", "word": "yes"}]}]}}
    >>> board = scoreboard_view([sc])
    >>> board["columns"], board["rows"][0]["split"], board["rows"][0]["words"]
    ([{'key': 'PB', 'label': 'PB'}], False, {'PB': 'yes'})
    """
    columns: list[dict] = []
    for sc in scenarios:
        for rs in (sc.get("matrix") or {}).get("rulesets", []):
            if rs["key"] not in [c["key"] for c in columns]:
                columns.append({"key": rs["key"], "label": rs["label"]})
    rows = []
    for sc in scenarios:
        for row in (sc.get("matrix") or {}).get("rows", []):
            words = {c["ruleset"]: c["word"] for c in row["cells"] if "word" in c}
            rows.append({"scenario": sc["id"], "title": sc["title"], "step": row["step_label"],
                         "question": row["question"], "words": words,
                         "split": len(set(words.values())) > 1})
    return {"columns": columns, "rows": rows,
            "splits": sum(1 for r in rows if r["split"])}


# ------------------------------------------------------------------ what changed
#: the most characters of a version name a page name keeps (the rest is in its hash)
VERSION_NAME_CHARS = 40


def version_file(src: Source, version: str, unique: bool = False) -> str:
    """The page name of one version of a revision (``changes-rev-0-1``): letters and digits
    kept, anything else a '-'. A long name is cut, with a short hash of the whole version
    after it, so it stays within what a file system takes and unique; ``unique`` adds that
    hash whatever the length (for versions whose names would otherwise be one page's:
    :func:`version_files`).

    >>> rev = Source(key="REV", title="R", author="A", year=2013)
    >>> version_file(rev, "0.1"), version_file(rev, "0.1", unique=True)
    ('changes-rev-0-1', 'changes-rev-0-1-1aaf9120')
    >>> len(version_file(rev, "9" * 300))
    61
    """
    slug = "".join(ch if ch.isalnum() else "-" for ch in version)
    if unique or len(slug) > VERSION_NAME_CHARS:
        tag = hashlib.sha256(f"{src.key}\0{version}".encode("utf-8", "surrogatepass")).hexdigest()[:8]
        slug = f"{slug[:VERSION_NAME_CHARS]}-{tag}"
    return f"changes-{src.key.lower()}-{slug}"


def version_files(model: Model) -> dict[tuple[str, str], str]:
    """The page name of every version of every revision, ``(key, version) -> name``: one page
    per version. Versions whose names would give one page (``0.2`` and ``0 2``, ``A`` and
    ``a`` on a file system that ignores case) each get a short hash of their whole name.

    >>> from harmony.model import Version
    >>> m = Model(root=".")
    >>> m.sources["REV"] = Source(key="REV", title="R", author="A", year=2013,
    ...     versions=[Version(version=v, date="2013") for v in ("0.1", "0.2", "0 2")])
    >>> sorted(version_files(m).values())
    ['changes-rev-0-1', 'changes-rev-0-2-b150241a', 'changes-rev-0-2-b64955a8']
    """
    names = {(key, v.version): version_file(src, v.version)
             for key, src in sorted(model.sources.items()) for v in src.versions}
    seen: dict[str, int] = {}
    for name in names.values():
        fold = unicodedata.normalize("NFC", name).casefold()
        seen[fold] = seen.get(fold, 0) + 1
    return {(key, version): version_file(model.sources[key], version, unique=True)
            if seen[unicodedata.normalize("NFC", name).casefold()] > 1 else name
            for (key, version), name in names.items()}


def _plain(model: Model, cell: Cell | None) -> str:
    from ..diff.rst import plain_cell_text
    return " ".join((plain_cell_text(model, cell, cell.text) or "").split()) if cell else ""


def change_view(model: Model, cell: Cell, old: Cell | None, old_model: Model | None,
                against: str, base: str | None = None) -> dict:
    """One revised cell on a version page: the text it amends (the cells its relation names,
    or the same cell at the previous version) and its own, as word-level pieces
    (:func:`harmony.diff.words.word_diff`, as ``harmony diff`` computes them)."""
    from ..diff.words import word_diff
    clause = model.clauses[cell.clause_id]
    rel = cell.relation
    view: dict[str, Any] = {"id": clause.id, "title": clause.title or clause.aspect,
                            "cell": anchor_of(clause.id, cell.source),
            "source": cell.source, "status": cell.status,
            "status_label": STATUS_LABELS.get(cell.status, cell.status),
            "relation": rel.type if rel else None, "targets": list(rel.clauses) if rel else [],
            "changed": cell.changed.note if cell.changed else None, "pairs": []}
    new_text = _plain(model, cell)
    if old is not None and old_model is not None:
        olds = [(f"{clause.id}@{cell.source}", f"{cell.source}, {against}", _plain(old_model, old))]
    else:
        olds = []
        for target in (rel.clauses if rel and rel.type != "adds" else []):
            ref = target if "@" in target or not base else f"{target}@{base}"
            tcell = model.cell(ref)
            target = ref
            if tcell is not None:
                label = model.sources[tcell.source].label if tcell.source in model.sources else tcell.source
                olds.append((target, label, _plain(model, tcell)))
    for target, label, old_text in olds:
        view["pairs"].append({"old_cell": target, "old_label": label, "pieces": word_diff(old_text, new_text)})
    if not olds:
        view["pairs"].append({"old_cell": None, "old_label": None, "pieces": [("equal", new_text)]})
    if old is not None and old_model is not None:
        was = {n: (old_model, v) for n, v in old.params.items()}
    else:
        was = {n: (model, s.value) for n, s in base_settings(model, base).items()}
    view["params"] = param_changes(model, cell.params, was)
    return view


def base_settings(model: Model, base: str | None) -> dict:
    """What the base ruleset sets, by parameter name (each a resolved Setting); empty when
    the cell revises no ruleset of this model."""
    if not base or base not in model.sources:
        return {}
    # resolved once per model and ruleset (cached on the model)
    try:
        return {n: s for n, s in ruleset_for(model, base).settings.items() if not s.unset}
    except RulesetError:
        return {}


def param_changes(model: Model, now: dict[str, Any], was: dict[str, tuple[Model, Any]]) -> list[dict]:
    """The parameters a revised cell sets to something other than what it had (or what its
    base sets), each in the parameter's own words: ``label``, ``name``, ``was``, ``now``
    (``not set`` where there is no value). A parameter the cell no longer sets is listed
    only where it had one of its own (``was`` from a previous version of the cell).

    >>> from harmony.model import Parameter
    >>> m = Model(parameters={"opfire.drm": Parameter(name="opfire.drm", type="modifier",
    ...                                               label="Opportunity fire modifier")})
    >>> param_changes(m, {"opfire.drm": 3}, {"opfire.drm": (m, 2)})
    [{'name': 'opfire.drm', 'label': 'Opportunity fire modifier', 'was': '+2', 'now': '+3'}]
    >>> param_changes(m, {"opfire.drm": 2}, {"opfire.drm": (m, 2)})
    []
    """
    rows = []
    for name in sorted(set(now) | set(was)):
        param = model.parameters.get(name)
        type_name = param.type if param is not None else None
        if name not in now and name in was and was[name][0] is model:
            continue                                   # set by the base only: nothing changed
        old_model, old_value = was.get(name, (model, None))
        before = paramtypes.norm(paramtypes.coerce(type_name, old_value), type_name) if name in was else None
        after = paramtypes.norm(paramtypes.coerce(type_name, now[name]), type_name) if name in now else None
        if name in was and name in now and before == after:
            continue

        def words(m: Model, present: bool, value: Any) -> str:
            p = m.parameters.get(name)
            return (paramtypes.phrase(p, value) if p is not None else render_value(value)) if present \
                else "not set"
        rows.append({"name": name, "label": paramtypes.label(param) if param is not None else name,
                     "was": words(old_model, name in was, old_value), "now": words(model, name in now, now.get(name))})
    return rows


def version_views(model: Model) -> list[dict]:
    """A page per version every revision declares: the first against its base (each
    revised cell beside the text it amends), a later one against the version before it
    (read from git history by :func:`harmony.diff.versions.model_at_version`; when
    history is not at hand, against what the cells amend)."""
    from ..diff.versions import model_at_version
    out = []
    files = version_files(model)
    for key in sorted(model.sources):
        src = model.sources[key]
        for i, v in enumerate(src.versions):
            at = model_at_version(model, src, v.version) or model
            cells = [c for cl in sorted(at.clauses.values(), key=lambda c: c.id)
                     for k, c in sorted(cl.cells.items()) if k == key and c.covered]
            prev_model, prev_version = None, None
            if i == 0:
                base = model.sources[src.base].title if src.base in model.sources else "its base"
                intro = (f"What version {v.version} adds to or changes in {base}: each revised "
                         "rule beside the text it amends, words taken out struck through and "
                         "words put in underlined.")
                chosen = [c for c in cells if c.relation is not None]
            else:
                prev_version = src.versions[i - 1].version
                prev_model = model_at_version(model, src, prev_version)
                intro = (f"What changed since version {prev_version}: each cell that records a "
                         f"change in {v.version}, beside what it was (or what it amends).")
                chosen = [c for c in cells if c.changed and c.changed.version == v.version]
            items = []
            for c in chosen:
                old = prev_model.cell(f"{c.clause_id}@{key}") if prev_model is not None else None
                items.append(change_view(at, c, old, prev_model, f"version {prev_version}", src.base))
            out.append({"file": files[(key, v.version)], "title": f"{src.title} {v.version} ({v.date})",
                        "note": v.note, "intro": intro, "items": items})
    return out
