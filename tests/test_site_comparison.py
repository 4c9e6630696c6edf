"""The comparison page: built from the comparison record, quoting the clause cells it names."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harmony.check import check_path
from harmony.markup import plain_text
from harmony.site.comparison import comparison_view
from harmony.site.generate import pages
from harmony.site.testing import shipped_site
from editing import edit

PAGE = "comparisons/spotting-across-systems"


class Cells(HTMLParser):
    """The comparison table's header labels, row ids, and each cell's text and links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.heads: list[str] = []
        self.rows: list[str] = []
        self.cells: list[dict] = []
        self.where: list[str] = []
        self.in_table = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "hm-comparison" in (a.get("class") or ""):
            self.in_table = True
        if not self.in_table:
            return
        self.where.append(tag)
        if tag == "tr" and a.get("id"):
            self.rows.append(a["id"])
        if tag == "th" and a.get("data-col"):
            self.heads.append(a["data-col"])
        if tag == "td":
            self.cells.append({"col": a.get("data-col"), "row": self.rows[-1], "class": a.get("class"),
                               "text": "", "links": []})
        if tag == "a" and self.cells and "td" in self.where:
            self.cells[-1]["links"].append(a.get("href"))

    def handle_endtag(self, tag):
        if self.in_table and self.where:
            self.where.pop()
        if tag == "table":
            self.in_table = False

    def handle_data(self, data):
        if self.in_table and self.cells and "td" in self.where:
            self.cells[-1]["text"] += data


@pytest.fixture(scope="module")
def built():
    site = shipped_site()
    parser = Cells()
    parser.feed((site.out / f"{PAGE}.html").read_text("utf-8"))
    return site.out, parser


def test_the_page_is_a_table_of_the_five_systems_and_six_questions(built, shipped_model):
    _, page = built
    assert page.heads == ["PB", "PL", "AIW", "REV", "CP"]
    assert page.rows == [f"spotting-across-systems.{a.id}"
                         for a in shipped_model.comparisons["spotting-across-systems"].aspects]
    assert len(page.cells) == 5 * 6


def test_each_cell_quotes_its_clause_cells_and_links_to_their_rows(built, shipped_model):
    out, page = built
    c = shipped_model.comparisons["spotting-across-systems"]
    for cell in page.cells:
        entry = c.aspect(cell["row"].rsplit(".", 1)[1]).cells[cell["col"]]
        text = " ".join(cell["text"].split())
        if not entry.covered:
            assert "hm-status-not-covered" in cell["class"] and entry.note in text
            continue
        for ref in entry.refs:
            quoted = " ".join(plain_text(shipped_model.cell(ref).text).split())
            assert quoted[:60] in text, (ref, text[:200])
            clause = shipped_model.clauses[ref.split("@")[0]]
            link = next(h for h in cell["links"] if h.endswith("#" + ref))
            target = (out / PAGE).parent / link.split("#")[0]
            assert target.resolve() == (out / "topics" / f"{clause.topic}.html").resolve()
            assert f'id="{ref.replace("@", "&#64;")}"' in target.read_text("utf-8")


def test_the_page_is_reachable_from_the_index_and_the_cp_section(built):
    out, _ = built
    assert f'href="{PAGE}.html"' in (out / "index.html").read_text("utf-8")
    for topic in ("alternate-spotting", "cp-night", "spotting"):
        html = (out / "topics" / f"{topic}.html").read_text("utf-8")
        assert f'Set beside other systems: <a class="reference internal" href="../{PAGE}.html">' in html, topic
    assert "Set beside other systems" not in (out / "topics" / "cp-body-armour.html").read_text("utf-8")


def test_the_page_follows_the_data(rules_copy):
    """Change a quoted cell's text and a summary in a scratch copy: the page says the new words."""
    edit(rules_copy, "combat-patrol.yaml", "It does not matter whether the team\n          that first "
         "spotted it survives", "It does not matter whether the squad\n          that first spotted it "
         "survives")
    edit(rules_copy, "comparisons.yaml", "summary: When it ends an activation out of sight of every "
         "enemy team.", "summary: Once it ends an activation unseen.")
    model, report = check_path(rules_copy)
    assert not report.errors
    text = pages(model)[f"{PAGE}.rst"]
    assert "whether the squad that first spotted it survives" in text
    assert "Once it ends an activation unseen." in text
    view = comparison_view(model, model.comparisons["spotting-across-systems"])
    lapse = next(r for r in view["rows"] if r["id"] == "lapse")
    assert [q["anchor"] for q in lapse["cells"][4]["quotes"]] == ["alternate-spotting.persistence@CP"]


def test_the_page_is_deterministic(shipped_model):
    first = pages(shipped_model)[f"{PAGE}.rst"]
    assert first == pages(shipped_model)[f"{PAGE}.rst"]
    assert re.search(r"^\.\. harmony-comparison::$", first, re.M)


def test_no_comparison_no_page(rules_copy):
    (rules_copy / "comparisons.yaml").unlink()
    model, report = check_path(rules_copy)
    assert not report.errors
    out = pages(model)
    assert not [name for name in out if name.startswith("comparisons/")]
    assert "Set beside other systems" not in out["topics/spotting.rst"]


def test_comparison_views_need_no_site_build(shipped_model):
    """The view is plain data (JSON-ready), so the page's bytes follow the model alone."""
    import json
    view = comparison_view(shipped_model, shipped_model.comparisons["spotting-across-systems"])
    assert json.loads(json.dumps(view)) == view
    assert Path(__file__).exists()
