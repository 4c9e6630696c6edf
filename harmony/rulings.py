"""Rulings: an answer of the engine together with the clauses that decided it.

Every question the engine answers returns a :class:`Ruling`. While it works,
the engine reads parameters through a :class:`Why`, which remembers each
parameter consulted and so the clause that set it; the ruling's ``reasons``
are those clause ids, sorted. A parameter that no rulebook of the ruleset
sets (its declared default) is listed in ``settings`` but names no clause.

>>> from harmony.ruleset import Ruleset
>>> rs = Ruleset.from_values("X", {"opfire.enabled": False}, clause="opportunity-fire.rule")
>>> why = Why(rs)
>>> why.p("opfire.enabled")
False
>>> why.ruling([])
Ruling(value=[], reasons=['opportunity-fire.rule'])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .ruleset import Ruleset, Setting


@dataclass
class Ruling:
    """A value and the clause ids that decided it (``reasons``)."""

    value: Any
    reasons: list[str] = field(default_factory=list)
    #: the parameters consulted: name -> Setting (value, clause, cell, origin)
    settings: dict[str, Setting] = field(default_factory=dict, repr=False)
    #: a few words for humans on what decided it
    detail: str = field(default="", repr=False)

    def __bool__(self) -> bool:
        return bool(self.value)

    def as_data(self) -> dict:
        return {"value": self.value, "reasons": list(self.reasons), "detail": self.detail,
                "params": {n: {"value": str(s.value) if isinstance(s.value, Fraction) else s.value,
                               "cell": s.cell} for n, s in sorted(self.settings.items())}}


class Why:
    """Collects the parameters consulted while reaching one ruling."""

    def __init__(self, ruleset: Ruleset):
        self.ruleset = ruleset
        self.settings: dict[str, Setting] = {}

    def p(self, name: str) -> Any:
        """Read parameter ``name``, remembering that it was consulted."""
        s = self.ruleset.setting(name)
        self.settings[name] = s
        return s.value

    def add(self, other: "Why | Ruling | None") -> None:
        """Take in everything another reasoning consulted."""
        if other is not None:
            self.settings.update(other.settings)

    def child(self) -> "Why":
        return Why(self.ruleset)

    @property
    def reasons(self) -> list[str]:
        return sorted({s.clause for s in self.settings.values() if s.clause})

    def ruling(self, value: Any, detail: str = "") -> Ruling:
        return Ruling(value, self.reasons, dict(self.settings), detail)


def ruling_word(value: Any) -> str:
    """An engine ruling in a word or two, for the examples' scoreboard.

    >>> [ruling_word(v) for v in (True, False, None, [], "C3", ["spotted"], [{"drm": 0}], [{}, {}])]
    ['yes', 'no', 'none', 'none', 'C3', 'spotted', 'open', '2 open']
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == [] or value == {}:
        return "none"
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, dict) for v in value):
            return "open" if len(value) == 1 else f"{len(value)} open"
        return ", ".join(str(v) for v in value)
    return str(value)
