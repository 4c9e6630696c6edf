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

    def __str__(self) -> str:
        return f"{self.pos}: {self.severity}: {self.message} [{self.code}]"

    def as_dict(self) -> dict:
        return {"path": self.pos.path, "line": self.pos.line, "column": self.pos.col,
                "severity": self.severity, "message": self.message, "code": self.code}


@dataclass
class Report:
    """Problems gathered across files; never stops at the first one."""

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

    def error(self, pos: Pos, message: str, code: str) -> None:
        self.diagnostics.append(Diagnostic(pos, "error", message, code))

    def warning(self, pos: Pos, message: str, code: str) -> None:
        self.diagnostics.append(Diagnostic(pos, "warning", message, code))

    def extend(self, other: "Report") -> None:
        self.diagnostics.extend(other.diagnostics)
        self.left_out |= other.left_out
        self.incomplete = self.incomplete or other.incomplete
        self.notes.extend(n for n in other.notes if n not in self.notes)

    def was_left_out(self, name: str | None) -> bool:
        """True when ``name`` may be defined by something the loader could not read."""
        return name is not None and (name in self.left_out or name.lower() in self.left_out)

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
        plural = lambda n, s: f"{n} {s}{'' if n == 1 else 's'}"  # noqa: E731
        return f"{plural(e, 'error')}, {plural(w, 'warning')} in {plural(self.files, 'file')}"

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


def display_path(path: str) -> str:
    """A path as the user would type it: relative to the working folder when inside it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
