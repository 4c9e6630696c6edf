"""``harmony rulebook``: each ruleset's full rules as a PDF, read back with pdftotext and pypdf.

The expectations are computed from the model here, not from the rulebook's own collection:
the order of play (topics by their ``order``, then standard rules in aspect order, optional
rules by option, tournament rules), the cells a reader is shown, the citations.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from harmony.cli import main
from harmony.loader import load
from harmony.model import Model
from harmony.rulebook.collect import cite_text

RULES = Path(__file__).resolve().parent.parent / "rules_data"
MM = 72 / 25.4


def text_of(pdf: Path, first: int | None = None, last: int | None = None) -> str:
    args = ["pdftotext", "-layout"]
    if first:
        args += ["-f", str(first), "-l", str(last or first)]
    return subprocess.run(args + [str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout


def words(text: str) -> str:
    return " ".join(text.split())


def letters(text: str) -> list[str]:
    """The words of a text, letters only (footnote calls and numbers dropped, a word broken at
    its hyphen across lines joined again)."""
    return re.findall(r"[a-z]+", re.sub(r"-\s+", "-", text.lower()))


def render(tmp_path_factory, key: str, *args: str, rules: Path = RULES) -> Path:
    out = tmp_path_factory.mktemp("rulebook") / f"{key}.pdf"
    assert main(["rulebook", key, str(rules), "--out", str(out), *args]) == 0
    return out


@pytest.fixture(scope="module")
def model() -> Model:
    m, report = load(RULES)
    assert not report.errors
    return m


@pytest.fixture(scope="module")
def rev(tmp_path_factory) -> Path:
    return render(tmp_path_factory, "REV")


@pytest.fixture(scope="module")
def rev_letter(tmp_path_factory) -> Path:
    return render(tmp_path_factory, "REV", "--paper", "letter")


@pytest.fixture(scope="module")
def pb(tmp_path_factory) -> Path:
    return render(tmp_path_factory, "PB")


def printed(cell) -> bool:
    return cell.status in ("rule", "optional", "tournament") or cell.status == "nil" and bool(cell.text)


def order_of_play(model: Model, key: str) -> list[list[tuple[str, object]]]:
    """Per topic (in ``order``), the printed cells in the order a reader meets them."""
    out = []
    for topic in sorted(model.topics.values(), key=lambda t: (t.order, t.id)):
        aspects = [a.id for a in topic.aspects]
        cells = [(c.id, c.cells[key]) for c in model.clauses.values()
                 if c.topic == topic.id and key in c.cells and printed(c.cells[key])]
        cells.sort(key=lambda p: aspects.index(model.clauses[p[0]].aspect))
        options: list = []
        for _, cell in cells:
            if cell.status == "optional" and cell.option not in options:
                options.append(cell.option)
        rank = {"rule": 0, "nil": 0, "optional": 1, "tournament": 2}
        cells.sort(key=lambda p: (rank[p[1].status],
                                  options.index(p[1].option) if p[1].status == "optional" else 0))
        if cells:
            out.append([(topic.title, None)] + cells)
    return out


def outline(pdf: Path) -> list[tuple[int, str, int]]:
    """The PDF's bookmarks: (level, title, page number from 1)."""
    reader = PdfReader(str(pdf))
    found: list[tuple[int, str, int]] = []

    def walk(items, level):
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
            else:
                found.append((level, words(item.title), reader.get_destination_page_number(item) + 1))
    walk(reader.outline, 1)
    return found


def contents(pdf: Path) -> list[tuple[str, int]]:
    """The entries of the table of contents, as printed: (title, page)."""
    entries = []
    for page in range(2, 5):
        text = text_of(pdf, page)
        if page > 2 and "Contents" not in text.splitlines()[0]:
            break
        for line in text.splitlines():
            m = re.match(r"\s*(\S.*?)\s*\.{3,}\s*(\d+)\s*$", line)
            if m:
                entries.append((words(m.group(1)), int(m.group(2))))
    return entries


