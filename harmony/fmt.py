"""``harmony fmt``: one layout for every rules_data file.

Keys are put in the order the JSON Schema lists them (unknown keys keep their
place after the known ones), layout is ruamel's round-trip dump with fixed
indentation, and every comment is kept: a comment line moves with the key it
stands above, an end-of-line comment stays on its line. Files are written
atomically (temporary file, then rename) and only when their bytes change; the
temporary file is removed when fmt is stopped (Ctrl-C, SIGTERM), and the one a
killed fmt (SIGKILL) left is removed by the next run in that folder.
"""
from __future__ import annotations

import bisect
import io
import os
import re
import stat
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString
from ruamel.yaml.tokens import CommentToken

from . import ccompose
from .diagnostics import Pos
from .loader import Document, new_yaml, plain, read_file, yaml_files
from .outdir import no_space
from .schema import resolve as _resolve, schema, validate_items
from .signals import terminated_as_exit


def _fits(cond: dict, node) -> bool:
    """Whether ``node`` meets a schema ``if`` as the scenario's branches write them: keys
    ``required``, ``anyOf`` alternatives, and ``properties`` that must meet their own.

    >>> _fits({"required": ["map"], "properties": {"map": {"required": ["inches"]}}}, {"map": {"inches": 1}})
    True
    >>> _fits({"anyOf": [{"required": ["units"]}, {"required": ["start"]}]}, {"map": {}})
    False
    """
    if not isinstance(node, dict):
        return False
    if not all(k in node for k in cond.get("required", [])):
        return False
    if "anyOf" in cond and not any(_fits(c, node) for c in cond["anyOf"]):
        return False
    return all(k not in node or _fits(v, node[k]) for k, v in cond.get("properties", {}).items()
               if isinstance(v, dict) and ("required" in v or "properties" in v or "anyOf" in v))


def _branch(s: dict, node) -> dict:
    s = _resolve(s)
    if "if" in s and isinstance(node, dict):   # a scenario: the hex game's, Combat Patrol's or another's
        return _branch(s["then"] if _fits(s["if"], node) else s.get("else", {}), node)
    for key in ("oneOf", "anyOf"):
        if key in s:
            for b in s[key]:
                b = _resolve(b)
                t = b.get("type")
                if (isinstance(node, dict) and t == "object") or (isinstance(node, list) and t == "array"):
                    return b
            return {}
    return s


def order_keys(node, s: dict, trail: tuple = ()) -> None:
    """Reorder mappings in place to the schema's property order, recursively.

    ruamel keeps a comment line with the entry *above* it, so moving keys
    naively would carry a comment away from the key it introduces. The
    full-line comments written before a key therefore move with that key,
    those at the end of a mapping stay at its end, and an end-of-line
    comment stays on its line (``trail`` holds the ``(container, key)`` pairs
    leading to ``node``):

    >>> import sys
    >>> from harmony.loader import new_yaml
    >>> tree = new_yaml().load("text: T  # why\\n# the status\\nstatus: rule\\n")
    >>> order_keys(tree, {"properties": {"status": {}, "text": {}}})
    >>> new_yaml().dump(tree, sys.stdout)
    # the status
    status: rule
    text: T  # why
    """
    s = _branch(s, node)
    if isinstance(node, CommentedMap):
        props = s.get("properties", {})
        if props:
            keys = list(node)
            last = s.get("x-last", [])      # after a game's own keys (a step's expect)
            known = [k for k in props if k in node and k not in last]
            new = known + [k for k in keys if k not in props] + [k for k in last if k in node]
            if new != keys:
                _reorder(node, keys, new, trail)
        for k in list(node):
            sub = props.get(k) if k in props else s.get("additionalProperties")
            if isinstance(sub, dict):
                order_keys(node[k], sub, trail + ((node, k),))
    elif isinstance(node, CommentedSeq):
        items = s.get("items")
        if isinstance(items, dict):
            for i, v in enumerate(node):
                order_keys(v, items, trail + ((node, i),))


