"""Validation of each file against the shipped JSON Schema.

The schema (``harmony/schema/harmony.schema.json``) is the single statement
of what the loader accepts; editors' YAML plugins can use the same file.
Errors come back positioned at the offending key or value.

Most files are valid, and finding that out is most of the cost of validating
them: :func:`quick_valid` asks a validator compiled from the same schema to
Python code (fastjsonschema, ten times quicker than jsonschema here), and only
a document it does not accept is walked by jsonschema (imported only then) for every problem and
its place. The quick validator is trusted only to say "valid": a test checks
that it never accepts a document jsonschema rejects (tests/test_schema_quick.py).

A Python without fastjsonschema (the ruling explorer's, in the browser) gets its quick
validators compiled ahead of time: :func:`compile_ahead` writes them as a module
(:data:`AHEAD`) that :func:`quick_check` imports; jsonschema itself is imported only
when a document is not valid (or where no quick validator exists).
"""
from __future__ import annotations

import copy
import hashlib
import json
import re
import sys
from collections.abc import Callable
from functools import lru_cache
from types import CodeType
from typing import TYPE_CHECKING, Any

from . import resources
from .diagnostics import Report
from .yamltree import Document, first_content, plain

if TYPE_CHECKING:     # jsonschema is imported only for a document the quick validator rejects
    import jsonschema
    from jsonschema import Draft202012Validator

SCHEMA_FILE = "harmony.schema.json"
#: the module of quick validators compiled ahead (:func:`compile_ahead`), where a bundle ships one
AHEAD = "harmony_schema_ahead"


@lru_cache(maxsize=1)
def schema() -> dict:
    try:
        with open(resources.schema_file(), encoding="utf-8") as f:
            return json.load(f)
    except OSError:   # the package imported from a zip (the explorer's bundle): its loader reads it
        import pkgutil
        data = pkgutil.get_data("harmony", f"schema/{SCHEMA_FILE}")
        if data is None:
            raise
        return json.loads(data)


@lru_cache(maxsize=1)
def validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator
    return Draft202012Validator(schema())


def definition(ref: str | None) -> dict:
    """The schema standing for the definition ``ref`` (``#/$defs/scenario``; None: the whole
    file's schema), its definitions beside it so that its references resolve.

    >>> definition("#/$defs/scenario")["$ref"], "$defs" in definition("#/$defs/scenario")
    ('#/$defs/scenario', True)
    """
    root = schema()
    if ref is None:
        return root
    sub = {k: root[k] for k in ("$schema", "$id", "$defs")}
    sub["$ref"] = ref
    return sub


def _function_name(ref: str) -> str:
    """The name fastjsonschema gives the function checking the definition ``ref`` of the
    schema (its URI, each character that cannot be in a name made ``_``)."""
    return "validate_" + re.sub(r"[^a-zA-Z0-9_]", "_", schema()["$id"] + ref)


@lru_cache(maxsize=8)
def compile_ahead(ref: str, inner: tuple[str, ...] = ()) -> str:
    """Python source of a module with quick validators for the definition ``ref`` and for
    the definitions ``inner`` that it refers to (fastjsonschema's code for ``ref``, whose
    functions check each of them), named in its ``VALIDATORS`` mapping; each raises
    ``JsonSchemaException`` (defined in the module) on data it does not accept. The same
    schema gives the same text (made once a process). The module needs no fastjsonschema
    to run.

    >>> code = compile_ahead("#/$defs/scenario", ("#/$defs/scenario/$defs/step",))
    >>> namespace = {}
    >>> exec(compile(code, AHEAD, "exec"), namespace)
    >>> sorted(namespace["VALIDATORS"])
    ['#/$defs/scenario', '#/$defs/scenario/$defs/step']
    >>> namespace["VALIDATORS"]["#/$defs/scenario/$defs/step"]({"end": "phase"})
    {'end': 'phase'}
    """
    import fastjsonschema
    code = fastjsonschema.compile_to_code(copy.deepcopy(definition(ref)), use_default=False,
                                          detailed_exceptions=False)
    # the module stands alone: fastjsonschema's exceptions, defined in it
    header = "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n"
    if code.count(header) != 1:
        raise RuntimeError("fastjsonschema's code does not import its exceptions as expected "
                           "(another version?)")
    code = code.replace(header, "class JsonSchemaException(ValueError):\n    pass\n\n\n"
                                "class JsonSchemaValueException(JsonSchemaException):\n"
                                "    def __init__(self, message, *args, **kwargs):\n"
                                "        super().__init__(message)\n\n\n"
                                "JsonSchemaValuesException = JsonSchemaValueException\n")
    names = {}
    for r in [ref, *inner]:
        name = _function_name(r)
        if f"\ndef {name}(" not in code:
            raise RuntimeError(f"fastjsonschema's code for {ref} has no function for {r}")
        names[r] = name
    table = ", ".join(f"{r!r}: {n}" for r, n in names.items())
    return f"# written by harmony (harmony.schema.compile_ahead); do not edit\n{code}\n\nVALIDATORS = {{{table}}}\n"


