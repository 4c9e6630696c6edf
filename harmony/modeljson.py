"""A rules folder's model as JSON text: written where YAML is read (``harmony build``), read
back where no YAML reader is wanted (the ruling explorer, in the browser).

The text holds what :func:`harmony.loader.load` builds its model from: each file's name
and the part of its tree the model takes (:func:`harmony.loader.read_usable`), with the
place of every key, value and list item. :func:`loads` builds the model from them with
the loader's own :func:`harmony.model.add_document`, so the model read back is the
loader's: the same sources, clauses, parameters and scenarios in the same order, and every
``pos()`` the same (rulesets order the clauses that set a parameter by their line).

A mapping is written ``["M", line, column, [[key, key line, key column, value line,
value column, value], ...]]``, a list ``["S", line, column, [[line, column, item], ...]]``
(0-based, as :class:`harmony.yamltree.Marks` keeps them), a scalar as its plain value: a
JSON list is always a mapping or a list of the tree, never a value. A mapping or list
without places (the loader's own, holding the usable part of a file with a problem) is
``["m", [[key, value], ...]]`` or ``["s", [item, ...]]``.

>>> from harmony.usage import default_rules_data
>>> from harmony.loader import load
>>> text = dumps(default_rules_data())
>>> model, problems = loads(text)
>>> yaml_model = load(default_rules_data())[0]
>>> problems, list(model.clauses) == list(yaml_model.clauses)
([], True)
>>> c = model.clauses["spotting.recording"]
>>> c.pos("cells") == yaml_model.clauses["spotting.recording"].pos("cells")
True
>>> dumps(default_rules_data()) == text      # the same folder, the same bytes
True
"""
from __future__ import annotations

import json
import os
from typing import Any

from .diagnostics import display_path
from .model import Model, add_document
from .yamltree import Marks, PosMap, PosSeq, plain

#: the version of the text's layout; :func:`loads` refuses another
FORMAT = 1


class ModelJSONError(ValueError):
    """Text that is not a model written by :func:`dumps` (of this version)."""


def _tree(node: Any) -> Any:
    lc = getattr(node, "lc", None)
    if isinstance(node, dict):
        if lc is None:
            return ["m", [[plain(k), _tree(v)] for k, v in node.items()]]
        return ["M", lc.line, lc.col, [[plain(k), *lc.key(k), *lc.value(k), _tree(v)]
                                       for k, v in node.items()]]
    if isinstance(node, list):
        if lc is None:
            return ["s", [_tree(v) for v in node]]
        return ["S", lc.line, lc.col, [[*lc.item(i), _tree(v)] for i, v in enumerate(node)]]
    return plain(node)


def _node(data: Any) -> Any:
    if not isinstance(data, list):
        return data
    if data[0] == "m":
        return {k: _node(v) for k, v in data[1]}
    if data[0] == "s":
        return [_node(v) for v in data[1]]
    marks: dict = {}
    if data[0] == "M":
        m = PosMap()
        for k, kl, kc, vl, vc, v in data[3]:
            m[k] = _node(v)
            marks[k] = (kl, kc, vl, vc)
        m.lc = Marks(data[1], data[2], marks)
        return m
    s = PosSeq()
    for i, (line, col, v) in enumerate(data[3]):
        s.append(_node(v))
        marks[i] = (line, col)
    s.lc = Marks(data[1], data[2], marks)
    return s


def dumps(root: str | os.PathLike, scenarios: bool = True) -> str:
    """The model of a rules folder as JSON text (the same folder, the same text), with the
    problems its loading reports, as text; with ``scenarios=False``, the model without its
    worked examples (each file's ``scenario:`` left out: a reader that plays positions of its
    own, as the explorer does, needs none of them).

    >>> from harmony.usage import default_rules_data
    >>> model, _ = loads(dumps(default_rules_data(), scenarios=False))
    >>> model.scenarios, "spotting.recording" in model.clauses
    ({}, True)
    """
    from .diagnostics import Report
    from .loader import read_usable   # YAML readers: only where the text is written
    report = Report()
    files = [[path, None if tree is None else _tree(tree if scenarios or "scenario" not in tree
                                                    else _without(tree, "scenario"))]
             for path, tree in read_usable(root, report)]
    return json.dumps({"format": FORMAT, "root": display_path(str(root)), "files": files,
                       "problems": [str(d) for d in report.errors]},
                      separators=(",", ":"))   # ASCII: a file name not UTF-8 (a lone surrogate) survives


def _without(tree: Any, key: str) -> Any:
    """A mapping of the tree without ``key``, its other places kept."""
    lc = getattr(tree, "lc", None)
    if lc is None:
        return {k: v for k, v in tree.items() if k != key}
    out = PosMap((k, v) for k, v in tree.items() if k != key)
    out.lc = Marks(lc.line, lc.col, {k: (*lc.key(k), *lc.value(k)) for k in out})
    return out


def loads(text: str | bytes) -> tuple[Model, list[str]]:
    """The model written by :func:`dumps`, and the problems its loading reported.

    >>> loads('{"format": 0}')
    Traceback (most recent call last):
    ...
    harmony.modeljson.ModelJSONError: not a model written by harmony.modeljson (format 0, not 1)
    """
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ModelJSONError(f"not a model written by harmony.modeljson: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise ModelJSONError(f"not a model written by harmony.modeljson (format {found}, not {FORMAT})")
    model = Model(root=data["root"])
    for path, tree in data["files"]:
        model.files.append(path)
        if tree is not None:
            add_document(model, _node(tree), path)
    return model, list(data["problems"])
