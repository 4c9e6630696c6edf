"""The rulebooks of ``harmony build``: a PDF and an EPUB of every ruleset in ``print/``, both
linked from the site's page of rulebooks with their size (the PDF with its pages, and from
the index, the sources page and its revision's page too) and listed on the print folder's
page.

Nothing is printed here: :func:`extras` gives the site's page of rulebooks, whose ``pdfs``
are the :class:`~harmony.printer.Job` of each rulebook and its EPUB (their HTML is made, and printed,
in the build's printing processes while Sphinx runs; a rulebook whose HTML is the one
printed last time is not laid out again). The pages link each PDF with a placeholder for its
pages and size (:mod:`harmony.site.pdflinks`), and the page of the print folder that lists
them is made once they are printed (``render``).
"""
from __future__ import annotations

from functools import partial

from ..model import Model
from ..printer import Job, Printed, size_words
from . import pdf_html, print_pdf
from .collect import rulesets
from .epub import print_epub
from .render import environment

FOLDER = "print"

__all__ = ["FOLDER", "epub_file", "extras", "pdf_file", "size_words"]


def pdf_file(key: str) -> str:
    """Where the site keeps ruleset ``key``'s rulebook, relative to the site root.

    >>> pdf_file("REV")
    'print/REV-rulebook.pdf'
    """
    return f"{FOLDER}/{key}-rulebook.pdf"


def epub_file(key: str) -> str:
    """Where the site keeps ruleset ``key``'s rulebook as an EPUB.

    >>> epub_file("REV")
    'print/REV-rulebook.epub'
    """
    return f"{FOLDER}/{key}-rulebook.epub"


def index_html(books: list[dict], printed: dict[str, Printed]) -> str:
    """The page of the print folder listing ``books`` with each PDF's pages and size."""
    rows = [dict(b, pages=printed[b["file"]].pages, size=size_words(printed[b["file"]].size),
                 epub_size=size_words(printed[b["epub"]].size)) for b in books]
    return environment().get_template("index.html.j2").render(books=rows)


def extras(model: Model) -> dict[str, dict]:
    """The site's extra page of rulebooks (``harmony build``): ``pdfs`` the files to print
    (each rulebook's PDF, then each one's EPUB), ``rulebooks`` what the pages link (by key:
    file, epub, title, the link's label), ``render``
    the print folder's page once the PDFs' facts are known; nothing when no ruleset states
    a rule."""
    books = [{"key": key, "title": model.sources[key].title, "file": pdf_file(key), "epub": epub_file(key),
              "label": f"{model.sources[key].title}: the rulebook"} for key in rulesets(model)]
    if not books:
        return {}
    return {"rulebooks": {
        "title": "Printable rulebooks", "file": f"{FOLDER}/rulebooks.html",
        "render": partial(index_html, books),
        "intro": "Each ruleset's rules in full as a printable rulebook: title page, contents, "
                 "every rule in the order of play with its citations as footnotes, the "
                 "examples' diagrams, glossary and, for a revision, what it changes; and "
                 "the same rulebook as an EPUB, for a phone or an e-reader.",
        "rulebooks": {b["key"]: b for b in books},
        "pdfs": [Job(b["file"], partial(pdf_html, model, b["key"]), print_pdf) for b in books]
        + [Job(b["epub"], partial(pdf_html, model, b["key"]), print_epub) for b in books]}}
