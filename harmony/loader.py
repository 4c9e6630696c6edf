"""The one loader: YAML files in, positioned trees out.

Every command reads rules_data through :func:`load` (folder or file to
:class:`harmony.model.Model`). The checks read each file with libyaml's C parser
(:mod:`harmony.ccompose`: positions, no comments); a file it is not sure of, and every
file ``harmony fmt`` rewrites, is read by ruamel's round-trip parser, whose errors are
the ones reported. Reading is safe and bounded: files over
:data:`MAX_BYTES`, binary files, bad encodings, tags, anchors and aliases
(the "billion laughs" attack), nesting deeper than :data:`MAX_DEPTH` and
duplicate keys are refused with a positioned error before anything is built.

>>> doc = read_text("x.yaml", "sources:\\n  - key: PB\\n")
>>> doc.report.diagnostics
[]
>>> doc.pos("sources", 0, "key")
Pos(path='x.yaml', line=2, col=10)
>>> doc.pos("sources", 0, "key", key=True)
Pos(path='x.yaml', line=2, col=5)
>>> bad = read_text("y.yaml", "a: &x [1]\\nb: *x\\n")
>>> print(bad.report.diagnostics[0])
y.yaml:1:4: error: YAML anchors are not allowed in rules_data ('&x'): write each value out in full [yaml-alias]
"""
from __future__ import annotations

import hashlib
import os
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml import events as ev
from ruamel.yaml.composer import Composer
from ruamel.yaml.constructor import SafeConstructor as TimeStampConstructor
from ruamel.yaml.nodes import MappingNode, ScalarNode
from ruamel.yaml.reader import ReaderError

from . import parsecache
from .diagnostics import NOT_A_NAME, NOT_TEXT, Pos, Report, describe_char, display_path
from .model import Model, add_document
from .schema import validate_items
from .yamltree import MAX_BYTES, MAX_DEPTH, MAX_DIGITS, Document, first_content, node_pos, plain, walk

# Document, node_pos, plain and walk are read through the loader too (harmony.fmt, tests)
__all__ = [
    "MAX_BYTES", "MAX_DEPTH", "MAX_DIGITS", "MAX_ENTRIES", "YAML_SUFFIXES", "Document", "FolderScan",
    "load", "names_in_text", "new_yaml", "node_pos", "plain", "read_bytes", "read_checked",
    "read_file", "read_text", "read_usable", "scan_folder", "usable_part", "walk", "yaml_files",
]
#: The most files and folders a rules folder may hold (all kinds, at every depth): a rules
#: folder holds tens of files; a path with more (``/``, a home folder) is not one, and is
#: refused before it is walked to the end.
MAX_ENTRIES = 20_000
#: The most characters that are not text (:data:`harmony.diagnostics.NOT_TEXT`) reported
#: one by one in a file; the last error counts the others.
MAX_CHAR_ERRORS = 20
YAML_SUFFIXES = (".yaml", ".yml")


def new_yaml() -> YAML:
    """The round-trip YAML object used for reading and writing (comments kept)."""
    y = YAML(typ="rt")
    y.allow_duplicate_keys = False
    y.preserve_quotes = True
    y.width = 88
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    col = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, col


def read_bytes(path: str, data: bytes, size: int | None = None, round_trip: bool = True) -> Document:
    """Decode and read one file's bytes; never raises on bad input.

    ``size`` is the file's real size when ``data`` was cut short at the limit;
    ``round_trip`` as in :func:`read_text`.

    >>> print(read_bytes("z.yaml", b"key: caf\\xe9\\n").report.diagnostics[0])
    z.yaml:1:9: error: not valid UTF-8 (byte 0xe9 at line 1, column 9): save the file with UTF-8 encoding [file-encoding]
    """  # noqa: E501 (the example's output is one line)
    shown = display_path(path)
    doc = Document(shown)
    r = doc.report
    size = len(data) if size is None else size
    if size > MAX_BYTES:
        r.error(Pos(shown), f"file is too large ({size:,} bytes; the limit is "
                f"{MAX_BYTES:,}): split it into several files", "file-too-large")
        return doc
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        r.error(Pos(shown), "file is saved as UTF-16: save it with UTF-8 encoding", "file-encoding")
        return doc
    nul = data.find(b"\x00")
    if nul >= 0:
        before = data[:nul].decode("utf-8", "replace")
        line, col = _line_col(before, len(before))
        r.error(Pos(shown, line, col), "binary file (NUL byte found): rules_data holds YAML "
                "text only; is this the right file?", "file-binary")
        return doc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        good = data[:e.start].decode("utf-8", "replace")
        line, col = _line_col(good, len(good))
        r.error(Pos(shown, line, col), f"not valid UTF-8 (byte 0x{data[e.start]:02x} at line "
                f"{line}, column {col}): save the file with UTF-8 encoding", "file-encoding")
        return doc
    return read_text(shown, text.removeprefix("\ufeff"), round_trip=round_trip)


class _Refused(YAMLError):
    """YAML we never accept (tags, anchors, deep nesting), found while composing."""

    def __init__(self, mark, message: str, code: str):
        super().__init__(message)
        self.mark, self.message, self.code = mark, message, code


