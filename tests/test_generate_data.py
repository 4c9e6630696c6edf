"""The content of a harmony-* directive (harmony.site.generate.data): written at once, and
text-only from a copy only when the JSON shows a character that is not text; the same as
making every text text-only first, for any value of any text."""
from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from harmony.diagnostics import NOT_TEXT
from harmony.site.generate import _text_only, data

#: any character, the lone surrogates, controls and non-characters among them
ANY = st.characters(blacklist_categories=())
#: mostly the characters that are not text and those ASCII JSON writes with a backslash
TRICKY = st.sampled_from("\x00\x07\x08\t\n\x0b\x0c\r\x1b\x1f \x7f\x80\x9f\xa0\\\"bfrtnu0189dDfF"
                         "\ud800\udbff\udc00\udfff\ufffd\ufffe\uffff\u2028")
TEXT = st.text(st.one_of(ANY, TRICKY), max_size=12)
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=20)


def slow(value) -> str:
    return json.dumps(_text_only(value), ensure_ascii=True, sort_keys=True, separators=(",", ":"))


@settings(max_examples=600, deadline=None)
@given(VALUES)
def test_data_is_the_json_of_the_value_made_text_only(value):
    assert data(value) == slow(value)


@given(st.lists(TRICKY, min_size=1, max_size=6).map("".join))
def test_no_character_that_is_not_text_reaches_the_page(text):
    written = json.loads(data({text: [text]}))
    (key, [item]), = written.items()
    assert not NOT_TEXT.search(key) and not NOT_TEXT.search(item)
    assert key == item == NOT_TEXT.sub("\ufffd", text)


def test_each_character_that_is_not_text_is_replaced_wherever_it_stands():
    for code in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0xD800, 0xDBFF, 0xDC00,
                 0xDFFF, 0xFFFE, 0xFFFF]:
        c = chr(code)
        assert data([f"a{c}b", {c: c}]) == '["a\\ufffdb",{"\\ufffd":"\\ufffd"}]', hex(code)
    assert data(["tab\tand\nline", "back\\slash b", "\u2028\ufffd"]) == \
        '["tab\\tand\\nline","back\\\\slash b","\\u2028\\ufffd"]'
