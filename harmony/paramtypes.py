"""The types of engine parameters: one table, one entry per type.

Each type a parameter of ``rules_data/parameters.yaml`` may declare (``bool``,
``int``, ``modifier``, ``fraction``, ``enum``, ``list``) is one
:class:`ParamType` that knows

- whether a YAML value fits it, and if not, why (:func:`type_error`);
- the value in the engine's terms (:func:`coerce`: fractions as ``Fraction``);
- a form that compares equal when the rules are equal (:func:`norm`);
- whether a value switches its rule on (:func:`is_on`);
- how a reader sees it (:func:`render`), and which of the parameter's own
  ``words`` replace a value (:func:`phrase`, :func:`sentence`).

Every other module (``harmony check``, the resolver, the consistency checks,
the site, the cards) asks this table; none tests a type's name itself.

>>> type_error("fraction", "1/2") is None, type_error("modifier", "+1")
(True, "expected a whole number such as 1, 0 or -1, found '+1'")
>>> coerce("fraction", "1/2"), norm("2/4", "fraction") == norm("1/2", "fraction")
(Fraction(1, 2), True)
>>> render(1, "modifier"), render(True, "bool"), render([], "list")
('+1', 'yes', 'none')

This module reads no other part of harmony: parameters are taken by their
attributes (``type``, ``values``, ``label``, ``words``, ``key_number``), so
:class:`harmony.model.Parameter` and test doubles both fit.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

#: a share such as 1/2 (a hundred digits at most: a longer one is refused, never turned into a
#: number Python cannot read)
FRACTION = re.compile(r"^\d{1,100}/\d{1,100}$")
WHOLE = re.compile(r"^[+-]?\d{1,100}$")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _one_of(values: Sequence[str]) -> str:
    return ", ".join(map(str, values)) if values else "(no values declared)"


# ------------------------------------------------------------------ checks

def _found(value: Any) -> str:
    """A value as a message quotes it: on one line, and short (a value of a million characters
    or a number of thousands of digits is named by its size).

    >>> _found("+1"), _found(1.5), _found(["A"] * 50)
    ("'+1'", '1.5', "['A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A',...")
    >>> _found("x" * 500)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (500 characters)"
    >>> _found(7 ** 70), _found(7 ** 6000)
    ('a number of 60 digits', 'a number of about 5071 digits')
    """
    if _whole(value) and abs(value) >= 10 ** 59:
        if abs(value) < 10 ** 4000:
            return f"a number of {len(str(abs(value)))} digits"
        return f"a number of about {int(abs(value).bit_length() * 0.30103) + 1} digits"
    if isinstance(value, str) and len(value) > 60:
        return repr(value[:40])[:-1] + f"...{repr(value[:40])[-1]} ({len(value)} characters)"
    try:
        shown = repr(value)
    except ValueError:          # holds a number of more digits than Python prints
        return f"a {type(value).__name__} holding a number of thousands of digits"
    return shown if len(shown) <= 80 else shown[:60] + "..."


def _bool_error(value: Any, values: Sequence[str]) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, found {_found(value)}"


def _count_error(value: Any, values: Sequence[str]) -> str | None:
    if _whole(value) and value >= 0:
        return None
    return f"expected a count (a whole number, 0 or more), found {_found(value)}"


def _modifier_error(value: Any, values: Sequence[str]) -> str | None:
    return None if _whole(value) else f"expected a whole number such as 1, 0 or -1, found {_found(value)}"


def _fraction_error(value: Any, values: Sequence[str]) -> str | None:
    if _whole(value) and value >= 0:
        return None
    if isinstance(value, Fraction) and value >= 0:
        return None
    if isinstance(value, str) and FRACTION.match(value) and int(value.split("/")[1]) != 0:
        return None
    return f"expected a fraction such as '1/2' (or a whole number), found {_found(value)}"


def _enum_error(value: Any, values: Sequence[str]) -> str | None:
    if value is None and "none" in values:
        return None
    if isinstance(value, str) and value in values:
        return None
    return f"{_found(value)} is not one of: {_one_of(values)}"


def _list_error(value: Any, values: Sequence[str]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, list):
        return f"expected a list, found {_found(value)}"
    for item in value:
        if not isinstance(item, str) or (values and item not in values):
            return f"{_found(item)} is not one of: {_one_of(values)}"
    return None


# ------------------------------------------------------------------ values

def _same(value: Any) -> Any:
    return value


def _number(value: Any) -> Any:
    """Whole numbers, fractions and fraction strings as Fraction; anything else as is."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, str) and FRACTION.match(value) and int(value.split("/")[1]) != 0:
        return Fraction(value)
    return value


def _fraction(value: Any) -> Any:
    return None if value is None else _number(value)


def _enum(value: Any) -> Any:
    return "none" if value is None else value


def _items(value: Any) -> Any:
    return [] if value is None else value


