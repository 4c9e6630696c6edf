"""Usage errors and the paths users give on the command line.

A :class:`UsageError` is the user's mistake in calling a command (a path that
does not exist, a folder with no rules in it, a bad option value): the CLI
prints it as one line ``harmony COMMAND: error: ...`` and exits 2. Command
modules raise it; they never import :mod:`harmony.cli`.
"""
from __future__ import annotations

from pathlib import Path


class UsageError(Exception):
    """A command called wrongly: one line for the user, exit code 2."""


def default_rules_data() -> Path:
    """The shipped rules_data when running from a checkout, else ./rules_data (an installed
    package ships no rules of its own: ``harmony init`` starts a folder)."""
    from .resources import checkout_root
    top = checkout_root()
    return top / "rules_data" if top is not None and (top / "rules_data").is_dir() \
        else Path("rules_data")


def rules_path(value: str | None) -> Path:
    path = Path(value) if value else default_rules_data()
    if not path.exists():
        raise UsageError(f"no such file or folder: {path}")
    if not (path.is_file() or path.is_dir()):
        raise UsageError(f"{path} is neither a file nor a folder")
    return path


def yaml_path(value: str | None) -> Path:
    """:func:`rules_path`, refusing a folder without a single YAML file (a wrong path,
    most likely, that would otherwise pass every check)."""
    from .loader import yaml_files
    path = rules_path(value)
    if path.is_dir() and not yaml_files(path):
        raise UsageError(f"no YAML files (.yaml, .yml) in {path}: is this the rules_data folder?")
    return path
