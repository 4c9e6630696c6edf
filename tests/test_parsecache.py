"""The on-disk parse cache: a new process re-reads only the files whose bytes changed,
and what it reads from the cache is exactly what parsing would have given."""
from __future__ import annotations

from pathlib import Path


from harmony import loader, parsecache
from harmony.check import check_path

ROOT = Path(__file__).resolve().parent.parent


def _parses(monkeypatch) -> list[str]:
    parsed: list[str] = []
    real = loader.read_bytes

    def counting(path, data, size=None, **kw):
        parsed.append(Path(path).name)
        return real(path, data, size, **kw)
    monkeypatch.setattr(loader, "read_bytes", counting)
    return parsed


def test_a_new_process_parses_only_the_changed_file(harmony_cache, rules_copy, new_process, monkeypatch):
    rules = rules_copy
    parsed = _parses(monkeypatch)
    _, first = check_path(rules)
    count = len(list(rules.rglob("*.yaml")))
    assert len(parsed) == count and len(list((harmony_cache / "parsed").rglob("*.pickle"))) == count
    new_process()
    parsed.clear()
    _, again = check_path(rules)
    assert parsed == []
    assert again.to_text() == first.to_text()
    spotting = rules / "spotting.yaml"
    spotting.write_text(spotting.read_text("utf-8").replace(
        "cannot be fired on", "cannot be fired on at all", 1), "utf-8")
    new_process()
    _, edited = check_path(rules)
    assert parsed == ["spotting.yaml"]
    assert not edited.errors


def test_bad_input_reads_the_same_from_the_cache(harmony_cache, rules_copy, new_process, monkeypatch):
    rules = rules_copy
    (rules / "broken.yaml").write_text("clauses:\n  - id: x\n    title: Spotting: who\n", "utf-8")
    _, first = check_path(rules)
    assert any(d.code == "yaml-syntax" for d in first.errors)
    parsed = _parses(monkeypatch)
    new_process()
    _, again = check_path(rules)
    assert parsed == [] and again.to_text() == first.to_text()
    assert [str(d) for d in again.diagnostics] == [str(d) for d in first.diagnostics]


def test_a_broken_entry_is_a_miss(harmony_cache, tmp_path, new_process, monkeypatch):
    f = tmp_path / "one.yaml"
    f.write_text("sources:\n  - {key: PB, title: PanzerBlitz, kind: canonical}\n", "utf-8")
    doc, _, _ = loader.read_checked(f)
    entries = list(harmony_cache.rglob("*.pickle"))
    assert len(entries) == 1
    entries[0].write_bytes(b"not a pickle")
    new_process()
    parsed = _parses(monkeypatch)
    again, _, _ = loader.read_checked(f)
    assert parsed == ["one.yaml"] and again.pos("sources", 0, "key") == doc.pos("sources", 0, "key")


def test_off_writes_nothing(tmp_path, new_process, monkeypatch):
    monkeypatch.setenv("HARMONY_CACHE", "off")
    new_process()
    f = tmp_path / "one.yaml"
    f.write_text("sources: []\n", "utf-8")
    loader.read_checked(f)
    assert parsecache.folder() is None and list(tmp_path.iterdir()) == [f]


def test_prune_keeps_the_newest(harmony_cache):
    for i in range(5):
        parsecache.put(parsecache.key(f"f{i}.yaml", b"x"), i)
    assert parsecache.prune(limit=2) == 3
    assert len(list(harmony_cache.rglob("*.pickle"))) == 2
