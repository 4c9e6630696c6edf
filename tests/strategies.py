"""Hypothesis strategies for structure-aware fuzzing: valid rules folders, then broken ones.

The grammar is what harmony ships: the starter harmony (``harmony/starter``,
small and valid: sources, a topic, a clause, parameters, a glossary term, a
scenario), the parameter declarations of ``rules_data/parameters.yaml`` (with
values drawn to fit each one's type, as :mod:`harmony.paramtypes` states
them) and the JSON Schema's enums. :func:`valid_folders` draws folders that
``harmony check`` passes as they are (``tests/test_fuzz_structured.py``
asserts it); :func:`broken_folders` then damages the data, not the text:
values of every YAML type and of extreme size, impossible dates, keys of
every kind, unicode, deep nesting, references that point elsewhere or
nowhere, items and sections duplicated, reordered or moved to another file,
control characters (raw and as escapes) and escapes of lone surrogates,
version names that would share a page or run to 300 characters.
:func:`renamed_folders` then renames files to names that are not UTF-8, hold
control characters or line breaks, or are as long as a name may be.

A folder is a ``dict`` of relative path to file text; comments are written
into the text (``# cN``/``# eN`` markers), so a test can tell that fmt kept
every one of them.
"""
from __future__ import annotations

import copy
import datetime as dt
import functools
import io
import re
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent
STARTER = ROOT / "harmony" / "starter"
RULES = ROOT / "rules_data"
SCHEMA_STATUSES = ["rule", "optional", "tournament"]
#: words that carry no number (prose numbers are checked against parameters)
WORDS = ("unit units hex woods spotted enemy fire moves gun tank platoon town slope road "
         "ridge side turn phase river crest smoke dispersed target line sight watch").split()


def _safe_load(text: str) -> Any:
    return YAML(typ="safe", pure=True).load(text)


def starter() -> dict[str, Any]:
    """The starter harmony as data, by relative path: a copy of its own for the caller to
    change."""
    return copy.deepcopy(_starter())


@functools.cache
def _starter() -> dict[str, Any]:
    """The starter harmony, read once a process (pure-Python YAML is slow, and every folder
    drawn begins with it)."""
    return {p.relative_to(STARTER).as_posix(): _safe_load(p.read_text("utf-8"))
            for p in sorted(STARTER.rglob("*.yaml"))}


def starter_comments() -> list[str]:
    """Every comment line of the starter files (fmt must keep them)."""
    out = []
    for p in sorted(STARTER.rglob("*.yaml")):
        out += [line.strip() for line in p.read_text("utf-8").splitlines()
                if line.strip().startswith("#")]
    return out


SHIPPED_PARAMETERS = [p for p in _safe_load((RULES / "parameters.yaml").read_text("utf-8"))
                      ["parameters"] if p.get("type") != "list" or p.get("values")]


# ---------------------------------------------------------------- valid values

def param_value(decl: dict) -> st.SearchStrategy:
    """A value that fits the declared type of a parameter."""
    t, values = decl.get("type"), list(decl.get("values") or [])
    if t == "bool":
        return st.booleans()
    if t == "int":
        return st.integers(0, 12)
    if t == "modifier":
        return st.integers(-6, 6)
    if t == "fraction":
        return st.one_of(st.integers(0, 4), st.sampled_from(["1/2", "1/3", "2/3", "1/4"]))
    if t == "enum":
        return st.sampled_from(values)
    if t == "list":
        return st.lists(st.sampled_from(values), unique=True, max_size=len(values))
    return st.nothing()


words = st.lists(st.sampled_from(WORDS), min_size=2, max_size=12).map(" ".join)
sentence = words.map(lambda w: w[0].upper() + w[1:] + ".")
slug = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map("-".join)


