"""A text-only edit shown ahead of its rebuild (harmony.site.textedit): which edits are the
words of cells alone, and the cell written as the rebuilt page writes it."""
from __future__ import annotations

import json
import shutil

import pytest

from harmony.site import generate, sphinxapp, textedit
from harmony.site.build import build_site, cache_dir, checked_rules
from conftest import RULES, OpenPages


def _edited(rules, name: str, old: str, new: str, clean: bool = True):
    """The rules read and checked with the first ``old`` of file ``name`` made ``new`` (the
    file is put back); ``clean``: they must check without an error."""
    path = rules / name
    text = path.read_text("utf-8")
    assert old in text, old
    try:
        path.write_text(text.replace(old, new, 1), "utf-8")
        model, report = checked_rules(rules)
    finally:
        path.write_text(text, "utf-8")
    assert not clean or not report.errors, [str(d) for d in report.errors]
    return model


@pytest.fixture(scope="module")
def shipped_kept(tmp_path_factory):
    """The shipped rules built once in this process (no PDF, no explorer), Sphinx's
    application kept."""
    mp = pytest.MonkeyPatch()
    mp.setenv("HARMONY_PYODIDE", "")
    tmp = tmp_path_factory.mktemp("textedit")
    rules, out = tmp / "rules", tmp / "out"
    shutil.copytree(RULES, rules)
    built = build_site(rules, out, keep=True, preview=True)
    yield rules, out, built.model
    sphinxapp.forget(cache_dir(out))
    mp.undo()


def test_every_cell_is_written_as_its_page_holds_it(shipped_kept):
    """For every cell of the shipped rules that a topic page shows, the ``<td>`` written
    here is in the built page, byte for byte: the patch is what the rebuild writes."""
    rules, out, model = shipped_kept
    seen = 0
    with sphinxapp.kept(cache_dir(out), generate.SITE, generate.conf_overrides(model)) as app:
        assert app is not None
        for clause in model.clauses.values():
            page = (out / textedit.page_of(clause)).read_text("utf-8")
            for key in model.topics[clause.topic].sources:
                html = textedit.cell_html(app, model, clause, key)
                assert html is not None and html in page, (clause.id, key)
                assert textedit.spliced(page.encode(), textedit.Patch("p", clause.id, html)) == page.encode()
                seen += 1
    assert seen > 150


@pytest.mark.parametrize("old, new, edited", [
    ("cannot be fired on by units that are not", "cannot be fired on by units not", [("spotting.rule", "PB")]),
    ("cannot be fired on by units that are not", "cannot be fired on by units that are not\n\n"
     "          in a second paragraph,", [("spotting.rule", "PB")]),
    ("Taken by its position alone", "Read by its place alone", [("spotting.rule", "PB")]),      # its note
])
def test_an_edit_of_a_cells_words_is_a_text_edit(shipped_kept, old, new, edited):
    rules, _out, model = shipped_kept
    edits = textedit.text_edits(model, _edited(rules, "spotting.yaml", old, new))
    assert [(c.id, key) for c, key in edits] == edited


def test_the_same_rules_read_again_are_no_edit(shipped_kept):
    rules, _out, model = shipped_kept
    assert textedit.text_edits(model, checked_rules(rules)[0]) == []


@pytest.mark.parametrize("name, old, new", [
    ("spotting.yaml", "params: {spot.open-terrain-los: true}", "params: {spot.open-terrain-los: false}"),
    ("spotting.yaml", "title: Units in cover must be spotted", "title: Units in cover are spotted first"),
    ("spotting.yaml", "status: rule", "status: optional"),
    ("spotting.yaml", "title: Units in woods and town", "title: Units in the woods and towns"),   # its card
    ("spotting.yaml", "cannot be fired on by units that are not", "cannot be fired on[^rev-1] by units not"),
    ("topics.yaml", "title: Spotting\n", "title: Spotting and seeing\n"),
    ("glossary.yaml", "definition: Terrain that hides", "definition: Terrain which hides"),
])
def test_an_edit_of_anything_but_the_words_of_cells_is_not(shipped_kept, name, old, new):
    rules, _out, model = shipped_kept
    assert textedit.text_edits(model, _edited(rules, name, old, new, clean=False)) is None


