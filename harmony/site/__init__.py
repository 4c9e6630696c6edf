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


def setup(app):
    from . import comparetable, directives, nodes, publish, roles, wrapping

    nodes.setup(app)
    roles.setup(app)
    directives.setup(app)
    comparetable.setup(app)
    publish.setup(app)
    wrapping.setup(app)
    from .build import code_version
    # a change to the extension's code invalidates Sphinx's cached environment
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": code_version()}
