"""The formats for a pull request: ``check --format github`` and ``diff --format markdown``,
their exact output on the small harmony ``harmony init`` writes."""
from __future__ import annotations

from pathlib import Path

import pytest

from harmony.cli import main
from harmony.init import create


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """A working folder holding ``old``, a harmony as init writes it (paths shown relative)."""
    monkeypatch.chdir(tmp_path)
    create(tmp_path / "old")
    return tmp_path


def copy(src: Path, dest: Path, *edits: tuple[str, str]) -> Path:
    import shutil
    shutil.copytree(src, dest)
    text = (dest / "spotting.yaml").read_text("utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    (dest / "spotting.yaml").write_text(text, "utf-8")
    return dest


def test_check_format_github_writes_one_annotation_a_problem(here, capsys):
    copy(here / "old", here / "broken",
         ("cite: {source: HA, section: Spotting}", "cite: {source: HA}"),
         ("A unit in [[woods]] may be fired on only", "A unit in [[forest]] may be fired on only"))
    assert main(["check", "broken", "--format", "github"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == [
        "::error file=broken/spotting.yaml,line=11,col=25::text links glossary term 'forest', "
        "which the glossary does not define: add it to the glossary (or as an alias of a term) "
        "or fix the link [unresolved-term]",
        "::warning file=broken/spotting.yaml,line=13,col=15::citation names no place in the "
        "document (section, figure, footnote, table or page) [citation-vague]"]
    assert out.splitlines()[2].startswith("1 error, 1 warning in ")
    assert len(out.splitlines()) == 3
    # the same positions as the text format
    assert main(["check", "broken"]) == 1
    text = capsys.readouterr().err.splitlines()
    assert text[0].startswith("broken/spotting.yaml:11:25: error: ")
    assert text[1].startswith("broken/spotting.yaml:13:15: warning: ")


def test_check_format_github_of_clean_rules_is_the_summary_alone(here, capsys):
    assert main(["check", "old", "--format", "github"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("0 errors, 0 warnings in ") and "::" not in out


def test_diff_format_markdown_is_a_summary_of_rulings_and_clauses(here, capsys):
    copy(here / "old", here / "new",
         ("params: {spot.adjacent: true, spot.dispersed-may-spot: true}",
          "params: {spot.adjacent: true, spot.dispersed-may-spot: false}"),
         ("it, dispersed or not.", "it, if it is not dispersed."))
    assert main(["diff", "old", "new", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == """\
## harmony diff `old` → `new`

### Rulings: 1 changed

| Scenario | Step | Ruleset | Question | Before | After | Decided by |
|---|---|---|---|---|---|---|
| `dispersed-spotter` | 1 | HB | May the Allied gun fire on the tank in the woods? | `true` | \
**`false`** | spotting.spotters |

### Clauses: 0 added, 0 removed, 1 changed

- changed `spotting.spotters`
  - HB parameter `spot.dispersed-may-spot`: `true` → `false`
  - HB text: A unit in \\[\\[woods\\]\\] may be fired on while any enemy unit stands next to it, \
~~dispersed or not.~~ **if it is not dispersed.**
"""


def test_diff_format_markdown_escapes_the_rules_text_and_says_no_change(here, capsys):
    copy(here / "old", here / "new", ("title: Dispersed units as spotters",
                                      "title: Dispersed | units *as* spotters"))
    assert main(["diff", "old", "new", "--format", "markdown", "--no-rulings"]) == 0
    out = capsys.readouterr().out
    assert "  - title: Dispersed **\\|** units ~~as~~ **\\*as\\*** spotters\n" in out
    assert "### Rulings" not in out
    assert main(["diff", "old", "old", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == "## harmony diff `old` → `old`\n\nNo change to the rules.\n"
