"""Cross-references of the harmony site: the ``hm`` domain and the ``:clause:`` role.

Generated pages register every clause, cell, glossary term, source and
scenario they show in the ``hm`` domain (docname and anchor). Prose pages cite
a clause with ``:clause:`spotting.recording``` (or one cell,
``:clause:`spotting.recording@PL```); an id that no page defines gives a Sphinx
warning at the file and line of the role.

A reference shows its target's title (the link's tooltip) and points at its
page and anchor, all taken when the page is written. Sphinx re-writes only the
pages it re-read, so the domain also keeps, per page, the objects it refers to,
and after reading it asks Sphinx to re-write every page referring to an object
whose page, anchor or title changed (``env-get-updated``): an incremental build
writes the same bytes as a clean one.
"""
from __future__ import annotations

from typing import Any, ClassVar

from docutils import nodes
from sphinx import addnodes
from sphinx.domains import Domain, ObjType
from sphinx.util.nodes import make_refnode

KINDS = ("clause", "cell", "term", "source", "scenario", "topic")


def xref(kind: str, target: str, *children: nodes.Node, title: str | None = None) -> addnodes.pending_xref:
    """A reference to an object of the ``hm`` domain, resolved when pages are written."""
    node = addnodes.pending_xref("", *children, refdomain="hm", reftype=kind, reftarget=target,
                                 refexplicit=True, refwarn=True)
    if title:
        node["reftitle"] = title
    return node


def clause_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``:clause:`id``` or ``:clause:`id@SRC```: a link to the clause's row (or cell)."""
    target = text.strip()
    kind = "cell" if "@" in target else "clause"
    node = xref(kind, target, nodes.literal(rawtext, target, classes=["xref", "hm-clause"]))
    node.source, node.line = inliner.reporter.get_source_and_line(lineno)
    return [node], []


class HarmonyDomain(Domain):
    name = "hm"
    label = "Harmony"
    object_types = {k: ObjType(k, k) for k in KINDS}
    roles = {"clause": clause_role}
    initial_data: ClassVar[dict[str, Any]] = {"objects": {}, "refs": {}}
    dangling_warnings = {
        "clause": "unknown clause id '%(target)s'",
        "cell": "unknown clause cell '%(target)s'",
        "term": "unknown glossary term '%(target)s'",
        "source": "unknown source '%(target)s'",
        "scenario": "unknown scenario '%(target)s'",
        "topic": "unknown topic '%(target)s'",
    }

    @property
    def objects(self) -> dict:
        return self.data.setdefault("objects", {})

    @property
    def refs(self) -> dict[str, list[tuple[str, str]]]:
        """Per page, the ``(kind, name)`` of every object of this domain it refers to."""
        return self.data.setdefault("refs", {})

    def note(self, kind: str, name: str, docname: str, anchor: str, title: str = "") -> None:
        self.objects[(kind, name)] = (docname, anchor, title)

    def process_doc(self, env, docname: str, document: nodes.document) -> None:
        found = {(node["reftype"], node["reftarget"]) for node in document.findall(addnodes.pending_xref)
                 if node.get("refdomain") == self.name}
        if found:
            self.refs[docname] = sorted(found)
        else:
            self.refs.pop(docname, None)

    def clear_doc(self, docname: str) -> None:
        for key, (doc, _a, _t) in list(self.objects.items()):
            if doc == docname:
                del self.objects[key]
        self.refs.pop(docname, None)

    def merge_domaindata(self, docnames, otherdata) -> None:
        for key, value in otherdata["objects"].items():
            if value[0] in docnames:
                self.objects[key] = value
        for docname, found in otherdata.get("refs", {}).items():
            if docname in docnames:
                self.refs[docname] = found

    def referring(self, before: dict) -> list[str]:
        """The pages referring to an object whose page, anchor or title is not what it was
        in ``before`` (the objects before this build read its pages), or that is new or gone.

        >>> d = HarmonyDomain.__new__(HarmonyDomain)
        >>> d.data = {"objects": {("clause", "a"): ("t", "a", "New title"), ("clause", "b"): ("t", "b", "B")},
        ...           "refs": {"x": [("clause", "a")], "y": [("clause", "b")], "z": [("term", "c")]}}
        >>> d.referring({("clause", "a"): ("t", "a", "Old title"), ("clause", "b"): ("t", "b", "B"),
        ...              ("term", "c"): ("glossary", "c", "C")})
        ['x', 'z']
        """
        now = self.objects
        changed = {k for k in before.keys() | now.keys() if before.get(k) != now.get(k)}
        if not changed:
            return []
        return sorted(doc for doc, found in self.refs.items()
                      if any(tuple(ref) in changed for ref in found))

    def resolve_xref(self, env, fromdocname, builder, typ, target, node, contnode):
        found = self.objects.get((typ, target))
        if found is None:
            return None
        docname, anchor, title = found
        return make_refnode(builder, fromdocname, docname, anchor, contnode, title or target)

    def resolve_any_xref(self, env, fromdocname, builder, target, node, contnode):
        out = []
        for kind in KINDS:
            ref = self.resolve_xref(env, fromdocname, builder, kind, target, node, contnode)
            if ref is not None:
                out.append((f"hm:{kind}", ref))
        return out

    def get_objects(self):
        """The search objects: clause rows, cells, glossary terms and scenarios.

        Sphinx's search index keeps an object's anchor only when it differs from
        the object's *name* (``''`` means "the name is the anchor", ``'-'``
        "kind-name"), and the search page rebuilds the link from the *display*
        name; so the name given here is always the display name, and the link
        opens the row, the cell or the entry it names. Clauses and cells are
        named by their ids (``spotting.recording``, ``spotting.recording@PL``),
        which readers cite; terms and scenarios by what a reader calls them.
        The site's scorer (``_static/harmony-search.js``) ranks cells below rows
        unless the query names a cell.

        >>> d = HarmonyDomain.__new__(HarmonyDomain)
        >>> d.data = {"objects": {("clause", "s.rec"): ("topics/s", "s.rec", "Marking"),
        ...     ("term", "term-spotted"): ("glossary", "term-spotted", "Spotted"),
        ...     ("cell", "s.rec@PL"): ("topics/s", "s.rec@PL", "s.rec in PL")}}
        >>> for o in d.get_objects(): print(o)
        ('s.rec@PL', 's.rec@PL', 'cell', 'topics/s', 's.rec@PL', 1)
        ('s.rec', 's.rec', 'clause', 'topics/s', 's.rec', 1)
        ('Spotted', 'Spotted', 'term', 'glossary', 'term-spotted', 1)
        """
        for (kind, name), (docname, anchor, title) in sorted(self.objects.items()):
            if kind in ("clause", "cell"):
                shown = name
            elif kind in ("term", "scenario"):
                shown = title or name
            else:
                continue
            yield shown, shown, kind, docname, anchor, 1

#: on the environment while its pages are read: the domain's objects before the read
_BEFORE = "_hm_objects_before_read"


def _remember_objects(app, env, docnames) -> None:
    setattr(env, _BEFORE, dict(env.get_domain("hm").objects))


def _pages_to_rewrite(app, env) -> list[str]:
    """``env-get-updated``: the pages whose references changed (Sphinx re-writes them)."""
    before = env.__dict__.pop(_BEFORE, None)   # not pickled with the environment
    if before is None:
        return []
    return env.get_domain("hm").referring(before)


def setup(app) -> None:
    app.add_domain(HarmonyDomain)
    app.add_role("clause", clause_role)
    app.connect("env-before-read-docs", _remember_objects)
    app.connect("env-get-updated", _pages_to_rewrite)
