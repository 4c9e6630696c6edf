"""A pure-Python stand-in for ``rpds`` (the rpds-py package), for the explorer's bundle only.

harmony's loader validates with ``jsonschema``, which keeps its registries in
rpds-py's persistent maps, sets and lists. rpds-py is compiled (Rust), and
Pyodide's npm package carries no build of it, so the bundle
(:mod:`harmony.site.explorer`) ships this module as ``rpds`` instead: the same
names and methods ``jsonschema`` and ``referencing`` use, each change giving a
new value and leaving the old one as it was. It copies where rpds-py shares,
which is fine for the few hundred entries a schema registry holds. CPython
never imports it: there the real rpds-py is installed.

>>> m = HashTrieMap({"a": 1})
>>> m2 = m.insert("b", 2)
>>> sorted(m.items()), sorted(m2.items())
([('a', 1)], [('a', 1), ('b', 2)])
>>> m2.remove("a") == HashTrieMap(b=2), m2.discard("zz") == m2
(True, True)
>>> HashTrieMap.convert(m2) is m2, HashTrieMap.convert({"x": 0})["x"]
(True, 0)
>>> s = HashTrieSet(["x"]).insert("y")
>>> sorted(s), "x" in s.discard("y"), sorted(s.update(["z"]) - {"x"})
(['x', 'y'], True, ['y', 'z'])
>>> l = List().push_front(2).push_front(1)
>>> list(l), l.first, list(l.rest)
([1, 2], 1, [2])
"""
from __future__ import annotations

from collections.abc import Mapping


class HashTrieMap(Mapping):
    """An immutable mapping; ``insert``/``remove``/``discard``/``update`` return new maps."""

    __slots__ = ("_d",)

    def __init__(self, value=(), **kwds):
        self._d = dict(value, **kwds)

    @classmethod
    def convert(cls, value):
        return value if isinstance(value, cls) else cls(value)

    @classmethod
    def fromkeys(cls, keys, value=None):
        return cls(dict.fromkeys(keys, value))

    def __getitem__(self, key):
        return self._d[key]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __hash__(self):
        return hash(frozenset(self._d.items()))

    def __repr__(self):
        return f"HashTrieMap({self._d!r})"

    def _with(self, d):
        new = object.__new__(type(self))
        new._d = d
        return new

    def insert(self, key, value):
        d = dict(self._d)
        d[key] = value
        return self._with(d)

    def remove(self, key):
        if key not in self._d:
            raise KeyError(key)
        return self.discard(key)

    def discard(self, key):
        if key not in self._d:
            return self
        d = dict(self._d)
        del d[key]
        return self._with(d)

    def update(self, *maps, **kwds):
        d = dict(self._d)
        for m in maps:
            d.update(m)
        d.update(kwds)
        return self._with(d)


class HashTrieSet(frozenset):
    """An immutable set; ``insert``/``remove``/``discard``/``update`` return new sets."""

    def insert(self, value):
        return type(self)(self | {value})

    def remove(self, value):
        if value not in self:
            raise KeyError(value)
        return self.discard(value)

    def discard(self, value):
        return type(self)(frozenset(self) - {value})

    def update(self, *iterables):
        out = set(self)
        for it in iterables:
            out.update(it)
        return type(self)(out)

    def __sub__(self, other):
        return type(self)(frozenset(self).difference(other))

    def __or__(self, other):
        return type(self)(frozenset(self).union(other))

    def __and__(self, other):
        return type(self)(frozenset(self).intersection(other))


class List:
    """An immutable list built from the front (``push_front``, ``first``, ``rest``)."""

    __slots__ = ("_t",)

    def __init__(self, *items):
        self._t = tuple(items[0]) if len(items) == 1 and not isinstance(items[0], (str, bytes)) \
            and hasattr(items[0], "__iter__") else tuple(items)

    def _with(self, t):
        new = object.__new__(List)
        new._t = t
        return new

    def push_front(self, value):
        return self._with((value,) + self._t)

    @property
    def first(self):
        if not self._t:
            raise IndexError("empty list has no first element")
        return self._t[0]

    @property
    def rest(self):
        return self._with(self._t[1:])

    def drop_first(self):
        return self.rest

    def __iter__(self):
        return iter(self._t)

    def __reversed__(self):
        return reversed(self._t)

    def __len__(self):
        return len(self._t)

    def __eq__(self, other):
        return isinstance(other, List) and self._t == other._t

    def __hash__(self):
        return hash(self._t)

    def __repr__(self):
        return f"List({list(self._t)!r})"