def _sorted_items(value: Any) -> Any:
    return tuple(sorted(map(str, value))) if isinstance(value, (list, tuple)) else _items(value)


def _nonzero(value: Any) -> bool:
    v = _number(value)
    return v is not None and bool(v)


def _enum_on(value: Any) -> bool:
    return value is not None and value != "none"


def _yes_no(value: Any) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else _plain(value)


def _signed(value: Any) -> str:
    return f"+{value}" if _whole(value) and value > 0 else _plain(value)


def _plain(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) if value else "none"
    return str(value)


# ------------------------------------------------------------------ word keys

def _bool_key(key: str, values: Sequence[str]) -> tuple[bool, Any]:
    low = key.lower()
    return (low in ("true", "false"), low == "true")


def _decimal(key: str) -> bool:
    """Digits Python reads as a whole number ("²" is a digit but not one), a hundred at most."""
    return key.isdecimal() and len(key) <= 100


def _count_key(key: str, values: Sequence[str]) -> tuple[bool, Any]:
    return (_decimal(key), int(key) if _decimal(key) else None)


def _modifier_key(key: str, values: Sequence[str]) -> tuple[bool, Any]:
    ok = bool(WHOLE.match(key))
    return ok, int(key) if ok else None


def _fraction_key(key: str, values: Sequence[str]) -> tuple[bool, Any]:
    if _decimal(key):
        return True, int(key)
    return _fraction_error(key, values) is None, key


def _value_key(key: str, values: Sequence[str]) -> tuple[bool, Any]:
    return key in values, key


@dataclass(frozen=True)
class ParamType:
    """One parameter type: how its values are checked, used, compared and shown."""

    name: str
    #: what a value is, in a few words (for the JSON Schema and the authoring guide)
    summary: str
    #: cards print a parameter of this type among the key numbers unless it says otherwise
    key_number: bool
    error: Callable[[Any, Sequence[str]], "str | None"]
    coerce: Callable[[Any], Any]
    norm: Callable[[Any], Any]
    is_on: Callable[[Any], bool]
    render: Callable[[Any], str]
    #: ``(fits, value)`` for a key of ``words:`` as written (YAML keys are read as text)
    word_key: Callable[[str, Sequence[str]], "tuple[bool, Any]"]
    #: whether ``words:`` keys name items of the list rather than whole values
    per_item: bool = False
    #: ``values:`` of a parameter of this type: "required", "optional" or "none"
    values: str = "none"
    #: the kind of number prose writes a value as (see :mod:`harmony.numbers`), if any
    number_kind: str | None = None


#: Every parameter type, by the name ``parameters.yaml`` gives it.
TYPES: dict[str, ParamType] = {t.name: t for t in (
    ParamType("bool", "true or false", False,
              _bool_error, _same, _same, bool, _yes_no, _bool_key),
    ParamType("int", "a count: a whole number, 0 or more", True,
              _count_error, _same, _number, _nonzero, _plain, _count_key, number_kind="count"),
    ParamType("modifier", "a die-roll modifier: a whole number, shown with its sign", True,
              _modifier_error, _same, _number, _nonzero, _signed, _modifier_key,
              number_kind="modifier"),
    ParamType("fraction", "a share: '1/2' or a whole number", True,
              _fraction_error, _fraction, _number, _nonzero, _plain, _fraction_key,
              number_kind="fraction"),
    ParamType("enum", "one of the parameter's values", False,
              _enum_error, _enum, _enum, _enum_on, _plain, _value_key, values="required"),
    ParamType("list", "items from the parameter's values", False,
              _list_error, _items, _sorted_items, bool, _plain, _value_key, per_item=True,
              values="optional"),
)}


def infer(value: Any) -> str | None:
    """The type a bare value reads as, for callers that do not know its parameter.

    >>> [infer(v) for v in (True, 2, "1/2", Fraction(1, 3), "entering", ["C"], None)]
    ['bool', 'int', 'fraction', 'fraction', 'enum', 'list', None]
    """
    if isinstance(value, bool):
        return "bool"
    if _whole(value):
        return "int"
    if isinstance(value, Fraction) or (isinstance(value, str) and _fraction_error(value, ()) is None):
        return "fraction"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, str):
        return "enum"
    return None


def of(type_name: str | None, value: Any = None) -> ParamType | None:
    """The entry of ``type_name``; with no (or an unknown) name, the type ``value`` reads as.

    >>> of("modifier").summary
    'a die-roll modifier: a whole number, shown with its sign'
    >>> of(None, ["A"]).name, of("no-such-type", 3).name
    ('list', 'int')
    """
    t = TYPES.get(type_name) if type_name else None
    if t is None:
        guess = infer(value)
        t = TYPES.get(guess) if guess else None
    return t


# ------------------------------------------------------------------ the table's uses

