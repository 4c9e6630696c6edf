"""Structure-aware fuzzing: valid rules folders, broken by their data, through every command.

:mod:`tests.strategies` draws folders that pass ``harmony check`` (the starter
harmony with generated clauses, shipped parameters and glossary terms) and
then breaks them: values of every YAML type and extreme size, dates, keys of
every kind, unicode, deep nesting, references elsewhere or nowhere, items and
sections duplicated, reordered or moved. Each folder goes through ``check``,
``fmt``, the engine (its scenarios played under every ruleset), ``diff``
against the valid folder, and (fewer cases, slower) ``build`` and ``cards``.

Whatever the input: no exception escapes and nothing says ``internal error``;
every diagnostic is one line, at a real position inside the file it names,
and given once; nothing written holds a control character or a lone surrogate,
whatever the file names (not UTF-8, control characters, 250 bytes long) and the
version names (colliding, 300 characters) drawn; ``fmt`` never changes data, never loses a comment, leaves a
file it refuses as it was, is stable on its own output, and what it writes
checks exactly as before.

The default run is a few hundred cases (well under a minute on 2 CPUs). The
long run (``HARMONY_FUZZ=long``, 10,000 cases of the main test and more of the
others, random rather than the default run's fixed cases) is recorded in
tests/README.md; ``HARMONY_FUZZ_SCALE=N`` multiplies either run's numbers
(``0.5`` for each of two shards run side by side, with different
``--hypothesis-seed``).
"""
from __future__ import annotations

import contextlib
import copy
import functools
import io
import os
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from harmony import cli
from harmony.check import check_path
from harmony.fmt import fmt_path
from harmony.loader import plain, read_text
from harmony import game
from harmony.games.panzerblitz.scenario import ScenarioError, run_scenario

from harmony.diagnostics import NOT_TEXT
from strategies import RULES, broken_folders, commented, renamed_folders, texts_of, valid_folders

LONG = os.environ.get("HARMONY_FUZZ") == "long"
SCALE = float(os.environ.get("HARMONY_FUZZ_SCALE", "1"))
#: cases per test: default run, long run
CASES = {"valid": (15, 500), "broken": (100, 10_000), "shipped": (15, 1_000), "build": (2, 40),
         "names": (12, 1_000)}


def cases(name: str) -> settings:
    n = max(1, round(CASES[name][1 if LONG else 0] * SCALE))
    phases = [p for p in Phase if p is not Phase.shrink or os.environ.get("HARMONY_FUZZ_SHRINK", "1") != "0"]
    return settings(max_examples=n, deadline=None, derandomize=not LONG, print_blob=True,
                    report_multiple_bugs=False, phases=phases,
                    suppress_health_check=list(HealthCheck))


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


@contextlib.contextmanager
def folder_of(files: dict[str, str]):
    with tempfile.TemporaryDirectory(prefix="harmony-fuzz-") as tmp:
        folder = Path(tmp) / "rules_data"
        folder.mkdir()
        write(folder, files)
        yield folder


def run_cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(list(argv))
    return rc, out.getvalue() + err.getvalue()


POSITION = re.compile(r"\b\d+:\d+\b|line \d+|column \d+")


def assert_sound(folder: Path, report) -> None:
    """Every diagnostic: one line, inside the file it names, given once."""
    texts = {}
    for d in report.diagnostics:
        shown = str(d)
        assert "internal error" not in shown, shown
        assert len(shown.splitlines()) == 1 and "\n" not in shown, repr(shown)
        assert d.message.strip() and re.fullmatch(r"[a-z0-9-]+", d.code), shown
        path = Path(d.pos.path)
        path = path if path.is_absolute() else Path.cwd() / path
        assert path.resolve().is_relative_to(folder.resolve()), shown
        if path.is_file():
            if path not in texts:
                texts[path] = path.read_bytes().decode("utf-8", "replace").split("\n")
            lines = texts[path]
            assert 1 <= d.pos.line <= len(lines), shown
            assert 1 <= d.pos.col <= len(lines[d.pos.line - 1]) + 1, shown
    twice = [k for k, n in Counter((d.pos, d.code, POSITION.sub("", d.message))
                                   for d in report.diagnostics).items() if n > 1]
    assert not twice, f"reported more than once: {twice}"


