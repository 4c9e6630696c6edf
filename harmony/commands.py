"""The modules that add subcommands to the CLI, imported once so it sees them.

``harmony.cli`` defines ``check`` and ``fmt``; add a line here for each
module that registers another command with ``@command``.
"""
from . import cli  # noqa: F401  check, fmt
from .cards import command as _cards  # noqa: F401  cards (and the card-overflow check)
from . import diff as _diff  # noqa: F401  diff (rules_data between two revisions)
from .site import command as _site  # noqa: F401  build, serve
