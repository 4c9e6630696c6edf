"""Scenario results remembered on disk, keyed by everything that decides them.

Playing every scenario under each of its rulesets is half of a warm ``harmony
check`` at scale, and a new process (``harmony build`` after a one-clause edit)
played them all again though hardly any had changed. A scenario's result
depends only on:

* the scenario file's text (its steps, units and map, and the positions of its
  diagnostics) and the path it is shown as;
* each ruleset it plays, as resolved from the rules: every parameter's value and the
  cell and clause that set it (so an edit to a clause the scenario's rulings name, or
  to any parameter, is a new key; an edit to prose no parameter reads is not);
* harmony's own code and the versions that shape a parse
  (:func:`harmony.parsecache.code_fingerprint`).

The entry is the pickled :class:`harmony.game.ScenarioResult` with its
``scenario`` left out (it is the model's own, put back on reading). Entries live in
``played/`` beside the parse cache's ``parsed/`` (``HARMONY_CACHE``; ``off`` turns both off) and share its
safety: written to a temporary file renamed into place, and an entry that cannot be
read, or reads as anything else, is a miss.

>>> import os, tempfile
>>> from harmony.loader import load
>>> from harmony.usage import default_rules_data
>>> from harmony.ruleset import Ruleset
>>> os.environ["HARMONY_CACHE"] = tempfile.mkdtemp()
>>> m, _ = load(default_rules_data())
>>> sc = m.scenarios["rev-figure-1"]
>>> rev = [Ruleset.from_model(m, "REV")]
>>> k = key(sc, rev)
>>> k == key(sc, [Ruleset.from_model(m, "PB")]), k == key(sc, [Ruleset.from_model(m, "REV")])
(False, True)
>>> recall(k, sc) is None
True
>>> del os.environ["HARMONY_CACHE"]
"""
from __future__ import annotations

import hashlib
import io
import pickle
from typing import Any, Callable

from . import parsecache
from .diagnostics import Diagnostic
from .loader import file_text
from .model import Scenario
from .ruleset import Ruleset

_SCENARIO = "scenario"
#: The cache sub-folder of these entries (beside the parse cache's ``parsed``).
KIND = "played"
#: The sub-folder of scenarios' parsed steps.
STEPS = "steps"
#: The sub-folder of what a result's errors are alone (:func:`recall_errors`).
ERRORS = "played-errors"
#: The sub-folder of a game's checks of scenarios (:func:`checked`).
CHECKED = "checked"


def key(sc: Scenario, rulesets: list[Ruleset]) -> str | None:
    """The key of ``sc`` played under ``rulesets``; None when its file's text is unknown
    (a scenario built in memory is never remembered)."""
    return _of_file(b"scenario-result", sc, b"".join(rs.digest for rs in rulesets))


def _of_file(what: bytes, sc: Scenario, more: bytes = b"") -> str | None:
    """The key of ``what`` of ``sc`` that only its file decides (its text, shown path and id),
    harmony's code and ``more``; None for a scenario whose file's text is unknown."""
    text = file_text(sc.file) if sc.file else ""
    if not text:
        return None
    h = hashlib.sha256(what + b"\0" + parsecache.code_fingerprint())
    for part in (sc.file, sc.id, text):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    h.update(more)
    return h.hexdigest()


class _Pickler(pickle.Pickler):
    """Pickles a result with its scenario as a reference (the model holds it)."""

    def __init__(self, file: io.BytesIO, sc: Scenario):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.sc = sc

    def persistent_id(self, obj: Any) -> Any:
        return _SCENARIO if obj is self.sc else None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, sc: Scenario):
        super().__init__(file)
        self.sc = sc

    def persistent_load(self, pid: Any) -> Any:
        if pid != _SCENARIO:
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        return self.sc


