"""Pages that come and go: an incremental build after a page is added or removed is a clean
build's bytes (harmony.site.navigation)."""
from __future__ import annotations

import filecmp

from harmony.site.build import build_site
from test_site_incremental import site_files


def test_a_page_added_or_removed_gives_every_page_its_new_navigation(starter_rules, tmp_path, monkeypatch):
    """Every page's sidebar lists every page, and each links its neighbours: a new topic,
    then the same topic removed, and each incremental build is a clean build's bytes
    (harmony.site.navigation)."""
    monkeypatch.setenv("HARMONY_PYODIDE", "")
    rules, out = starter_rules, tmp_path / "out"
    build_site(rules, out)
    topic = rules / "movement.yaml"
    topic.write_text("topics:\n  - id: movement\n    title: Movement\n    summary: How far a unit moves.\n"
                     "    order: 20\n    sources: [HA, HB]\n    aspects:\n      - id: allowance\n"
                     "        title: How far\n", "utf-8")
    for step in ("added", "removed"):
        built = build_site(rules, out)
        assert "glossary" in built.written and "glossary" not in built.read, step   # not read: written
        fresh = build_site(rules, tmp_path / step)
        fa, fb = site_files(out), site_files(fresh.out)
        assert fa.keys() == fb.keys(), step
        assert [rel for rel in fa if not filecmp.cmp(fa[rel], fb[rel], shallow=False)] == [], step
        if step == "added":
            topic.unlink()
    unchanged = build_site(rules, out)
    assert "glossary" not in unchanged.written       # nothing came or went: not written again
