"""The directives that turn the generated pages' data into docutils nodes.

Each directive's content is one line of JSON written by
:mod:`harmony.site.generate` (ASCII only, so no character can end the block
early). The directive never parses that data as reStructuredText: clause text
becomes :class:`docutils.nodes.Text`, so ``<script>``, raw HTML, directives
and roles in a clause show as the literal characters they are, and Sphinx
search indexes the words. Only the marks of :mod:`harmony.markup` become
links, footnote marks and parameter values.
"""
from __future__ import annotations

import json
import re

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.util.docutils import SphinxDirective

from ..markup import iter_marks
from . import pdflinks
from .nodes import element, svg
from .roles import xref

PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


# ---------------------------------------------------------------- text helpers
def inline(text: str | None, ctx: dict) -> list[nodes.Node]:
    """Clause text as inline nodes: marks resolved, everything else literal text.

    ``ctx`` maps ``terms`` (name -> glossary anchor), ``footnotes`` (id -> number
    on this page) and ``params`` (name -> value as shown).

    >>> [n.astext() for n in inline("A <b>[[hex|term]]</b> {{ d }}[^f]", {"terms": {"term": "term-term"},
    ...  "params": {"d": "+1"}, "footnotes": {"f": 2}})]
    ['A <b>', 'hex', '</b> ', '+1', '2']
    """
    out: list[nodes.Node] = []
    text = " ".join((text or "").split("\n"))
    last = 0
    terms, notes, params = ctx.get("terms", {}), ctx.get("footnotes", {}), ctx.get("params", {})
    for m in iter_marks(text):
        if m.start > last:
            out.append(nodes.Text(text[last:m.start]))
        if m.kind == "term":
            anchor = terms.get(m.target)
            shown = nodes.inline(m.shown, m.shown, classes=["hm-term"])
            out.append(xref("term", anchor, shown, title=f"glossary: {m.target}") if anchor else shown)
        elif m.kind == "footnote":
            number = notes.get(m.target)
            if number is None:
                out.append(nodes.Text(text[m.start:m.end]))
            else:
                ref = nodes.reference("", str(number), refid=f"fn-{m.target}",
                                      classes=["hm-fnref"])
                out.append(nodes.superscript("", "", ref))
        else:
            value = params.get(m.target)
            if value is None:
                out.append(nodes.Text(text[m.start:m.end]))
            else:
                what = "from table" if m.kind == "table" else "parameter"
                out.append(element("span", {"title": f"{what} {m.target}"},
                                   nodes.Text(value), classes=["hm-param"]))
        last = m.end
    if last < len(text):
        out.append(nodes.Text(text[last:]))
    return out


def without_footnotes(text: str) -> str:
    """Text with its footnote marks taken out (for a page that does not print the notes).

    >>> without_footnotes("Woods.[^rev-1] A unit[^x] hides.")
    'Woods. A unit hides.'
    """
    out, last = [], 0
    for m in iter_marks(text):
        if m.kind == "footnote":
            out.append(text[last:m.start])
            last = m.end
    return "".join(out) + text[last:]


def paragraphs(text: str | None, ctx: dict, classes: list[str] | None = None,
               lead: list[nodes.Node] | None = None) -> list[nodes.paragraph]:
    """Text split into paragraphs at blank lines; ``lead`` nodes open the first one."""
    out = []
    for i, chunk in enumerate(p for p in PARAGRAPH_BREAK.split((text or "").strip()) if p.strip()):
        para = nodes.paragraph("", "", classes=list(classes or []))
        if i == 0 and lead:
            para.extend(lead)
        para.extend(inline(chunk.strip(), ctx))
        out.append(para)
    if not out and lead:
        out.append(nodes.paragraph("", "", *lead, classes=list(classes or [])))
    return out


def badge(status: str, label: str) -> nodes.inline:
    return nodes.inline(label, label, classes=["hm-badge", f"hm-badge-{status}"])


#: what each status badge means, printed under each table of cells (a printed page has no
#: legend to look up; on a screen the legend above the table says it)
STATUS_KEY = (("rule", "a rule of the game"), ("optional", "an optional rule"),
              ("tournament", "for tournament play only"),
              ("nil", "the rulebook says there is no such rule"),
              ("not-covered", "the rulebook is silent here"))


def status_key() -> nodes.paragraph:
    """The key to the status badges, a paragraph shown in print under a table."""
    para = nodes.paragraph("", "", nodes.strong("Key: ", "Key: "), classes=["hm-status-key", "no-search"])
    for i, (status, meaning) in enumerate(STATUS_KEY):
        label = status.replace("-", " ")
        para += badge(status, label)
        para += nodes.Text(f" {meaning}" + ("; " if i < len(STATUS_KEY) - 1 else "."))
    return para


