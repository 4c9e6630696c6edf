"""Pages that come and go: every page of the site shows the site's navigation (the theme's
sidebar lists every page; each page links the one before and the one after it), so when a
page is added or removed every page shows something new, though its source did not change;
and a page removed must leave the site.

Sphinx writes again only the pages it read again, and the pages whose table of contents
lists one it read; and it leaves the page of a removed source where it was. So a page
added (a new topic) or removed left the other pages with the old sidebar and the old
neighbours, a removed one stayed in the site, and an incremental build was not the clean
build's bytes. Here a build in which a page came or went writes every page again (once
the pages are read: ``env-get-updated``), and the page of a removed source and its copy
of the source (``_sources/``) are deleted from the build's output (``env-get-outdated``):
files Sphinx wrote in harmony's build cache, never the user's.
"""
from __future__ import annotations

from pathlib import Path

#: on the environment while its pages are read: whether a page came or went
_CAME_OR_WENT = "_hm_pages_came_or_went"


def _outdated(app, env, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """``env-get-outdated``: note whether a page is new or gone, and delete the pages of
    the gone (nothing more to read)."""
    setattr(env, _CAME_OR_WENT, bool(added or removed))
    if app.builder.format == "html":
        for docname in sorted(removed):
            Path(app.builder.get_outfilename(docname)).unlink(missing_ok=True)
            source = Path(app.outdir) / "_sources" / f"{docname}.rst{app.config.html_sourcelink_suffix}"
            source.unlink(missing_ok=True)
    return []


def _updated(app, env) -> list[str]:
    """``env-get-updated``: every page, when one came or went; else none more."""
    if not env.__dict__.pop(_CAME_OR_WENT, False):   # not pickled with the environment
        return []
    return sorted(env.found_docs)


def setup(app) -> None:
    app.connect("env-get-outdated", _outdated)
    app.connect("env-get-updated", _updated)
