"""The static site: pages, anchors, the :clause: role, safety of clause text, determinism."""
from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from harmony.printer import size_words
from harmony.site import generate
from harmony.site.build import BuildError, build_site
from harmony.site.testing import shipped_site

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"

SAFETY = '''\
topics:
  - id: zz-safety
    title: 'Safety <script>alert("title")</script> **bold** :ref:`genindex`'
    summary: 'Summary <img src=x onerror=alert(1)> `link <http://example.invalid/>`_'
    order: 999
    sources: [PB, REV]
    aspects:
      - {id: rule, title: 'Aspect <em>raw</em>'}
clauses:
  - id: zz-safety.rule
    topic: zz-safety
    aspect: rule
    title: 'Title <script>alert("clause")</script>'
    cells:
      PB:
        status: rule
        text: |-
          Before <script>alert("xss")</script> and <b>raw bold</b>.

          .. raw:: html

             <div id="injected">injected</div>

          Then :ref:`genindex` and :clause:`spotting.rule` and |sub| and **strong**.
        note: 'A note with .. include:: /etc/passwd and <i>italic</i>'
        cite: {source: PB, section: '<u>Spotting</u>', via: HARMONY}
      REV:
        status: rule
        text: 'Revision ``code`` and `title`_ and [#]_ and zebrafish-marker.'
        cite: {source: REV, document: spotting, section: Spotting}
        relation: {type: adds, clauses: []}
    qa:
      - source: PB
        question: 'Q <script>q()</script>?'
        answer: 'A .. raw:: html <b>x</b>'
        cite: {source: PB, section: QA, via: HARMONY}
'''


@pytest.fixture(scope="session")
def site():
    return shipped_site()


@pytest.fixture(scope="session")
def model(shipped_model):
    return shipped_model


def ids_of(page: Path) -> set[str]:
    return {html.unescape(m) for m in re.findall(r'\sid="([^"]+)"', page.read_text("utf-8"))}


def text_of(page: Path) -> str:
    """The visible text of a page (tags dropped, entities decoded)."""
    body = re.sub(r"<script.*?</script>", " ", page.read_text("utf-8"), flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


# ------------------------------------------------------------------ pages
def test_home_lists_the_sources_with_their_metadata(site, model):
    text = " ".join(text_of(site.out / "index.html").split())
    for s in model.sources.values():
        assert s.title in text
        assert s.author in text
        if s.year:
            assert str(s.year) in text
    rev = model.sources["REV"]
    assert f"{rev.version} ({rev.date})" in text
    assert "revision of PB" in text


def test_every_clause_has_its_permalink_on_its_topic_page(site, model):
    for clause in model.clauses.values():
        page = site.out / "topics" / f"{clause.topic}.html"
        ids = ids_of(page)
        assert clause.id in ids, clause.id
        for key in model.topics[clause.topic].sources:
            assert f"{clause.id}@{key}" in ids


def test_topic_table_is_accessible_markup(site, model):
    topic = model.topics_in_order()[0]
    page = (site.out / "topics" / f"{topic.id}.html").read_text("utf-8")
    assert "<caption>" in page
    assert page.count('scope="col"') >= len(topic.sources) + 1
    assert page.count('scope="row"') == len(model.clauses_of(topic.id))
    for key in topic.sources:
        assert f'data-col="{key}"' in page
    assert 'class="hm-chooser"' in page and 'type="checkbox"' in page


def test_rulebook_tables_render_on_the_topic_pages_that_cite_them(site, model):
    """A numbered table is captioned with its number; a table the rules state in a section's
    text has no number and is captioned with its title, cited to its section."""
    def shown(tid: str) -> str:
        """The words of a table's box on its topic page, with its notes and citation."""
        clause = next(c for c in model.clauses.values() for cell in c.cells.values()
                      if model.tables[tid] in model.cited_tables(cell.cites))
        body = (site.out / "topics" / f"{clause.topic}.html").read_text("utf-8")
        start = body.index(f'id="table-{tid}"')
        start = body.index(">", start) + 1
        return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body[start: body.index("</section>", start)])).split())

    assert shown("cp-night-sighting").startswith("Table 6: Sighting distances at night Vision")
    assert "Naked eye 6 12 24" in shown("cp-night-sighting")
    horse = shown("cp-horse-or-rider")
    assert horse.startswith("Horse or rider, by the ten-sided die icon Hit Ten-sided die icon "
                            "Horse 1 to 7 Rider 8 to 10")
    assert horse.endswith("(section 7) (not named in the booklet (G.A.M.E.R. system)), 7.10.2")
    assert "A wound becomes Reduced 1 to 9 wounded stunned Full effect 10 incapacitated wounded" \
        in shown("cp-body-armour-die")
    assert shown("cp-body-armour-die").endswith(", 7.9.1")
    assert "How many (places) Beyond capacity counted after" in shown("cp-soft-skinned-count")
    cavalry = " ".join(text_of(site.out / "topics" / "cp-cavalry.html").split()).replace(" ,", ",")
    assert "On 1 to 7 the horse is hit; on 8 to 10, the rider." in cavalry
    page = (site.out / "topics" / "cp-cavalry.html").read_text("utf-8")
    assert 'title="from table cp-horse-or-rider/horse/die">1 to 7</span>' in page