def citation(cite: dict, prefix: str = "") -> nodes.paragraph:
    """``Panzer Leader (Avalon Hill, 1974), Spotting; via Harmony page``."""
    para = nodes.paragraph("", "", classes=["hm-cite"])
    if prefix:
        para += nodes.inline(prefix, prefix, classes=["hm-cite-label"])
    title = nodes.emphasis(cite["title"], cite["title"])
    para += xref("source", cite["source"], title, title=f"about {cite['title']}")
    who = ", ".join(str(x) for x in (cite.get("author"), cite.get("year")) if x)
    if who:
        para += nodes.Text(f" ({who})")
    for part in (cite.get("document"), cite.get("place")):
        if part:
            para += nodes.Text(f", {part}")
    if cite.get("via"):
        para += nodes.Text("; via ")
        para += xref("source", cite["via"], nodes.inline(cite["via_title"], cite["via_title"]),
                     title=f"about {cite['via_title']}")
    return para


def relation(rel: dict, base_label: str | None = None) -> nodes.paragraph:
    para = nodes.paragraph("", "", classes=["hm-relation"])
    para += nodes.inline(rel["type"], rel["type"], classes=["hm-rel", f"hm-rel-{rel['type']}"])
    targets = rel.get("targets") or []
    if not targets:
        para += nodes.Text(" (new in this revision)" if rel["type"] == "adds" else "")
    for i, target in enumerate(targets):
        para += nodes.Text(" " if i == 0 else ", ")
        kind = "cell" if "@" in target else "clause"
        para += xref(kind, target, nodes.literal(target, target), title=f"clause {target}")
    return para


def copy_link(anchor: str, label: str) -> nodes.reference:
    """A permalink to ``anchor`` that the site's script turns into a "copy link" button
    (without script it is still the link); kept out of the search index."""
    return nodes.reference("", "copy link", refid=anchor, classes=["hm-copy-link", "no-search"],
                           reftitle=f"Copy a link to {label}")


def cell_body(cell: dict, with_status: bool = True) -> list[nodes.Node]:
    """What a cell shows: status, text, relation, reading note, parameters, citation, change."""
    out: list[nodes.Node] = []
    ctx = {"terms": cell.get("terms", {}), "footnotes": cell.get("footnotes", {}),
           "params": {**cell.get("params", {}), **cell.get("table_marks", {})}}
    head = nodes.paragraph("", "", classes=["hm-cell-head"])
    if with_status:
        head += badge(cell["status"], cell["status_label"])
    if cell.get("option"):
        head += nodes.Text(" ")
        head += nodes.inline("", "", nodes.Text("option "), nodes.literal(cell["option"], cell["option"]),
                             classes=["hm-option"])
    if cell.get("anchor"):
        head += nodes.Text(" ")
        head += copy_link(cell["anchor"], cell["anchor"])
    if len(head):
        out.append(head)
    if cell["status"] == "not-covered":
        return out
    if cell.get("text"):
        out.extend(paragraphs(cell["text"], ctx, ["hm-text"]))
    elif cell["status"] == "nil":
        out.append(nodes.paragraph("", "Nothing: this rulebook has no such rule.",
                                   classes=["hm-text", "hm-nil"]))
    if cell.get("relation"):
        out.append(relation(cell["relation"]))
    if cell.get("note"):
        label = nodes.strong("Our reading: ", "Our reading: ")
        box = element("div", {}, classes=["hm-note"])
        box.extend(paragraphs(cell["note"], ctx, lead=[label]))
        out.append(box)
    if cell.get("params"):
        count = len(cell["params"])
        more = element("details", {}, classes=["hm-params"])
        label = f"{count} parameter{'s' if count > 1 else ''} for the engine"
        more += element("summary", {}, nodes.Text(label))
        ul = element("ul", {})
        for name, value in cell["params"].items():
            ul += element("li", {}, nodes.literal(name, name), nodes.Text(" = "),
                          element("span", {"title": f"parameter {name}"}, nodes.Text(value),
                                  classes=["hm-param"]))
        more += ul
        out.append(more)
    for cite in cell.get("cites", []):
        out.append(citation(cite))
    if cell.get("changed"):
        ch = cell["changed"]
        when = f"Changed in version {ch['version']}" + (f" ({ch['date']})" if ch.get("date") else "")
        out.append(nodes.paragraph("", "", nodes.strong(when, when), nodes.Text(": " + ch["note"]),
                                   classes=["hm-changed"]))
    return out


def cell_td(cell: dict, footnotes: dict[str, int]) -> nodes.Element:
    """A cell as its row's ``<td>`` (``footnotes``: the row's, id -> number on the page)."""
    cell["footnotes"] = footnotes
    td = element("td", {"data-col": cell["source"], "data-label": cell["label"]},
                 ids=[cell["anchor"]],
                 classes=["hm-cell", f"hm-status-{cell['status']}", f"hm-kind-{cell['kind']}"]
                 + (["hm-revision"] if cell["revision"] else []))
    td.extend(cell_body(cell))
    return td