def assert_engine_plays(model, report) -> None:
    """Every scenario of a fully read model plays under every ruleset: problems are
    reported (as diagnostics or ScenarioError), never raised as anything else."""
    if report.incomplete:
        return
    for sid in sorted(model.scenarios):
        try:
            result = game.run_scenario(model, sid)      # by the scenario's own game
        except ScenarioError:
            continue
        for d in result.errors:
            assert len(str(d).splitlines()) == 1, str(d)


def comments_kept(before: str, after: str, added: list[str]) -> None:
    for c in added:
        assert after.count(c + "\n") + after.count(c + " ") + after.endswith(c) >= 1 or \
            re.search(re.escape(c) + r"$", after, re.M), f"comment {c!r} lost"


def fmt_and_recheck(folder: Path, files: dict[str, str], added: dict[str, list[str]],
                    report) -> None:
    """fmt keeps data and comments, refuses without touching, is stable, and what it
    writes checks as before."""
    before = {n: (folder / n).read_bytes() for n in files}
    result = fmt_path(str(folder))
    failed = {Path(doc.path).resolve() for doc in result.failed}
    for doc in result.failed:
        for d in doc.report.diagnostics:
            assert len(str(d).splitlines()) == 1 and "internal error" not in str(d), str(d)
    for name, text in files.items():
        path = folder / name
        after = path.read_bytes()
        if path.resolve() in failed:
            assert after == before[name], f"fmt changed {name}, which it refused"
            continue
        new = after.decode("utf-8")
        # (the data read by the checker's reader: the same as the round-trip reader's,
        # tests/test_ccompose.py, and much quicker)
        old_doc = read_text(name, text.removeprefix("\ufeff"), round_trip=False)
        new_doc = read_text(name, new, round_trip=False)
        assert not new_doc.report.errors, [str(d) for d in new_doc.report.errors]
        assert plain(new_doc.tree) == plain(old_doc.tree), f"fmt changed the data of {name}"
        comments_kept(text, new, added.get(name, []))
        assert not list(folder.rglob(".harmony-fmt-*.tmp"))
    again = fmt_path(str(folder), check=True)
    assert again.changed == [], f"fmt is not stable on its own output: {again.changed}"
    _, recheck = check_path(folder)
    assert_sound(folder, recheck)

    def shape(r):
        return Counter((d.severity, d.code, Path(d.pos.path).name, POSITION.sub("", d.message))
                       for d in r.diagnostics)
    assert shape(recheck) == shape(report), "fmt output checks differently"


