"""A preview build leaves the search index to the full build after it (harmony.site.searchlater)."""
from __future__ import annotations

import filecmp

import pytest

from harmony.site import searchlater, sphinxapp
from harmony.site.build import build_site, cache_dir
from test_site_incremental import site_files

WORD = "quuxwordy"          # a word no page holds: the stemmer keeps "quuxwordi"


@pytest.fixture
def starter(starter_rules, tmp_path, monkeypatch):
    """A harmony made by `harmony init` and its site, built once (Sphinx's application kept):
    the rules folder and the site folder."""
    monkeypatch.setenv("HARMONY_PYODIDE", "")
    rules = starter_rules
    out = tmp_path / "out"
    build_site(rules, out, keep=True)
    yield rules, out
    sphinxapp.forget(cache_dir(out))


def _edit(rules, word: str) -> None:
    spotting = rules / "spotting.yaml"
    text = spotting.read_text("utf-8")
    assert "may be fired on only while" in text
    spotting.write_text(text.replace("may be fired on only while", f"may be {word} only while", 1), "utf-8")


def _index(out) -> str:
    return (out / "searchindex.js").read_text("utf-8")


@pytest.mark.parametrize("same_process", [True, False])
def test_a_preview_indexes_nothing_and_the_next_full_build_indexes_what_it_wrote(starter, tmp_path, same_process):
    """The preview writes the edited page but neither the index nor its words; it notes the
    pages it wrote. The full build after it (with the application the preview kept, or with
    none kept, as `harmony build` after a stopped `harmony serve` starts) indexes them, forgets
    the note, and makes the site a fresh build makes, byte for byte."""
    rules, out = starter
    cache = cache_dir(out)
    index = _index(out)
    assert "quuxword" not in index and searchlater.pending(cache) == []
    _edit(rules, WORD)
    preview = build_site(rules, out, preview=True, keep=True)
    assert "topics/spotting" in preview.written
    assert WORD in (out / "topics" / "spotting.html").read_text("utf-8")
    assert _index(out) == index                            # the index is the last full build's
    assert "topics/spotting" in searchlater.pending(cache)
    assert set(searchlater.pending(cache)) <= set(preview.written)
    if not same_process:
        sphinxapp.forget(cache)
    full = build_site(rules, out, keep=same_process)
    assert "topics/spotting" in full.read                  # read again, so indexed
    assert "quuxwordi" in _index(out)
    assert searchlater.pending(cache) == [] and not (cache / searchlater.PENDING).exists()
    fresh = build_site(rules, tmp_path / "fresh")
    fa, fb = site_files(out), site_files(fresh.out)
    assert fa.keys() == fb.keys()
    assert [rel for rel in fa if not filecmp.cmp(fa[rel], fb[rel], shallow=False)] == []


def test_the_notes_of_two_previews_add_up(starter):
    """Two previews that write different pages (a clause's topic, the glossary): the note
    holds the pages of both, and the full build reads both again."""
    rules, out = starter
    cache = cache_dir(out)
    _edit(rules, WORD)
    first = build_site(rules, out, preview=True, keep=True)
    glossary = rules / "glossary.yaml"
    text = glossary.read_text("utf-8")
    assert "hides the units in it" in text
    glossary.write_text(text.replace("hides the units in it", "hides the zorblaxed units in it"), "utf-8")
    second = build_site(rules, out, preview=True, keep=True)
    assert "glossary" in second.written and "glossary" not in first.written
    noted = set(searchlater.pending(cache))
    assert {"topics/spotting", "glossary"} <= noted
    searchlater.note(cache, {"topics/gone"})      # a page previewed, then removed before the full build
    full = build_site(rules, out, keep=True)
    assert "topics/gone" not in full.read
    assert noted <= set(full.read)
    assert "zorblax" in _index(out) and "quuxwordi" in _index(out)
    assert searchlater.pending(cache) == []
