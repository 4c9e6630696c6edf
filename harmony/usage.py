"""Usage errors and the paths users give on the command line.

A :class:`UsageError` is the user's mistake in calling a command (a path that
does not exist, a folder with no rules in it, a bad option value): the CLI
prints it as one line ``harmony COMMAND: error: ...`` and exits 2. Command
modules raise it; they never import :mod:`harmony.cli`.

Every command reads the rules path it is given through :func:`rules_arg`, so
a wrong path gets the same words whatever the command:

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     rules_arg(d)
Traceback (most recent call last):
...
harmony.usage.UsageError: no YAML files (.yaml, .yml) in ...: is this the rules_data folder?
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import printable_name
from .loader import MAX_BYTES, YAML_SUFFIXES, read_checked, scan_folder


class UsageError(Exception):
    r"""A command called wrongly: one line for the user, exit code 2. A path in it is shown
    printable (a byte that is not UTF-8 as ``\xNN``, a control character as its escape).

    >>> str(UsageError("no such file or folder: caf\udce9\x1b[2J"))
    'no such file or folder: caf\\xe9\\x1b[2J'
    """

    def __init__(self, message: str):
        super().__init__(printable_name(str(message)))


def default_rules_data() -> Path:
    """The rules a command reads when given no path: the harmony in the current folder
    (:func:`harmony_here`), else the shipped rules_data when running from a checkout, else
    ./rules_data (an installed package ships no rules of its own: ``harmony init`` starts
    a folder, and the error names the folder looked for)."""
    from .resources import checkout_root
    top = checkout_root()
    shipped = top / "rules_data" if top is not None and (top / "rules_data").is_dir() else None
    here = harmony_here()
    if here is not None and (shipped is None or here.resolve() != shipped.resolve()):
        return here
    return shipped if shipped is not None else Path("rules_data")


def harmony_here(folder: Path | None = None) -> Path | None:
    """The harmony in ``folder`` (default: the current one): the folder itself when one of
    its own YAML files has a top-level ``sources:``, else its ``rules_data/`` when that
    has; None when neither has. Only the files' text is scanned, nothing is parsed.

    >>> harmony_here(default_rules_data()) == default_rules_data()
    True
    >>> harmony_here(Path(default_rules_data()) / "scenarios") is None
    True
    """
    here = Path(".") if folder is None else folder
    for candidate in (here, here / "rules_data"):
        try:
            own = sorted(p for p in candidate.iterdir() if p.suffix in YAML_SUFFIXES and p.is_file())
        except OSError:
            continue
        if any(_mentions_sources(p) for p in own):
            return candidate
    return None


def harmony_title(root: Path) -> str | None:
    """The title of the harmony in ``root`` (its ``harmony:`` mapping's ``title``), read
    from the top-level files that have a ``harmony:`` key; None when it has none or the
    file does not read.

    >>> harmony_title(default_rules_data())
    'PanzerBlitz rules harmony'
    """
    for p in sorted(root.iterdir()) if root.is_dir() else [root]:
        if p.suffix not in YAML_SUFFIXES or not p.is_file():
            continue
        try:
            with open(p, "rb") as f:
                if not _HARMONY_KEY.search(f.read(MAX_BYTES + 1)):
                    continue
        except OSError:
            continue
        tree = read_checked(p)[0].tree
        who = tree.get("harmony") if isinstance(tree, dict) else None
        title = who.get("title") if isinstance(who, dict) else None
        if isinstance(title, str) and title.strip():
            return " ".join(title.split())
    return None


@dataclass(frozen=True)
class Rules:
    """What a command reads, from the path the user gave.

    ``root`` is what to load: a rules folder, or a file that stands alone.
    ``only`` is the one file the user named inside that folder, when they
    named a file: the folder is loaded so that its references resolve, and
    the command reports (formats, prints) that file alone.
    """

    root: Path
    only: Path | None = None

    @property
    def given(self) -> Path:
        """The path as the user means it: the one file, else the root."""
        return self.only or self.root


def rules_arg(value: str | Path | None, *, folder: bool = False) -> Rules:
    """The rules a command reads from the path the user gave (default: the shipped
    rules_data), or a :class:`UsageError` saying what is wrong with the path.

    Refused: a path that does not exist or is neither a file nor a folder; a
    file that is not ``.yaml``/``.yml`` (or any file, with ``folder=True``);
    a folder without a YAML file, or with more than :data:`harmony.loader.MAX_ENTRIES`
    files and folders (``/``, a home folder: found out before walking it all); rules
    that define no sources in a file of their own top folder (when a file that might
    define them cannot be read, the command goes on and reports that file's
    positioned errors instead).

    A single file is read within its rules folder: the nearest folder above it
    that holds a file defining ``sources:``. A file that defines sources itself
    stands alone, as does a file that cannot be read (its problems are its own).

    >>> r = rules_arg(default_rules_data() / "spotting.yaml")
    >>> (r.root.name, r.only.name)
    ('rules_data', 'spotting.yaml')
    >>> rules_arg(default_rules_data() / "sources.yaml").only is None
    True
    >>> rules_arg(default_rules_data() / "spotting.yaml", folder=True)
    Traceback (most recent call last):
    ...
    harmony.usage.UsageError: .../spotting.yaml is not a folder: give a rules_data folder
    """
    path = Path(value) if value else default_rules_data()
    if not path.exists():
        raise UsageError(f"no such file or folder: {path}")
    if not (path.is_file() or path.is_dir()):
        raise UsageError(f"{path} is neither a file nor a folder")
    if path.is_file():
        if folder:
            raise UsageError(f"{path} is not a folder: give a rules_data folder")
        if path.suffix not in YAML_SUFFIXES:
            raise UsageError(f"{path} is not a YAML file (.yaml, .yml): give a rules_data "
                             "folder or one of its YAML files")
        home = None if _defines_sources(path) is not False else rules_folder_of(path)
        rules = Rules(home, path) if home is not None else Rules(path)
    else:
        scan = scan_folder(path)
        if not scan.complete:
            raise UsageError(f"{path} holds more than {scan.limit:,} files and folders: a rules "
                             "folder holds far fewer; is this the rules_data folder?")
        if not scan.files:
            raise UsageError(f"no YAML files (.yaml, .yml) in {path}: is this the rules_data "
                             "folder?")
        rules = Rules(path)
    if not has_sources(rules.root):
        raise UsageError(f"no sources defined in {rules.given}: rules name their sources "
                         "(sources: in one of the folder's files); is this the rules_data folder?")
    return rules


#: a top-level ``sources:`` key, found without parsing (a mapping key at column 0)
_SOURCES_KEY = re.compile(rb"^(?:\{[ \t]*)?[\"']?sources[\"']?[ \t]*:", re.M)


#: a top-level ``harmony:`` key (the harmony's identity), found the same way
_HARMONY_KEY = re.compile(rb"^(?:\{[ \t]*)?[\"']?harmony[\"']?[ \t]*:", re.M)


def _mentions_sources(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return bool(_SOURCES_KEY.search(f.read(MAX_BYTES + 1)))
    except OSError:
        return False


def _defines_sources(path: Path) -> bool | None:
    """True when the file defines ``sources:``, False when it reads and does not,
    None when it cannot be read (it might, once fixed)."""
    if _mentions_sources(path):
        return True
    doc = read_checked(path)[0]
    if doc.tree is None:
        return None
    return isinstance(doc.tree, dict) and "sources" in doc.tree


def has_sources(root: Path) -> bool:
    """False only when every YAML file at the top of ``root`` (in the folder itself, not
    in its subfolders: where :func:`rules_folder_of` looks too) reads and none defines
    sources. A folder that is not a rules folder (``/``, a home folder, a folder of
    checkouts) is told apart by listing that one folder, however much lies below it.

    A cheap scan first; the files are parsed (through the loader's cache) only
    when no file has a ``sources:`` key at the start of a line.
    """
    files = _own_yaml_files(root)
    if any(_mentions_sources(p) for p in files):
        return True
    return any(_defines_sources(p) is not False for p in files)


def _own_yaml_files(folder: Path) -> list[Path]:
    """The YAML files in ``folder`` itself (or the one file, when it is a file)."""
    if folder.is_file():
        return [folder]
    try:
        return sorted(p for p in folder.iterdir() if p.suffix in YAML_SUFFIXES and p.is_file())
    except OSError:
        return []


def rules_folder_of(file: Path) -> Path | None:
    """The rules folder ``file`` belongs to: the folder holding it, or the one above
    that (for ``scenarios/``), whichever is nearer and has a file of its own with a
    top-level ``sources:`` key; None when neither has.

    >>> rules_folder_of(default_rules_data() / "scenarios" / "rev-figure-1.yaml").name
    'rules_data'
    """
    for folder in (file.parent, file.parent.parent if file.parent.name else file.resolve().parent.parent):
        if any(_mentions_sources(p) for p in _own_yaml_files(folder)):
            return folder
    return None
