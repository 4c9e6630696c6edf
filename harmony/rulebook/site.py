"""The rulebooks of ``harmony build``: a PDF of every ruleset in ``print/``, linked from the
site with its size and number of pages.

The links are written into the site's pages before Sphinx runs, so the size and the pages
of each PDF must be known then: a rulebook whose HTML is the one printed last time (its hash
is kept in the build cache with the size and pages of its PDF) is not printed again; any
other is printed now (or taken from those ``harmony serve`` printed ahead,
:mod:`harmony.site.printing`), and the build writes the bytes later with the cards
(``write_pdf_if_changed``, which skips a PDF whose HTML did not change). A preview build
does not even make the rulebooks' HTML: it links each rulebook with the size and pages
of its last print.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..model import Model
from ..site import printing
from . import pdf_html, print_pdf
from .collect import rulesets
from .render import environment

FOLDER = "print"


def pdf_file(key: str) -> str:
    """Where the site keeps ruleset ``key``'s rulebook, relative to the site root.

    >>> pdf_file("REV")
    'print/REV-rulebook.pdf'
    """
    return f"{FOLDER}/{key}-rulebook.pdf"


def size_words(size: int) -> str:
    """A file size as a reader sees it.

    >>> size_words(900), size_words(578770), size_words(3 * 1024 * 1024)
    ('1 KB', '565 KB', '3.0 MB')
    """
    if size >= 1024 * 1024:
        return f"{size / 1024 / 1024:.1f} MB"
    return f"{max(1, round(size / 1024))} KB"


def _last(key: str, cache: Path) -> tuple[dict | None, str]:
    """The size and pages of ``key``'s last print (None if there was none) and the hash of
    the HTML printed."""
    try:
        known = json.loads((cache / "rulebook" / f"{key}.json").read_text("utf-8"))
        return {"pages": int(known["pages"]), "size": int(known["size"])}, str(known.get("sha256"))
    except (OSError, ValueError, KeyError, TypeError):
        return None, ""


def _printed(key: str, html: str, cache: Path,
             jobs: list[printing.Job] | None = None) -> tuple[dict | None, bytes | None]:
    """The size and pages of ``key``'s PDF (from the cache when this HTML was printed before,
    else printed now or by the printer ahead of the build: then its bytes too). With
    ``jobs`` nothing is printed: the job goes there and the facts are those of the last
    print (None if there was none)."""
    digest = hashlib.sha256(html.encode("utf-8")).hexdigest()
    stamp = cache / "rulebook" / f"{key}.json"
    last, printed = _last(key, cache)
    if last is not None and printed == digest:
        return last, None
    ahead = printing.find(cache, html)
    if ahead is not None and ahead[1] is not None:
        pdf, pages = ahead[0], ahead[1]
    elif jobs is not None:
        jobs.append(printing.Job("rulebook", html))
        return last, None
    else:
        pdf, pages = print_pdf(html)
    facts = {"pages": pages, "size": len(pdf)}
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps(dict(facts, sha256=digest), sort_keys=True), "utf-8")
    return facts, pdf


def extras(model: Model, cache: Path, jobs: list[printing.Job] | None = None,
           preview: bool = False) -> dict[str, dict]:
    """The site's extra page of rulebooks (``harmony build``): ``pdfs`` the PDFs to write
    (file, HTML, the function that prints it, ``kind`` for :class:`printing.Job`),
    ``rulebooks`` what the pages link (by key: file, title, pages, size in words); nothing
    when no ruleset states a rule. ``jobs``: print nothing, list there what to print
    (:func:`_printed`); ``preview``: make no rulebook, link each as last printed."""
    books: list[dict] = []
    pdfs: list[dict] = []
    for key in rulesets(model):
        if preview:
            facts, _ = _last(key, cache)
        else:
            html = pdf_html(model, key)
            facts, pdf = _printed(key, html, cache, jobs)

            def write(text: str, pdf: bytes | None = pdf) -> bytes:
                return pdf if pdf is not None else print_pdf(text)[0]

            pdfs.append({"file": pdf_file(key), "html": html, "write": write, "kind": "rulebook"})
        src = model.sources[key]
        what = (f"PDF, {facts['pages']} pages, {size_words(facts['size'])}" if facts is not None
                else "PDF, being printed")
        books.append({"key": key, "title": src.title, "file": pdf_file(key),
                      "pages": facts["pages"] if facts else "?",
                      "size": size_words(facts["size"]) if facts else "?",
                      "label": f"{src.title}: the rulebook ({what})"})
    if not books:
        return {}
    page = environment().get_template("index.html.j2").render(books=books)
    return {"rulebooks": {
        "title": "Printable rulebooks", "file": f"{FOLDER}/rulebooks.html", "html": page,
        "intro": "Each ruleset's rules in full as a printable rulebook: title page, contents, "
                 "every rule in the order of play with its citations as footnotes, the "
                 "examples' diagrams, glossary and, for a revision, what it changes.",
        "rulebooks": {b["key"]: b for b in books}, "pdfs": pdfs}}