@lru_cache(maxsize=None)
def quick_check(ref: str | None) -> Callable[[Any], bool] | None:
    """A quick test of whether data is valid for the definition ``ref`` (None: the whole
    file's schema) (True) or perhaps not (False: ask :func:`validator`), trusted only when
    it says True: the validator compiled ahead (the module :data:`AHEAD`, where a bundle
    ships one), else one compiled now by fastjsonschema, else None.

    >>> check = quick_check("#/$defs/scenario/$defs/step")
    >>> check({"end": "phase"}), check({"end": 1})
    (True, False)
    """
    found: Any = None
    invalid: type[BaseException] = Exception
    if ref is not None:
        try:
            ahead = __import__(AHEAD)
            found, invalid = ahead.VALIDATORS.get(ref), ahead.JsonSchemaException
        except ImportError:
            pass
    if found is None and ref is None:
        quick = _quick()
        if quick is None:
            return None
        found, invalid = quick
    elif found is None:
        try:
            import fastjsonschema
        except ImportError:
            return None
        # a copy: compiling rewrites the schema's $ref values in place (fmt reads its key
        # order); use_default=False: it would otherwise write the schema's defaults into data
        found = fastjsonschema.compile(copy.deepcopy(definition(ref)), use_default=False,
                                       detailed_exceptions=False)
        invalid = fastjsonschema.JsonSchemaException

    def check(data: Any) -> bool:
        try:
            found(data)
        except invalid:
            return False
        except Exception:   # noqa: BLE001 - a bug of the compiled code must not hide errors
            return False
        return True
    return check


@lru_cache(maxsize=1)
def _quick() -> Any:
    """The whole file's compiled validator and its exception, or None without fastjsonschema."""
    try:
        import fastjsonschema
    except ImportError:   # the explorer's browser bundle leaves it out: jsonschema alone there
        return None
    namespace: dict[str, Any] = {}
    exec(_validator_code(), namespace)
    return namespace[namespace["_ROOT"]], fastjsonschema.JsonSchemaException


def _validator_code() -> CodeType:
    """The compiled validator as Python code (:func:`fastjsonschema.compile_to_code`, the
    root validating function named in ``_ROOT``), compiled. Writing and compiling it is a
    tenth of a second (a third of a ``harmony check`` after an edit), so the compiled code is
    remembered on disk beside the parse cache (:mod:`harmony.parsecache`, ``validator/``),
    keyed by the schema's text, the fastjsonschema installation and the Python version."""
    import marshal

    from . import parsecache
    with open(resources.schema_file(), "rb") as f:
        text = f.read()
    h = hashlib.sha256(b"validator\0" + text + b"\0" + sys.version.encode() + b"\0"
                       + parsecache.installed("fastjsonschema").encode())
    k = h.hexdigest()
    kept = parsecache.get(k, "validator")
    if isinstance(kept, bytes):
        try:
            return marshal.loads(kept)
        except (EOFError, ValueError, TypeError):
            pass
    import fastjsonschema
    # a copy: compiling rewrites the schema's $ref values in place (fmt reads its key order);
    # use_default=False: it would otherwise write the schema's defaults into the document
    source = fastjsonschema.compile_to_code(copy.deepcopy(schema()), use_default=False,
                                            detailed_exceptions=False)
    root = re.search(r"^def (validate\w*)\(", source, re.M)    # the root is written first
    if root is None:     # pragma: no cover - a fastjsonschema that writes otherwise
        raise RuntimeError("fastjsonschema wrote no validating function")
    code = compile(f"{source}\n_ROOT = {root.group(1)!r}\n", "<harmony schema validator>", "exec")
    parsecache.put(k, marshal.dumps(code), "validator")
    return code


