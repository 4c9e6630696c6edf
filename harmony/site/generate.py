"""Generate the site's reStructuredText sources from the model with the Jinja2 templates.

:func:`pages` renders every generated page (topics, revisions, examples, index
pages, differences, glossary, and the fragments the hand-written pages
include) to a mapping ``relative path -> text``; :func:`stage` writes them
into the Sphinx source folder beside copies of the hand-written pages of
``site/``, touching a file only when its bytes change. Sphinx then re-reads
exactly the pages whose content changed.

Data reaches a page in two ways only: as escaped reST text (titles, through
the ``rst`` filter) or as one line of ASCII JSON inside a ``harmony-*``
directive (the ``data`` filter), which the directive turns into text nodes.

>>> print(rst_escape("Spotting <b>*now*</b>"))
Spotting \\<b\\>\\*now\\*\\<\\/b\\>
>>> print(heading("A `title`", "="))
A \\`title\\`
===========
>>> data({"text": "é\\u2028<"})
'{"text":"\\\\u00e9\\\\u2028<"}'

Neither way lets through a character that is not text (a control character but tab
and newline, a lone surrogate: :data:`harmony.diagnostics.NOT_TEXT`): ``harmony check``
refuses them in rules_data, and what is written here has each replaced by U+FFFD:

>>> data({"text": "a\\x00b\\x1b[31m\\udc80"}), "\\x07" in rst_escape("a\\x07b")
('{"text":"a\\\\ufffdb\\\\ufffd[31m\\\\ufffd"}', False)
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from .. import cards, coverage, game, resources
from ..diagnostics import NOT_TEXT
from ..model import Citation, Model
from ..trust import Trust
from . import views
from .comparison import comparison_doc, comparison_view, quoting
from ..printer import Job

TEMPLATES = resources.templates() / "site"
SITE = resources.site_sources()
#: the top of the checkout the code runs from (tests read rules_data through it); None
#: when harmony runs from an installed wheel, which needs nothing outside the package
ROOT = resources.checkout_root()

#: Folder of the staged sources holding included fragments (not documents).
FRAGMENTS = "_generated"

ID = re.compile(r"^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)*$")
_SPECIAL = re.compile(r"([^\w\s])", re.ASCII)


def text_only(text: str) -> str:
    """``text`` with each character that is not text replaced by U+FFFD.

    >>> text_only("tab\\tnew\\nline kept, \\x00 and \\x1b not")
    'tab\\tnew\\nline kept, \\ufffd and \\ufffd not'
    """
    return NOT_TEXT.sub("\ufffd", text) if NOT_TEXT.search(text) else text


def _text_only(value):
    """:func:`text_only` of every text inside ``value`` (dicts, lists, scalars)."""
    if isinstance(value, str):
        return text_only(value)
    if isinstance(value, dict):
        return {_text_only(k): _text_only(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_text_only(v) for v in value]
    return value


def rst_escape(text) -> str:
    """Inline reST that shows ``text`` literally: every punctuation mark backslash-escaped,
    line breaks turned to spaces."""
    flat = " ".join(text_only(str(text)).split())
    return _SPECIAL.sub(r"\\\1", flat)


def heading(text, char: str = "=") -> str:
    """A reST section title (escaped) with its underline."""
    esc = rst_escape(text)
    return f"{esc}\n{char * max(len(esc), 4)}"


#: how ASCII JSON writes each character of :data:`NOT_TEXT`: a control character as ``\b``,
#: ``\f``, ``\r`` or ``\u00XX``, the others as ``\uXXXX`` (a match may be a false alarm, a
#: backslash of the text followed by ``b``; never a miss)
_NOT_TEXT_IN_JSON = re.compile(r"\\(?:[bfr]|u(?:00[01]|007f|008|009|d[89a-f]|fff[ef]))")


def data(value) -> str:
    """One line of ASCII JSON, sorted keys: the content of a ``harmony-*`` directive, each
    character that is not text replaced by U+FFFD (:func:`text_only`).

    The JSON is written at once, and again from a copy of ``value`` made text only when it
    shows such a character (nearly never: walking every text of the pages' views in Python
    was a tenth of a preview's making of the pages).

    >>> data({"b": ["tab\\tkept", ("\\x00", 2)], "a\\x1b": None})
    '{"a\\\\ufffd":null,"b":["tab\\\\tkept",["\\\\ufffd",2]]}'
    """
    text = json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    if _NOT_TEXT_IN_JSON.search(text):
        text = json.dumps(_text_only(value), ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return text


@functools.cache
def environment() -> jinja2.Environment:
    """The Jinja2 environment of the site's templates (made once per process: it compiles
    each template once, and again only when its file changes)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(rst=rst_escape, heading=heading, data=data)
    return env


