"""The docutils nodes of the harmony site and how the HTML builder writes them.

:class:`element` is one HTML element whose tag and attributes the directives
choose (``<table>``, ``<th scope="col">``, ``<td data-col="PL">``, ``<fieldset>``),
so the markup can carry what a reader and a screen reader need while its
children stay ordinary docutils nodes: their text is escaped by the writer and
indexed by Sphinx search. :class:`svg` holds a diagram drawn by
:mod:`harmony.games.panzerblitz.svg` (already escaped, deterministic markup).

>>> el = element("td", {"data-col": "PL"}, classes=["hm-cell"])
>>> el["tag"], el["attrs"]
('td', {'data-col': 'PL'})
"""
from __future__ import annotations

from docutils import nodes

VOID = {"input", "br", "hr", "img", "wbr"}


class element(nodes.Element, nodes.General):
    """One HTML element with chosen tag and attributes."""

    def __init__(self, tag: str, attrs: dict | None = None, *children, **kwargs):
        super().__init__("", *children, **kwargs)
        self["tag"] = tag
        self["attrs"] = dict(attrs or {})


class svg(nodes.General, nodes.Element):
    """An inline SVG diagram (markup made by harmony.games.panzerblitz.svg)."""

    def __init__(self, markup: str = "", **kwargs):
        super().__init__("", **kwargs)
        self["svg"] = markup


def visit_element_html(self, node: element) -> None:
    attrs = {k: v for k, v in node["attrs"].items() if v is not None}
    tag = node["tag"]
    self.body.append(self.starttag(node, tag, "" if tag in ("span", "a", "label", "input", "ins", "del",
                                                            "code", "sup", "wbr") else "\n",
                                   empty=tag in VOID, **attrs))


def depart_element_html(self, node: element) -> None:
    if node["tag"] not in VOID:
        self.body.append(f"</{node['tag']}>")


def visit_svg_html(self, node: svg) -> None:
    self.body.append(node["svg"])
    raise nodes.SkipNode


def visit_skip(self, node) -> None:
    raise nodes.SkipNode


def setup(app) -> None:
    app.add_node(element, html=(visit_element_html, depart_element_html))
    app.add_node(svg, html=(visit_svg_html, None))