def quick_valid(data: Any) -> bool:
    """True when ``data`` is valid for the schema, by the compiled validator; False when it
    is not, or when that validator is missing or fails (then :func:`validate_items` asks
    jsonschema, which finds every problem).

    >>> quick_valid({"glossary": [{"term": "spotted", "definition": "Seen by the enemy."}]})
    True
    >>> quick_valid({"glossary": "spotted"}), quick_valid({"no-such-section": 1})
    (False, False)
    """
    check = quick_check(None)
    return check is not None and check(data)


_TYPE_NAMES = {"object": "a mapping", "array": "a list", "string": "text", "integer": "a whole number",
               "number": "a number", "boolean": "true or false", "null": "nothing"}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if value is None:
        return "nothing (empty value)"
    return "text"


_ITEMS = {"sources": ("source", "key"), "topics": ("topic", "id"), "clauses": ("clause", "id"),
          "parameters": ("parameter", "name"), "glossary": ("glossary term", "term"),
          "footnotes": ("footnote", "id"), "notes": ("note", "id"), "tables": ("table", "id"),
          "comparisons": ("comparison", "id")}
_PARTS = {"aspects": ("aspect", "id"), "documents": ("document", "id"), "versions": ("version", "version"),
          "qa": ("Q&A", None)}


def _named(kind: str, node: Any, field: str | None, index: int) -> str:
    name = node.get(field) if field and isinstance(node, dict) else None
    return f"{kind} '{name}'" if isinstance(name, str) and name else f"{kind} #{index + 1}"


def describe(data: Any, path) -> str:
    """What a schema path points at, in an editor's words.

    >>> data = {"clauses": [{"id": "spotting.rule", "cells": {"PB": {"cite": {"source": 1}}}}]}
    >>> describe(data, ("clauses", 0, "cells", "PB", "cite", "source"))
    "'source' of the citation of cell PB of clause 'spotting.rule'"
    >>> describe(data, ("clauses", 0)), describe(data, ()), describe(data, ("sources",))
    ("clause 'spotting.rule'", 'the top level of the file', "section 'sources'")
    """
    path = list(path)
    if not path:
        return "the top level of the file"
    if path[0] == "scenario":
        owner, node, rest = "the scenario", data.get("scenario"), path[1:]
    elif path[0] in _ITEMS and len(path) >= 2 and isinstance(path[1], int):
        kind, field = _ITEMS[path[0]]
        items = data.get(path[0])
        node = items[path[1]] if isinstance(items, list) and path[1] < len(items) else None
        owner, rest = _named(kind, node, field, path[1]), path[2:]
    else:
        return f"section '{path[0]}'" if len(path) == 1 else f"'{path[-1]}' of section '{path[0]}'"
    field_name = None
    i = 0
    while i < len(rest):
        step = rest[i]
        nxt = rest[i + 1] if i + 1 < len(rest) else None
        child = node.get(step) if isinstance(node, dict) else (
            node[step] if isinstance(node, list) and isinstance(step, int) and step < len(node) else None)
        if step == "cells" and nxt is not None:
            owner = f"cell {nxt} of {owner}"
            node = child.get(nxt) if isinstance(child, dict) else None
            i, field_name = i + 2, None
            continue
        if step in _PARTS and isinstance(nxt, int):
            kind, part_field = _PARTS[step]
            sub = child[nxt] if isinstance(child, list) and nxt < len(child) else None
            owner = f"{_named(kind, sub, part_field, nxt)} of {owner}"
            node, i, field_name = sub, i + 2, None
            continue
        if step in ("cite", "relation", "card", "exercised", "changed", "params") and nxt is not None:
            word = {"cite": "the citation", "relation": "the relation", "card": "the card",
                    "exercised": "the coverage reason", "changed": "the change note",
                    "params": "the parameters"}[step]
            owner = f"{word} of {owner}"
            node = child
            if isinstance(nxt, int):  # a list of citations
                node = child[nxt] if isinstance(child, list) and nxt < len(child) else None
                i += 1
            i, field_name = i + 1, None
            continue
        if not isinstance(step, int):
            field_name = step
        node = child
        i += 1
    return f"'{field_name}' of {owner}" if field_name else owner


