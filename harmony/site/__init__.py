"""The harmony site: a Sphinx extension plus the ``harmony build`` / ``serve`` commands.

:mod:`.generate` renders the model into reST pages with the Jinja2 templates
of ``templates/site``; :mod:`.directives` turns the data those pages carry into
docutils nodes (:mod:`.nodes`); :mod:`.roles` resolves clause, term and source
references and gives prose pages the ``:clause:`` role; :mod:`.build` runs
Sphinx in-process and :mod:`.serve` previews the site while it is edited.

The extension's modules (and with them Sphinx and docutils) are imported by
:func:`setup`, which only Sphinx calls: a command that builds no site, such as
``harmony check``, does not pay for them.
"""
from __future__ import annotations


def _import_quietly(module: str) -> None:
    """Import ``module`` with the root logger kept as it was. accessible-pygments (Furo's code
    colours, found by Pygments when it looks a style up) calls ``logging.basicConfig`` at INFO
    when imported, which would print every library's progress (WeasyPrint's, page by page) on
    stderr for the rest of the process."""
    import importlib
    import logging
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        importlib.import_module(module)
    except ImportError:
        pass
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def setup(app):
    _import_quietly("a11y_pygments")
    from . import comparetable, directives, navigation, nodes, pdflinks, publish, roles, sidebar, stemming, wrapping

    nodes.setup(app)
    pdflinks.setup(app)
    roles.setup(app)
    navigation.setup(app)
    sidebar.setup(app)
    stemming.setup(app)
    directives.setup(app)
    comparetable.setup(app)
    publish.setup(app)
    wrapping.setup(app)
    from .build import code_version
    # a change to the extension's code invalidates Sphinx's cached environment
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": code_version()}
