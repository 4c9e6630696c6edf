"""The theme's sidebar made once a build (:mod:`harmony.site.sidebar`) is, on every page,
the one Furo makes for that page itself: checked page by page against Furo's own, on a
small Sphinx project that has every shape a table of contents takes, and on a harmony
made by ``harmony init``."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from harmony.site import generate, sidebar
from harmony.site.build import build_site

#: a Sphinx extension that, after every other listener, compares the sidebar of each page
#: with the one Furo makes for that page from Sphinx's own table of contents
CHECKER = '''
from furo.navigation import get_navigation_tree
from harmony.site.sidebar import FURO_ASKS

SEEN = []

def check(app, pagename, templatename, context, doctree):
    if "furo_navigation_tree" in context:
        own = get_navigation_tree(app.builder._get_local_toctree(pagename, **FURO_ASKS))
        SEEN.append((pagename, context["furo_navigation_tree"] == own, "current" in own))

def setup(app):
    app.connect("html-page-context", check, priority=900)
    return {"parallel_read_safe": True}
'''

PAGES = {
    "index": """\
        Front
        =====

        .. toctree::
           :caption: Parts

           part/one
           part/two
           https://example.org/elsewhere

        .. toctree::
           :hidden:

           part/deep/three
           also
        """,
    "part/one": """\
        One & only
        ==========

        .. toctree::

           deep/three
           deep/four
        """,
    "part/two": """\
        Two
        ===

        .. toctree::

           ../also
        """,
    "part/deep/three": "Three\n=====\n\nSection\n-------\n\ntext\n",
    "part/deep/four": "Four\n====\n\n.. toctree::\n\n   five\n",
    "part/deep/five": "Five\n====\n",
    "also": "Also, listed twice\n==================\n",
    "orphan": ":orphan:\n\nAlone\n=====\n",
}


def _checker(folder: Path) -> None:
    (folder / "sidebar_check.py").write_text(CHECKER, encoding="utf-8")


def _build_project(tmp_path: Path, monkeypatch, then=None) -> list[tuple[str, bool, bool]]:
    """Build the project; ``then(src, app, seen)``, if given, runs before the checker is
    forgotten (to edit and build again in the same application)."""
    import sys
    from sphinx.application import Sphinx
    src = tmp_path / "src"
    for name, text in PAGES.items():
        (src / f"{name}.rst").parent.mkdir(parents=True, exist_ok=True)
        (src / f"{name}.rst").write_text(textwrap.dedent(text), encoding="utf-8")
    _checker(src)
    (src / "conf.py").write_text(
        "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n"
        "extensions = ['harmony.site.sidebar', 'sidebar_check']\nhtml_theme = 'furo'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(src))
    try:
        import sidebar_check
        app = Sphinx(str(src), str(src), str(tmp_path / "out"), str(tmp_path / "doctrees"), "html",
                     status=None, warning=None, freshenv=True)
        app.build()
        if then is not None:
            then(src, app, sidebar_check.SEEN)
        return list(sidebar_check.SEEN)
    finally:
        sys.modules.pop("sidebar_check", None)


def _made_here(monkeypatch) -> list[str]:
    """The pages whose sidebar :func:`sidebar.for_page` made."""
    made: list[str] = []
    real = sidebar.for_page

    def counted(tree, uri, *rest):
        made.append(uri)
        return real(tree, uri, *rest)
    monkeypatch.setattr(sidebar, "for_page", counted)
    return made


def test_every_page_of_a_project_of_every_shape_has_furos_own_sidebar(tmp_path, monkeypatch):
    """Captions, a hidden table, three levels, folders two deep, a page listed twice, a link
    to another site, a title with an ampersand, a page in no table: each page's sidebar is
    Furo's own for it, and was made here (not by Furo)."""
    made = _made_here(monkeypatch)
    seen = _build_project(tmp_path, monkeypatch)
    pages = {name for name, _, _ in seen}
    assert {"index", "part/deep/five", "also", "orphan", "genindex", "search"} <= pages
    assert [name for name, same, _ in seen if not same] == []
    assert sum(current for _, _, current in seen) >= 6       # pages whose branch is marked
    # each page once, and two more on the first page: itself and the deepest, both checked
    assert len(made) == len(seen) + 2 and "part/deep/five.html" in made