def test_revision_cells_show_their_relation_to_the_canonical_cells(site, model):
    clause = next(c for c in model.clauses.values()
                  if "REV" in c.cells and c.cells["REV"].relation and c.cells["REV"].relation.clauses)
    page = site.out / "topics" / f"{clause.topic}.html"
    body = page.read_text("utf-8")
    rel = clause.cells["REV"].relation
    cell = body[body.index(f'id="{clause.id}&#64;REV"'):]
    cell = cell[:cell.index("</td>")]
    assert f"hm-rel-{rel.type}" in cell
    target = rel.clauses[0].replace("@", "&#64;")
    assert f'href="#{target}"' in cell or f'#{target}"' in cell


def test_parameters_are_rendered_with_render_value(site, model):
    from harmony.markup import render_value
    clause, name = next((c, n) for c in model.clauses.values() for cell in c.cells.values()
                        for n in cell.params if cell.text and "{{" in cell.text and n in cell.text)
    cell = next(cell for cell in clause.cells.values() if name in cell.params)
    shown = render_value(cell.params[name], model.parameters[name].type)
    body = (site.out / "topics" / f"{clause.topic}.html").read_text("utf-8")
    assert f'title="parameter {name}">{html.escape(shown)}</span>' in body


def test_glossary_terms_link_to_their_anchor(site, model):
    glossary_ids = ids_of(site.out / "glossary.html")
    for t in model.glossary.values():
        assert t.anchor in glossary_ids
    linked = re.findall(r'href="\.\./glossary\.html#(term-[^"]+)"',
                        "".join(p.read_text("utf-8") for p in (site.out / "topics").glob("*.html")))
    assert linked and set(linked) <= glossary_ids


def test_revision_page_in_its_own_order_with_version_and_date(site, model):
    rev = model.sources["REV"]
    page = site.out / "revisions" / "REV.html"
    text = " ".join(text_of(page).split())
    assert f"version {rev.version} of {rev.date}" in text
    titles = re.findall(r"<h3>(.*?)<a", page.read_text("utf-8"))
    order = [t.split(":")[0] for t in titles]
    first = {a: order.index(a) for a in ("The rule", "Recording", "Limitation") if a in order}
    assert list(first) == sorted(first, key=first.get)


