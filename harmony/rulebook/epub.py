"""A rulebook as an EPUB 3, for e-readers: the HTML its PDF is printed from, as one XHTML
document in a zip.

The rulebook's HTML (:func:`harmony.rulebook.pdf_html`) is read with tinyhtml5 (the parser
under WeasyPrint, with :mod:`harmony.htmlcache`'s fix) and changed in three ways for a screen:

* the print stylesheet (paper, running heads, page numbers, footnotes floated to the foot of
  the page) gives way to ``templates/rulebook/epub.css``;
* each footnote (a citation, a note: ``<span class="fn">``) becomes a numbered note
  reference, and the note itself an entry of a "Notes" section at the end (marked as
  endnotes, so that an e-reader can show one as a pop-up and come back);
* the book's own contents become its navigation document as well.

Everything in the EPUB comes from that HTML, so the same HTML gives the same bytes: zip
entries carry a fixed time, and the modification date EPUB requires is the clauses'
(the rulebook's last change, else its date, else its year; the Unix epoch when the
rulebook has none), never the time of the build.

>>> html = ('<!DOCTYPE html><html lang="en"><head><title>T</title>'
...         '<meta name="harmony-id" content="urn:harmony:X:1"><meta name="harmony-date" content="1977">'
...         '<style>p {}</style></head><body><nav class="contents"><ol><li><a href="#a">A</a></li></ol></nav>'
...         '<section id="a"><h1>A</h1><p>Rule.<span class="fn cite">Book, p. 2</span></p></section></body></html>')
>>> data, _ = print_epub(html)
>>> book = EpubBook(data)
>>> book.names[:2], book.metadata["modified"], book.metadata["identifier"]
(['mimetype', 'META-INF/container.xml'], '1977-01-01T00:00:00Z', 'urn:harmony:X:1')
>>> xhtml = book.text("OEBPS/book.xhtml")
>>> print(xhtml[xhtml.index("<p>Rule"):xhtml.index("</p>") + 4])
<p>Rule.<sup><a href="#note-1" id="ref-1" class="noteref" epub:type="noteref" role="doc-noteref">1</a></sup></p>
>>> start = xhtml.index('<li id="note-1"')
>>> print(xhtml[start:xhtml.index("</li>", start) + 5])
<li id="note-1" epub:type="endnote"><p><a href="#ref-1" role="doc-backlink">1.</a> Book, p. 2</p></li>
>>> data == print_epub(html)[0]
True
"""  # noqa: E501 (the examples' output is one line each)
from __future__ import annotations

import copy
import io
import re
import zipfile
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from .. import htmlcache, resources
from ..outdir import EPUB_COMMENT

XHTML = "http://www.w3.org/1999/xhtml"
SVG = "http://www.w3.org/2000/svg"
OPS = "http://www.idpf.org/2007/ops"
XMLNS = "http://www.w3.org/2000/xmlns/"
XLINK = "http://www.w3.org/1999/xlink"
#: prefixes of the attributes' namespaces the XHTML may hold (an HTML parser gives an
#: attribute a namespace only in SVG and MathML: xlink's, xml's; ours, epub's)
_PREFIX = {OPS: "epub", "http://www.w3.org/XML/1998/namespace": "xml", XLINK: "xlink"}
#: HTML elements that are empty by definition (written ``<br/>``; every other one is closed)
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}
#: SVG 2 presentation attributes that EPUB's SVG (1.1) lacks: written as style properties,
#: which a reader that knows them applies the same way
_SVG2_STYLE = ("paint-order",)
#: the time every zip entry carries (zip's earliest), so that the bytes never hold the build's
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
STYLESHEET = "epub.css"
MEDIA_TYPE = "application/epub+zip"


def _h(name: str) -> str:
    return f"{{{XHTML}}}{name}"


