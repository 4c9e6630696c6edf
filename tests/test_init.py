"""``harmony init DIR`` starts a harmony that passes every check as it is, and never
overwrites anything."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harmony.init import create, starter_files
from harmony.resources import starter
from harmony.usage import UsageError

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m ARGS`` with this checkout's package first, from ``cwd``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    env.pop("HARMONY_DEBUG", None)
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def started(tmp_path_factory) -> Path:
    """A harmony made by the command, in a folder outside the checkout."""
    work = tmp_path_factory.mktemp("init")
    res = run("harmony", "init", "my-harmony", cwd=work)
    assert res.returncode == 0, res.stderr
    assert "created my-harmony (8 files" in res.stdout    # 6 of rules, 1 CI workflow, .gitignore
    return work / "my-harmony"


def test_init_writes_the_starter_files_byte_for_byte(started):
    made = sorted(p.relative_to(started).as_posix() for p in started.rglob("*") if p.is_file())
    assert made == [p.as_posix() for p in starter_files()]
    for rel in starter_files():
        assert (started / rel).read_bytes() == (starter() / rel).read_bytes()
    kinds = {p.name for p in started.rglob("*.yaml")}
    assert {"sources.yaml", "topics.yaml", "parameters.yaml", "glossary.yaml"} <= kinds
    assert list((started / "scenarios").glob("*.yaml"))


def test_the_new_harmony_checks_clean(started):
    res = run("harmony", "check", str(started), cwd=started.parent)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "0 errors, 0 warnings in 6 files"


def test_the_new_harmony_is_formatted(started):
    res = run("harmony", "fmt", "--check", str(started), cwd=started.parent)
    assert res.returncode == 0, res.stderr + res.stdout
    assert "0 of 6 files need formatting" in res.stdout


def test_pytest_collects_and_passes_its_example_and_scenario(started):
    res = run("pytest", "-v", "-p", "no:cacheprovider", "--harmony-rules", str(started),
              cwd=started.parent)
    assert res.returncode == 0, res.stdout[-3000:]
    passed = set(re.findall(r"::(\S+) PASSED", res.stdout))
    assert passed == {"spotting.spotters", "dispersed-spotter[HA]", "dispersed-spotter[HB]"}


def test_the_new_harmony_builds_a_site_with_its_topic_and_cards(started, tmp_path):
    out = tmp_path / "site"
    res = run("harmony", "build", str(started), "--out", str(out), cwd=started.parent)
    assert res.returncode == 0, res.stderr
    assert (out / "index.html").is_file()
    topic = (out / "topics" / "spotting.html").read_text("utf-8")
    assert "Dispersed units as spotters" in topic and "Hedgerow, second edition" in topic
    assert (out / "print" / "harmony-cards.pdf").read_bytes().startswith(b"%PDF")


def test_a_folder_with_anything_in_it_is_refused_and_left_alone(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", "utf-8")
    res = run("harmony", "init", str(tmp_path), cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.startswith("harmony init: error: ") and "is not empty" in res.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    assert (tmp_path / "notes.txt").read_text("utf-8") == "mine"


def test_a_file_is_refused_and_an_empty_folder_is_used(tmp_path):
    (tmp_path / "file.yaml").write_text("x: 1\n", "utf-8")
    with pytest.raises(UsageError, match="is a file"):
        create(tmp_path / "file.yaml")
    (tmp_path / "empty").mkdir()
    assert len(create(tmp_path / "empty")) == len(starter_files())
    assert len(create(tmp_path / "new" / "deeper")) == len(starter_files())


def test_init_without_a_folder_is_a_usage_error(tmp_path):
    res = run("harmony", "init", cwd=tmp_path)
    assert res.returncode == 2 and "DIR" in res.stderr
    assert list(tmp_path.iterdir()) == []
