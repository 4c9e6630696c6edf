"""What a test run makes once for all its processes (pytest-xdist's workers): see
tests/conftest.py."""
from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path
from typing import Any, Callable


def shared_folder(tmp_path_factory) -> Path:
    """The folder every process of this run shares: the run's base temporary folder (a
    pytest-xdist worker's own is a folder inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(tmp_path_factory, name: str, make: Callable[[Path], Any]) -> Any:
    """What ``make(folder)`` returned, made once per run in ``folder`` (a folder of
    :func:`shared_folder` called ``name``) by the first process to ask; the others wait on
    the lock and read what it made (pickled). A make that failed left no result: the next
    process to ask makes it again, in an emptied folder."""
    from filelock import FileLock
    folder = shared_folder(tmp_path_factory) / name
    with FileLock(str(folder) + ".lock"):
        done = folder / ".made.pickle"
        if done.is_file():
            return pickle.loads(done.read_bytes())
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        made = make(folder)
        done.write_bytes(pickle.dumps(made))
        return made