class _GuardedComposer(Composer):
    """ruamel's composer, refusing tags, anchors, aliases and deep nesting as nodes arrive.

    Checking while composing (one pass) means nothing is ever built from an
    alias, so a "billion laughs" file costs no more than its own size.
    """

    _nesting = 0

    def compose_node(self, parent, index):
        event = self.parser.peek_event()
        m = event.start_mark
        if isinstance(event, ev.AliasEvent):
            raise _Refused(m, f"YAML aliases are not allowed in rules_data ('*{event.anchor}'): "
                           "write the value out in full", "yaml-alias")
        if getattr(event, "anchor", None):
            raise _Refused(m, f"YAML anchors are not allowed in rules_data ('&{event.anchor}'): "
                           "write each value out in full", "yaml-alias")
        tag = getattr(event, "tag", None)
        if tag is not None:
            shown = str(getattr(tag, "value", None) or tag)
            if shown.startswith("tag:yaml.org,2002:"):
                shown = "!!" + shown.removeprefix("tag:yaml.org,2002:")
            raise _Refused(m, f"YAML tags are not allowed in rules_data ({shown}): remove "
                           "the tag; write plain values only", "yaml-tag")
        if isinstance(event, (ev.MappingStartEvent, ev.SequenceStartEvent)):
            if index is None and isinstance(parent, MappingNode):
                what = "mapping" if isinstance(event, ev.MappingStartEvent) else "list"
                raise _Refused(m, f"a {what} used as a key: keys in rules_data are plain names; "
                               "write the key as a word", "yaml-complex-key")
            self._nesting += 1
            if self._nesting > MAX_DEPTH:
                raise _Refused(m, f"YAML nested more than {MAX_DEPTH} levels deep: rules_data "
                               "never needs this much nesting; flatten it", "yaml-depth")
            try:
                return super().compose_node(parent, index)
            finally:
                self._nesting -= 1
        if isinstance(event, ev.ScalarEvent) and event.style is None:
            tag = self.resolver.resolve(ScalarNode, event.value, event.implicit)
            _refuse_odd_scalar(str(getattr(tag, "value", None) or tag), event.value, m)
        return super().compose_node(parent, index)


def _refuse_odd_scalar(tag: str, value: str, mark) -> None:
    """Refuse a plain scalar that YAML would read as a number too long to be data, or as
    a date that does not exist (both would otherwise fail later, with no position).

    >>> _refuse_odd_scalar("tag:yaml.org,2002:int", "12", None)
    >>> _refuse_odd_scalar("tag:yaml.org,2002:int", "-_", None)
    Traceback (most recent call last):
    ...
    harmony.loader._Refused: '-_' reads as a number, but it is not one: correct it, or quote it if it is text
    >>> _refuse_odd_scalar("tag:yaml.org,2002:timestamp", "2002-02-30", None)
    Traceback (most recent call last):
    ...
    harmony.loader._Refused: '2002-02-30' reads as a date, but there is no such day (day is out of range for month): correct it, or quote it if it is text
    """  # noqa: E501 (the example's output is one line)
    kind = tag.rsplit(":", 1)[-1]
    if kind in ("int", "float"):
        digits = len(re.sub(r"^[-+]?0[xXoObB]|[^0-9a-fA-F]", "", value))
        if digits > MAX_DIGITS:
            raise _Refused(mark, f"a number of {digits} digits: no value in rules_data needs "
                           f"more than {MAX_DIGITS}; quote it if it is text", "yaml-number")
        from . import ccompose     # PyYAML: imported by the first file read, never by a cache hit
        c = ccompose.constructor()
        try:
            c.yaml_constructors[tag](c, ScalarNode(tag, value))
        except Exception:   # ruamel's YAML 1.2 pattern takes '-_' or '0b_' for a number it cannot build
            raise _Refused(mark, f"'{value}' reads as a number, but it is not one: correct it, or "
                           "quote it if it is text", "yaml-number") from None
    elif kind == "timestamp":
        try:
            TimeStampConstructor().construct_yaml_timestamp(ScalarNode(tag, value))
        except (ValueError, OverflowError) as e:
            raise _Refused(mark, f"'{value}' reads as a date, but there is no such day ({e}): "
                           "correct it, or quote it if it is text", "yaml-date") from None


