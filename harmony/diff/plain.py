"""Model values as plain data (what a diff stores and prints) and how two are compared.

>>> jsonable({"b": (1, 2), "a": None})
{'a': None, 'b': [1, 2]}
>>> same("fires  once", "fires\\nonce", is_text=True), same(1, 2)
(True, False)
"""
from __future__ import annotations

from typing import Any

from .words import changed as text_changed


def jsonable(value: Any) -> Any:
    """``value`` as JSON-able data: mappings sorted by key, tuples as lists, the rest as text."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def same(a: Any, b: Any, is_text: bool = False) -> bool:
    """True when ``a`` and ``b`` hold the same data; prose (``is_text``) compares its words,
    so reflowed text is not a change."""
    if is_text:
        return not text_changed(a, b)
    return jsonable(a) == jsonable(b)