def type_error(type_name: str, value: Any, values: Sequence[str] | None = None) -> str | None:
    """Why ``value`` does not fit a parameter of ``type_name`` (with ``values``), or None.

    An unknown type name is the schema's to report: no value is wrong for it.

    >>> type_error("bool", "yes")
    "expected true or false, found 'yes'"
    >>> type_error("int", -1)
    'expected a count (a whole number, 0 or more), found -1'
    >>> type_error("fraction", "1/0")
    "expected a fraction such as '1/2' (or a whole number), found '1/0'"
    >>> type_error("enum", "sometimes", ["none", "entering"])
    "'sometimes' is not one of: none, entering"
    >>> type_error("list", ["A", "Q"], ["A", "H"]), type_error("list", ["Q"], None)
    ("'Q' is not one of: A, H", None)
    """
    t = TYPES.get(type_name)
    if t is None:
        return None
    return t.error(value, list(values or []))


def values_error(param: Any) -> str | None:
    """Why the parameter's ``values:`` do not suit its type (missing or not taken), or None.

    >>> from types import SimpleNamespace as P
    >>> values_error(P(type="enum", values=None))
    'an enum parameter must list its values under values:'
    >>> values_error(P(type="bool", values=["yes"]))
    'a bool parameter takes no values: (only enum and list parameters list them)'
    >>> values_error(P(type="list", values=None)) is None
    True
    """
    t = TYPES.get(param.type)
    given = bool(getattr(param, "values", None))
    if t is None:
        return None
    if t.values == "required" and not given:
        article = "an" if t.name[0] in "aeiou" else "a"
        return f"{article} {t.name} parameter must list its values under values:"
    if t.values == "none" and given:
        listed = " and ".join(n for n, x in TYPES.items() if x.values != "none")
        article = "an" if t.name[0] in "aeiou" else "a"
        return f"{article} {t.name} parameter takes no values: (only {listed} parameters list them)"
    return None


def number_kind(type_name: str | None) -> str | None:
    """The kind of number (``modifier``, ``fraction``, ``count``) prose writes a value of
    ``type_name`` as, or None for types that are not numbers.

    >>> number_kind("int"), number_kind("modifier"), number_kind("bool")
    ('count', 'modifier', None)
    """
    t = TYPES.get(type_name) if type_name else None
    return t.number_kind if t else None


def param_error(param: Any, value: Any) -> str | None:
    """:func:`type_error` for a parameter (anything with ``type`` and ``values``).

    >>> from types import SimpleNamespace as P
    >>> param_error(P(type="enum", values=["a", "b"]), "c")
    "'c' is not one of: a, b"
    """
    return type_error(param.type, value, getattr(param, "values", None))


def wrong_values(parameters: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, str]:
    """The values that do not fit their parameter's declared type, by parameter name, each
    with :func:`param_error`'s reason; values of parameters not in ``parameters`` are not
    judged. The engine computes with these values, so a scenario is never played under a
    ruleset holding one (``harmony check`` reports each at its place in the file).

    >>> from types import SimpleNamespace as P
    >>> params = {"drm": P(type="modifier", values=None), "share": P(type="fraction", values=None)}
    >>> wrong_values(params, {"drm": "+1", "share": "1/2", "other": "x"})
    {'drm': "expected a whole number such as 1, 0 or -1, found '+1'"}
    >>> wrong_values(params, {"drm": -1, "share": Fraction(1, 3)})
    {}
    """
    out = {}
    for name, value in values.items():
        param = parameters.get(name)
        problem = param_error(param, value) if param is not None else None
        if problem:
            out[name] = problem
    return out


def coerce(type_name: str | None, value: Any) -> Any:
    """A parameter value in the engine's terms: fractions as ``Fraction``, a missing
    list as ``[]``, a missing enum as ``'none'``; other values as they are.

    >>> coerce("fraction", 1), coerce("fraction", "3/4"), coerce("list", None), coerce("enum", None)
    (Fraction(1, 1), Fraction(3, 4), [], 'none')
    >>> coerce("int", 2), coerce("bool", False), coerce("fraction", None)
    (2, False, None)
    """
    t = TYPES.get(type_name) if type_name else None
    return t.coerce(value) if t is not None else value


def norm(value: Any, type_name: str | None = None) -> Any:
    """A value in a form that compares equal when the rules are equal; without a type,
    the type the value reads as.

    >>> norm("1/2") == norm("2/4"), norm(1) == norm("1/1"), norm(["C", "A"]) == norm(["A", "C"])
    (True, True, True)
    >>> norm(None, "enum"), norm(None), norm(True)
    ('none', None, True)
    """
    t = of(type_name, value)
    return value if t is None else t.norm(value)


