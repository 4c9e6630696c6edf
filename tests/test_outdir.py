"""harmony writes only where it may (harmony/outdir.py): a missing path, an empty folder, or
what harmony itself wrote; never a folder of yours, the rules, a checkout, .git, $HOME or /.
A failed write leaves nothing behind and a full disk is one line."""
from __future__ import annotations

import errno
import pathlib
import shutil
from pathlib import Path

import pytest

from harmony import outdir
from harmony.cli import main
from harmony.init import create
from harmony.site import build as build_module

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"


def call(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and folder under ``folder``: bytes (files) and modification time."""
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else b"/",
                                               p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def small(tmp_path) -> Path:
    """The starter harmony (a few pages: quick to build)."""
    create(tmp_path / "rules")
    return tmp_path / "rules"


@pytest.fixture
def mine(tmp_path) -> Path:
    """A folder of the user's own files."""
    folder = tmp_path / "mine"
    (folder / "sub").mkdir(parents=True)
    (folder / "thesis.txt").write_text("years of work\n")
    (folder / "sub" / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\nnot harmony's")
    (folder / "index.html").write_text("<p>my own home page</p>\n")
    return folder


def refused(capsys, command: str, *argv) -> str:
    """Run a command that must be refused: exit 2, one line naming why; that line."""
    rc, out, err = call(capsys, command, *argv)
    assert rc == 2, (out, err)
    assert len(err.splitlines()) == 1 and err.startswith(f"harmony {command}: error: "), err
    return err


# ------------------------------------------------------------------ refused, whatever the command

def test_a_folder_of_your_own_files_is_refused_and_untouched(capsys, small, mine, tmp_path):
    before = snapshot(mine)
    tail = f" {mine} holds files harmony did not write: give a new or empty folder"
    assert "--out" + tail in refused(capsys, "build", small, "--out", mine)
    assert "--out" + tail in refused(capsys, "serve", small, "--out", mine, "--port", "0")
    assert "--png" + tail in refused(capsys, "cards", small, "--out", tmp_path / "c.pdf", "--png", mine)
    assert f"{mine} is not empty" in refused(capsys, "init", mine)
    assert snapshot(mine) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "rules"]   # no cache, no staging


def test_the_rules_folder_and_folders_around_it_are_refused(capsys, small):
    before = snapshot(small.parent)
    assert f"--out {small}: it is the rules folder" in refused(capsys, "build", small, "--out", small)
    assert f"it contains the rules folder {small}" in \
        refused(capsys, "build", small, "--out", small.parent)
    assert f"it is inside the rules folder {small}" in \
        refused(capsys, "build", small, "--out", small / "site")
    assert "it is the rules folder" in refused(capsys, "serve", small, "--out", small, "--port", "0")
    assert "it is the rules folder" in refused(capsys, "cards", small, "--out",
                                                small.parent / "c.pdf", "--png", small)
    assert snapshot(small.parent) == before


def test_a_checkout_its_git_folder_and_what_holds_it_are_refused(capsys, tmp_path, monkeypatch):
    clone = tmp_path / "clone"
    (clone / ".git" / "refs").mkdir(parents=True)
    (clone / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    rules = clone / "rules_data"
    shutil.copytree(RULES, rules)
    (clone / "README.md").write_text("mine\n")
    before = snapshot(tmp_path)
    monkeypatch.chdir(clone)
    assert "--out .: it is a git checkout (it holds .git)" in refused(capsys, "build", "rules_data",
                                                                      "--out", ".")
    assert "--out rules_data: it is the rules folder" in refused(capsys, "build", "rules_data",
                                                                 "--out", "rules_data")
    assert "--out .git: it is inside a .git folder" in refused(capsys, "build", "rules_data",
                                                               "--out", ".git")
    assert "it is inside a .git folder" in refused(capsys, "build", "rules_data",
                                                   "--out", ".git/site")
    assert f"--out ..: it contains the git checkout {clone}" in \
        refused(capsys, "build", "rules_data", "--out", "..")
    assert "it is inside a .git folder" in refused(capsys, "cards", "rules_data",
                                                   "--out", ".git/cards.pdf")
    assert snapshot(tmp_path) == before


def test_this_checkout_is_refused(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert "--out .: it is a git checkout" in refused(capsys, "build", "--out", ".")
    assert "--out rules_data: it is the rules folder" in refused(capsys, "build", "--out", "rules_data")


def test_home_and_the_root_are_refused_even_when_empty(capsys, tmp_path, monkeypatch, small):
    home = tmp_path / "home" / "me"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert f"--out {home}: it is your home folder" in refused(capsys, "build", small, "--out", home)
    assert f"it contains your home folder {home}" in \
        refused(capsys, "build", small, "--out", home.parent)
    assert f"{home}: it is your home folder" in refused(capsys, "init", home)
    assert "it is your home folder" in refused(capsys, "cards", small, "--out", tmp_path / "c.pdf",
                                               "--png", home)
    assert not any(home.iterdir())
    assert "--out /: harmony never writes into the root folder /" in \
        refused(capsys, "build", small, "--out", "/")
    assert "root folder" in refused(capsys, "serve", small, "--out", "/", "--port", "0")
    # a folder inside home is yours to give
    assert outdir.folder(home / "site", "site", "--out") == home / "site"


def test_a_file_is_not_a_folder_and_a_path_under_a_file_cannot_be_made(capsys, small, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    assert f"--out {notes} is a file, not a folder" in refused(capsys, "build", small, "--out", notes)
    assert f"--out {notes / 'site'} cannot be made: {notes} is not a folder (it is a file)" in \
        refused(capsys, "build", small, "--out", notes / "site")
    assert notes.read_text() == "mine\n"


def test_init_on_a_dangling_link_or_under_a_file_says_so_in_one_line(capsys, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "nowhere" / "at-all")
    assert f"{link} is a symbolic link to {tmp_path / 'nowhere' / 'at-all'}, which does not exist" \
        in refused(capsys, "init", link)
    assert link.is_symlink() and not (tmp_path / "nowhere").exists()
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    assert f"{notes / 'new'} cannot be made: {notes} is not a folder (it is a file)" in \
        refused(capsys, "init", notes / "new")
    assert "is a file" in refused(capsys, "init", notes)
    assert notes.read_text() == "mine\n"


def test_build_on_a_dangling_link_says_so(capsys, small, tmp_path):
    link = tmp_path / "site"
    link.symlink_to(tmp_path / "gone")
    assert "is a symbolic link to" in refused(capsys, "build", small, "--out", link)


# ------------------------------------------------------------------ single files

def test_cards_replace_only_a_pdf_harmony_wrote(capsys, small, tmp_path):
    theirs = tmp_path / "theirs.pdf"
    theirs.write_bytes(b"%PDF-1.4\n1 0 obj\n<</Creator (LibreOffice)>>\nendobj\n%%EOF\n")
    text = tmp_path / "notes.pdf"
    text.write_text("not a pdf at all\n")
    for victim in (theirs, text):
        before = victim.read_bytes()
        err = refused(capsys, "cards", small, "--out", victim)
        assert f"--out {victim} is a file harmony did not write" in err
        assert victim.read_bytes() == before
    ours = tmp_path / "cards.pdf"
    assert call(capsys, "cards", RULES, "--rules", "PL", "--out", ours)[0] == 0
    assert outdir.harmony_pdf(ours) and not outdir.harmony_pdf(theirs)
    assert call(capsys, "cards", RULES, "--rules", "PL", "--out", ours)[0] == 0   # its own: replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.pdf", "notes.pdf", "rules", "theirs.pdf"]


def test_tts_sheets_never_replace_your_images(capsys, small, tmp_path):
    deck = tmp_path / "deck-back.png"
    deck.write_bytes(b"\x89PNG\r\n\x1a\nmy own picture")
    err = refused(capsys, "cards", small, "--out", tmp_path / "c.pdf", "--tts", tmp_path / "deck")
    assert f"--tts {deck} is a file harmony did not write" in err
    assert deck.read_bytes() == b"\x89PNG\r\n\x1a\nmy own picture" and not (tmp_path / "c.pdf").exists()


def test_harmony_marks_the_images_it_writes_and_stamps_their_folder(capsys, small, tmp_path):
    png = tmp_path / "png"
    assert call(capsys, "cards", RULES, "--rules", "PL", "--out", tmp_path / "c.pdf", "--png", png,
                "--tts", tmp_path / "tts" / "deck", "--dpi", "30")[0] == 0
    images = sorted(png.glob("*.png"))
    assert images and all(outdir.harmony_png(p) for p in images)
    assert outdir.stamped(png, "cards")
    assert outdir.harmony_png(tmp_path / "tts" / "deck.png")
    from PIL import Image
    Image.open(images[0]).load()       # the mark keeps it a valid PNG
    # a second run writes over its own images, and says nothing against them
    assert call(capsys, "cards", RULES, "--rules", "PL", "--out", tmp_path / "c.pdf", "--png", png,
                "--tts", tmp_path / "tts" / "deck", "--dpi", "30")[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.pdf", "png", "rules", "tts"]


def test_card_images_written_before_the_stamp_are_recognised(tmp_path):
    old = tmp_path / "png"
    old.mkdir()
    (old / "001-REV-spotting.rule.png").write_bytes(b"\x89PNG")
    assert outdir.folder(old, "cards", "--png") == old
    (old / "holiday.png").write_bytes(b"\x89PNG")
    with pytest.raises(outdir.Refused, match="holds files harmony did not write"):
        outdir.folder(old, "cards", "--png")


# ------------------------------------------------------------------ accepted: missing, empty, ours

def test_a_site_goes_into_a_missing_or_empty_folder_and_over_its_own(capsys, small, tmp_path):
    missing = tmp_path / "new" / "site"
    assert call(capsys, "build", small, "--out", missing)[0] == 0
    assert (missing / "index.html").is_file()
    assert (missing / outdir.SITE_STAMP).read_text().startswith("harmony build wrote this site")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert call(capsys, "build", small, "--out", empty)[0] == 0 and (empty / "index.html").is_file()
    # a second build into the same folder, and one after the user added a file to the site
    (missing / "extra.txt").write_text("added")
    assert call(capsys, "build", small, "--out", missing)[0] == 0
    assert not (missing / "extra.txt").exists()   # the site is replaced whole, as documented
    # a site built before the stamp existed: known by its cache beside it
    (missing / outdir.SITE_STAMP).unlink()
    assert call(capsys, "build", small, "--out", missing)[0] == 0
    assert (missing / outdir.SITE_STAMP).is_file()
    # without stamp and without cache it is a folder like any other
    (missing / outdir.SITE_STAMP).unlink()
    shutil.rmtree(build_module.cache_dir(missing))
    assert "holds files harmony did not write" in refused(capsys, "build", small, "--out", missing)


# ------------------------------------------------------------------ nothing left behind

def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_build_that_fails_while_publishing_leaves_no_staging_folder(capsys, small, tmp_path,
                                                                      monkeypatch):
    out = tmp_path / "site"
    assert call(capsys, "build", small, "--out", out)[0] == 0
    before = snapshot(out)
    copy2 = shutil.copy2
    copied = []

    def half(src, dst, *a, **k):   # copies some files, then the disk is full
        if len(copied) > 5:
            _no_space()
        copied.append(dst)
        return copy2(src, dst, *a, **k)
    real_copytree = shutil.copytree

    def tree(src, dst, symlinks=False, ignore=None, copy_function=None, *rest, **k):
        return real_copytree(src, dst, symlinks, ignore, half, *rest, **k)
    monkeypatch.setattr(build_module.shutil, "copytree", tree)
    (small / "topics.yaml").write_text((small / "topics.yaml").read_text() + "\n# changed\n")
    rc, out_text, err = call(capsys, "build", small, "--out", out)
    assert rc == 1 and len(err.splitlines()) == 1, err
    assert err.startswith(f"harmony build: error: no space left on device writing {tmp_path}/.site.staging-")
    monkeypatch.undo()
    assert snapshot(out) == before
    assert not [p.name for p in tmp_path.iterdir() if ".staging-" in p.name or ".old-" in p.name]


def test_a_full_disk_while_sphinx_writes_is_one_line(capsys, small, tmp_path, monkeypatch):
    write_text = pathlib.Path.write_text

    def full(self, *a, **k):
        if self.suffix == ".html":
            _no_space()
        return write_text(self, *a, **k)
    monkeypatch.setattr(pathlib.Path, "write_text", full)
    out = tmp_path / "site"
    rc, _, err = call(capsys, "build", small, "--out", out)
    assert rc == 1 and len(err.splitlines()) == 1, err
    assert err.startswith("harmony build: error: no space left on device writing ") and \
        err.rstrip().endswith(".html")
    assert not out.exists()
    monkeypatch.undo()
    assert call(capsys, "build", small, "--out", out)[0] == 0   # and once there is room again


def test_the_next_build_removes_what_a_killed_one_left(capsys, small, tmp_path):
    out = tmp_path / "site"
    assert call(capsys, "build", small, "--out", out)[0] == 0
    dead = 2 ** 22 + 12345        # above Linux's default pid_max: no such process
    left = [tmp_path / f".site.staging-{dead}", tmp_path / f".site.old-{dead}"]
    for folder in left:
        folder.mkdir()
        (folder / "index.html").write_text("half")
    keep = [tmp_path / ".site.staging-notes", tmp_path / f".other.staging-{dead}"]
    for folder in keep:
        folder.mkdir()
    assert call(capsys, "build", small, "--out", out)[0] == 0
    assert not any(p.exists() for p in left) and all(p.is_dir() for p in keep)


def test_cards_on_a_full_disk_say_so_and_leave_no_temporary_file(capsys, small, tmp_path, monkeypatch):
    out = tmp_path / "cards.pdf"
    dead = 2 ** 22 + 12345
    (tmp_path / f".cards.pdf.{dead}.tmp").write_bytes(b"half a pdf")      # a killed run's
    (tmp_path / ".cards.pdf.mine.tmp").write_bytes(b"not harmony's name")
    write_bytes = pathlib.Path.write_bytes

    def full(self, data):
        if self.name.endswith(".tmp"):
            write_bytes(self, data[:10])
            _no_space()
        return write_bytes(self, data)
    monkeypatch.setattr(pathlib.Path, "write_bytes", full)
    rc, _, err = call(capsys, "cards", RULES, "--rules", "PL", "--out", out)
    assert rc == 1 and err == f"harmony cards: error: no space left on device writing {out}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".cards.pdf.mine.tmp", "rules"]


def test_init_on_a_full_disk_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(pathlib.Path, "write_bytes", _no_space)
    rc, _, err = call(capsys, "init", tmp_path / "new")
    assert rc == 1 and len(err.splitlines()) == 1
    assert err.startswith(f"harmony init: error: no space left on device writing {tmp_path / 'new'}/")
