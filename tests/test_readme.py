"""The README tells the truth: its two commands, and a line for every command of the CLI."""
from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from harmony.cli import BY_NAME, parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text("utf-8")


def section(title: str) -> str:
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_exactly_two_commands_one_builds_one_tests():
    block = re.search(r"```sh\n(.*?)```", section("Two commands"), re.S).group(1)
    cmds = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert cmds == ["bash .ci/setup && .venv/bin/harmony build",
                    "bash .ci/setup && .venv/bin/python -m pytest -q"]


def test_ci_runs_the_setup_the_checks_and_last_the_readme_test_command():
    block = re.search(r"```sh\n(.*?)```", section("Two commands"), re.S).group(1)
    test_command = [line for line in block.splitlines() if "pytest" in line][0]
    ci = [line for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    setup, run_tests = test_command.split(" && ")
    assert ci[0] == setup
    assert ci[1].startswith("if [ -x ../shared/tools/copycheck ]; then ../shared/tools/copycheck .")
    assert ci[3:5] == [".venv/bin/ruff check .", ".venv/bin/mypy"]
    assert [line for line in ci if "pytest -q" in line] == [f"{run_tests} || status=$?"]


def fake_checkout(tmp_path: Path, pytest_exit: int, copycheck: bool) -> tuple[Path, Path]:
    """A tree shaped like CI's: the checkout's .ci/run, a setup and tools that only log their call."""
    repo, log = tmp_path / "repo", tmp_path / "log"
    (repo / ".ci").mkdir(parents=True)
    (repo / ".ci" / "run").write_text((ROOT / ".ci" / "run").read_text("utf-8"), "utf-8")
    tools = {repo / ".ci" / "setup": 0, repo / ".venv/bin/ruff": 0, repo / ".venv/bin/mypy": 0,
             repo / ".venv/bin/python": pytest_exit}
    if copycheck:
        tools[tmp_path / "shared/tools/copycheck"] = 0
    for tool, code in tools.items():
        tool.parent.mkdir(parents=True, exist_ok=True)
        tool.write_text(f'#!/bin/sh\necho "{tool.name} $*" >> "{log}"\nexit {code}\n', "utf-8")
        tool.chmod(0o755)
    return repo, log


def run_ci(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(repo / ".ci" / "run")], capture_output=True, text=True,
                          timeout=60)


def test_ci_runs_the_wording_check_where_it_exists_and_says_it_skipped_it_where_not(tmp_path):
    repo, log = fake_checkout(tmp_path / "ci", 0, copycheck=True)
    done = run_ci(repo)
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == ["setup ", "copycheck .", "ruff check .", "mypy ",
                                            "python -m pytest -q"]
    assert "skipped" not in done.stdout
    repo, log = fake_checkout(tmp_path / "clone", 0, copycheck=False)
    done = run_ci(repo)
    assert done.returncode == 0, done.stderr     # a plain clone: no exit 127
    assert log.read_text().splitlines() == ["setup ", "ruff check .", "mypy ", "python -m pytest -q"]
    skipped = [line for line in done.stdout.splitlines() if "skipped" in line]
    assert len(skipped) == 1 and "source-wording check" in skipped[0]


@pytest.mark.parametrize("pytest_exit, ci_exit", [(5, 1), (1, 1), (2, 2)])
def test_ci_fails_when_pytest_collects_nothing_or_fails(tmp_path, pytest_exit, ci_exit):
    repo, _ = fake_checkout(tmp_path, pytest_exit, copycheck=True)
    done = run_ci(repo)
    assert done.returncode == ci_exit
    assert ("collected no tests" in done.stderr) == (pytest_exit == 5)


def test_the_linter_and_the_type_checker_are_configured_and_installed_with_the_tests():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    test_extra = " ".join(project["project"]["optional-dependencies"]["test"])
    assert "ruff" in test_extra and "mypy" in test_extra
    assert {"F", "E", "W"} <= set(project["tool"]["ruff"]["lint"]["select"])
    assert project["tool"]["mypy"]["files"] == ["harmony"]


def test_setup_puts_every_python_package_in_the_checkouts_venv():
    setup = (ROOT / ".ci" / "setup").read_text("utf-8")
    pip_lines = [line for line in setup.splitlines() if "pip install" in line]
    assert pip_lines and all(line.strip().startswith(".venv/bin/python -m pip") for line in pip_lines)
    assert "-m venv" in setup and "/usr/bin/python3" in setup
    # ignored as a folder and as a link to one (a worktree's .venv may be a link)
    assert ".venv" in (ROOT / ".gitignore").read_text("utf-8").split()


def test_every_command_is_documented_and_every_documented_command_exists():
    block = re.search(r"```\n(.*?)```", section("The command line"), re.S).group(1)
    documented = re.findall(r"^harmony (\w+)", block, re.M)
    assert sorted(documented) == sorted(BY_NAME)
    for name in documented:         # the options shown are the options the command takes
        line = block.split(f"harmony {name} ", 1)[1].split("\nharmony ", 1)[0]
        sub = parser()._subparsers._group_actions[0].choices[name]
        known = {o for a in sub._actions for o in a.option_strings}
        assert set(re.findall(r"--[a-z-]+", line)) <= known, name
