"""The on-disk parse cache: a new process re-reads only the files whose bytes changed,
and what it reads from the cache is exactly what parsing would have given."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harmony import loader, parsecache
from harmony.check import check_path

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("HARMONY_CACHE", str(folder))
    monkeypatch.setattr(loader, "_READ", type(loader._READ)())   # as a new process starts
    return folder


def _as_new_process(monkeypatch):
    monkeypatch.setattr(loader, "_READ", type(loader._READ)())


def _parses(monkeypatch) -> list[str]:
    parsed: list[str] = []
    real = loader.read_bytes

    def counting(path, data, size=None, **kw):
        parsed.append(Path(path).name)
        return real(path, data, size, **kw)
    monkeypatch.setattr(loader, "read_bytes", counting)
    return parsed


def test_a_new_process_parses_only_the_changed_file(cache, tmp_path, monkeypatch):
    rules = tmp_path / "rules_data"
    shutil.copytree(ROOT / "rules_data", rules)
    parsed = _parses(monkeypatch)
    _, first = check_path(rules)
    count = len(list(rules.rglob("*.yaml")))
    assert len(parsed) == count and len(list((cache / "parsed").rglob("*.pickle"))) == count
    _as_new_process(monkeypatch)
    parsed.clear()
    _, again = check_path(rules)
    assert parsed == []
    assert again.to_text() == first.to_text()
    spotting = rules / "spotting.yaml"
    spotting.write_text(spotting.read_text("utf-8").replace(
        "cannot be fired on", "cannot be fired on at all", 1), "utf-8")
    _as_new_process(monkeypatch)
    _, edited = check_path(rules)
    assert parsed == ["spotting.yaml"]
    assert not edited.errors


def test_bad_input_reads_the_same_from_the_cache(cache, tmp_path, monkeypatch):
    rules = tmp_path / "rules_data"
    shutil.copytree(ROOT / "rules_data", rules)
    (rules / "broken.yaml").write_text("clauses:\n  - id: x\n    title: Spotting: who\n", "utf-8")
    _, first = check_path(rules)
    assert any(d.code == "yaml-syntax" for d in first.errors)
    parsed = _parses(monkeypatch)
    _as_new_process(monkeypatch)
    _, again = check_path(rules)
    assert parsed == [] and again.to_text() == first.to_text()
    assert [str(d) for d in again.diagnostics] == [str(d) for d in first.diagnostics]


def test_a_broken_entry_is_a_miss(cache, tmp_path, monkeypatch):
    f = tmp_path / "one.yaml"
    f.write_text("sources:\n  - {key: PB, title: PanzerBlitz, kind: canonical}\n", "utf-8")
    doc, _, _ = loader.read_checked(f)
    entries = list(cache.rglob("*.pickle"))
    assert len(entries) == 1
    entries[0].write_bytes(b"not a pickle")
    _as_new_process(monkeypatch)
    parsed = _parses(monkeypatch)
    again, _, _ = loader.read_checked(f)
    assert parsed == ["one.yaml"] and again.pos("sources", 0, "key") == doc.pos("sources", 0, "key")


def test_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("HARMONY_CACHE", "off")
    _as_new_process(monkeypatch)
    f = tmp_path / "one.yaml"
    f.write_text("sources: []\n", "utf-8")
    loader.read_checked(f)
    assert parsecache.folder() is None and list(tmp_path.iterdir()) == [f]


def test_prune_keeps_the_newest(cache):
    for i in range(5):
        parsecache.put(parsecache.key(f"f{i}.yaml", b"x"), i)
    assert parsecache.prune(limit=2) == 3
    assert len(list(cache.rglob("*.pickle"))) == 2
