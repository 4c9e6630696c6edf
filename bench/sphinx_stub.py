"""The plain-Sphinx anchor of ``bench/run.py``: every harmony directive and role, stubbed.

Each directive prints its content (and arguments) as a literal block and each
harmony role its text, so ``sphinx-build`` of the reST that ``harmony build``
generated does the parsing and writing Sphinx must do anyway, and none of
harmony's own work. Used through ``bench/stub_conf/conf.py``.
"""
from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive, directives

NAMES = ("harmony-table", "harmony-row", "harmony-chooser", "harmony-text", "harmony-cell",
         "harmony-footnotes", "harmony-sources", "harmony-source", "harmony-term",
         "harmony-differences", "harmony-scenario", "harmony-link")


class Printed(Directive):
    """A directive that shows its own source: arguments, options and content."""

    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = None  # any option

    def run(self):
        text = "\n".join([" ".join(self.arguments), *map(str, self.options.items()), *self.content])
        return [nodes.literal_block(text, text)]


class _AnyOptions(dict):
    def __missing__(self, key):
        return directives.unchanged

    def __contains__(self, key):
        return True


Printed.option_spec = _AnyOptions()


def printed_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.literal(rawtext, text)], []


def setup(app):
    for name in NAMES:
        app.add_directive(name, Printed)
    app.add_role("clause", printed_role)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
