"""The one loader: YAML files in, positioned trees out.

Every command reads rules_data through :func:`load` (folder or file to
:class:`harmony.model.Model`). Reading is safe and bounded: files over
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
y.yaml:1:4: error: YAML anchors and aliases are not allowed in rules_data (anchor '&x') [yaml-alias]
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml import events as ev

from .diagnostics import Pos, Report, display_path

MAX_BYTES = 1_000_000
MAX_DEPTH = 40
YAML_SUFFIXES = (".yaml", ".yml")


def new_yaml() -> YAML:
    """The round-trip YAML object used for reading and writing (comments kept)."""
    y = YAML(typ="rt")
    y.allow_duplicate_keys = False
    y.preserve_quotes = True
    y.width = 88
    y.indent(mapping=2, sequence=4, offset=2)
    return y


@dataclass
class Document:
    """One YAML file: its text, its round-trip tree and what went wrong reading it."""

    path: str
    text: str = ""
    tree: Any = None
    report: Report = field(default_factory=Report)

    def pos(self, *path: str | int, key: bool = False) -> Pos:
        """Position of the value at ``path`` (or of its key with ``key=True``).

        Falls back to the nearest enclosing node that has a position.
        """
        return node_pos(self.path, self.tree, path, key=key)


def node_pos(file: str, tree: Any, path: tuple, key: bool = False) -> Pos:
    node, best = tree, Pos(file, 1, 1)
    if hasattr(node, "lc") and node.lc.line is not None:
        best = Pos(file, node.lc.line + 1, node.lc.col + 1)
    for i, step in enumerate(path):
        last = i == len(path) - 1
        try:
            if isinstance(node, CommentedMap) and step in node:
                line, col = node.lc.key(step) if (key and last) else node.lc.value(step)
                best = Pos(file, line + 1, col + 1)
                node = node[step]
            elif isinstance(node, CommentedSeq) and isinstance(step, int) and 0 <= step < len(node):
                line, col = node.lc.item(step)
                best = Pos(file, line + 1, col + 1)
                node = node[step]
            else:
                break
        except (KeyError, TypeError, AttributeError):
            break
    return best


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    col = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, col


def read_bytes(path: str, data: bytes) -> Document:
    """Decode and read one file's bytes; never raises on bad input."""
    shown = display_path(path)
    doc = Document(shown)
    r = doc.report
    if len(data) > MAX_BYTES:
        r.error(Pos(shown), f"file is too large ({len(data):,} bytes; the limit is "
                f"{MAX_BYTES:,}): split it into several files", "file-too-large")
        return doc
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _line_col(data[:nul].decode("utf-8", "replace"), nul)
        r.error(Pos(shown, data.count(b"\n", 0, nul) + 1, 1),
                "binary file (NUL byte found): rules_data holds YAML text only", "file-binary")
        return doc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        good = data[:e.start].decode("utf-8", "replace")
        line, col = _line_col(good, len(good))
        r.error(Pos(shown, line, col), f"not valid UTF-8 (byte 0x{data[e.start]:02x}): "
                "save the file as UTF-8", "file-encoding")
        return doc
    return read_text(shown, text.removeprefix("\ufeff"))


def read_text(path: str, text: str) -> Document:
    doc = Document(path, text)
    r = doc.report
    if not text.strip() or all(not l.strip() or l.lstrip().startswith("#") for l in text.splitlines()):
        r.error(Pos(path), "empty file: a rules_data file needs at least one section "
                "(sources, topics, clauses, ...)", "file-empty")
        return doc
    if not _prescan(doc):
        return doc
    y = new_yaml()
    try:
        doc.tree = y.load(text)
    except YAMLError as e:  # duplicate keys and anything the pre-scan let through
        _yaml_error(doc, e)
        doc.tree = None
    except RecursionError:
        r.error(Pos(path), "YAML nested too deeply", "yaml-depth")
        doc.tree = None
    return doc


