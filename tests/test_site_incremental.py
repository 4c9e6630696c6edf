"""The site build is deterministic and incremental (content hashes, not times)."""
from __future__ import annotations

import filecmp
import html
import io
import os
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from harmony.loader import load, new_yaml
from harmony.rulebook.site import size_words
from harmony.rulebook import site as rulebook_site
from harmony import printer
from harmony.site import views
from harmony.site.build import CACHE, build_site

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"


def site_files(out: Path) -> dict[str, Path]:
    return {p.relative_to(out).as_posix(): p for p in sorted(out.rglob("*"))
            if p.is_file() and CACHE not in p.relative_to(out).parts}


def test_same_input_gives_the_same_bytes(tmp_path, monkeypatch, harmony_cache):
    """Three times: once with the PDFs printed in processes of their own while Sphinx runs,
    once printed in this process before it (the PDFs remembered across builds turned off),
    once into a new folder with each PDF taken from those remembered
    (:mod:`harmony.printcache`): the same bytes, the PDFs and their links included."""
    a = build_site(RULES, tmp_path / "a")
    monkeypatch.setattr(printer, "default_workers", lambda jobs: 0)
    monkeypatch.setenv("HARMONY_CACHE", "off")
    b = build_site(RULES, tmp_path / "b")
    assert a.printed == b.printed and len(a.printed) > 5
    monkeypatch.setenv("HARMONY_CACHE", str(harmony_cache))
    c = build_site(RULES, tmp_path / "c")
    assert c.printed == []                           # each PDF remembered from a's build
    fa = site_files(a.out)
    assert len(fa) > 20 and len([f for f in fa if f.endswith((".pdf", ".epub"))]) == len(a.printed)
    for other in (b, c):
        fo = site_files(other.out)
        assert fa.keys() == fo.keys()
        different = [rel for rel in fa if not filecmp.cmp(fa[rel], fo[rel], shallow=False)]
        assert different == []


def _pick_clause(model):
    """A clause whose PL text already differs from another rulebook's (so editing it changes
    only its topic page: not the differences index, the revision pages or the glossary)."""
    diff_rows = {r["id"]: r for t in views.differences_view(model) for r in t["rows"]}
    for cid in sorted(diff_rows):
        clause = model.clauses[cid]
        cell = clause.cells.get("PL")
        if cell is not None and cell.text and "text" in diff_rows[cid]["differs_in"] \
                and "{{" not in cell.text:
            return clause
    pytest.skip("no clause with a PL text to edit")  # pragma: no cover


def _edit_text(clause, suffix: str) -> None:
    y = new_yaml()
    path = Path(clause.file)
    tree = y.load(path.read_text("utf-8"))
    node = next(c for c in tree["clauses"] if c["id"] == clause.id)
    node["cells"]["PL"]["text"] = str(node["cells"]["PL"]["text"]) + suffix
    with path.open("w", encoding="utf-8") as f:
        y.dump(tree, f)