@st.composite
def valid_folders(draw) -> dict[str, Any]:
    """The starter harmony, with generated clauses, parameters and glossary terms added
    (all valid): data by relative path."""
    files = starter()
    params = files["parameters.yaml"]["parameters"]
    extra = draw(st.lists(st.sampled_from(SHIPPED_PARAMETERS), max_size=4,
                          unique_by=lambda p: p["name"]))
    for decl in copy.deepcopy([p for p in extra if p["name"] not in {q["name"] for q in params}]):
        if "default" not in decl:  # a rulebook that says nothing must get a value
            decl["default"] = draw(param_value(decl))
        params.append(decl)
    decls = {p["name"]: p for p in params}
    sources = [s["key"] for s in files["sources.yaml"]["sources"]]
    clauses = []
    # one clause sets a parameter for a rulebook (two would conflict)
    used = {key: {"spot.adjacent", "spot.dispersed-may-spot"} for key in sources}
    for i in range(draw(st.integers(0, 3))):
        cells = {}
        for key in sources:
            free = sorted(set(decls) - used[key])
            names = draw(st.lists(st.sampled_from(free), unique=True, max_size=3)) if free else []
            used[key] |= set(names)
            cell = {"status": draw(st.sampled_from(SCHEMA_STATUSES)), "text": draw(sentence),
                    "cite": {"source": key, "section": draw(words)}}
            if cell["status"] != "rule":
                cell["option"] = draw(slug)
            if names:
                cell["params"] = {n: draw(param_value(decls[n])) for n in names}
            if cell["status"] in ("rule", "optional", "tournament"):
                # a valid folder: every rule cell of a ruleset with cards has one or says why not
                cell["card"] = {"none": "a generated rule, for the fuzz tests"}
            cells[key] = cell
        clauses.append({"id": f"spotting.gen-{i}-{draw(slug)}", "topic": "spotting",
                        "aspect": "spotters", "title": draw(words).capitalize(), "cells": cells})
    if clauses:
        files["generated.yaml"] = {"clauses": clauses}
    terms = draw(st.lists(st.text(st.characters(categories=["Ll", "Lu", "Lo"]), min_size=2,
                                  max_size=12), max_size=2, unique_by=str.lower))
    for t in terms:
        files["glossary.yaml"]["glossary"].append({"term": t, "definition": draw(sentence)})
    if draw(st.booleans()):
        sc = files["scenarios/dispersed-spotter.yaml"]["scenario"]
        sc["title"] = draw(words).capitalize()
        draw(st.randoms()).shuffle(sc["units"])
    return files


# ---------------------------------------------------------------- values of every kind

#: YAML written as it is (not a Python value): dates and numbers YAML reads its own way,
#: sizes past Python's limits, quoting and escapes, tags and anchors, deep flow nesting
RAW_VALUES = [
    "2002-02-30", "2001-01-01", "2001-12-14t21:59:43.10-05:00", "0000-00-00", "9999-99-99",
    "1" * 4301, "-" + "9" * 5000, "0x" + "f" * 5000, "0o" + "7" * 5000, "0b" + "1" * 20000,
    "1e999", "-1e-999", ".inf", "-.inf", ".nan", "~", "null", "Null", "yes", "No", "on",
    "0o17", "0x_1", "1_000", "12:30:00", "190:20:30", "-0", "+12", "0.", "1/0", "0/0",
    "'1/" + "0" * 5000 + "'", "'" + "9" * 5000 + "/7'",
    "'it''s'", '"\\u0000"', '"a\\nb"', '"\\x85\\u2028"', '"\\t"', '""', "''", "' '",
    "!!str x", "!!python/object:os.system x", "&a x", "*a", "[]", "{}", "[[]]", "{a: {b: {}}}",
    "[" * 60 + "]" * 60, "{a: " * 45 + "1" + "}" * 45, "- x", "? x", "|", ">-", "%YAML",
    '"' + "x" * 200_000 + '"',
    # characters that are not text: escapes of controls and of lone surrogates, and raw controls
    '"\\udc80"', '"\\ud800\\udc00"', '"a\\0b\\e[31m"', '"\\x07\\x7f\\x9b"', '"\\uffff"',
    '"\\N\\L\\P\\_"', '"\\U0010ffff\\U00110000"', "x\x07y", "'\x1b[2J'", '"\x00"', "\x9b",
]

