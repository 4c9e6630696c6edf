"""The wheel runs anywhere: built from the sources, installed into a fresh virtual
environment outside the checkout, its ``harmony`` checks, builds and prints a copy of
rules_data, and starts a new harmony, with no file of the checkout in reach.

The new environment is fresh (no ``--system-site-packages``, which from inside a virtual
environment would reach the base interpreter's packages, not this one's) and sees the
dependencies already installed here through a ``.pth`` file listing this environment's
site-packages folders. Such a listing adds the folders to ``sys.path`` without running
their ``.pth`` files, so an editable install of harmony in them is not reachable.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import urllib.request
import venv
import zipfile
from functools import partial
from importlib import metadata
from pathlib import Path

import pytest

from once import made_once

ROOT = Path(__file__).resolve().parent.parent
#: what the wheel is built from: nothing else of the checkout may be needed
SOURCES = ("pyproject.toml", "README.md", "harmony", "templates", "site")
TEST_ONLY = ("hypothesis", "pypdf", "playwright", "filelock")


def sh(*args, cwd: Path, env: dict | None = None, timeout: int = 900) -> subprocess.CompletedProcess:
    res = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=timeout)
    assert res.returncode == 0, f"{args}: exit {res.returncode}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


def backend_builds_here() -> bool:
    """Can this environment's setuptools build a wheel by itself (70.1 or later, or with the
    ``wheel`` package)? The test extra installs such a setuptools; an older environment lets
    pip fetch the build backend into an isolated build environment instead."""
    try:
        version = tuple(int(x) for x in metadata.version("setuptools").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    if version >= (70, 1):
        return True
    try:
        metadata.version("wheel")
        return True
    except metadata.PackageNotFoundError:
        return False


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built once a run (``made_once``: whichever worker asks first), from a copy of
    exactly :data:`SOURCES` (no build files in the checkout)."""
    return made_once(tmp_path_factory, "wheel", build_wheel)


def build_wheel(tmp: Path) -> Path:
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, src / name)
    isolation = ["--no-build-isolation"] if backend_builds_here() else []
    sh(sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "--quiet",
       "--wheel-dir", tmp / "dist", src, cwd=tmp)
    (built,) = (tmp / "dist").glob("harmony-*.whl")
    return built


@pytest.fixture(scope="module")
def env(wheel, tmp_path_factory) -> dict:
    """A fresh virtual environment with the wheel installed, made once a run; its python, bin
    folder and a working folder outside the checkout."""
    return made_once(tmp_path_factory, "wheel-venv", partial(install_wheel, wheel))


def install_wheel(wheel: Path, tmp: Path) -> dict:
    home = tmp / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(home)
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(home),
                                                       "platbase": str(home)}))
    here = [p for p in site.getsitepackages() + [sysconfig.get_path("purelib"),
                                                  sysconfig.get_path("platlib")]
            if Path(p).is_dir() and not Path(p).resolve().is_relative_to(ROOT / "harmony")]
    (purelib / "_harmony_test_deps.pth").write_text("\n".join(dict.fromkeys(here)) + "\n")
    bin_dir = home / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "PYTHONHOME", "HARMONY_DEBUG", "VIRTUAL_ENV")}
    # pip installs into the new environment as that environment's python sees it (console
    # script, entry points); --ignore-installed: a harmony the listed folders hold is not ours
    sh(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps",
       "--no-index", "--ignore-installed", wheel, cwd=tmp, env=clean)
    work = tmp / "work"
    work.mkdir()
    return {"python": python, "bin": bin_dir, "purelib": purelib, "work": work, "env": clean}


