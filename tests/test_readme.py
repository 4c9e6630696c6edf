"""The README tells the truth: its two commands, and a line for every command of the CLI."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

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
    assert ci == [setup, "../shared/tools/copycheck .", ".venv/bin/ruff check .", ".venv/bin/mypy",
                  run_tests]


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
    assert ".venv/" in (ROOT / ".gitignore").read_text("utf-8").split()


def test_every_command_is_documented_and_every_documented_command_exists():
    block = re.search(r"```\n(.*?)```", section("The command line"), re.S).group(1)
    documented = re.findall(r"^harmony (\w+)", block, re.M)
    assert sorted(documented) == sorted(BY_NAME)
    for name in documented:         # the options shown are the options the command takes
        line = block.split(f"harmony {name} ", 1)[1].split("\nharmony ", 1)[0]
        sub = parser()._subparsers._group_actions[0].choices[name]
        known = {o for a in sub._actions for o in a.option_strings}
        assert set(re.findall(r"--[a-z-]+", line)) <= known, name