def test_a_one_clause_edit_rewrites_only_the_pages_that_show_it(tmp_path, rules_copy, shipped_cache):
    """(A cache of its own, holding only the shipped rules' PDFs: the edited rulebook must be
    laid out, not remembered from an earlier run of this test: harmony.printcache.)"""
    rules = rules_copy
    out = tmp_path / "out"
    first = build_site(rules, out)
    assert first.read and "index" in first.read

    again = build_site(rules, out)
    assert again.staged.written == [] and again.read == []
    assert set(again.written) <= {"genindex", "search"}

    model, _ = load(rules)
    clause = _pick_clause(model)
    doc = views.topic_doc(clause.topic)
    before = {rel: p.read_bytes() for rel, p in site_files(out).items()}
    cwd = os.getcwd()
    os.chdir(tmp_path)  # clause.file is relative to where the model was loaded
    try:
        model, _ = load("rules_data")
        _edit_text(model.clauses[clause.id], " Quokka-edit.")
    finally:
        os.chdir(cwd)
    edited = build_site(rules, out)
    # the differences page shows the rulebooks' own text beside its sentences, and a
    # what-changed page shows it beside each revised cell that amends it
    amending = sorted(v["file"] for v in views.version_views(model) for item in v["items"]
                      if any(p["old_cell"] == f"{clause.id}@PL" for p in item["pairs"]))
    # and a comparison page quotes the cell's text
    amending += sorted(f"comparisons/{c.id}" for c in model.comparisons.values()
                       if any(f"{clause.id}@PL" in cell.refs for a in c.aspects for cell in a.cells.values()))
    # and PL's rulebook is printed again; where its link says something new (its size in KB,
    # its pages), the index and the sources page, which include those links, and the page of
    # rulebooks, which lists them, are written again too (not re-read: the words are put in
    # as the pages are written), and only then
    pl = "print/PL-rulebook.pdf"
    words = [(size_words(len(b)), len(PdfReader(io.BytesIO(b)).pages))
             for b in (before[pl], (out / pl).read_bytes())]
    relinked = words[0] != words[1]
    assert edited.staged.written == sorted([f"{doc}.rst", "differences.rst"]
                                           + [f"{a}.rst" for a in amending])
    assert edited.read == sorted([doc, "differences"] + amending)
    epub = pl.replace(".pdf", ".epub")      # the PL rulebook's EPUB, listed (with its size) there
    relisted = relinked or size_words(len(before[epub])) != size_words(len((out / epub).read_bytes()))
    linking = (["index", "sources"] if relinked else []) + (["rulebooks"] if relisted else [])
    assert edited.printed == [epub, pl]
    assert [f for f in edited.extras if f.startswith("print/")] == (["print/rulebooks.html"] if relisted
                                                                     else []) + [pl, epub]
    # Sphinx also re-writes the page whose toctree lists the edited one (its titles may show there)
    assert set(edited.written) == {doc, "differences", "topics/index", "index", "genindex", "search",
                                   *linking, *amending}
    after = {rel: p.read_bytes() for rel, p in site_files(out).items()}
    changed = {rel for rel in after if before.get(rel) != after[rel]}
    html_changed = {rel for rel in changed if rel.endswith(".html") and not rel.startswith("print/")}
    assert f"{doc}.html" in html_changed
    assert html_changed <= {f"{doc}.html", "differences.html", "genindex.html", "search.html",
                            "index.html", "sources.html", "rulebooks.html", *(f"{a}.html" for a in amending)}
    assert "Quokka-edit." in (out / f"{doc}.html").read_text("utf-8")


def test_a_title_edit_leaves_no_page_with_the_old_title(tmp_path, rules_copy):
    """Pages that refer to a clause show its title (the link's tooltip) without their own
    source changing: an incremental build re-writes them, and gives a clean build's bytes."""
    out = build_site(rules_copy, tmp_path / "out").out
    model, _ = load(rules_copy)
    pages = {rel: p.read_text("utf-8") for rel, p in site_files(out).items() if rel.endswith(".html")}

    def showing(title: str) -> list[str]:
        return sorted(rel for rel, text in pages.items() if f'title="{html.escape(title)}"' in text)
    titles = [c.title for c in model.clauses.values()]
    clause = max((c for c in model.clauses.values() if c.title and titles.count(c.title) == 1),
                 key=lambda c: (len(showing(c.title)), c.id))
    old = clause.title
    assert len(showing(old)) > 3      # pages beside the clause's own refer to it
    y = new_yaml()
    path = Path(clause.file)
    tree = y.load(path.read_text("utf-8"))
    next(c for c in tree["clauses"] if c["id"] == clause.id)["title"] = "Quokka retitled"
    with path.open("w", encoding="utf-8") as f:
        y.dump(tree, f)
    edited = build_site(rules_copy, out)
    assert edited.read and len(edited.written) > len(edited.read)   # re-written, not re-read
    now = {rel: p.read_bytes() for rel, p in site_files(out).items()}
    clean = {rel: p.read_bytes() for rel, p in site_files(build_site(rules_copy, tmp_path / "clean").out).items()}

    def with_old(site: dict[str, bytes]) -> list[str]:
        return sorted(rel for rel, data in site.items() if rel.endswith(".html")
                      and f'title="{html.escape(old)}"'.encode() in data)
    assert with_old(now) == with_old(clean) == []
    assert now.keys() == clean.keys()
    assert [rel for rel in now if now[rel] != clean[rel]] == []