def test_the_rev_rulebook_has_its_rules_and_title_page(rev, model):
    reader = PdfReader(str(rev))
    assert len(reader.pages) >= 4
    text = words(text_of(rev)).lower()
    for phrase in ("opportunity spotted", "concealed movement", "interdiction"):
        assert phrase in text
    title = words(text_of(rev, 1))
    src = model.sources["REV"]
    for fact in (src.title, src.version, src.date, src.author, src.publisher):
        assert fact in title
    assert reader.metadata.title == f"{src.title}, version {src.version}"
    # the version of the clauses: the rulebook's version, a hash of its cells, the date of
    # the last version its cells record (no cell records a later change than 0.1)
    assert re.search(r"Clauses: REV version 0\.1, cells [0-9a-f]{12}; last changed 2013-04-05\.", title)


def test_contents_list_each_topic_at_the_page_it_starts_on(rev, model):
    toc = contents(rev)
    topics = [t for t in order_of_play(model, "REV")]
    titles = [f"{i} {group[0][0]}" for i, group in enumerate(topics, 1)]
    listed = [e for e in toc if re.match(r"\d+ \D", e[0])]
    assert [t for t, _ in listed] == titles
    for title, page in toc:
        heading = re.sub(r"\s+", " ", title)
        lines = [words(line) for line in text_of(rev, page).splitlines()]
        assert any(line.startswith(heading) for line in lines), (title, page)
        if page > 3:   # not on the page before: the page number is where it starts
            before = [words(line) for line in text_of(rev, page - 1).splitlines()]
            assert not any(line.startswith(heading) and "..." not in line for line in before)


def test_bookmarks_match_the_contents(rev):
    marks = outline(rev)
    assert marks[0][:2] == (1, "Contents")
    assert [(t, p) for _, t, p in marks[1:]] == contents(rev)
    levels = {t: lvl for lvl, t, _ in marks}
    assert levels["1 Spotting"] == 1 and levels["1.1 Units in cover must be spotted"] == 2
    assert levels["Glossary"] == 1


@pytest.mark.parametrize("key", ["REV", "PB"])
def test_every_cell_appears_once_in_the_order_of_play(key, rev, pb, model):
    pdf = rev if key == "REV" else pb
    marks = outline(pdf)
    first = next(p for lvl, t, p in marks if t.startswith("1 "))
    back = [p for lvl, t, p in marks if lvl == 1 and not re.match(r"\d", t) and t != "Contents"]
    body = text_of(pdf, first, back[0] - 1 if back else len(PdfReader(str(pdf)).pages))
    flat = words(body)
    at = 0
    for group in order_of_play(model, key):
        for cid, cell in group[1:]:
            assert flat.count(f" {cid} ") + flat.count(f" {cid}\n") == 1, cid
            where = flat.index(f" {cid} ")
            assert where > at, f"{cid} is out of the order of play"
            at = where
            # the full text of the cell, word for word (footnote calls and numbers aside)
            assert " ".join(letters(_plain(model, cell))) in " ".join(letters(body)), cid
    # what states no rule is listed once at the back, never in the body
    left = [(c.id, c.cells[key]) for c in model.clauses.values()
            if key in c.cells and not printed(c.cells[key])]
    assert left
    back_text = words(text_of(pdf, back[0], len(PdfReader(str(pdf)).pages)))
    for cid, cell in left:
        assert f" {cid} " not in flat
        assert back_text.count(f"{cid} ") == 1, cid


def _plain(model: Model, cell) -> str:
    from harmony.markup import plain_text
    return plain_text(cell.text, cell.params, {n: p.type for n, p in model.parameters.items()},
                      model.tables)