BLOCK_SCALARS = (LiteralScalarString, FoldedScalarString)


def _reorder(node: CommentedMap, keys: list, new: list, trail: tuple) -> None:
    """Put the keys of ``node`` in the order ``new``, moving comment lines along."""
    lead = {keys[i + 1]: _take_tail(node, keys[i]) for i in range(len(keys) - 1)}
    if trail and isinstance(trail[-1][0], CommentedMap):
        # lines before the first key of a mapping inside a mapping are about that key
        # (before a list item they are about the item; atop the file, about the file)
        lead[keys[0]] = _take_head(node, trail[-1])
    tail = _take_tail(node, keys[-1])
    for k in new:
        node.move_to_end(k)
    for j, k in enumerate(new):
        if lead.get(k):
            if j:
                _add_tail(node, new[j - 1], lead[k])
            else:
                _add_lead(node, trail, lead[k])
    _add_tail(node, new[-1], tail)


def _lines(token) -> str:
    """A comment token as whole lines, each with its indentation."""
    value = token.value
    return " " * token.start_mark.column + value if value.startswith("#") else value


def _take_head(node: CommentedMap, up: tuple) -> str:
    """Remove and return the comment lines before the first key of ``node``."""
    parent, key = up
    tokens = (node.ca.comment or [None, None])[1] or []
    if node.ca.comment:
        node.ca.comment[1] = None
    entry = parent.ca.items.get(key)
    if entry and len(entry) > 3:
        entry[3] = None  # ruamel keeps the same lines here too, and prints these
    return "".join(_lines(t) for t in tokens)


def _slots(container, key) -> list[tuple]:
    """The entry ``container[key]`` and, while its value is a block mapping or
    list, the last entry of that value: the last one holds the comment lines
    that follow the entry."""
    out = [(container, key)]
    value = container[key]
    while isinstance(value, (CommentedMap, CommentedSeq)) and len(value) and \
            not value.fa.flow_style():
        last = next(reversed(value)) if isinstance(value, CommentedMap) else len(value) - 1
        out.append((value, last))
        value = value[last]
    return out


def _post_index(container) -> int:
    return 2 if isinstance(container, CommentedMap) else 0


def _post(container, key):
    entry = container.ca.items.get(key)
    i = _post_index(container)
    return entry[i] if entry and len(entry) > i else None


def _set_post(container, key, token) -> None:
    entry = container.ca.items.setdefault(key, [None, None, None, None])
    entry[_post_index(container)] = token


def _take_tail(container, key) -> str:
    """Remove and return the full comment (and blank) lines after an entry,
    each with its indentation; an end-of-line comment is left in place.

    ruamel keeps them with the last scalar of the entry or, after a flow
    collection that ends a block one, as the end comments of that block
    collection: they are gathered in the order they are printed.
    """
    slots = _slots(container, key)
    parts = []
    for i in range(len(slots) - 1, -1, -1):
        c, k = slots[i]
        value = c[k]
        if i < len(slots) - 1:
            parts.append(_take_end(value))
        token = _post(c, k) if i == len(slots) - 1 else None  # else: on the key's line
        if token is not None:
            if isinstance(value, BLOCK_SCALARS):  # no end-of-line comment after it
                _set_post(c, k, None)
                parts.append(_lines(token))
            else:
                head, nl, rest = token.value.partition("\n")
                if rest:
                    if head:
                        token.value = head + nl
                    else:
                        _set_post(c, k, None)
                parts.append(rest)
        if i == len(slots) - 1 and isinstance(value, (CommentedMap, CommentedSeq)):
            parts.append(_take_end(value))
    return "".join(parts)


def _take_end(node) -> str:
    end = getattr(node.ca, "end", None) or []
    node.ca.end = []
    return "".join(_lines(t) for t in end if t is not None)


