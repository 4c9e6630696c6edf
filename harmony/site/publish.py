"""The site ready to publish: each diagram as a file of its own, link previews, a sitemap and
the page for "not found".

* Each diagram of a page (a :class:`~harmony.site.nodes.svg` in a ``figure.hm-diagram``) is
  also written as ``_figures/PAGE-N.svg``, drawn large enough that its smallest text is 12 px,
  and the figure links to it ("open full size"): a figure that fits a phone's width in the page
  opens at a size that can be read.
* Every page carries a description and Open Graph tags (``og:title``, ``og:description``,
  ``og:type``, ``og:site_name``; with the site's address, ``og:url`` and ``og:image``, its
  first diagram). The canonical link is Sphinx's own (``html_baseurl``, which
  :func:`harmony.site.generate.conf_overrides` sets from the harmony's ``url``).
* With the site's address, ``sitemap.xml`` lists every page, and ``robots.txt`` names it.
* ``404.html`` (the hand-written ``site/404.rst``) resolves its links from the site's root, so
  a host may show it at any address.

All of it is made from the pages' sources in a fixed order: the same rules give the same bytes.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from docutils import nodes

from .nodes import element, svg

#: the folder of the site that holds the diagrams as files of their own
FIGURES = "_figures"
#: the smallest text of a diagram opened full size, in CSS pixels
LEGIBLE_PX = 12.0
#: the longest description a link preview shows whole
DESCRIPTION_CHARS = 200
NOT_FOUND = "404"


def full_size(markup: str) -> str:
    """An inline diagram as a file of its own: the XML declaration, a width and height that
    draw its smallest text at :data:`LEGIBLE_PX` (never smaller than it was drawn), and the
    page's kind of type (a file opened alone has no stylesheet; a browser's default is a serif).

    >>> print(full_size('<svg viewBox="0 0 100 50" width="100" height="50">'
    ...                 '<text font-size="6">A1</text></svg>'), end="")
    <?xml version="1.0" encoding="UTF-8"?>
    <svg viewBox="0 0 100 50" font-family="sans-serif" width="200" height="100"><text font-size="6">A1</text></svg>
    """
    box = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"', markup)
    sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', markup)]
    out = markup
    if "font-family" not in out[:out.index(">")]:
        out = out[:out.index(">")] + ' font-family="sans-serif"' + out[out.index(">"):]
    if box and sizes:
        scale = max(LEGIBLE_PX / min(sizes), 1.0)
        width, height = float(box.group(1)) * scale, float(box.group(2)) * scale
        head = out[:out.index(">") + 1]
        new = re.sub(r' (width|height)="[^"]*"', "", head)
        new = new[:-1] + f' width="{width:g}" height="{height:g}">'
        out = new + out[len(head):]
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + out + "\n"


def figure_name(docname: str, n: int) -> str:
    """The file of a page's ``n``-th diagram (from 1).

    >>> figure_name("examples/rev-figure-1", 2)
    'examples-rev-figure-1-2.svg'
    """
    return f"{docname.replace('/', '-')}-{n}.svg"


def collect_figures(app, doctree) -> None:
    """``doctree-read``: note the page's diagrams and link each figure to its own file."""
    env = app.env
    docname = env.docname
    figures: list[tuple[str, str]] = []
    up = "../" * docname.count("/")
    for fig in doctree.findall(element):
        if fig["tag"] != "figure" or "hm-diagram" not in fig["classes"]:
            continue
        drawn = next(iter(fig.findall(svg)), None)
        if drawn is None:
            continue
        name = figure_name(docname, len(figures) + 1)
        figures.append((name, drawn["svg"]))
        link = nodes.reference("", "Open the figure full size", refuri=f"{up}{FIGURES}/{name}")
        fig.insert(fig.index(drawn) + 1, nodes.paragraph("", "", link, classes=["hm-full-size"]))
    store = _figures(env)
    if figures:
        store[docname] = figures
    else:
        store.pop(docname, None)


def _figures(env) -> dict[str, list[tuple[str, str]]]:
    if not hasattr(env, "harmony_figures"):
        env.harmony_figures = {}
    return env.harmony_figures


def purge_figures(app, env, docname) -> None:
    _figures(env).pop(docname, None)


def merge_figures(app, env, docnames, other) -> None:
    store = _figures(env)
    for docname in docnames:
        if docname in _figures(other):
            store[docname] = _figures(other)[docname]


