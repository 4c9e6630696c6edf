"""Sphinx's application for a build: a new one, or the one kept from the last build of the
same cache (``harmony serve``, whose builds follow one another in one process).

A new application reads its configuration and its pickled environment, compiles its
theme's templates and starts its search indexer's word stemmer afresh: a tenth of a
second and more that a rebuild after a one-line edit need not pay. A kept application
builds again as Sphinx builds incrementally (the sources whose time moved are read,
their pages written); it is kept only while its configuration is the same (the
harmony's identity, the site's ``conf.py``) and only after a build that ended well.

Sphinx registers its directives, roles and nodes in docutils' global tables while it
starts; each build runs in a namespace of its own (``docutils_namespace``), which
forgets them when the build ends, so a kept application's registrations are put back
in each new one before it builds.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class _Kept:
    key: str
    app: Any
    directives: dict
    roles: dict
    nodes: set
    warnings: io.StringIO


#: the application kept for each cache folder
_KEPT: dict[Path, _Kept] = {}


def forget(cache: Path) -> None:
    """Drop the application kept for ``cache`` (its files were removed, or it is done with)."""
    _KEPT.pop(cache, None)


def _key(site_dir: Path, overrides: dict[str, str]) -> str:
    conf = site_dir / "conf.py"
    h = hashlib.sha256(json.dumps(overrides, sort_keys=True).encode() + str(site_dir).encode())
    h.update(conf.read_bytes() if conf.is_file() else b"")
    return h.hexdigest()


@contextmanager
def application(cache: Path, site_dir: Path, overrides: dict[str, str], status=None,
                keep: bool = False) -> Iterator[tuple[Any, io.StringIO]]:
    """Sphinx's application to build the staged sources of ``cache`` (``src/``) into its
    ``html/``, and the stream its warnings go to (empty at the start), for the block; with
    ``keep`` the one kept from the last build of ``cache`` if its configuration is the
    same, and the application is kept for the next build if the block ends well."""
    from docutils.parsers.rst import directives, roles
    from sphinx.application import Sphinx
    from sphinx.util import docutils as sphinx_docutils
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    key = _key(site_dir, overrides)
    kept = _KEPT.pop(cache, None)
    if not keep or (kept is not None and kept.key != key):
        kept = None
    with patch_docutils(site_dir), docutils_namespace():
        if kept is not None:
            directives._directives.update(kept.directives)
            roles._roles.update(kept.roles)
            for node in kept.nodes:
                sphinx_docutils.register_node(node)
            kept.warnings.seek(0)
            kept.warnings.truncate()
        else:
            had = (dict(directives._directives), dict(roles._roles))
            warnings = io.StringIO()
            app = Sphinx(str(cache / "src"), str(site_dir), str(cache / "html"), str(cache / "doctrees"),
                         "html", confoverrides=overrides, status=status, warning=warnings, freshenv=False,
                         keep_going=True)
            kept = _Kept(key, app,
                         {k: v for k, v in directives._directives.items() if had[0].get(k) is not v},
                         {k: v for k, v in roles._roles.items() if had[1].get(k) is not v},
                         set(sphinx_docutils.additional_nodes), warnings)
        yield kept.app, kept.warnings
    if keep:
        _KEPT[cache] = kept


@contextmanager
def kept(cache: Path, site_dir: Path, overrides: dict[str, str]) -> Iterator[Any]:
    """The application kept from the last build of ``cache`` (registrations put back, as for
    a build) if its configuration is the same, kept again after the block; else None."""
    found = _KEPT.get(cache)
    if found is None or found.key != _key(site_dir, overrides):
        yield None
        return
    with application(cache, site_dir, overrides, keep=True) as (app, _warnings):
        yield app


def _listed_as(env, docname: str) -> tuple:
    """What a page whose toctree lists ``docname`` shows of it: its title, its sections
    and the metadata that shape them."""
    title, toc = env.titles.get(docname), env.tocs.get(docname)
    return (title.astext() if title is not None else None, toc.pformat() if toc is not None else None,
            sorted(env.metadata.get(docname, {}).items()))


@contextmanager
def parents_when_needed(app) -> Iterator[None]:
    """For the block's build: Sphinx writes again every page whose toctree lists a page it
    read again; here only if what the toctree shows of that page (:func:`_listed_as`)
    changed. (A preview: two of the seven pages a one-line edit wrote, unchanged.)"""
    env = app.env
    before: dict[str, tuple] = {}
    left: dict[str, set[str]] = {}

    def reading(_app, _env, docnames) -> None:
        for docname in docnames:
            before[docname] = _listed_as(env, docname)

    def writing(_app, _builder) -> None:
        for docname, was in before.items():
            if docname in env.files_to_rebuild and _listed_as(env, docname) == was:
                left[docname] = env.files_to_rebuild.pop(docname)

    listeners = [app.connect("env-before-read-docs", reading), app.connect("write-started", writing)]
    try:
        yield
    finally:
        env.files_to_rebuild.update(left)
        for listener in listeners:
            app.disconnect(listener)


@contextmanager
def showing_first(app, docnames: Collection[str]) -> Iterator[list[str]]:
    """For the block's build (a preview of ``harmony serve``): of the pages the build would
    read and write, read and write only ``docnames``, the pages open in a browser, and leave
    the others to the next build. (A parameter edit read 5 pages and wrote 9, among them the
    index of terms and the search page, for the one page a reader was looking at.)

    * Of the pages whose sources changed, only those are read; the others stay changed in
      Sphinx's eyes (its environment keeps the time it last read them).
    * Of the pages Sphinx then writes (those read, those whose sources changed, the pages
      whose table of contents lists one read, the front page), only those are written, and
      none of the pages made of the whole site (the index of terms, the search page), which
      every full build writes. The sources of the pages not written are given a new time
      when the block ends, so that the next build reads and writes them: in this process
      or another, as a source's time is on disk.

    When a page is new to the site, every changed page is read and written, and every page
    whose table of contents lists one (the pages that list the new one among them, or Sphinx
    would find it in no table of contents; and the new page, which the open pages now link).
    Yields the pages left for the next build, sorted when the block ends.

    A listener of ``env-before-read-docs`` ahead of every other one (priority 100), so
    that they see only the pages read."""
    env, builder, wanted = app.env, app.builder, set(docnames)
    left: list[str] = []
    every = False

    def reading(_app, _env, names: list[str]) -> None:
        nonlocal every
        if any(n not in env.all_docs for n in names):
            every = True
            return
        left.extend(n for n in names if n not in wanted)
        names[:] = [n for n in names if n in wanted]

    def write_documents(names) -> None:
        if not every:
            left.extend(n for n in names if n not in wanted)
            names = {n for n in names if n in wanted}
        if names:
            type(builder).write_documents(builder, names)

    def nothing() -> None:
        return None

    listener = app.connect("env-before-read-docs", reading, priority=100)
    own = {"write_documents": write_documents, "gen_indices": nothing, "gen_additional_pages": nothing}
    for name, method in own.items():
        setattr(builder, name, method)
    try:
        yield left
    finally:
        app.disconnect(listener)
        for name in own:
            builder.__dict__.pop(name, None)
        unique = sorted(set(left))
        left[:] = unique
        now = time.time()
        for name in unique:
            source = Path(env.doc2path(name))
            if source.is_file():
                os.utime(source, (now, now))