def _yaml_error(doc: Document, e: Exception) -> None:
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    code = "yaml-syntax"
    name = type(e).__name__
    if "Duplicate" in name or "duplicate" in str(problem):
        code = "yaml-duplicate-key"
        key = str(problem).split('"')[1] if '"' in str(problem) else ""
        problem = f"duplicate key {key!r}" if key else "duplicate key"
        mark = getattr(e, "problem_mark", None) or mark
    elif "\\t" in str(problem) or "'\\t'" in str(e) or "tab" in str(problem).lower():
        code = "yaml-tab"
        problem = "tab character: YAML indentation must use spaces"
    pos = Pos(doc.path, mark.line + 1, mark.column + 1) if mark is not None else Pos(doc.path)
    ctx = getattr(e, "context", None)
    msg = f"YAML: {problem}" + (f" ({ctx})" if ctx and code == "yaml-syntax" else "")
    doc.report.error(pos, msg, code)


def _prescan(doc: Document) -> bool:
    """Walk the YAML events (no objects built) and refuse what we never accept."""
    y = YAML(typ="rt")
    depth, docs = 0, 0
    r = doc.report
    try:
        for event in y.parse(io.StringIO(doc.text)):
            m = event.start_mark
            pos = Pos(doc.path, m.line + 1, m.column + 1)
            if isinstance(event, ev.DocumentStartEvent):
                docs += 1
                if docs > 1:
                    r.error(pos, "more than one YAML document in the file ('---'): "
                            "use one file per document", "yaml-multi-document")
                    return False
            if isinstance(event, ev.AliasEvent):
                r.error(pos, f"YAML anchors and aliases are not allowed in rules_data "
                        f"(alias '*{event.anchor}')", "yaml-alias")
                return False
            if isinstance(event, ev.NodeEvent) and event.anchor:
                r.error(pos, f"YAML anchors and aliases are not allowed in rules_data "
                        f"(anchor '&{event.anchor}')", "yaml-alias")
                return False
            tag = getattr(event, "tag", None)
            if tag is not None and isinstance(event, ev.NodeEvent):
                r.error(pos, f"YAML tags are not allowed in rules_data ({tag})", "yaml-tag")
                return False
            if isinstance(event, (ev.MappingStartEvent, ev.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    r.error(pos, f"YAML nested more than {MAX_DEPTH} levels deep", "yaml-depth")
                    return False
            elif isinstance(event, (ev.MappingEndEvent, ev.SequenceEndEvent)):
                depth -= 1
    except MarkedYAMLError as e:
        _yaml_error(doc, e)
        return False
    except YAMLError as e:
        _yaml_error(doc, e)
        return False
    return True


def read_file(path: str | os.PathLike) -> Document:
    """Read one file from disk; unreadable files become diagnostics."""
    p = str(path)
    try:
        with open(p, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        doc = Document(display_path(p))
        doc.report.error(Pos(doc.path), f"cannot read file: {e.strerror}", "file-unreadable")
        return doc
    return read_bytes(p, data)


def yaml_files(root: str | os.PathLike) -> list[Path]:
    """The YAML files of a rules_data folder (or the one file named), in a stable order."""
    root = Path(root)
    if root.is_file():
        return [root]
    return sorted((p for p in root.rglob("*") if p.suffix in YAML_SUFFIXES and p.is_file()),
                  key=lambda p: p.as_posix())


def read_all(root: str | os.PathLike) -> list[Document]:
    return [read_file(p) for p in yaml_files(root)]


def plain(node: Any) -> Any:
    """The round-trip tree as plain dicts, lists and scalars."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return str(node)


def walk(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, path + (i,))


def load(root: str | os.PathLike):
    """Read a rules_data folder (or one file) into ``(Model, Report)``.

    The report holds every reading and schema problem; files with such
    problems are left out of the model so later stages see only valid data.
    """
    from .model import Model, add_document
    from .schema import validate

    report = Report()
    model = Model(root=display_path(str(root)))
    for doc in read_all(root):
        report.files += 1
        model.files.append(doc.path)
        report.extend(doc.report)
        if doc.tree is None:
            continue
        schema_report = validate(doc)
        report.extend(schema_report)
        if not schema_report.errors:
            add_document(model, doc.tree, doc.path)
    return model, report
