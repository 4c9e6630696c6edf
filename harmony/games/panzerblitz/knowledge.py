"""Knowledge per side: what one player's own board shows, computed from the true state.

Under a referee (Double-Blind PanzerBlitz) a player sees his own units and,
of the enemy, only what the referee has shown him. Nothing here is stored by
hand: :func:`view` derives a side's :class:`View` from the game's true state
and the referee's record of what it showed (:class:`Shown` events, each with
the ruling that decided it):

* own units, where they truly are;
* enemy units shown at the last spotting step or since (a unit that stopped
  one of his units), at the hex where they were shown, while they live;
* blocks and mines shown to him (they never move, so once shown they stay);
* reports of fire from unseen units since the last spotting step: the
  strength, the type and the hex of the fire, never the firing unit.

>>> from harmony.rulings import Ruling
>>> events = [Shown(0, "German", "unit", "gun", "B2", Ruling(True, ["double-blind.spotting-step"])),
...           Shown(1, "German", "block", "C3", "C3", Ruling(True, ["double-blind.after-movement"]))]
>>> class G:   # the smallest stand-in for a game: its live units
...     def alive(self): return []
>>> v = view(G(), events, "German", epoch=0)
>>> v.as_data()
{'side': 'German', 'enemy': [], 'blocks': ['C3'], 'mines': [], 'reports': []}
>>> v.reasons
['double-blind.after-movement']
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .hexgrid import label
from harmony.rulings import Ruling

#: the kinds of thing a referee shows a side
THINGS = ("unit", "block", "mines", "report")


@dataclass(frozen=True)
class Shown:
    """The referee showed ``thing`` (a unit id, a hex, a report) to ``side`` in spotting
    epoch ``epoch`` (the number of spotting steps before it), at hex ``at``, by ``ruling``."""

    epoch: int
    side: str
    kind: str
    thing: Any
    at: str
    ruling: Ruling = field(compare=False)


@dataclass
class View:
    """One side's board: its own units, and what it knows of the enemy."""

    side: str
    own: dict[str, str]                  # unit id -> hex
    enemy: dict[str, str]                # unit id -> hex where shown
    blocks: list[str]
    mines: list[str]
    reports: list[dict]
    rulings: list[Ruling]

    @property
    def reasons(self) -> list[str]:
        return sorted({c for r in self.rulings for c in r.reasons})

    def as_data(self) -> dict:
        """What the side knows of the enemy, as plain data (sorted)."""
        return {"side": self.side,
                "enemy": [{"unit": u, "at": h} for u, h in sorted(self.enemy.items())],
                "blocks": sorted(self.blocks), "mines": sorted(self.mines),
                "reports": sorted(self.reports, key=lambda r: (r["from"], r["class"]))}

    def ruling(self) -> Ruling:
        settings: dict = {}
        for r in self.rulings:
            settings.update(r.settings)
        return Ruling(self.as_data(), self.reasons, settings, f"what the {self.side} board shows")


def view(game, events: list[Shown], side: str, epoch: int) -> View:
    """The board of ``side`` now: computed from the game and the referee's ``events``;
    ``epoch`` counts the spotting steps held so far (unit shows and reports of earlier
    epochs are out of date)."""
    alive = {u.id: u for u in game.alive()}
    own = {u.id: _hex(u) for u in alive.values() if u.side == side}
    enemy: dict[str, str] = {}
    blocks: set[str] = set()
    mines: set[str] = set()
    reports: list[dict] = []
    rulings: list[Ruling] = []
    for e in events:
        if e.side != side:
            continue
        if e.kind == "unit" and e.epoch == epoch and e.thing in alive:
            enemy[e.thing] = e.at
        elif e.kind == "block":
            blocks.add(e.at)
        elif e.kind == "mines":
            mines.add(e.at)
        elif e.kind == "report" and e.epoch == epoch:
            if e.thing not in reports:
                reports.append(e.thing)
        else:
            continue
        rulings.append(e.ruling)
    return View(side, own, enemy, sorted(blocks), sorted(mines), reports, rulings)


def _hex(u) -> str:
    return label(u.hex)


__all__ = ["Shown", "View", "view", "THINGS"]