class DataDirective(SphinxDirective):
    """A directive whose content is one line of JSON."""

    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True

    def data(self):
        try:
            return json.loads("".join(line.strip() for line in self.content))
        except ValueError as e:
            raise self.error(f"{self.name}: its content is not valid JSON ({e})")

    def domain(self):
        return self.env.get_domain("hm")

    def note(self, kind: str, name: str, anchor: str, title: str = "") -> None:
        self.domain().note(kind, name, self.env.docname, anchor, title)


# ---------------------------------------------------------------- topic tables
class HarmonyTable(DataDirective):
    """``.. harmony-table::``: a JSON line (caption, columns), then nested ``harmony-row`` blocks.

    Only the nested blocks (written by the generator) are parsed as reST;
    the caption and all data stay plain text.
    """

    def run(self):
        first = self.content[0] if self.content else ""
        try:
            head = json.loads(first)
        except ValueError as e:
            raise self.error(f"harmony-table: first content line is not JSON ({e})")
        holder = nodes.container()
        self.state.nested_parse(self.content[1:], self.content_offset + 1, holder)
        caption, columns = head["caption"], head["columns"]
        table = element("table", {"data-columns": " ".join(c["key"] for c in columns)},
                        classes=["hm-harmony"])
        table += element("caption", {}, nodes.Text(caption))
        head_row = element("tr", {})
        head_row += element("th", {"scope": "col"}, nodes.Text("Row"), classes=["hm-rowhead"])
        for col in columns:
            th = element("th", {"scope": "col", "data-col": col["key"]},
                          classes=["hm-col", "hm-kind-" + col["kind"]]
                          + (["hm-revision"] if col["revision"] else []))
            th += nodes.inline("", "", xref("source", col["key"], nodes.inline(col["label"], col["label"]),
                                            title=col["title"]), classes=["hm-col-label"])
            if col["revision"]:
                mark = f"revision of {col['base']}"
                th += element("span", {}, nodes.Text(mark), classes=["hm-revision-mark"])
            head_row += th
        table += element("thead", {}, head_row)
        body = element("tbody", {})
        body.extend(n for n in holder.children)
        table += body
        wrap = element("div", {"role": "region", "aria-label": caption, "tabindex": "0"},
                       table, classes=["hm-scroll"])
        return [wrap, status_key()]


class HarmonyRow(DataDirective):
    """One clause as a table row (and its Q&A as the row below)."""

    def run(self):
        row = self.data()
        self.note("clause", row["id"], row["anchor"], row["title"] or row["aspect_title"])
        tr = element("tr", {}, ids=[row["anchor"]], classes=["hm-row", f"hm-aspect-{row['aspect']}"])
        th = element("th", {"scope": "row"}, classes=["hm-rowhead"])
        th += nodes.paragraph("", "", nodes.strong(row["aspect_title"], row["aspect_title"]),
                              classes=["hm-aspect"])
        if row["title"]:
            th += nodes.paragraph(row["title"], row["title"], classes=["hm-clause-title"])
        link = nodes.reference("", "", nodes.literal(row["id"], row["id"]), refid=row["anchor"],
                               classes=["hm-permalink"], reftitle="Permalink to this clause")
        th += nodes.paragraph("", "", link, classes=["hm-clause-id"])
        for sc in row.get("scenarios", []):
            th += nodes.paragraph("", "", nodes.Text("Example: "),
                                  xref("scenario", sc["id"], nodes.inline(sc["title"], sc["title"])),
                                  classes=["hm-example-link"])
        tr += th
        for cell in row["cells"]:
            self.note("cell", cell["anchor"], cell["anchor"], f"{row['id']} in {cell['label']}")
            tr += cell_td(cell, row.get("footnotes", {}))
        out = [tr]
        if row.get("examples"):
            out.append(examples_row(row["examples"], len(row["cells"]) + 1))
        if row.get("qa"):
            ctx = {"footnotes": row.get("footnotes", {})}
            qtr = element("tr", {}, classes=["hm-qa-row"])
            td = element("td", {"colspan": str(len(row["cells"]) + 1)}, classes=["hm-qa"])
            td += nodes.paragraph("", "", nodes.strong("Questions and answers", "Questions and answers"),
                                  classes=["hm-qa-head"])
            for qa in row["qa"]:
                qctx = dict(ctx, terms=qa.get("terms", {}))
                box = element("div", {}, classes=["hm-qa-item"])
                box.extend(paragraphs(qa["question"], qctx, ["hm-question"],
                                      lead=[nodes.strong(f"{qa['label']}, Q: ", f"{qa['label']}, Q: ")]))
                box.extend(paragraphs(qa["answer"], qctx, ["hm-answer"],
                                      lead=[nodes.strong("A: ", "A: ")]))
                if qa.get("cite"):
                    box += citation(qa["cite"])
                td += box
            qtr += td
            out.append(qtr)
        return out


