"""The differences page says how rulebooks differ in sentences made from the data
(``parameters.yaml``: each parameter's ``label`` and ``words``), beside the cells' text."""
from __future__ import annotations

import html
import shutil
from pathlib import Path

from harmony import paramtypes
from harmony.loader import load
from harmony.site import views
from harmony.site.generate import ROOT
from harmony.site.testing import shipped_site

RULES = ROOT / "rules_data"
TRUCKS = "spot.transport-may-spot"


def sentences_of(model, clause_id: str) -> list[str]:
    return next(r["sentences"] for t in views.differences_view(model) for r in t["rows"]
                if r["id"] == clause_id)


def trucks_row(model) -> str:
    return next(c.id for c in model.clauses.values()
                if any(TRUCKS in cell.params for cell in c.cells.values()))


def test_a_parameter_difference_is_a_sentence_in_the_parameters_words():
    model, _ = load(RULES)
    cid = trucks_row(model)
    clause = model.clauses[cid]
    param = model.parameters[TRUCKS]
    stated = {k: c.params[TRUCKS] for k, c in clause.cells.items() if TRUCKS in c.params
              and c.status == "rule"}
    assert len(set(stated.values())) > 1
    said = [s for s in sentences_of(model, cid) if s.startswith(paramtypes.label(param) + ":")]
    assert len(said) == 1
    for key, value in stated.items():
        assert f"{key} {paramtypes.phrase(param, value)}" in said[0]


def test_changing_a_parameter_in_a_scratch_copy_changes_the_sentence(tmp_path):
    rules = tmp_path / "rules_data"
    shutil.copytree(RULES, rules)
    model, _ = load(rules)
    cid = trucks_row(model)
    label = paramtypes.label(model.parameters[TRUCKS])
    before = [s for s in sentences_of(model, cid) if s.startswith(label)]
    assert before
    # the label lives in parameters.yaml: change it there, and flip one rulebook's value
    params_file = rules / "parameters.yaml"
    params_file.write_text(params_file.read_text("utf-8").replace(f"label: {label}",
                                                                   "label: Lorries and wagons spot"),
                           "utf-8")
    clause = model.clauses[cid]
    key = next(k for k, c in clause.cells.items() if c.params.get(TRUCKS) is False)
    cell = clause.cells[key]
    path = Path(cell.file)
    assert path.is_relative_to(rules)
    lines = path.read_text("utf-8").split("\n")
    idx = next(i for i in range(cell.pos().line - 1, len(lines)) if f"{TRUCKS}: false" in lines[i])
    lines[idx] = lines[idx].replace(f"{TRUCKS}: false", f"{TRUCKS}: true", 1)
    path.write_text("\n".join(lines), "utf-8")
    changed, _ = load(rules)
    after = [s for s in sentences_of(changed, cid) if s.startswith("Lorries and wagons spot:")]
    assert after and after != before
    assert f"{key} yes" in after[0] and f"{key} no" in before[0]


def test_the_differences_page_shows_the_sentences_and_the_cells_text():
    site = shipped_site()
    model, _ = load(RULES)
    body = html.unescape((site.out / "differences.html").read_text("utf-8"))
    rows = [r for t in views.differences_view(model) for r in t["rows"]]
    assert rows
    for row in rows:
        for sentence in row["sentences"]:
            assert sentence in body, sentence
    assert "Differs in" not in body
    # each rulebook's own words are beside the sentences, linked to the cell
    row = rows[0]
    cell = next(c for c in row["cells"] if c["text"] and c["status"] != "not-covered")
    first_words = " ".join(cell["text"].split()[:3])
    assert first_words in body
    assert f'href="topics/{model.clauses[row["id"]].topic}.html#{row["id"]}@{cell["source"]}"' in body


def test_a_standing_difference_is_said_in_words():
    model, _ = load(RULES)
    rows = [r for t in views.differences_view(model) for r in t["rows"] if "status" in r["differs_in"]]
    assert rows
    assert all(any(s.startswith("Standing: ") for s in r["sentences"]) for r in rows)


def test_the_examples_index_has_a_disagreement_scoreboard():
    from harmony import game
    site = shipped_site()
    model, _ = load(RULES)
    body = html.unescape((site.out / "examples" / "index.html").read_text("utf-8"))
    assert 'class="hm-outcomes hm-scoreboard"' in body
    questions = splits = 0
    for sid in sorted(model.scenarios):
        result = game.run_scenario(model, sid)     # each scenario by its own game
        by_question: dict = {}
        for r in result.rulings:
            by_question.setdefault((r.step, r.question), set()).add(views.ruling_word(r.actual))
        questions += len(by_question)
        splits += sum(1 for words in by_question.values() if len(words) > 1)
        for _step, question in by_question:
            assert question in body
    assert body.count('<tr class="hm-split">') == splits > 0
    assert f"{splits} of {questions} split the rulesets" in body


def test_the_what_changed_page_diffs_each_revision_against_the_text_it_amends():
    from harmony.diff.rst import plain_cell_text
    from harmony.diff.words import word_diff
    site = shipped_site()
    model, _ = load(RULES)
    versions = [(s, v) for s in model.sources.values() for v in s.versions]
    assert versions
    for src, v in versions:   # a page for every version a source declares
        assert (site.out / f"{views.version_file(src, v.version)}.html").is_file()
    src, v = next((s, v) for s, v in versions if s.key == "REV")
    raw = (site.out / f"{views.version_file(src, v.version)}.html").read_text("utf-8")
    body = html.unescape(raw)
    assert "highlight-python" not in raw and "highlight-default" not in raw and "<pre" not in raw
    amended = [c for c in model.clauses.values() for k, c2 in c.cells.items()
               if k == "REV" and c2.relation and c2.relation.type == "amends" and
               any("@" in t for t in c2.relation.clauses)]
    assert amended
    clause = amended[0]
    cell = clause.cells["REV"]
    target = next(t for t in cell.relation.clauses if "@" in t)
    topic = model.clauses[target.split("@")[0]].topic
    # the amends: target is a link, and so is the revised cell
    assert f'href="topics/{topic}.html#{target}"' in body
    assert f'href="topics/{clause.topic}.html#{clause.id}@REV"' in body
    # the deleted and inserted words are those harmony diff computes
    old = " ".join(plain_cell_text(model, model.cell(target), model.cell(target).text).split())
    new = " ".join(plain_cell_text(model, cell, cell.text).split())
    pieces = word_diff(old, new)
    for op, words in pieces:
        if op == "delete":
            assert f"<del>{html.escape(words, quote=False)}</del>" in raw
        elif op == "insert":
            assert f"<ins>{html.escape(words, quote=False)}</ins>" in raw