def test_a_build_in_the_same_process_with_the_same_front_table_is_not_checked_again(tmp_path, monkeypatch):
    """``harmony serve``'s next preview: a page's text edited, the tables as they were, is
    not checked against Furo's again; a title edited changes the front page's table, and
    the next build is."""
    checks: list[str] = []
    real = sidebar._furo

    def counted(own, app, pagename):
        checks.append(pagename)
        return real(own, app, pagename)
    monkeypatch.setattr(sidebar, "_furo", counted)
    rounds: list[tuple[int, int, bool]] = []

    def edit_and_build(src, app, seen):
        for old, new in (("Section\n-------\n\ntext\n", "Section\n-------\n\nother text\n"),
                         ("Five\n====\n", "Five, retitled\n==============\n")):
            page = src / "part" / "deep" / ("three.rst" if "text" in old else "five.rst")
            page.write_text(page.read_text("utf-8").replace(old, new), encoding="utf-8")
            before, seen_before = len(checks), len(seen)
            app.build()
            rounds.append((len(checks) - before, len(seen) - seen_before,
                           all(same for _, same, _ in seen[seen_before:])))
    seen = _build_project(tmp_path, monkeypatch, edit_and_build)
    first = len(checks) - sum(r[0] for r in rounds)       # the first build's checks
    assert first == 2 and all(same for _, same, _ in seen)
    (text_checks, text_pages, text_same), (title_checks, title_pages, title_same) = rounds
    assert text_pages >= 1 and text_checks == 0 and text_same
    assert title_pages >= 1 and title_checks == 2 and title_same


def test_a_sidebar_made_wrong_is_found_on_the_first_page_and_furo_makes_every_page(tmp_path,
                                                                                   monkeypatch):
    """Should this module ever make a sidebar Furo would not (a new Furo or Sphinx), the
    first page's check finds it and Furo makes every page of the build."""
    made: list[str] = []

    def wrong(tree, uri, *rest):
        made.append(uri)
        return "<ul></ul>"
    monkeypatch.setattr(sidebar, "for_page", wrong)
    seen = _build_project(tmp_path, monkeypatch)
    assert len(seen) > 8 and all(same for _, same, _ in seen)
    assert len(made) == 1       # the first page's check, and no more


@pytest.mark.parametrize("harmony", ["shipped", "made by harmony init"])
def test_every_page_of_a_harmony_site_has_furos_own_sidebar(tmp_path, monkeypatch, request, harmony):
    """The site as ``harmony build`` makes it (its page template, its generated pages), of
    the shipped rules and of a harmony of one's own."""
    from harmony.usage import default_rules_data
    rules = default_rules_data() if harmony == "shipped" else request.getfixturevalue("starter_rules")
    site = tmp_path / "site"
    shutil.copytree(generate.SITE, site)
    _checker(site)
    conf = site / "conf.py"
    conf.write_text(conf.read_text("utf-8") + "\nimport sys as _sys, os as _os\n"
                    "_sys.path.insert(0, _os.path.dirname(__file__))\nextensions.append('sidebar_check')\n",
                    encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("HARMONY_PYODIDE", "")
    made = _made_here(monkeypatch)
    try:
        import sidebar_check
        build_site(rules, tmp_path / "out", site_dir=site)
        seen = list(sidebar_check.SEEN)
    finally:
        import sys
        sys.modules.pop("sidebar_check", None)
    assert len(seen) > 10 and [name for name, same, _ in seen if not same] == []
    assert sum(current for _, _, current in seen) > 5
    assert len(made) == len(seen) + 2


def test_only_furos_first_question_of_a_page_gets_the_front_pages_table():
    """The page's own table answers every other question, and Furo's asked again; a theme
    other than Furo, or another builder, is left alone."""
    from types import SimpleNamespace
    asked: list[dict] = []

    def own(**kwargs):
        asked.append(kwargs)
        return "own"

    def app(theme="furo", builder="html"):
        return SimpleNamespace(builder=SimpleNamespace(name=builder, _get_local_toctree=lambda doc, **kw: f"{doc}'s"),
                               config=SimpleNamespace(html_theme=theme, root_doc="index"))
    context = {"toctree": own}
    sidebar._Sidebar().before(app(), "a/b", "page.html", context, None)
    ask = context["toctree"]
    assert ask(maxdepth=2) == "own"
    assert ask(**sidebar.FURO_ASKS) == "index's"
    assert ask(**sidebar.FURO_ASKS) == "own"
    assert asked == [{"maxdepth": 2}, sidebar.FURO_ASKS]
    for other in (app(theme="alabaster"), app(builder="epub")):
        context = {"toctree": own}
        sidebar._Sidebar().before(other, "a/b", "page.html", context, None)
        assert context == {"toctree": own}