def _close(word: str, options) -> str:
    import difflib     # for a misspelling only
    match = difflib.get_close_matches(str(word), [str(o) for o in options], n=1, cutoff=0.6)
    return f"did you mean '{match[0]}'? " if match else ""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _expand(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """For oneOf/anyOf, the errors of the branch the author most likely meant.

    A branch whose type matches the value (a mapping for a mapping) is preferred,
    then the one whose errors go deepest; all of its errors are reported.
    """
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return [error]
    branches: dict[int, list] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)

    def score(errs):
        type_miss = any(e.validator in ("type", "enum", "const") and
                        len(e.absolute_path) == len(error.absolute_path) for e in errs)
        return (not type_miss, max(len(e.absolute_path) for e in errs), -len(errs))

    chosen = max(branches.values(), key=score)
    if not score(chosen)[0]:
        return [error]
    out = []
    for sub in chosen:
        out.extend(_expand(sub))
    return out


def resolve(s: Any) -> Any:
    """Follow a local ``$ref`` (``#/$defs/a`` or ``#/$defs/a/$defs/b``) to its definition."""
    seen = 0
    while isinstance(s, dict) and "$ref" in s and seen < 20:
        target: Any = schema()
        for part in s["$ref"].lstrip("#/").split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        s, seen = target, seen + 1
    return s


def _shape(branch: dict) -> str:
    b = resolve(branch)
    if "enum" in b or "const" in b:
        return " or ".join(repr(v) for v in b.get("enum", [b.get("const")]))
    t = b.get("type")
    return " or ".join(_TYPE_NAMES.get(x, str(x)) for x in (t if isinstance(t, list) else [t]) if x)


def _message(e: jsonschema.ValidationError, data: Any) -> tuple[str, str, bool]:
    """(message, code, points-at-key) for one schema error."""
    v, inst = e.validator, e.instance
    where = describe(data, e.absolute_path)
    if "propertyNames" in e.absolute_schema_path:
        desc = e.schema.get("description", "")
        return (f"{_short(inst)} is not a valid key in {where}" + (f": {desc}" if desc else ""),
                "schema-pattern", True)
    if v == "additionalProperties" and isinstance(inst, dict):
        allowed = list(e.schema.get("properties", {}))
        extra = [k for k in inst if k not in allowed][0]
        return (f"unknown key '{extra}' in {where}: {_close(extra, allowed)}remove it or fix its "
                f"spelling (allowed keys: {', '.join(allowed)})", "schema-unknown-key", True)
    if v == "required":
        missing = [k for k in e.validator_value if not isinstance(inst, dict) or k not in inst]
        keys = " and ".join(f"'{k}'" for k in missing)
        return (f"{where} lacks required key{'s' if len(missing) > 1 else ''} {keys}: add "
                f"{'them' if len(missing) > 1 else 'it'} (required: {', '.join(e.validator_value)})",
                "schema-missing-key", False)
    if v == "type":
        want = e.validator_value
        want = " or ".join(_TYPE_NAMES.get(w, str(w)) for w in (want if isinstance(want, list) else [want]))
        hint = ""
        if isinstance(inst, str) and "integer" in str(e.validator_value) and inst.strip().lstrip("-").isdigit():
            hint = ": remove the quotes"
        elif inst is None:
            hint = ": write the value after the ':' or remove the key"
        found = _kind(inst) + (f" ({_short(inst)})" if isinstance(inst, (str, int, float)) else "")
        return f"{where} must be {want}, found {found}{hint}", "schema-type", False
    if v in ("enum", "const"):
        allowed = e.validator_value if v == "enum" else [e.validator_value]
        return (f"{_short(inst)} is not allowed as {where}: {_close(inst, allowed)}use one of: "
                f"{', '.join(map(str, allowed))}", "schema-enum", False)
    if v == "pattern":
        desc = e.schema.get("description", f"it must match {e.validator_value}")
        return f"{_short(inst)} is not a valid value for {where}: {desc}", "schema-pattern", False
    if v == "propertyNames":
        desc = resolve(e.validator_value).get("description", "")
        return (f"{_short(inst)} is not a valid key in {where}" + (f": {desc}" if desc else ""),
                "schema-pattern", True)
    if v == "minLength":
        return f"{where} is empty: write the text or remove the key", "schema-empty", False
    if v == "maxLength":
        return (f"{where} is too long ({len(inst):,} characters; at most {e.validator_value}: it "
                "names pages and files): shorten it", "schema-too-long", False)
    if v == "minItems":
        return f"{where} is an empty list: give at least {e.validator_value} item(s)", "schema-empty", False
    if v == "maxItems" and isinstance(inst, list):
        return (f"{where} has {len(inst):,} items: give at most {e.validator_value:,}", "schema-range",
                False)
    if v == "minProperties":
        if not e.absolute_path:
            return ("the file holds an empty mapping: a rules_data file needs at least one "
                    "section (sources, topics, clauses, ...)", "schema-empty", False)
        return f"{where} is empty: give at least one entry", "schema-empty", False
    if v == "uniqueItems":
        return f"{where} lists an item twice: keep one", "schema-duplicate-item", False
    if v in ("minimum", "maximum"):
        bound = "at least" if v == "minimum" else "at most"
        return f"{_short(inst)} is out of range for {where}: it must be {bound} {e.validator_value}", \
            "schema-range", False
    if v in ("oneOf", "anyOf"):
        want = " or ".join(x for x in (_shape(b) for b in e.validator_value) if x)
        found = _kind(inst) + (f" ({_short(inst)})" if isinstance(inst, (str, int, float)) else "")
        return (f"{where} must be {want or 'something else'}, found {found}", "schema-type", False)
    return f"{where}: {e.message}", "schema", False


