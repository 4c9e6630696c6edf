"""Units and their state: side, kind, weapon class, factors, face, dispersal, markers.

>>> u = Unit.from_data({"id": "mg", "side": "Soviet", "kind": "infantry", "class": "I",
...                     "attack": 8, "range": 6, "defence": 4, "movement": 0, "at": "C3"})
>>> u.direct_fire, u.indirect_fire, u.transport, u.dispersed
(True, False, False, False)
>>> u.apply_result("D"); u.dispersal, u.dispersed
('D', True)
>>> u.apply_result("DD"); u.eliminated
True
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .hexgrid import Hex, label

#: Kinds that some rulebooks bar from spotting (trucks and wagons).
TRANSPORT_KINDS = frozenset({"truck", "wagon"})
KINDS = ("armoured", "infantry", "gun", "truck", "wagon", "halftrack", "carrier", "other")

#: Weapon classes: (direct fire, indirect fire). H, (H) and M may fire
#: indirectly; (H) only indirectly. C(I) is a class of its own, not C.
WEAPON_CLASSES: dict[str, tuple[bool, bool]] = {
    "A": (True, False),
    "H": (True, True),
    "(H)": (False, True),
    "M": (True, True),
    "I": (True, False),
    "C": (True, False),
    "C(I)": (True, False),
}

MARKERS = ("spotted", "opportunity-spotted", "opportunity-fire")
RESULTS = ("none", "D", "DD", "X")


@dataclass
class Unit:
    """One counter on the board and its state."""

    id: str
    side: str
    kind: str
    weapon: str
    attack: int
    range: int
    defence: int
    movement: int
    hex: Hex
    name: str = ""
    face_up: bool = True
    dispersal: str = "none"          # none | D | DD
    eliminated: bool = False
    loaded_in: str | None = None
    markers: set[str] = field(default_factory=set)
    registration: list[Hex] = field(default_factory=list)
    may_opfire: bool = True
    #: player turn number in which the unit was last dispersed (for recovery)
    dispersed_in: int = 0

    @classmethod
    def from_data(cls, d: dict, hex_of=None) -> "Unit":
        """Build from a scenario's unit mapping; ``hex_of`` turns a label into a Hex."""
        from .hexgrid import parse_label
        hex_of = hex_of or (lambda text, path=(): parse_label(text))
        if d["class"] not in WEAPON_CLASSES:
            raise ValueError(f"unknown weapon class {d['class']!r} (expected one of "
                             f"{', '.join(WEAPON_CLASSES)})")
        if d.get("dispersal", "none") not in ("none", "D", "DD"):
            raise ValueError(f"unknown dispersal {d['dispersal']!r} (expected none, D or DD)")
        return cls(
            id=d["id"], side=d["side"], kind=d["kind"], weapon=d["class"],
            attack=int(d["attack"]), range=int(d["range"]), defence=int(d["defence"]),
            movement=int(d["movement"]), hex=hex_of(d["at"], ("at",)), name=d.get("name", d["id"]),
            face_up=d.get("face", "up") == "up", dispersal=d.get("dispersal", "none"),
            loaded_in=d.get("loaded-in"), markers=set(d.get("markers") or []),
            registration=[hex_of(x, ("registration", i)) for i, x in enumerate(d.get("registration") or [])],
            may_opfire=bool(d.get("opportunity-fire", True)),
        )

    @property
    def direct_fire(self) -> bool:
        return WEAPON_CLASSES[self.weapon][0] and self.attack > 0

    @property
    def indirect_fire(self) -> bool:
        return WEAPON_CLASSES[self.weapon][1] and self.attack > 0

    @property
    def transport(self) -> bool:
        return self.kind in TRANSPORT_KINDS

    @property
    def dispersed(self) -> bool:
        return self.dispersal != "none"

    @property
    def loaded(self) -> bool:
        return self.loaded_in is not None

    def apply_result(self, result: str, turn: int = 0) -> None:
        """Apply a given combat outcome: D disperses, DD disperses twice (and
        eliminates a unit already dispersed), X eliminates."""
        if result not in RESULTS:
            raise ValueError(f"unknown combat result {result!r} (expected one of {', '.join(RESULTS)})")
        if result == "none":
            return
        if result == "X" or (result == "DD" and self.dispersed):
            self.eliminated = True
            self.markers.clear()
            return
        if result == "DD":
            self.dispersal = "DD"
        elif not self.dispersed:
            self.dispersal = "D"
        self.dispersed_in = turn

    def state(self) -> dict:
        """Plain data for snapshots and diagrams."""
        return {"id": self.id, "name": self.name, "side": self.side, "kind": self.kind,
                "class": self.weapon, "at": "eliminated" if self.eliminated else label(self.hex),
                "face": "up" if self.face_up else "down", "dispersal": self.dispersal,
                "markers": sorted(self.markers), "loaded-in": self.loaded_in,
                "registration": [label(h) for h in self.registration]}