def with_comments(data, files: dict[str, str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    out, added, n = {}, {}, 0
    for name in sorted(files):
        text, c = data.draw(commented(files[name], n))
        n += len(c)
        out[name], added[name] = text, c
    return out, added


# ---------------------------------------------------------------- the tests

@given(valid_folders(), st.data())
@cases("valid")
def test_the_generated_folders_are_valid_and_fmt_keeps_them(files, data):
    texts, added = with_comments(data, texts_of(files))
    with folder_of(texts) as folder:
        model, report = check_path(folder)
        assert not report.diagnostics, [str(d) for d in report.diagnostics]
        for sid in model.scenarios:
            if game.scenario_game(model, model.scenarios[sid]).name != "panzerblitz":
                continue        # the hex engine's scenarios (Combat Patrol's: test_cp_game.py)
            assert not run_scenario(model, sid).errors, sid  # (rulings follow the parameters drawn)
        fmt_and_recheck(folder, texts, added, report)


@given(broken_folders(), st.data())
@cases("broken")
def test_broken_folders_get_positioned_problems_through_every_command(broken, data):
    files, done = broken
    texts, added = with_comments(data, files)
    with folder_of(texts) as folder:
        model, report = check_path(folder)
        assert_sound(folder, report)
        assert_engine_plays(model, report)
        with folder_of(texts_of(data.draw(valid_folders()))) as valid:
            rc, out = run_cli("diff", str(valid), str(folder))
            assert "internal error" not in out and "Traceback" not in out, (done, out)
        rc, out = run_cli("check", str(folder))
        # 2: a usage error, such as a folder that no longer defines any source
        assert rc in (0, 1, 2) and "internal error" not in out and "Traceback" not in out, (done, out)
        fmt_and_recheck(folder, texts, added, report)


SCENARIOS = sorted(p.relative_to(RULES).as_posix() for p in (RULES / "scenarios").glob("*.yaml"))


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("shipped") / "rules_data"
    shutil.copytree(RULES, dest)
    return dest


@functools.cache
def _shipped_data(name: str):
    from strategies import _safe_load
    return _safe_load((RULES / name).read_text("utf-8"))


@st.composite
def shipped_scenario(draw):
    name = draw(st.sampled_from(SCENARIOS))
    return {name: copy.deepcopy(_shipped_data(name))}


@given(shipped_scenario().flatmap(lambda f: broken_folders(st.just(f))), st.data())
@cases("shipped")
def test_broken_shipped_scenarios_are_reported_never_raised(shipped, broken, data):
    """The engine's own inputs: a shipped scenario broken beside the shipped rules."""
    files, done = broken
    try:
        write(shipped, files)
        model, report = check_path(shipped)
        assert_sound(shipped, report)
        assert_engine_plays(model, report)
    finally:
        for name in files:
            shutil.copyfile(RULES / name, shipped / name)


@given(st.one_of(valid_folders().map(texts_of), broken_folders().map(lambda b: b[0])))
@cases("build")
def test_build_and_cards_never_crash(files):
    with folder_of(files) as folder:
        out = folder.parent / "out"
        rc, said = run_cli("build", str(folder), "--out", str(out / "site"))
        assert rc in (0, 1, 2) and "internal error" not in said and "Traceback" not in said, said
        rc, said = run_cli("cards", str(folder), "--out", str(out / "cards.pdf"))
        assert rc in (0, 1, 2) and "internal error" not in said and "Traceback" not in said, said


def assert_writable(out: str) -> None:
    """What a command wrote: one a strict UTF-8 terminal takes, no control character but
    tab and newline (a name or a value could otherwise drive the terminal)."""
    out.encode("utf-8")
    assert not NOT_TEXT.search(out), repr(out)


@given(renamed_folders(), st.data())
@cases("names")
def test_file_names_and_encodings_of_every_kind_never_crash_a_command(renamed, data):
    """Files renamed to names that are not UTF-8, hold controls or line breaks, or are as long
    as a name may be, in the folder and in scenarios/, beside broken data (escapes of
    controls and lone surrogates, colliding and very long version names)."""
    files, done = renamed
    with folder_of(files) as folder:
        model, report = check_path(folder)
        assert_sound(folder, report)
        for d in report.diagnostics:
            assert_writable(str(d))
        assert_engine_plays(model, report)
        for argv in (["check", str(folder)], ["check", "--format", "json", str(folder)],
                     ["fmt", "--check", str(folder)]):
            rc, out = run_cli(*argv)
            assert rc in (0, 1, 2) and "internal error" not in out and "Traceback" not in out, (done, out)
            assert_writable(out)
        with folder_of(texts_of(data.draw(valid_folders()))) as valid:
            for fmt in ("text", "json"):
                rc, out = run_cli("diff", str(valid), str(folder), "--format", fmt, "--no-rulings")
                assert "internal error" not in out and "Traceback" not in out, (done, out)
                assert_writable(out)
        if not report.errors and data.draw(st.integers(0, 5)) == 0:   # a few builds: Sphinx is slow
            rc, out = run_cli("build", str(folder), "--out", str(folder.parent / "site"))
            assert rc in (0, 1, 2) and "internal error" not in out and "Traceback" not in out, (done, out)