def test_the_patches_of_an_edit_name_the_page_and_cell_and_skip_a_cell_no_page_shows(shipped_kept):
    rules, out, model = shipped_kept
    edited = _edited(rules, "spotting.yaml", "cannot be fired on by units that are not",
                     "cannot be fired on (zorped) by units that are not")
    clause = edited.clauses["spotting.rule"]
    unshown = next(k for k in edited.sources if k not in edited.topics[clause.topic].sources)
    with sphinxapp.kept(cache_dir(out), generate.SITE, generate.conf_overrides(edited)) as app:
        found = textedit.patches(app, edited, [(clause, "PB"), (clause, unshown)])
        was = textedit.cell_html(app, model, model.clauses["spotting.rule"], "PB")
    assert [(p.page, p.id) for p in found] == [("topics/spotting.html", "spotting.rule@PB")]
    assert "(zorped)" in found[0].html and found[0].html.startswith("<td ")
    assert found[0].as_event() == {"id": "spotting.rule@PB", "html": found[0].html, "keep": ".hm-cell-head"}
    page = (out / "topics/spotting.html").read_bytes()
    shown = textedit.spliced(page, found[0])
    assert shown is not None and b"(zorped)" in shown and b"(zorped)" not in page
    assert was is not None and shown == page.replace(was.encode(), found[0].html.encode())


@pytest.mark.parametrize("open_pages, most, patched", [
    (("topics/spotting",), None, True),
    (("topics/spotting", "index"), None, True),
    (("index",), None, False),                  # the page is not open: nothing to swap into
    (("topics/spotting",), 100, False),         # more than a page's stream should hold: built instead
    (("topics/spotting",), "exactly", True),    # as much as it may hold
])
def test_serve_swaps_an_edited_cell_into_its_page_only_while_it_is_open_and_small(shipped_kept, monkeypatch, tmp_path,
                                                                                   open_pages, most, patched):
    from harmony.site import serve
    rules, out, model = shipped_kept
    link = tmp_path / "link"                     # serve --out given through a symbolic link
    link.symlink_to(out.parent, target_is_directory=True)
    editing = serve._Editing(rules, link / out.name, serve.BuildState(), None)
    editing.model, editing.server = model, OpenPages(*open_pages)
    edited = _edited(rules, "spotting.yaml", "cannot be fired on by units that are not",
                     "cannot be fired on (zorped) by units that are not")
    if most == "exactly":
        with sphinxapp.kept(cache_dir(out), generate.SITE, generate.conf_overrides(edited)) as app:
            [patch] = textedit.patches(app, edited, [(edited.clauses["spotting.rule"], "PB")])
        most = len(json.dumps(patch.as_event()))
    if most is not None:
        monkeypatch.setattr(serve, "PATCH_MOST", most)
    editing.patch(edited)
    shown = editing.state.shown("topics/spotting.html")
    assert (shown is not None) == patched and editing.server.told == int(patched)
    if patched:
        assert b"(zorped)" in shown and shown != (out / "topics/spotting.html").read_bytes()
        told = editing.state.event("topics/spotting.html", 0)[1].decode()
        assert '"patches":[{"id":"spotting.rule@PB"' in told and "(zorped)" in told


def test_serve_shows_an_edit_ahead_only_when_the_rules_check_and_says_a_failure_in_one_line(shipped_kept,
                                                                                            monkeypatch):
    """``show_ahead`` reads and checks the rules once and hands them to the preview; it swaps
    the cell in only with a last good model, a server, and rules without an error; a failure
    of the swap itself is one line, and the preview still gets the rules."""
    import io

    from harmony.site import serve
    rules, out, model = shipped_kept
    err = io.StringIO()

    def editing(last=model, server=True):
        made = serve._Editing(rules, out, serve.BuildState(), None, err=err)
        made.model, made.server = last, OpenPages("topics/spotting") if server else None
        return made
    path = rules / "spotting.yaml"
    text = path.read_text("utf-8")
    edited = text.replace("cannot be fired on by units that are not",
                          "cannot be fired on (zorped) by units that are not")
    try:
        path.write_text(edited, "utf-8")
        shown = editing()
        checked = shown.show_ahead()
        assert checked is not None and not checked[1].errors
        assert "(zorped)" in checked[0].clauses["spotting.rule"].cells["PB"].text
        assert b"(zorped)" in shown.state.shown("topics/spotting.html")
        for quiet in (editing(last=None), editing(server=False)):
            assert quiet.show_ahead() is not None and quiet.state.shown("topics/spotting.html") is None
        assert err.getvalue() == ""

        path.write_text(edited.replace("status: rule", "status: rulez", 1), "utf-8")
        broken = editing()
        checked = broken.show_ahead()
        assert checked is not None and checked[1].errors and broken.state.shown("topics/spotting.html") is None

        def boom(old, new):
            raise RuntimeError("a bug")
        path.write_text(edited, "utf-8")
        monkeypatch.setattr(textedit, "text_edits", boom)
        assert editing().show_ahead() is not None
        assert err.getvalue() == "harmony serve: could not show the edit ahead of its rebuild: RuntimeError: a bug\n"
    finally:
        path.write_text(text, "utf-8")