#: keys YAML allows, and keys a person might type
RAW_KEYS = ["'" + "7" * 5000 + "'", "\u00b2", "'-" + "7" * 5000 + "'", "[a, b]", "{a: 1}", "? x",
            "null", "~", "true", "1", "0x10", "1.5", "2001-01-01",
            "2002-02-30", "''", "'a\\nb'", '"\\u2028"', "-", "<<", "=", "9" * 4301,
            '"k\\0"', '"\\udc80"', "k\x07", '"te\\bxt"']

surrogate_free = st.characters(exclude_categories=["Cs"])
texts = st.one_of(
    st.text(surrogate_free, max_size=30),
    st.text(surrogate_free, min_size=1, max_size=5).map(lambda s: s * 3000),
    st.sampled_from(["", " ", "\n", "a\nb", "\r\n", "\u2028", "\x85", "\ufeff", "\u202e",
                     "[[woods]]", "[[nowhere]]", "{{ spot.adjacent }}", "{{ x }}", "[^n]",
                     "{{", "[[", "<script>", "&amp;", "`", "*", "#", "# x", ": x", "- x",
                     "spotting.spotters", "HA", "HB", "spotting", "dispersed-spotter",
                     "A1", "Z99", "C3", "AA1", "A0", "a" * 300, "\u00b2", "\u0663", "1.\u00b2",
                     "1/2", "0/0", "1/" + "0" * 5000, "7" * 5000, "-" + "7" * 5000,
                     "a range of " + "7" * 5000 + " hexes", "+" + "7" * 4400 + " to the die roll",
                     "1/" + "7" * 4400 + " of its factor", "7" * 4400 + "%",
                     "\x00", "\x07", "\x1b[31m", "\x7f", "\x9b", "\r", "\x1b]0;title\x07"]),
)
scalars = st.one_of(
    st.none(), st.booleans(), texts,
    st.integers(-(10 ** 12), 10 ** 12), st.integers(-(10 ** 4000), 10 ** 4000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.dates(), st.datetimes(),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(texts, st.integers()), inner,
                                                 max_size=4)), max_leaves=12)
keys = st.one_of(texts, st.integers(-10, 10 ** 30), st.booleans(), st.none(),
                 st.floats(allow_nan=False), st.dates())


# ---------------------------------------------------------------- parameter values, as written

def _flow_string(s: str) -> str:
    """``s`` as a single-quoted YAML scalar (one line: ``s`` has no line break)."""
    return "'" + s.replace("'", "''") + "'"


#: text where a value of some type belongs, as an editor might write it (unquoted)
PARAM_WORDS = ["+1", "-1", "+0", "half", "a half", "1/0", "0/0", "1/2", "-1/2", "2/1", "3/2",
               "1/" + "0" * 120, "9" * 99 + "/7", "0.5", "1e3", "none", "None", "entering",
               "whole-move", "yes", "no", "on", "off", "A", "C(I)", "Q", "x", "0x10", "0o7",
               "12:30", "1_000", "2001-01-01", "2002-02-30", "1" * 101, "-" + "9" * 99]
