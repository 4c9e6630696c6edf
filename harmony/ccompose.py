"""YAML text to a positioned tree with libyaml's C parser: the check path's fast reader.

``harmony check`` needs each value's line and column, never the comments and layout
that ruamel's round-trip parser (pure Python, the one ``harmony fmt`` rewrites) keeps.
:func:`compose` reads the events of PyYAML's C parser (each with its start mark) into
the :class:`~harmony.yamltree.PosMap`/:class:`~harmony.yamltree.PosSeq` tree, and
resolves plain scalars by YAML 1.2, with ruamel's own patterns and constructors, as
the round-trip reader does (``yes`` stays a string, ``0o17`` is 15, ``1_000`` is 1000).

It answers only for the documents it is sure to read exactly as ruamel does, and
returns None for everything else, whose reading (and positioned error, when there is
one) is then the round-trip reader's (:func:`harmony.loader.read_text`): any syntax
error; tabs, carriage returns and other line breaks; directives and explicit document
markers; anchors, aliases and tags; keys that are not scalars or appear twice;
nesting deeper than :data:`harmony.loader.MAX_DEPTH`; numbers too long to be data;
dates; merge keys; a top level that is not a mapping. ``tests/test_ccompose.py`` proves the
agreement (data, types, every position) on every shipped file and on generated and
mutated documents.

>>> tree = compose("sources:\\n  - key: PB\\n    year: 1970\\n    free: yes\\n")
>>> tree
{'sources': [{'key': 'PB', 'year': 1970, 'free': 'yes'}]}
>>> tree["sources"].lc.item(0), tree["sources"][0].lc.value("year")
((1, 4), (2, 10))
>>> compose("a: 1\\na: 2\\n") is None      # a duplicate key: ruamel says where
True
"""
from __future__ import annotations

from typing import Any

import yaml
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import implicit_resolvers
from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString

from .yamltree import MAX_DEPTH, MAX_DIGITS, Marks, PosMap, PosSeq

try:
    from yaml._yaml import CParser
except ImportError:  # pragma: no cover  (PyYAML built without libyaml: always the round-trip reader)
    CParser = None


_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
#: Tags built by ruamel's round-trip constructor (values cached: each is immutable).
#: Dates are left to the round-trip reader, which refuses a day that does not exist.
_BUILT = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
#: YAML 1.2 implicit resolvers by first character, exactly ruamel's.
_RESOLVERS: dict[str, list] = {}
for _versions, _tag, _regexp, _first in implicit_resolvers:
    if (1, 2) in _versions:
        for _ch in _first:
            _RESOLVERS.setdefault(_ch, []).append((_tag, _regexp))

#: Text the C parser and ruamel may read differently: tabs, line breaks other than
#: ``\\n``, byte-order marks and other format characters, directives (``%`` at the
#: start of a line) and document markers (``---``/``...`` at the start of a line).
_AVOID = ("\t", "\r", "\x85", "\u2028", "\u2029", "\ufeff")

_CONSTRUCTOR: list[RoundTripConstructor] = []
_VALUES: dict[tuple[str, str], Any] = {}


def constructor() -> RoundTripConstructor:
    """ruamel's round-trip constructor, YAML 1.2 (numbers are built by it on both paths)."""
    if not _CONSTRUCTOR:
        from ruamel.yaml import YAML   # the round-trip loader's own constructor, YAML 1.2
        _CONSTRUCTOR.append(YAML(typ="rt").constructor)
    return _CONSTRUCTOR[0]


class _Unsure(Exception):
    """Something :func:`compose` leaves to the round-trip reader."""


def _plain(value: str) -> Any:
    """A plain scalar's value, resolved by YAML 1.2 as ruamel resolves it.

    >>> [_plain(v) for v in ("yes", "true", "~", "", "1_000", "0o17", "1.5", "x")]
    ['yes', True, None, None, 1000, 15, 1.5, 'x']
    """
    for tag, regexp in _RESOLVERS.get(value[:1], ()):
        if regexp.match(value):
            break
    else:
        return value
    if tag == _NULL:
        return None
    if tag == _BOOL:
        return value[0] in "tT"
    if tag not in _BUILT:
        raise _Unsure(tag)              # dates, merge ('<<') and value ('=') keys
    key = (tag, value)
    try:
        return _VALUES[key]
    except KeyError:
        pass
    if sum(c.isalnum() for c in value) > MAX_DIGITS:
        raise _Unsure("long number")
    c = constructor()
    try:
        built = c.yaml_constructors[tag](c, ScalarNode(tag, value))
    except Exception as e:              # '-_' read as a number...
        raise _Unsure(tag) from e
    if len(_VALUES) < 4096:
        _VALUES[key] = built
    return built


def _avoided(text: str) -> bool:
    if any(ch in text for ch in _AVOID):
        return True
    return text.startswith(("%", "---", "...")) or "\n%" in text or "\n---" in text or "\n..." in text


