"""What harmony may run of a rules folder: the ``--untrusted`` switch.

A harmony is code as well as data. A clause's ``examples:`` are Python (doctest
``>>>`` lines): ``harmony check --coverage``, ``harmony build`` and ``harmony serve``
run them to learn which rules they exercise, as Sphinx's doctest and pytest run
theirs, with the rights of the user who runs harmony. Scenarios are data that the
engine plays (no Python of the folder's own): they are played either way.

:class:`Trust` says what may run, and is passed down to the code that would run it
(:func:`harmony.coverage.coverage_of`, the site's coverage page): a folder whose
change is under review is read with ``--untrusted`` (or ``HARMONY_UNTRUSTED=1`` in
the environment, for CI), and then none of its code runs: not its examples, and not
any code of its own that a later harmony may load from the folder (a game module),
which must ask :attr:`Trust.runs_code` first. What the examples would have shown is
then marked as not run, never guessed.

>>> Trust.of(untrusted=True, environ={}).runs_code, Trust.of(False, {}).runs_code
(False, True)
>>> Trust.of(False, {"HARMONY_UNTRUSTED": "1"}).note
'the clause examples were not run (HARMONY_UNTRUSTED is set)'
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

#: Set (to anything but ``""`` or ``0``) to read every folder as untrusted, for CI.
ENV = "HARMONY_UNTRUSTED"
FLAG = "--untrusted"


@dataclass(frozen=True)
class Trust:
    """Whether the Python of a rules folder may run, and, when not, who said so."""

    #: the folder's examples (and any code of its own) may run
    runs_code: bool = True
    #: what asked for an untrusted read: ``--untrusted`` or ``HARMONY_UNTRUSTED is set``
    why: str = ""

    @classmethod
    def of(cls, untrusted: bool = False, environ: Mapping[str, str] | None = None) -> "Trust":
        """The trust a command runs with: untrusted when the flag is given or the
        environment variable :data:`ENV` is set to anything but ``""`` or ``0`` (a value
        that is unclear, ``no`` say, counts as set: when in doubt, run nothing).

        >>> Trust.of(False, {"HARMONY_UNTRUSTED": "0"}), Trust.of(False, {"HARMONY_UNTRUSTED": "no"}).why
        (Trust(runs_code=True, why=''), 'HARMONY_UNTRUSTED is set')
        >>> Trust.of(True, {"HARMONY_UNTRUSTED": "1"}).why
        '--untrusted'
        """
        env = os.environ if environ is None else environ
        if untrusted:
            return cls(False, FLAG)
        if env.get(ENV, "").strip() not in ("", "0"):
            return cls(False, f"{ENV} is set")
        return cls()

    @property
    def note(self) -> str:
        """One line for a command's summary, "" when everything ran."""
        return "" if self.runs_code else f"the clause examples were not run ({self.why})"

    @property
    def mark(self) -> str:
        """What the site shows where an example's ruling would be.

        >>> Trust(False, "--untrusted").mark
        'not run (built with --untrusted)'
        >>> Trust(False, "HARMONY_UNTRUSTED is set").mark
        'not run (built with HARMONY_UNTRUSTED set)'
        """
        if self.runs_code:
            return ""
        how = self.why if self.why == FLAG else self.why.replace(" is set", " set")
        return f"not run (built with {how})"


#: Everything may run: a folder the user wrote or trusts (the default).
TRUSTED = Trust()


def add_argument(p) -> None:
    """The ``--untrusted`` option of ``check``, ``build`` and ``serve``."""
    p.add_argument(FLAG, action="store_true",
                   help="run none of the folder's own Python (its clause examples), for "
                        "reviewing a change you did not write; the report and the site say what "
                        f"was not run (also: {ENV}=1)")
