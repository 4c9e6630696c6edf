"""Fixtures shared by the test files: the shipped rules loaded once, and copies of them to change."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from harmony.loader import load
from harmony.model import Model

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"

# CI (which sets CI=true) draws every property's cases from a fixed seed, so that its verdict on
# a commit is repeatable; a developer's run draws new cases each time and finds what CI cannot.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def shipped_model() -> Model:
    """The model of the shipped rules_data, loaded once for the whole run: read it, never change it
    (change a :func:`rules_copy` instead)."""
    model, report = load(RULES)
    assert not report.errors, report.to_text()
    return model


@pytest.fixture
def rules_copy(tmp_path: Path) -> Path:
    """A copy of the shipped rules_data, ``tmp_path / "rules_data"``, for this test to change."""
    dest = tmp_path / "rules_data"
    shutil.copytree(RULES, dest)
    return dest


@pytest.fixture
def new_process(monkeypatch):
    """Call it to forget the files the loader read in this process, as a new process starts
    (the on-disk caches under ``HARMONY_CACHE`` stay)."""
    from harmony import loader
    return lambda: monkeypatch.setattr(loader, "_READ", type(loader._READ)())


@pytest.fixture
def harmony_cache(tmp_path: Path, monkeypatch, new_process) -> Path:
    """An empty on-disk cache folder (``HARMONY_CACHE``) for this test, in a process that has
    read nothing yet."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("HARMONY_CACHE", str(folder))
    new_process()
    return folder


CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright: one for the whole run (a second sync
    Playwright cannot run beside the first in one process), shared by the browser tests."""
    playwright = pytest.importorskip("playwright.sync_api")
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed (.ci/setup installs it)"
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()