def is_on(value: Any, type_name: str | None = None) -> bool:
    """Whether a value switches its rule on: true, non-zero, not 'none', not empty.

    >>> [is_on(v) for v in (True, 0, "1/2", "none", [], ["C"], None)]
    [True, False, True, False, False, True, False]
    >>> is_on(Fraction(0), "fraction"), is_on(-1, "modifier"), is_on("entering", "enum")
    (False, True, True)
    """
    t = of(type_name, value)
    return False if t is None else bool(t.is_on(value))


def render(value: Any, type_name: str | None = None) -> str:
    """A value as a player reads it: yes/no, modifiers with their sign, lists joined.

    >>> render(True), render(0, "modifier"), render(-1, "modifier"), render(2, "int")
    ('yes', '0', '-1', '2')
    >>> render(Fraction(1, 2), "fraction"), render(["C", "C(I)"], "list"), render(None)
    ('1/2', 'C, C(I)', 'none')
    """
    t = of(type_name, value)
    return _plain(value) if t is None else t.render(value)


# ------------------------------------------------------------------ reader-facing words

def word_key_error(param: Any, key: str) -> str | None:
    """Why ``key`` of the parameter's ``words:`` names no value it can take, or None.

    >>> from types import SimpleNamespace as P
    >>> word_key_error(P(type="int", values=None), "0") is None
    True
    >>> word_key_error(P(type="enum", values=["none", "any"]), "some")
    "words: 'some' is not a value of this parameter (its values: none, any)"
    >>> word_key_error(P(type="bool", values=None), "1")
    "words: '1' is not a value of this parameter (true or false)"
    """
    t = TYPES.get(param.type)
    if t is None:
        return None
    values = list(getattr(param, "values", None) or [])
    fits, _ = t.word_key(str(key), values)
    if fits:
        return None
    what = f"its values: {_one_of(values)}" if t.name in ("enum", "list") else t.summary
    return f"words: {str(key)!r} is not a value of this parameter ({what})"


def _word(param: Any, t: ParamType, value: Any) -> str | None:
    values = list(getattr(param, "values", None) or [])
    for key, words in (getattr(param, "words", None) or {}).items():
        fits, keyed = t.word_key(str(key), values)
        if fits and (keyed == value if t.per_item else t.norm(keyed) == t.norm(value)):
            return str(words)
    return None


def phrase(param: Any, value: Any) -> str:
    """A value of ``param`` in the parameter's own words where it gives some, else rendered.

    >>> from types import SimpleNamespace as P
    >>> share = P(type="fraction", values=None, words={"0": "none", "1": "full"})
    >>> phrase(share, 0), phrase(share, Fraction(1)), phrase(share, "1/2")
    ('none', 'full', '1/2')
    >>> classes = P(type="list", values=["A", "C(I)"], words={"C(I)": "close assault"})
    >>> phrase(classes, ["A", "C(I)"]), phrase(classes, [])
    ('A, close assault', 'none')
    """
    t = of(param.type, value)
    if t is None:
        return _plain(value)
    if t.per_item and isinstance(value, (list, tuple)):
        if not value:
            return _word(param, t, value) or t.render(value)
        return ", ".join(_word(param, t, v) or str(v) for v in value)
    return _word(param, t, value) or t.render(value)


def label(param: Any) -> str:
    """The parameter's short reader-facing name: its ``label``, else its name in words.

    >>> from types import SimpleNamespace as P
    >>> label(P(name="opfire.drm", label="Die-roll modifier")), label(P(name="spot.new-count", label=None))
    ('Die-roll modifier', 'New count')
    """
    given = getattr(param, "label", None)
    if given:
        return str(given)
    words = str(param.name).rsplit(".", 1)[-1].replace("-", " ")
    return words[:1].upper() + words[1:]


def is_key_number(param: Any) -> bool:
    """Whether cards print the parameter among the key numbers: its ``key-number``, else
    its type's choice (die-roll modifiers, fractions and counts).

    >>> from types import SimpleNamespace as P
    >>> is_key_number(P(type="modifier", key_number=None)), is_key_number(P(type="bool", key_number=None))
    (True, False)
    >>> is_key_number(P(type="bool", key_number=True))
    True
    """
    own = getattr(param, "key_number", None)
    if own is not None:
        return bool(own)
    t = TYPES.get(param.type)
    return bool(t and t.key_number)


def sentence(param: Any, values: Mapping[str, Any]) -> str:
    """The parameter's label and its value in each ruleset, in the order given.

    >>> from types import SimpleNamespace as P
    >>> trucks = P(name="spot.transport-may-spot", type="bool", values=None,
    ...            label="Trucks may spot", words=None)
    >>> sentence(trucks, {"PB": True, "PL": False, "AIW": False, "REV": True})
    'Trucks may spot: PB yes, PL no, AIW no, REV yes'
    """
    return f"{label(param)}: " + ", ".join(f"{k} {phrase(param, v)}" for k, v in values.items())