def examples_row(ex: dict, colspan: int) -> nodes.Node:
    """A clause's examples as the row under it (:func:`harmony.site.views.examples_view`),
    folded into a disclosure so that the table stays short: the prose as paragraphs, each
    run of doctest lines as a code block with the output it was checked against, a line
    that printed something else when the site was built under its block, and the diagram
    of each position the lines set up."""
    tr = element("tr", {}, classes=["hm-examples-row"])
    td = element("td", {"colspan": str(colspan)}, classes=["hm-examples"])
    box = element("details", {}, ids=[ex["anchor"]], classes=["hm-examples"])
    box += element("summary", {}, nodes.Text(ex["summary"]))
    for part in ex["parts"]:
        if "prose" in part:
            box.extend(paragraphs(part["prose"], {}, ["hm-example-prose"]))
            continue
        code = nodes.literal_block(part["code"], part["code"], language="pycon",
                                   classes=["hm-example-code"])
        box += code
        for bad in part["failed"]:
            para = nodes.paragraph("", "", classes=["hm-example-failed"])
            para += nodes.strong("Printed something else when the site was built: ",
                                 "Printed something else when the site was built: ")
            para += nodes.literal(bad["line"], bad["line"])
            box += para
            for label, text in (("the rules expect", bad["want"]), ("it printed", bad["got"])):
                box += nodes.paragraph("", "", nodes.Text(f"{label}:"), classes=["hm-example-failed"])
                box += nodes.literal_block(text, text, classes=["hm-example-code"])
        for fig in part["figures"]:
            box += diagram(fig, ["hm-example-diagram"])
    if ex["note"]:
        box += nodes.paragraph(ex["note"], ex["note"], classes=["hm-example-note"])
    td += box
    tr += td
    return tr


class HarmonyChooser(DataDirective):
    """Checkboxes that show or hide the columns of the tables of this page (plain JS)."""

    def run(self):
        columns = self.data()
        box = element("fieldset", {"hidden": "hidden"}, classes=["hm-chooser"])
        box += element("legend", {}, nodes.Text("Show rulebooks"))
        for col in columns:
            label = element("label", {})
            label += element("input", {"type": "checkbox", "checked": "checked",
                                       "data-col": col["key"], "value": col["key"]})
            label += nodes.Text(" " + col["label"])
            box += label
        return [box]


# ---------------------------------------------------------------- other blocks
class HarmonyText(DataDirective):
    """Marked text as paragraphs: ``{"text": ..., "terms": ..., "footnotes": ..., "classes": ...}``."""

    def run(self):
        d = self.data()
        out: list[nodes.Node] = paragraphs(d.get("text"), d, d.get("classes"))
        if d.get("cite"):
            out.append(citation(d["cite"], "Source: "))
        return out


class HarmonyDataTable(DataDirective):
    """A rulebook's table as a real HTML table: ``{"caption", "header", "rows", "notes",
    "cite", "anchor"}`` (see :func:`harmony.site.tables.table_view`); every cell is text."""

    def run(self):
        d = self.data()
        table = element("table", {}, classes=["hm-datatable"])
        table += element("caption", {}, nodes.Text(d["caption"]))
        head = element("tr", {})
        for title in d["header"]:
            head += element("th", {"scope": "col"}, nodes.Text(title))
        table += element("thead", {}, head)
        body = element("tbody", {})
        for row in d["rows"]:
            tr = element("tr", {})
            for i, value in enumerate(row):
                tr += element("th" if i == 0 else "td", {"scope": "row"} if i == 0 else {},
                              nodes.Text(value))
            body += tr
        table += body
        box = element("div", {"role": "region", "aria-label": d["caption"], "tabindex": "0"},
                      table, ids=[d["anchor"]], classes=["hm-scroll"])
        out: list[nodes.Node] = [box]
        if d.get("summary"):
            out.append(nodes.paragraph("", "", nodes.Text(d["summary"])))
        for note in d.get("notes") or []:
            out.append(nodes.paragraph("", "", nodes.Text(note), classes=["hm-note"]))
        if d.get("cite"):
            out.append(citation(d["cite"], "Source: "))
        return out


class HarmonyCell(DataDirective):
    """One cell on its own (a revision's page): status, text, relation, citation."""

    def run(self):
        cell = self.data()
        box = element("div", {"data-col": cell["source"]}, ids=[cell["anchor"]],
                      classes=["hm-cell-block", f"hm-status-{cell['status']}"])
        if cell.get("register"):
            self.note("cell", cell["register"], cell["anchor"])
        box.extend(cell_body(cell))
        more = nodes.paragraph("", "", nodes.Text("Beside the other rulebooks: "),
                               xref("clause", cell["clause"], nodes.literal(cell["clause"], cell["clause"])),
                               classes=["hm-see-row"])
        box += more
        return [box]


