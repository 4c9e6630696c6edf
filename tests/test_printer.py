"""The site's PDFs are printed in processes of their own while Sphinx runs: the same bytes as
printed here, only what changed laid out again, and a printer that fails, dies or hangs fails
the build in one line, leaving no temporary file and the last site as it was."""
from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
from pathlib import Path

import pytest

from harmony.cli import main
from harmony.rulebook import site as rulebook_site
from harmony import printer
from harmony.site.build import PRINTED, BuildError, build_site, cache_dir
from harmony.printer import Job, Printer, PrintFailed
from harmony.signals import terminated_as_exit


def fake(text: str, pages: int = 1) -> Job:
    """A job whose "PDF" is its HTML after ``%PDF-``, of ``pages`` pages."""
    def print_(html: str) -> tuple[bytes, int]:
        return b"%PDF-" + html.encode(), pages
    return Job(f"print/{text}.pdf", lambda: f"<p>{text}</p>", print_)


def leftovers(store: Path) -> list[str]:
    return sorted(p.name for p in store.iterdir() if p.name.endswith(".tmp")) if store.is_dir() else []


def test_workers_print_what_this_process_prints_and_skip_what_did_not_change(tmp_path):
    jobs = [fake(name, pages) for name, pages in (("a", 1), ("b", 2), ("c", 3))]
    with Printer(jobs, tmp_path / "here", workers=0) as here:
        serial = here.wait()
    with Printer(jobs, tmp_path / "there", workers=2) as there:
        forked = there.wait()
    assert serial == forked and [p.printed for p in forked.values()] == [True] * 3
    for job in jobs:
        assert here.pdf(job.file).read_bytes() == there.pdf(job.file).read_bytes()
    assert [(p.pages, p.size) for p in forked.values()] == [(1, 13), (2, 13), (3, 13)]
    changed = [jobs[0], Job("print/b.pdf", lambda: "<p>b, changed</p>", jobs[1].print), jobs[2]]
    with Printer(changed, tmp_path / "there", workers=2) as again:
        assert [p.printed for p in again.wait().values()] == [False, True, False]


def test_a_pdf_kept_without_its_facts_is_printed_again(tmp_path):
    job = fake("a")
    with Printer([job], tmp_path, workers=1) as p:
        p.wait()
    (tmp_path / "print__a.pdf.json").unlink()    # as a worker killed between the two writes
    with Printer([job], tmp_path, workers=1) as p:
        assert p.wait()["print/a.pdf"].printed


def failing(error: BaseException):
    def print_(html: str) -> tuple[bytes, int]:
        raise error
    return print_


def test_a_pdf_that_cannot_be_printed_is_one_line(tmp_path):
    jobs = [fake("a"), Job("print/bad.pdf", lambda: "<p/>", failing(ValueError("no font\nat all"))),
            fake("c")]
    for workers in (0, 2):
        with Printer(jobs, tmp_path, workers=workers) as p:
            with pytest.raises(PrintFailed) as e:
                p.wait()
        assert str(e.value) == "cannot print print/bad.pdf: ValueError: no font"
        assert not e.value.no_space and leftovers(tmp_path) == []


def test_a_full_disk_says_so(tmp_path):
    job = Job("print/full.pdf", lambda: "<p/>", failing(OSError(errno.ENOSPC, "No space left on device")))
    with Printer([job], tmp_path, workers=1) as p:
        with pytest.raises(PrintFailed) as e:
            p.wait()
    assert e.value.no_space
    assert str(e.value) == f"no space left on device writing {tmp_path / 'print__full.pdf'}"


def test_a_printer_that_dies_is_noticed_and_its_temporary_file_removed(tmp_path):
    def dies(html: str) -> tuple[bytes, int]:
        (tmp_path / f".print__gone.pdf.{os.getpid()}.tmp").write_bytes(b"half a PDF")
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("not reached")  # pragma: no cover
    with Printer([Job("print/gone.pdf", lambda: "<p/>", dies)], tmp_path, workers=1) as p:
        with pytest.raises(PrintFailed) as e:
            p.wait()
    assert str(e.value) == "the process printing print/gone.pdf stopped (killed by signal 9, SIGKILL)"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("command", [False, True])
def test_a_printer_that_hangs_is_stopped(tmp_path, monkeypatch, command):
    """Stopped by SIGTERM, outright, also when forked by a command (whose SIGTERM unwinds it as
    Ctrl-C does, harmony.signals: a printer would then end with a traceback, or as failed)."""
    monkeypatch.setattr(printer, "TIMEOUT", 1.0)

    def hangs(html: str) -> tuple[bytes, int]:
        time.sleep(300)
        raise AssertionError("not reached")  # pragma: no cover
    p = Printer([Job("print/slow.pdf", lambda: "<p/>", hangs)], tmp_path, workers=1)
    with terminated_as_exit() if command else contextlib.nullcontext(), p:
        process = p._workers[0].process
        with pytest.raises(PrintFailed, match=r"^printing print/slow.pdf made no progress in 1 s; stopped$"):
            p.wait()
    assert not process.is_alive() and process.exitcode == -signal.SIGTERM


