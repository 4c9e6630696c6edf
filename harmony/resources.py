"""Where the files the package ships besides its code are: templates, site sources, starters.

The repository keeps the Jinja2 templates (``templates/``) and the Sphinx
sources (``site/``: ``conf.py``, the hand-written pages, ``_static/``) at its
top level, beside the ``harmony`` package. The wheel ships them inside the
package, as ``harmony/templates`` and ``harmony/sitesrc`` (``package-dir`` in
``pyproject.toml``), so an installed harmony needs no checkout. Each function
here gives the folder wherever the code runs from: inside the package when it
is there (an installed wheel), else the top-level folder of the checkout (an
editable install, or ``PYTHONPATH`` pointing at a checkout).

>>> (templates() / "site" / "topic.rst.j2").is_file()
True
>>> (site_sources() / "conf.py").is_file(), (site_sources() / "_static").is_dir()
(True, True)
>>> (starter() / "sources.yaml").is_file()
True
>>> schema_file().name
'harmony.schema.json'
"""
from __future__ import annotations

from pathlib import Path

#: name inside the package (installed wheel) -> name at the top of a checkout
PACKAGED = {"templates": "templates", "sitesrc": "site"}


class ResourceMissing(FileNotFoundError):
    """A shipped folder is in neither place: a broken install."""


def package_dir() -> Path:
    """The ``harmony`` package's folder (a real folder: templates and Sphinx need paths; found
    from this module's file, without :mod:`importlib.resources`, which a quick ``harmony
    check`` need not import)."""
    return Path(__file__).parent


def checkout_root() -> Path | None:
    """The top of the source checkout this package runs from, or None for an installed wheel.

    A checkout is recognised by its ``pyproject.toml`` beside the package.
    """
    top = package_dir().parent
    return top if (top / "pyproject.toml").is_file() and (top / "harmony").is_dir() else None


def _shipped(name: str) -> Path:
    inside = package_dir() / name
    if inside.is_dir():
        return inside
    top = checkout_root()
    if top is not None and (top / PACKAGED[name]).is_dir():
        return top / PACKAGED[name]
    raise ResourceMissing(f"harmony is installed without its {PACKAGED[name]}/ folder "
                          f"(looked in {inside}); reinstall the package")


def templates() -> Path:
    """The Jinja2 templates: ``site/`` (the generated pages) and ``cards/`` (the rule cards)."""
    return _shipped("templates")


def site_sources() -> Path:
    """The Sphinx source folder: ``conf.py``, the hand-written pages and ``_static/``."""
    return _shipped("sitesrc")


#: The starters ``harmony init --starter NAME`` copies: name -> folder of the package.
STARTERS = {"hex": "starter", "dice": "starter_dice"}


def starter(name: str = "hex") -> Path:
    """The files ``harmony init`` copies: a minimal rules folder (always inside the package):
    the hex wargame's (``hex``, the default) or a dice game's with its own game module
    (``dice``).

    >>> (starter("dice") / "tumble.py").is_file()
    True
    """
    return package_dir() / STARTERS[name]


def schema_file() -> Path:
    """The JSON Schema of rules_data files (always inside the package)."""
    return package_dir() / "schema" / "harmony.schema.json"
