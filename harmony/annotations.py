"""``harmony check --format github``: problems as GitHub Actions annotations.

Each problem is one workflow command, ``::error file=PATH,line=L,col=C::MESSAGE [code]``
(``::warning`` for a warning), the form ruff's ``--output-format github`` writes: run in a
workflow, GitHub shows each message on its line of the pull request. The path is the one
the report gives (relative to the working folder, as a workflow runs at the top of the
repository). Values are escaped as GitHub's workflow commands require, so a message holding
``%`` or a path holding ``,`` or ``:`` reads back as it was. The report's summary and notes
follow as plain lines, which a workflow log shows as they are.

>>> from harmony.diagnostics import Pos, Report
>>> r = Report()
>>> r.error(Pos("rules_data/spotting.yaml", 12, 5), "unknown key 'colour'", "schema-unknown-key")
>>> r.warning(Pos("rules_data/a,b.yaml", 3, 1), "50% of it", "citation-vague")
>>> r.files = 2
>>> print(to_github(r), end="")
::warning file=rules_data/a%2Cb.yaml,line=3,col=1::50%25 of it [citation-vague]
::error file=rules_data/spotting.yaml,line=12,col=5::unknown key 'colour' [schema-unknown-key]
1 error, 1 warning in 2 files
"""
from __future__ import annotations

from .diagnostics import Diagnostic, Report


def escape_data(text: str) -> str:
    """A workflow command's message, escaped.

    >>> escape_data("100%\\nnext")
    '100%25%0Anext'
    """
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (a path), escaped.

    >>> escape_property("a:b,c.yaml")
    'a%3Ab%2Cc.yaml'
    """
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    """One problem as one workflow command."""
    kind = "error" if d.severity == "error" else "warning"
    return (f"::{kind} file={escape_property(d.pos.path)},line={d.pos.line},col={d.pos.col}"
            f"::{escape_data(f'{d.message} [{d.code}]')}")


def to_github(report: Report) -> str:
    """Every problem of ``report`` as an annotation, in the report's order, then its summary
    and notes as plain lines."""
    lines = [annotation(d) for d in report.sorted()]
    lines.append(report.summary())
    lines.extend(f"note: {n}" for n in report.notes)
    return "\n".join(lines) + "\n"
