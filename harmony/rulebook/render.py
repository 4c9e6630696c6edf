"""A rulebook to HTML (Jinja2 templates in ``templates/rulebook/``) and HTML to PDF (WeasyPrint).

The HTML holds no time and no path: the same rulebook gives the same text, so a build can
hash it to know whether the PDF needs printing again, and WeasyPrint prints the same text to
the same bytes (it writes no date of its own).

Clause text is data: it is escaped, and only its marks become markup: a glossary term a link
to the glossary at the back, a footnote mark a footnote, a parameter or table mark its value.

>>> from harmony.model import Model
>>> str(text_html("In [[cover]][^f] at {{ d }} & more", Model(), {"cover": "term-cover"},
...               {"f": "A <note>."}, {"d": 1}))
'In <a class="term" href="#term-cover">cover</a><span class="fn">A &lt;note&gt;.</span> at 1 &amp; more'
"""
from __future__ import annotations

import base64
import functools
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from .. import htmlcache, printcache, resources
from ..markup import iter_marks, render_value, table_cell
from ..model import Model
from .collect import Rulebook

TEMPLATES = resources.templates() / "rulebook"

#: Paper sizes: the exact CSS page size, in the paper's own unit.
PAPERS = {"a4": "210mm 297mm", "letter": "8.5in 11in"}


def text_html(text: str | None, model: Model, terms: dict[str, str], footnotes: dict[str, str],
              params: dict | None = None, notes: bool = True) -> Markup:
    """Clause text as HTML: escaped, its marks resolved (see the module's example)."""
    params = params or {}
    types = {n: p.type for n, p in model.parameters.items()}
    out: list[str] = []
    last = 0
    text = text or ""
    for m in iter_marks(text):
        out.append(str(escape(text[last:m.start])))
        if m.kind == "term":
            anchor = terms.get(" ".join(m.target.lower().split()))
            out.append(f'<a class="term" href="#{escape(anchor)}">{escape(m.shown)}</a>' if anchor
                       else str(escape(m.shown)))
        elif m.kind == "param":
            out.append(str(escape(render_value(params[m.target], types.get(m.target))
                                  if m.target in params else m.shown)))
        elif m.kind == "table":
            out.append(str(escape(table_cell(m.target, model.tables) or m.shown)))
        elif m.kind == "footnote" and notes and m.target in footnotes:
            inner = text_html(footnotes[m.target], model, terms, footnotes, notes=False)
            out.append(f'<span class="fn">{inner}</span>')
        last = m.end
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def render_html(model: Model, book: Rulebook, paper: str = "a4") -> str:
    """The rulebook as one HTML document, set for ``paper`` (``a4`` or ``letter``)."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper '{paper}' (papers: {', '.join(PAPERS)})")

    def prose(text: str | None, params: dict | None = None) -> Markup:
        return text_html(text, model, book.terms, book.footnotes, params)

    css = (TEMPLATES / "rulebook.css").read_text(encoding="utf-8")
    return environment().get_template("rulebook.html.j2").render(
        book=book, paper=PAPERS[paper], css=Markup(css), prose=prose)


#: an inline drawing of the rulebook's HTML (harmony draws none inside another)
_DRAWING = re.compile(r"<svg\b.*?</svg>", re.S)
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title>", re.S)


def drawings_as_images(html: str) -> str:
    """``html`` with each inline ``<svg>`` drawing given as an ``<img>`` of its own (a
    ``data:`` URL of the same SVG, its ``<title>`` as the image's text), for WeasyPrint.

    WeasyPrint draws an image's SVG as it draws an inline one, to the same picture, but it
    runs the document's CSS over every element of the HTML, each polygon and label of an
    inline drawing included: in the rulebooks, two thirds of their elements. A drawing
    that is not well-formed XML on its own stays inline, as it was.

    >>> out = drawings_as_images('<p>a</p><svg xmlns="http://www.w3.org/2000/svg" width="2" '
    ...                          'height="1"><title>A &amp; "B"</title></svg><svg><p></svg>')
    >>> out.split('src="')[0], out.split('" alt=')[1]
    ('<p>a</p><img class="drawing" ', '"A &amp; &#34;B&#34;"><svg><p></svg>')
    >>> svg = out.split("base64,")[1].split('"')[0]
    >>> base64.b64decode(svg).decode().startswith('<svg xmlns="http://www.w3.org/2000/svg" width="2"')
    True
    """
    def image(found: re.Match) -> str:
        svg = found.group(0)
        try:
            ET.fromstring(svg)
        except ET.ParseError:
            return svg
        title = _TITLE.search(svg)
        alt = escape(Markup(title.group(1)).unescape() if title else "")
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        return f'<img class="drawing" src="data:image/svg+xml;base64,{data}" alt="{alt}">'
    return _DRAWING.sub(image, html)


def print_pdf(html: str) -> tuple[bytes, int]:
    """Render ``html`` with WeasyPrint (fonts embedded, subset; its drawings as images,
    :func:`drawings_as_images`): the PDF bytes and its number of pages."""
    document = htmlcache.document(drawings_as_images(html), base_url=str(TEMPLATES)).render()
    return document.write_pdf(), len(document.pages)


def write_pdf(html: str, out: str | Path | None = None) -> bytes:
    """The PDF of ``html`` (:func:`print_pdf`, or the same PDF remembered by
    :mod:`harmony.printcache`); written to ``out`` if given."""
    pdf = printcache.printed(print_pdf, html)[0]
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_bytes(pdf)
    return pdf