class HarmonyFootnotes(DataDirective):
    """The footnotes marked on this page, numbered in order of first mark."""

    def run(self):
        notes = self.data()
        if not notes:
            return []
        ol = element("ol", {}, classes=["hm-footnotes"])
        for f in notes:
            li = element("li", {"value": str(f["number"])}, ids=[f["anchor"]])
            ctx = {"terms": f.get("terms", {})}
            lead = [nodes.strong(f"[{f['source']}] ", f"[{f['source']}] ")] if f.get("source") else []
            li.extend(paragraphs(f["text"], ctx, lead=lead))
            if f.get("cite"):
                li += citation(f["cite"])
            ol += li
        return [ol]


class HarmonySources(DataDirective):
    """A table of the sources: key, title, author, year, version, kind."""

    def run(self):
        sources = self.data()
        caption = self.arguments[0] if self.arguments else "The sources"
        table = element("table", {}, classes=["hm-sources"])
        table += element("caption", {}, nodes.Text(caption))
        head = element("tr", {})
        for name in ("Key", "Title", "Author", "Year", "Version", "Kind"):
            head += element("th", {"scope": "col"}, nodes.Text(name))
        table += element("thead", {}, head)
        body = element("tbody", {})
        for s in sources:
            tr = element("tr", {})
            tr += element("th", {"scope": "row"}, nodes.literal(s["key"], s["key"]))
            tr += element("td", {}, nodes.inline("", "", xref("source", s["key"],
                                                              nodes.emphasis(s["title"], s["title"]))))
            tr += element("td", {}, nodes.Text(s["author"]))
            tr += element("td", {}, nodes.Text(str(s["year"] or "")))
            version = s.get("version") or ""
            if s.get("date"):
                version = f"{version} ({s['date']})" if version else s["date"]
            tr += element("td", {}, nodes.Text(version))
            kind = s["kind"] + (f" of {s['base']}" if s.get("base") else "")
            tr += element("td", {}, nodes.Text(kind))
            body += tr
        table += body
        return [element("div", {}, table, classes=["hm-scroll"])]


class HarmonySource(DataDirective):
    """One source in detail, with its anchor ``source-KEY``."""

    def run(self):
        s = self.data()
        anchor = f"source-{s['key']}"
        self.note("source", s["key"], anchor, s["title"])
        box = element("div", {}, ids=[anchor], classes=["hm-source"])
        head = nodes.paragraph("", "", classes=["hm-source-head"])
        head += nodes.literal(s["key"], s["key"])
        head += nodes.Text(" ")
        head += nodes.strong(s["title"], s["title"])
        box += head
        facts = [("Author", s["author"]), ("Publisher", s.get("publisher")), ("Year", s.get("year")),
                 ("Version", s.get("version")), ("Date", s.get("date")), ("Kind", s["kind"]),
                 ("Builds on", s.get("base"))]
        dl = nodes.definition_list(classes=["hm-facts"])
        for name, value in facts:
            if value:
                dl += nodes.definition_list_item("", nodes.term(name, name),
                                                 nodes.definition("", nodes.paragraph(str(value), str(value))))
        box += dl
        if s.get("summary"):
            box += nodes.paragraph(s["summary"], s["summary"])
        for d in s.get("documents", []):
            when = ", ".join(x for x in (d.get("version") and f"version {d['version']}", d.get("date")) if x)
            text = f"Document {d['id']}: {d['title']}" + (f" ({when})" if when else "")
            box += nodes.paragraph(text, text, classes=["hm-document"])
        for v in s.get("versions", []):
            text = f"Version {v['version']} of {v['date']}" + (f": {v['note']}" if v.get("note") else "")
            box += nodes.paragraph(text, text, classes=["hm-version"])
        return [box]


class HarmonyTerm(DataDirective):
    """One glossary entry, anchored at ``term-...``; links back to the clauses that use it."""

    def run(self):
        t = self.data()
        self.note("term", t["anchor"], t["anchor"], t["term"])
        box = element("div", {}, ids=[t["anchor"]], classes=["hm-term-entry"])
        box += nodes.paragraph("", "", nodes.strong(t["term"], t["term"]), classes=["hm-term-name"])
        if t.get("aliases"):
            text = "Also: " + ", ".join(t["aliases"])
            box += nodes.paragraph(text, text, classes=["hm-aliases"])
        box.extend(paragraphs(t["definition"], t))
        if t.get("cite"):
            box += citation(t["cite"], "Source: ")
        if t.get("used_in"):
            para = nodes.paragraph("", "", nodes.Text("Used in "), classes=["hm-used-in"])
            for i, cid in enumerate(t["used_in"]):
                if i:
                    para += nodes.Text(", ")
                para += xref("clause", cid, nodes.literal(cid, cid))
            box += para
        return [box]


