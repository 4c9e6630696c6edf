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
from ..loader import load
from ..model import Model
from ..usage import UsageError, rules_arg

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
    if binary:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=120)
    # paths git prints are bytes: one that is not UTF-8 is kept as surrogate escapes, as
    # Python keeps file names, never a decoding error
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          encoding="utf-8", errors="surrogateescape", timeout=120)


def repo_root(start: Path) -> Path | None:
    """The top of the git checkout holding ``start`` (a folder or a file), or None when it is
    in none (or git is missing). Never the checkout harmony itself was installed from.

    >>> import subprocess, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = subprocess.run(["git", "init", "-q", tmp], check=True)
    ...     (Path(tmp) / "rules_data").mkdir()
    ...     repo_root(Path(tmp) / "rules_data") == Path(tmp).resolve()
    True
    """
    where = start if start.is_dir() else start.parent
    try:
        r = git(where, "rev-parse", "--show-toplevel")
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip() else None


def find_repo(spec: str, folders: list[Path]) -> Path:
    """The git repository a revision ``spec`` is read from: the one holding a folder the user
    gave as the other side, else the one holding the current folder.

    Raises :class:`harmony.usage.UsageError` naming the folder when there is none.
    """
    for where in [*folders, Path.cwd()]:
        root = repo_root(where)
        if root is not None:
            return root
    others = "".join(f" or {f.resolve()}" for f in folders)
    raise UsageError(f"'{spec}' is not a folder, and no git repository holds the current folder "
                     f"{Path.cwd()}{others} to read it as a revision")


def resolve_commit(root: Path, spec: str) -> str:
    """The commit a revision names, in any form git accepts (``HEAD~3``, a tag, a branch,
    ``:/message``, ``@{1}``), as its full id.

    Raises :class:`harmony.usage.UsageError` when ``root`` has no such commit.
    """
    obj = git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", spec)
    commit = git(root, "rev-parse", "--verify", "--quiet", "--end-of-options",
                 obj.stdout.strip() + "^{commit}") if obj.returncode == 0 else obj
    if commit.returncode != 0 or not commit.stdout.strip():
        raise UsageError(f"'{spec}' is neither a folder nor a revision of the git repository "
                         f"at {root}")
    return commit.stdout.strip()


def safe_extract(data: bytes, dest: Path) -> None:
    """Unpack a tar archive (``git archive``'s output) into ``dest``, refusing any path
    that would leave it."""
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
            return
        # Python before 3.11.4 (Debian 12's 3.11.2) has no extraction filters: regular
        # files and folders only, each inside dest
        root = dest.resolve()
        tar.extractall(dest, members=[m for m in tar.getmembers() if (m.isfile() or m.isdir())
                                      and (root / m.name).resolve().is_relative_to(root)])


def folder_side(spec: str, rules_dir: str = RULES_DIR) -> Side:
    """A rules_data folder, or a checkout holding ``rules_dir``."""
    path = Path(spec)
    if path.is_dir() and (path / rules_dir).is_dir():
        path = path / rules_dir
    rules_arg(path)  # the same usage errors as every command for a folder that holds no rules
    model, report = load(path)
    return Side(spec, path, model, report)


def revision_side(spec: str, rules_dir: str = RULES_DIR, repo: Path | None = None) -> Side:
    """``rules_dir`` as committed at revision ``spec`` of the git repository ``repo``
    (default: the one holding the current folder, :func:`find_repo`)."""
    root = repo or find_repo(spec, [])
    commit = resolve_commit(root, spec)
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
