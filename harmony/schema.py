"""Validation of each file against the shipped JSON Schema.

The schema (``harmony/schema/harmony.schema.json``) is the single statement
of what the loader accepts; editors' YAML plugins can use the same file.
Errors come back positioned at the offending key or value.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator

from .diagnostics import Report
from .loader import Document, plain

SCHEMA_FILE = "harmony.schema.json"


@lru_cache(maxsize=1)
def schema() -> dict:
    with resources.files("harmony").joinpath("schema", SCHEMA_FILE).open(encoding="utf-8") as f:
        return json.load(f)


@lru_cache(maxsize=1)
def validator() -> Draft202012Validator:
    return Draft202012Validator(schema())


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


def _where(path) -> str:
    parts = [p for p in path if not isinstance(p, int)]
    return f" in '{parts[-1]}'" if parts else ""


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
        type_miss = any(e.validator in ("type", "enum") and
                        len(e.absolute_path) == len(error.absolute_path) for e in errs)
        return (not type_miss, max(len(e.absolute_path) for e in errs), -len(errs))

    chosen = max(branches.values(), key=score)
    if not score(chosen)[0]:
        return [error]
    out = []
    for sub in chosen:
        out.extend(_expand(sub))
    return out


def _message(e: jsonschema.ValidationError) -> tuple[str, str, bool]:
    """(message, code, points-at-key) for one schema error."""
    v, inst = e.validator, e.instance
    if v == "additionalProperties" and isinstance(inst, dict):
        allowed = sorted(e.schema.get("properties", {}))
        extra = [k for k in inst if k not in allowed]
        hint = f" (expected one of: {', '.join(allowed)})" if allowed else ""
        return f"unknown key '{extra[0]}'{_where(e.absolute_path)}{hint}", "schema-unknown-key", True
    if v == "required":
        missing = e.message.split("'")[1] if "'" in e.message else e.message
        return f"missing key '{missing}'{_where(e.absolute_path)}", "schema-missing-key", False
    if v == "type":
        want = e.validator_value
        want = " or ".join(_TYPE_NAMES.get(w, w) for w in (want if isinstance(want, list) else [want]))
        return f"expected {want}{_where(e.absolute_path)}, found {_kind(inst)}", "schema-type", False
    if v in ("enum", "const"):
        allowed = e.validator_value if v == "enum" else [e.validator_value]
        return (f"{inst!r} is not allowed{_where(e.absolute_path)} (expected one of: "
                f"{', '.join(map(str, allowed))})", "schema-enum", False)
    if v == "pattern":
        desc = e.schema.get("description", f"must match {e.validator_value}")
        return f"{inst!r} is not a valid value{_where(e.absolute_path)}: {desc}", "schema-pattern", False
    if v == "propertyNames":
        return f"{e.message}{_where(e.absolute_path)}", "schema-pattern", True
    if v in ("minLength", "minItems", "minProperties"):
        return f"empty value{_where(e.absolute_path)}", "schema-empty", False
    if v == "uniqueItems":
        return f"repeated item{_where(e.absolute_path)}", "schema-duplicate-item", False
    if v in ("minimum", "maximum"):
        return f"{inst!r} is out of range{_where(e.absolute_path)}", "schema-range", False
    if v in ("oneOf", "anyOf"):
        shapes = [b.get("type") or ("one of " + ", ".join(map(repr, b["enum"])) if "enum" in b else "")
                  for b in e.validator_value]
        want = " or ".join(_TYPE_NAMES.get(x, x) for x in shapes if isinstance(x, str) and x)
        return (f"{_kind(inst)} is not a valid value{_where(e.absolute_path)}"
                + (f" (expected {want})" if want else ""), "schema-type", False)
    return e.message, "schema", False


def validate(doc: Document) -> Report:
    """Every schema problem of one loaded document (not only the first)."""
    report = Report()
    if doc.tree is None:
        return report
    data = plain(doc.tree)
    if not isinstance(data, dict):
        report.error(doc.pos(), f"the top level must be a mapping of sections (sources, topics, "
                     f"clauses, ...), found {_kind(data)}", "schema-type")
        return report
    seen = set()
    errors = [x for e in validator().iter_errors(data) for x in _expand(e)]
    for err in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        msg, code, at_key = _message(err)
        path = tuple(err.absolute_path)
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            allowed = err.schema.get("properties", {})
            for k in err.instance:
                if k not in allowed:
                    m = msg.replace(f"'{[x for x in err.instance if x not in allowed][0]}'", f"'{k}'", 1)
                    key = (path + (k,), m)
                    if key not in seen:
                        seen.add(key)
                        report.error(doc.pos(*path, k, key=True), m, code)
            continue
        if err.validator == "required":
            pos = doc.pos(*path)
        else:
            pos = doc.pos(*path, key=at_key)
        if (path, msg) in seen:
            continue
        seen.add((path, msg))
        report.error(pos, msg, code)
    return report
