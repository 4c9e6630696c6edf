"""The numbers written in prose: digits, fractions and number words.

:func:`numbers_in` finds each number a reader would take as a rule's value
and says what kind it is, so that ``harmony check`` can compare it with the
parameters of the same cell (see :mod:`harmony.consistency`):

- ``modifier``: a signed number, ``+1``, ``-2``, ``plus one``;
- ``fraction``: ``1/2``, ``½``, ``half``, ``a quarter``, ``two thirds``, ``50%``;
- ``count``: ``3``, ``three``, ``once``, ``twice``.

Numbers that are not rule values are left out: years (``PanzerBlitz 1970``),
references (``Figure 1``, ``footnote 4``, ``section 7.12``, ``hex A``),
dotted or dashed numbers (``v0.1``, ``2013-04-05``, odds ``3-1``), numbers
glued to letters (``T-34``, ``d10``, ``C(I)``, ``1st``), measures and hex
counts (``two hexes``, ``6 inches``, ``12 turns``), and ``one`` used as a
pronoun (``no one``, ``each one``, ``one of``, ``the spotted one.``), ``once``
that is not a count (``at once``, ``once it has spent``), and a unit's printed
factors (``a movement allowance of 1``). A number written twice,
``plus one (+1)``, counts once.

>>> [(n.kind, str(n.value), n.text) for n in numbers_in("fires at +1 within half range")]
[('modifier', '1', '+1'), ('fraction', '1/2', 'half')]
>>> [(n.kind, str(n.value)) for n in numbers_in("spent one quarter of its allowance, once")]
[('fraction', '1/4'), ('count', '1')]
>>> numbers_in("See Figure 1 and footnote 4 of PanzerBlitz (1970), hex A, two hexes away.")
[]
>>> [n.text for n in numbers_in("fires once a phase; at once; once it has moved; the spotted one.")]
['once']
>>> [(n.kind, str(n.value), n.text) for n in numbers_in("a modifier of plus one (+1)")]
[('modifier', '1', 'plus one (+1)')]
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction

WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
         "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
TIMES = {"once": 1, "twice": 2, "thrice": 3}
#: denominators of fraction words; "third", "fourth", "fifth" need a numerator before them
#: ("a third"), since alone they are ordinals ("the third turn")
PARTS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
         "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5}
NUMERATORS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}
#: a number right after one of these words is a reference, not a value
REFERENCE_WORDS = {"figure", "figures", "fig", "footnote", "footnotes", "note", "notes", "table",
                   "tables", "section", "sections", "rule", "rules", "page", "pages", "p", "pp",
                   "hex", "class", "version", "v", "turn", "phase", "step", "scenario", "chapter",
                   "appendix", "paragraph", "item", "case", "no", "number", "seed", "edition",
                   "game", "card", "plate", "map", "board", "counter"}
#: a number right before one of these words measures distance or time, not a rule value
MEASURE_WORDS = {"hex", "hexes", "hexside", "hexsides", "inch", "inches", "in", "cm", "mm",
                 "turn", "turns", "minute", "minutes", "m", "metre", "metres", "meter", "meters",
                 "km", "yard", "yards", "yd", "mile", "miles", "year", "years", "game-turn",
                 "game-turns", "board", "boards", "map", "maps", "figure", "figures",
                 "footnote", "footnotes", "table", "tables"}
#: "allowance of 1", "range 8": a unit's printed factors, not rule values
STAT_WORDS = {"allowance", "factor", "factors", "strength", "range", "defence", "defense",
              "attack", "ma", "rating"}
#: "one" after these, or before "of"/"another"/"or", is a pronoun
PRONOUN_BEFORE = {"no", "any", "each", "every", "the", "this", "that", "which", "some",
                  "someone", "anyone", "not"}
PRONOUN_AFTER = {"of", "another", "or", "another's", "by"}

_WORD_RE = "|".join(sorted(set(WORDS) | set(TIMES) | set(PARTS) | {"plus", "minus"},
                           key=len, reverse=True))
TOKEN = re.compile(
    r"(?P<digits>(?<![\w.\-/:])[+\-\u2212]?\d+(?:[./:\-]\d+)*%?(?![\w/]))"
    r"|(?P<uni>[\u00bc-\u00be\u2150-\u215e])"
    rf"|(?P<word>\b(?:{_WORD_RE})\b)",
    re.IGNORECASE)
WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")


@dataclass(frozen=True)
class Number:
    """A number read in prose: its kind, its value, the words it is written in and where."""

    kind: str          # modifier | fraction | count
    value: Fraction
    text: str          # as written, e.g. "one quarter"
    start: int
    end: int


def _prev_word(text: str, i: int) -> str:
    words = WORD.findall(text[max(0, i - 40):i])
    return words[-1].lower().rstrip(".") if words else ""


#: the blanks (and dashes) before the next word; a word's first letters, as many as any list
#: of words here could hold (a longer word is in none of them)
_BLANKS = re.compile(r"[ \t\n]*")
_BLANKS_DASHES = re.compile(r"[ \t\n\-]*")
_WORD_HEAD = re.compile(r"[A-Za-z][A-Za-z'\-]{0,40}")


def _past(blanks: re.Pattern, text: str, i: int) -> int:
    """Where the run of ``blanks`` (an expression that also matches nothing) at ``i`` ends."""
    m = blanks.match(text, i)
    return m.end() if m else i


def _next_word(text: str, i: int) -> str:
    """The word after ``i`` (past blanks and dashes), lower case; ``inches`` for a ``"``.
    Only its first 41 letters are read: no word this module looks for is longer.

    >>> _next_word("one - Hexes away", 3), _next_word('6" away', 1), _next_word("one", 3)
    ('hexes', 'inches', '')
    """
    m = _WORD_HEAD.match(text, _past(_BLANKS_DASHES, text, i))
    after = _past(_BLANKS, text, i)
    if text.startswith('"', after) or text.startswith("\u2033", after):
        return "inches"
    return m.group(0).lower() if m else ""


#: "once" counts only before these ("fires once per phase", "once a turn", "once.")
ONCE_AFTER = {"per", "each", "every", "during", "in", "only", "more", "again", "and", "or"}
TIME_WORDS = {"phase", "turn", "game", "segment", "move", "player"}


#: a number that ends its sentence, clause or text
_ENDS = re.compile(r"\s*(?:[.,;:!?)]|$)")


def _counted_once(text: str, n: "Number") -> bool:
    """Whether "once" is a count ("once per phase") rather than "at once" or "once it has"."""
    if _prev_word(text, n.start) == "at":
        return False
    if _ENDS.match(text, n.end):
        return True
    words = [w.lower() for w in WORD.findall(text[n.end:n.end + 40])]
    if not words:
        return True
    if words[0] in ("a", "an"):
        return len(words) > 1 and words[1] in TIME_WORDS
    return words[0] in ONCE_AFTER


def _stat(text: str, i: int) -> bool:
    """Whether the number at ``i`` gives a unit's factor: "allowance of 1", "range 8"."""
    stat = "|".join(sorted(STAT_WORDS))
    return re.search(rf"\b(?:{stat})(?:\s+of)?\s+$", text[max(0, i - 40):i], re.IGNORECASE) is not None


