"""The limits every reading of a rules file keeps: its size, its nesting, its numbers.

The loader (:mod:`harmony.loader`, :mod:`harmony.ccompose`) refuses a file past them,
and the ruling explorer reads a position by the same limits; they live here, apart
from the YAML readers, so that a reader of positions needs no YAML library.
"""
from __future__ import annotations

#: The largest file read, in bytes: a rules file is tens of kilobytes.
MAX_BYTES = 1_000_000
#: Deeper than this, the round-trip reader refuses the file.
MAX_DEPTH = 40
#: More digits than this in a number, the round-trip reader refuses it.
MAX_DIGITS = 100
