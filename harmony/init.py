"""``harmony init DIR``: start a new harmony from the starter folder the package ships.

The starter (``harmony/starter/``, see :func:`harmony.resources.starter`) is
the smallest harmony that uses every kind of file: two sources (two editions
of an invented game), a topic, a clause whose cells set a parameter and carry
an example that runs on the rules engine, the parameters the engine reads for
it, a glossary term and a scenario. It passes ``harmony check``, ``harmony fmt
--check``, ``python3 -m pytest --harmony-rules DIR`` and ``harmony build`` as
it is; the comments at the top of each file say what to change. ``--starter dice``
starts instead from a dice game's harmony (``harmony/starter_dice/``) that brings its
own game module (``tumble.py``: see the authoring guide, "Your own game, step by step").
Either writes a ``.gitignore`` for what the commands write (``build/``).

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     made = create(Path(tmp) / "my-rules")
...     [p.relative_to(Path(tmp)).as_posix() for p in made][:2]
['my-rules/.github/workflows/harmony.yml', 'my-rules/.gitignore']
"""
from __future__ import annotations

import sys
from pathlib import Path

from . import outdir
from .resources import STARTERS, starter
from .usage import UsageError

#: what a starter holds: its YAML files, a game module, hand-written pages, and the
#: ``.gitignore`` that keeps the build's output out of the harmony's repository
SUFFIXES = (".yaml", ".yml", ".py", ".rst")
NAMES = (".gitignore",)


def starter_files(name: str = "hex") -> list[Path]:
    """The files of starter ``name`` (:data:`harmony.resources.STARTERS`), relative to its
    folder, in path order.

    >>> [p.as_posix() for p in starter_files()]  # doctest: +NORMALIZE_WHITESPACE
    ['.github/workflows/harmony.yml', '.gitignore', 'glossary.yaml', 'parameters.yaml',
     'scenarios/dispersed-spotter.yaml', 'sources.yaml', 'spotting.yaml', 'topics.yaml']
    >>> [p.as_posix() for p in starter_files("dice")]  # doctest: +NORMALIZE_WHITESPACE
    ['.github/workflows/harmony.yml', '.gitignore', 'glossary.yaml', 'parameters.yaml',
     'scenarios/three-throws.yaml', 'scoring.yaml', 'sources.yaml', 'topics.yaml', 'tumble.py']
    """
    root = starter(name)
    return sorted((p.relative_to(root) for p in root.rglob("*")
                   if p.is_file() and (p.suffix in SUFFIXES or p.name in NAMES)
                   and "__pycache__" not in p.parts), key=lambda p: p.as_posix())


def create(dest: Path, name: str = "hex") -> list[Path]:
    """Copy the starter into ``dest`` (created if missing); the files written, in path order.

    Refuses, with a :class:`~harmony.usage.UsageError`, a ``dest`` that is a
    file or a folder with anything in it, a symbolic link to nothing, a path under
    a file, and any folder :func:`harmony.outdir.folder` never writes: nothing of
    yours is overwritten. A full disk is a :class:`harmony.outdir.WriteFailed`.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "notes.txt").write_text("mine")
    ...     create(Path(tmp))
    Traceback (most recent call last):
    ...
    harmony.usage.UsageError: ... is not empty: harmony init starts a new folder ...
    """
    if dest.exists() and not dest.is_dir():
        raise UsageError(f"{dest} is a file: harmony init needs a new or empty folder")
    if dest.is_dir() and any(dest.iterdir()):
        raise UsageError(f"{dest} is not empty: harmony init starts a new folder "
                         "(give a new or empty one)")
    outdir.folder(dest, "new", "")
    root = starter(name)
    written = []
    for rel in starter_files(name):
        target = dest / rel
        with outdir.writing(target):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((root / rel).read_bytes())
        written.append(target)
    return written


def init_args(p) -> None:
    p.add_argument("dir", metavar="DIR", help="the folder to create (new, or empty)")
    p.add_argument("--starter", choices=sorted(STARTERS), default="hex",
                   help="what to start from: hex, two editions of an invented hex wargame "
                   "played by the built-in engine (the default); dice, two editions of an "
                   "invented dice game with its own game module, tumble.py")


def run_init(args) -> int:
    dest = Path(args.dir)
    try:
        made = create(dest, args.starter)
    except outdir.WriteFailed as e:
        print(f"harmony init: error: {e}", file=sys.stderr)
        return 1
    print(f"created {dest} ({len(made)} files: "
          + ", ".join(p.relative_to(dest).as_posix() for p in made) + ")")
    print("next, edit the files (each says what it holds) and run:\n"
          f"  harmony check {dest}\n"
          f"  python3 -m pytest --harmony-rules {dest}\n"
          f"  harmony build {dest}")
    return 0