def test_footnotes_carry_the_citations(rev, model):
    reader = PdfReader(str(rev))
    pages = [words(text_of(rev, i + 1)) for i in range(len(reader.pages))]
    cites = 0
    for clause in model.clauses.values():
        cell = clause.cells.get("REV")
        if cell is None or not printed(cell):
            continue
        page = next(i for i, t in enumerate(pages) if f" {clause.id} " in f" {t} ")
        here = pages[page] + " " + (pages[page + 1] if page + 1 < len(pages) else "")
        for c in cell.cites:
            # a numbered footnote on the rule's page (or the next, for a rule that runs over)
            assert re.search(r"\d+\. " + re.escape(words(cite_text(model, c))), here), (clause.id, c)
            cites += 1
    assert cites > 40
    # the rulebook's own footnotes too, in our words
    assert "That is, the unit uses up its whole movement allowance on the concealed move." in " ".join(pages)


def test_a_revision_marks_what_it_changes_and_lists_it(rev, pb, model):
    marks = outline(rev)
    start = next(p for _, t, p in marks if t == "Changes from PanzerBlitz")
    table = words(text_of(rev, start, start + 2))
    changed = {c.id: c.cells["REV"].relation.type for c in model.clauses.values()
               if "REV" in c.cells and printed(c.cells["REV"]) and c.cells["REV"].relation}
    for cid, relation in changed.items():
        if relation == "restates":
            assert f"{cid} " not in table
        else:
            assert f"{cid} " in table, cid
    body = text_of(rev, 3)
    assert "NEW" in body or "CHANGED" in body   # the word in the margin, not a colour alone
    assert "Changes from" not in words(text_of(pb))


def test_paper_sizes_and_embedded_fonts(rev, rev_letter):
    letter = rev_letter
    a4 = PdfReader(str(rev)).pages[0].mediabox
    us = PdfReader(str(letter)).pages[0].mediabox
    assert (round(float(a4.width)), round(float(a4.height))) == (round(210 * MM), round(297 * MM))
    assert (float(us.width), float(us.height)) == (612.0, 792.0)
    fonts = subprocess.run(["pdffonts", str(rev)], check=True, capture_output=True,
                           text=True).stdout.splitlines()[2:]
    assert fonts and all(line.split()[-5] == "yes" for line in fonts), fonts


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_nothing_is_printed_outside_the_printable_area(paper, rev, rev_letter, tmp_path):
    """Every page: no ink within 12 mm of the paper's edge (running heads, page numbers and
    the change marks in the margin included)."""
    from PIL import Image
    rev = rev if paper == "a4" else rev_letter
    dpi = 40
    subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", str(rev), str(tmp_path / "p")], check=True)
    pages = sorted(tmp_path.glob("p-*.pgm"))
    assert len(pages) == len(PdfReader(str(rev)).pages)
    edge = round(12 / 25.4 * dpi)
    for path in pages:
        img = Image.open(path)
        w, h = img.size
        inner = img.crop((edge, edge, w - edge, h - edge))
        assert inner.getextrema()[0] < 128, f"{path.name} is blank"
        for box in ((0, 0, w, edge), (0, h - edge, w, h), (0, 0, edge, h), (w - edge, 0, w, h)):
            assert img.crop(box).getextrema()[0] > 200, f"ink in the margin of {path.name} {box}"


def test_same_input_same_bytes(rev, tmp_path_factory):
    again = render(tmp_path_factory, "REV")
    assert again.read_bytes() == rev.read_bytes()
    assert b"CreationDate" not in again.read_bytes()


def test_a_harmony_of_ones_own_gets_its_own_rulebook(tmp_path, capsys):
    mine = tmp_path / "mine"
    assert main(["init", str(mine)]) == 0
    m, report = load(mine)
    assert not report.errors
    for key, src in m.sources.items():
        out = tmp_path / f"{key}.pdf"
        assert main(["rulebook", key, str(mine), "--out", str(out)]) == 0
        title = words(text_of(out, 1))
        assert src.title in title and src.author in title
        assert "PanzerBlitz" not in words(text_of(out))
        assert PdfReader(str(out)).metadata.title == src.title
    assert "rulebook, " in capsys.readouterr().out


