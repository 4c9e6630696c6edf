"""The loader, the schema and the checks on small in-memory folders."""
from pathlib import Path


from harmony.check import check_path
from harmony.loader import load

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"

SOURCES = """\
sources:
  - {key: PB, title: PanzerBlitz, author: A, year: 1970, kind: canonical}
  - {key: PL, title: Panzer Leader, author: A, year: 1974, kind: canonical}
  - {key: REV, title: Revised, author: B, year: 2013, kind: revision, base: PB,
     versions: [{version: '0.1', date: '2013-04-05'}]}
parameters:
  - {name: opfire.drm, type: modifier, description: DRM, default: 0}
  - {name: spot.trucks, type: bool, description: trucks spot, default: false}
glossary:
  - {term: concealing terrain, definition: Woods and town.}
footnotes:
  - {id: rev-4, source: REV, text: Trucks may spot.}
topics:
  - id: spotting
    title: Spotting
    summary: Who may be fired on.
    order: 1
    sources: [PB, PL, REV]
    aspects:
      - {id: rule, title: Rule}
"""

CLAUSE = """\
clauses:
  - id: spotting.rule
    topic: spotting
    aspect: rule
    cells:
      PB:
        status: rule
        text: A unit in [[concealing terrain]] needs spotting.
        cite: {source: PB, section: Spotting}
        params: {spot.trucks: true}
      PL: not-covered
      REV:
        status: rule
        text: Trucks spot[^rev-4] at {{ opfire.drm }}.
        cite: {source: REV, section: Spotting}
        relation: {type: amends, clauses: [spotting.rule@PB]}
        params: {opfire.drm: 1}
"""


def folder(tmp_path, **files):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def problems(path):
    _, report = check_path(path)
    return [(d.pos.path.rsplit("/", 1)[-1], d.pos.line, d.pos.col, d.code) for d in report.sorted()]


def test_a_clean_folder_has_no_problems(tmp_path):
    assert problems(folder(tmp_path, **{"a.yaml": SOURCES, "b.yaml": CLAUSE})) == []


def test_values_keep_their_file_line_and_column(tmp_path):
    model, _ = load(folder(tmp_path, **{"a.yaml": SOURCES, "b.yaml": CLAUSE}))
    cell = model.clauses["spotting.rule"].cells["REV"]
    pos = cell.pos("params", "opfire.drm")
    assert (Path(pos.path).name, pos.line, pos.col) == ("b.yaml", 17, 30)
    assert model.clauses["spotting.rule"].cells["PL"].pos().line == 11


def test_every_problem_is_reported_not_only_the_first(tmp_path):
    bad = CLAUSE.replace("[[concealing terrain]]", "[[hidden ground]]") \
        .replace("type: amends, clauses: [spotting.rule@PB]", "type: amends, clauses: [nowhere]") \
        .replace("{opfire.drm: 1}", "{opfire.drm: '1', opfire.nope: 2}") \
        .replace("      PL: not-covered\n", "")
    found = {code for *_, code in problems(folder(tmp_path, **{"a.yaml": SOURCES, "b.yaml": bad}))}
    assert {"unresolved-term", "unresolved-clause", "parameter-type", "unknown-parameter",
            "missing-cell"} <= found


def test_a_revision_cell_without_relation_is_an_error(tmp_path):
    bad = CLAUSE.replace("        relation: {type: amends, clauses: [spotting.rule@PB]}\n", "")
    assert ("b.yaml", 13, 17, "missing-relation") in problems(
        folder(tmp_path, **{"a.yaml": SOURCES, "b.yaml": bad}))


def test_duplicate_ids_across_files_point_at_the_second(tmp_path):
    f = folder(tmp_path, **{"a.yaml": SOURCES, "b.yaml": CLAUSE, "c.yaml": CLAUSE})
    assert ("c.yaml", 2, 9, "duplicate-id") in problems(f)


def test_the_shipped_rules_data_is_clean():
    _, report = check_path(RULES)
    assert report.errors == [], report.to_text()


def test_a_file_read_again_is_reused_until_its_bytes_change(tmp_path):
    from harmony import loader
    folder(tmp_path, **{"a.yaml": SOURCES, "b.yaml": CLAUSE})
    first, _ = load(tmp_path)
    again, _ = load(tmp_path)
    node = lambda m: m.clauses["spotting.rule"].node      # noqa: E731
    assert node(again) is node(first)                      # the parse was reused
    text = CLAUSE.replace("needs spotting", "must be spotted")
    assert len(text) == len(CLAUSE) + 1
    (tmp_path / "b.yaml").write_text(text.replace("must be", "must b"), encoding="utf-8")
    edited, report = load(tmp_path)                        # same size, other bytes
    assert node(edited) is not node(first) and not report.errors
    assert "must b spotted" in edited.clauses["spotting.rule"].cells["PB"].text
    (tmp_path / "b.yaml").write_text("clauses: [\n", encoding="utf-8")
    _, report = load(tmp_path)
    assert [d.pos.line for d in report.errors] and "b.yaml" in report.errors[0].pos.path
    assert len(loader._READ) <= loader._READ_LIMIT