def modified(date: str | None) -> str:
    """EPUB's ``dcterms:modified`` for a rulebook's date (a year, a month or a day), the Unix
    epoch for none.

    >>> modified("2013-04-05"), modified("1977"), modified(None), modified("spring 1977")
    ('2013-04-05T00:00:00Z', '1977-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z')
    """
    m = re.fullmatch(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", (date or "").strip())
    if not m:
        return "1970-01-01T00:00:00Z"
    year, month, day = m.group(1), m.group(2) or "01", m.group(3) or "01"
    return f"{year}-{month}-{day}T00:00:00Z"


def print_epub(html: str) -> tuple[bytes, int]:
    """The EPUB of a rulebook's ``html`` (see the module's notes) and its number of notes
    (an EPUB has no pages; the printer's jobs give a count with the bytes)."""
    import tinyhtml5
    htmlcache.install()                 # its expressions built once, as for the PDF
    root = tinyhtml5.parse(html)
    head, body = root[0], root[1]      # an HTML parser always makes both, in this order
    meta = {m.get("name"): m.get("content") or "" for m in head.iter(_h("meta")) if m.get("name")}
    title = " ".join((head.findtext(_h("title")) or "").split())
    lang = root.get("lang") or "en"
    notes = _notes(body)
    contents = body.find(f".//{_h('nav')}")
    toc = _toc(contents, bool(notes))
    book = _document(title, lang, [ET.Element(_h("link"), {"rel": "stylesheet", "href": STYLESHEET})], body)
    nav = _document(title, lang, [], _nav_body(toc))
    has_svg = body.find(f".//{{{SVG}}}svg") is not None
    opf = _package(meta.get("harmony-id") or "urn:harmony:rulebook", title, lang, meta.get("author"),
                   modified(meta.get("harmony-date")), has_svg)
    css = (resources.templates() / "rulebook" / STYLESHEET).read_bytes()
    return _zip([("META-INF/container.xml", CONTAINER.encode()), ("OEBPS/content.opf", opf.encode()),
                 ("OEBPS/nav.xhtml", nav.encode()), ("OEBPS/book.xhtml", book.encode()),
                 (f"OEBPS/{STYLESHEET}", css)]), len(notes)


def _notes(body: ET.Element) -> list[ET.Element]:
    """Turn each footnote of ``body`` into a note reference, and append the notes at its end
    (the entries, in order)."""
    parents = {child: parent for parent in body.iter() for child in parent}
    spans = [e for e in body.iter(_h("span")) if "fn" in (e.get("class") or "").split()]
    entries = []
    for n, span in enumerate(spans, 1):
        parent = parents[span]
        sup = ET.Element(_h("sup"))
        ref = ET.SubElement(sup, _h("a"), {"href": f"#note-{n}", "id": f"ref-{n}", "class": "noteref",
                                           f"{{{OPS}}}type": "noteref", "role": "doc-noteref"})
        ref.text = str(n)
        sup.tail = span.tail
        at = list(parent).index(span)
        before = parent[at - 1] if at else None
        if before is not None and before.tag == _h("sup") and not (before.tail or "").strip():
            sup.text = ","                     # two notes in a row: 1,2, never 12
        parent.insert(at, sup)
        parent.remove(span)
        entry = ET.Element(_h("li"), {"id": f"note-{n}", f"{{{OPS}}}type": "endnote"})
        para = ET.SubElement(entry, _h("p"))
        back = ET.SubElement(para, _h("a"), {"href": f"#ref-{n}", "role": "doc-backlink"})
        back.text = f"{n}."
        back.tail = " " + (span.text or "")
        para.extend(list(span))
        entries.append(entry)
    if entries:
        section = ET.SubElement(body, _h("section"), {"id": "notes", "class": "back notes",
                                                      f"{{{OPS}}}type": "endnotes", "role": "doc-endnotes"})
        ET.SubElement(section, _h("h1"), {"class": "section-title"}).text = "Notes"
        ET.SubElement(section, _h("ol")).extend(entries)
    return entries


def _toc(contents: ET.Element | None, notes: bool) -> ET.Element:
    """The navigation's list: a copy of the book's contents pointing into ``book.xhtml``."""
    listed = contents.find(_h("ol")) if contents is not None else None
    ol = ET.Element(_h("ol")) if listed is None else copy.deepcopy(listed)
    for a in ol.iter(_h("a")):
        if (a.get("href") or "").startswith("#"):
            a.set("href", "book.xhtml" + a.get("href", ""))
    if notes:
        li = ET.SubElement(ol, _h("li"))
        ET.SubElement(li, _h("a"), {"href": "book.xhtml#notes"}).text = "Notes"
    return ol


def _nav_body(toc: ET.Element) -> ET.Element:
    body = ET.Element(_h("body"))
    nav = ET.SubElement(body, _h("nav"), {f"{{{OPS}}}type": "toc", "id": "toc", "role": "doc-toc"})
    ET.SubElement(nav, _h("h1")).text = "Contents"
    nav.append(toc)
    return body


def _document(title: str, lang: str, links: list[ET.Element], body: ET.Element) -> str:
    """An XHTML document of ``body``'s content."""
    out = ['<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n',
           f'<html xmlns="{XHTML}" xmlns:epub="{OPS}" lang="{_attr(lang)}" xml:lang="{_attr(lang)}">\n'
           f'<head>\n<meta charset="utf-8"/>\n<title>{_text(title)}</title>\n']
    for link in links:
        _write(link, out, XHTML)
        out.append("\n")
    out.append("</head>\n")
    body.tail = "\n"
    _write(body, out, XHTML)
    out.append("</html>\n")
    return "".join(out)


def _write(el: ET.Element, out: list[str], default: str) -> None:
    """``el`` as XML: the namespace of its element the default one (declared where it
    changes: an SVG inside the XHTML), the attributes' own prefixed; an empty HTML element
    closed, but for those that are always empty; an SVG 2 attribute as a style.

    >>> import tinyhtml5
    >>> p = tinyhtml5.parse('<p>a<br>b<span class="x"></span><svg><rect width="1"/>'
    ...                     '<text paint-order="stroke" style="fill: red;">c</text></svg></p>')[1][0]
    >>> out = []; _write(p, out, XHTML); print("".join(out))
    <p>a<br/>b<span class="x"></span><svg xmlns="http://www.w3.org/2000/svg"><rect width="1"/><text style="fill: red; paint-order: stroke">c</text></svg></p>
    >>> use = tinyhtml5.parse('<svg><use xlink:href="#a" xlink:title="t"/></svg>')[1][0][0]
    >>> out = []; _write(use, out, SVG); print("".join(out))
    <use xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="#a" xlink:title="t"/>
    """  # noqa: E501 (the example's output is one line)
    if not isinstance(el.tag, str):            # a comment
        out.append(_text(el.tail or ""))
        return
    ns, _, local = el.tag[1:].partition("}") if el.tag.startswith("{") else ("", "", el.tag)
    attrs = []
    if ns != default:
        attrs.append(f' xmlns="{ns}"')
    items = dict(el.attrib)
    if ns == SVG and any(name in items for name in _SVG2_STYLE):
        moved = "; ".join(f"{name}: {items.pop(name)}" for name in _SVG2_STYLE if name in items)
        items["style"] = f"{items['style'].rstrip('; ')}; {moved}" if items.get("style") else moved
    for k, v in items.items():
        if k.startswith("{"):
            kns, _, kl = k[1:].partition("}")
            if kns == XMLNS:                   # a declaration the parser kept: written as needed
                continue
            k = f"{_PREFIX[kns]}:{kl}"
            if kns == XLINK and f' xmlns:xlink="{XLINK}"' not in attrs:
                attrs.append(f' xmlns:xlink="{XLINK}"')
        attrs.append(f' {k}="{_attr(v)}"')
    out.append(f"<{local}{''.join(attrs)}")
    if not len(el) and not el.text and (ns != XHTML or local in _VOID):
        out.append("/>")
    else:
        out.append(">" + _text(el.text or ""))
        for child in el:
            _write(child, out, ns)
        out.append(f"</{local}>")
    out.append(_text(el.tail or ""))


def _text(s: str) -> str:
    return escape(s)


def _attr(s: str) -> str:
    return escape(s, {'"': "&quot;", "\n": "&#10;", "\t": "&#9;"})


CONTAINER = """<?xml version="1.0" encoding="utf-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
"""


def _package(identifier: str, title: str, lang: str, author: str | None, when: str, svg: bool) -> str:
    creator = f"    <dc:creator>{_text(author)}</dc:creator>\n" if author else ""
    return f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="{_attr(lang)}">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="book-id">{_text(identifier)}</dc:identifier>
    <dc:title>{_text(title)}</dc:title>
    <dc:language>{_text(lang)}</dc:language>
{creator}    <meta property="dcterms:modified">{when}</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="book" href="book.xhtml" media-type="application/xhtml+xml"{' properties="svg"' if svg else ''}/>
    <item id="css" href="{STYLESHEET}" media-type="text/css"/>
  </manifest>
  <spine>
    <itemref idref="book"/>
  </spine>
</package>
"""


def _zip(files: list[tuple[str, bytes]]) -> bytes:
    """The EPUB's zip: ``mimetype`` first and stored, as the format asks; every entry the
    same time and mode, so that the same files give the same bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.comment = EPUB_COMMENT                # how harmony knows a file it may replace
        for name, data, how in [("mimetype", MEDIA_TYPE.encode(), zipfile.ZIP_STORED),
                                *((n, d, zipfile.ZIP_DEFLATED) for n, d in files)]:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = how
            info.external_attr = 0o644 << 16
            z.writestr(info, data, compresslevel=9 if how == zipfile.ZIP_DEFLATED else None)
    return buf.getvalue()


class EpubBook:
    """An EPUB read back (for the tests and the doctests): its entries' names in order, an
    entry's text, and the package's metadata."""

    def __init__(self, data: bytes):
        self.zip = zipfile.ZipFile(io.BytesIO(data))
        self.names = self.zip.namelist()
        opf = ET.fromstring(self.zip.read("OEBPS/content.opf"))
        dc, ns = "{http://purl.org/dc/elements/1.1/}", "{http://www.idpf.org/2007/opf}"
        md = opf.find(f"{ns}metadata")
        assert md is not None, "the package has no metadata"
        self.metadata = {child.tag.removeprefix(dc): (child.text or "") for child in md
                         if child.tag.startswith(dc)}
        self.metadata["modified"] = next(m.text or "" for m in md.iter(f"{ns}meta")
                                         if m.get("property") == "dcterms:modified")

    def text(self, name: str) -> str:
        return self.zip.read(name).decode("utf-8")