def read_text(path: str, text: str, round_trip: bool = True) -> Document:
    """Read one file's text into a positioned tree; problems go to ``doc.report``.

    The tree is ruamel's round-trip tree (comments and layout kept, for ``harmony fmt``)
    unless ``round_trip`` is false: then it is :mod:`harmony.ccompose`'s lighter tree
    with the same data and positions, whenever the C parser is sure of the file.

    >>> text = "a: 1\\n"
    >>> type(read_text("t.yaml", text).tree).__name__, type(read_text("t.yaml", text, False).tree).__name__
    ('CommentedMap', 'PosMap')

    >>> print(read_text("t.yaml", "title: Spotting: who sees\\n").report.diagnostics[0])
    t.yaml:1:16: error: YAML: ': ' inside a plain value; put the value in quotes, e.g. title: 'Spotting: who sees' [yaml-syntax]
    """  # noqa: E501 (the example's output is one line)
    doc = Document(path, text)
    r = doc.report
    if not text.strip() or all(not l.strip() or l.lstrip().startswith("#") for l in text.splitlines()):
        what = "only comments" if text.strip() else "nothing"
        r.error(Pos(path), f"empty file (it holds {what}): a rules_data file needs at least one "
                "section (sources, topics, clauses, ...); add one or delete the file", "file-empty")
        return doc
    if not round_trip:
        from . import ccompose
        tree = ccompose.compose(text)
        if tree is not None:
            doc.tree = tree
            _refuse_characters(doc)
            return doc
    y = new_yaml()
    y.Composer = _GuardedComposer
    try:
        tree = y.load(text)
    except _Refused as e:
        r.error(Pos(path, e.mark.line + 1, e.mark.column + 1), e.message, e.code)
        return doc
    except ReaderError as e:
        _raw_characters(doc, e)
        return doc
    except YAMLError as e:
        _yaml_error(doc, e)
        return doc
    except ValueError:   # ruamel's scanner on an escape past the last code point ("\U00110000")
        r.error(_past_unicode(doc), "an escape past the last Unicode character U+10FFFF: write a "
                "character that exists, or the text as it is", "yaml-syntax")
        return doc
    except RecursionError:
        r.error(Pos(path), "YAML nested too deeply", "yaml-depth")
        return doc
    if tree is None:
        r.error(first_content(path, text), "the file holds no data (its only value is null): a rules_data file "
                "is a mapping of sections (sources, topics, clauses, ...)", "schema-type")
        return doc
    doc.tree = tree
    _refuse_characters(doc)
    return doc


#: single-character escapes of a double-quoted YAML scalar, and what each stands for
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
            "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
            "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _escapes(text: str, start: int) -> list[tuple[int, str, str]]:
    r"""The escapes of the double-quoted scalar whose opening quote is at ``text[start]``:
    ``(index of the backslash, the character it stands for, the escape as written)``.

    >>> _escapes('a: "x\\0y\\u00e9\\\\" # \\e', 3)
    [(5, '\x00', '\\0'), (8, 'é', '\\u00e9'), (14, '\\', '\\\\')]
    """
    out = []
    i, n = start + 1, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            break
        if ch != "\\":
            i += 1
            continue
        nxt = text[i + 1:i + 2]
        end = i + 2
        if nxt in _ESCAPES:
            out.append((i, _ESCAPES[nxt], text[i:end]))
        elif nxt in _HEX_ESCAPES:
            end += _HEX_ESCAPES[nxt]
            try:
                out.append((i, chr(int(text[i + 2:end], 16)), text[i:end]))
            except ValueError:
                pass
        i = end                             # (an escaped line break: past it)
    return out


def _strings(node: Any, path: tuple = ()) -> Any:
    """``(path, text, is_key)`` for every key and text value of a tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(k, str):
                yield path + (k,), k, True
            yield from _strings(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _strings(v, path + (i,))
    elif isinstance(node, str):
        yield path, node, False


def _refuse_characters(doc: Document) -> None:
    r"""Report each character that is not text (a control character but tab and newline, a
    lone surrogate, U+FFFE/U+FFFF) that a double-quoted escape put into a key or a value,
    at its escape; the value is kept with U+FFFD in its place, so nothing after the loader
    (the checks, a page, a card, a diff) ever holds one. A key holding one leaves the whole
    file out, as a file that does not parse.

    >>> doc = read_text("e.yaml", 'a:\n  b: "bell \\a, \\udc80"\n')
    >>> for d in doc.report.diagnostics: print(d)
    e.yaml:2:12: error: control character U+0007 (BEL), written '\a': text in rules_data holds no control characters but tab and newline; remove the escape [control-character]
    e.yaml:2:16: error: lone surrogate U+DC80 (half of a UTF-16 pair, not a character), written '\udc80': it is not text; remove the escape, or write the character itself [not-a-character]
    >>> doc.tree["a"]["b"]
    'bell \ufffd, \ufffd'
    """  # noqa: E501 (the example's output is one line)
    text = doc.text
    if "\\" not in text and not NOT_TEXT.search(text):
        return                              # only an escape (or a raw CR or NEL) can put one in
    starts: list[int] = []
    found = 0
    bad_key = False
    for path, value, is_key in list(_strings(doc.tree)):
        if not NOT_TEXT.search(value):
            continue
        if not starts:
            starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        pos = node_pos(doc.path, doc.tree, path, key=is_key)
        at = starts[pos.line - 1] + pos.col - 1 if pos.line <= len(starts) else 0
        escapes = _escapes(text, at) if text[at:at + 1] == '"' else []
        places = [e for e in escapes if NOT_TEXT.match(e[1])]
        if not places:                      # not from an escape we can point at: the value's start
            places = [(at, m.group(), "") for m in NOT_TEXT.finditer(value)][:1]
        for i, ch, escape in places:
            found += 1
            if found <= MAX_CHAR_ERRORS:
                line, col = _line_col(text, i)
                _char_error(doc, Pos(doc.path, line, col), ch, escape)
        if is_key:
            bad_key = True
        elif not path:                      # the document is this one text (the schema refuses it)
            doc.tree = NOT_TEXT.sub("\ufffd", value)
        else:
            _replace(doc.tree, path, NOT_TEXT.sub("\ufffd", value))
    if found > MAX_CHAR_ERRORS:
        doc.report.error(Pos(doc.path), f"{found - MAX_CHAR_ERRORS} more characters that are "
                         "not text in this file (the first are listed above)", "control-character")
    if bad_key:
        doc.tree = None


def _char_error(doc: Document, pos: Pos, ch: str, escape: str) -> None:
    """One character that is not text, by its name: raw in the file, or written as an escape."""
    written = f"written '{escape}'" if escape else "in the file itself"
    if ch < "\ud800":
        doc.report.error(pos, f"{describe_char(ch)}, {written}: text in rules_data holds no "
                         "control characters but tab and newline; remove "
                         + ("the escape" if escape else "it"), "control-character")
    else:
        doc.report.error(pos, f"{describe_char(ch)}, {written}: it is not text; remove "
                         + ("the escape, or write the character itself" if escape else "it"),
                         "not-a-character")


def _replace(tree: Any, path: tuple, value: str) -> None:
    """Put ``value`` at ``path`` of ``tree``, keeping the scalar's kind (its quotes, for fmt)."""
    node = tree
    for step in path[:-1]:
        node = node[step]
    old = node[path[-1]]
    node[path[-1]] = value if type(old) is str else type(old)(value)


