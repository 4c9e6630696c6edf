"""How a command stops when it is asked to: SIGTERM unwinds it as Ctrl-C (SIGINT) does.

Python ends at once on SIGTERM, its default: no ``finally`` block, no ``with`` block's end
and no exit hook runs, so a temporary file would stay where it was written. While
:func:`terminated_as_exit` is in force, SIGTERM raises :class:`Terminated` instead, which
unwinds the command like Ctrl-C's ``KeyboardInterrupt`` and exits with status 143, as a
process ended by SIGTERM does.

>>> import os, signal
>>> try:
...     with terminated_as_exit():
...         os.kill(os.getpid(), signal.SIGTERM)
... except Terminated as e:
...     print("unwound, status", e.code)
unwound, status 143
>>> signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
True
"""
from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM received: raised so that the command unwinds as on Ctrl-C; its exit status is
    :attr:`code` (143).

    It is a :class:`KeyboardInterrupt`, which code that catches every other exception lets
    through. Python's doctest is such code: it catches all else that an example raises, to
    report it as that example's outcome. When this was a :class:`SystemExit`, a SIGTERM that
    came while ``check`` or ``build`` ran a clause's example made that example fail, and
    the command went on to its end and exited 0.

    >>> Terminated().code, isinstance(Terminated(), KeyboardInterrupt)
    (143, True)
    """

    #: the exit status of a process that SIGTERM ended
    code = 128 + signal.SIGTERM


@contextlib.contextmanager
def terminated_as_exit() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (in the main thread only:
    elsewhere signals are not this code's to handle, and the block runs as it is)."""
    def stop(signum, _frame):
        raise Terminated(signal.Signals(signum).name)
    try:
        old = signal.signal(signal.SIGTERM, stop)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)