def _add_tail(container, key, text: str) -> None:
    """Write comment lines (indentation included) after an entry."""
    if not text:
        return
    text = _take_tail(container, key) + text  # after what is there, all in one place
    c, k = _slots(container, key)[-1]
    token = _post(c, k)
    if token is not None:
        token.value = token.value + ("" if token.value.endswith("\n") else "\n") + text
    elif isinstance(c[k], BLOCK_SCALARS):
        stripped = text.lstrip(" ")
        _set_post(c, k, CommentToken(stripped, CommentMark(len(text) - len(stripped))))
    else:
        _set_post(c, k, CommentToken("\n" + text, CommentMark(0)))


def _add_lead(node: CommentedMap, trail: tuple, text: str) -> None:
    """Write comment lines before the first key of ``node``."""
    parent, where = trail[-1] if trail else (None, None)
    holder: CommentedMap | CommentedSeq = node
    up = trail[-1] if trail else None
    if isinstance(parent, CommentedSeq):
        # now before the item's '- ', two columns left of its keys
        text = "".join(line[2:] if line.startswith("  ") else line
                       for line in text.splitlines(keepends=True))
        if where:
            _add_tail(parent, where - 1, text)  # they end the item above
            return
        holder, up = parent, trail[-2] if len(trail) > 1 else None
    if holder.ca.comment is None:
        holder.ca.comment = [None, None]
    if holder.ca.comment[1] is None:
        holder.ca.comment[1] = []
    holder.ca.comment[1].append(CommentToken(text, CommentMark(0)))
    if up is not None and isinstance(up[0], CommentedMap) and up[1] in up[0].ca.items:
        # ruamel prints the copy held by the mapping above, when there is one
        entry = up[0].ca.items[up[1]]
        entry.extend([None] * (4 - len(entry)))
        entry[3] = holder.ca.comment[1]


def _flow_comments(text: str) -> list[tuple[int, int, str]]:
    """Every comment written inside a flow list or mapping: (line, column, text), 0-based.

    >>> _flow_comments("a: [x,  # why\\n   y]  # after\\n")
    [(0, 8, '# why')]
    """
    comments, spans, stack = [], [], []
    if "#" not in text:
        return []           # no comment at all: the text is not scanned again
    for tok in new_yaml().scan(text):
        name = type(tok).__name__
        where = (tok.start_mark.line, tok.start_mark.column)
        for part in getattr(tok, "_comment", None) or ():
            for c in (part if isinstance(part, list) else [part]):
                if isinstance(c, CommentToken):
                    comments.append((c.start_mark.line, c.start_mark.column, c.value.strip()))
        if name in ("FlowSequenceStartToken", "FlowMappingStartToken"):
            stack.append(where)
        elif name in ("FlowSequenceEndToken", "FlowMappingEndToken") and stack:
            spans.append((stack.pop(), where))
    outer = _outermost(spans)
    starts = [a for a, _ in outer]
    return sorted({c for c in comments if _inside(c[:2], outer, starts)})


def _outermost(spans: list) -> list:
    """The spans of flow collections (``(start, end)``; they nest or stand apart) that no other
    holds, in order.

    >>> _outermost([((0, 6), (0, 8)), ((0, 4), (0, 9)), ((2, 0), (3, 1))])
    [((0, 4), (0, 9)), ((2, 0), (3, 1))]
    """
    outer: list = []
    for a, b in sorted(spans):
        if not outer or a >= outer[-1][1]:
            outer.append((a, b))
    return outer


def _inside(where: tuple[int, int], outer: list, starts: list) -> bool:
    """Whether ``where`` lies strictly inside one of the ``outer`` spans (``starts``: theirs),
    found by bisection: fmt of a file of thousands of flow comments compared each with every
    collection of the file.

    >>> outer = [((0, 4), (0, 9)), ((2, 0), (3, 1))]
    >>> [_inside(w, outer, [a for a, _ in outer]) for w in [(0, 4), (0, 5), (1, 0), (2, 5), (3, 1)]]
    [False, True, False, True, False]
    """
    i = bisect.bisect_left(starts, where) - 1
    return i >= 0 and outer[i][0] < where < outer[i][1]