def test_a_rulebook_whose_pages_change_is_relinked_without_reading_a_page_again(tmp_path, rules_copy,
                                                                                monkeypatch, shipped_cache):
    """The links say each rulebook's pages and size, known only once it is printed (while
    Sphinx reads the pages): when they change and no page's source does, the pages that link
    it are written again with the new words, and the site is a clean build's bytes."""
    first = build_site(rules_copy, tmp_path / "out")
    out = first.out
    db = "print/DB-rulebook.pdf"
    pages = len(PdfReader(str(out / db)).pages)
    linking = sorted(rel[:-5] for rel, p in site_files(out).items()
                     if rel.endswith(".html") and not rel.startswith("print/")
                     and f'{db}">' in p.read_text("utf-8"))
    assert {"index", "sources", "rulebooks"} <= set(linking)
    # the pages that wait for a PDF's words ("(PDF, 9 pages, 1 KB)") are written last, only
    # Sphinx's index of terms and search page after them
    any_pdf = {rel[:-5] for rel, p in site_files(out).items() if rel.endswith(".html")
               and not rel.startswith("print/") and re.search(r"\((PDF|EPUB), \d", p.read_text("utf-8"))}
    documents = [doc for doc in first.written if doc not in {"genindex", "search"}]
    assert len(documents) > len(any_pdf) >= len(linking)
    assert set(documents[-len(any_pdf):]) == any_pdf
    real = rulebook_site.pdf_html

    def longer(model, key, paper="a4"):   # one more page in DB's rulebook, and only there
        html = real(model, key, paper)
        return html.replace("</body>", '<p style="break-before: page">More.</p></body>') if key == "DB" else html
    monkeypatch.setattr(rulebook_site, "pdf_html", longer)
    again = build_site(rules_copy, out)
    assert again.printed == [db.replace(".pdf", ".epub"), db] and len(PdfReader(str(out / db)).pages) == pages + 1
    assert again.staged.written == [] and again.read == []
    # (and Sphinx writes again the page whose table of contents lists one it writes again)
    assert set(linking) <= set(again.written) <= {*linking, "genindex", "search", "revisions/index"}
    said = f"(PDF, {pages + 1} pages, {size_words((out / db).stat().st_size)})"
    for doc in linking:
        assert said in (out / f"{doc}.html").read_text("utf-8")
    clean = build_site(rules_copy, tmp_path / "clean").out
    fa, fb = site_files(out), site_files(clean)
    assert fa.keys() == fb.keys()
    assert [rel for rel in fa if not filecmp.cmp(fa[rel], fb[rel], shallow=False)] == []


# ------------------------------------------------------------------ preview builds (harmony serve)
def test_a_preview_prints_nothing_and_the_full_build_takes_what_was_printed_ahead(tmp_path, monkeypatch,
                                                                                  starter_rules):
    """A preview build after an edit writes the page but no PDF (nor the explorer's bundle)
    and links the rulebooks as last printed; print_jobs names what a full build
    prints; once printed ahead into the printer's store (the child process harmony serve
    starts), the full build lays out nothing and its site is byte for byte a fresh build's."""
    from harmony.site import printing
    from harmony.site.build import cache_dir, print_jobs
    monkeypatch.setenv("HARMONY_PYODIDE", "")
    rules = starter_rules
    out = tmp_path / "out"
    build_site(rules, out, keep=True)
    pdfs = {p: p.read_bytes() for p in sorted(out.rglob("*.pdf")) + sorted(out.rglob("*.epub"))}
    assert len(pdfs) >= 2
    rulebooks = (out / "print" / "rulebooks.html").read_text("utf-8")

    spotting = rules / "spotting.yaml"
    text = spotting.read_text("utf-8").replace("may be fired on only while", "may be shot at only while", 1)
    spotting.write_text(text.replace("only while one of your", "only when one of your", 1), "utf-8")   # a card
    preview = build_site(rules, out, preview=True, keep=True)
    assert preview.preview and preview.printed == []
    assert "may be shot at only while" in (out / "topics" / "spotting.html").read_text("utf-8")
    assert {p: p.read_bytes() for p in sorted(out.rglob("*.pdf")) + sorted(out.rglob("*.epub"))} == pdfs
    assert (out / "print" / "rulebooks.html").read_text("utf-8") == rulebooks

    cache = cache_dir(out)
    jobs = print_jobs(preview.model)
    assert {j.file for j in jobs} == {p.relative_to(out).as_posix() for p in pdfs}
    child = printing.start(cache, jobs)           # (what the serve starts once the edits stop)
    assert child is not None and child.wait(timeout=300) == 0, printing.failure(cache)
    full = build_site(rules, out, keep=True)
    assert not full.preview and full.printed == [] and printing.start(cache, print_jobs(full.model)) is None
    fresh = build_site(rules, tmp_path / "fresh")
    fa, fb = site_files(out), site_files(fresh.out)
    assert fa.keys() == fb.keys()
    assert [rel for rel in fa if not filecmp.cmp(fa[rel], fb[rel], shallow=False)] == []
    assert {p.name for p in [*out.rglob("*.pdf"), *out.rglob("*.epub")]} == {p.name for p in pdfs}