def compose(text: str) -> PosMap | None:
    """The positioned tree of ``text``, or None when the round-trip reader must read it.

    >>> compose("a: [1, {b: c}]\\n")["a"][1].lc.value("b")
    (0, 11)
    >>> [compose(t) for t in ("a: !x 1\\n", "a: &x 1\\nb: *x\\n", "- 1\\n", "a: b: c\\n")]
    [None, None, None, None]
    """
    if CParser is None or _avoided(text):
        return None
    try:
        return _compose(CParser(text), text)
    except (_Unsure, yaml.YAMLError):
        return None
    except Exception:       # anything unforeseen: the round-trip reader decides
        return None


def _empty_value_mark(text: str, mark: Any) -> tuple[int, int] | None:
    """Where ruamel places an empty value of a block mapping (``key:`` and nothing): at
    the next thing written after it (a key or a '-', past blank and comment lines), or at
    the end of the text; libyaml places it just after the ':'. A comment on the key's own
    line keeps libyaml's place, as ruamel does. None when unsure (an explicit ``?`` key or
    ``:`` value next, which ruamel places a column further on).

    >>> from types import SimpleNamespace as M
    >>> mark = M(index=2, line=0, column=2)
    >>> _empty_value_mark("a:\\n\\n  # c\\n  b: 1\\n", mark), _empty_value_mark("a:\\n", mark)
    ((3, 2), (1, 0))
    >>> _empty_value_mark("a:\\n? b\\n:\\n", mark) is None
    True
    """
    i, n = mark.index, len(text)
    while i < n and text[i] == " ":
        i += 1
    if i < n and text[i] == "#":
        return mark.line, mark.column
    if i < n and text[i] != "\n":
        return None
    line = mark.line
    while i < n:                          # text[i] ends a line: look at the next one
        line += 1
        start = i + 1
        end = text.find("\n", start)
        end = n if end < 0 else end
        body = text[start:end]
        stripped = body.lstrip(" ")
        if stripped.startswith(("?", ":")):  # an explicit key or value: ruamel's place differs
            return None
        if stripped and not stripped.startswith("#"):
            return line, len(body) - len(stripped)
        i = end
    return text.count("\n"), n - (text.rfind("\n") + 1)


def _compose(parser: Any, text: str) -> PosMap | None:
    get = parser.get_event
    if type(get()) is not yaml.StreamStartEvent:
        return None
    ev = get()
    if type(ev) is not yaml.DocumentStartEvent or ev.explicit or ev.version or ev.tags:
        return None
    ev = get()
    if type(ev) is not yaml.MappingStartEvent or ev.anchor is not None or ev.tag is not None:
        return None
    Scalar, MapStart, SeqStart = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent
    MapEnd, SeqEnd = yaml.MappingEndEvent, yaml.SequenceEndEvent
    m = ev.start_mark
    root = PosMap()
    data: dict = {}
    root.lc = Marks(m.line, m.column, data)
    node: Any = root
    key: Any = None
    key_mark: Any = None                    # None: the next scalar in a mapping is a key
    is_map = True
    flow = bool(ev.flow_style)
    stack: list[tuple] = []
    while True:
        ev = get()
        t = type(ev)
        if t is Scalar:
            if ev.anchor is not None or ev.tag is not None:
                return None
            style = ev.style
            value = ev.value
            if not style:
                value = _plain(value)
            elif style == "|":
                value = LiteralScalarString(value)
            elif style == ">":
                value = FoldedScalarString(value)
            m = ev.start_mark
            line, col = m.line, m.column
            if value is None and not ev.value and not style:    # an empty value
                if flow or (is_map and key_mark is None):
                    return None                 # ruamel places these otherwise: let it
                if is_map:
                    at = _empty_value_mark(text, m)
                    if at is None:
                        return None
                    line, col = at
            if not is_map:
                data[len(node)] = (line, col)
                node.append(value)
            elif key_mark is None:
                if value in node:          # a duplicate key (also 1 and 1.0, true and 1)
                    return None
                key, key_mark = value, m
            else:
                data[key] = (key_mark.line, key_mark.column, line, col)
                node[key] = value
                key_mark = None
        elif t is MapStart or t is SeqStart:
            if ev.anchor is not None or ev.tag is not None or (is_map and key_mark is None):
                return None                 # anchored, tagged, or a mapping or list as a key
            if len(stack) >= MAX_DEPTH - 1:
                return None
            m = ev.start_mark
            child: Any = PosMap() if t is MapStart else PosSeq()
            child_data: dict = {}
            child.lc = Marks(m.line, m.column, child_data)
            if is_map:
                data[key] = (key_mark.line, key_mark.column, m.line, m.column)
                node[key] = child
            else:
                data[len(node)] = (m.line, m.column)
                node.append(child)
            stack.append((node, data, is_map, flow))
            node, data, is_map, key_mark = child, child_data, t is MapStart, None
            flow = flow or bool(ev.flow_style)
        elif t is MapEnd or t is SeqEnd:
            if not stack:
                break
            node, data, is_map, flow = stack.pop()
            key_mark = None
        else:                               # an alias, or anything else
            return None
    if type(get()) is not yaml.DocumentEndEvent:
        return None
    if type(get()) is not yaml.StreamEndEvent:   # a second document follows
        return None
    return root