#: what the YAML reader refuses to read raw: every character outside YAML's printable set
_UNREADABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd"
                         "\U00010000-\U0010ffff]")


def _raw_characters(doc: Document, e: ReaderError) -> None:
    r"""Each character YAML cannot hold raw (a control character, U+FFFE...) at its place.

    >>> doc = read_text("c.yaml", "a: 1\nb: x\x07y\x1b\n")
    >>> for d in doc.report.diagnostics: print(d)
    c.yaml:2:5: error: control character U+0007 (BEL), in the file itself: text in rules_data holds no control characters but tab and newline; remove it [control-character]
    c.yaml:2:7: error: control character U+001B (ESC), in the file itself: text in rules_data holds no control characters but tab and newline; remove it [control-character]
    """  # noqa: E501 (the example's output is one line)
    text = doc.text
    found = 0
    for m in _UNREADABLE.finditer(text):
        found += 1
        if found <= MAX_CHAR_ERRORS:
            line, col = _line_col(text, m.start())
            _char_error(doc, Pos(doc.path, line, col), m.group(), "")
    if not found:                           # the reader saw one where this did not
        line, col = _line_col(text, min(max(getattr(e, "position", 0) or 0, 0), len(text)))
        doc.report.error(Pos(doc.path, line, col), f"YAML: {e}".splitlines()[0], "yaml-syntax")
    elif found > MAX_CHAR_ERRORS:
        doc.report.error(Pos(doc.path), f"{found - MAX_CHAR_ERRORS} more characters that are "
                         "not text in this file (the first are listed above)", "control-character")


def _unclosed_bracket(text: str, mark) -> tuple[int, int, str] | None:
    """The innermost ``[`` or ``{`` still open where the parser stopped (0-based line and
    column, and the bracket), skipping quoted text and comments.

    >>> _unclosed_bracket("clauses: [\\n", None)
    (0, 9, '[')
    >>> _unclosed_bracket("a: {b: [1, 2], c: '{'\\n", None)
    (0, 3, '{')
    """
    lines = text.split("\n")
    stop = (mark.line, mark.column) if mark is not None else (len(lines), 0)
    stack: list[tuple[int, int, str]] = []
    for n, line in enumerate(lines):
        quote = None
        for c, ch in enumerate(line):
            if (n, c) >= stop:
                return stack[-1] if stack else None
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "'\"" and (c == 0 or line[c - 1] in " [{,:"):
                quote = ch
            elif ch == "#" and (c == 0 or line[c - 1] == " "):
                break
            elif ch in "[{":
                stack.append((n, c, ch))
            elif ch in "]}" and stack:
                stack.pop()
    return stack[-1] if stack else None


_BIG_ESCAPE = re.compile(r"\\U([0-9A-Fa-f]{8})")


def _past_unicode(doc: Document) -> Pos:
    r"""Where the first ``\UXXXXXXXX`` escape past U+10FFFF is written in ``doc`` (else the file).

    >>> d = Document("f.yaml", 'a: "ok"\nb: "x \\U00110000"\n')
    >>> str(_past_unicode(d))
    'f.yaml:2:7'
    """
    for m in _BIG_ESCAPE.finditer(doc.text):
        if int(m.group(1), 16) > 0x10FFFF:
            line = doc.text.count("\n", 0, m.start())
            return Pos(doc.path, line + 1, m.start() - (doc.text.rfind("\n", 0, m.start()) + 1) + 1)
    return Pos(doc.path)