def validate(doc: Document) -> Report:
    """Every schema problem of one loaded document (not only the first)."""
    return validate_items(doc)[0]


def validate_items(doc: Document) -> tuple[Report, set]:
    """Schema problems of one document, and the parts that have them.

    The second value holds ``(section, index)`` for each list item with a
    problem, ``(section,)`` for a whole section and ``()`` for the whole
    file; the loader leaves those out of the model.
    """
    report, broken = Report(), set[tuple]()
    if doc.tree is None:
        return report, {()}
    data = plain(doc.tree)
    if not isinstance(data, dict):
        pos = doc.pos() if hasattr(doc.tree, "lc") else first_content(doc.path, doc.text)
        report.error(pos, f"the top level must be a mapping of sections (sources, topics, "
                     f"clauses, ...), found {_kind(data)}", "schema-type")
        return report, {()}
    if quick_valid(data):
        return report, broken
    seen = set()
    errors = [x for e in validator().iter_errors(data) for x in _expand(e)]
    # a mapping with a key its schema does not know: that key is the problem (an unknown
    # question, say), not the key that one of the shapes it may take would want
    unknown = {tuple(e.absolute_path) for e in errors if e.validator == "additionalProperties"}
    errors = [e for e in errors if not (e.validator == "required" and e.parent is not None
                                        and tuple(e.absolute_path) in unknown)]
    for err in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        path = tuple(err.absolute_path)
        broken.add(path[:2] if len(path) >= 2 and isinstance(path[1], int) else path[:1])
        msg, code, at_key = _message(err, data)
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            allowed = list(err.schema.get("properties", {}))
            for k in err.instance:
                if k not in allowed:
                    m = (f"unknown key '{k}' in {describe(data, path)}: {_close(k, allowed)}remove it "
                         f"or fix its spelling (allowed keys: {', '.join(allowed)})")
                    if (path + (k,), m) not in seen:
                        seen.add((path + (k,), m))
                        report.error(doc.pos(*path, k, key=True), m, code)
            continue
        if err.validator == "required":
            pos = doc.pos(*path)
        elif "propertyNames" in err.absolute_schema_path:
            pos = doc.pos(*path, err.instance, key=True)
        else:
            pos = doc.pos(*path, key=at_key)
        if (path, msg) in seen:
            continue
        seen.add((path, msg))
        report.error(pos, msg, code)
    return report, broken
