"""The ``harmony`` command line.

Exit codes: 0 all well, 1 problems found, 2 usage error (bad arguments or a
path that does not exist). Problems go to stderr as ``path:line:col``.

A failure the commands do not foresee (a file system error, a bug) is one
line on stderr and exit 1, never a traceback; set ``HARMONY_DEBUG=1`` to see
the traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path

from . import __version__

#: subcommand name -> (help, add_arguments, run)
COMMANDS: dict[str, tuple] = {}


def command(name: str, help: str):
    def register(add_arguments):
        def wrap(run):
            COMMANDS[name] = (help, add_arguments, run)
            return run
        return wrap
    return register


def default_rules_data() -> Path:
    """The shipped rules_data: beside the package in a checkout, else ./rules_data."""
    here = Path(__file__).resolve().parent.parent / "rules_data"
    return here if here.is_dir() else Path("rules_data")


def rules_path(value: str | None) -> Path:
    path = Path(value) if value else default_rules_data()
    if not path.exists():
        raise UsageError(f"no such file or folder: {path}")
    if not (path.is_file() or path.is_dir()):
        raise UsageError(f"{path} is neither a file nor a folder")
    return path


def yaml_path(value: str | None) -> Path:
    """:func:`rules_path`, refusing a folder without a single YAML file (a wrong path,
    most likely, that would otherwise pass every check)."""
    from .loader import yaml_files
    path = rules_path(value)
    if path.is_dir() and not yaml_files(path):
        raise UsageError(f"no YAML files (.yaml, .yml) in {path}: is this the rules_data folder?")
    return path


class UsageError(Exception):
    pass


def _path_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", help="a rules_data folder or one YAML file "
                   "(default: the shipped rules_data)")


# ------------------------------------------------------------------ check
def _check_args(p):
    _path_arg(p)
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (path:line:col: severity: message [code]) or json")


@command("check", "report every problem in rules_data")(_check_args)
def run_check(args) -> int:
    from .check import check_path
    _, report = check_path(yaml_path(args.path))
    if args.format == "json":
        sys.stdout.write(report.to_json())
    else:
        text = report.to_text()
        (sys.stderr if report.diagnostics else sys.stdout).write(
            text if report.diagnostics else report.summary() + "\n")
    return 1 if report.errors else 0


# ------------------------------------------------------------------ fmt
def _fmt_args(p):
    _path_arg(p)
    p.add_argument("--check", action="store_true",
                   help="change nothing; exit 1 if a file is not formatted")


@command("fmt", "normalize key order and layout of rules_data files")(_fmt_args)
def run_fmt(args) -> int:
    from .fmt import fmt_path
    res = fmt_path(str(yaml_path(args.path)), check=args.check)
    for doc in res.failed:
        for d in doc.report.sorted():
            print(d, file=sys.stderr)
    verb = "would reformat" if args.check else "reformatted"
    for path in res.changed:
        print(f"{verb} {path}", file=sys.stderr if args.check else sys.stdout)
    done = "need formatting" if args.check else "reformatted"
    print(f"{len(res.changed)} of {res.files} files {done}"
          + (f", {len(res.failed)} not read (fix their errors first)" if res.failed else ""))
    if res.failed or (args.check and res.changed):
        return 1
    return 0


def parser() -> argparse.ArgumentParser:
    import harmony.commands  # noqa: F401  (registers the commands of other modules)
    p = argparse.ArgumentParser(prog="harmony", description="The rulebooks of the PanzerBlitz "
                                "family as structured clauses: check, format, build, print.")
    p.add_argument("--version", action="version", version=f"harmony {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    p.subcommands = {}
    for name, (help, add_arguments, _run) in COMMANDS.items():
        sp = p.subcommands[name] = sub.add_parser(name, help=help, description=help)
        add_arguments(sp)
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args, extra = p.parse_known_args(argv)
    if extra:
        # an unknown option after the command is reported with that command's usage line
        given = sys.argv[1:] if argv is None else list(argv)
        after = args.command in given and extra[0] in given and \
            given.index(extra[0]) > given.index(args.command)
        (p.subcommands[args.command] if after else p).error(
            f"unrecognized arguments: {' '.join(extra)}")
    if not args.command:
        p.print_help(sys.stderr)
        return 2
    try:
        return COMMANDS[args.command][2](args)
    except UsageError as e:
        print(f"harmony {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (e.g. `| head`): nothing more to say
        _quiet_stdout()
        return 1
    except Exception as e:  # noqa: BLE001 - the last net: one clear line, no traceback
        if os.environ.get("HARMONY_DEBUG"):
            raise
        print(f"harmony {args.command}: error: {_describe(e)}", file=sys.stderr)
        return 1


def _describe(e: Exception) -> str:
    """One line for an unforeseen failure.

    >>> _describe(PermissionError(13, "Permission denied", "out/site"))
    'out/site: Permission denied'
    """
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename}: {e.strerror}" if e.filename else e.strerror
    where = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
    at = f" at {os.path.basename(where.filename)}:{where.lineno}" if where else ""
    return (f"internal error ({type(e).__name__}: {e}{at}); please report it, with the "
            "traceback that HARMONY_DEBUG=1 shows")


def _quiet_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