def _yaml_error(doc: Document, e: Exception) -> None:
    """One clear, positioned diagnostic for a YAML reading error."""
    pmark = getattr(e, "problem_mark", None)
    cmark = getattr(e, "context_mark", None)
    problem = str(getattr(e, "problem", None) or str(e).splitlines()[0])
    context = str(getattr(e, "context", None) or "")
    mark = pmark or cmark

    def at(m) -> str:
        return f"line {m.line + 1}, column {m.column + 1}"

    code = "yaml-syntax"
    if "duplicate key" in problem:
        code = "yaml-duplicate-key"
        key = problem.split('"')[1] if '"' in problem else ""
        msg = (f"duplicate key '{key}': a key may appear only once in the same mapping; "
               "keep one (merge the two if both hold data)")
    elif "'\\t'" in problem or "\\t" in problem or re.search(r"\btab\b", problem.lower()):
        code = "yaml-tab"
        msg = "tab character: YAML indentation and separation must use spaces"
    elif "another document" in problem or "single document" in context:
        code = "yaml-multi-document"
        msg = "more than one YAML document in the file ('---'): use one file per document"
    elif "mapping values are not allowed" in problem:
        msg = ("':' where no key can start: if a value contains ': ', put the value in quotes, "
               "e.g. title: 'Spotting: who sees'; otherwise check the indentation of this line")
        lines = doc.text.splitlines()
        line = lines[mark.line] if mark and mark.line < len(lines) else ""
        k, sep, v = line.partition(": ")
        if mark and " " not in line[:mark.column].strip() and line[:mark.column].strip():
            msg = ("this key is not lined up with the keys above it, so it reads as part of the "
                   "value above: indent it exactly as far as the other keys of its mapping")
        elif sep and ": " in v and not v.lstrip().startswith(("'", '"', "{", "[")):
            msg = (f"': ' inside a plain value; put the value in quotes, e.g. "
                   f"{k.strip().lstrip('- ')}: '{v.strip()}'")
    elif "while parsing a flow" in context and cmark is not None:
        opener = "[" if "sequence" in context else "{"
        open_at = _unclosed_bracket(doc.text, pmark or cmark)
        if open_at is not None:             # the bracket really left open, wherever it is
            (line, col, opener) = open_at
            cmark = type("Mark", (), {"line": line, "column": col})()
        closer = "]" if opener == "[" else "}"
        what = "list" if opener == "[" else "mapping"
        found = "the end of the file" if "stream end" in problem else f"{at(pmark)}"
        msg = (f"the {what} opened with '{opener}' here is not closed: add '{closer}' "
               f"(or a ',' between items) before {found}")
        mark = cmark
    elif "while scanning a quoted scalar" in context and cmark is not None:
        msg = "the quoted value that starts here has no closing quote: add it"
        mark = cmark
    elif "expected <block end>" in problem and "<scalar>" in problem:
        msg = ("unexpected text after a complete value: if a value starts with a quote, the "
               "whole value must be inside the quotes")
    elif "expected <block end>" in problem or "expected <block end>" in context:
        msg = ("this line is not lined up with the lines above it: keys of one mapping (and "
               "'-' items of one list) start at the same column")
    elif "cannot start any token" in problem:
        ch = problem.split("'")[1] if "'" in problem else "?"
        msg = f"a value cannot start with '{ch}': put the value in quotes"
    elif "could not find expected ':'" in problem:
        msg = "a key here has no ':' after it (or a quoted value is not closed)"
    else:
        msg = problem + (f" ({context})" if context else "")
    pos = Pos(doc.path, mark.line + 1, mark.column + 1) if mark is not None else Pos(doc.path)
    doc.report.error(pos, f"YAML: {msg}", code)


