"""``harmony diff OLD NEW``: what changed between two states of rules_data.

``OLD`` and ``NEW`` are each a git revision of the repository (``HEAD~3``,
a tag, a commit) or a folder (a rules_data folder, or a checkout holding
one). A revision's ``rules_data`` is extracted with ``git archive`` into a
temporary folder; nothing in the working tree is touched.

The diff says:

- which clauses were added, removed or changed, and for a changed clause
  each changed cell: status, option, relation, parameters, the change
  record, citations, and a word-level diff of its text (``[-old-]{+new+}``);
- which parameters of the registry, sources (versions) and scenarios
  changed;
- the *behavioural* diff: every scenario ruling that changed under any
  ruleset, before and after, with the clauses the engine gave as reasons
  (the engine of the working tree, :func:`harmony.scenario.run_scenario`,
  decides both sides, so only the data differs).

It also writes the site's "what changed" pages: :func:`changes_rst` for any
two models and :func:`version_pages` for each version of a revision.

Exit codes: 0 when the diff was computed (changes or none), 2 for a usage
error (an unknown revision, a missing folder).
"""
from __future__ import annotations


import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .usage import UsageError
from .diagnostics import Report
from .markup import plain_text, render_value
from .model import Cell, Clause, Model, Source
from .textdiff import changed as text_changed, render, word_diff

RULES_DIR = "rules_data"

#: the fields of a cell compared, in the order they are reported
CELL_FIELDS = ("status", "option", "relation", "params", "text", "card", "note", "cite", "changed",
               "requires")


# ------------------------------------------------------------ sides

@dataclass
class Side:
    """One side of a diff: where it was read from and what it holds."""

    label: str
    path: Path
    model: Model
    report: Report
    tmp: tempfile.TemporaryDirectory | None = field(default=None, repr=False)

    def close(self) -> None:
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None


def _git(repo: Path, *args: str, binary: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                          text=not binary, timeout=120)


def repo_root(start: Path | None = None) -> Path | None:
    """The top of the git checkout holding ``start`` (the working folder, else the package)."""
    for where in ([start] if start else []) + [Path.cwd(), Path(__file__).resolve().parent]:
        try:
            r = _git(where, "rev-parse", "--show-toplevel")
        except (OSError, subprocess.TimeoutExpired):
            return None
        if r.returncode == 0:
            return Path(r.stdout.strip())
    return None