# ------------------------------------------------------------------ scenarios
def scenario_view(model: Model, sid: str) -> dict:
    sc = model.scenarios[sid]
    d = sc.data
    rulesets = list(d.get("rulesets") or [])
    doc = views.scenario_doc(sid)
    result = game.played(model, sid)
    try:
        played_by: game.Game | None = game.scenario_game(model, sc)
    except game.GameError:   # not loaded (--untrusted) or unknown: check has said so; no board
        played_by = None
    drawn = played_by.draw(sc, result) if played_by is not None and played_by.draw is not None else {}
    view = {"id": sid, "doc": doc, "title": sc.title,
            "summary": d.get("summary"), "isolates": d.get("isolates"),
            "cite": views.cite_view(model, _cite(d["cite"])) if isinstance(d.get("cite"), dict) else None,
            "clauses": [c for c in d.get("clauses") or [] if isinstance(c, str) and ID.match(c)],
            "used_by": sorted(c.id for c in model.clauses.values() if sid in c.scenarios),
            "rulesets": rulesets, "steps": drawn.get("steps", []), "names": drawn.get("names", {})}
    view["figures"] = drawn.get("figures", [])
    view["referee_boards"] = bool(drawn.get("referee_boards"))
    view["legend"] = drawn.get("legend")   # how to read its figures (the hex game's by default)
    view["matrix"] = outcome_matrix(model, result)
    # the explorer page is at the site's root: relative to this page
    view["explorer"] = ("../" * doc.count("/") + played_by.explorer.link_of(model, sid)
                        if played_by is not None and played_by.explorer is not None else None)
    return view


def coverage_view(model: Model, trust: Trust | None = None) -> list[dict]:
    """The rule-coverage page (:mod:`harmony.coverage`): per rulebook, each played cell and
    what exercises it, each scenario and clause example named once with its rulesets; when
    ``trust`` forbids running the examples, each cell only they might exercise says so
    (``not_run``: the mark to show)."""
    out = []
    cov = coverage.coverage_of(model, trust)
    for key, rows in cov.sources.items():
        t = cov.totals(key)
        src = model.sources.get(key)
        cells = []
        for c in rows:
            by: dict[tuple[str, str], list[str]] = {}
            for u in c.uses:
                by.setdefault((u.kind, u.id), [])
                if u.ruleset not in by[(u.kind, u.id)]:
                    by[(u.kind, u.id)].append(u.ruleset)
            uses = [{"kind": kind, "id": uid, "doc": views.scenario_doc(uid) if kind == "scenario" else "",
                     "detail": ", ".join(rs for rs in rulesets if rs) or "no game"}
                    for (kind, uid), rulesets in sorted(by.items(), key=lambda kv: (kv[0][0] != "scenario", kv[0]))]
            cells.append({"cell": c.id, "status": c.cell.status, "parameters": sorted(c.cell.params),
                          "state": c.state, "reason": c.reason, "uses": uses})
        unknown = (f", {t['not-run']} not known: clause examples {cov.trust.mark}"
                   if t.get("not-run") else "")
        out.append({"key": key, "title": f"{src.title if src else key} ({key})", "cells": cells,
                    "not_run": cov.trust.mark,
                    "summary": f"{len(rows)} rules: {t['exercised']} exercised, {t['reasoned']} "
                               f"not exercised for a stated reason, {t['missing']} not exercised"
                               f"{unknown}."})
    return out


def _cite(d: dict):
    return Citation(**{k: v for k, v in d.items() if k in Citation.__dataclass_fields__})


