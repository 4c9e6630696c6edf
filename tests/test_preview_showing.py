"""A preview makes, reads and writes first the changed pages that are open in a browser; the
full build after it makes the rest (harmony.site.build._sources and
harmony.site.generate.makers: the sources made; harmony.site.sphinxapp.showing_first: what
Sphinx reads and writes; harmony serve's PreviewServer.open_pages)."""
from __future__ import annotations

import filecmp

import pytest

from harmony.loader import load
from harmony.site import build as build_module, generate, sphinxapp
from harmony.site.build import build_site, cache_dir
from conftest import RULES
from test_site_incremental import site_files


@pytest.fixture
def starter(starter_rules, tmp_path, monkeypatch):
    """A harmony made by `harmony init` and its site, built once (Sphinx's application kept)."""
    monkeypatch.setenv("HARMONY_PYODIDE", "")
    out = tmp_path / "out"
    build_site(starter_rules, out, keep=True)
    yield starter_rules, out
    sphinxapp.forget(cache_dir(out))


def _edit_two_pages(rules) -> None:
    """One word in a clause's text (its topic's page) and one in a glossary entry."""
    for name, old, new in (("spotting.yaml", "may be fired on only while", "may be zorped only while"),
                           ("glossary.yaml", "hides the units in it", "hides the zorblaxed units in it")):
        path = rules / name
        text = path.read_text("utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), "utf-8")


@pytest.fixture
def every_page_made(monkeypatch):
    """Every page's source made anew in a preview, as when no page is open (so that what
    Sphinx is asked to read and write is the showing_first's doing alone)."""
    made = build_module._sources

    def every(model, src, site_dir, extras, trust, preview, showing):
        files, left, _first = made(model, src, site_dir, extras, trust, preview, ())
        return files, left, False

    monkeypatch.setattr(build_module, "_sources", every)


def _staged(out, name: str) -> str:
    return (cache_dir(out) / "src" / name).read_text("utf-8")


def _same_as_fresh(out, tmp_path, rules) -> list[str]:
    fresh = build_site(rules, tmp_path / "fresh")
    fa, fb = site_files(out), site_files(fresh.out)
    assert fa.keys() == fb.keys()
    return [rel for rel in fa if not filecmp.cmp(fa[rel], fb[rel], shallow=False)]


@pytest.mark.parametrize("same_process", [True, False])
def test_a_preview_reads_the_open_page_and_the_full_build_the_rest(starter, tmp_path, same_process,
                                                                   every_page_made):
    rules, out = starter
    topic = (out / "topics" / "spotting.html").read_bytes()
    _edit_two_pages(rules)
    preview = build_site(rules, out, preview=True, keep=True, showing={"glossary", "index"})
    assert preview.read == ["glossary"]                     # index is open, but did not change
    assert "topics/spotting" in preview.left and "glossary" not in preview.left
    assert "glossary" in preview.written and set(preview.written) <= {"glossary", "index"}
    assert "zorblaxed" in (out / "glossary.html").read_text("utf-8")
    assert (out / "topics" / "spotting.html").read_bytes() == topic   # left as it was, for now
    if not same_process:
        sphinxapp.forget(cache_dir(out))
    full = build_site(rules, out, keep=same_process)
    assert set(preview.left) <= set(full.read) and full.left == []   # (and the glossary, for search)
    assert "zorped" in (out / "topics" / "spotting.html").read_text("utf-8")
    assert _same_as_fresh(out, tmp_path, rules) == []


@pytest.mark.parametrize("same_process", [True, False])
def test_a_preview_writes_only_the_open_page_and_the_full_build_every_page_it_left(starter, tmp_path,
                                                                                  same_process,
                                                                                  every_page_made):
    """Sphinx would also write the pages whose sources changed but were not read, the pages
    listing the one read, the front page, the index of terms and the search page: all left
    to the full build, in this process or a new one (the sources' times say so on disk)."""
    rules, out = starter
    _edit_two_pages(rules)
    before = {name: (out / name).read_bytes() for name in ("index.html", "genindex.html", "search.html",
                                                           "glossary.html")}
    preview = build_site(rules, out, preview=True, keep=True, showing={"topics/spotting"})
    assert preview.read == preview.written == ["topics/spotting"]
    assert "zorped" in (out / "topics" / "spotting.html").read_text("utf-8")
    assert {"glossary", "index"} <= set(preview.left) and preview.left == sorted(set(preview.left))
    assert {name: (out / name).read_bytes() for name in before} == before
    if not same_process:
        sphinxapp.forget(cache_dir(out))
    full = build_site(rules, out, keep=same_process)
    assert set(preview.left) <= set(full.read) & set(full.written)
    assert {"genindex", "search"} <= set(full.written) and full.left == []
    assert _same_as_fresh(out, tmp_path, rules) == []


def test_with_no_page_open_a_preview_reads_every_changed_page(starter):
    rules, out = starter
    _edit_two_pages(rules)
    preview = build_site(rules, out, preview=True, keep=True)
    assert {"glossary", "topics/spotting"} <= set(preview.read) and preview.left == []


def test_a_page_open_that_the_edit_left_alone_reads_nothing_now_and_all_later(starter, tmp_path,
                                                                                every_page_made):
    """Two previews in a row, neither showing a changed page: nothing is read; what both
    left is read by the full build."""
    rules, out = starter
    _edit_two_pages(rules)
    first = build_site(rules, out, preview=True, keep=True, showing={"sources"})
    again = build_site(rules, out, preview=True, keep=True, showing={"sources"})
    assert first.read == again.read == [] and {"glossary", "topics/spotting"} <= set(first.left)
    assert set(again.left) == set(first.left)
    full = build_site(rules, out, keep=True)
    assert set(first.left) <= set(full.read)
    assert _same_as_fresh(out, tmp_path, rules) == []


def test_a_page_new_to_the_site_is_read_with_every_changed_page(starter, tmp_path):
    """A new topic's page, and so every changed page (the index that lists it among them:
    Sphinx would find the new page in no table of contents), is read though another is open."""
    rules, out = starter
    (rules / "movement.yaml").write_text(
        "topics:\n  - id: movement\n    title: Movement\n    summary: How far a unit moves.\n"
        "    order: 20\n    sources: [HA, HB]\n    aspects:\n      - id: allowance\n        title: How far\n",
        "utf-8")
    preview = build_site(rules, out, preview=True, keep=True, showing={"glossary"})
    assert {"topics/movement", "topics/index"} <= set(preview.read) and preview.left == []
    assert {"topics/movement", "topics/index", "glossary"} <= set(preview.written)
    assert preview.warnings == []
    assert (out / "topics" / "movement.html").is_file()
    build_site(rules, out, keep=True)
    assert _same_as_fresh(out, tmp_path, rules) == []


@pytest.mark.parametrize("same_process", [True, False])
def test_a_preview_makes_only_the_open_pages_sources_and_the_full_build_every_one(starter, tmp_path,
                                                                                  same_process):
    """The other pages' sources stay as the last build staged them (not a byte, not a time
    changed), so Sphinx reads and writes the open page alone; the full build makes every
    source anew, and reads and writes those that changed."""
    rules, out = starter
    src = cache_dir(out) / "src"
    times = {p: p.stat().st_mtime_ns for p in src.rglob("*") if p.is_file()}
    _edit_two_pages(rules)
    preview = build_site(rules, out, preview=True, keep=True, showing={"topics/spotting"})
    assert preview.first and preview.read == preview.written == ["topics/spotting"] and preview.left == []
    assert "zorped" in _staged(out, "topics/spotting.rst")
    assert "zorblaxed" not in _staged(out, "glossary.rst")
    assert {p: p.stat().st_mtime_ns for p in src.rglob("*") if p.is_file() and p.name != "spotting.rst"} == \
        {p: t for p, t in times.items() if p.name != "spotting.rst"}
    if not same_process:
        sphinxapp.forget(cache_dir(out))
    full = build_site(rules, out, keep=same_process)
    assert not full.first and {"glossary", "topics/spotting"} <= set(full.read)
    assert "zorblaxed" in (out / "glossary.html").read_text("utf-8")
    assert _same_as_fresh(out, tmp_path, rules) == []


def test_with_a_page_new_to_the_site_a_preview_makes_every_source(starter):
    rules, out = starter
    (rules / "movement.yaml").write_text(
        "topics:\n  - id: movement\n    title: Movement\n    summary: How far a unit moves.\n"
        "    order: 20\n    sources: [HA, HB]\n    aspects:\n      - id: allowance\n        title: How far\n",
        "utf-8")
    _edit_two_pages(rules)
    preview = build_site(rules, out, preview=True, keep=True, showing={"glossary"})
    assert not preview.first and "zorped" in _staged(out, "topics/spotting.rst")


@pytest.mark.parametrize("rules", ["shipped", "starter"])
def test_each_page_made_alone_is_the_page_made_with_all_the_others(rules, starter_rules):
    """A preview makes the open pages alone (generate.makers); each reads as pages() makes it."""
    model, _ = load(RULES if rules == "shipped" else starter_rules)
    every = generate.pages(model)
    assert set(generate.makers(model)) == set(every)
    for name, text in every.items():
        assert generate.makers(model)[name]() == text, name


def test_the_revisions_index_names_the_rulebooks_they_build_on(shipped_model):
    """(The context every page but a page of one thing is made with: its rulebooks revised.)"""
    made = generate.makers(shipped_model)
    bases = {shipped_model.sources[k].base for k in shipped_model.sources if shipped_model.sources[k].base}
    titles = ", ".join(sorted(shipped_model.sources[b].title for b in bases))
    assert f"The rulebooks that build on {titles}, each in its own order." in made["revisions/index.rst"]()