def _raw(text: str) -> list[Number]:
    """Every candidate, before merging phrases and dropping references."""
    out: list[Number] = []
    for m in TOKEN.finditer(text):
        s, e = m.span()
        if m.group("digits"):
            tok = m.group("digits")
            body = tok.lstrip("+-\u2212").rstrip("%")
            if len(body) > 100:
                continue  # no rule's number, and more digits than Python turns into one
            if re.search(r"[.:\-]", body) or body.count("/") > 1:
                continue  # v0.1, 7.12, 2013-04-05, 3-1, 2013/04/05
            if "/" in body:
                num, den = body.split("/")
                if int(den) == 0:
                    continue
                out.append(Number("fraction", Fraction(int(num), int(den)), tok, s, e))
            elif tok.endswith("%"):
                out.append(Number("fraction", Fraction(int(body), 100), tok, s, e))
            elif tok[0] in "+-\u2212":
                # a minus glued to a word ("T-34") never reaches here: the look-behind refuses it
                sign = -1 if tok[0] != "+" else 1
                out.append(Number("modifier", sign * Fraction(int(body)), tok, s, e))
            else:
                if len(body) == 4 and 1000 <= int(body) <= 2999:
                    continue  # a year
                out.append(Number("count", Fraction(int(body)), tok, s, e))
        elif m.group("uni"):
            ch = m.group("uni")
            try:
                value = Fraction(unicodedata.numeric(ch)).limit_denominator(100)
            except (TypeError, ValueError):
                continue
            out.append(Number("fraction", value, ch, s, e))
        else:
            w = m.group("word").lower()
            if w in WORDS:
                out.append(Number("count", Fraction(WORDS[w]), m.group(0), s, e))
            elif w in TIMES:
                out.append(Number("count", Fraction(TIMES[w]), m.group(0), s, e))
            elif w in PARTS:
                out.append(Number("part", Fraction(1, PARTS[w]), m.group(0), s, e))
            else:
                out.append(Number("sign", Fraction(1 if w == "plus" else -1), m.group(0), s, e))
    return out


