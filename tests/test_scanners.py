"""The text scanners read any text in one pass: clause markup (:mod:`harmony.markup`) and
numbers in prose (:mod:`harmony.numbers`).

20,000 ``[[`` in one text took the markup scanner more than a minute (its expression ran
from every ``[[`` to the next ``]``), and 950 KB of ``'half '`` took the number scanner 18
minutes (it read the whole text before each fraction word again). Each scanner now gives
its answer on a megabyte of each hostile text here (the old ones would not finish), the
text it reads is counted (a bounded number of characters per character of input), and
its answers are those of the expressions that define it, on texts drawn at random.
Speed is measured by ``bench/hostile_text.py``, never asserted here.
"""
from __future__ import annotations

import re
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from harmony import markup, numbers
from harmony.markup import MARK, Mark, iter_marks, marks, plain_text
from harmony.numbers import numbers_in

MB = 1_000_000


# ------------------------------------------------------------------ markup

def by_expression(text: str) -> list[Mark]:
    """The marks as :data:`harmony.markup.MARK` defines them (slow on hostile text)."""
    out = []
    for m in MARK.finditer(text):
        if m.group("term"):
            out.append(Mark("term", (m.group("target") or m.group("term")).strip(),
                            m.group("term").strip(), m.start(), m.end()))
        else:
            kind = "footnote" if m.group("fn") else "table" if m.group("table") else "param"
            target = m.group("fn") or m.group("table") or m.group("param")
            out.append(Mark(kind, target, target, m.start(), m.end()))
    return out


PIECES = ["[[", "]]", "[", "]", "|", "[^", "{{", "}}", " ", "a", "b c", "x.y", "-", "/", "table:",
          "\n", "1", "^", "{", "}", "[[woods]]", "{{ drm }}", "[^n-1]", "{{ table:t/r/c }}"]


@given(st.lists(st.sampled_from(PIECES), max_size=25).map("".join))
@settings(max_examples=2000, deadline=None, derandomize=True, database=None)
def test_marks_are_those_of_the_expression(text):
    assert list(iter_marks(text)) == by_expression(text)


class Reads:
    """Counts the characters the markup scanner's searches for ``]`` and ``|`` read (from where
    each starts to what it finds, or to the end of the text)."""

    def __init__(self, monkeypatch):
        self.chars = 0
        reads, init = self, markup._Next.__init__

        class Counted:
            def __init__(self, pattern):
                self.pattern = pattern

            def search(self, text, i):
                m = self.pattern.search(text, i)
                reads.chars += (m.start() if m else len(text)) - i
                return m

        def counted(nxt, text, chars):
            init(nxt, text, chars)
            nxt.pattern = Counted(nxt.pattern)
        monkeypatch.setattr(markup._Next, "__init__", counted)