def test_differences_index_lists_rows_that_disagree(site, model):
    body = (site.out / "differences.html").read_text("utf-8")
    rows = {v["id"] for t in generate.views.differences_view(model) for v in t["rows"]}
    assert rows
    for cid in rows:
        assert f"#{cid}" in body
    same = [c.id for c in model.clauses.values()
            if len({(x.status, x.text, str(sorted(x.params.items()))) for x in c.cells.values()
                    if x.covered}) == 1]
    for cid in same:
        assert f'#{cid}"' not in body


def test_search_index_holds_clause_words(site):
    index = (site.out / "searchindex.js").read_text("utf-8")
    assert '"spotted"' in index and '"opportun' in index


def test_the_site_builds_without_a_sphinx_warning(site):
    # Generated and hand-written pages alike: a broken table or reference in the
    # authoring guide is as much a defect as one in a topic page.
    assert site.warnings == []


def test_the_cards_and_the_change_pages_are_there(site):
    assert (site.out / "print" / "cards.html").is_file()
    assert 'href="print/cards.html"' in (site.out / "cards.html").read_text("utf-8")
    assert list(site.out.glob("changes-*.html"))


def test_the_site_offers_the_rule_cards_as_a_pdf(site, model):
    from harmony.cards import collect, rules_with_cards
    pdf = site.out / "print" / "harmony-cards.pdf"
    assert 'href="print/harmony-cards.pdf"' in (site.out / "cards.html").read_text("utf-8")
    reader = PdfReader(str(pdf))
    said = f"(PDF, {len(reader.pages)} pages, {size_words(pdf.stat().st_size)})"   # as the rulebooks' links
    assert said in (site.out / "cards.html").read_text("utf-8")
    sets = rules_with_cards(model)
    assert {"PL", "REV"} <= set(sets)                       # every ruleset with cards, not one
    cards = collect(model, sets)
    assert cards and len(reader.pages) == -(-len(cards) // 9)      # nine to an A4 sheet
    text = " ".join(page.extract_text() for page in reader.pages)
    assert all(card.title.split()[0] in text for card in cards)


def test_the_pdf_is_printed_again_only_when_the_cards_change(tmp_path, rules_copy, monkeypatch):
    import harmony.cards
    log = tmp_path / "printed.log"     # the PDFs are printed in other processes: they say so here
    real = harmony.cards.print_pdf

    def counting(html):
        with log.open("a") as f:
            f.write("cards\n")
        return real(html)
    monkeypatch.setattr(harmony.cards, "print_pdf", counting)

    def printed() -> int:
        return len(log.read_text().splitlines()) if log.exists() else 0
    rules = rules_copy
    out = tmp_path / "out"
    first = build_site(rules, out)
    assert "print/harmony-cards.pdf" in first.extras and printed() == 1
    assert "print/harmony-cards.pdf" in first.printed
    pdf = out / "print" / "harmony-cards.pdf"
    before = pdf.read_bytes()
    second = build_site(rules, out)
    assert "print/harmony-cards.pdf" not in second.extras + second.printed
    assert printed() == 1                      # same cards: WeasyPrint not run again
    path = rules / "spotting.yaml"
    text = path.read_text("utf-8")
    assert "title: Who spots\n" in text
    path.write_text(text.replace("title: Who spots\n", "title: Who may spot\n", 1), "utf-8")
    again = build_site(rules, out)
    assert "print/harmony-cards.pdf" in again.extras and pdf.read_bytes() != before
    assert printed() == 2 and "print/harmony-cards.pdf" in again.printed
    assert "Who may spot" in " ".join(p.extract_text() for p in PdfReader(str(pdf)).pages)


# ------------------------------------------------------------------ the :clause: role
def _site_copy(tmp_path: Path, extra: str) -> Path:
    site_dir = tmp_path / "site"
    shutil.copytree(generate.SITE, site_dir)
    (site_dir / "zz-extra.rst").write_text(extra, encoding="utf-8")
    return site_dir


def test_clause_role_links_and_warns_on_unknown_ids(tmp_path, model):
    cid = sorted(c.id for c in model.clauses.values() if "PB" in model.topics[c.topic].sources)[0]
    topic = model.clauses[cid].topic
    extra = ("A prose page\n============\n\n"
             f"See :clause:`{cid}` and :clause:`{cid}@PB`.\n\n"
             "And :clause:`no.such-clause` here.\n")
    res = build_site(RULES, tmp_path / "out", site_dir=_site_copy(tmp_path, extra))
    body = (res.out / "zz-extra.html").read_text("utf-8")
    assert f'href="topics/{topic}.html#{cid}"' in body
    assert f'href="topics/{topic}.html#{cid}&#64;PB"' in body
    bad = [w for w in res.warnings if "no.such-clause" in w]
    assert len(bad) == 1
    assert re.search(r"zz-extra\.rst:6: WARNING: unknown clause id 'no\.such-clause'", bad[0]), bad


# ------------------------------------------------------------------ safety
@pytest.fixture(scope="module")
def unsafe_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("unsafe")
    shutil.copytree(RULES, root / "rules_data")
    (root / "rules_data" / "zz-safety.yaml").write_text(SAFETY, encoding="utf-8")
    return build_site(root / "rules_data", root / "out")


def test_clause_text_is_data_never_markup(unsafe_site):
    out = unsafe_site.out
    page = (out / "topics" / "zz-safety.html").read_text("utf-8")
    # nothing the text says becomes an element
    assert "<script>alert" not in page and "<b>raw bold</b>" not in page
    assert 'id="injected"' not in page and "<img src=x" not in page
    assert "<em>raw</em>" not in page and "<i>italic</i>" not in page and "<u>Spotting" not in page
    assert 'href="http://example.invalid/' not in page
    assert "<strong>strong</strong>" not in page
    # ... it is shown as the characters it is
    text = text_of(out / "topics" / "zz-safety.html")
    for literal in ('<script>alert("xss")</script>', "<b>raw bold</b>", ".. raw:: html",
                    '<div id="injected">injected</div>', ":ref:`genindex`", ":clause:`spotting.rule`",
                    "|sub|", "**strong**", ".. include:: /etc/passwd", "``code``", "`title`_", "[#]_",
                    'Title <script>alert("clause")</script>', "Q <script>q()</script>?",
                    'Safety <script>alert("title")</script> **bold** :ref:`genindex`',
                    "Summary <img src=x onerror=alert(1)>", "Aspect <em>raw</em>", "<u>Spotting</u>"):
        assert literal in text, literal
    # the safety page raised no Sphinx problem (nothing was parsed)
    assert not [w for w in unsafe_site.warnings if "zz-safety" in w]
    # and every page that shows the text escapes it too
    for p in out.rglob("*.html"):
        body = p.read_text("utf-8")
        assert "<script>alert" not in body and 'id="injected"' not in body, p


def test_unsafe_text_is_still_searchable(unsafe_site):
    assert '"zebrafish' in (unsafe_site.out / "searchindex.js").read_text("utf-8")


# ------------------------------------------------------------------ errors
def test_rules_with_errors_are_refused_with_positions(tmp_path, rules_copy):
    (tmp_path / "rules_data" / "zz-bad.yaml").write_text("clauses:\n  - id: x\n", encoding="utf-8")
    with pytest.raises(BuildError) as e:
        build_site(tmp_path / "rules_data", tmp_path / "out")
    assert any("zz-bad.yaml:2" in str(d) for d in e.value.report.errors)
    run = subprocess.run([sys.executable, "-m", "harmony", "build", str(tmp_path / "rules_data"),
                          "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1
    assert "zz-bad.yaml:2:" in run.stderr and "Traceback" not in run.stderr


def test_build_command_prints_where_the_site_is(tmp_path):
    run = subprocess.run([sys.executable, "-m", "harmony", "build"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "build" / "site" / "index.html").is_file()
    assert str(tmp_path / "build" / "site") in run.stdout