def _safe_extract(data: bytes, dest: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
            return
        # Python before 3.11.4 (Debian 12's 3.11.2) has no extraction filters: regular
        # files and folders only, each inside dest
        root = dest.resolve()
        tar.extractall(dest, members=[m for m in tar.getmembers() if (m.isfile() or m.isdir())
                                      and (root / m.name).resolve().is_relative_to(root)])


def open_side(spec: str, rules_dir: str = RULES_DIR, repo: Path | None = None) -> Side:
    """Read one side of a diff: a folder, or ``rules_dir`` at a git revision.

    Raises :class:`harmony.cli.UsageError` when ``spec`` is neither.
    """
    from .loader import load

    path = Path(spec)
    if path.exists():
        if path.is_dir() and (path / rules_dir).is_dir():
            path = path / rules_dir
        model, report = load(path)
        return Side(spec, path, model, report)
    root = repo or repo_root()
    if root is None:
        raise UsageError(f"'{spec}' is not a folder, and there is no git repository here to "
                         "read it as a revision")
    r = _git(root, "rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}")
    if r.returncode != 0:
        raise UsageError(f"'{spec}' is neither a folder nor a revision of the git repository "
                         f"at {root}")
    commit = r.stdout.strip()
    arch = _git(root, "archive", "--format=tar", commit, "--", rules_dir, binary=True)
    if arch.returncode != 0:
        raise UsageError(f"revision {spec} ({commit[:10]}) has no {rules_dir} folder")
    tmp = tempfile.TemporaryDirectory(prefix="harmony-diff-")
    try:
        _safe_extract(arch.stdout, Path(tmp.name))
        path = Path(tmp.name) / rules_dir
        model, report = load(path)
    except BaseException:
        tmp.cleanup()
        raise
    return Side(f"{spec} ({commit[:10]})", path, model, report, tmp)


# ------------------------------------------------------------ comparing

def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _cell_fields(cell: Cell | None) -> dict[str, Any]:
    if cell is None:
        return {}
    return {
        "status": cell.status,
        "option": cell.option,
        "relation": {"type": cell.relation.type, "clauses": list(cell.relation.clauses)}
        if cell.relation else None,
        "params": dict(sorted(cell.params.items())),
        "text": cell.text,
        "card": {"title": cell.card.title, "text": cell.card.text} if cell.card else None,
        "note": cell.note,
        "cite": [{k: v for k, v in vars(c).items() if k not in ("file", "node") and v is not None}
                 for c in cell.cites],
        "changed": {"version": cell.changed.version, "note": cell.changed.note} if cell.changed else None,
        "requires": list(cell.requires),
    }


def _same(a: Any, b: Any, is_text: bool = False) -> bool:
    if is_text:
        return not text_changed(a, b)
    return _jsonable(a) == _jsonable(b)


def diff_cell(old: Cell | None, new: Cell | None) -> dict | None:
    """The changes of one cell, or None when nothing changed."""
    a, b = _cell_fields(old), _cell_fields(new)
    out: dict[str, Any] = {}
    for f in CELL_FIELDS:
        va, vb = a.get(f), b.get(f)
        if f in ("text", "note"):
            if not _same(va, vb, is_text=True):
                out[f] = {"old": va, "new": vb, "diff": render(word_diff(va, vb))}
        elif f == "params":
            changes = []
            for name in sorted(set(va or {}) | set(vb or {})):
                pa, pb = (va or {}).get(name), (vb or {}).get(name)
                if not _same(pa, pb) or (name in (va or {})) != (name in (vb or {})):
                    changes.append({"name": name, "old": _jsonable(pa), "new": _jsonable(pb),
                                    "added": name not in (va or {}), "removed": name not in (vb or {})})
            if changes:
                out[f] = changes
        elif f == "card":
            if not _same(va, vb):
                ta, tb = (va or {}).get("text"), (vb or {}).get("text")
                ha, hb = (va or {}).get("title"), (vb or {}).get("title")
                parts = []
                if text_changed(ha, hb):
                    parts.append(f"title {render(word_diff(ha, hb))}")
                if text_changed(ta, tb):
                    parts.append(("text " if parts else "") + render(word_diff(ta, tb)))
                out[f] = {"old": _jsonable(va), "new": _jsonable(vb),
                          "diff": "; ".join(parts) or "(layout only)"}
        elif not _same(va, vb):
            out[f] = {"old": _jsonable(va), "new": _jsonable(vb)}
    if old is None or new is None:
        out["presence"] = "added" if old is None else "removed"
    return out or None


def diff_clause(old: Clause, new: Clause) -> dict | None:
    out: dict[str, Any] = {}
    for f in ("topic", "aspect", "title", "examples", "scenarios"):
        va, vb = getattr(old, f), getattr(new, f)
        if not _same(va, vb):
            out[f] = {"old": _jsonable(va), "new": _jsonable(vb)}
    qa = lambda c: [{"source": q.source, "question": q.question, "answer": q.answer} for q in c.qa]  # noqa: E731
    if not _same(qa(old), qa(new)):
        out["qa"] = {"old": qa(old), "new": qa(new)}
    cells = {}
    for key in sorted(set(old.cells) | set(new.cells)):
        d = diff_cell(old.cells.get(key), new.cells.get(key))
        if d:
            cells[key] = d
    if cells:
        out["cells"] = cells
    return out or None


def _param_fields(p) -> dict:
    return {"type": p.type, "values": p.values, "default": _jsonable(p.default),
            "description": p.description, "requires": list(p.requires)}


def _source_fields(s: Source) -> dict:
    return {"title": s.title, "version": s.version, "date": s.date, "base": s.base, "kind": s.kind,
            "versions": [{"version": v.version, "date": v.date, "note": v.note} for v in s.versions],
            "documents": [{"id": d.id, "version": d.version, "date": d.date} for d in s.documents]}


def _table_diff(old: dict, new: dict, fields) -> dict:
    out = {"added": sorted(set(new) - set(old)), "removed": sorted(set(old) - set(new)), "changed": {}}
    for k in sorted(set(old) & set(new)):
        a, b = fields(old[k]), fields(new[k])
        ch = {f: {"old": _jsonable(a[f]), "new": _jsonable(b[f])} for f in a if not _same(a[f], b[f])}
        if ch:
            out["changed"][k] = ch
    return out


def diff_models(old: Model, new: Model, rulings: bool = True) -> dict:
    """Everything that changed from ``old`` to ``new``, as plain data (see the module doc)."""
    clauses = {"added": sorted(set(new.clauses) - set(old.clauses)),
               "removed": sorted(set(old.clauses) - set(new.clauses)), "changed": {}}
    for cid in sorted(set(old.clauses) & set(new.clauses)):
        d = diff_clause(old.clauses[cid], new.clauses[cid])
        if d:
            clauses["changed"][cid] = d
    out = {
        "clauses": clauses,
        "parameters": _table_diff(old.parameters, new.parameters, _param_fields),
        "sources": _table_diff(old.sources, new.sources, _source_fields),
        "scenarios": {"added": sorted(set(new.scenarios) - set(old.scenarios)),
                      "removed": sorted(set(old.scenarios) - set(new.scenarios)),
                      "changed": sorted(s for s in set(old.scenarios) & set(new.scenarios)
                                        if not _same(old.scenarios[s].data, new.scenarios[s].data))},
    }
    if rulings:
        out["rulings"], out["engine"] = ruling_diff(old, new, clauses)
        assumed = sorted(set(new.parameters) - set(old.parameters))
        if assumed:
            out["assumed"] = {"side": "old", "parameters": assumed,
                              "why": "declared only on the new side; the old side was played "
                                     "with their new declarations (defaults), as if it had said "
                                     "nothing of them"}
    return out


# ------------------------------------------------------ behaviour

def _row(r: Any, name: str, default: Any = None) -> Any:
    if isinstance(r, dict):
        return r.get(name, default)
    return getattr(r, name, default)


def engine():
    """``harmony.scenario.run_scenario``, or None while there is no engine."""
    try:
        from .scenario import run_scenario
    except ImportError:
        return None
    return run_scenario


def run_rulings(model: Model, scenario_id: str) -> tuple[dict, str | None]:
    """A scenario's rulings keyed by (step, question, ruleset), or the reason it did not run."""
    run = engine()
    if run is None:
        return {}, "no rules engine (harmony.scenario) in this checkout"
    try:
        result = run(model, scenario_id)
    except Exception as e:  # noqa: BLE001  the old side may not fit today's engine
        return {}, f"{type(e).__name__}: {e}"
    errors = [getattr(d, "message", str(d)) for d in _row(result, "errors", []) or []]
    rows = {}
    for r in _row(result, "rulings", []) or []:
        key = (_row(r, "step"), str(_row(r, "question")), str(_row(r, "ruleset")))
        rows[key] = {"actual": _jsonable(_row(r, "actual")),
                     "reasons": sorted(map(str, _row(r, "reasons", []) or [])),
                     "expected": _jsonable(_row(r, "expected"))}
    return rows, ("; ".join(errors) if errors else None)


def ruling_diff(old: Model, new: Model, clauses: dict | None = None) -> tuple[list[dict], list[dict]]:
    """The rulings that changed, and the scenarios the engine could not run on one side."""
    changed_clauses = set((clauses or {}).get("changed", {})) | set((clauses or {}).get("added", [])) \
        | set((clauses or {}).get("removed", []))
    out, problems = [], []
    # Today's engine reads the parameters of today's registry. An older state that did not
    # declare a parameter yet said nothing of it: it is played with the new declaration and
    # its default (which is what "says nothing" means), so the two sides can be compared.
    missing = {k: v for k, v in new.parameters.items() if k not in old.parameters}
    if missing:
        old = replace(old, parameters={**old.parameters, **missing})
    for sid in sorted(set(old.scenarios) & set(new.scenarios)):
        before, err_old = run_rulings(old, sid)
        after, err_new = run_rulings(new, sid)
        for side, err in (("old", err_old), ("new", err_new)):
            if err:
                problems.append({"scenario": sid, "side": side, "error": err})
        if not before and not after:
            continue
        for key in sorted(set(before) | set(after), key=lambda k: (str(k[0]), k[1], k[2])):
            a, b = before.get(key), after.get(key)
            if a is not None and b is not None and a["actual"] == b["actual"] and a["reasons"] == b["reasons"]:
                continue
            if (a is None or b is None) and (err_old or err_new):
                continue  # one side did not run: not a change of ruling
            involved = sorted(set((a or {}).get("reasons", [])) | set((b or {}).get("reasons", [])))
            kind = "added" if a is None else "removed" if b is None else \
                "ruling" if a["actual"] != b["actual"] else "reasons"
            out.append({
                "scenario": sid, "step": key[0], "question": key[1], "ruleset": key[2], "kind": kind,
                "before": a["actual"] if a else None, "after": b["actual"] if b else None,
                "reasons_before": (a or {}).get("reasons"), "reasons_after": (b or {}).get("reasons"),
                "clauses": involved,
                "changed_clauses": [c for c in involved if c in changed_clauses],
            })
    return out, problems


# ------------------------------------------------------------ text

def _v(value: Any) -> str:
    """A value for a line of the diff: change records, relations and versions in words.

    >>> _v({"version": "0.2", "note": "Now standard."}), _v({"type": "amends", "clauses": ["a@PL"]})
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


def is_empty(d: dict) -> bool:
    c = d["clauses"]
    return not (c["added"] or c["removed"] or c["changed"] or d.get("rulings")
                or any(d[k]["added"] or d[k]["removed"] or d[k]["changed"]
                       for k in ("parameters", "sources", "scenarios")))


def _line_diff(a: str, b: str) -> list[str]:
    """The changed lines of a multi-line text, ``-``/``+`` with a line of context.

    >>> _line_diff(">>> f(1)\\n1\\n", ">>> f(1)\\n2\\n")
    ['  >>> f(1)', '- 1', '+ 2']
    """
    import difflib
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
                lines += ["      " + x for x in _line_diff(a, b)]
            else:
                lines.append(f"    {f}: {_v(a)} -> {_v(b)}")
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
                                     f"{'(unset)' if p['added'] else _v(p['old'])} -> "
                                     f"{'(unset)' if p['removed'] else _v(p['new'])}")
                elif f in ("text", "note", "card") and "diff" in v:
                    lines.append(f"    {key} {f}: {v['diff']}")
                else:
                    lines.append(f"    {key} {f}: {_v(v['old'])} -> {_v(v['new'])}")
    for section in ("parameters", "sources", "scenarios"):
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
                lines.append(f"~ {k} {f}: {_v(v['old'])} -> {_v(v['new'])}")
    if "rulings" in d:
        r = d["rulings"]
        lines.append(f"rulings: {len(r)} changed")
        for x in r:
            lines.append(f"~ {x['scenario']} step {x['step']}, {x['ruleset']}: {x['question']}")
            lines.append(f"    before: {_v(x['before'])}  because {', '.join(x['reasons_before'] or []) or '-'}")
            lines.append(f"    after:  {_v(x['after'])}  because {', '.join(x['reasons_after'] or []) or '-'}")
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


# ------------------------------------------------------------- rst

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


def _literal(text: str, indent: str = "   ") -> list[str]:
    """A literal block (shown as is, never parsed), wrapped for reading."""
    body = textwrap.wrap(" ".join(text.split()), 88) or ["(empty)"]
    return ["", "::", ""] + [indent + line for line in body] + [""]


def _heading(text: str, char: str) -> list[str]:
    t = rst_escape(text)
    return [t, char * max(len(t), 4), ""]


def _plain(model: Model, cell: Cell | None, text: str | None) -> str | None:
    if cell is None or text is None:
        return text
    types = {n: p.type for n, p in model.parameters.items()}
    return plain_text(text, cell.params, types)


def _pv(model: Model, name: str, value: Any) -> str:
    p = model.parameters.get(name)
    return render_value(value, p.type if p else None)


def changes_rst(model_old: Model, model_new: Model, title: str, rulings: bool = True) -> str:
    """A "what changed" page (reStructuredText) from ``model_old`` to ``model_new``.

    Clause text is data: it is shown with its marks resolved, escaped
    (:func:`rst_escape`) or inside literal blocks, never as markup. Changed
    rulings are listed when ``rulings`` and the engine is there.
    """
    d = diff_models(model_old, model_new, rulings=rulings and engine() is not None)
    lines = _heading(title, "=")
    c = d["clauses"]
    if is_empty(d):
        lines += ["Nothing changed.", ""]
    if c["added"]:
        lines += _heading("Clauses added", "-")
        for cid in c["added"]:
            cl = model_new.clauses[cid]
            lines += [f"- ``{cid}`` {rst_escape(cl.title or '')}".rstrip()]
        lines.append("")
    if c["removed"]:
        lines += _heading("Clauses removed", "-")
        lines += [f"- ``{cid}``" for cid in c["removed"]] + [""]
    if c["changed"]:
        lines += _heading("Clauses changed", "-")
        for cid, ch in c["changed"].items():
            cl = model_new.clauses[cid]
            lines += _heading(f"{cid}" + (f": {cl.title}" if cl.title else ""), "~")
            for f in ("topic", "aspect", "title", "scenarios"):
                if f in ch:
                    lines += [f"- {f}: {rst_escape(_v(ch[f]['old']))} → {rst_escape(_v(ch[f]['new']))}"]
            for key, cell in ch.get("cells", {}).items():
                label = model_new.sources[key].label if key in model_new.sources else key
                lines += [f"**{rst_escape(label)}**", ""]
                if "presence" in cell:
                    lines += [f"- cell {cell['presence']}"]
                for f in ("status", "option", "relation", "changed", "requires", "cite"):
                    if f in cell:
                        lines += [f"- {f}: {rst_escape(_v(cell[f]['old']))} → "
                                  f"{rst_escape(_v(cell[f]['new']))}"]
                for p in cell.get("params", []):
                    old = "not set" if p["added"] else _pv(model_old, p["name"], p["old"])
                    new = "not set" if p["removed"] else _pv(model_new, p["name"], p["new"])
                    lines += [f"- parameter ``{p['name']}``: {rst_escape(old)} → {rst_escape(new)}"]
                lines.append("")
                for f in ("text", "card", "note"):
                    if f not in cell:
                        continue
                    if f == "text":
                        a = _plain(model_old, model_old.cell(f"{cid}@{key}"), cell[f]["old"])
                        b = _plain(model_new, model_new.cell(f"{cid}@{key}"), cell[f]["new"])
                        shown = render(word_diff(a, b))
                    else:
                        shown = cell[f]["diff"]
                    lines += [f"{f.capitalize()} (removed words in [- -], added in {{+ +}})"]
                    lines += _literal(shown)
    for section, label in (("parameters", "Parameters"), ("sources", "Sources"), ("scenarios", "Scenarios")):
        s = d[section]
        if not (s["added"] or s["removed"] or s["changed"]):
            continue
        lines += _heading(f"{label} changed", "-")
        lines += [f"- added ``{k}``" for k in s["added"]] + [f"- removed ``{k}``" for k in s["removed"]]
        changed = s["changed"]
        if isinstance(changed, list):
            lines += [f"- changed ``{k}``" for k in changed]
        else:
            for k, fields in changed.items():
                for f, v in fields.items():
                    lines += [f"- ``{k}`` {f}: {rst_escape(_v(v['old']))} → {rst_escape(_v(v['new']))}"]
        lines.append("")
    if d.get("rulings"):
        lines += _heading("Rulings changed", "-")
        for x in d["rulings"]:
            lines += [f"- ``{x['scenario']}``, step {rst_escape(str(x['step']))}, "
                      f"**{rst_escape(x['ruleset'])}**: {rst_escape(x['question'])}",
                      f"  before {rst_escape(_v(x['before']))}, after {rst_escape(_v(x['after']))}"
                      + (f" (clauses: {', '.join('``' + c + '``' for c in x['clauses'])})"
                         if x["clauses"] else "")]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _version_file(src: Source, version: str) -> str:
    safe = "".join(ch if ch.isalnum() else "-" for ch in version)
    return f"changes-{src.key.lower()}-{safe}.rst"


def _source_version_in(text: str, path: str, key: str) -> str | None:
    """The ``version`` of source ``key`` in one file's text (None when absent or unreadable)."""
    from .loader import plain, read_text

    doc = read_text(path, text)
    tree = plain(doc.tree) if doc.tree is not None else None
    if not isinstance(tree, dict):
        return None
    for s in tree.get("sources") or []:
        if isinstance(s, dict) and s.get("key") == key:
            v = s.get("version")
            return None if v is None else str(v)
    return None


def model_at_version(model: Model, src: Source, version: str) -> Model | None:
    """The rules_data as it was when ``src`` was at ``version``.

    The model itself when that is the source's current version; otherwise
    the folder as committed just before the source's file next changed after
    giving that version (None when the folder is not in git or no commit
    gives the version).
    """
    from .consistency import current_version
    from .loader import load

    if current_version(src) == version:
        return model
    root = Path(model.root).resolve()
    try:
        top = _git(root if root.is_dir() else root.parent, "rev-parse", "--show-toplevel")
    except (OSError, subprocess.TimeoutExpired):
        return None
    if top.returncode != 0 or not src.file:
        return None
    repo = Path(top.stdout.strip()).resolve()
    try:
        rel_file = Path(src.file).resolve().relative_to(repo).as_posix()
        rel_root = root.relative_to(repo).as_posix()
    except ValueError:
        return None
    log = _git(repo, "log", "--first-parent", "--format=%H", "--", rel_file)
    if log.returncode != 0:
        return None
    newer = None  # the next newer commit that touched the file
    for commit in log.stdout.split():
        show = _git(repo, "show", f"{commit}:{rel_file}")
        if show.returncode != 0 or _source_version_in(show.stdout, rel_file, src.key) != version:
            newer = commit
            continue
        # the last state at this version: just before the file next changed
        state = f"{newer}^" if newer else "HEAD"
        arch = _git(repo, "archive", "--format=tar", state, "--", rel_root, binary=True)
        if arch.returncode != 0:
            return None
        with tempfile.TemporaryDirectory(prefix="harmony-version-") as tmp:
            _safe_extract(arch.stdout, Path(tmp))
            old, _ = load(Path(tmp) / rel_root)
        return old
    return None


def _cell_lines(model: Model, cell: Cell, base: dict, first: bool, prev: Model | None,
                version: str) -> list[str]:
    """The facts and text of one cell on a version page."""
    clause = model.clauses[cell.clause_id]
    lines = _heading(f"{clause.id}" + (f": {clause.title}" if clause.title else ""), "-")
    facts = [f"- status: {rst_escape(cell.status)}" + (f" (option ``{cell.option}``)" if cell.option else "")]
    rel = cell.relation
    if rel:
        facts.append(f"- {rst_escape(rel.type)}: "
                     + (", ".join(f"``{r}``" for r in rel.clauses) or "nothing named"))
    if cell.changed and cell.changed.version == version:
        facts.append(f"- changed in {rst_escape(cell.changed.version)}: {rst_escape(cell.changed.note)}")
    elif first and cell.changed:
        facts.append(f"- changed again in {rst_escape(cell.changed.version)} (the text below is "
                     "the current one)")
    old = prev.cell(f"{cell.clause_id}@{cell.source}") if prev is not None else None
    if old is not None and old.status != cell.status:
        facts.append(f"- status was {rst_escape(old.status)}"
                     + (f" (option ``{old.option}``)" if old.option else ""))
    for name in sorted(set(cell.params) | set(old.params if old else {})):
        value = cell.params.get(name)
        if first:
            b = base.get(name)
            if b is not None and _same(b.value, value):
                continue
            was = f" (base: {rst_escape(_pv(model, name, b.value))})" if b is not None else ""
        elif old is not None:
            if _same(old.params.get(name), value) and (name in old.params) == (name in cell.params):
                continue
            was = f" (was {rst_escape(_pv(prev, name, old.params[name]))})" if name in old.params \
                else " (new)"
        else:
            was = ""
        now = rst_escape(_pv(model, name, value)) if name in cell.params else "no longer set"
        facts.append(f"- ``{name}`` = {now}{was}")
    lines += facts + [""]
    if old is not None and not first:
        a = _plain(prev, old, old.text)
        b = _plain(model, cell, cell.text)
        if text_changed(a, b):
            lines += ["Text (removed words in [- -], added in {+ +})"] + _literal(render(word_diff(a, b)))
            return lines
    lines += ["Text"] + _literal(_plain(model, cell, cell.text) or "")
    return lines


def version_pages(model: Model) -> dict[str, str]:
    """One reStructuredText page per version of each revision, by file name.

    The first version's page lists everything the revision adds to its base
    (every covered cell: its relation, its text and the parameters it sets
    that differ from the base's value). A later version's page lists the
    cells whose ``changed`` record names that version, with the note; when
    git history has the previous version (:func:`model_at_version`), it also
    shows what each of those cells was: a word diff of the text, the old
    status and parameter values.
    """
    from .consistency import settings

    pages: dict[str, str] = {}
    for key in sorted(model.sources):
        src = model.sources[key]
        if not src.versions:
            continue
        for i, v in enumerate(src.versions):
            at = model_at_version(model, src, v.version) or model
            base = settings(at, src.base) if src.base else {}
            cells = [c for cl in sorted(at.clauses.values(), key=lambda c: c.id)
                     for k, c in sorted(cl.cells.items()) if k == key and c.covered]
            lines = _heading(f"{src.title} {v.version} ({v.date})", "=")
            if v.note:
                lines += [rst_escape(v.note), ""]
            prev = None
            if i == 0:
                against = at.sources[src.base].title if src.base in at.sources else "its base"
                lines += [f"What version {rst_escape(v.version)} adds to or changes in "
                          f"{rst_escape(against)}, clause by clause.", ""]
                chosen = cells
            else:
                prev_version = src.versions[i - 1].version
                prev = model_at_version(model, src, prev_version)
                lines += [f"What changed since version {rst_escape(prev_version)}: the clauses whose "
                          f"cells record a change in {rst_escape(v.version)}.", ""]
                chosen = [c for c in cells if c.changed and c.changed.version == v.version]
            if not chosen:
                lines += ["No clause records a change in this version.", ""]
            for cell in chosen:
                lines += _cell_lines(at, cell, base, i == 0, prev, v.version)
            pages[_version_file(src, v.version)] = "\n".join(lines).rstrip() + "\n"
    return pages


# ------------------------------------------------------------- command

def diff_args(p):
    p.add_argument("old", help="a git revision (HEAD~3, a tag, a commit) or a rules_data folder")
    p.add_argument("new", help="a git revision or a rules_data folder")
    p.add_argument("--format", choices=("text", "json", "rst"), default="text",
                   help="text (word diffs as [-old-]{+new+}), json, or rst (a 'what changed' page)")
    p.add_argument("--rules-dir", default=RULES_DIR,
                   help=f"the folder read at a git revision (default {RULES_DIR})")
    p.add_argument("--no-rulings", action="store_true",
                   help="skip the behavioural diff (running the scenarios)")


def run_diff(args) -> int:
    old = open_side(args.old, args.rules_dir)
    try:
        new = open_side(args.new, args.rules_dir)
    except BaseException:
        old.close()
        raise
    try:
        for side in (old, new):
            for diag in side.report.errors:
                print(f"harmony diff: {side.label}: {diag}", file=sys.stderr)
        if args.format == "rst":
            sys.stdout.write(changes_rst(old.model, new.model, f"Changes from {old.label} to {new.label}",
                                         rulings=not args.no_rulings))
            return 0
        d = diff_models(old.model, new.model, rulings=not args.no_rulings)
        if args.format == "json":
            d = {"old": old.label, "new": new.label, "read_errors": {
                "old": len(old.report.errors), "new": len(new.report.errors)}, **d}
            sys.stdout.write(json.dumps(_jsonable(d), indent=2, sort_keys=True,
                                        ensure_ascii=False) + "\n")
        else:
            sys.stdout.write(to_text(d, old.label, new.label))
    finally:
        old.close()
        new.close()
    return 0