class HarmonyDifferences(DataDirective):
    """One topic's rows where the rulebooks disagree: how they differ, in sentences made from
    the parameters' words, beside each rulebook's own text (linked to its cell)."""

    def run(self):
        topic = self.data()
        table = element("table", {"data-columns": " ".join(c["key"] for c in topic["columns"])},
                        classes=["hm-differences"])
        table += element("caption", {}, nodes.Text(f"{topic['title']}: rows where the rulebooks differ"))
        head = element("tr", {})
        head += element("th", {"scope": "col"}, nodes.Text("Row"))
        head += element("th", {"scope": "col"}, nodes.Text("How they differ"), classes=["hm-how"])
        for col in topic["columns"]:
            head += element("th", {"scope": "col", "data-col": col["key"]}, nodes.Text(col["label"]))
        table += element("thead", {}, head)
        body = element("tbody", {})
        for row in topic["rows"]:
            tr = element("tr", {})
            th = element("th", {"scope": "row"})
            th += nodes.paragraph("", "", xref("clause", row["id"], nodes.inline(row["title"], row["title"])))
            th += nodes.paragraph("", "", nodes.literal(row["id"], row["id"]), classes=["hm-clause-id"])
            tr += th
            how = element("td", {}, classes=["hm-how"])
            ul = element("ul", {}, classes=["hm-sentences"])
            for sentence in row["sentences"]:
                ul += element("li", {}, nodes.Text(sentence))
            how += ul
            tr += how
            for cell in row["cells"]:
                td = element("td", {"data-col": cell["source"], "data-label": cell["label"]},
                             classes=["hm-diff-cell", f"hm-status-{cell['status']}"])
                target = f"{row['id']}@{cell['source']}"
                td += nodes.paragraph("", "", xref("cell", target, badge(cell["status"], cell["status_label"]),
                                                   title=f"{row['id']} in {cell['label']}"),
                                      classes=["hm-cell-head"])
                if cell["status"] != "not-covered" and cell.get("text"):
                    td.extend(paragraphs(without_footnotes(cell["text"]), cell, ["hm-text"]))
                tr += td
            body += tr
        table += body
        return [element("div", {}, table, classes=["hm-scroll"]), status_key()]


class HarmonyScenario(DataDirective):
    """A worked example: its diagram(s) and the outcome matrix computed by the engine."""

    def run(self):
        sc = self.data()
        if "matrix" not in sc:   # the outcomes block of the same example is not a second object
            self.note("scenario", sc["id"], f"scenario-{sc['id']}", sc["title"])
        out: list[nodes.Node] = [element("span", {}, ids=[f"scenario-{sc['id']}"])]
        out.extend(diagram(fig) for fig in sc.get("figures", []))
        matrix = sc.get("matrix")
        if matrix:
            out.append(outcome_table(sc, matrix))
        return out


def diagram(fig: dict, classes: list[str] | None = None) -> nodes.Node:
    """A figure a game drew (``{"svg", "caption", "key", "number"}``): the drawing, its
    caption and the key of its units."""
    fid = f"figure-{fig['number']}" if fig.get("number") else None
    figure = element("figure", {}, ids=[fid] if fid else [], classes=["hm-diagram"] + (classes or []))
    figure += svg(fig["svg"])
    if fig.get("caption"):
        figure += element("figcaption", {}, nodes.Text(fig["caption"]))
    if fig.get("key"):
        figure += unit_key(fig["key"])
    return figure


def unit_key(units: list[dict]) -> nodes.Node:
    """The key under a diagram: each counter's hex, kind and the unit's name, visible on
    any screen (not only on hover)."""
    ul = element("ul", {}, classes=["hm-unit-key"])
    for u in units:
        li = element("li", {"data-unit": u["id"]})
        li += element("span", {}, nodes.Text(u["at"]), classes=["hm-key-hex"])
        li += nodes.Text(" ")
        li += element("span", {}, nodes.Text(u["kind"]), classes=["hm-key-kind"])
        extra = [] if u.get("face", "up") == "up" else [f"face {u['face']}"]
        extra += [f"{m} marker" for m in u.get("markers", [])]
        li += nodes.Text(f" {u['name']} ({u['side']})" + (f", {', '.join(extra)}" if extra else ""))
        ul += li
    return ul


def named(text: str, names: dict) -> str:
    """Unit ids in an engine's text replaced by the names the scenario gives.

    >>> named("soviet-mg is not spotted; soviet-mg-2 is", {"soviet-mg": "the MG company"})
    'the MG company is not spotted; soviet-mg-2 is'
    """
    for uid in sorted(names, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(uid)}(?![\w-])", names[uid].replace("\\", "\\\\"), text)
    return text


