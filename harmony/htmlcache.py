"""The HTML parser under WeasyPrint, told to keep what it works out once.

WeasyPrint reads HTML with tinyhtml5. Its input stream keeps, for each set of characters a
tokenizer state reads up to, the regular expression that finds them; but tinyhtml5 2.1.0
files each expression under the expression itself instead of under the set it was made for
(``characters = cache[(characters, opposite)] = regex`` binds ``characters`` first), so no
lookup ever finds one, and every attribute name, every run of text, builds its expression
again: half of the parse, about a twentieth of printing a rulebook.

:func:`install` gives the stream a cache that makes the expression on a miss and files it
under the key it was asked for: the same expression the stream would have built (the same
characters, the same order), so the parse is the same, once. It is idempotent, and does
nothing where tinyhtml5 is missing or keeps its cache elsewhere. :func:`document` is how
harmony hands HTML to WeasyPrint: the cache installed first.

>>> install(), install()
(True, True)
>>> from tinyhtml5 import inputstream
>>> before = len(inputstream.characters_until_regex)
>>> _ = inputstream.characters_until_regex[(frozenset("ab"), True)]
>>> _ = inputstream.characters_until_regex[(frozenset("ab"), True)]
>>> len(inputstream.characters_until_regex) - before
1
>>> inputstream.characters_until_regex[(("<", "&"), False)].pattern
'[^\\\\x3c\\\\x26]+'
"""
from __future__ import annotations

import re
from typing import Any


class _Expressions(dict):
    """tinyhtml5's cache of ``chars_until`` expressions, filled under the key asked for."""

    def __missing__(self, key: tuple[Any, bool]) -> re.Pattern:
        characters, opposite = key
        # as tinyhtml5.inputstream.HTMLInputStream.chars_until builds it
        regex = "".join([f"\\x{ord(character):02x}" for character in characters])
        if not opposite:
            regex = f"^{regex}"
        compiled = re.compile(f"[{regex}]+")
        self[key] = compiled
        return compiled


def install() -> bool:
    """Give tinyhtml5's input stream the cache of :class:`_Expressions`; whether it has one."""
    try:
        from tinyhtml5 import inputstream
    except ImportError:
        return False
    found = getattr(inputstream, "characters_until_regex", None)
    if isinstance(found, _Expressions):
        return True
    if not isinstance(found, dict):
        return False
    inputstream.characters_until_regex = _Expressions(found)
    return True


def document(html: str, base_url: str | None = None):
    """WeasyPrint's ``HTML`` of the string ``html``, read with the cache of :func:`install`."""
    from weasyprint import HTML
    install()
    return HTML(string=html, base_url=base_url)
