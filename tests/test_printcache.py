"""PDFs remembered across builds (harmony.printcache), and the printer that takes them."""
from __future__ import annotations

import os

import pytest

from harmony import htmlcache, printcache, printer
from harmony.rulebook.render import print_pdf as rulebook_pdf


def test_the_key_changes_with_the_html_the_printer_the_code_and_the_fonts(harmony_cache, monkeypatch, tmp_path):
    from harmony.cards import print_pdf as cards_pdf
    k = printcache.key(rulebook_pdf, "<p>a</p>")
    assert k is not None and len(k) == 64 and k == printcache.key(rulebook_pdf, "<p>a</p>")
    assert printcache.key(rulebook_pdf, "<p>b</p>") != k
    assert printcache.key(cards_pdf, "<p>a</p>") not in (k, None)
    monkeypatch.setattr(printcache, "_CODE", [b"another harmony"])
    assert printcache.key(rulebook_pdf, "<p>a</p>") != k
    monkeypatch.undo()
    monkeypatch.setenv("HARMONY_CACHE", str(harmony_cache))
    fonts = tmp_path / "xdg"
    (fonts / "fontconfig").mkdir(parents=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(fonts))
    before = printcache.key(rulebook_pdf, "<p>a</p>")
    os.utime(fonts / "fontconfig", ns=(1, 1))          # fc-cache wrote the user's font cache
    assert printcache.key(rulebook_pdf, "<p>a</p>") != before


def test_only_harmonys_own_printers_are_remembered():
    def mine(html):
        return b"", 0
    assert printcache.key(mine, "<p>a</p>") is None                   # a test's (or a plugin's)
    assert printcache.key(lambda html: (b"", 0), "<p>a</p>") is None
    assert printcache.key(print, "<p>a</p>") is None                  # builtins
    assert printcache.get(None) is None
    printcache.put(None, b"x", 1)                                     # nothing, no error


def test_an_entry_damaged_is_a_miss(harmony_cache):
    k = printcache.key(rulebook_pdf, "<p>a</p>")
    printcache.put(k, b"%PDF-1.7 a\nb", 2)
    assert printcache.get(k) == (b"%PDF-1.7 a\nb", 2)
    entry = harmony_cache / "printed" / k[:2] / f"{k}{printcache.SUFFIX}"
    assert entry.read_bytes() == b"2\n%PDF-1.7 a\nb"
    assert [p.name for p in entry.parent.iterdir()] == [entry.name]   # no temporary file left
    for damaged in (b"two\n%PDF", b"\xff\n%PDF", b""):
        entry.write_bytes(damaged)
        assert printcache.get(k) is None


def test_off_or_unwritable_the_cache_changes_nothing_but_speed(monkeypatch, tmp_path):
    k = printcache.key(rulebook_pdf, "<p>a</p>")
    monkeypatch.setenv("HARMONY_CACHE", "off")
    printcache.put(k, b"%PDF", 1)
    assert printcache.get(k) is None and printcache.prune() == 0
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("HARMONY_CACHE", str(blocked))
    printcache.put(k, b"%PDF", 1)                                      # cannot be written: no error
    assert printcache.get(k) is None and blocked.read_text() == "not a folder"


def test_the_least_recently_used_are_pruned_first(harmony_cache):
    keys = [printcache.key(rulebook_pdf, f"<p>{i}</p>") for i in range(5)]
    for i, k in enumerate(keys):
        printcache.put(k, f"%PDF {i}".encode(), 1)
        os.utime(harmony_cache / "printed" / k[:2] / f"{k}{printcache.SUFFIX}", ns=(i * 10**9, i * 10**9))
    assert printcache.get(keys[0]) == (b"%PDF 0", 1)                   # used now: kept
    assert printcache.prune(limit=3) == 2
    assert [printcache.get(k) is not None for k in keys] == [True, False, False, True, True]
    assert printcache.prune(limit=3) == 0


def test_a_pdf_printed_for_one_build_is_taken_by_another_unlaid(harmony_cache, tmp_path, monkeypatch):
    """The printer's store of a second build takes the PDF the first laid out: the same
    bytes, its pages, counted as not laid out, and WeasyPrint is not called."""
    job = printer.Job("print/x.pdf", lambda: "<h1>Rules</h1><p>one</p>", rulebook_pdf)
    first = printer.print_one(job, tmp_path / "a")
    assert first.printed and first.pages == 1
    pdf = printer.stored(tmp_path / "a", job.file).read_bytes()
    assert pdf.startswith(b"%PDF")

    def no_layout(*_a, **_k):
        raise AssertionError("laid out again")
    monkeypatch.setattr(htmlcache, "document", no_layout)
    second = printer.print_one(job, tmp_path / "b")
    assert (second.printed, second.pages, second.size) == (False, 1, len(pdf))
    assert printer.stored(tmp_path / "b", job.file).read_bytes() == pdf
    assert printer.current(tmp_path / "b", job.file, job.html()) == second
    other = printer.Job("print/x.pdf", lambda: "<h1>Rules</h1><p>two</p>", rulebook_pdf)
    with pytest.raises(AssertionError, match="laid out again"):
        printer.print_one(other, tmp_path / "c")                      # new HTML: laid out


def test_a_pdf_is_remembered_only_once_printed_whole(harmony_cache, tmp_path):
    """A printer that fails leaves nothing remembered."""
    calls = []

    def broken(html):
        calls.append(html)
        raise RuntimeError("the layout broke")
    broken.__module__, broken.__qualname__ = rulebook_pdf.__module__, "broken"
    job = printer.Job("print/x.pdf", lambda: "<p>x</p>", broken)
    with pytest.raises(RuntimeError):
        printer.print_one(job, tmp_path / "a")
    assert calls and printcache.get(printcache.key(broken, "<p>x</p>")) is None
    assert not list(harmony_cache.rglob(f"*{printcache.SUFFIX}"))


def test_a_put_keeps_the_cache_bounded_and_a_second_put_replaces_the_first(harmony_cache):
    k = printcache.key(rulebook_pdf, "<p>again</p>")
    printcache.put(k, b"%PDF first", 1)
    printcache.put(k, b"%PDF second", 2)
    assert printcache.get(k) == (b"%PDF second", 2)
    for i in range(printcache.MAX_ENTRIES + 1):
        printcache.put(printcache.key(rulebook_pdf, f"<p>{i}</p>"), b"%PDF", 1)
    assert len(list((harmony_cache / "printed").rglob(f"*{printcache.SUFFIX}"))) == printcache.MAX_ENTRIES


def test_the_commands_pdfs_are_remembered_too(harmony_cache, tmp_path, monkeypatch):
    """`harmony rulebook` and `harmony cards` print through write_pdf: the second time the
    same HTML is taken from the cache, the same bytes, WeasyPrint not called."""
    from harmony.cards import render as cards_render
    from harmony.rulebook import render as rulebook_render
    html = "<h1>Rules</h1><p>remembered</p>"
    first = {m: m.write_pdf(html, tmp_path / f"{m.__name__}.pdf") for m in (rulebook_render, cards_render)}
    assert all(pdf.startswith(b"%PDF") for pdf in first.values())

    def no_layout(*_a, **_k):
        raise AssertionError("laid out again")
    monkeypatch.setattr(htmlcache, "document", no_layout)
    for module, pdf in first.items():
        assert module.write_pdf(html) == pdf
    with pytest.raises(AssertionError, match="laid out again"):
        rulebook_render.write_pdf(html + "<p>new</p>")
