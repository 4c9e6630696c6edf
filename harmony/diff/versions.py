"""The site's per-version pages: what each version of a revision adds or changes.

A later version's page shows what each changed cell was at the previous
version, read from git history (:func:`model_at_version`).
"""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from ..loader import load, plain, read_text
from ..model import Cell, Model, Source
from ..ruleset import Ruleset, coerce
from .plain import same
from .revisions import git, safe_extract
from .rst import heading, literal, param_value, plain_cell_text, rst_escape
from .words import changed as text_changed, render, word_diff


def base_settings(model: Model, src: Source) -> dict:
    """The parameters ``src``'s base sets, by name (each with its ``value``); empty
    for a source with no base. The one place version pages resolve parameters."""
    if not src.base or src.base not in model.sources:
        return {}
    return {n: s for n, s in Ruleset.from_model(model, src.base).settings.items() if not s.unset}


def _version_file(src: Source, version: str) -> str:
    safe = "".join(ch if ch.isalnum() else "-" for ch in version)
    return f"changes-{src.key.lower()}-{safe}.rst"


def _source_version_in(text: str, path: str, key: str) -> str | None:
    """The ``version`` of source ``key`` in one file's text (None when absent or unreadable)."""
    doc = read_text(path, text)
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
        show = git(repo, "show", f"{commit}:{rel_file}")
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


def _cell_lines(model: Model, cell: Cell, base: dict, first: bool, prev: Model | None,
                version: str) -> list[str]:
    """The facts and text of one cell on a version page."""
    clause = model.clauses[cell.clause_id]
    lines = heading(f"{clause.id}" + (f": {clause.title}" if clause.title else ""), "-")
    facts = [f"- status: {rst_escape(cell.status)}" + (f" (option ``{cell.option}``)" if cell.option else "")]
    rel = cell.relation
    if rel:
        facts.append(f"- {rst_escape(rel.type)}: "
                     + (", ".join(f"``{r}``" for r in rel.clauses) or "nothing named"))
    if cell.changed and cell.changed.version == version:
        facts.append(f"- changed in {rst_escape(cell.changed.version)}: {rst_escape(cell.changed.note)}")
    elif first and cell.changed:
        facts.append(f"- changed again in {rst_escape(cell.changed.version)} (the text below is "
                     "the current one)")
    old = prev.cell(f"{cell.clause_id}@{cell.source}") if prev is not None else None
    if old is not None and old.status != cell.status:
        facts.append(f"- status was {rst_escape(old.status)}"
                     + (f" (option ``{old.option}``)" if old.option else ""))
    for name in sorted(set(cell.params) | set(old.params if old else {})):
        value = cell.params.get(name)
        if first:
            b, p = base.get(name), model.parameters.get(name)
            if b is not None and same(b.value, coerce(p.type if p else None, value)):
                continue
            was = f" (base: {rst_escape(param_value(model, name, b.value))})" if b is not None else ""
        elif old is not None and prev is not None:   # (an old cell comes from prev)
            if same(old.params.get(name), value) and (name in old.params) == (name in cell.params):
                continue
            was = f" (was {rst_escape(param_value(prev, name, old.params[name]))})" if name in old.params \
                else " (new)"
        else:
            was = ""
        now = rst_escape(param_value(model, name, value)) if name in cell.params else "no longer set"
        facts.append(f"- ``{name}`` = {now}{was}")
    lines += facts + [""]
    if old is not None and prev is not None and not first:
        a = plain_cell_text(prev, old, old.text)
        b = plain_cell_text(model, cell, cell.text)
        if text_changed(a, b):
            lines += ["Text (removed words in [- -], added in {+ +})"] + literal(render(word_diff(a, b)))
            return lines
    lines += ["Text"] + literal(plain_cell_text(model, cell, cell.text) or "")
    return lines


def version_pages(model: Model) -> dict[str, str]:
    """One reStructuredText page per version of each revision, by file name.

    The first version's page lists everything the revision adds to its base
    (every covered cell: its relation, its text and the parameters it sets
    that differ from the base's value). A later version's page lists the
    cells whose ``changed`` record names that version, with the note; when
    git history has the previous version (:func:`model_at_version`), it also
    shows what each of those cells was: a word diff of the text, the old
    status and parameter values.
    """
    pages: dict[str, str] = {}
    for key in sorted(model.sources):
        src = model.sources[key]
        if not src.versions:
            continue
        for i, v in enumerate(src.versions):
            at = model_at_version(model, src, v.version) or model
            base = base_settings(at, src)
            cells = [c for cl in sorted(at.clauses.values(), key=lambda c: c.id)
                     for k, c in sorted(cl.cells.items()) if k == key and c.covered]
            lines = heading(f"{src.title} {v.version} ({v.date})", "=")
            if v.note:
                lines += [rst_escape(v.note), ""]
            prev = None
            if i == 0:
                against = at.sources[src.base].title if src.base in at.sources else "its base"
                lines += [f"What version {rst_escape(v.version)} adds to or changes in "
                          f"{rst_escape(against)}, clause by clause.", ""]
                chosen = cells
            else:
                prev_version = src.versions[i - 1].version
                prev = model_at_version(model, src, prev_version)
                lines += [f"What changed since version {rst_escape(prev_version)}: the clauses whose "
                          f"cells record a change in {rst_escape(v.version)}.", ""]
                chosen = [c for c in cells if c.changed and c.changed.version == v.version]
            if not chosen:
                lines += ["No clause records a change in this version.", ""]
            for cell in chosen:
                lines += _cell_lines(at, cell, base, i == 0, prev, v.version)
            pages[_version_file(src, v.version)] = "\n".join(lines).rstrip() + "\n"
    return pages
