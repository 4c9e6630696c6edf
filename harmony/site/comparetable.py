"""``.. harmony-comparison::``: a comparison page's table (data from :mod:`harmony.site.comparison`).

The table is of the same kind as a topic's (``hm-harmony``), so on a phone it stacks
one cell under another, and its columns can be hidden or compared two at a time.
Each cell is the summary in our own words, then every clause cell it quotes: its
standing, a link to the cell on its topic page, its text and its id.
"""
from __future__ import annotations

from docutils import nodes

from .directives import DataDirective, badge, paragraphs, without_footnotes
from .nodes import element
from .roles import xref


def _quote(q: dict) -> nodes.Node:
    """One quoted clause cell: its standing, a link to its cell on its topic page, its text."""
    box = element("div", {}, classes=["hm-quote"])
    head = nodes.paragraph("", "", classes=["hm-cell-head"])
    head += badge(q["status"], q["status_label"])
    head += nodes.Text(" ")
    head += xref("cell", q["anchor"], nodes.inline(q["title"], q["title"]),
                 title=f"{q['anchor']} on the {q['topic_title']} page")
    box += head
    ctx = {"terms": q.get("terms", {}), "params": {**q.get("params", {}), **q.get("table_marks", {})}}
    if q.get("text"):
        box.extend(paragraphs(without_footnotes(q["text"]), ctx, ["hm-text"]))
    box += nodes.paragraph("", "", nodes.literal(q["anchor"], q["anchor"]), classes=["hm-clause-id"])
    return box


class HarmonyComparison(DataDirective):
    """``.. harmony-comparison::``: one comparison (:func:`comparison_view`) as a table."""

    def run(self):
        d = self.data()
        columns = d["columns"]
        caption = f"{d['title']}: {', '.join(c['label'] for c in columns)}"
        table = element("table", {"data-columns": " ".join(c["key"] for c in columns)},
                        classes=["hm-harmony", "hm-comparison"])
        table += element("caption", {}, nodes.Text(caption))
        head = element("tr", {})
        head += element("th", {"scope": "col"}, nodes.Text("Question"), classes=["hm-rowhead"])
        for col in columns:
            th = element("th", {"scope": "col", "data-col": col["key"]},
                         classes=["hm-col", "hm-kind-" + col["kind"]] + (["hm-revision"] if col["revision"] else []))
            th += nodes.inline("", "", xref("source", col["key"], nodes.inline(col["label"], col["label"]),
                                            title=col["title"]), classes=["hm-col-label"])
            head += th
        table += element("thead", {}, head)
        body = element("tbody", {})
        for row in d["rows"]:
            tr = element("tr", {}, ids=[row["anchor"]], classes=["hm-row"])
            th = element("th", {"scope": "row"}, classes=["hm-rowhead"])
            th += nodes.paragraph("", "", nodes.strong(row["title"], row["title"]), classes=["hm-aspect"])
            if row.get("summary"):
                th += nodes.paragraph(row["summary"], row["summary"], classes=["hm-clause-title"])
            tr += th
            for cell in row["cells"]:
                td = element("td", {"data-col": cell["source"], "data-label": cell["label"]},
                             classes=["hm-cell", f"hm-status-{cell['status']}", f"hm-kind-{cell['kind']}"]
                             + (["hm-revision"] if cell["revision"] else []))
                if cell["status"] == "not-covered":
                    td += nodes.paragraph("", "", badge("not-covered", "not covered"), classes=["hm-cell-head"])
                    if cell.get("note"):
                        td += nodes.paragraph(cell["note"], cell["note"], classes=["hm-text"])
                else:
                    if cell.get("summary"):
                        td += nodes.paragraph("", "", nodes.strong("In short: ", "In short: "),
                                              nodes.Text(cell["summary"]), classes=["hm-compare-summary"])
                    for q in cell["quotes"]:
                        td += _quote(q)
                tr += td
            body += tr
        table += body
        return [element("div", {"role": "region", "aria-label": caption, "tabindex": "0"},
                        table, classes=["hm-scroll"])]


def setup(app) -> None:
    app.add_directive("harmony-comparison", HarmonyComparison)