def test_the_wheel_holds_the_code_templates_site_sources_schema_and_starter(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    code = {p.relative_to(ROOT).as_posix() for p in (ROOT / "harmony").rglob("*.py")
            if "__pycache__" not in p.parts}
    assert code - names == set(), "a package is missing from [tool.setuptools] packages"
    for folder, packaged in (("templates", "harmony/templates"), ("site", "harmony/sitesrc")):
        shipped = {p.relative_to(ROOT / folder).as_posix() for p in (ROOT / folder).rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts}
        assert shipped and {f"{packaged}/{rel}" for rel in shipped} <= names, folder
    assert "harmony/schema/harmony.schema.json" in names
    starter = {p.relative_to(ROOT).as_posix() for p in (ROOT / "harmony" / "starter").rglob("*.y*ml")}
    assert "harmony/starter/.github/workflows/harmony.yml" in starter      # the CI workflow
    assert starter and starter <= names
    from harmony.init import starter_files
    from harmony.resources import STARTERS
    for name, folder in STARTERS.items():       # every file init copies, .gitignore and game module too
        shipped = {f"harmony/{folder}/{p.as_posix()}" for p in starter_files(name)}
        assert f"harmony/{folder}/.gitignore" in shipped and shipped <= names, name
    assert "harmony/starter_dice/tumble.py" in names
    assert not {n for n in names if n.startswith(("tests/", "rules_data/", "templates/", "site/"))}


def test_test_only_packages_are_in_the_test_extra_only(wheel):
    meta = zipfile.ZipFile(wheel).read(
        next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA")))
    requires = [line.split(":", 1)[1].strip() for line in meta.decode().splitlines()
                if line.startswith("Requires-Dist:")]
    for name in TEST_ONLY:
        mine = [r for r in requires if r.lower().startswith(name)]
        assert mine and all("extra == \"test\"" in r for r in mine), (name, mine)
    # the shipped pytest plugin (pytest --harmony-rules) needs pytest at run time
    assert any(r.startswith("pytest") and "extra" not in r for r in requires)


def test_the_installed_package_is_the_wheel_and_never_imports_test_only_packages(env):
    code = (
        "import importlib, pkgutil, sys\n"
        f"blocked = {TEST_ONLY!r}\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in blocked:\n"
        "            raise ImportError('test-only package imported: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import harmony, harmony.resources as r\n"
        "for m in pkgutil.walk_packages(harmony.__path__, 'harmony.'):\n"
        "    if m.name not in ('harmony.__main__',):\n"
        "        importlib.import_module(m.name)\n"
        "print(harmony.__file__); print(r.templates()); print(r.site_sources())\n"
        "print(r.checkout_root())\n")
    out = sh(env["python"], "-c", code, cwd=env["work"], env=env["env"]).stdout.splitlines()
    purelib = env["purelib"].resolve()
    assert Path(out[0]).resolve() == purelib / "harmony" / "__init__.py"
    assert Path(out[1]).resolve() == purelib / "harmony" / "templates"
    assert Path(out[2]).resolve() == purelib / "harmony" / "sitesrc"
    assert out[3] == "None"


def test_harmony_from_the_wheel_checks_builds_and_prints_a_copy_of_rules_data(env):
    work = env["work"] / "project"
    shutil.copytree(ROOT / "rules_data", work / "rules_data")
    harmony = env["bin"] / "harmony"
    # no PATH given: the ./rules_data of the working folder
    res = sh(harmony, "check", cwd=work, env=env["env"])
    assert res.stdout.startswith("0 errors, 0 warnings")
    res = sh(harmony, "build", cwd=work, env=env["env"])
    assert (work / "build" / "site" / "index.html").is_file()
    assert (work / "build" / "site" / "_static" / "harmony.css").is_file()
    assert (work / "build" / "site" / "print" / "harmony-cards.pdf").read_bytes().startswith(b"%PDF")
    assert str(ROOT) not in res.stdout + res.stderr
    sh(harmony, "cards", "--out", "cards.pdf", cwd=work, env=env["env"])
    assert (work / "cards.pdf").read_bytes().startswith(b"%PDF")


def test_harmony_from_the_wheel_starts_a_harmony_that_checks_and_runs_under_pytest(env):
    work = env["work"]
    harmony = env["bin"] / "harmony"
    sh(harmony, "init", "fresh", cwd=work, env=env["env"])
    assert sh(harmony, "check", "fresh", cwd=work, env=env["env"]).stdout.startswith(
        "0 errors, 0 warnings")
    res = sh(env["python"], "-m", "pytest", "-q", "-p", "no:cacheprovider", "--harmony-rules",
             "fresh", cwd=work, env=env["env"])
    assert "3 passed" in res.stdout


def test_a_plain_pytest_runs_a_harmony_from_the_wheel_by_path_or_from_inside(env):
    work = env["work"] / "plain"
    work.mkdir()
    sh(env["bin"] / "harmony", "init", "myrules", cwd=work, env=env["env"])
    assert (work / "myrules" / ".github" / "workflows" / "harmony.yml").is_file()
    for args, cwd in ((("myrules",), work), ((), work / "myrules")):
        res = sh(env["python"], "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, cwd=cwd,
                 env=env["env"])
        assert "3 passed" in res.stdout, res.stdout


#: the shipped harmony's words, none of which a new harmony's output may hold
SHIPPED_WORDS = ("PanzerBlitz", "Panzer Leader", "Arab-Israeli", "Combat Patrol", "PanzerBitz")


def test_a_dice_harmony_from_the_wheel_works_in_its_own_folder(env, tmp_path):
    """``harmony init --starter dice`` from the wheel, outside any checkout, at the top of a
    git repository: in that folder every command finds the harmony with no path, writes
    where its user expects (``build/``, which the starter's ``.gitignore`` keeps out of
    git), and says nothing of a checkout the user does not have."""
    work = env["work"] / "own-game"
    work.mkdir()
    harmony = env["bin"] / "harmony"
    said: list[str] = []

    def run(*args, cwd: Path) -> subprocess.CompletedProcess:
        res = sh(*args, cwd=cwd, env=env["env"])
        said.append(res.stdout + res.stderr)
        return res

    run(harmony, "init", "tumble", "--starter", "dice", cwd=work)
    repo = work / "tumble"
    git = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t"]
    sh("git", "init", "-q", cwd=repo)
    sh(*git, "add", "-A", cwd=repo)
    sh(*git, "commit", "-qm", "start", cwd=repo)
    assert "In this folder: Tumble scoring harmony" in " ".join(run(harmony, "--help", cwd=repo).stdout.split())
    assert run(harmony, "check", cwd=repo).stdout.startswith("0 errors, 0 warnings in 6 files")
    assert "6 passed" in run(env["python"], "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=repo).stdout
    run(harmony, "build", cwd=repo)
    page = (repo / "build" / "site" / "examples" / "three-throws.html").read_text("utf-8")
    assert "hm-outcomes" in page and "<strong>45</strong>" in page and "<strong>30</strong>" in page
    run(harmony, "cards", cwd=repo)
    assert (repo / "build" / "cards.pdf").read_bytes().startswith(b"%PDF")
    assert sh("git", "status", "--porcelain", cwd=repo).stdout == ""      # build/ is ignored
    scoring = repo / "scoring.yaml"
    scoring.write_text(scoring.read_text("utf-8").replace("params: {score.pair-bonus: 5}",
                                                          "params: {score.pair-bonus: 4}"), "utf-8")
    sh(*git, "commit", "-qam", "a smaller pair bonus", cwd=repo)
    assert "score.pair-bonus" in run(harmony, "diff", "HEAD~1", "HEAD", cwd=repo).stdout
    errors = tmp_path / "serve.err"
    with open(errors, "w+", encoding="utf-8") as err:
        proc = subprocess.Popen([str(harmony), "serve", "--port", "0"], cwd=repo, env=env["env"],
                                stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            url, lines = None, []
            while url is None:
                line = proc.stdout.readline() if proc.stdout else ""
                if not line and proc.poll() is not None:
                    break
                lines.append(line)
                found = re.search(r"serving (http://127\.0\.0\.1:\d+/)", line)
                url = found.group(1) if found else None
            assert url, "".join(lines) + errors.read_text("utf-8")
            with urllib.request.urlopen(url, timeout=30) as r:
                assert "Tumble scoring harmony" in r.read().decode("utf-8")
        finally:
            proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate(timeout=60)
        said.append("".join(lines) + out + errors.read_text("utf-8"))
    # the hex starter's build too: without Pyodide it says how to get it, not "npm ci" in a checkout
    run(harmony, "init", "hexrules", cwd=work)
    run(harmony, "build", "hexrules", "--out", "hexsite", cwd=work)
    text = "\n".join(said)
    assert "checkout" not in text and "npm ci" not in text, text
    assert str(ROOT) not in text
    for built in (repo / "build" / "site", work / "hexsite"):
        for p in built.rglob("*"):
            if p.is_file() and p.suffix in (".html", ".js", ".css", ".txt"):
                body = p.read_text("utf-8", "ignore")
                assert not [w for w in SHIPPED_WORDS if w in body], p
