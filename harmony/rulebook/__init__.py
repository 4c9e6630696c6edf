"""Rulebooks: each ruleset's full rules as a printed document, from the same clauses.

- :mod:`~harmony.rulebook.collect`: what a rulebook holds, read from the model;
- :mod:`~harmony.rulebook.render`: the rulebook to HTML (``templates/rulebook/``) and PDF
  (WeasyPrint);
- :mod:`~harmony.rulebook.command`: the ``harmony rulebook`` command.
"""
from __future__ import annotations

from ..model import Model
from .collect import Rulebook, collect, rulesets
from .render import PAPERS, print_pdf, render_html, write_pdf

__all__ = ["PAPERS", "Rulebook", "collect", "pdf_html", "print_pdf", "rulesets", "write_pdf"]


def pdf_html(model: Model, key: str, paper: str = "a4") -> str:
    """The HTML WeasyPrint prints for ruleset ``key``'s rulebook: the same model and paper
    give the same text, so a caller can hash it to know whether to print again."""
    return render_html(model, collect(model, key), paper)
