"""Units and their state: side, kind, weapon class, factors, face, dispersal, markers.

A marker is a :class:`Marker`: its kind and the rulings that put it there and
kept it on, so it can say which clauses it stands for. A unit keeps its
markers by kind.

>>> u = Unit.from_data({"id": "mg", "side": "Soviet", "kind": "infantry", "class": "I",
...                     "attack": 8, "range": 6, "defence": 4, "movement": 0, "at": "C3"})
>>> u.direct_fire, u.indirect_fire, u.transport, u.dispersed
(True, False, False, False)
>>> u.apply_result("D"); u.dispersal, u.dispersed
('D', True)
>>> u.apply_result("DD"); u.eliminated
True
>>> s = Unit.from_data({"id": "t", "side": "German", "kind": "armoured", "class": "A", "attack": 8,
...                     "range": 6, "defence": 8, "movement": 6, "at": "D3", "markers": ["spotted"]})
>>> s.marked("spotted", "opportunity-spotted"), s.markers["spotted"].by_setup
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .hexgrid import Hex, label
from harmony.rulings import Ruling

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
#: the two sides of a spotted marker
SPOTTED_MARKERS = ("spotted", "opportunity-spotted")
RESULTS = ("none", "D", "DD", "X")


def _yes_no(value) -> bool | None:
    """A yes/no field of the unit data: a bool, or true/false/yes/no written as text; None
    when absent.

    >>> _yes_no(None), _yes_no(False), _yes_no("yes"), _yes_no("false")
    (None, False, True, False)
    """
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes"):
        return True
    if text in ("false", "no"):
        return False
    raise ValueError(f"expected true or false, not {value!r}")


@dataclass(frozen=True)
class Marker:
    """A marker on a unit and why it is there.

    ``placed`` is the ruling of the rule that put it on (``None``: the
    scenario's set-up did, no clause's doing); ``kept`` holds the rulings of
    the rules since applied that left it on; ``was`` is the marker it was
    before a rule turned it over (an opportunity spotted marker turned to its
    spotted side), with its own reasons.

    >>> from harmony.ruleset import Ruleset
    >>> from harmony.rulings import Why
    >>> why = Why(Ruleset.from_values("R", {"spot.markers": True}, clause="spotting.recording"))
    >>> why.p("spot.markers")
    True
    >>> m = Marker("spotted", why.ruling("spotted"))
    >>> m.placed_by, m.by_setup, m.describe()
    (['spotting.recording'], False, 'spotted marker placed by spotting.recording')
    >>> Marker("opportunity-fire").describe()
    'opportunity-fire counter placed by the set-up'
    """

    kind: str
    placed: Ruling | None = None
    kept: tuple[Ruling, ...] = ()
    was: "Marker | None" = None

    def __post_init__(self) -> None:
        if self.kind not in MARKERS:
            raise ValueError(f"unknown marker {self.kind!r} (expected one of {', '.join(MARKERS)})")

    @property
    def by_setup(self) -> bool:
        return self.placed is None

    @property
    def placed_by(self) -> list[str]:
        """The clauses of the rule that placed it (none for the set-up's)."""
        return list(self.placed.reasons) if self.placed is not None else []

    @property
    def kept_by(self) -> list[str]:
        return sorted({c for r in self.kept for c in r.reasons} - set(self.placed_by))

    @property
    def reasons(self) -> list[str]:
        """Every clause behind the marker: placing it, keeping it on, and what it was before."""
        return sorted({c for r in self.rulings() for c in r.reasons})

    def rulings(self) -> tuple[Ruling, ...]:
        """Every ruling behind the marker, its earlier side's included."""
        return (((self.placed,) if self.placed is not None else ()) + self.kept
                + (self.was.rulings() if self.was is not None else ()))

    def ruling(self) -> Ruling:
        """One ruling holding every parameter consulted to place and keep the marker."""
        settings = {}
        for r in self.rulings():
            settings.update(r.settings)
        return Ruling(self.kind, self.reasons, settings, self.describe())

    def keep(self, ruling: Ruling) -> "Marker":
        """The same marker, left on by one more rule."""
        return Marker(self.kind, self.placed, self.kept + (ruling,), self.was)

    def turned(self, kind: str, ruling: Ruling) -> "Marker":
        """The marker turned over to its side ``kind`` by a rule; what it was stays in ``was``."""
        return Marker(kind, ruling, (), self)

    def describe(self) -> str:
        noun = "counter" if self.kind == "opportunity-fire" else "marker"
        who = "the set-up" if self.by_setup else ", ".join(self.placed_by) or "a default (no clause)"
        text = f"{self.kind} {noun} placed by {who}"
        if self.was is not None:
            who = "the set-up" if self.was.by_setup else ", ".join(self.was.reasons)
            text = (f"{self.kind} {noun} turned over by {', '.join(self.placed_by)} from "
                    f"{self.was.kind} (by {who})")
        return text + (f", kept by {', '.join(self.kept_by)}" if self.kept_by else "")

    def as_data(self) -> dict:
        """Plain data for snapshots: the kind and the clauses behind it."""
        return {"kind": self.kind, "set-up": self.by_setup, "placed-by": self.placed_by,
                "kept-by": self.kept_by, "was": self.was.as_data() if self.was is not None else None}


#: Counts every change of any unit's hex or elimination, in any game: a game's index of its
#: units by hex (``Game.adjacent_enemies``) is rebuilt when the count has moved.
_PLACED = [0]


def placements() -> int:
    """How many times, so far, a unit was placed in a hex or eliminated (any unit, any game).

    >>> before = placements()
    >>> u = Unit("t", "German", "armoured", "A", 1, 1, 1, 1, Hex(0, 0))
    >>> u.hex = Hex(1, 0); u.face_up = False
    >>> placements() - before    # made (a hex, not eliminated), then moved; turning over is not one
    3
    """
    return _PLACED[0]


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
    #: the markers on the unit, by kind
    markers: dict[str, Marker] = field(default_factory=dict)
    registration: list[Hex] = field(default_factory=list)
    #: may it make opportunity fire (unit data, e.g. a unit function table); None: not given
    may_opfire: bool | None = None
    #: may make overrun attacks (as its game's unit function table says)
    may_overrun: bool = False
    #: player turn number in which the unit was last dispersed (for recovery)
    dispersed_in: int = 0

    def __setattr__(self, name: str, value) -> None:
        if name in ("hex", "eliminated"):
            _PLACED[0] += 1
        object.__setattr__(self, name, value)

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
            loaded_in=d.get("loaded-in"), markers={k: Marker(k) for k in d.get("markers") or []},
            registration=[hex_of(x, ("registration", i)) for i, x in enumerate(d.get("registration") or [])],
            may_opfire=_yes_no(d.get("opportunity-fire")),
            may_overrun=bool(_yes_no(d.get("overrun"))),
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

    def marked(self, *kinds: str) -> bool:
        """True when the unit carries a marker of one of ``kinds``."""
        return any(k in self.markers for k in kinds)

    def markers_of(self, *kinds: str) -> list[Marker]:
        """The unit's markers of ``kinds``, in that order."""
        return [self.markers[k] for k in kinds if k in self.markers]

    def place(self, marker: Marker) -> None:
        self.markers[marker.kind] = marker

    def unmark(self, *kinds: str) -> list[Marker]:
        """Take off the markers of ``kinds``; those it carried."""
        return [self.markers.pop(k) for k in kinds if k in self.markers]

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
                "markers": sorted(self.markers),
                "marker-reasons": [self.markers[k].as_data() for k in sorted(self.markers)],
                "loaded-in": self.loaded_in,
                "registration": [label(h) for h in self.registration]}
