"""Bad input never crashes: random edits of the shipped files, checked and formatted.

Each example takes one shipped rules_data file, damages it the way a hurried
editor might (a character deleted, inserted or doubled, a line dropped, moved
or re-indented, a tab, a stray quote or bracket), and runs ``harmony check``
on a folder holding it beside the other shipped files, and ``harmony fmt``
on it.
Whatever the damage: no exception escapes, every problem has a position
inside the damaged file's text, and ``fmt`` leaves any file it refuses byte
for byte as it was.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harmony.check import check_path
from harmony.fmt import fmt_path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"
FILES = sorted(p.relative_to(RULES).as_posix() for p in RULES.rglob("*.yaml"))
NOISE = list("\t '\"[]{}:,-#&*!|>%@`\n") + ["\u00e9", "\ufeff", "---", "- ", ": ", "  "]

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@st.composite
def damage(draw, text: str) -> str:
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "insert", "double", "drop-line", "move-line",
                                     "indent", "dedent"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        line = lines[i] if lines else ""
        j = draw(st.integers(0, len(line)))
        if kind == "delete" and line:
            lines[i] = line[:j] + line[j + 1:]
        elif kind == "insert":
            lines[i] = line[:j] + draw(st.sampled_from(NOISE)) + line[j:]
        elif kind == "double" and line:
            lines[i] = line[:j] + line[j:j + 1] * 2 + line[j + 1:]
        elif kind == "drop-line" and len(lines) > 1:
            del lines[i]
        elif kind == "move-line" and len(lines) > 1:
            lines.insert(draw(st.integers(0, len(lines) - 1)), lines.pop(i))
        elif kind == "indent":
            lines[i] = "  " + line
        elif kind == "dedent":
            lines[i] = line[2:] if line.startswith("  ") else line.lstrip()
    return "\n".join(lines)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("fuzz") / "rules_data"
    shutil.copytree(RULES, dest)
    return dest


def restore(folder: Path, name: str) -> None:
    shutil.copyfile(RULES / name, folder / name)


@given(st.sampled_from(FILES), st.data())
@SETTINGS
def test_a_damaged_file_gets_positioned_problems_never_a_crash(folder, name, data):
    target = folder / name
    text = data.draw(damage((RULES / name).read_text("utf-8")))
    target.write_text(text, encoding="utf-8")
    try:
        _, report = check_path(folder)
        lines = text.split("\n")
        for d in report.diagnostics:
            assert d.message.strip() and d.code
            if d.pos.path.endswith(name) and d.pos.line:
                assert 1 <= d.pos.line <= len(lines) + 1, str(d)
                assert d.pos.col is None or 1 <= d.pos.col <= len(lines[min(d.pos.line, len(lines)) - 1]) + 2, str(d)
        before = target.read_bytes()
        result = fmt_path(str(target))
        if any(doc.path.endswith(name) for doc in result.failed):
            assert target.read_bytes() == before          # a refused file is left alone
        else:                                              # a formatted file still reads
            _, again = check_path(folder)
            assert not [d for d in again.diagnostics if d.code.startswith("yaml")
                        and d.pos.path.endswith(name)]
    finally:
        restore(folder, name)
