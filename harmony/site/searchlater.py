"""The search index of a preview build, left to the full build after it.

Sphinx indexes every page it writes for the site's search (its words stemmed, one by
one) and writes the whole index again at the end of each build. In ``harmony serve`` a
preview build shows an edit as soon as it can; search is the last thing a reader
editing a clause waits for. So a preview (:func:`leave_to_full_build`) indexes nothing:
it neither loads nor writes the index (the site's ``searchindex.js`` stays as the last
full build wrote it) and notes the pages it wrote in the cache (:data:`PENDING`). The
next full build (:func:`index_again`) reads those pages again, which writes and
indexes them as any page it reads, and forgets the note once it has ended well: the
site a full build finishes is the same bytes whether previews came before it or not
(``tests/test_site_serve.py``).

The note is in the cache, not in memory, so a ``harmony build`` after a ``harmony
serve`` that was stopped between a preview and its full build indexes those pages too.
A preview killed before it notes its pages leaves the cache's unfinished mark, and the
next build trusts nothing Sphinx left (:mod:`harmony.site.build`).

>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> pending(d)
[]
>>> note(d, {"topics/spotting", "differences"}); note(d, {"differences"})
>>> pending(d)
['differences', 'topics/spotting']
>>> (d / PENDING).read_text()
'["differences", "topics/spotting"]\\n'
>>> forget(d); pending(d), (d / PENDING).exists()
([], False)
>>> forget(d)          # (no note: nothing to do)
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import outdir

#: the cache's note of the pages written by previews and not yet indexed
PENDING = "search-pending.json"


def pending(cache: Path) -> list[str]:
    """The pages previews wrote and no full build has indexed since (sorted)."""
    try:
        found = json.loads((cache / PENDING).read_text("utf-8"))
    except (OSError, ValueError):
        return []
    return sorted({str(d) for d in found}) if isinstance(found, list) else []


def note(cache: Path, docnames: Iterable[str]) -> None:
    """Add ``docnames`` to the note (written whole: :func:`harmony.outdir.write_whole`)."""
    names = sorted(set(pending(cache)) | set(docnames))
    outdir.write_whole(cache / PENDING, (json.dumps(names) + "\n").encode("utf-8"))


def forget(cache: Path) -> None:
    """Drop the note: every page it named has been indexed."""
    (cache / PENDING).unlink(missing_ok=True)


@contextmanager
def leave_to_full_build(app: Any, cache: Path) -> Iterator[None]:
    """For the block's build (a preview): index no page, neither load nor write the index,
    and note the pages that would have been indexed."""
    builder = app.builder
    written: set[str] = set()

    def index_page(pagename: str, _doctree, title: str) -> None:
        if title:                                 # (Sphinx indexes only pages with a title)
            written.add(pagename)

    patched = {"index_page": index_page,
               "load_indexer": lambda _docnames: None,
               "dump_search_index": lambda: None}
    for name, fn in patched.items():
        setattr(builder, name, fn)
    try:
        yield
    finally:
        for name in patched:
            builder.__dict__.pop(name, None)       # the builder's own methods again
        if written:
            note(cache, written)


@contextmanager
def index_again(app: Any, cache: Path) -> Iterator[None]:
    """For the block's build (a full one): read again, so write and index, the pages the
    note names; forget the note if the block ends well."""
    names = pending(cache)
    if not names:
        yield
        return

    def outdated(*_args) -> list[str]:
        return names              # (Sphinx keeps those of them that are still pages)

    listener = app.connect("env-get-outdated", outdated)
    try:
        yield
    finally:
        app.disconnect(listener)
    forget(cache)
