"""The temporary folders of the Pyodide work (:func:`harmony.site.pyodidejob.scratch`): those
a process killed outright leaves are removed by the next, and nothing else is."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from harmony.site import pyodidejob


#: a process that makes a scratch folder, puts a file in it and is killed outright (SIGKILL)
KILLED_IN_SCRATCH = ("import os, signal, sys, tempfile; tempfile.tempdir = sys.argv[1]; "
                     "from harmony.site.pyodidejob import scratch; "
                     "held = scratch('harmony-pyodide-'); folder = held.__enter__(); "
                     "(folder / 'start.bin').write_bytes(bytes(1000)); print(folder, flush=True); "
                     "os.kill(os.getpid(), signal.SIGKILL)")


def test_the_folders_of_a_build_killed_outright_are_removed_by_the_next_and_no_other(tmp_path, monkeypatch):
    """SIGKILL runs no exit hook: the killed process's scratch folder (here with a start file
    in it) stays, until the next process makes a scratch folder. That one removes it, and
    leaves what it did not make or what is still in use: a folder of a process still
    running, a folder without the mark, a file, a link to a marked folder, another name."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    killed = subprocess.run([sys.executable, "-c", KILLED_IN_SCRATCH, str(temp)], capture_output=True,
                            text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = Path(killed.stdout.strip())
    assert left.parent == temp and (left / "start.bin").is_file() and (left / pyodidejob.MARK).is_file()
    gone_pid = int(left.name.split("-")[2])

    def marked(path: Path) -> Path:
        path.mkdir()
        (path / pyodidejob.MARK).touch()
        return path
    elsewhere = marked(tmp_path / "elsewhere")
    kept = [marked(temp / f"harmony-node-{os.getppid()}-running"),     # its process still runs
            temp / f"harmony-node-{gone_pid}-unmarked",
            temp / f"harmony-node-{gone_pid}-file",
            temp / f"harmony-node-{gone_pid}-link",
            marked(temp / f"harmony-{gone_pid}-other"),
            marked(temp / f"mine-node-{gone_pid}-other")]
    kept[1].mkdir()
    kept[2].write_text("a file, not a folder")
    kept[3].symlink_to(elsewhere, target_is_directory=True)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    with pyodidejob.scratch("harmony-pyc-") as mine:
        assert mine.parent == temp and mine.name.startswith(f"harmony-pyc-{os.getpid()}-")
        assert not left.exists()
        assert all(os.path.lexists(p) for p in kept) and (elsewhere / pyodidejob.MARK).is_file()
    assert not mine.exists()
    assert sorted(p.name for p in temp.iterdir()) == sorted(p.name for p in kept)


def test_a_folder_of_another_users_process_is_kept(tmp_path, monkeypatch):
    """A process this user may not signal (another user's) still runs: its folder stays.
    (The tests may run as root, who may signal any process: the refusal is made here.)"""
    folder = tmp_path / "harmony-node-4321-theirs"
    folder.mkdir()
    (folder / pyodidejob.MARK).touch()
    kill = os.kill

    def refuse(pid: int, sig: int) -> None:
        if pid == 4321:
            raise PermissionError(1, "Operation not permitted")
        return kill(pid, sig)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(os, "kill", refuse)          # (harmony.outdir asks it)
    with pyodidejob.scratch("harmony-pyc-"):
        pass
    assert folder.is_dir()