def test_usage_errors(tmp_path, capsys):
    assert main(["rulebook", "NOPE", str(RULES), "--out", str(tmp_path / "x.pdf")]) == 2
    assert "unknown ruleset NOPE" in capsys.readouterr().err
    assert main(["rulebook", "HARMONY", str(RULES), "--out", str(tmp_path / "x.pdf")]) == 1
    assert "HARMONY has no rules to print" in capsys.readouterr().err
    assert main(["rulebook", "REV", str(RULES), "--out", str(tmp_path / "x.txt")]) == 2
    assert main(["rulebook", "REV", str(RULES), "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_the_build_prints_every_rulebook_links_it_and_skips_an_unchanged_one(tmp_path, monkeypatch, harmony_cache):
    from harmony.rulebook import site as rulebook_site
    from harmony.site.build import build_site

    mine = tmp_path / "mine"
    assert main(["init", str(mine)]) == 0
    m, _ = load(mine)
    out = tmp_path / "site"
    first = build_site(mine, out)
    for key, src in m.sources.items():
        pdf = out / "print" / f"{key}-rulebook.pdf"
        assert f"print/{key}-rulebook.pdf" in first.extras
        pages = len(PdfReader(str(pdf)).pages)
        size = rulebook_site.size_words(pdf.stat().st_size)
        link = f'href="print/{key}-rulebook.pdf">{src.title}: the rulebook (PDF, {pages} pages, {size})<'
        assert link in (out / "index.html").read_text("utf-8")
        assert link in (out / "sources.html").read_text("utf-8")
        # and its EPUB, beside it on the rulebooks' page and on the print folder's page
        epub = out / "print" / f"{key}-rulebook.epub"
        size = rulebook_site.size_words(epub.stat().st_size)
        assert (f'href="print/{key}-rulebook.epub">{src.title}: the rulebook for e-readers (EPUB, {size})<'
                in (out / "rulebooks.html").read_text("utf-8"))
        listed = (out / "print" / "rulebooks.html").read_text("utf-8")
        assert f'href="{key}-rulebook.epub"' in listed and f"</a>, {size}</li>" in listed
    log = tmp_path / "printed.log"     # the PDFs are printed in other processes: they say so here
    real = rulebook_site.print_pdf

    def counting(html):
        with log.open("a") as f:
            f.write("rulebook\n")
        return real(html)
    monkeypatch.setattr(rulebook_site, "print_pdf", counting)

    def prints() -> int:
        return len(log.read_text().splitlines()) if log.exists() else 0
    again = build_site(mine, out)
    assert prints() == 0 and not [f for f in again.extras if f.endswith("-rulebook.pdf")]
    assert again.printed == []
    # a change to one ruleset's cells prints that rulebook again, and only it
    rules = mine / "spotting.yaml"
    rules.write_text(rules.read_text("utf-8").replace("dispersed or not.", "dispersed or not, at once."),
                     "utf-8")
    third = build_site(mine, out)
    assert prints() == 1 and [f for f in third.extras if f.endswith("-rulebook.pdf")] == \
        ["print/HB-rulebook.pdf"]
    assert third.printed == ["print/HB-rulebook.epub", "print/HB-rulebook.pdf"]   # and its EPUB
    assert "at once" in words(text_of(out / "print" / "HB-rulebook.pdf"))


def test_rules_with_errors_or_a_single_file_are_refused(tmp_path, capsys):
    mine = tmp_path / "mine"
    assert main(["init", str(mine)]) == 0
    (mine / "topics.yaml").write_text("topics: [{id: 3}]\n", "utf-8")
    out = tmp_path / "x.pdf"
    assert main(["rulebook", "HA", str(mine), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "topics.yaml:1:" in err and "has errors; fix them first" in err
    assert main(["rulebook", "REV", str(RULES / "spotting.yaml"), "--out", str(out)]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert not out.exists()


def test_a_file_harmony_did_not_write_is_never_replaced(tmp_path, capsys):
    theirs = tmp_path / "mine.pdf"
    theirs.write_bytes(b"%PDF-1.7 somebody else's document")
    assert main(["rulebook", "REV", str(RULES), "--out", str(theirs)]) == 2
    assert "harmony did not write" in capsys.readouterr().err
    assert theirs.read_bytes() == b"%PDF-1.7 somebody else's document"
    ours = tmp_path / "rev.pdf"
    assert main(["rulebook", "DB", str(RULES), "--out", str(ours)]) == 0
    assert main(["rulebook", "DB", str(RULES), "--out", str(ours)]) == 0   # its own: replaced
    assert PdfReader(str(ours)).metadata["/Creator"] == "harmony rulebook"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.pdf", "rev.pdf"]   # no leftovers


def test_the_examples_positions_are_figures_with_captions(rev, pb, model):
    """Each scenario played under the ruleset is drawn once, beside the first rule (not a
    "none") of the clauses it exercises, numbered, with its title as the caption."""
    text = text_of(rev)
    captions = re.findall(r"^\s*Figure (\d+)\. (.*?)\s*$", text, re.M)
    assert [int(n) for n, _ in captions] == list(range(1, len(captions) + 1))

    def drawn(sc) -> bool:
        named = list(sc.data.get("clauses") or []) + [c.id for c in model.clauses.values()
                                                        if sc.id in c.scenarios]
        return any(str(r).split("+")[0] == "REV" for r in sc.data.get("rulesets") or []) and any(
            cid in model.clauses and "REV" in model.clauses[cid].cells
            and model.clauses[cid].cells["REV"].status in ("rule", "optional", "tournament")
            for cid in named)
    assert len(captions) == len([sc for sc in model.scenarios.values() if drawn(sc)]) > 5
    assert ("1", "The Hetzer slips past the A/T battery: the position at the start.") in captions
    reader = PdfReader(str(rev))
    page = next(i for i, p in enumerate(reader.pages) if "Figure 1." in (p.extract_text() or ""))
    assert "/XObject" in str(reader.pages[page]["/Resources"]) or \
        len(reader.pages[page].get_contents().get_data()) > 20000   # the drawing is there
    # PanzerBlitz has no interdiction: its rulebook draws no position beside a "none"
    assert "Interdiction needs an observer" not in text_of(pb)


def test_drawings_print_as_images_to_the_same_picture(model, tmp_path, monkeypatch):
    """The printer hands WeasyPrint each drawing as an image (no CSS cascade over its shapes):
    a page with the REV rulebook's first figure prints to the same pixels either way, and
    what WeasyPrint is given holds no inline ``<svg>``."""
    from harmony import htmlcache
    from harmony.rulebook import pdf_html
    from harmony.rulebook.render import TEMPLATES, drawings_as_images, print_pdf
    book = pdf_html(model, "REV")
    figure = re.search(r'<figure class="diagram".*?</figure>', book, re.S).group(0)
    style = re.search(r"<style>.*?</style>", book, re.S).group(0)
    page = f"<!doctype html><html><head>{style}</head><body>{figure}</body></html>"

    def pixels(html: str, name: str) -> bytes:
        pdf = tmp_path / f"{name}.pdf"
        pdf.write_bytes(htmlcache.document(html, base_url=str(TEMPLATES)).render().write_pdf())
        subprocess.run(["pdftoppm", "-r", "100", "-png", "-singlefile", str(pdf), str(tmp_path / name)],
                       check=True)
        return (tmp_path / f"{name}.png").read_bytes()
    lifted = drawings_as_images(page)
    assert "<svg" in page and "<svg" not in lifted and 'src="data:image/svg+xml;base64,' in lifted
    assert pixels(lifted, "image") == pixels(page, "inline")
    assert len(re.findall(r"<polygon", page)) > 20        # a real drawing, not an empty frame

    given: list[str] = []
    real = htmlcache.document
    monkeypatch.setattr(htmlcache, "document", lambda html, **kw: given.append(html) or real(html, **kw))
    assert print_pdf(page)[1] == 1
    assert given == [lifted]