def description(doctree) -> str:
    """The first paragraph of a page, in one line, cut at a word within
    :data:`DESCRIPTION_CHARS`.

    >>> from docutils.utils import new_document
    >>> from docutils.frontend import get_default_settings
    >>> from docutils.parsers.rst import Parser
    >>> doc = new_document("x", get_default_settings(Parser))
    >>> doc += nodes.paragraph("", "Spotting in woods:\\n" + "who sees whom " * 30)
    >>> text = description(doc); len(text) <= 200, text[:30], text[-5:]
    (True, 'Spotting in woods: who sees wh', 'sees…')
    """
    for para in doctree.findall(nodes.paragraph):
        if "hm-status-key" in para["classes"]:
            continue
        text = " ".join(para.astext().split())
        if len(text) < 20:
            continue
        if len(text) > DESCRIPTION_CHARS:
            text = text[:DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        return text
    return ""


def _meta(prop: str, content: str, attr: str = "property") -> str:
    return f'<meta {attr}="{prop}" content="{html.escape(content, quote=True)}" />\n'


def page_meta(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context``: the description, the link preview and, on the not-found page,
    links resolved from the site's root."""
    base = app.config.html_baseurl
    title = html.unescape(re.sub(r"<[^>]+>", "", context.get("title") or "")).strip()
    site = app.config.project
    tags = []
    text = description(doctree) if doctree is not None else ""
    if text:
        tags.append(_meta("description", text, "name"))
    tags.append(_meta("og:title", title or site))
    tags.append(_meta("og:type", "website"))
    tags.append(_meta("og:site_name", site))
    if text:
        tags.append(_meta("og:description", text))
    if base and context.get("pageurl") and pagename != NOT_FOUND:
        tags.append(_meta("og:url", context["pageurl"]))
    figures = _figures(app.env).get(pagename)
    if base and figures:
        tags.append(_meta("og:image", f"{base.rstrip('/')}/{FIGURES}/{figures[0][0]}"))
        tags.append(_meta("og:image:type", "image/svg+xml"))
    tags.append(_meta("twitter:card", "summary", "name"))
    if pagename == NOT_FOUND:
        tags.append('<meta name="robots" content="noindex" />\n')
        if base:   # shown at any address: its relative links are the root's
            tags.append(f'<base href="{html.escape(base.rstrip("/") + "/", quote=True)}" />\n')
    context["metatags"] = context.get("metatags", "") + "".join(tags)


def sitemap(base: str, pages: list[str]) -> str:
    """``sitemap.xml`` of ``pages`` (each a path from the site's root) at ``base``.

    >>> print(sitemap("https://x.org/h/", ["index.html", "topics/a b.html"]), end="")
    <?xml version="1.0" encoding="UTF-8"?>
    <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>https://x.org/h/index.html</loc></url>
      <url><loc>https://x.org/h/topics/a%20b.html</loc></url>
    </urlset>
    """
    from urllib.parse import quote
    root = base.rstrip("/") + "/"
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    lines += [f"  <url><loc>{html.escape(root + quote(p))}</loc></url>" for p in pages]
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def write_files(app, exception) -> None:
    """``build-finished``: the diagrams' files (and no stale one), the sitemap and robots.txt."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    wanted = {name: full_size(markup) for docname in sorted(_figures(app.env))
              for name, markup in _figures(app.env)[docname]}
    folder = out / FIGURES
    for name, text in sorted(wanted.items()):
        _write(folder / name, text)
    for stale in sorted(folder.glob("*.svg")) if folder.is_dir() else []:
        if stale.name not in wanted:
            stale.unlink()
    base = app.config.html_baseurl
    for name in ("sitemap.xml", "robots.txt"):
        if not base:
            (out / name).unlink(missing_ok=True)
    if base:
        skip = {NOT_FOUND, "search", "genindex"}
        pages = [f"{d}.html" for d in sorted(app.env.found_docs) if d not in skip]
        _write(out / "sitemap.xml", sitemap(base, pages))
        _write(out / "robots.txt", f"User-agent: *\nAllow: /\nSitemap: {base.rstrip('/')}/sitemap.xml\n")


def setup(app) -> None:
    app.connect("doctree-read", collect_figures)
    app.connect("env-purge-doc", purge_figures)
    app.connect("env-merge-info", merge_figures)
    app.connect("html-page-context", page_meta)
    app.connect("build-finished", write_files)
