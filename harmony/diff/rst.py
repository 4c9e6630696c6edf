"""The site's "what changed" page between two models, as reStructuredText.

Clause text is data: it is shown with its marks resolved, escaped
(:func:`rst_escape`) or inside literal blocks, never as markup.
"""
from __future__ import annotations

import textwrap
from typing import Any

from ..markup import plain_text, render_value
from ..model import Cell, Model
from .compare import TABLES, diff_models, is_empty
from .text import describe
from .words import render, word_diff


def rst_escape(text: str | None) -> str:
    """Text as inert reStructuredText: whitespace folded, every ASCII punctuation mark
    backslash-escaped, so nothing in clause text can become markup.

    >>> rst_escape("*not* `code` |sub| a_b_ [1]_")
    '\\\\*not\\\\* \\\\`code\\\\` \\\\|sub\\\\| a\\\\_b\\\\_ \\\\[1\\\\]\\\\_'
    """
    out = []
    for ch in " ".join((text or "").split()):
        out.append("\\" + ch if ch.isascii() and not ch.isalnum() and not ch.isspace() else ch)
    return "".join(out)


def literal(text: str, indent: str = "   ") -> list[str]:
    """A literal block (shown as is, never parsed), wrapped for reading."""
    body = textwrap.wrap(" ".join(text.split()), 88) or ["(empty)"]
    return ["", "::", ""] + [indent + line for line in body] + [""]


def heading(text: str, char: str) -> list[str]:
    t = rst_escape(text)
    return [t, char * max(len(t), 4), ""]


def plain_cell_text(model: Model, cell: Cell | None, text: str | None) -> str | None:
    if cell is None or text is None:
        return text
    types = {n: p.type for n, p in model.parameters.items()}
    return plain_text(text, cell.params, types)


def param_value(model: Model, name: str, value: Any) -> str:
    p = model.parameters.get(name)
    return render_value(value, p.type if p else None)


def _key(key: str) -> str:
    """An entry's key (an id, a parameter, a glossary term) as inline text.

    >>> _key("opfire.drm"), _key("line of sight")
    ('``opfire.drm``', 'line of sight')
    """
    if key and all(ch.isalnum() or ch in ".-_+" for ch in key):
        return f"``{key}``"
    return rst_escape(key)


def changes_rst(model_old: Model, model_new: Model, title: str, rulings: bool = True) -> str:
    """A "what changed" page (reStructuredText) from ``model_old`` to ``model_new``.

    Clause text is data: it is shown with its marks resolved, escaped
    (:func:`rst_escape`) or inside literal blocks, never as markup. Changed
    rulings are listed when ``rulings`` and the engine is there.
    """
    d = diff_models(model_old, model_new, rulings=rulings)
    lines = heading(title, "=")
    c = d["clauses"]
    if is_empty(d):
        lines += ["Nothing changed.", ""]
    if c["added"]:
        lines += heading("Clauses added", "-")
        for cid in c["added"]:
            cl = model_new.clauses[cid]
            lines += [f"- ``{cid}`` {rst_escape(cl.title or '')}".rstrip()]
        lines.append("")
    if c["removed"]:
        lines += heading("Clauses removed", "-")
        lines += [f"- ``{cid}``" for cid in c["removed"]] + [""]
    if c["changed"]:
        lines += heading("Clauses changed", "-")
        for cid, ch in c["changed"].items():
            cl = model_new.clauses[cid]
            lines += heading(f"{cid}" + (f": {cl.title}" if cl.title else ""), "~")
            for f in ("topic", "aspect", "title", "scenarios"):
                if f in ch:
                    lines += [f"- {f}: {rst_escape(describe(ch[f]['old']))} → {rst_escape(describe(ch[f]['new']))}"]
            for key, cell in ch.get("cells", {}).items():
                label = model_new.sources[key].label if key in model_new.sources else key
                lines += [f"**{rst_escape(label)}**", ""]
                if "presence" in cell:
                    lines += [f"- cell {cell['presence']}"]
                for f in ("status", "option", "relation", "changed", "requires", "cite"):
                    if f in cell:
                        lines += [f"- {f}: {rst_escape(describe(cell[f]['old']))} → "
                                  f"{rst_escape(describe(cell[f]['new']))}"]
                for p in cell.get("params", []):
                    old = "not set" if p["added"] else param_value(model_old, p["name"], p["old"])
                    new = "not set" if p["removed"] else param_value(model_new, p["name"], p["new"])
                    lines += [f"- parameter ``{p['name']}``: {rst_escape(old)} → {rst_escape(new)}"]
                lines.append("")
                for f in ("text", "card", "note"):
                    if f not in cell:
                        continue
                    if f == "text":
                        a = plain_cell_text(model_old, model_old.cell(f"{cid}@{key}"), cell[f]["old"])
                        b = plain_cell_text(model_new, model_new.cell(f"{cid}@{key}"), cell[f]["new"])
                        shown = render(word_diff(a, b))
                    else:
                        shown = cell[f]["diff"]
                    lines += [f"{f.capitalize()} (removed words in [- -], added in {{+ +}})"]
                    lines += literal(shown)
    for section, label in (*TABLES.items(), ("scenarios", "Scenarios")):
        s = d[section]
        if not (s["added"] or s["removed"] or s["changed"]):
            continue
        lines += heading(f"{label} changed", "-")
        lines += [f"- added {_key(k)}" for k in s["added"]] + [f"- removed {_key(k)}" for k in s["removed"]]
        changed = s["changed"]
        if isinstance(changed, list):
            lines += [f"- changed {_key(k)}" for k in changed]
        else:
            for k, fields in changed.items():
                for f, v in fields.items():
                    if "diff" in v:
                        lines += [f"- {_key(k)} {rst_escape(f)} (removed words in [- -], added in {{+ +}})"]
                        lines += ["  " + x if x else x for x in literal(v["diff"])]
                    else:
                        lines += [f"- {_key(k)} {rst_escape(f)}: {rst_escape(describe(v['old']))} → "
                                  f"{rst_escape(describe(v['new']))}"]
        lines.append("")
    if d.get("rulings"):
        lines += heading("Rulings changed", "-")
        for x in d["rulings"]:
            lines += [f"- ``{x['scenario']}``, step {rst_escape(str(x['step']))}, "
                      f"**{rst_escape(x['ruleset'])}**: {rst_escape(x['question'])}",
                      f"  before {rst_escape(describe(x['before']))}, after {rst_escape(describe(x['after']))}"
                      + (f" (clauses: {', '.join('``' + c + '``' for c in x['clauses'])})"
                         if x["clauses"] else "")]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
