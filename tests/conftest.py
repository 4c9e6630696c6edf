"""Fixtures shared by the test files: the shipped rules loaded once, copies of them to change,
and what a run builds once for all its processes.

The suite runs in parallel (pytest-xdist, ``-n auto`` in pyproject.toml's ``addopts``): every
worker process collects every test and runs its share. What is costly to make and the same
for every test (the shipped site, the wheel and its environment) is made once per run by the
first worker to ask, in a folder all the workers share, under a file lock
(:func:`made_once`); the others wait for it and read it. The tests that share a
module-scoped fixture, or a fixture of :data:`ONE_WORKER`, are kept on one worker
(:func:`worker_group`).
"""
from __future__ import annotations

import os
import shutil
import signal
import tempfile
from functools import partial
from pathlib import Path

import pytest
from hypothesis import settings

from harmony.loader import load
from harmony.model import Model
from once import made_once

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"

# CI (which sets CI=true) draws every property's cases from a fixed seed, so that its verdict on
# a commit is repeatable; a developer's run draws new cases each time and finds what CI cannot.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Tests stop `harmony serve` and `harmony fmt` with Ctrl-C (SIGINT). A run started in the
# background by a shell without job control (`cmd &` in a script) inherits SIGINT ignored, and
# so would every process it starts, which would then never stop: the run takes it back.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Where no compiled module may be written beside its source (PYTHONDONTWRITEBYTECODE), the
# processes the tests start (``harmony`` commands, ``harmony serve``, pytest-xdist's workers)
# would each compile harmony again: they keep their compiled modules in a folder of their
# own instead (PYTHONPYCACHEPREFIX, outside the checkout), as bench/run.py does.
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(),
                                                     f"harmony-tests-pycache-{os.getuid()}")
    del os.environ["PYTHONDONTWRITEBYTECODE"]