#: one scalar of every YAML type, written on one line in flow style
param_scalars = st.one_of(
    st.sampled_from(PARAM_WORDS),
    st.integers(-(10 ** 6), 10 ** 6).map(str),
    st.integers(10 ** 59, 10 ** 99).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr).filter(lambda t: "e" in t or "." in t),
    st.sampled_from([".nan", ".NaN", ".inf", "-.inf", "+.inf", "1.5e300", "-0.0"]),
    st.sampled_from(["true", "false", "True", "FALSE", "null", "~", "Null"]),
    st.text(st.characters(exclude_categories=["Cs", "Cc", "Cn", "Co", "Zl", "Zp"],
                          exclude_characters="\ufeff"),
            max_size=12).map(_flow_string),
    st.sampled_from(["x" * 5000, "7" * 5000, "1/" + "7" * 5000]).map(_flow_string),
)
#: a parameter value of any YAML type (scalar, list, mapping), as flow YAML on one line
param_values = st.one_of(
    param_scalars,
    st.lists(param_scalars, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
    st.lists(st.sampled_from(["A", "C", "C(I)", "H", "Q", "1", "true"]), max_size=4,
             unique=True).map(lambda xs: "[" + ", ".join(xs) + "]"),
    st.sampled_from(["{}", "{a: 1}", "{A: [C]}", "[[A]]", "[{}]"]),
)


# ---------------------------------------------------------------- breaking

def _places(node: Any, path: tuple = ()) -> list[tuple]:
    """Every (path) to a value in ``node``: dict keys and list indexes."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append(path + (k,))
            out += _places(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append(path + (i,))
            out += _places(v, path + (i,))
    return out


def _get(node: Any, path: tuple) -> Any:
    for k in path:
        node = node[k]
    return node


def _ids(files: dict) -> list[str]:
    """Every string of the data that other data may refer to."""
    out = set()
    for data in files.values():
        for p in _places(data):
            if p and p[-1] in ("id", "key", "term", "name", "source", "topic", "aspect"):
                v = _get(data, p)
                if isinstance(v, str):
                    out.add(v)
    return sorted(out)


#: keys under which values are typed: parameters, their defaults and words, units, maps, versions
TYPED = {"params", "default", "words", "values", "version", "versions", "year", "units", "map",
         "steps", "start", "rulings", "ask", "move", "fire", "columns", "rows", "hexes", "mp"}


class Raw(str):
    """YAML text written into the file as it is, in place of a value or a key."""


#: version names: ones that would give one page ('0.2', '0 2', '0-2'; 'A' and 'a' where case
#: is ignored; composed and decomposed accents), very long ones, and any text
VERSION_NAMES = st.one_of(
    st.sampled_from(["0.2", "0 2", "0-2", "0_2", "0.2 ", "A", "a", "\u00e9", "e\u0301", "v" * 300,
                     "1" * 255, "../../x", "/", ".", "\u00b2", "0.2\x00"]),
    st.text(surrogate_free, min_size=1, max_size=300))


@st.composite
def versions_of(draw) -> list[dict]:
    """A source's versions: names that may collide or be very long, dates in order."""
    names = draw(st.lists(VERSION_NAMES, min_size=1, max_size=4))
    return [{"version": v, "date": str(2000 + i)} for i, v in enumerate(names)]


#: file names a folder may hold (as bytes): not UTF-8, with control characters or line
#: breaks, a byte order mark, very long (up to the 255 bytes a name may have), any text
FILE_NAMES = st.one_of(
    st.sampled_from([b"rules_\xff", b"\xc3(", b"caf\xe9", b"bell\x07", b"esc\x1b[31m", b"new\nline",
                     b" lead", b"-dash", b"\xef\xbb\xbfbom", b"\xed\xb2\x80", b"a" * 250, b"--help"]),
    st.integers(1, 250).map(lambda n: b"n" * n),
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="/\x00"), min_size=1,
            max_size=60).map(lambda t: t.encode("utf-8")[:240]),
).map(lambda b: b + b".yaml")


@st.composite
def renamed_folders(draw, base: st.SearchStrategy | None = None) -> tuple[dict[str, str], list[str]]:
    """A folder (valid, or broken) with one to three files renamed (in the folder or in
    ``scenarios/``) to names of :data:`FILE_NAMES`: text by relative path, the path read by
    Python as :func:`os.fsdecode` reads it (surrogate escapes for bytes that are not UTF-8)."""
    import os
    files = dict(draw(base if base is not None else st.one_of(
        valid_folders().map(texts_of), broken_folders().map(lambda b: b[0]))))
    done = []
    for _ in range(draw(st.integers(1, 3))):
        old = draw(st.sampled_from(sorted(files)))
        folder = draw(st.sampled_from(["", "scenarios/"]))
        new = folder + os.fsdecode(draw(FILE_NAMES))
        if new in files:
            continue
        files[new] = files.pop(old)
        done.append(f"rename {old} to {new!r}")
    return files, done


