"""Small helpers for tests that change a copy of a rules folder and look for positions."""
from __future__ import annotations

from pathlib import Path


def edit(folder: Path, name: str, old: str, new: str) -> None:
    """Replace ``old`` (which must be there exactly once) by ``new`` in ``folder / name``."""
    path = folder / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found once in {name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(folder: Path, name: str, needle: str) -> int:
    """The number of the first line of ``folder / name`` holding ``needle``."""
    lines = (folder / name).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def clean_model(folder: Path):
    """The model of ``folder``, which must load without an error (the edit kept it valid)."""
    from harmony.loader import load
    model, report = load(folder)
    assert not report.errors, report.to_text()
    return model