HOSTILE_MARKUP = {
    "open links": "[[" * (MB // 2),
    "open links with a target": "[[a|" * (MB // 4),
    "links closed once": "[[a " * (MB // 4) + "]]",
    "open marks": "{{ " * (MB // 3),
    "open footnotes": "[^" * (MB // 2),
    "long link": "[[" + "a" * MB + "]]",
}


def test_a_megabyte_of_each_hostile_text_is_read_once(monkeypatch):
    reads = Reads(monkeypatch)
    for name, text in HOSTILE_MARKUP.items():
        reads.chars = 0
        found = marks(text)
        assert reads.chars <= 2 * len(text) + 10, (name, reads.chars)
        if name == "links closed once":
            # the first [[ reaches the only ]]: one link, of every word between
            assert [(m.kind, m.start, m.end) for m in found] == [("term", 0, len(text))]
            assert found[0].target == text[2:-2].strip()
        elif name == "long link":
            assert [(m.kind, m.target) for m in found] == [("term", "a" * MB)]
        else:
            assert found == [], name


def test_marks_among_a_megabyte_of_open_links_are_all_found():
    text = ("[[" * 1000 + "[[woods]] at {{ opfire.drm }}[^rev-4] ") * 400
    assert len(text) > 800_000
    found = marks(text)
    assert len(found) == 1200
    assert [m.kind for m in found[:3]] == ["term", "param", "footnote"]
    assert found[0].target == "[[" * 1000 + "woods"
    shown = plain_text(text[:5000], {"opfire.drm": 1}, {"opfire.drm": "modifier"})
    assert "+1" in shown


# ------------------------------------------------------------------ numbers

class Sliced(str):
    """A text that counts the characters its slices copy (the number scanner's old way of
    reading the text before and after each number)."""

    copied = 0

    def __getitem__(self, key):
        part = str.__getitem__(self, key)
        if isinstance(key, slice):
            Sliced.copied += len(part)
        return part


HOSTILE_NUMBERS = {
    "half": ("half ", Fraction(1, 2)),
    "a half": ("a half ", Fraction(1, 2)),
    "a third": ("a third ", Fraction(1, 3)),
    "once": ("once a turn ", Fraction(1)),
    "one-": ("one-", None),
    "plus one": ("plus one ", Fraction(1)),
    "+1": ("+1 ", Fraction(1)),
}


def test_hostile_number_words_are_read_once():
    """A tenth of a megabyte each (counting every slice is slow; the old scanner copied the
    whole text before each number: 5 GB for the first of these)."""
    size = MB // 10
    for name, (piece, value) in HOSTILE_NUMBERS.items():
        text = Sliced(piece * (size // len(piece)))
        Sliced.copied = 0
        found = numbers_in(text)
        assert Sliced.copied <= 100 * len(text), (name, Sliced.copied)
        if value is not None:
            assert len(found) == size // len(piece) and {n.value for n in found} == {value}, name


def test_a_megabyte_of_half_gives_every_half():
    text = "half " * (MB // 5)
    found = numbers_in(text)
    assert len(found) == MB // 5
    assert all(n.kind == "fraction" and n.value == Fraction(1, 2) and n.text == "half" for n in found)
    assert [n.start for n in found[:3]] == [0, 5, 10]


def test_a_slashed_date_is_no_number():
    """2013/04/05 and 1/2/3 name no share (they used to stop the scanner)."""
    assert numbers_in("the errata of 2013/04/05, 1/2/3 and 1/2") == \
        [numbers.Number("fraction", Fraction(1, 2), "1/2", 36, 39)]


WORDS = ["half", "a", "an", "A", "one", "two", "once", "at", "of", "quarter", "third", "thirds",
         "plus", "minus", "+1", "-2", "1/2", "1/0", "50%", "\u00bd", "hex", "hexes", "figure",
         "range", "allowance", "no", "the", "per", "phase", "(", ")", ".", ",", "-", '"',
         "\u2033", "x", "1970", "3-1", "v0.1", "inches", "turn", "w" * 50]


def old_article(text: str, i: int) -> int | None:
    """The article before a fraction word as the scanner first found it (from the text's start)."""
    m = re.search(r"\b(an?)[ \t\n\-]+$", text[:i], re.IGNORECASE)
    return m.start(1) if m else None


def old_next_word(text: str, i: int) -> str:
    m = re.compile(r"[A-Za-z][A-Za-z'\-]*").match(text[i:].lstrip(" \t\n-"))
    rest = text[i:].lstrip(" \t\n")
    if rest.startswith('"') or rest.startswith("\u2033"):
        return "inches"
    return m.group(0).lower() if m else ""


@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from([" ", "", "-", "\n", " - ", "  "])),
                max_size=14).map(lambda ws: "".join(w + s for w, s in ws)))
@settings(max_examples=800, deadline=None, derandomize=True, database=None)
def test_the_readers_around_a_number_answer_as_before(text):
    for i in range(len(text) + 1):
        assert numbers._article(text, i) == old_article(text, i), (text, i)
        new, old = numbers._next_word(text, i), old_next_word(text, i)
        assert new == old or (len(old) > 41 and new == old[:41]), (text, i)


# ------------------------------------------------------------------ fmt's flow comments

@st.composite
def nested_spans(draw):
    """Spans of flow collections on one line as a bracket text makes them (nested or apart)."""
    text = draw(st.lists(st.sampled_from(["[", "]", "x"]), max_size=40).map("".join))
    spans, stack = [], []
    for i, ch in enumerate(text):
        if ch == "[":
            stack.append((0, i))
        elif ch == "]" and stack:
            spans.append((stack.pop(), (0, i)))
    return spans, len(text)


@given(nested_spans())
@settings(max_examples=500, deadline=None, derandomize=True, database=None)
def test_a_comment_is_inside_a_flow_collection_as_when_each_was_compared(drawn):
    from harmony import fmt
    spans, size = drawn
    outer = fmt._outermost(spans)
    starts = [a for a, _ in outer]
    for col in range(size + 1):
        where = (0, col)
        assert fmt._inside(where, outer, starts) == any(a < where < b for a, b in spans)


def test_fmt_keeps_thousands_of_flow_comments_each_on_its_item():
    from harmony.fmt import formatted
    from harmony.loader import read_text
    terms = "".join(f"  - term: term {i}\n    aliases: [alias {i} a,  # why {i}\n      alias {i} b]\n"
                    f"    definition: Term {i}.\n" for i in range(3000))
    doc = read_text("glossary.yaml", "glossary:\n" + terms)
    out = formatted(doc)
    assert out.count("  # why ") == 3000
    assert "      - alias 1234 a  # why 1234\n      - alias 1234 b\n" in out


# ------------------------------------------------------------------ names in a file that does not parse

OLD_NAMED = re.compile(r"^[ \t]*(?:-[ \t]+)?\{?[ \t]*(?:id|key|name|term)[ \t]*:[ \t]*"
                       r"['\"]?([^'\"#,{}\n]+?)['\"]?[ \t]*(?:[,}#]|$)", re.M)
OLD_ALIASES = re.compile(r"^[ \t]*(?:-[ \t]+)?\{?[ \t]*aliases[ \t]*:[ \t]*(.*)$", re.M)


def old_names(text: str) -> set[str]:
    """names_in_text as its expressions first read the text (slow on hostile text)."""
    from harmony.loader import _ITEM, _term_name
    found = {m.group(1).strip().lower() if " " in m.group(1).strip() else m.group(1).strip()
             for m in OLD_NAMED.finditer(text)}
    bare = lambda v: _term_name(v.split(" #")[0].strip().strip("'\""))  # noqa: E731
    for m in OLD_ALIASES.finditer(text):
        rest = m.group(1).split(" #")[0].strip()
        if rest.startswith("["):
            body = text[m.start(1) + m.group(1).index("["):]
            inner = body[1:body.find("]")] if "]" in body else body[1:]
            values = [v for line in inner.split("\n") for v in line.split(" #")[0].split(",")]
        elif rest:
            values = [rest]
        else:
            values = []
            for line in text[m.end():].split("\n")[1:]:
                item = _ITEM.match(line)
                if not item:
                    if line.strip() and not line.strip().startswith("#"):
                        break
                    continue
                values.append(item.group(1))
        found |= {bare(v) for v in values if bare(v)}
    return found


NAME_PIECES = ["id", "key", "name", "term", "aliases", ":", " ", "  ", "\t", "-", "{", "}", "[", "]",
               ",", "#", " #", "'", '"', "a", "b c", "\n", "\n  - ", "x"]


@given(st.lists(st.sampled_from(NAME_PIECES), max_size=30).map("".join))
@settings(max_examples=3000, deadline=None, derandomize=True, database=None)
def test_names_in_a_broken_file_are_those_of_the_expressions(text):
    from harmony.loader import _NAMED_VALUE, _named_value, names_in_text
    assert names_in_text(text) == old_names(text)
    line = text.split("\n")[0]
    m = _NAMED_VALUE.match(line)
    assert _named_value(line) == (m.group(1) if m else None)


def test_names_in_a_megabyte_of_hostile_text():
    """Each of these took the old expressions hours (a line of blanks: every split of it
    between two runs of blanks; a list never closed: the rest of the text, once a line)."""
    from harmony.loader import names_in_text
    assert names_in_text(" " * MB + "x") == set()
    assert names_in_text("id: a" + " " * MB + "b") == {"a" + " " * MB + "b"}
    assert names_in_text("id: a" + " " * MB + ",") == {"a"}
    assert names_in_text("aliases:\n" * (MB // 9)) == set()
    assert names_in_text("aliases: [a\n" * (MB // 12)) == {"a", "aliases: [a"}


# ------------------------------------------------------------------ word diffs of long texts

def test_a_word_diff_of_a_megabyte_in_another_order_is_whole():
    """difflib's matcher on texts that repeat words grows with the cube of their length: past
    a bound, the words both texts begin and end with are kept and the rest replaced whole."""
    from harmony.diff.words import MATCHED_PAIRS, word_diff
    old = " ".join(str(i % 100) for i in range(MB // 3))
    last = old.split()[-1]
    new = "start " + " ".join(reversed(old.split())) + " " + last
    pieces = word_diff(old, new)
    assert len(old.split()) * len(new.split()) > MATCHED_PAIRS
    kept = lambda ops: " ".join(t for op, t in pieces if op in ops)  # noqa: E731
    assert kept(("equal", "delete")) == old and kept(("equal", "insert")) == new
    assert pieces[0][0] == "delete" and pieces[-1] == ("equal", last)


def test_a_word_diff_within_the_bound_is_difflibs():
    from harmony.diff.words import word_diff
    old = "a quarter of its allowance, " * 300
    new = old.replace("quarter", "third", 1)
    assert word_diff(old, new)[:3] == [("equal", "a"), ("delete", "quarter"), ("insert", "third")]