def remember(k: str | None, result: Any) -> None:
    """Keep ``result`` (a ScenarioResult of its own ``scenario``) under ``k``, and its errors
    alone beside it (:func:`recall_errors`)."""
    if k is None:
        return
    parsecache.put(k, list(result.errors), ERRORS)
    buf = io.BytesIO()
    try:
        _Pickler(buf, result.scenario).dump(result)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return      # something unpicklable in a snapshot: play it again next time
    parsecache.put(k, buf.getvalue(), KIND)


def recall(k: str | None, sc: Scenario) -> Any:
    """The result kept under ``k``, its scenario ``sc``; None on a miss."""
    if k is None:
        return None
    data = parsecache.get(k, KIND)
    if not isinstance(data, bytes):
        return None
    try:
        result = _Unpickler(io.BytesIO(data), sc).load()
    except Exception:   # written by another harmony or damaged: a miss, never an error
        return None
    return result if getattr(result, "scenario", None) is sc else None


def recall_errors(k: str | None) -> list | None:
    """The errors of the result kept under ``k`` (:class:`~harmony.diagnostics.Diagnostic` s),
    or None on a miss. ``harmony check`` reads only a result's errors, and these unpickle
    without a game's module (a whole result holds the game's own values: its steps' questions)."""
    return _diagnostics(None if k is None else parsecache.get(k, ERRORS))


def _diagnostics(got: Any) -> list | None:
    """``got`` if it is a list of diagnostics (an entry of :data:`ERRORS` or :data:`CHECKED`
    as written), else None (a miss)."""
    return got if isinstance(got, list) and all(isinstance(d, Diagnostic) for d in got) else None


def checked(sc: Scenario, check: Callable[[Scenario], list]) -> list:
    """``check(sc)``, the problems a game finds in a scenario without playing it, remembered
    on disk (in ``checked/``) under what alone may decide them: the scenario file's text, its
    shown path, the scenario's id and harmony's code. For a game's check that reads nothing but
    the scenario (the hex wargame's: :func:`harmony.games.panzerblitz.checks.scenario_problems`),
    so that a ``harmony check`` of scenarios checked before imports none of that check's code.
    A scenario built in memory is checked every time.

    >>> import os, tempfile
    >>> from harmony.diagnostics import Pos
    >>> os.environ["HARMONY_CACHE"] = tempfile.mkdtemp()
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "s.yaml"), "w") as f: _ = f.write("scenarios: []\\n")
    >>> sc = Scenario(id="s", file=os.path.join(folder, "s.yaml"))
    >>> calls = []
    >>> def check(sc):
    ...     calls.append(sc.id)
    ...     return [Diagnostic(Pos(sc.file, 1, 1), "error", "wrong", "code")]
    >>> [d.message for d in checked(sc, check)], [d.message for d in checked(sc, check)], calls
    (['wrong'], ['wrong'], ['s'])
    >>> with open(sc.file, "w") as f: _ = f.write("scenarios: [] # edited\\n")
    >>> _ = checked(sc, check); calls
    ['s', 's']
    >>> _ = checked(Scenario(id="s"), check); calls      # (built in memory: no file)
    ['s', 's', 's']
    >>> del os.environ["HARMONY_CACHE"]
    """
    k = _of_file(b"scenario-check", sc)
    if k is None:
        return check(sc)
    got = _diagnostics(parsecache.get(k, CHECKED))
    if got is None:
        got = list(check(sc))
        parsecache.put(k, got, CHECKED)
    return got


def parsed_steps(sc: Scenario, parse: Callable[[Scenario], Any]) -> Any:
    """``parse(sc)``, a scenario's steps read into typed values with their positions,
    remembered on disk (in ``steps/``) under what alone decides them: the scenario file's
    text, its shown path and the scenario's id, and harmony's code. A new process then
    unpickles them instead of reading them again (at 2,046 clauses, a fifth of a warm
    ``harmony check``). A scenario built in memory is read every time."""
    k = _of_file(b"parsed-steps", sc)
    if k is None:
        return parse(sc)
    got = parsecache.get(k, STEPS)
    if got is None or type(got).__name__ != "ParsedSteps":
        got = parse(sc)
        parsecache.put(k, got, STEPS)
    return got
