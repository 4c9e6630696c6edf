"""``harmony diff --format markdown``: the diff as a summary to post on a pull request.

The rulings that changed come first, one row of a table each (scenario, step numbered from
1, ruleset, question, the ruling before and after, and the clauses that decided it), since
they are what a reviewer of a rules change must see; then the clauses added, removed and
changed, each change of a cell in words, prose as a word diff (removed words struck
through, added words in bold); then the other sections (sources, parameters, glossary ...).
Text from the rules is escaped, so no clause can break the page's Markdown.

>>> from harmony.model import Model
>>> from harmony.diff.compare import diff_models
>>> print(to_markdown(diff_models(Model(), Model()), "HEAD~1", "HEAD"), end="")
## harmony diff `HEAD~1` → `HEAD`
<BLANKLINE>
No change to the rules.
"""
from __future__ import annotations

import re
from typing import Any

from .compare import CELL_FIELDS, SECTIONS, is_empty
from .text import describe
from .words import word_diff

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def md(text: Any) -> str:
    """Text as Markdown that shows it as it is, on one line.

    >>> md("a *b* | c\\nd")
    'a \\\\*b\\\\* \\\\| c d'
    """
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def code(text: Any) -> str:
    """Text as a code span, with enough backticks around it.

    >>> code("spot.adjacent"), code("a`b")
    ('`spot.adjacent`', '``a`b``')
    """
    text = " ".join(str(text).split()).replace("|", "\\|")
    ticks = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def value(v: Any) -> str:
    """A value of a parameter or a ruling, as code (``(none)`` for no value)."""
    return code(describe(v))


def words_md(old: str | None, new: str | None) -> str:
    """A word diff: removed words struck through, added words in bold.

    >>> words_md("fires once", "fires twice")
    'fires ~~once~~ **twice**'
    """
    out = []
    for op, text in word_diff(old, new):
        t = md(text)
        out.append(t if op == "equal" else f"~~{t}~~" if op == "delete" else f"**{t}**")
    return " ".join(out)


def _clauses(d: dict) -> list[str]:
    c = d["clauses"]
    lines = [f"### Clauses: {len(c['added'])} added, {len(c['removed'])} removed, "
             f"{len(c['changed'])} changed", ""]
    lines += [f"- added {code(cid)}" for cid in c["added"]]
    lines += [f"- removed {code(cid)}" for cid in c["removed"]]
    for cid, ch in c["changed"].items():
        lines.append(f"- changed {code(cid)}")
        for f in ("topic", "aspect", "title", "examples", "scenarios", "qa"):
            if f in ch:
                a, b = ch[f]["old"], ch[f]["new"]
                shown = words_md(a, b) if f == "title" else f"{value(a)} → {value(b)}" \
                    if f != "examples" else "changed"
                lines.append(f"  - {f}: {shown}")
        for key, cell in ch.get("cells", {}).items():
            if "presence" in cell:
                lines.append(f"  - {md(key)}: cell {md(cell['presence'])}")
            for f in CELL_FIELDS:
                if f not in cell:
                    continue
                v = cell[f]
                if f == "params":
                    for p in v:
                        was = "(unset)" if p["added"] else value(p["old"])
                        now = "(unset)" if p["removed"] else value(p["new"])
                        lines.append(f"  - {md(key)} parameter {code(p['name'])}: {was} → {now}")
                elif f in ("text", "note") and "diff" in v:
                    lines.append(f"  - {md(key)} {f}: {words_md(v['old'], v['new'])}")
                elif f == "card" and "diff" in v:
                    lines.append(f"  - {md(key)} card: {md(v['diff'])}")
                else:
                    lines.append(f"  - {md(key)} {f}: {value(v['old'])} → {value(v['new'])}")
    return lines


def _sections(d: dict) -> list[str]:
    lines: list[str] = []
    for section in SECTIONS:
        s = d[section]
        if not (s["added"] or s["removed"] or s["changed"]):
            continue
        lines += ["", f"### {section.capitalize()}: {len(s['added'])} added, "
                  f"{len(s['removed'])} removed, {len(s['changed'])} changed", ""]
        lines += [f"- added {code(k)}" for k in s["added"]]
        lines += [f"- removed {code(k)}" for k in s["removed"]]
        changed = s["changed"]
        for k in (changed if isinstance(changed, list) else changed.keys()):
            if isinstance(changed, list):
                lines.append(f"- changed {code(k)}")
                continue
            for f, v in changed[k].items():
                shown = (words_md(v["old"], v["new"]) if "diff" in v and isinstance(v.get("old"), str)
                         and isinstance(v.get("new"), str) else md(v["diff"]) if "diff" in v
                         else f"{value(v['old'])} → {value(v['new'])}")
                lines.append(f"- {code(k)} {md(f)}: {shown}")
    return lines


def _rulings(d: dict) -> list[str]:
    r = d["rulings"]
    lines = [f"### Rulings: {len(r)} changed", ""]
    if r:
        lines += ["| Scenario | Step | Ruleset | Question | Before | After | Decided by |",
                  "|---|---|---|---|---|---|---|"]
        for x in r:
            was = ", ".join(x["reasons_before"] or []) or "-"
            now = ", ".join(x["reasons_after"] or []) or "-"
            because = md(now) if was == now else f"{md(was)} → {md(now)}"
            after = value(x["after"]) if x["before"] == x["after"] else f"**{value(x['after'])}**"
            lines.append(f"| {code(x['scenario'])} | {md(x['step'])} | {md(x['ruleset'])} | "
                         f"{md(x['question'])} | {value(x['before'])} | {after} | {because} |")
    if d.get("assumed"):
        a = d["assumed"]
        lines += ["", f"The {md(a['side'])} side was played with "
                  f"{', '.join(code(p) for p in a['parameters'])} at the new default (not declared "
                  "there yet)."]
    for p in d.get("engine", []):
        lines += ["", f"**Not run** on the {md(p['side'])} side: {code(p['scenario'])}: "
                  f"{md(p['error'])}"]
    return lines


def to_markdown(d: dict, old_label: str = "OLD", new_label: str = "NEW") -> str:
    """The diff of :func:`harmony.diff.compare.diff_models` as Markdown."""
    lines = [f"## harmony diff {code(old_label)} → {code(new_label)}", ""]
    if is_empty(d):
        lines.append("No change to the rules.")
        return "\n".join(lines) + "\n"
    if "rulings" in d:
        lines += _rulings(d) + [""]
    lines += _clauses(d)
    lines += _sections(d)
    return "\n".join(lines) + "\n"