class OpenPages:
    """A stand-in for ``harmony serve``'s server, whose browsers have ``pages`` (docnames) open;
    it counts the times it was told of a change."""

    def __init__(self, *pages: str):
        self.pages, self.told = set(pages), 0

    def open_pages(self) -> set[str]:
        return self.pages

    def tell(self) -> None:
        self.told += 1


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
def starter_rules(tmp_path: Path) -> Path:
    """A harmony made by `harmony init` in a process of its own, as a user makes one:
    ``tmp_path / "rules"``."""
    import subprocess
    import sys
    rules = tmp_path / "rules"
    made = subprocess.run([sys.executable, "-m", "harmony", "init", str(rules)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    return rules


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


@pytest.fixture
def shipped_cache(tmp_path: Path, monkeypatch, new_process) -> Path:
    """An on-disk cache folder of this test's own, as :func:`harmony_cache`, seeded from the
    run's shared cache with the PDFs and EPUBs that the run's one build of the shipped rules
    (:func:`harmony.site.testing.shipped_site`) printed, each under the key of its own HTML
    and nothing else printed (a PDF of any other HTML, an edited rulebook's, is laid out), and
    with Pyodide's work for the explorer (``pyc``, ``snapshot``, ``explorer``). For a test
    that builds the shipped rules (or a copy) to prove what is printed again, without laying
    out every PDF cold first. Where the shared cache is off, nothing is seeded (and the test
    lays them out)."""
    from harmony import parsecache, printcache
    from harmony.site.build import print_jobs
    from harmony.site.testing import shipped_site
    built = shipped_site()
    keys = [printcache.key(job.print, job.html()) for job in print_jobs(built.model)]
    printed = [(k, printcache.get(k)) for k in keys]
    shared = [(kind, parsecache.folder(kind)) for kind in ("pyc", "snapshot", "explorer")]
    folder = tmp_path / "cache"
    monkeypatch.setenv("HARMONY_CACHE", str(folder))
    new_process()
    for k, found in printed:
        if found is not None:
            printcache.put(k, *found)
    for kind, there in shared:
        if there is not None:
            _copy_present(there, folder / kind)
    return folder


def _copy_present(src: Path, dest: Path) -> None:
    """Copy each file of the folder ``src`` that is there as it is read into ``dest``: another
    worker of the run may be replacing or pruning the entries of a shared cache meanwhile (an
    entry is renamed into place whole, so a file read is whole)."""
    for path in sorted(src.rglob("*")) if src.is_dir() else []:
        try:
            data = path.read_bytes()
        except OSError:          # a folder, or gone since it was listed
            continue
        target = dest / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@pytest.fixture
def node_pyodide(monkeypatch, tmp_path: Path) -> Path:
    """The pyodide npm package, for a test that runs it under Node.js (harmony.site.bytecode,
    harmony.site.snapshot), with an empty on-disk cache of its own."""
    from harmony.site.explorer import find_pyodide
    found = find_pyodide()
    assert found is not None, "Pyodide is missing: run `npm ci` at the top of the checkout"
    assert shutil.which("node"), "Node.js is needed (npm ci needs it too)"
    monkeypatch.setenv("HARMONY_CACHE", str(tmp_path / "cache"))
    return found


#: Debian's headless shell of Chromium (package chromium-headless-shell, built from the same
#: source as its chromium, the same Blink): what Playwright itself runs for headless pages. It
#: draws the same pages without a headed browser's machinery: the browser tests took a fifth
#: to a quarter less CPU in it than in ``chromium --headless`` (bench/RESULTS.md, session 25).
#: Where a Debian has no such package, Debian's chromium, headless, runs the same tests.
CHROMIUMS = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
CHROMIUM = next((path for path in CHROMIUMS if Path(path).exists()), CHROMIUMS[0])
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright: one for the whole run (a second sync
    Playwright cannot run beside the first in one process), shared by the browser tests."""
    playwright = pytest.importorskip("playwright.sync_api")
    assert Path(CHROMIUM).exists(), "Debian's chromium-headless-shell (or chromium) is needed (.ci/setup installs it)"
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


# ------------------------------------------------------------------ made once per run

@pytest.fixture(scope="session", autouse=True)
def one_site_per_run(tmp_path_factory):
    """The shipped site (:func:`harmony.site.testing.shipped_site`) is built once per run, by
    whichever worker asks first."""
    from harmony.site import testing
    testing.share = partial(made_once, tmp_path_factory)
    yield
    testing.share = None


@pytest.fixture(scope="session")
def served(tmp_path_factory):
    """``harmony serve`` of the shipped rules, Pyodide bundled, for the explorer's browser
    tests (both modules): its address and the site folder it built. One a run: its tests are
    kept on one worker (:data:`ONE_WORKER`)."""
    from harmony.site import explorer as bundle
    from test_site_serve import serving
    assert bundle.find_pyodide() is not None, \
        "Pyodide is missing: run `npm ci` at the top of the checkout (.ci/setup does)"
    from harmony.site.testing import shipped_site
    tmp = tmp_path_factory.mktemp("explorer")
    # The run's one build of the shipped site first (made by whichever worker asks first):
    # serve's own build then takes from harmony's cache what that build printed and what
    # Pyodide made under Node.js, as a second build of the same rules does, instead of
    # doing the same work again beside it at the start of a run.
    shipped_site()
    with serving(RULES, tmp, start_within=600) as server:
        yield server.url, tmp / "out"


# ------------------------------------------------------------------ kept on one worker

#: Session fixtures whose tests are kept on one worker, so that the run makes them once:
#: a ``harmony serve`` of the shipped rules, Pyodide bundled (the explorer's browser tests).
ONE_WORKER = ("served",)


def worker_group(item) -> str | None:
    """The group of tests ``item`` runs with on one pytest-xdist worker (``loadgroup``), or
    None when it may run on any: a test using a module-scoped fixture stays with its module
    (the fixture is made once, and tests that edit one page in turn keep their order); a test
    using a fixture of :data:`ONE_WORKER`, with the others using it."""
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    shared = [name for name in ONE_WORKER if name in defs]
    if shared:
        return shared[0]
    if any(d.scope == "module" for fixturedefs in defs.values() for d in fixturedefs):
        return Path(str(item.fspath)).name
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = worker_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
