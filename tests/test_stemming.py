"""The search index's stems remembered across pages (:mod:`harmony.site.stemming`): the
same index, byte for byte, with each word stemmed once a build."""
from __future__ import annotations

from pathlib import Path

from sphinx.search import en, languages

PAGES = {
    "index": "Front\n=====\n\n.. toctree::\n\n   one\n   two\n\nSpotting units spotted in woods.\n",
    "one": "One\n===\n\nA spotted unit fires; spotting is done in the spotting phase.\n",
    "two": "Two\n===\n\nUnits in woods are spotted by adjacent units.\n",
}


def _build(tmp_path: Path, name: str, extensions: list[str], monkeypatch) -> tuple[bytes, list[str]]:
    from sphinx.application import Sphinx
    asked: list[str] = []
    real = en.SearchEnglish.stem

    def counted(self, word):
        asked.append(word)
        return real(self, word)
    monkeypatch.setattr(en.SearchEnglish, "stem", counted)
    src = tmp_path / name
    src.mkdir()
    for page, text in PAGES.items():
        (src / f"{page}.rst").write_text(text, encoding="utf-8")
    (src / "conf.py").write_text(f"extensions = {extensions!r}\n", encoding="utf-8")
    app = Sphinx(str(src), str(src), str(src / "_out"), str(src / "_doctrees"), "html",
                 status=None, warning=None, freshenv=True)
    app.build()
    return (src / "_out" / "searchindex.js").read_bytes(), asked


def test_the_search_index_is_sphinxs_own_with_each_word_stemmed_once(tmp_path, monkeypatch):
    monkeypatch.setitem(languages, "en", en.SearchEnglish)      # Sphinx as it comes
    plain, asked_plain = _build(tmp_path, "plain", [], monkeypatch)
    ours, asked_ours = _build(tmp_path, "ours", ["harmony.site.stemming"], monkeypatch)
    assert ours == plain and b"spot" in ours
    assert len(asked_ours) == len(set(asked_ours)) < len(asked_plain)
    assert set(asked_ours) == set(asked_plain)
