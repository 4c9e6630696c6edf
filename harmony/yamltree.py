"""A YAML file as read: its :class:`Document`, and the positioned tree's positions and plain data.

The loader (:mod:`harmony.loader`) makes documents; the schema check
(:mod:`harmony.schema`) and the model (:mod:`harmony.model`) read them. A tree is
either ruamel's round-trip tree (``CommentedMap``/``CommentedSeq``, what ``harmony fmt``
rewrites) or the lighter :class:`PosMap`/:class:`PosSeq` that :mod:`harmony.ccompose`
builds for the checks; both carry their positions in ``.lc`` the same way, and
everything here reads either.

>>> from ruamel.yaml import YAML
>>> tree = YAML(typ="rt").load("sources:\\n  - key: PB\\n")
>>> node_pos("x.yaml", tree, ("sources", 0, "key"))
Pos(path='x.yaml', line=2, col=10)
>>> plain(tree)
{'sources': [{'key': 'PB'}]}
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from .diagnostics import Pos, Report

#: The largest file read, in bytes: a rules file is tens of kilobytes (the ruling explorer
#: reads a position by the same limits, without the YAML readers: they live here).
MAX_BYTES = 1_000_000
#: Deeper than this, the readers refuse a file (:data:`harmony.loader.MAX_DEPTH`).
MAX_DEPTH = 40
#: More digits than this in a number, the readers refuse it (:data:`harmony.loader.MAX_DIGITS`).
MAX_DIGITS = 100


class Marks:
    """Where a mapping or list and its parts start (0-based line and column): the part of
    ruamel's ``LineCol`` (``node.lc``) that positions are read from.

    ``data`` holds, by key, ``(key line, key column, value line, value column)`` for a
    mapping, and by index ``(line, column)`` for a list.

    >>> m = Marks(0, 0, {"a": (1, 2, 1, 5)})
    >>> m.key("a"), m.value("a")
    ((1, 2), (1, 5))
    >>> Marks(3, 2, {0: (3, 4)}).item(0)
    (3, 4)
    """

    __slots__ = ("line", "col", "data")

    def __init__(self, line: int, col: int, data: dict):
        self.line, self.col, self.data = line, col, data

    def key(self, k: Any) -> tuple[int, int]:
        d = self.data[k]
        return d[0], d[1]

    def value(self, k: Any) -> tuple[int, int]:
        d = self.data[k]
        return d[2], d[3]

    def item(self, i: int) -> tuple[int, int]:
        d = self.data[i]
        return d[0], d[1]

    def __reduce__(self):
        return Marks, (self.line, self.col, self.data)


class PosMap(dict):
    """A mapping read from YAML, with its :class:`Marks` in ``.lc``."""

    __slots__ = ("lc",)
    lc: Marks

    def __reduce__(self):
        return _pos_map, (self.lc, dict(self))


class PosSeq(list):
    """A list read from YAML, with its :class:`Marks` in ``.lc``."""

    __slots__ = ("lc",)
    lc: Marks

    def __reduce__(self):
        return _pos_seq, (self.lc, list(self))


def _pos_map(lc: Marks, items: dict) -> PosMap:
    m = PosMap(items)
    m.lc = lc
    return m


def _pos_seq(lc: Marks, items: list) -> PosSeq:
    s = PosSeq(items)
    s.lc = lc
    return s


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


def node_pos(file: str, tree: Any, path: tuple, key: bool = False,
             memo: dict | None = None) -> Pos:
    """Position of the value at ``path`` in ``tree`` (of its key with ``key=True``), or of
    the nearest enclosing node that has one.

    >>> from harmony.ccompose import compose
    >>> tree = compose("sources:\\n  - key: PB\\n")
    >>> node_pos("x.yaml", tree, ("sources", 0, "key")), node_pos("x.yaml", tree, ("sources", 9))
    (Pos(path='x.yaml', line=2, col=10), Pos(path='x.yaml', line=2, col=3))

    ``memo`` (a dict kept by the caller for one tree) remembers the walk to every parent, so
    the positions of many values of one document (a scenario's steps) cost a step each:

    >>> memo = {}
    >>> [node_pos("x.yaml", tree, ("sources", 0, k), memo=memo) for k in ("key", "none")]
    [Pos(path='x.yaml', line=2, col=10), Pos(path='x.yaml', line=2, col=5)]
    """
    node, line, col = tree, 0, 0
    lc = getattr(node, "lc", None)
    if lc is not None and lc.line is not None:
        line, col = lc.line, lc.col
    last = len(path) - 1
    start = 0
    if memo is not None:
        # the walk is the same down to the parent: start from the longest prefix walked before
        for k in range(last, 0, -1):
            hit = memo.get(path[:k])
            if hit is not None:
                node, line, col = hit
                start = k
                break
    for i in range(start, last + 1):
        step = path[i]
        lc = getattr(node, "lc", None)
        if lc is None:
            break
        try:
            if isinstance(node, dict):
                if step not in node:
                    break
                line, col = lc.key(step) if (key and i == last) else lc.value(step)
            elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                line, col = lc.item(step)
            else:
                break
            node = node[step]
        except (KeyError, TypeError, AttributeError):
            break
        if memo is not None and i < last:
            memo[path[:i + 1]] = (node, line, col)
    return Pos(file, line + 1, col + 1)


def first_content(path: str, text: str) -> Pos:
    """Where the first thing that is not blank or a comment starts.

    >>> first_content("n.yaml", "# nothing yet\\n\\n  ~\\n")
    Pos(path='n.yaml', line=3, col=3)
    """
    for n, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return Pos(path, n + 1, len(line) - len(line.lstrip()) + 1)
    return Pos(path)


#: the scalars :func:`plain` returns as they are (exactly these types, no subclass)
_PLAIN = frozenset((str, int, bool, float, type(None)))


def plain(node: Any) -> Any:
    """The round-trip tree as plain dicts, lists and scalars.

    >>> from ruamel.yaml.scalarstring import LiteralScalarString
    >>> m = _pos_map(Marks(0, 0, {}), {"a": [LiteralScalarString("x\\n"), 1, True, None, 1.5]})
    >>> p = plain(m); p, type(p), type(p["a"]), type(p["a"][0])
    ({'a': ['x\\n', 1, True, None, 1.5]}, <class 'dict'>, <class 'list'>, <class 'str'>)
    """
    if type(node) in _PLAIN:     # most of a tree: no conversion, and no isinstance chain
        return node
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
