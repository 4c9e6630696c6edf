"""The pages that link a PDF are written after all the others (:func:`pdflinks.linking_last`)."""
from __future__ import annotations

from types import SimpleNamespace

from harmony.site import pdflinks


class Builder:
    """Sphinx's builder as far as :func:`pdflinks.linking_last` uses it: its class's
    ``write_documents`` writes a set of pages, in the order of their names."""

    def __init__(self, said: list):
        self.said = said

    def write_documents(self, names) -> None:
        self.said.append(sorted(names))


def test_the_pages_linking_a_pdf_are_written_last_and_the_work_meanwhile_between():
    said: list = []
    builder = Builder(said)
    env = SimpleNamespace(**{pdflinks.LINKS: {"index": {"print/a.pdf"}, "sources": {"print/b.epub"},
                                              "gone": set(), "removed": {"print/a.pdf"}}},
                          all_docs={"index", "sources", "gone", "a", "b", "zebra"})
    app = SimpleNamespace(builder=builder, env=env)
    with pdflinks.linking_last(app, lambda: said.append("meanwhile")):
        builder.write_documents({"sources", "a", "index", "zebra", "gone"})
        builder.write_documents({"index"})          # only pages that link: nothing ahead of them
        builder.write_documents({"b"})              # none that link: the work is done after them
    assert said == [["a", "gone", "zebra"], "meanwhile", ["index", "sources"],
                    "meanwhile", ["index"],
                    ["b"], "meanwhile"]
    builder.write_documents({"index", "a"})         # the block is over: Sphinx's own order again
    assert said[-1] == ["a", "index"] and "write_documents" not in vars(builder)


def test_with_no_page_linking_a_pdf_every_page_is_written_at_once():
    said: list = []
    builder = Builder(said)
    app = SimpleNamespace(builder=builder, env=SimpleNamespace())    # no page read links a PDF
    with pdflinks.linking_last(app):
        builder.write_documents({"b", "a"})
    assert said == [["a", "b"]]