@st.composite
def broken_folders(draw, base: st.SearchStrategy | None = None) -> tuple[dict[str, str], list[str]]:
    """A valid folder with 1 to 4 breaks: (text by relative path, what was done)."""
    files = draw(base if base is not None else valid_folders())
    done: list[str] = []
    dup_sections: dict[str, list] = {}
    for _ in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from(sorted(files)))
        data = files[name]
        places = _places(data)
        kind = draw(st.sampled_from(["value", "raw-value", "key", "raw-key", "delete", "duplicate",
                                     "parameter", "parameter", "param-value", "param-value",
                                     "reference", "nest", "reorder", "move-section",
                                     "duplicate-section", "top-level", "versions"]))
        if kind == "versions":  # version names become page names
            sources = (files.get("sources.yaml") or {}).get("sources") \
                if isinstance(files.get("sources.yaml"), dict) else None
            if isinstance(sources, list) and sources and isinstance(sources[-1], dict):
                sources[-1]["versions"] = draw(versions_of())
                done.append("versions sources.yaml")
            continue
        if not places and kind not in ("top-level", "move-section"):
            kind = "top-level"
        if kind == "param-value":  # a cell's parameter (or a default) given a value of any type
            chosen = [p for p in places if len(p) >= 2 and p[-2] == "params"
                      or p and p[-1] == "default"]
            if not chosen:
                continue
            path = draw(st.sampled_from(chosen))
            _get(data, path[:-1])[path[-1]] = Raw(draw(param_values))
            done.append(f"param-value {name}:{path}")
            continue
        if kind == "parameter":  # the values the engine and the checks compute with
            chosen = [p for p in places if any(k in TYPED for k in p if isinstance(k, str))]
            if not chosen:
                continue
            path = draw(st.sampled_from(chosen))
            parent, k = _get(data, path[:-1]), path[-1]
            if draw(st.booleans()) and isinstance(parent, dict):
                parent[draw(st.one_of(keys, texts))] = parent.pop(k)
            else:
                parent[k] = draw(st.one_of(values, st.sampled_from(RAW_VALUES).map(Raw)))
            done.append(f"parameter {name}:{path}")
        elif kind in ("value", "raw-value", "reference", "nest"):
            path = draw(st.sampled_from(places))
            parent, k = _get(data, path[:-1]), path[-1]
            if kind == "value":
                parent[k] = draw(values)
            elif kind == "raw-value":
                parent[k] = Raw(draw(st.sampled_from(RAW_VALUES)))
            elif kind == "reference":
                parent[k] = draw(st.one_of(st.sampled_from(_ids(files) or ["x"]),
                                           st.sampled_from(_ids(files) or ["x"]).map(
                                               lambda s: s[:-1] or "x")))
            else:
                for _ in range(draw(st.integers(1, 50))):
                    parent[k] = [parent[k]] if draw(st.booleans()) else {"n": parent[k]}
            done.append(f"{kind} {name}:{path}")
        elif kind in ("key", "raw-key", "delete"):
            maps = [p for p in [()] + places if isinstance(_get(data, p), dict) and _get(data, p)]
            if not maps:
                continue
            where = draw(st.sampled_from(maps))
            node = _get(data, where)
            old = draw(st.sampled_from(list(node)))
            value = node.pop(old)
            if kind != "delete":
                new = draw(keys) if kind == "key" else Raw(draw(st.sampled_from(RAW_KEYS)))
                node[new] = value
            done.append(f"{kind} {name}:{where + (old,)}")
        elif kind == "duplicate":
            lists = [p for p in places if isinstance(_get(data, p), list) and _get(data, p)]
            if not lists:
                continue
            where = draw(st.sampled_from(lists))
            node = _get(data, where)
            i = draw(st.integers(0, len(node) - 1))
            node.insert(draw(st.integers(0, len(node))), copy.deepcopy(node[i]))
            done.append(f"duplicate {name}:{where + (i,)}")
        elif kind == "reorder" and isinstance(data, dict):
            items = list(data.items())
            draw(st.randoms()).shuffle(items)
            files[name] = dict(items)
            done.append(f"reorder {name}")
        elif kind == "move-section" and isinstance(data, dict) and data:
            section = draw(st.sampled_from(list(data)))
            other = draw(st.sampled_from(sorted(files)))
            if other != name and isinstance(files[other], dict) and section not in files[other]:
                files[other][section] = data.pop(section)
                done.append(f"move {name}:{section} to {other}")
        elif kind == "duplicate-section" and isinstance(data, dict) and data:
            section = draw(st.sampled_from(list(data)))
            dup_sections.setdefault(name, []).append({section: copy.deepcopy(data[section])})
            done.append(f"duplicate-section {name}:{section}")
        elif kind == "top-level":
            files[name] = draw(st.one_of(scalars, st.lists(scalars, max_size=3),
                                         st.just(Raw(draw(st.sampled_from(RAW_VALUES))))))
            done.append(f"top-level {name}")
    texts_out = {}
    for name, data in files.items():
        text = dump(data)
        for extra in dup_sections.get(name, []):
            text += dump(extra)
        texts_out[name] = text
    return texts_out, done