def keep_flow_comments(tree, text: str) -> None:
    """Keep the comments written inside flow collections, which ruamel would drop.

    Each becomes an end-of-line comment of the item written before it, and its
    collection (with any flow collection around it) is written in block style:

    >>> import sys
    >>> text = "aliases: [a,  # why\\n  b]\\n"
    >>> tree = new_yaml().load(text)
    >>> keep_flow_comments(tree, text)
    >>> new_yaml().dump(tree, sys.stdout)
    aliases:
      - a  # why
      - b
    """
    comments = _flow_comments(text)
    if not comments:
        return
    items: list[tuple[tuple[int, int], Any, Any, list]] = []  # (pos, node, key, ancestors)

    def walk(node, ancestors: list) -> None:
        if not isinstance(node, (CommentedMap, CommentedSeq)):
            return
        flow = node.fa.flow_style()
        inner = ancestors + [node] if flow else []
        keys = list(node.keys()) if isinstance(node, CommentedMap) else range(len(node))
        for k in keys:
            where = node.lc.data.get(k) if isinstance(node, CommentedMap) else \
                (node.lc.data[k] if k < len(node.lc.data) else None)
            if flow and where:
                items.append(((where[-2], where[-1]), node, k, inner))
            walk(node[k], inner)

    walk(tree, [])
    items.sort(key=lambda t: t[0])
    for node in {id(t[1]): t[1] for t in items}.values():
        node.ca.items.clear()  # ruamel's own (dropped on output) placement of these comments
    places = [t[0] for t in items]
    for line, col, comment in comments:
        n = bisect.bisect_left(places, (line, col))    # the items written before it
        if not n:
            continue
        _, node, key, ancestors = items[n - 1]
        for n in ancestors:
            n.fa.set_block_style()
        node.yaml_add_eol_comment(comment, key)


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
    keep_flow_comments(doc.tree, doc.text)
    out = io.StringIO()
    try:
        new_yaml().dump(doc.tree, out)
    except (ValueError, TypeError, ArithmeticError) as e:
        # ruamel.yaml cannot write some values it reads (``-1e-999``, a float that rounds to
        # -0.0 in exponent form, fails in its representer): leave the file as it is
        raise FormatError(f"{doc.path}: ruamel.yaml cannot write this file back ({type(e).__name__}: {e}); "
                          "file left as it is") from None
    text = "\n".join(line.rstrip(" ") for line in out.getvalue().split("\n"))
    for candidate in (text, out.getvalue()):
        try:
            if _data(candidate) == before:
                return candidate
        except Exception:  # noqa: BLE001 - any failure means: do not use this text
            continue
    raise FormatError(f"{doc.path}: formatting would change the data; file left as it is")


def _data(text: str) -> Any:
    """The data of ``text``, read again to compare: by the C parser where it is sure to read
    it as ruamel does (:mod:`harmony.ccompose`, as ``harmony check`` reads), else by ruamel's
    round-trip reader (pure Python: a second one took a third of fmt's time).

    >>> _data("a: [1, yes]\\n# c\\n"), _data("a: &x 1\\nb: *x\\n")
    ({'a': [1, 'yes']}, {'a': 1, 'b': 1})
    """
    tree = ccompose.compose(text)
    return plain(tree if tree is not None else new_yaml().load(text))


TEMP_PREFIX = ".harmony-fmt-"
TEMP_SUFFIX = ".tmp"
#: a temporary file of ours: ``.harmony-fmt-PID-RANDOM.tmp`` (no PID in older versions)
_TEMP_NAME = re.compile(r"^\.harmony-fmt-(?:(\d+)-)?[^/]*\.tmp$")
#: a temporary file without the PID of its writer is stale when older than this
STALE_SECONDS = 600