def _show(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        if not value:
            return "none"
        return "; ".join(_show(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_show(v)}" for k, v in sorted(value.items()))
    if value is None:
        return "none"
    return str(value)


def outcome_matrix(model: Model, result) -> dict:
    """The engine's rulings as a table: one row per question, one column per ruleset."""
    rulesets = list(result.rulesets)
    rows: dict[tuple, dict] = {}
    for r in result.rulings:
        key = (str(r.step), r.question)
        label = f"Step {r.step + 1}" if isinstance(r.step, int) else f"Step {r.step}"
        row = rows.setdefault(key, {"step": str(r.step), "step_label": label, "question": r.question,
                                    "by": {}})
        row["by"][r.ruleset] = {"ruleset": r.ruleset, "actual": _show(r.actual),
                                "word": views.ruling_word(r.actual),
                                "expected": _show(r.expected), "ok": bool(r.ok),
                                "reasons": list(r.reasons), "detail": getattr(r, "detail", "") or ""}
    out_rows = []
    for row in rows.values():
        cells = []
        for rs in rulesets:
            cell = row["by"].get(rs) or {"ruleset": rs, "missing": True, "ok": True}
            cell["label"] = ruleset_label(model, rs)
            cells.append(cell)
        out_rows.append({"step": row["step"], "step_label": row["step_label"],
                         "question": row["question"], "cells": cells})
    errors = sorted({d.message for d in getattr(result, "errors", [])})
    return {"rulesets": [{"key": rs, "label": ruleset_label(model, rs)} for rs in rulesets],
            "rows": out_rows, "errors": errors}


def ruleset_label(model: Model, ruleset: str) -> str:
    key, *options = ruleset.split("+")
    src = model.sources.get(key)
    name = key if src is None else key
    return name + "".join(f" + {o}" for o in options)


# ------------------------------------------------------------------ pages
#: the pages a preview build leaves as the last build staged them (``build._sources``):
#: the rule coverage runs every clause example again, a tenth of a one-line edit's rebuild
PREVIEW_LEAVES = frozenset({"coverage.rst"})


def pages(model: Model, site_dir: Path = SITE, extras: dict | None = None,
          trust: Trust | None = None) -> dict[str, str]:
    """Every generated source file: relative path -> text (``extras``: :func:`extra_pages`;
    ``trust``: whether the clause examples may run, :mod:`harmony.trust`)."""
    return {name: make() for name, make in makers(model, site_dir, extras, trust).items()}


def makers(model: Model, site_dir: Path = SITE, extras: dict | None = None,
           trust: Trust | None = None) -> dict[str, Callable[[], str]]:
    """Every generated source file by name (relative path), each with the function that makes
    its text (:func:`pages` calls them all). The names cost nearly nothing (and the "what
    changed" and extra pages are made at once: they are cheap); each maker works out only
    what its page shows, once for all the makers of one call: the page of one topic its own
    rows and examples and the comparisons that quote them, the page of one example its own
    run and figures (a preview makes the pages open in a browser alone), the other pages
    every view (the front page lists every topic, the examples' index scores every example).
    The pages of one thing get their own view and the hand-written pages' names alone, so
    that they read the same whichever page is made first."""
    game.trusting(model, trust)
    env = environment()
    own = hand_pages(model, site_dir)
    # the contents list every hand-written page but the front page and an orphan (404.rst)
    hand = sorted({name[:-4] for name, path in own.items()
                   if name != "index.rst" and not is_orphan(path)} | {"sources"})
    extras = extra_pages(model) if extras is None else extras
    changes = change_pages(model)
    in_order = model.topics_in_order()
    scenario_ids = sorted(model.scenarios)
    revision_keys = views.revisions(model)
    compared = [c for _, c in sorted(model.comparisons.items())]

    @functools.cache
    def comparisons() -> list[dict]:
        return [comparison_view(model, c) for c in compared]

    @functools.cache
    def topic(i: int) -> dict:
        t = views.topic_view(model, in_order[i], trust)
        # a topic page links to each comparison quoting one of its rows
        t["comparisons"] = quoting(comparisons(), {r["id"] for r in t["rows"]})
        return t

    @functools.cache
    def scenario(sid: str) -> dict:
        return scenario_view(model, sid)

    @functools.cache
    def context() -> dict:
        topics = [topic(i) for i in range(len(in_order))]
        revisions = [views.revision_view(model, k) for k in revision_keys]
        scenarios = [scenario(sid) for sid in scenario_ids]
        sources = [views.source_view(s) for s in sorted(model.sources.values(),
                                                        key=lambda s: (s.year or 9999, s.key))]
        bases = sorted({base.title for k in revision_keys
                        if (base := model.sources.get(model.sources[k].base or "")) is not None})
        return {"topics": topics, "revisions": revisions, "scenarios": scenarios, "sources": sources,
                "extras": extras, "hand_pages": hand, "comparisons": comparisons(),
                "changes": [name[:-4] for name in changes], "harmony": identity_view(model),
                "bases": bases}

    def render(template: str, **own_views: Callable[[], object]) -> Callable[[], str]:
        """The maker of a page that shows every view (:func:`context`), and ``own_views``."""
        return lambda: env.get_template(template).render(**{k: v() for k, v in own_views.items()}, **context())

    def alone(template: str, what: str, view: Callable[[], dict]) -> Callable[[], str]:
        """The maker of a page of one thing: its view alone, and the hand-written pages' names."""
        return lambda: env.get_template(template).render(**{what: view()}, hand_pages=hand)

    def revision(i: int) -> dict:
        return context()["revisions"][i]

    def comparison(i: int) -> dict:
        return comparisons()[i]

    out: dict[str, Callable[[], str]] = {name: functools.partial(str, text) for name, text in changes.items()}
    for name in ("index", "sources"):       # the harmony's own, else the generator's
        if f"{name}.rst" not in own:
            out[f"{name}.rst"] = render(f"{name}.rst.j2")
    for i, t in enumerate(in_order):
        out[f"{views.topic_doc(t.id)}.rst"] = alone("topic.rst.j2", "topic", functools.partial(topic, i))
    for i, k in enumerate(revision_keys):
        out[f"{views.revision_doc(k)}.rst"] = render("revision.rst.j2", rev=functools.partial(revision, i))
    for sid in scenario_ids:
        out[f"{views.scenario_doc(sid)}.rst"] = alone("example.rst.j2", "sc", functools.partial(scenario, sid))
    for i, c in enumerate(compared):
        out[f"{comparison_doc(c.id)}.rst"] = alone("comparison.rst.j2", "comparison",
                                                   functools.partial(comparison, i))
    out["topics/index.rst"] = render("topics-index.rst.j2")
    if revision_keys:
        out["revisions/index.rst"] = render("revisions-index.rst.j2")
    if scenario_ids:
        out["examples/index.rst"] = render("examples-index.rst.j2",
                                           scoreboard=lambda: views.scoreboard_view(context()["scenarios"]))
    out["differences.rst"] = render("differences.rst.j2", differences=functools.partial(views.differences_view, model))
    out["glossary.rst"] = render("glossary.rst.j2", terms=functools.partial(views.glossary_view, model))
    out["coverage.rst"] = render("coverage.rst.j2", rulebooks=functools.partial(coverage_view, model, trust),
                                 not_run=lambda: (trust or Trust.of()).mark)
    for name in extras:
        out[f"{name}.rst"] = render("extra.rst.j2", page=functools.partial(extras.__getitem__, name))
    for name in ("contents", "sources-table", "sources-detail"):
        out[f"{FRAGMENTS}/{name}.inc"] = render(f"{name}.inc.j2")
    return out


def extra_pages(model: Model) -> dict[str, dict]:
    """Pages written beside the site: the printable rule cards.

    The cards are a standalone HTML page (:func:`harmony.cards.render_html`)
    linked from a page of the site, and the same cards as the PDF ``harmony
    cards`` prints by default (``pdf``: its file; ``pdfs``: the
    :class:`~harmony.printer.Job` that prints it), unless a card overflows
    (``harmony check`` reports it).
    """
    out: dict[str, dict] = {}
    sets = cards.rules_with_cards(model)
    names = ", ".join(model.sources[k].title for k in sets) if sets else ""
    out["cards"] = {"title": "Printable rule cards", "file": "print/cards.html",
                    "html": text_only(cards.render_html(model, sets)),
                    "intro": "The rules as short cards, one per cell that has a card, laid "
                             "out for printing and cutting"
                             + (f": a set for each of {names}." if names else ".")}
    try:
        html, printed = cards.pdf_html(model, sets)
    except cards.CardOverflow:   # harmony check has reported it; no PDF then
        printed = []
    if printed:
        pdf = "print/harmony-cards.pdf"
        out["cards"]["pdf"] = {"file": pdf}
        out["cards"]["pdfs"] = [Job(pdf, functools.partial(text_only, html), cards.print_pdf)]
    return out


def change_pages(model: Model) -> dict[str, str]:
    """The "what changed" pages (reST, one per version a revision declares): each revised
    cell beside the text it amends, word by word (:func:`views.version_views`)."""
    template = environment().get_template("version.rst.j2")
    return {f"{v['file']}.rst": template.render(version=v) for v in views.version_views(model)}


# ------------------------------------------------------------------ staging
@dataclass
class Staged:
    """What :func:`stage` did to the source folder."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------------ identity
#: The folder of a rules folder that holds the harmony's own hand-written pages.
PAGES = "pages"
#: The generator's pages of the hex wargame's explorer and scenario format, staged only
#: for a harmony whose game offers the explorer.
EXPLORER_PAGES = ("explorer.rst", "scenarios.rst")


def identity_view(model: Model) -> dict:
    """Who the harmony is (:class:`harmony.model.Identity`), for the templates.

    >>> from harmony.model import Identity
    >>> identity_view(Model(identity=Identity(title="Dice", authors=["Ann"])))["copyright"]
    'Ann'
    """
    who = model.identity
    return {"title": who.title, "subtitle": who.subtitle, "authors": list(who.authors),
            "copyright": who.copyright_line, "url": who.url, "repository": who.repository,
            "language": who.language}


def conf_overrides(model: Model) -> dict[str, str]:
    """What the harmony's identity sets in the site's ``conf.py`` (Sphinx's configuration
    overrides): the generic ``site/conf.py`` names no harmony.

    >>> from harmony.model import Identity
    >>> conf_overrides(Model(identity=Identity(title="Dice", url="https://x.org/dice")))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'project': 'Dice', 'html_title': 'Dice', 'author': 'the Dice authors',
     'copyright': 'the Dice authors', 'language': 'en', 'html_search_language': 'en',
     'html_baseurl': 'https://x.org/dice/'}
    """
    who = model.identity
    out = {"project": who.title, "html_title": who.title,
           "author": ", ".join(who.authors) or who.copyright_line,
           "copyright": who.copyright_line, "language": who.language,
           "html_search_language": who.language.split("_")[0]}
    if who.url:
        out["html_baseurl"] = who.url.rstrip("/") + "/"
    return out


def pages_folder(model: Model) -> Path | None:
    """The harmony's own hand-written pages (``pages/`` in its rules folder), if any."""
    if not model.root:
        return None
    root = Path(model.root)
    folder = (root if root.is_dir() else root.parent) / PAGES
    return folder if folder.is_dir() else None


def is_orphan(page: Path) -> bool:
    """Whether a hand-written page says it is in no contents list (``:orphan:``, its first line).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "404.rst").write_text(":orphan:\\n\\nNot found\\n")
    ...     is_orphan(Path(d) / "404.rst")
    True
    """
    try:
        with page.open("rb") as f:
            return f.readline().strip() == b":orphan:"
    except OSError:
        return False


def hand_pages(model: Model, site_dir: Path = SITE) -> dict[str, Path]:
    """The hand-written pages a site stages, by file name: the generator's ``site/*.rst``
    (:data:`EXPLORER_PAGES` only when the harmony's game offers an explorer), then the
    harmony's own ``pages/*.rst``, a page of which replaces the generator's of that name
    (a harmony without ``pages/index.rst`` gets the front page of ``index.rst.j2``)."""
    out: dict[str, Path] = {}
    try:
        explores = game.game_for(model).explorer is not None
    except game.GameError:
        explores = False
    for p in sorted(site_dir.glob("*.rst")):
        if p.name not in EXPLORER_PAGES or explores:
            out[p.name] = p
    own = pages_folder(model)
    for p in sorted(own.glob("*.rst")) if own is not None else []:
        out[p.name] = p
    return out


def stage(files: dict[str, str], dest: Path, site_dir: Path = SITE,
          model: Model | None = None, keep: Collection[str] = ()) -> Staged:
    """Write ``files`` and the hand-written pages (:func:`hand_pages`) into ``dest``.

    A file is written only when its bytes differ from what is there (content
    hashes, not times), so Sphinx's incremental build re-reads just the pages
    that changed; files no longer generated are removed, but those named in ``keep``
    (a preview's pages not made anew), which are left as they are, unread.
    """
    dest.mkdir(parents=True, exist_ok=True)
    wanted: dict[str, bytes] = {rel: text_only(text).encode("utf-8") for rel, text in files.items()}
    for name, p in hand_pages(model or Model(), site_dir).items():
        if name not in wanted:
            wanted[name] = p.read_bytes()
    res = Staged()
    for rel in sorted(wanted):
        path = dest / rel
        new = wanted[rel]
        if path.is_file() and digest(path.read_bytes()) == digest(new):
            res.kept.append(rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(new)
        os.replace(tmp, path)
        res.written.append(rel)
    for path in sorted(dest.rglob("*")):
        rel = path.relative_to(dest).as_posix()
        if path.is_file() and rel not in wanted and rel not in keep:
            path.unlink()
            res.removed.append(rel)
    return res
