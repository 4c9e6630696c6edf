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
    """One problem found: where, how bad (error or warning), what, and its code."""

    pos: Pos
    severity: str  # "error" or "warning"
    message: str
    code: str

    def __post_init__(self) -> None:
        # a value quoted in a message may hold a line break: shown escaped, the
        # message stays one line, with its position; and a character that is not text (a
        # control character, a lone surrogate) is written as its escape, never raw
        object.__setattr__(self, "message", safe_text(one_line(self.message)))

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
    #: True when a whole folder could not be read (unreadable, or a symlink not followed):
    #: any name may be defined in it, so no reference is reported as unknown
    folder_left_out: bool = False
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
        self.folder_left_out = self.folder_left_out or other.folder_left_out
        self.notes.extend(n for n in other.notes if n not in self.notes)

    def was_left_out(self, name: str | None) -> bool:
        """True when ``name`` may be defined by something the loader could not read."""
        return name is not None and (self.folder_left_out or name in self.left_out
                                     or name.lower() in self.left_out)

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
        # shown paths are printable (:func:`display_path`): compare the printable forms
        want = printable_name(os.path.realpath(file))
        mine = Report(files=1, left_out=set(self.left_out), incomplete=self.incomplete,
                      folder_left_out=self.folder_left_out)
        others = Report()
        for d in self.diagnostics:
            (mine if printable_name(os.path.realpath(d.pos.path)) == want else others).add(d)
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
    r"""A path as the user would type it: relative to the working folder when inside it, and
    printable: a name whose bytes are not UTF-8 (read by Python as surrogate escapes) shows
    each such byte as ``\xNN``, so a message naming it can always be written.

    >>> display_path("/no/such/folder/rules_\udcff.yaml")
    '/no/such/folder/rules_\\xff.yaml'
    """
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = ".."
    return printable_name(path if rel.startswith("..") else rel)


def printable_name(name: str) -> str:
    r"""A file name as text that can be written anywhere: each byte that is not UTF-8 (a
    surrogate escape, as :func:`os.fsdecode` reads it) as ``\xNN``, and any other
    character that is not text (a control character, a lone surrogate) as its escape.

    >>> printable_name("rules_\udcff.yaml"), printable_name("a\x07b\n.yaml"), printable_name("ok.yaml")
    ('rules_\\xff.yaml', 'a\\x07b\\x0a.yaml', 'ok.yaml')
    """
    if not NOT_A_NAME.search(name):
        return name
    return NOT_A_NAME.sub(_escape_char, name)


#: a character that is never text in rules_data (nor in anything harmony writes): the C0
#: controls but tab and newline, DEL, the C1 controls, lone surrogates and the two
#: non-characters U+FFFE and U+FFFF. A YAML file cannot hold one raw (the reader refuses
#: it, except a carriage return or NEL, which end a line); a double-quoted escape
#: (``"\0"``, ``"\e"``, ``"\udc80"``) can.
NOT_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


#: what a file name shown in a message may not hold: :data:`NOT_TEXT`, tab and the line
#: breaks (a message is one line)
NOT_A_NAME = re.compile("[\t\n\u2028\u2029" + NOT_TEXT.pattern[1:])


def _escape_char(m: re.Match) -> str:
    c = ord(m.group())
    if 0xDC80 <= c <= 0xDCFF:           # a byte that was not UTF-8, as os.fsdecode keeps it
        return f"\\x{c - 0xDC00:02x}"
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def safe_text(text: str) -> str:
    r"""``text`` with every character that is not text (:data:`NOT_TEXT`) written as its
    escape: what a writer (the terminal, a JSON file, a page) is given, so neither a raw
    control character nor a lone surrogate ever leaves harmony.

    >>> safe_text("tab\tand line\n kept; \x1b[31m and \udc80 are not")
    'tab\tand line\n kept; \\x1b[31m and \\udc80 are not'
    """
    if not NOT_TEXT.search(text):
        return text
    return NOT_TEXT.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                        else f"\\u{ord(m.group()):04x}", text)


#: the names of the C0 and C1 control characters and DEL
_CONTROL_NAMES = (
    "NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB "
    "CAN EM SUB ESC FS GS RS US").split()
_C1_NAMES = (
    "PAD HOP BPH NBH IND NEL SSA ESA HTS HTJ VTS PLD PLU RI SS2 SS3 DCS PU1 PU2 STS CCH MW "
    "SPA EPA SOS SGCI SCI CSI ST OSC PM APC").split()


def describe_char(ch: str) -> str:
    r"""A character that is not text, by its code point and name, for a message.

    >>> describe_char("\x07"), describe_char("\x1b"), describe_char("\x7f")
    ('control character U+0007 (BEL)', 'control character U+001B (ESC)', 'control character U+007F (DEL)')
    >>> describe_char("\x85"), describe_char("\udc80"), describe_char("\uffff")
    ('control character U+0085 (NEL)', 'lone surrogate U+DC80 (half of a UTF-16 pair, not a character)', 'non-character U+FFFF')
    """  # noqa: E501 (the example's output is one line)
    c = ord(ch)
    if c < 0x20:
        return f"control character U+{c:04X} ({_CONTROL_NAMES[c]})"
    if c == 0x7F:
        return "control character U+007F (DEL)"
    if 0x80 <= c <= 0x9F:
        return f"control character U+{c:04X} ({_C1_NAMES[c - 0x80]})"
    if 0xD800 <= c <= 0xDFFF:
        return f"lone surrogate U+{c:04X} (half of a UTF-16 pair, not a character)"
    if c in (0xFFFE, 0xFFFF):
        return f"non-character U+{c:04X}"
    return f"character U+{c:04X}"
