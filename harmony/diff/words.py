"""Word-level differences between two texts, as ``[-old-]{+new+}``.

Clause text is prose, so a line diff says little: this module compares words
(whitespace-separated tokens, punctuation kept on its word) with
:mod:`difflib` and marks what was removed and what was added.

>>> print(render(word_diff("a quarter of its allowance", "a third of its allowance")))
a [-quarter-]{+third+} of its allowance
>>> render(word_diff("fires once", "fires once")) == "fires once"
True
>>> word_diff(None, "new text")
[('insert', 'new text')]
"""
from __future__ import annotations

import difflib

#: one piece of a word diff: ("equal" | "delete" | "insert", words joined by spaces)
Piece = tuple[str, str]


def words(text: str | None) -> list[str]:
    """The words of a text; runs of whitespace (line breaks too) count as one space.

    >>> words("  two\\n words ")
    ['two', 'words']
    """
    return (text or "").split()


def word_diff(old: str | None, new: str | None) -> list[Piece]:
    """The pieces that turn ``old`` into ``new``, word by word.

    A replaced run of words gives a ``delete`` piece followed by an ``insert``.

    >>> word_diff("fire at +1", "fire at +2")
    [('equal', 'fire at'), ('delete', '+1'), ('insert', '+2')]
    """
    a, b = words(old), words(new)
    if len(a) * len(b) > MATCHED_PAIRS:
        return _around(a, b)
    out: list[Piece] = []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            out.append(("equal", " ".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(("delete", " ".join(a[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("insert", " ".join(b[j1:j2])))
    return out


#: past this many pairs of words (old by new), texts are compared by :func:`_around`: difflib's
#: matcher takes time that grows with the square of the words and more on texts that repeat
#: them (20 KB of words in the other order took a second, a megabyte would take hours)
MATCHED_PAIRS = 4_000_000


def _around(a: list[str], b: list[str]) -> list[Piece]:
    """The words both texts begin and end with kept, the rest removed and added whole.

    >>> _around("a b c d".split(), "a x d".split())
    [('equal', 'a'), ('delete', 'b c'), ('insert', 'x'), ('equal', 'd')]
    """
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    pieces = [("equal", a[:head]), ("delete", a[head:len(a) - tail]),
              ("insert", b[head:len(b) - tail]), ("equal", a[len(a) - tail:])]
    return [(op, " ".join(ws)) for op, ws in pieces if ws]


def render(pieces: list[Piece]) -> str:
    """Pieces as one line of text: ``[-removed-]`` and ``{+added+}`` (wdiff style)."""
    out = ""
    last = None
    for op, text in pieces:
        shown = text if op == "equal" else f"[-{text}-]" if op == "delete" else f"{{+{text}+}}"
        sep = "" if not out or (last == "delete" and op == "insert") else " "
        out += sep + shown
        last = op
    return out


def changed(old: str | None, new: str | None) -> bool:
    """True when the texts differ in their words (not only in line breaks or spacing).

    >>> changed("a  b", "a\\nb"), changed("a b", "a c")
    (False, True)
    """
    return words(old) != words(new)
