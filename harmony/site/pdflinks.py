"""The site's links to its printed PDFs (and EPUBs), which say each one's pages and size: "REV:
the rulebook (PDF, 21 pages, 565 KB)", "REV: the rulebook for e-readers (EPUB, 25 KB)".

The PDFs are printed while Sphinx builds the pages (:mod:`harmony.printer`), so the
staged reST cannot hold those words. A link (``.. harmony-link:: FILE`` with ``:pdf: FILE``)
holds a :class:`pdf_facts` placeholder instead, and records in Sphinx's environment which
page links which PDF. A build hands Sphinx the printed PDFs' :class:`Words`: once the pages
are read (``env-updated``) they name, for Sphinx to write again, the pages that link a PDF
whose words are not those the last finished build wrote; each placeholder becomes its words
when its page is written (``doctree-resolved``), before the page's words go to the search
index, waiting for the PDFs' facts only then. :func:`linking_last` has Sphinx write those
pages after all the others, so that it waits only once nothing else is left to write. The
pages of a clean build and of an incremental one are the same bytes.

>>> facts_words(21, 578770), facts_words(None, None)
('(PDF, 21 pages, 565 KB)', '(PDF)')
>>> facts_words(52, 25527, "print/REV-rulebook.epub"), facts_words(None, None, "a.epub")
('(EPUB, 25 KB)', '(EPUB)')
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from docutils import nodes

from ..printer import size_words

#: the environment's attribute: docname -> the PDFs (site paths) its page links
LINKS = "harmony_pdf_links"


def facts_words(pages: int | None, size: int | None, file: str = "") -> str:
    """What a link says of its PDF (only ``(PDF)`` when the PDF's facts are not known); of
    an EPUB (``file`` ending ``.epub``), its size only: an e-reader makes its own pages."""
    epub = file.endswith(".epub")
    if pages is None or size is None:
        return "(EPUB)" if epub else "(PDF)"
    return f"(EPUB, {size_words(size)})" if epub else f"(PDF, {pages} pages, {size_words(size)})"


class pdf_facts(nodes.Inline, nodes.TextElement):
    """Stands for the words of the PDF ``file`` (a path in the site) until they are known."""


def placeholder(env, file: str) -> pdf_facts:
    """The placeholder of ``file``'s words, recorded as linked from the page being read."""
    getattr(env, LINKS).setdefault(env.docname, set()).add(file)
    return pdf_facts("", "", file=file)


class Words:
    """The words of the PDFs being printed, for the pages of one build: ``get`` waits for
    them (PDF -> :func:`facts_words`), ``ready`` says whether that would wait, ``last``
    are the words of the pages as the last finished build wrote them."""

    def __init__(self, get: Callable[[], dict[str, str]], ready: Callable[[], bool],
                 last: dict[str, str]):
        self.get, self.ready, self.last = get, ready, last
        self.now: dict[str, str] | None = None
        self.read: set[str] = set()

    def connect(self, app) -> list[int]:
        """Listen to ``app``'s events; the listeners' ids, for an application kept for
        the next build (``harmony serve``) to disconnect them after this one."""
        return [app.connect("env-before-read-docs", self._reading),
                app.connect("env-updated", self._updated),
                app.connect("doctree-resolved", self._resolve, priority=400)]   # before the default

    def _reading(self, app, env, docnames) -> None:
        self.read.update(docnames)

    def _updated(self, app, env) -> list[str]:
        """The pages to write again: those that link a PDF whose words changed. When every
        page linking a PDF is being read anyway, that needs no answer, and the PDFs may go
        on printing while Sphinx writes the pages before them."""
        linking = _linking(env)
        if not self.ready() and set(linking) <= self.read:
            return []
        now = self.words()
        changed = {f for f in set(self.last) | set(now) if self.last.get(f) != now.get(f)}
        return sorted(doc for doc, files in linking.items() if files & changed)

    def words(self) -> dict[str, str]:
        if self.now is None:
            self.now = self.get()
        return self.now

    def _resolve(self, app, doctree, docname: str) -> None:
        found = list(doctree.findall(pdf_facts))
        if found:
            _replace(found, self.words())


def _linking(env) -> dict[str, set[str]]:
    """The pages of the site that link a PDF: docname -> the PDFs it links."""
    return {doc: files for doc, files in getattr(env, LINKS, {}).items() if files and doc in env.all_docs}


@contextmanager
def linking_last(app, meanwhile: Callable[[], object] = lambda: None) -> Iterator[None]:
    """For the block's build: Sphinx writes the pages that link a PDF after all the others,
    and calls ``meanwhile`` between the two (work the build would do after Sphinx, done
    while the PDFs print).

    Sphinx writes pages in the order of their names. The front page (``index``) links every
    PDF, so a cold build waited there for the printers with half the site still to write, and
    then wrote that half on one processor while the other had nothing left to do."""
    builder, env = app.builder, app.env

    def write_documents(names) -> None:
        linking = set(_linking(env))
        ahead, last = set(names) - linking, set(names) & linking
        if ahead:
            type(builder).write_documents(builder, ahead)
        meanwhile()
        if last:
            type(builder).write_documents(builder, last)

    builder.write_documents = write_documents
    try:
        yield
    finally:
        builder.__dict__.pop("write_documents", None)


def _replace(found: list[pdf_facts], words: dict[str, str]) -> None:
    for node in found:
        node.replace_self(nodes.Text(words.get(node["file"], facts_words(None, None, node["file"]))))


def _init(app, env, *_args) -> None:
    if not hasattr(env, LINKS):
        setattr(env, LINKS, {})


def _purge(app, env, docname: str) -> None:
    getattr(env, LINKS, {}).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    for doc in docnames:
        if doc in getattr(other, LINKS, {}):
            getattr(env, LINKS)[doc] = getattr(other, LINKS)[doc]


def _resolve(app, doctree, docname: str) -> None:
    """A page built with no :class:`Words` (Sphinx run by hand on the staged pages) says
    only ``(PDF)`` (or ``(EPUB)``)."""
    _replace(list(doctree.findall(pdf_facts)), {})


def setup(app) -> None:
    app.add_node(pdf_facts)
    app.connect("env-before-read-docs", _init)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("doctree-resolved", _resolve)