class HarmonySteps(DataDirective):
    """Every step's narrative, numbered, each with the figure that shows it."""

    def run(self):
        ol = element("ol", {}, classes=["hm-steps"])
        for step in self.data():
            li = element("li", {"value": str(step["number"])}, ids=[f"step-{step['number']}"])
            para = nodes.paragraph("", "")
            if step.get("note"):
                para += nodes.Text(step["note"] + " ")
            ref = nodes.reference("", f"Figure {step['figure']}", refid=f"figure-{step['figure']}")
            para += nodes.inline("", "", nodes.Text("(" if step.get("own_figure") else "(as in "), ref,
                                 nodes.Text(")"), classes=["hm-figref"])
            li += para
            ol += li
        return [ol]


def outcome_table(sc: dict, matrix: dict) -> nodes.Node:
    table = element("table", {}, classes=["hm-outcomes"])
    table += element("caption", {}, nodes.Text(f"{sc['title']}: how each ruleset decides it"))
    head = element("tr", {})
    head += element("th", {"scope": "col"}, nodes.Text("Step"))
    for rs in matrix["rulesets"]:
        head += element("th", {"scope": "col", "data-col": rs["key"]}, nodes.Text(rs["label"]))
    table += element("thead", {}, head)
    body = element("tbody", {})
    figures = {str(s["number"] - 1): s["figure"] for s in sc.get("steps", [])}
    names = sc.get("names", {})
    for row in matrix["rows"]:
        tr = element("tr", {})
        th = element("th", {"scope": "row"})
        label = nodes.paragraph("", "", nodes.strong(row["step_label"], row["step_label"]))
        if row["step"] in figures:
            n = figures[row["step"]]
            label += nodes.Text(", ")
            label += nodes.reference("", f"Figure {n}", refid=f"figure-{n}", classes=["hm-figref"])
        th += label
        th += nodes.paragraph(row["question"], row["question"])
        tr += th
        for cell in row["cells"]:
            td = element("td", {"data-col": cell["ruleset"], "data-label": cell["label"]},
                         classes=["hm-outcome"] + ([] if cell.get("ok", True) else ["hm-mismatch"]))
            if cell.get("missing"):
                td += nodes.paragraph("", "not decided", classes=["hm-nil"])
            else:
                actual = named(cell["actual"], names)
                td += nodes.paragraph("", "", nodes.strong(actual, actual), classes=["hm-ruling"])
                if not cell.get("ok", True):
                    text = f"expected: {cell['expected']}"
                    td += nodes.paragraph(text, text, classes=["hm-expected"])
                if cell.get("detail"):
                    detail = named(cell["detail"], names)
                    td += nodes.paragraph(detail, detail, classes=["hm-detail"])
                if cell.get("reasons"):
                    para = nodes.paragraph("", "", nodes.Text("decided by "), classes=["hm-reasons"])
                    for i, cid in enumerate(cell["reasons"]):
                        if i:
                            para += nodes.Text(", ")
                        kind = "cell" if "@" in cid else "clause"
                        para += xref(kind, cid, nodes.literal(cid, cid))
                    td += para
            tr += td
        body += tr
    table += body
    out = element("div", {}, table, classes=["hm-scroll"])
    for problem in matrix.get("errors", []):
        out += nodes.paragraph("", "", nodes.strong("The engine could not play this: ",
                                                    "The engine could not play this: "),
                               nodes.Text(problem), classes=["hm-engine-error"])
    return out


class HarmonyScoreboard(DataDirective):
    """The examples' disagreement scoreboard: a question per row, a ruleset per column,
    each ruling in a word; rows where the rulesets disagree are marked ``hm-split``."""

    def run(self):
        board = self.data()
        table = element("table", {}, classes=["hm-outcomes", "hm-scoreboard"])
        table += element("caption", {}, nodes.Text(
            f"Every example question under every ruleset: {board['splits']} of "
            f"{len(board['rows'])} split the rulesets"))
        head = element("tr", {})
        head += element("th", {"scope": "col"}, nodes.Text("Question"))
        for col in board["columns"]:
            head += element("th", {"scope": "col", "data-col": col["key"]}, nodes.Text(col["label"]))
        table += element("thead", {}, head)
        body = element("tbody", {})
        for row in board["rows"]:
            tr = element("tr", {}, classes=["hm-split"] if row["split"] else [])
            th = element("th", {"scope": "row"})
            th += nodes.paragraph("", "", xref("scenario", row["scenario"],
                                               nodes.inline(row["title"], row["title"])),
                                  nodes.Text(f", {row['step'].lower()}"), classes=["hm-board-example"])
            th += nodes.paragraph(row["question"], row["question"])
            tr += th
            for col in board["columns"]:
                word = row["words"].get(col["key"])
                td = element("td", {"data-col": col["key"], "data-label": col["label"]},
                             classes=["hm-word"] + ([] if word else ["hm-nil"]))
                td += nodes.Text(word or "\u2013")
                tr += td
            body += tr
        table += body
        return [element("div", {"role": "region", "aria-label": "scoreboard", "tabindex": "0"},
                        table, classes=["hm-scroll"])]