def write_atomic(path: str, text: str) -> None:
    """Replace ``path`` by ``text`` all at once: a temporary file in the same
    folder, flushed to disk, then renamed over the original. If anything
    fails (or the write is interrupted) the original is left as it was and
    the temporary file is removed. A symbolic link is followed, so the file it
    points to is replaced and the link stays a link.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write_atomic(str(d / "a.yaml"), "x: 1\\n")
    >>> sorted(p.name for p in d.iterdir())
    ['a.yaml']
    """
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=TEMP_SUFFIX,
                               dir=folder)
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


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # ours, from before this run (not possible) or left by a fork
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process, alive
    return True


def remove_stale_temp_files(folder: str, started: float) -> list[str]:
    """Remove the temporary files a killed ``harmony fmt`` left in ``folder`` (a SIGKILL
    cannot be caught): ours by name, written by a process no longer running, or, when
    the name gives no process, older than :data:`STALE_SECONDS` before ``started``.
    Returns the names removed.

    >>> import tempfile, pathlib, time
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / ".harmony-fmt-999999999-abc.tmp").write_text("half")
    >>> _ = (d / "other.tmp").write_text("not ours")
    >>> remove_stale_temp_files(str(d), time.time())
    ['.harmony-fmt-999999999-abc.tmp']
    >>> sorted(p.name for p in d.iterdir())
    ['other.tmp']
    """
    removed: list[str] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return removed
    for name in names:
        m = _TEMP_NAME.match(name)
        if not m:
            continue
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                continue
            stale = (not _alive(int(m.group(1)))) if m.group(1) else \
                st.st_mtime < started - STALE_SECONDS
            if stale and st.st_mtime <= started:
                os.unlink(path)
                removed.append(name)
        except (OSError, ValueError, OverflowError):
            continue
    return removed


@dataclass
class FmtResult:
    changed: list[str]
    #: files not read: reading or schema errors, or a format that would change the data
    failed: list[Document]
    files: int
    #: files to reformat that could not be written, with the error (each left as it was);
    #: a full disk stops the run at the first
    unwritten: list[tuple[str, OSError]] = field(default_factory=list)

    def write_failures(self) -> list[str]:
        """One line per file that could not be written.

        >>> import errno
        >>> FmtResult([], [], 2, [("a.yaml", OSError(errno.EACCES, "Permission denied")),
        ...                       ("b.yaml", OSError(errno.ENOSPC, "No space left on device"))]
        ...           ).write_failures()  # doctest: +NORMALIZE_WHITESPACE
        ['cannot write a.yaml: Permission denied; the file is left as it was',
         'no space left on device writing b.yaml; the file is left as it was']
        """
        return [(f"no space left on device writing {path}" if no_space(e) else
                 f"cannot write {path}: {e.strerror or e}") + "; the file is left as it was"
                for path, e in self.unwritten]


BOM = b"\xef\xbb\xbf"


def fmt_path(root: str, check: bool = False) -> FmtResult:
    """Format every YAML file under ``root``; with ``check`` only report which would change.

    A file with reading or schema errors is never written (it is returned in
    ``failed`` with its diagnostics); neither is one whose text would not
    change, so its bytes, inode and modification time stay as they are. A file
    whose write fails is left as it was and returned in ``unwritten``.
    """
    with terminated_as_exit():     # (the temporary file is removed on SIGTERM too)
        return _fmt_path(root, check)


def _fmt_path(root: str, check: bool) -> FmtResult:
    started = time.time()
    changed, failed, files, cleaned = [], [], 0, set()
    unwritten: list[tuple[str, OSError]] = []
    for p in yaml_files(root):
        folder = os.path.dirname(os.path.realpath(p))
        if not check and folder not in cleaned:
            cleaned.add(folder)
            remove_stale_temp_files(folder, started)
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
                    unwritten.append((doc.path, e))
                    if no_space(e):   # every other write would fail the same way
                        break
    return FmtResult(changed, failed, files, unwritten)
