"""The diff for a terminal: one line per change, word diffs as ``[-old-]{+new+}``."""
from __future__ import annotations

import difflib
import json
from typing import Any

from .compare import CELL_FIELDS, SECTIONS, is_empty


def describe(value: Any) -> str:
    """A value for a line of the diff: change records, relations and versions in words.

    >>> describe({"version": "0.2", "note": "Now standard."}), describe({"type": "amends", "clauses": ["a@PL"]})
    ('0.2: Now standard.', 'amends a@PL')
    """
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"version", "note"}:
        return f"{value['version']}: {value['note']}"
    if isinstance(value, dict) and set(value) == {"type", "clauses"}:
        return f"{value['type']} {', '.join(value['clauses']) or '(no clause)'}"
    if isinstance(value, list) and value and all(isinstance(v, dict) and "version" in v for v in value):
        return "; ".join(f"{v['version']} ({v.get('date')})" for v in value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def line_diff(a: str, b: str) -> list[str]:
    """The changed lines of a multi-line text, ``-``/``+`` with a line of context.

    >>> line_diff(">>> f(1)\\n1\\n", ">>> f(1)\\n2\\n")
    ['  >>> f(1)', '- 1', '+ 2']
    """

    out = []
    for line in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=1):
        if line.startswith(("---", "+++")):
            continue
        out.append("..." if line.startswith("@@") else f"{line[0]} {line[1:]}".rstrip())
    return out[1:] if out and out[0] == "..." else out


def to_text(d: dict, old_label: str = "OLD", new_label: str = "NEW") -> str:
    """The diff for a terminal: one line per change, word diffs as ``[-old-]{+new+}``."""
    lines = [f"harmony diff {old_label} -> {new_label}"]
    c = d["clauses"]
    lines.append(f"clauses: {len(c['added'])} added, {len(c['removed'])} removed, "
                 f"{len(c['changed'])} changed")
    for cid in c["added"]:
        lines.append(f"+ {cid}")
    for cid in c["removed"]:
        lines.append(f"- {cid}")
    for cid, ch in c["changed"].items():
        lines.append(f"~ {cid}")
        for f in ("topic", "aspect", "title", "examples", "scenarios", "qa"):
            if f not in ch:
                continue
            a, b = ch[f]["old"], ch[f]["new"]
            if f == "examples" and isinstance(a, str) and isinstance(b, str):
                lines.append(f"    {f}:")           # a doctest reads best as a line diff
                lines += ["      " + x for x in line_diff(a, b)]
            else:
                lines.append(f"    {f}: {describe(a)} -> {describe(b)}")
        for key, cell in ch.get("cells", {}).items():
            if "presence" in cell:
                lines.append(f"    {key}: cell {cell['presence']}")
            for f in CELL_FIELDS:
                if f not in cell:
                    continue
                v = cell[f]
                if f == "params":
                    for p in v:
                        lines.append(f"    {key} param {p['name']}: "
                                     f"{'(unset)' if p['added'] else describe(p['old'])} -> "
                                     f"{'(unset)' if p['removed'] else describe(p['new'])}")
                elif f in ("text", "note", "card") and "diff" in v:
                    lines.append(f"    {key} {f}: {v['diff']}")
                else:
                    lines.append(f"    {key} {f}: {describe(v['old'])} -> {describe(v['new'])}")
    for section in SECTIONS:
        s = d[section]
        if not (s["added"] or s["removed"] or s["changed"]):
            continue
        lines.append(f"{section}: {len(s['added'])} added, {len(s['removed'])} removed, "
                     f"{len(s['changed'])} changed")
        lines += [f"+ {k}" for k in s["added"]] + [f"- {k}" for k in s["removed"]]
        changed = s["changed"]
        for k in (changed if isinstance(changed, list) else changed.keys()):
            if isinstance(changed, list):
                lines.append(f"~ {k}")
                continue
            for f, v in changed[k].items():
                if "diff" in v:
                    lines.append(f"~ {k} {f}: {v['diff']}")
                else:
                    lines.append(f"~ {k} {f}: {describe(v['old'])} -> {describe(v['new'])}")
    if "rulings" in d:
        r = d["rulings"]
        lines.append(f"rulings: {len(r)} changed")
        for x in r:
            lines.append(f"~ {x['scenario']} step {x['step']}, {x['ruleset']}: {x['question']}")
            lines.append(f"    before: {describe(x['before'])}  because {', '.join(x['reasons_before'] or []) or '-'}")
            lines.append(f"    after:  {describe(x['after'])}  because {', '.join(x['reasons_after'] or []) or '-'}")
            if x["changed_clauses"]:
                lines.append(f"    changed clauses involved: {', '.join(x['changed_clauses'])}")
        if d.get("assumed"):
            a = d["assumed"]
            lines.append(f"  ({a['side']} side played with {', '.join(a['parameters'])} at the new "
                         "default: not declared there yet)")
        for p in d.get("engine", []):
            lines.append(f"! {p['scenario']} ({p['side']}): not run: {p['error']}")
    if is_empty(d):
        lines.append("no changes")
    return "\n".join(lines) + "\n"
