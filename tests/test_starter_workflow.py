"""The GitHub Actions workflow ``harmony init`` writes: on each push it checks, runs pytest and
builds the site, and on the default branch publishes the site to GitHub Pages. Its commands
are run here, as the workflow runs them, in a harmony fresh from ``harmony init``."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harmony.init import create

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = Path(".github") / "workflows" / "harmony.yml"


@pytest.fixture(scope="module")
def started(tmp_path_factory) -> Path:
    rules = tmp_path_factory.mktemp("repo") / "myrules"
    create(rules)
    return rules


@pytest.fixture(scope="module")
def workflow(started) -> dict:
    data = yaml.safe_load((started / WORKFLOW).read_text("utf-8"))
    data["on"] = data.pop(True)       # YAML 1.1 reads the key 'on' as true; GitHub does not
    return data


def runs(workflow: dict, job: str) -> list[str]:
    return [s["run"] for s in workflow["jobs"][job]["steps"] if "run" in s]


def test_init_writes_the_workflow_and_the_rules_never_read_it(started):
    assert (started / WORKFLOW).is_file()
    from harmony.check import check_path
    _, report = check_path(started)
    assert not report.diagnostics and report.files == 6    # the workflow is not a rules file


def test_it_runs_on_each_push_and_publishes_pages_from_the_default_branch(workflow):
    assert "push" in workflow["on"] and "pull_request" in workflow["on"]
    build, publish = workflow["jobs"]["check-test-build"], workflow["jobs"]["publish"]
    uses = [s.get("uses", "") for s in build["steps"]]
    assert uses[0].startswith("actions/checkout@") and any(
        u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert publish["needs"] == "check-test-build"
    assert publish["permissions"] == {"pages": "write", "id-token": "write"}
    assert "default_branch" in publish["if"] and "push" in publish["if"]
    assert publish["steps"][0]["uses"].startswith("actions/deploy-pages@")
    assert workflow["permissions"] == {"contents": "read"}


def test_its_check_pytest_and_build_steps_pass_on_the_starter(workflow, started, tmp_path):
    commands = [c for c in runs(workflow, "check-test-build")
                if c.startswith(("harmony ", "python -m pytest"))]
    assert [c.split()[:3] for c in commands] == [["harmony", "check", "."],
                                                 ["python", "-m", "pytest"],
                                                 ["harmony", "build", "."]]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RUNNER_TEMP": str(tmp_path)}
    env.pop("HARMONY_DEBUG", None)
    for command in commands:
        words = shlex.split(command.replace("$RUNNER_TEMP", str(tmp_path)))
        argv = [sys.executable, "-m", "harmony", *words[1:]] if words[0] == "harmony" \
            else [sys.executable, *words[1:]]
        done = subprocess.run(argv, cwd=started, env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
        if "pytest" in command:
            assert "3 passed" in done.stdout
        if "--format github" in command:
            assert done.stdout.startswith("0 errors, 0 warnings in 6 files")
    assert (tmp_path / "site" / "index.html").is_file()
    upload = next(s for s in workflow["jobs"]["check-test-build"]["steps"]
                  if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "${{ runner.temp }}/site"     # what the build wrote
    assert sorted(p.name for p in started.iterdir()) == [
        ".github", ".gitignore", "glossary.yaml", "parameters.yaml", "scenarios", "sources.yaml",
        "spotting.yaml", "topics.yaml"]                               # nothing written in it


def test_files_and_folders_named_with_a_dot_are_never_rules(started, tmp_path):
    import shutil
    rules = tmp_path / "rules"
    shutil.copytree(started, rules)
    (rules / ".venv" / "lib").mkdir(parents=True)
    (rules / ".venv" / "lib" / "broken.yaml").write_text("clauses: [\n", "utf-8")
    (rules / ".pre-commit-config.yaml").write_text("repos: []\n", "utf-8")
    from harmony.check import check_path
    _, report = check_path(rules)
    assert not report.diagnostics and report.files == 6
    (rules / "visible.yaml").write_text("clauses: [\n", "utf-8")       # the same, not hidden
    _, report = check_path(rules)
    assert report.errors and report.files == 7
