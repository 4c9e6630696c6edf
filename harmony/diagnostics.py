"""Positions in files and the problems found at them.

Every value the loader reads keeps a :class:`Pos`, so any later check can say
exactly where a problem is:

>>> p = Pos("rules_data/spotting.yaml", 12, 5)
>>> str(Diagnostic(p, "error", "unknown key 'colour'", "schema-unknown-key"))
"rules_data/spotting.yaml:12:5: error: unknown key 'colour' [schema-unknown-key]"
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Pos:
    """A place in a file; line and column count from 1."""

    path: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True, order=True)
class Diagnostic:
    pos: Pos
    severity: str  # "error" or "warning"
    message: str
    code: str

    def __post_init__(self) -> None:
        # a value quoted in a message may hold a line break: shown escaped, the
        # message stays one line, with its position
        object.__setattr__(self, "message", one_line(self.message))

    def __str__(self) -> str:
        return f"{self.pos}: {self.severity}: {self.message} [{self.code}]"

    def as_dict(self) -> dict:
        return {"path": self.pos.path, "line": self.pos.line, "column": self.pos.col,
                "severity": self.severity, "message": self.message, "code": self.code}


@dataclass
class Report:
    """Problems gathered across files; never stops at the first one.

    Each problem is kept once, however many checks find it:

    >>> r = Report()
    >>> for _ in range(2):
    ...     r.error(Pos("a.yaml", 3, 1), "unknown source 'X'", "unresolved-source")
    >>> len(r.errors)
    1
    """

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    #: ids, keys and names of what the loader left out for errors (a file that
    #: does not parse, an item that breaks the schema): references to them are
    #: not reported again, so one mistake gives one error
    left_out: set[str] = field(default_factory=set)
    #: True when a file or an item could not be read into the model
    incomplete: bool = False
    #: remarks printed after the summary (e.g. checks that were skipped)
    notes: list[str] = field(default_factory=list)
    _seen: set[Diagnostic] = field(default_factory=set, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        given, self.diagnostics = self.diagnostics, []
        for d in given:
            self.add(d)

    def add(self, d: Diagnostic) -> None:
        """Keep ``d`` unless the very same problem is already reported."""
        if d not in self._seen:
            self._seen.add(d)
            self.diagnostics.append(d)

    def error(self, pos: Pos, message: str, code: str) -> None:
        self.add(Diagnostic(pos, "error", message, code))

    def warning(self, pos: Pos, message: str, code: str) -> None:
        self.add(Diagnostic(pos, "warning", message, code))

    def extend(self, other: "Report") -> None:
        for d in other.diagnostics:
            self.add(d)
        self.left_out |= other.left_out
        self.incomplete = self.incomplete or other.incomplete
        self.notes.extend(n for n in other.notes if n not in self.notes)

    def was_left_out(self, name: str | None) -> bool:
        """True when ``name`` may be defined by something the loader could not read."""
        return name is not None and (name in self.left_out or name.lower() in self.left_out)

    def within(self, file: str | os.PathLike, folder: str | os.PathLike | None = None) -> "Report":
        """The problems located in ``file`` alone, for a file checked inside ``folder``
        (by default the folder holding it); a note counts the problems of the other files.

        >>> r = Report(files=2)
        >>> r.error(Pos("rules/a.yaml", 3, 1), "bad", "x")
        >>> r.warning(Pos("rules/b.yaml", 1, 1), "odd", "y")
        >>> one = r.within("rules/a.yaml")
        >>> [str(d) for d in one.diagnostics], one.files
        (['rules/a.yaml:3:1: error: bad [x]'], 1)
        >>> one.notes
        ['the other files of rules have 0 errors and 1 warning: harmony check rules lists them']
        """
        want = os.path.realpath(file)
        mine = Report(files=1, left_out=set(self.left_out), incomplete=self.incomplete)
        others = Report()
        for d in self.diagnostics:
            (mine if os.path.realpath(d.pos.path) == want else others).add(d)
        mine.notes = list(self.notes)
        if others.diagnostics:
            where = display_path(os.fspath(folder if folder is not None
                                           else os.path.dirname(os.fspath(file)) or "."))
            e, w = len(others.errors), len(others.warnings)
            mine.notes.append(f"the other files of {where} have {_count(e, 'error')} and "
                              f"{_count(w, 'warning')}: harmony check {where} lists them")
        return mine

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def sorted(self) -> list[Diagnostic]:
        return sorted(set(self.diagnostics))

    def summary(self) -> str:
        e, w = len(self.errors), len(self.warnings)
        return f"{_count(e, 'error')}, {_count(w, 'warning')} in {_count(self.files, 'file')}"

    def to_text(self) -> str:
        lines = [str(d) for d in self.sorted()]
        lines.append(self.summary())
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines) + "\n"

    def to_json(self) -> str:
        return json.dumps({
            "diagnostics": [d.as_dict() for d in self.sorted()],
            "summary": {"errors": len(self.errors), "warnings": len(self.warnings),
                        "files": self.files},
            "notes": list(self.notes),
        }, indent=2, sort_keys=True) + "\n"


#: every character :meth:`str.splitlines` breaks a line at
_LINE_BREAKS = {c: repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}
_LINE_BREAKS_RE = re.compile("[" + "".join(_LINE_BREAKS) + "]")


def one_line(text: str) -> str:
    """``text`` with each line break written as its escape, so a message is one line.

    >>> one_line("unknown source 'P\\nL'")
    "unknown source 'P\\\\nL'"
    >>> print(one_line("a\\r\\nb\\u2028c"))
    a\\r\\nb\\u2028c
    >>> str(Diagnostic(Pos("a.yaml", 2, 3), "error", "bad 'x\\ny'", "k")).splitlines()
    ["a.yaml:2:3: error: bad 'x\\\\ny' [k]"]
    """
    return _LINE_BREAKS_RE.sub(lambda m: _LINE_BREAKS[m.group()], text)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def display_path(path: str) -> str:
    """A path as the user would type it: relative to the working folder when inside it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