# ---------------------------------------------------------------- writing

_RAW_MARK = re.compile(r"RAW(\d+)RAW")


def dump(data: Any) -> str:
    """YAML text of ``data``; :class:`Raw` values and keys are written as they are."""
    raws: list[str] = []

    def mark(node):
        if isinstance(node, Raw):
            raws.append(str(node))
            return f"RAW{len(raws) - 1}RAW"
        if isinstance(node, dict):
            return {mark(k): mark(v) for k, v in node.items()}
        if isinstance(node, list):
            return [mark(v) for v in node]
        return node

    y = YAML(typ="rt")
    y.width = 88
    y.indent(mapping=2, sequence=4, offset=2)
    y.allow_unicode = True
    out = io.StringIO()
    marked = mark(data)
    if isinstance(marked, str) and _RAW_MARK.fullmatch(marked):
        return raws[int(marked[3:-3])] + "\n"
    y.dump(marked, out)
    return _RAW_MARK.sub(lambda m: raws[int(m.group(1))], out.getvalue())


def texts_of(files: dict[str, Any]) -> dict[str, str]:
    return {name: dump(data) for name, data in files.items()}


@st.composite
def commented(draw, text: str, first: int = 0) -> tuple[str, list[str]]:
    """``text`` with comments added: whole lines before keys and list items (at their
    indentation), and comments at the end of lines holding a key and its whole value.
    Returns the text and the comments written (``# cN``/``# eN``, numbered from ``first``)."""
    lines = text.split("\n")
    out, added = [], []
    n = first
    key_line = re.compile(r"^(\s*)(- )?[A-Za-z0-9_.-]+:( |$)")
    for i, line in enumerate(lines):
        m = key_line.match(line)
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if m and draw(st.integers(0, 9)) == 0:
            c = f"# c{n}"
            n += 1
            out.append(m.group(1) + c)
            added.append(c)
        indent = len(line) - len(line.lstrip(" "))
        continued = nxt.strip() and len(nxt) - len(nxt.lstrip(" ")) > indent
        whole = bool(m) and ": " in line and "#" not in line and not continued \
            and not line.rstrip().endswith((":", "|", ">", "|-", ">-", "|+", ">+"))
        if whole and draw(st.integers(0, 7)) == 0:
            c = f"# e{n}"
            n += 1
            line = line + "  " + c
            added.append(c)
        out.append(line)
    return "\n".join(out), added


def date_of(value: Any) -> bool:
    return isinstance(value, (dt.date, dt.datetime))