def _gap(text: str, a: Number, b: Number, allowed: str = r"[ \t\n\-]*") -> bool:
    return re.fullmatch(allowed, text[a.end:b.start]) is not None


#: a word written before a part, read backwards: "a" or "an" at the end of the text before it
_ARTICLE = re.compile(r"\b(an?)\Z", re.IGNORECASE)


def _article(text: str, i: int) -> int | None:
    """Where "a" or "an" starts, when only blanks and dashes stand between it and ``i``
    (``a half``, ``an eighth``), else None. The text before ``i`` is read back to the last
    word only, never from its start.

    >>> _article("fire at a  half", 11), _article("fire at An-half", 11), _article("area half", 5)
    (8, 8, None)
    """
    j = i
    while j > 0 and text[j - 1] in " \t\n-":
        j -= 1
    if j == i:
        return None
    m = _ARTICLE.search(text, max(0, j - 3), j)
    return m.start(1) if m else None


def numbers_in(text: str | None) -> list[Number]:
    """The rule values written in ``text``, in order (see the module doc)."""
    text = text or ""
    raw = _raw(text)
    out: list[Number] = []
    i = 0
    while i < len(raw):
        n = raw[i]
        nxt = raw[i + 1] if i + 1 < len(raw) else None
        if n.kind == "sign":
            # "plus one", "minus two"
            if nxt is not None and nxt.kind == "count" and _gap(text, n, nxt):
                out.append(Number("modifier", n.value * nxt.value, text[n.start:nxt.end],
                                  n.start, nxt.end))
                i += 2
                continue
            i += 1
            continue
        if n.kind == "part":
            # "half" alone; "third", "quarter"... only after a numerator ("a third", "two thirds")
            den = n.value.denominator
            prev = raw[i - 1] if i > 0 else None
            article = _article(text, n.start)
            if prev is not None and prev.kind == "count" and prev.text.lower() in NUMERATORS \
                    and _gap(text, prev, n):
                out.append(Number("fraction", Fraction(int(prev.value), den),
                                  text[prev.start:n.end], prev.start, n.end))
            elif article is not None:
                out.append(Number("fraction", Fraction(1, den), text[article:n.end], article, n.end))
            elif den == 2 or (den == 4 and _next_word(text, n.end) == "of"):
                out.append(Number("fraction", Fraction(1, den), n.text, n.start, n.end))
            i += 1
            continue
        if n.kind == "count" and nxt is not None and nxt.kind == "part" and _gap(text, n, nxt) \
                and n.text.lower() in NUMERATORS:
            i += 1  # the numerator of a fraction word: read with the part
            continue
        if n.kind == "count" and n.text.lower() == "one":
            if _prev_word(text, n.start) in PRONOUN_BEFORE or _next_word(text, n.end) in PRONOUN_AFTER \
                    or _ENDS.match(text, n.end):
                i += 1  # "no one", "one of", "the spotted one."
                continue
        if n.kind == "count" and n.text.lower() == "once" and not _counted_once(text, n):
            i += 1  # "at once", "once it has spent": not a count
            continue
        if n.kind in ("count", "modifier"):
            if _prev_word(text, n.start) in REFERENCE_WORDS and n.text[0].isdigit():
                i += 1
                continue
            if n.kind == "count" and _stat(text, n.start):
                i += 1
                continue
            if n.kind == "count" and _next_word(text, n.end) in MEASURE_WORDS:
                i += 1
                continue
        out.append(n)
        i += 1
    return _merge_repeats(text, out)


def _merge_repeats(text: str, found: list[Number]) -> list[Number]:
    """``one (1)``, ``plus one (+1)``, ``half (1/2)``: one number written twice."""
    out: list[Number] = []
    for n in found:
        if out:
            prev = out[-1]
            between = text[prev.end:n.start]
            if re.fullmatch(r"\s*\(\s*", between) and text[n.end:n.end + 1] == ")" \
                    and abs(prev.value) == abs(n.value):
                kind = "modifier" if "modifier" in (prev.kind, n.kind) else prev.kind
                out[-1] = Number(kind, prev.value if prev.kind == kind else n.value,
                                 text[prev.start:n.end + 1], prev.start, n.end + 1)
                continue
        out.append(n)
    return out