def test_leaving_the_block_stops_the_workers(tmp_path):
    def slow(html: str) -> tuple[bytes, int]:
        time.sleep(300)
        raise AssertionError("not reached")  # pragma: no cover
    with pytest.raises(KeyboardInterrupt):
        with Printer([Job("print/slow.pdf", lambda: "<p/>", slow)], tmp_path, workers=1) as p:
            process = p._workers[0].process
            raise KeyboardInterrupt
    assert not process.is_alive()


def test_a_build_whose_rulebook_cannot_be_printed_fails_in_one_line_and_keeps_the_site(
        tmp_path, monkeypatch, capsys, harmony_cache):
    mine = tmp_path / "mine"
    assert main(["init", str(mine)]) == 0
    out = tmp_path / "site"
    build_site(mine, out)
    before = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    (mine / "spotting.yaml").write_text((mine / "spotting.yaml").read_text("utf-8").replace(
        "dispersed or not.", "dispersed or not, at once."), "utf-8")
    monkeypatch.setattr(rulebook_site, "print_pdf", failing(RuntimeError("the layout broke")))
    with pytest.raises(BuildError, match=r"^cannot print print/HB-rulebook.pdf: RuntimeError: the layout broke$"):
        build_site(mine, out)
    assert main(["build", str(mine), "--out", str(out)]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == \
        "harmony build: cannot print print/HB-rulebook.pdf: RuntimeError: the layout broke"
    after = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert after == before
    assert leftovers(cache_dir(out) / PRINTED) == []
    # (beside the test's harmony and the site: the site's cache, and this test's HARMONY_CACHE)
    assert sorted(p.name for p in out.parent.iterdir()) == [".site.harmony-cache", "cache", "mine", "site"]
    monkeypatch.undo()
    monkeypatch.setenv("HARMONY_CACHE", str(harmony_cache))
    again = build_site(mine, out)      # the next build starts afresh and prints what changed
    # (the rulebook's EPUB too, unless the failed build printed it before it stopped)
    assert "print/HB-rulebook.pdf" in again.printed
    assert set(again.printed) <= {"print/HB-rulebook.pdf", "print/HB-rulebook.epub"}


def test_a_full_disk_while_printing_is_one_line_and_leaves_no_temporary_file(tmp_path, monkeypatch, capsys):
    mine = tmp_path / "mine"
    assert main(["init", str(mine)]) == 0
    write_bytes = Path.write_bytes

    def full(self, data):   # the printers write half a PDF, then the disk is full
        if self.name.endswith(".tmp") and PRINTED in self.parts:
            write_bytes(self, data[:10])
            raise OSError(errno.ENOSPC, "No space left on device")
        return write_bytes(self, data)
    monkeypatch.setattr(Path, "write_bytes", full)
    out = tmp_path / "site"
    assert main(["build", str(mine), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith(
        f"harmony build: error: no space left on device writing {cache_dir(out) / PRINTED}/print__")
    assert not out.exists() and leftovers(cache_dir(out) / PRINTED) == []
    monkeypatch.undo()
    assert main(["build", str(mine), "--out", str(out)]) == 0   # and once there is room again


def test_the_last_printed_facts_are_those_of_the_store_and_say_not_laid_out_now(tmp_path):
    """A preview links each PDF as the store last printed it: its pages and size, marked as
    not laid out in this build; a PDF never printed, or whose facts cannot be read, is left out."""
    jobs = [fake("a", 2), fake("b", 3)]
    with Printer(jobs, tmp_path, workers=0) as p:
        printed = p.wait()
    assert all(x.printed for x in printed.values())
    (tmp_path / "print__b.pdf.json").write_text("{not json", "utf-8")
    last = printer.last_printed(tmp_path, ["print/a.pdf", "print/b.pdf", "print/never.pdf"])
    assert last == {"print/a.pdf": printer.Printed("print/a.pdf", 2, 13, False)}


def test_the_temporaries_of_a_dead_process_are_removed_and_named(tmp_path):
    import subprocess
    import sys
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead, alive = int(gone.stdout), os.getpid()
    (tmp_path / f".print__a.pdf.{dead}.tmp").write_bytes(b"half")
    (tmp_path / f".print__b.pdf.{alive}.tmp").write_bytes(b"being written")
    removed = printer.remove_temporaries(tmp_path)
    assert [p.name for p in removed] == [f".print__a.pdf.{dead}.tmp"]
    assert leftovers(tmp_path) == [f".print__b.pdf.{alive}.tmp"]


def test_a_build_asked_to_print_here_forks_nothing_and_makes_the_same_bytes(tmp_path, monkeypatch,
                                                                            harmony_cache):
    """``print_here`` (``harmony serve``'s full builds, once its threads run): no process is
    forked; the site is the one a build with forked printers makes. A fork is refused here,
    so that a build that would fork fails."""
    mine = tmp_path / "mine"
    assert main(["init", str(mine)]) == 0
    forked = build_site(mine, tmp_path / "forked")
    assert "print/HB-rulebook.pdf" in forked.printed

    def no_fork():
        raise OSError("a fork, which this test refuses")
    monkeypatch.setattr(os, "fork", no_fork)
    monkeypatch.setenv("HARMONY_CACHE", "off")          # every PDF laid out again, here
    with pytest.raises(OSError, match="refuses"):
        build_site(mine, tmp_path / "refused")
    here = build_site(mine, tmp_path / "here", print_here=True)
    assert here.printed == forked.printed

    def files(out: Path) -> dict:
        return {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert files(here.out) == files(forked.out)
