"""A rules folder as it was at one version of a revision, read from git history.

The site's what-changed pages (:func:`harmony.site.views.version_views`) set
each cell a later version changes beside what it was at the version before
(:func:`model_at_version`).
"""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from ..loader import load, plain, read_bytes
from ..model import Model, Source
from .revisions import git, safe_extract


def _source_version_in(data: bytes, path: str, key: str) -> str | None:
    """The ``version`` of source ``key`` in one file's bytes (None when absent or unreadable:
    not UTF-8, not YAML).

    >>> _source_version_in(b"sources:\\n  - {key: REV, version: '0.2'}\\n", "s.yaml", "REV")
    '0.2'
    >>> _source_version_in(b"sources:\\n  - {key: REV, version: caf\\xe9}\\n", "s.yaml", "REV") is None
    True
    """
    doc = read_bytes(path, data)
    tree = plain(doc.tree) if doc.tree is not None else None
    if not isinstance(tree, dict):
        return None
    for s in tree.get("sources") or []:
        if isinstance(s, dict) and s.get("key") == key:
            v = s.get("version")
            return None if v is None else str(v)
    return None


def model_at_version(model: Model, src: Source, version: str) -> Model | None:
    """The rules_data as it was when ``src`` was at ``version``.

    The model itself when that is the source's current version; otherwise
    the folder as committed just before the source's file next changed after
    giving that version (None when the folder is not in git or no commit
    gives the version).
    """
    from ..consistency import current_version

    if current_version(src) == version:
        return model
    root = Path(model.root).resolve()
    try:
        top = git(root if root.is_dir() else root.parent, "rev-parse", "--show-toplevel")
    except (OSError, subprocess.TimeoutExpired):
        return None
    if top.returncode != 0 or not src.file:
        return None
    repo = Path(top.stdout.strip()).resolve()
    try:
        rel_file = Path(src.file).resolve().relative_to(repo).as_posix()
        rel_root = root.relative_to(repo).as_posix()
    except ValueError:
        return None
    log = git(repo, "log", "--first-parent", "--format=%H", "--", rel_file)
    if log.returncode != 0:
        return None
    newer = None  # the next newer commit that touched the file
    for commit in log.stdout.split():
        show = git(repo, "show", f"{commit}:{rel_file}", binary=True)
        if show.returncode != 0 or _source_version_in(show.stdout, rel_file, src.key) != version:
            newer = commit
            continue
        # the last state at this version: just before the file next changed
        state = f"{newer}^" if newer else "HEAD"
        arch = git(repo, "archive", "--format=tar", state, "--", rel_root, binary=True)
        if arch.returncode != 0:
            return None
        with tempfile.TemporaryDirectory(prefix="harmony-version-") as tmp:
            safe_extract(arch.stdout, Path(tmp))
            old, _ = load(Path(tmp) / rel_root)
        return old
    return None
