"""Reading one side of a diff: a rules_data folder, or rules_data at a git revision.

A revision's ``rules_data`` is extracted with ``git archive`` into a
temporary folder; nothing in the working tree is touched.
"""
from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Report
from ..model import Model
from ..usage import UsageError

RULES_DIR = "rules_data"


@dataclass
class Side:
    """One side of a diff: where it was read from and what it holds."""

    label: str
    path: Path
    model: Model
    report: Report
    tmp: tempfile.TemporaryDirectory | None = field(default=None, repr=False)

    def close(self) -> None:
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None


def git(repo: Path, *args: str, binary: bool = False) -> subprocess.CompletedProcess:
    """Run ``git -C repo ARGS``, capturing its output."""
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                          text=not binary, timeout=120)


def repo_root(start: Path | None = None) -> Path | None:
    """The top of the git checkout holding ``start`` (the working folder, else the package)."""
    for where in ([start] if start else []) + [Path.cwd(), Path(__file__).resolve().parent]:
        try:
            r = git(where, "rev-parse", "--show-toplevel")
        except (OSError, subprocess.TimeoutExpired):
            return None
        if r.returncode == 0:
            return Path(r.stdout.strip())
    return None


def safe_extract(data: bytes, dest: Path) -> None:
    """Unpack a tar archive (``git archive``'s output) into ``dest``, refusing any path
    that would leave it."""
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")


def folder_side(spec: str, rules_dir: str = RULES_DIR) -> Side:
    """A rules_data folder, or a checkout holding ``rules_dir``."""
    from ..loader import load

    path = Path(spec)
    if path.is_dir() and (path / rules_dir).is_dir():
        path = path / rules_dir
    model, report = load(path)
    return Side(spec, path, model, report)


def revision_side(spec: str, rules_dir: str = RULES_DIR, repo: Path | None = None) -> Side:
    """``rules_dir`` as committed at revision ``spec`` of the git repository ``repo``."""
    from ..loader import load

    root = repo or repo_root()
    if root is None:
        raise UsageError(f"'{spec}' is not a folder, and there is no git repository here to "
                         "read it as a revision")
    r = git(root, "rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}")
    if r.returncode != 0:
        raise UsageError(f"'{spec}' is neither a folder nor a revision of the git repository "
                         f"at {root}")
    commit = r.stdout.strip()
    arch = git(root, "archive", "--format=tar", commit, "--", rules_dir, binary=True)
    if arch.returncode != 0:
        raise UsageError(f"revision {spec} ({commit[:10]}) has no {rules_dir} folder")
    tmp = tempfile.TemporaryDirectory(prefix="harmony-diff-")
    try:
        safe_extract(arch.stdout, Path(tmp.name))
        path = Path(tmp.name) / rules_dir
        model, report = load(path)
    except BaseException:
        tmp.cleanup()
        raise
    return Side(f"{spec} ({commit[:10]})", path, model, report, tmp)


def open_side(spec: str, rules_dir: str = RULES_DIR, repo: Path | None = None) -> Side:
    """Read one side of a diff: a folder, or ``rules_dir`` at a git revision.

    Raises :class:`harmony.usage.UsageError` when ``spec`` is neither.
    """
    if Path(spec).exists():
        return folder_side(spec, rules_dir)
    return revision_side(spec, rules_dir, repo)
