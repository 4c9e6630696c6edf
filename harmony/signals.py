"""How a command stops when it is asked to: SIGTERM unwinds it as Ctrl-C (SIGINT) does.

Python ends at once on SIGTERM, its default: no ``finally`` block, no ``with`` block's end
and no exit hook runs, so a temporary file would stay where it was written. While
:func:`terminated_as_exit` is in force, SIGTERM raises :class:`Terminated` instead, which
unwinds the command like Ctrl-C's ``KeyboardInterrupt`` and exits with status 143, as a
process ended by SIGTERM does.

>>> import os, signal
>>> with terminated_as_exit():
...     os.kill(os.getpid(), signal.SIGTERM)
Traceback (most recent call last):
...
harmony.signals.Terminated: 143
>>> signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
True
"""
from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


class Terminated(SystemExit):
    """SIGTERM received: raised so that the command unwinds (exit status 143)."""


@contextlib.contextmanager
def terminated_as_exit() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (in the main thread only:
    elsewhere signals are not this code's to handle, and the block runs as it is)."""
    def stop(signum, _frame):
        raise Terminated(128 + signum)
    try:
        old = signal.signal(signal.SIGTERM, stop)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)
