"""harmony.htmlcache: tinyhtml5 reads a rulebook's HTML to the same tree with the cache
filed as it should be: each expression under the characters it was asked for, where
tinyhtml5's own files it under the expression, where no lookup finds it."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from harmony import htmlcache
from harmony.rulebook import render
from harmony.rulebook.collect import collect

inputstream = pytest.importorskip("tinyhtml5.inputstream")
tinyhtml5 = pytest.importorskip("tinyhtml5")


def test_a_rulebook_parses_to_the_same_tree_and_the_cache_stays_small(shipped_model, monkeypatch):
    book = collect(shipped_model, "REV")
    html = render.render_html(shipped_model, book)
    monkeypatch.setattr(inputstream, "characters_until_regex", {})   # tinyhtml5's own
    plain = ET.tostring(tinyhtml5.parse(html))
    misfiled = list(inputstream.characters_until_regex)   # under the expressions: never found
    monkeypatch.setattr(inputstream, "characters_until_regex", {})
    assert htmlcache.install() is True
    kept = inputstream.characters_until_regex
    assert ET.tostring(tinyhtml5.parse(html)) == plain
    assert misfiled and all(hasattr(key[0], "pattern") for key in misfiled)
    assert isinstance(kept, htmlcache._Expressions) and len(kept) == len(misfiled)
    assert all(not hasattr(key[0], "pattern") for key in kept)   # filed under what was asked


def test_install_does_nothing_where_the_cache_is_not_a_dict(monkeypatch):
    monkeypatch.setattr(inputstream, "characters_until_regex", None)
    assert htmlcache.install() is False and inputstream.characters_until_regex is None