class HarmonyChange(DataDirective):
    """One revised cell on a version page: its relation (the cells it amends, as links), then
    the text it amends and its own text side by side, words taken out marked ``<del>`` on
    the left and words put in marked ``<ins>`` on the right."""

    def run(self):
        item = self.data()
        box = element("div", {}, classes=["hm-change"])
        head = nodes.paragraph("", "", classes=["hm-relation"])
        head += badge(item["status"], item["status_label"])
        if item.get("relation"):
            head += nodes.Text(" ")
            head += nodes.inline(item["relation"], item["relation"], classes=["hm-rel", f"hm-rel-{item['relation']}"])
            for i, target in enumerate(item["targets"]):
                head += nodes.Text(" " if i == 0 else ", ")
                kind = "cell" if "@" in target else "clause"
                head += xref(kind, target, nodes.literal(target, target), title=f"clause {target}")
        box += head
        if item.get("changed"):
            box += nodes.paragraph("", "", nodes.strong("Changed: ", "Changed: "), nodes.Text(item["changed"]),
                                   classes=["hm-changed"])
        if item.get("params"):
            box += self._params(item["params"])
        for pair in item["pairs"]:
            sides = element("div", {}, classes=["hm-sides"])
            if pair["old_cell"]:
                left = element("div", {}, classes=["hm-side", "hm-side-old"])
                left += nodes.paragraph("", "", nodes.Text("The text it amends: "),
                                        xref("cell", pair["old_cell"],
                                             nodes.literal(pair["old_cell"], pair["old_cell"])),
                                        classes=["hm-side-head"])
                left += self._text(pair["pieces"], "delete")
                sides += left
            right = element("div", {}, classes=["hm-side", "hm-side-new"])
            right += nodes.paragraph("", "", nodes.Text("Revised: "),
                                     xref("cell", item["cell"], nodes.literal(item["cell"], item["cell"])),
                                     classes=["hm-side-head"])
            right += self._text(pair["pieces"], "insert")
            sides += right
            box += sides
        return [box]

    @staticmethod
    def _params(rows) -> nodes.bullet_list:
        """The parameters the revision changes: "Label (``name``): was → now"."""
        items = nodes.bullet_list("", classes=["hm-param-changes"])
        for row in rows:
            para = nodes.paragraph("", "", nodes.Text(f"{row['label']} ("), nodes.literal(row["name"], row["name"]),
                                   nodes.Text("): "), element("del", {}, nodes.Text(row["was"])),
                                   nodes.Text(" → "), element("ins", {}, nodes.Text(row["now"])))
            items += nodes.list_item("", para)
        return items

    @staticmethod
    def _text(pieces, kind: str) -> nodes.paragraph:
        """One side of a word diff: the equal words and those of ``kind`` (marked)."""
        para = nodes.paragraph("", "", classes=["hm-text"])
        tag = "del" if kind == "delete" else "ins"
        first = True
        for op, words in pieces:
            if op not in ("equal", kind) or not words:
                continue
            if not first:
                para += nodes.Text(" ")
            first = False
            para += element(tag, {}, nodes.Text(words)) if op == kind else nodes.Text(words)
        return para


class HarmonyHtmlFile(Directive):
    """A link to a standalone HTML page or PDF written beside the site (e.g. the printable
    cards); ``:pdf: FILE`` (the path in the site of a file the build prints: a PDF, or an
    EPUB) follows the label with the file's pages and size, known once it is printed
    (:mod:`.pdflinks`)."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec = {"label": directives.unchanged, "pdf": directives.unchanged_required}

    def run(self):
        target = self.arguments[0]
        label = self.options.get("label", target)
        ref = nodes.reference("", label, refuri=target, classes=["hm-standalone"])
        if "pdf" in self.options:
            ref += nodes.Text(" ")
            ref += pdflinks.placeholder(self.state.document.settings.env, self.options["pdf"])
        return [nodes.paragraph("", "", ref)]


DIRECTIVES = {
    "harmony-table": HarmonyTable,
    "harmony-row": HarmonyRow,
    "harmony-chooser": HarmonyChooser,
    "harmony-text": HarmonyText,
    "harmony-cell": HarmonyCell,
    "harmony-datatable": HarmonyDataTable,
    "harmony-footnotes": HarmonyFootnotes,
    "harmony-sources": HarmonySources,
    "harmony-source": HarmonySource,
    "harmony-term": HarmonyTerm,
    "harmony-differences": HarmonyDifferences,
    "harmony-scenario": HarmonyScenario,
    "harmony-link": HarmonyHtmlFile,
    "harmony-scoreboard": HarmonyScoreboard,
    "harmony-change": HarmonyChange,
    "harmony-steps": HarmonySteps,
}


def setup(app) -> None:
    for name, cls in DIRECTIVES.items():
        app.add_directive(name, cls)
