"""``harmony diff OLD NEW``: what changed between two states of rules_data.

``OLD`` and ``NEW`` are each a git revision of the repository (``HEAD~3``,
a tag, a commit, ``:/message``) or a folder (a rules_data folder, or a
checkout holding one).

The diff says which clauses, topics, glossary terms, notes, footnotes,
parameters, sources and scenarios were added, removed or changed (prose as a
word diff, ``[-old-]{+new+}``), and the *behavioural* diff: every scenario
ruling that changed under any ruleset, before and after, with the clauses
the engine gave as reasons. It also writes the site's "what changed" pages.

One module per job:

- :mod:`~harmony.diff.revisions`: read a side (a folder, or a git revision);
- :mod:`~harmony.diff.compare`: the model diff, as plain data;
- :mod:`~harmony.diff.rulings`: scenario rulings before and after;
- :mod:`~harmony.diff.text`: the diff for a terminal;
- :mod:`~harmony.diff.rst`: a "what changed" page between two models;
- :mod:`~harmony.diff.versions`: one page per version of a revision;
- :mod:`~harmony.diff.command`: the command's arguments and run;
- :mod:`~harmony.diff.words` and :mod:`~harmony.diff.plain`: word diffs, plain data.

Exit codes: 0 when the diff was computed (changes or none), 2 for a usage
error (an unknown revision, a missing folder, a revision outside any git
repository).
"""
from __future__ import annotations

from .command import diff_args, run_diff
from .compare import diff_cell, diff_clause, diff_models, is_empty
from .revisions import RULES_DIR, Side, find_repo, open_side, repo_root, resolve_commit
from .rst import changes_rst, rst_escape
from .rulings import ruling_diff, run_rulings
from .text import to_text
from .versions import model_at_version

__all__ = [
    "RULES_DIR", "Side", "changes_rst", "diff_args", "diff_cell", "diff_clause", "diff_models",
    "find_repo", "is_empty", "model_at_version", "open_side", "repo_root", "resolve_commit", "rst_escape",
    "ruling_diff",
    "run_diff", "run_rulings", "to_text",
]
