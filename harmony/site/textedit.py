"""A text-only edit shown on the open page at once, ahead of its rebuild (``harmony serve``).

When an edit changed the words of cells and nothing else (a cell's ``text`` or its reading
``note``, with the same footnote marks: :func:`text_edits`), the new cell is written here as
the page will hold it (:func:`cell_html`: the same nodes as the page's row, resolved and
written by the application Sphinx kept from the last build), and the open page swaps it in
(:class:`Patch`) while the preview builds. The page a patched browser shows is the old page
with the cell replaced (:func:`spliced`); once the preview has written the page, the server
compares the two, and the page reloads only if they differ (:mod:`.livereload`). So the
rebuild stays the truth: the patch only shows it sooner.

>>> old = b'<tr><td class="hm-cell" id="a&#64;PB">\\n<p>old</p></td><td id="b">\\n<p>b</p></td></tr>'
>>> spliced(old, Patch("p.html", "a@PB", '<td class="hm-cell" id="a&#64;PB">\\n<p>new</p></td>'))
b'<tr><td class="hm-cell" id="a&#64;PB">\\n<p>new</p></td><td id="b">\\n<p>b</p></td></tr>'
>>> [spliced(old, Patch("p.html", "c", '<td id="c"></td>')), spliced(b'<td id="a">', Patch("p", "a", '<td id="a">'))]
[None, None]
>>> spliced(b'<td id="a">old</td>', Patch("p.html", "a", '<td id="a">new</td>'))
b'<td id="a">new</td>'
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass

from ..model import Clause, Model
from . import views

#: what a patch keeps of the cell on the page: its head (status, option, the copy-link button
#: the site's script made), which a text edit does not change
KEEP = ".hm-cell-head"


@dataclass(frozen=True)
class Patch:
    """The cell ``id`` of ``page`` (its path in the site) as the rebuild will write it."""

    page: str
    id: str
    html: str
    keep: str = KEEP

    def as_event(self) -> dict:
        return {"id": self.id, "html": self.html, "keep": self.keep}


def _without_words(clause: Clause) -> Clause:
    """``clause`` with the text and note of every cell taken out."""
    return dataclasses.replace(clause, cells={k: dataclasses.replace(c, text=None, note=None)
                                              for k, c in clause.cells.items()})


def text_edits(old: Model, new: Model) -> list[tuple[Clause, str]] | None:
    """The cells (their clause in ``new``, the ruleset's key) whose text or note alone changed
    from ``old`` to ``new``, in the order read; None when anything else changed (a value, a
    status, a citation, a title, a clause come or gone, a footnote marked or unmarked: then
    the page must be built to be shown).

    >>> from harmony.model import Cell
    >>> def model(text, status="rule"):
    ...     cell = Cell(source="PB", status=status, text=text, clause_id="c")
    ...     return Model(clauses={"c": Clause(id="c", topic="t", cells={"PB": cell})})
    >>> [(c.id, key) for c, key in text_edits(model("A unit hides."), model("A unit hides well."))]
    [('c', 'PB')]
    >>> text_edits(model("A unit hides."), model("A unit hides.")), text_edits(model("a"), model("a", "optional"))
    ([], None)
    >>> len(text_edits(model("Woods.[^f]"), model("Woods, rough.[^f]")))
    1
    >>> print(text_edits(model("Woods."), model("Woods.[^f]")))
    None
    """
    for f in dataclasses.fields(Model):
        if f.name != "clauses" and getattr(old, f.name) != getattr(new, f.name):
            return None
    if list(old.clauses) != list(new.clauses):
        return None
    edits: list[tuple[Clause, str]] = []
    for cid, now in new.clauses.items():
        was = old.clauses[cid]
        if was == now:
            continue
        if list(was.cells) != list(now.cells) or _without_words(was) != _without_words(now):
            return None
        for key, cell in now.cells.items():
            before = was.cells[key]
            if (before.text, before.note) == (cell.text, cell.note):
                continue
            if views.footnotes_in(before.text, before.note) != views.footnotes_in(cell.text, cell.note):
                return None     # (the page's footnotes would be numbered anew)
            edits.append((now, key))
    return edits


def page_of(clause: Clause) -> str:
    """The page a clause's cells are shown on, as the site names it.

    >>> page_of(Clause(id="spotting.rule", topic="spotting"))
    'topics/spotting.html'
    """
    return views.topic_doc(clause.topic) + ".html"


def cell_html(app, model: Model, clause: Clause, key: str) -> str | None:
    """The ``<td>`` of ``clause``'s cell ``key`` as Sphinx's application ``app`` (the one the
    last build used) writes it on the clause's page, or None if that page does not show it."""
    from docutils.utils import new_document

    from .directives import cell_td

    topic = model.topics.get(clause.topic)
    if topic is None or key not in topic.sources:
        return None
    numbers = views.footnote_numbers(model, topic)
    # the cell as the page's directive reads it: through the JSON the generator writes
    from .generate import data
    cell = json.loads(data(views.cell_view(model, clause, key)))
    td = cell_td(cell, {f: numbers[f] for f in views.clause_footnotes(clause) if f in numbers})
    doc = new_document("<harmony text edit>", app.builder.docsettings)   # (what its pages are written with)
    doc.append(td)
    app.env.apply_post_transforms(doc, views.topic_doc(clause.topic))
    writer = app.builder.create_translator(doc, app.builder)
    doc.walkabout(writer)
    return "".join(writer.fragment)


def patches(app, model: Model, edits: list[tuple[Clause, str]]) -> list[Patch]:
    """A patch per edited cell that its page shows."""
    out = []
    for clause, key in edits:
        html = cell_html(app, model, clause, key)
        if html is not None:
            out.append(Patch(page_of(clause), views.anchor_of(clause.id, key), html))
    return out


#: an ``id`` attribute
_ID = re.compile(rb' id="[^"]*"')


def spliced(page: bytes, patch: Patch) -> bytes | None:
    """``page`` (the bytes of a built page) with the cell ``patch.id`` replaced by the patch's
    HTML, as a browser that applied the patch shows it; None if the page has no such cell.
    The cell is found by its ``id`` attribute as the patch's HTML writes it (the writer
    writes ``@`` as ``&#64;``), and ends at the first ``</td>``: a cell holds no table, and
    its text is escaped."""
    html = patch.html.encode("utf-8")
    found = _ID.search(html, 0, html.find(b">"))
    if found is None:
        return None
    at = page.find(found.group())
    start, end = page.rfind(b"<td", 0, at), page.find(b"</td>", at)
    if min(at, start, end) < 0 or b">" in page[start:at]:
        return None
    return page[:start] + html + page[end + len(b"</td>"):]
