"""``harmony fmt``: one layout for every rules_data file.

Keys are put in the order the JSON Schema lists them (unknown keys keep their
place after the known ones), layout is ruamel's round-trip dump with fixed
indentation, and every comment stays attached to its key. Files are written
atomically (temporary file, then rename) and only when their bytes change.
"""
from __future__ import annotations

import io
import os
import tempfile
from dataclasses import dataclass

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from .diagnostics import Pos
from .loader import Document, new_yaml, plain, read_file, yaml_files
from .schema import resolve as _resolve, schema, validate_items


def _branch(s: dict, node) -> dict:
    s = _resolve(s)
    for key in ("oneOf", "anyOf"):
        if key in s:
            for b in s[key]:
                b = _resolve(b)
                t = b.get("type")
                if (isinstance(node, dict) and t == "object") or (isinstance(node, list) and t == "array"):
                    return b
            return {}
    return s


def order_keys(node, s: dict) -> None:
    """Reorder mappings in place to the schema's property order, recursively."""
    s = _branch(s, node)
    if isinstance(node, CommentedMap):
        props = s.get("properties", {})
        if props:
            known = [k for k in props if k in node]
            for k in known + [k for k in list(node) if k not in props]:
                node.move_to_end(k)
        for k in list(node):
            sub = props.get(k) if k in props else s.get("additionalProperties")
            if isinstance(sub, dict):
                order_keys(node[k], sub)
    elif isinstance(node, CommentedSeq):
        items = s.get("items")
        if isinstance(items, dict):
            for v in node:
                order_keys(v, items)


class FormatError(Exception):
    """Formatting would change the data (never written)."""


def formatted(doc: Document) -> str:
    """The formatted text of a document that loaded cleanly.

    Trailing blanks that ruamel leaves where it folds a long line are dropped,
    and the result is re-read and compared with the original data: a format
    that would change a single value raises :class:`FormatError` instead.
    """
    before = plain(doc.tree)
    order_keys(doc.tree, schema())
    out = io.StringIO()
    new_yaml().dump(doc.tree, out)
    text = "\n".join(line.rstrip(" ") for line in out.getvalue().split("\n"))
    for candidate in (text, out.getvalue()):
        try:
            if plain(new_yaml().load(candidate)) == before:
                return candidate
        except Exception:  # noqa: BLE001 - any failure means: do not use this text
            continue
    raise FormatError(f"{doc.path}: formatting would change the data; file left as it is")


def write_atomic(path: str, text: str) -> None:
    """Replace ``path`` by ``text`` all at once: a temporary file in the same
    folder, flushed to disk, then renamed over the original. If anything
    fails (or the write is interrupted) the original is left as it was and
    the temporary file is removed."""
    folder = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644
    fd, tmp = tempfile.mkstemp(prefix=".harmony-fmt-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@dataclass
class FmtResult:
    changed: list[str]
    failed: list[Document]
    files: int


BOM = b"\xef\xbb\xbf"


def fmt_path(root: str, check: bool = False) -> FmtResult:
    """Format every YAML file under ``root``; with ``check`` only report which would change.

    A file with reading or schema errors is never written (it is returned in
    ``failed`` with its diagnostics); neither is one whose text would not
    change, so its bytes, inode and modification time stay as they are.
    """
    changed, failed, files = [], [], 0
    for p in yaml_files(root):
        files += 1
        doc = read_file(p)
        if doc.tree is None or doc.report.errors:
            failed.append(doc)
            continue
        schema_report, _ = validate_items(doc)
        if schema_report.errors:
            doc.report.extend(schema_report)
            failed.append(doc)
            continue
        try:
            text = formatted(doc)
        except FormatError as e:
            doc.report.error(Pos(doc.path), str(e).split(": ", 1)[1], "fmt-unsafe")
            failed.append(doc)
            continue
        try:
            with open(p, "rb") as f:
                had_bom = f.read(len(BOM)) == BOM
        except OSError:
            had_bom = False
        if text != doc.text or had_bom:
            changed.append(doc.path)
            if not check:
                try:
                    write_atomic(str(p), text)
                except OSError as e:
                    changed.pop()
                    doc.report.error(Pos(doc.path), f"cannot write the formatted file "
                                     f"({e.strerror or e}); the file is left as it was", "fmt-write")
                    failed.append(doc)
    return FmtResult(changed, failed, files)