def read_file(path: str | os.PathLike) -> Document:
    """Read one file from disk; unreadable files become diagnostics."""
    p = str(path)
    try:
        with open(p, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        doc = Document(display_path(p))
        doc.report.error(Pos(doc.path), f"cannot read file: {e.strerror}", "file-unreadable")
        return doc
    return read_bytes(p, data, max(size, len(data)))


@dataclass
class FolderScan:
    """The YAML files of a rules folder, and what kept any part of it from being read.

    ``problems`` holds ``(path, severity, message, code)`` for a folder that cannot be
    read, a symlinked folder (never followed) and a name that is not UTF-8; ``complete``
    is False when the folder holds more than ``limit`` (:data:`MAX_ENTRIES`) files and
    folders, and the walk stopped there.
    """

    files: list[Path] = field(default_factory=list)
    problems: list[tuple[Path, str, str, str]] = field(default_factory=list)
    complete: bool = True
    limit: int = MAX_ENTRIES


def _bad_name(name: str) -> str | None:
    r"""What is wrong with a file or folder name, as :func:`os.fsdecode` read it (None if
    nothing is).

    >>> _bad_name("rules.yaml"), _bad_name("rules_\udcff.yaml")
    (None, 'is not UTF-8 (byte 0xff)')
    """
    bad = NOT_A_NAME.search(name)
    if bad is None:
        return None
    c = ord(bad.group())
    if 0xDC80 <= c <= 0xDCFF:
        return f"is not UTF-8 (byte 0x{c - 0xDC00:02x})"
    return f"holds a {describe_char(bad.group())}"


def scan_folder(root: str | os.PathLike, limit: int | None = None) -> FolderScan:
    r"""The YAML files under ``root`` (or the one file named), in a stable order, and the
    problems met on the way; never raises.

    A folder that cannot be read is an error (its files would be missing without a word);
    so is a symlinked folder inside ``root``, which is not followed (it may lead outside the
    rules folder, or back into it, round and round); a file or folder name that
    is not UTF-8 is an error (a site cannot name it), though the file is read. A symlinked
    file is read, as any file.

    Files and folders whose names start with a dot are not rules, and are not walked: a
    harmony at the top of its repository holds ``.github/workflows/*.yml`` (``harmony
    init`` writes one) and perhaps ``.pre-commit-config.yaml``, a ``.venv`` or ``.git``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     (Path(d) / "a.yaml").write_text("sources: []\n")
    ...     os.symlink(d, Path(d) / "loop")
    ...     scan = scan_folder(d)
    ...     [p.name for p in scan.files], [(p.name, sev, code) for p, sev, _, code in scan.problems]
    12
    (['a.yaml'], [('loop', 'error', 'folder-symlink')])
    """
    root = Path(root)
    scan = FolderScan(limit=MAX_ENTRIES if limit is None else limit)
    if root.is_file():
        scan.files.append(root)
        return scan
    seen = 0
    todo = [root]
    while todo:
        folder = todo.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            scan.problems.append((folder, "error", f"cannot read this folder ({e.strerror or e}): "
                                  "its files are not checked; make it readable", "folder-unreadable"))
            continue
        subfolders = []
        for entry in entries:
            if entry.name.startswith("."):  # not rules: .github/workflows, .venv, .git
                continue
            seen += 1
            if seen > scan.limit:
                scan.complete = False
                todo = []
                break
            path = Path(entry.path)
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir()
                is_file = not is_dir and entry.is_file()
            except OSError:
                continue
            bad = _bad_name(entry.name)
            if is_dir and is_link:
                scan.problems.append((path, "error", "a symlinked folder: harmony does not "
                                      "follow it, so its files are not read; move or copy them "
                                      "into the rules folder", "folder-symlink"))
            elif is_dir:
                if bad:
                    scan.problems.append((path, "error", f"the name of this folder {bad}: rename "
                                          "it (a site cannot name its files)", "file-name"))
                subfolders.append(path)
            elif is_file and path.suffix in YAML_SUFFIXES:
                if bad:
                    scan.problems.append((path, "error", f"the name of this file {bad}: rename "
                                          "it (a site cannot name it)", "file-name"))
                scan.files.append(path)
        todo.extend(reversed(subfolders))
    scan.files.sort(key=lambda p: p.as_posix())
    return scan


def yaml_files(root: str | os.PathLike) -> list[Path]:
    """The YAML files of a rules_data folder (or the one file named), in a stable order
    (:func:`scan_folder`, whose problems :func:`load` reports)."""
    return scan_folder(root).files


#: Files already read and validated in this process, by name and content hash:
#: ``harmony serve`` and the tests load the same folder again and again, and a
#: file whose bytes did not change need not be parsed again (parsing is most
#: of the loader's time). The trees in it are shared, so they are never changed
#: in place (``harmony fmt`` reads its own copy with :func:`read_file`).
_READ: OrderedDict[tuple, tuple[Document, Report, set]] = OrderedDict()
_READ_LIMIT = 512


def read_checked(path: str | os.PathLike) -> tuple[Document, Report, set]:
    """:func:`read_file` and :func:`harmony.schema.validate_items` of one file, reused
    while its bytes stay the same."""
    p = str(path)
    try:
        with open(p, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            data = f.read(MAX_BYTES + 1)
    except OSError:
        doc = read_file(p)
        return (doc, *validate_items(doc))
    key = (display_path(p), size, hashlib.sha256(data).digest())
    hit = _READ.get(key)
    if hit is not None:
        _READ.move_to_end(key)
        _remember_text(hit[0])
        return hit
    result = _read_checked_on_disk(p, key[0], data, max(size, len(data)))
    _READ[key] = result
    while len(_READ) > _READ_LIMIT:
        _READ.popitem(last=False)
    _remember_text(result[0])
    return result


def _read_checked_on_disk(p: str, shown: str, data: bytes, size: int) -> tuple[Document, Report, set]:
    """:func:`read_bytes` and the schema check of one file, remembered across processes by
    :mod:`harmony.parsecache` (keyed by the bytes, the shown path and harmony's code)."""
    k = parsecache.key(shown, data, size)
    hit = parsecache.get(k)
    if isinstance(hit, tuple) and len(hit) == 3 and isinstance(hit[0], Document):
        return hit
    doc = read_bytes(p, data, size, round_trip=False)
    result = (doc, *validate_items(doc))
    parsecache.put(k, result)
    return result


#: The text of each file as :func:`read_checked` last read it, by its shown path: the
#: positions of a loaded model point into exactly this text, so the checks that look
#: for a word on a line (:func:`file_text`) read it here instead of reading (or worse,
#: parsing) the file again.
_TEXTS: OrderedDict[str, str] = OrderedDict()


def _remember_text(doc: Document) -> None:
    _TEXTS[doc.path] = doc.text
    _TEXTS.move_to_end(doc.path)
    while len(_TEXTS) > _READ_LIMIT:
        _TEXTS.popitem(last=False)


def file_text(path: str) -> str:
    """The text of a rules_data file as the loader last read it in this process (the
    text its positions point into); a file it did not read is read from disk, decoded
    but never parsed ('' if it cannot be read).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".yaml", delete=False) as f:
    ...     _ = f.write(b"\\xef\\xbb\\xbfsources: []\\n")
    >>> file_text(f.name)
    'sources: []\\n'
    >>> doc, _, _ = read_checked(f.name)
    >>> file_text(doc.path) is doc.text
    True
    >>> os.unlink(f.name)
    """
    text = _TEXTS.get(path)
    if text is not None:
        return text
    try:
        with open(path, "rb") as f:
            return f.read(MAX_BYTES + 1).decode("utf-8", "replace").removeprefix("\ufeff")
    except OSError:
        return ""


#: the start of a line that names an item (``id:``, ``key:``, ``name:``, ``term:``), up to its
#: colon: blanks, a list dash and a brace are read one way only (written as two runs of blanks
#: around an optional brace, a line of a million blanks took the expression hours)
_NAMED_KEY = re.compile(r"^[ \t]*(?:-[ \t]+)?(?:\{[ \t]*)?(?:id|key|name|term)[ \t]*:", re.M)
#: the value after the colon, as :func:`_named_value` reads it (by hand: ``[^...]+?`` before
#: ``[ \t]*`` ran along every blank of a value once for each of them)
_NAMED_VALUE = re.compile(r"[ \t]*['\"]?([^'\"#,{}\n]+?)['\"]?[ \t]*(?:[,}#]|$)")
_VALUE_CHARS = re.compile(r"[^'\"#,{}\n]*")
_BLANKS = re.compile(r"[ \t]*")


def _past_blanks(line: str, at: int) -> int:
    m = _BLANKS.match(line, at)
    return m.end() if m else at


def _named_value(line: str) -> str | None:
    """What :data:`_NAMED_VALUE` captures at the start of ``line`` (the rest of a line after
    ``id:``), or None, reading the line once.

    >>> [_named_value(v) for v in (" PB, title: x", " 'Spotted unit'  # c", "  ,", " a  b  ", " [a]")]
    ['PB', 'Spotted unit', ' ', 'a  b', '[a]']
    """
    n = len(line)
    b = _past_blanks(line, 0)

    def group(g: int) -> str | None:
        if g >= n or line[g] in "'\"#,{}":
            return None
        m = _VALUE_CHARS.match(line, g)
        e = m.end() if m else g
        if e == n or line[e] in ",}#":
            t = e
            while t > g + 1 and line[t - 1] in " \t":
                t -= 1
            return line[g:t]
        if line[e] in "'\"":
            q = _past_blanks(line, e + 1)
            if q == n or line[q] in ",}#":
                return line[g:e]
        return None

    # in the order the expression tries: all the blanks and a quote, all the blanks, then one
    # blank less (fewer blanks still end the value at the same place: the same answer)
    if b < n and line[b] in "'\"":
        found = group(b + 1)
        if found is not None:
            return found
    found = group(b)
    if found is not None or b == 0:
        return found
    return group(b - 1)


def names_in_text(text: str) -> set[str]:
    """The ids, keys, names, terms and aliases a file that does not parse seems to define.

    >>> sorted(names_in_text("sources:\\n  - {key: PB, title: x}\\nglossary:\\n  - term: Spotted unit\\n"))
    ['PB', 'spotted unit']
    >>> sorted(names_in_text("  - term: inverted\\n    aliases: [Face down, 'invert']\\n"
    ...                      "  - term: spotted\\n    aliases:\\n      - spot  # verb\\n      - spotter\\n"))
    ['face down', 'invert', 'inverted', 'spot', 'spotted', 'spotter']
    """
    found = set()
    for m in _NAMED_KEY.finditer(text):
        end = text.find("\n", m.end())
        value = _named_value(text[m.end():end if end >= 0 else len(text)])
        if value is not None:
            found.add(value.strip().lower() if " " in value.strip() else value.strip())
    return found | _aliases_in_text(text)


_ALIASES = re.compile(r"^[ \t]*(?:-[ \t]+)?(?:\{[ \t]*)?aliases[ \t]*:[ \t]*(.*)$", re.M)
_ITEM = re.compile(r"^[ \t]*-[ \t]+(.*)$")


def _lines_after(text: str, end: int) -> Iterator[str]:
    """The lines after the one ending at ``end``, one at a time (the text is never split
    whole: a block list of aliases is read only as far as it goes)."""
    start = text.find("\n", end)
    while start >= 0:
        nxt = text.find("\n", start + 1)
        yield text[start + 1:nxt if nxt >= 0 else len(text)]
        start = nxt


def _term_name(value: Any) -> str:
    """A glossary term or alias as links are matched: lower case, single spaces."""
    return " ".join(str(value).lower().split())


def _aliases_in_text(text: str) -> set[str]:
    """The glossary aliases written in a file's text (flow list, block list or one value)."""
    found: set[str] = set()
    bare = lambda v: _term_name(v.split(" #")[0].strip().strip("'\""))  # noqa: E731
    read_to: set[int] = set()       # the ends of the flow lists read whole
    close = -2                      # the first ']' at or after the last list's start (-1: none)
    for m in _ALIASES.finditer(text):
        rest = m.group(1).split(" #")[0].strip()
        if rest.startswith("["):
            start = m.start(1) + m.group(1).index("[") + 1
            if close == -2 or 0 <= close < start:   # else the one found before is still the first
                close = text.find("]", start)
            end = close if close >= 0 else len(text)
            if end in read_to:
                # begun inside a list read already, to the same end: its lines after the
                # first are lines of that one
                eol = text.find("\n", start, end)
                end = eol if eol >= 0 else end
            else:
                read_to.add(end)
            values = [v for line in text[start:end].split("\n") for v in line.split(" #")[0].split(",")]
        elif rest:
            values = [rest]
        else:
            values = []
            for line in _lines_after(text, m.end()):
                item = _ITEM.match(line)
                if not item:
                    if line.strip() and not line.strip().startswith("#"):
                        break
                    continue
                values.append(item.group(1))
        found |= {bare(v) for v in values if bare(v)}
    return found


_ID_FIELD = {"sources": "key", "topics": "id", "clauses": "id", "parameters": "name",
             "glossary": "term", "footnotes": "id", "notes": "id", "tables": "id",
             "comparisons": "id"}


def _name(node: Any, field: str) -> str | None:
    value = node.get(field) if isinstance(node, dict) else None
    return value.lower() if field == "term" and isinstance(value, str) else (
        value if isinstance(value, str) else None)


def _aliases(item: Any) -> set[str]:
    """The aliases of a glossary item, however malformed the item.

    >>> sorted(_aliases({"term": "spotted", "aliases": ["Spot", 3, "spotter "]}))
    ['3', 'spot', 'spotter']
    """
    value = item.get("aliases") if isinstance(item, dict) else None
    values = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    return {_term_name(v) for v in values if isinstance(v, (str, int)) and _term_name(v)}


def usable_part(tree: Any, broken: set, left_out: set) -> dict:
    """The sections and items of ``tree`` without schema problems.

    ``broken`` holds ``(section,)`` and ``(section, index)`` entries (see
    :func:`harmony.schema.validate_items`); the names of what is dropped go
    to ``left_out``.
    """
    kept: dict = {}
    for section, value in tree.items():
        field = _ID_FIELD.get(section, "id")
        whole = (section,) in broken
        if isinstance(value, list):
            keep = []
            for i, item in enumerate(value):
                if whole or (section, i) in broken:
                    name = _name(item, field)
                    if name:
                        left_out.add(name)
                    if section == "glossary":   # its aliases are names links may use too
                        left_out.update(_aliases(item))
                else:
                    keep.append(item)
            kept[section] = keep
        elif whole:
            name = _name(value, field)
            if name:
                left_out.add(name)
        else:
            kept[section] = value
    return kept


def read_usable(root: str | os.PathLike, report: Report) -> Iterator[tuple[str, Any]]:
    """Each file of a rules folder (or the one file), read and checked: its name as shown
    and the part of its tree the model takes (None: nothing of it), the problems found
    going to ``report``. What has a problem is left out (a whole file that does not
    parse, else only the item at fault); the names it defines go to ``report.left_out``
    so that references to them are not reported a second time. :func:`load` builds its
    model from these; :mod:`harmony.modeljson` writes them down for a reader without YAML.
    """
    scan = scan_folder(root)
    for where, severity, message, code in scan.problems:
        (report.error if severity == "error" else report.warning)(
            Pos(display_path(str(where))), message, code)
        if code in ("folder-unreadable", "folder-symlink"):
            report.incomplete = report.folder_left_out = True
    if not scan.complete:
        report.error(Pos(display_path(str(root))), f"more than {scan.limit:,} files and folders: "
                     "a rules folder holds far fewer; is this the rules_data folder?", "folder-too-large")
        report.incomplete = report.folder_left_out = True
    for path in scan.files:
        doc, schema_report, broken = read_checked(path)
        report.files += 1
        report.extend(doc.report)
        if doc.tree is None:
            report.left_out |= names_in_text(doc.text)
            report.incomplete = True
            yield doc.path, None
            continue
        report.extend(schema_report)
        report.incomplete = report.incomplete or bool(broken)
        if () in broken:
            report.left_out |= names_in_text(doc.text)
            yield doc.path, None
            continue
        yield doc.path, usable_part(doc.tree, broken, report.left_out) if broken else doc.tree


def load(root: str | os.PathLike):
    """Read a rules_data folder (or one file) into ``(Model, Report)``.

    The report holds every reading and schema problem. What has such a
    problem is left out of the model (:func:`read_usable`), so later stages
    see only valid data.
    """
    report = Report()
    model = Model(root=display_path(str(root)))
    for path, tree in read_usable(root, report):
        model.files.append(path)
        if tree is not None:
            add_document(model, tree, path)
    return model, report
