"""The ``harmony`` command line.

Exit codes: 0 all well, 1 problems found, 2 usage error (bad arguments or a
path that does not exist). Problems go to stderr as ``path:line:col``.

A failure the commands do not foresee (a file system error, a bug) is one
line on stderr and exit 1, never a traceback; set ``HARMONY_DEBUG=1`` to see
the traceback.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from pathlib import Path

from typing import Callable, NamedTuple

from . import __version__, trust


def _path_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", help="a rules_data folder or one YAML file "
                   "(default: the harmony in the current folder, else ./rules_data)")


# ------------------------------------------------------------------ check
def check_args(p):
    _path_arg(p)
    p.add_argument("--format", choices=("text", "json", "github"), default="text",
                   help="text (path:line:col: severity: message [code]), json, or github "
                   "(GitHub Actions annotations, ::error file=...,line=...,col=...::message, "
                   "shown on the lines of a pull request)")
    p.add_argument("--coverage", action="store_true",
                   help="also report, per ruleset, which example or scenario question "
                        "exercises each rule cell, and warn at each cell nothing exercises")
    trust.add_argument(p)


def run_check(args) -> int:
    import json

    from . import game
    from .check import check_path
    from .usage import rules_arg
    may = trust.Trust.of(args.untrusted)
    rules = rules_arg(args.path)
    with game.reading_as(may):     # a game module of the folder loads only if it may run
        model, report = check_path(rules.root)
    if args.coverage and not report.incomplete:   # the one check that runs the examples
        from .coverage import check_coverage, coverage_of
        check_coverage(model, report, may)
    if not may.runs_code and not any(n.startswith(may.note) for n in report.notes):
        report.notes.append(may.note)
    if rules.only is not None:  # the folder is checked, so that references resolve; one file shown
        report = report.within(rules.only, rules.root)
    cov = coverage_of(model, may).within(rules.only) if args.coverage and not report.incomplete else None
    if args.format == "json":
        out = json.loads(report.to_json())
        if cov is not None:
            out["coverage"] = cov.as_data()
        sys.stdout.write(json.dumps(out, indent=2, sort_keys=True) + "\n")
    elif args.format == "github":
        from .annotations import to_github
        if cov is not None:
            sys.stdout.write(cov.to_text())
        sys.stdout.write(to_github(report))
    else:
        if cov is not None:
            sys.stdout.write(cov.to_text())
            sys.stdout.flush()
        text = report.to_text()   # with its notes when something was not run
        (sys.stderr if report.diagnostics else sys.stdout).write(
            text if report.diagnostics or not may.runs_code else report.summary() + "\n")
    return 1 if report.errors else 0


# ------------------------------------------------------------------ fmt
def fmt_args(p):
    _path_arg(p)
    p.add_argument("--check", action="store_true",
                   help="change nothing; exit 1 if a file is not formatted")


def run_fmt(args) -> int:
    from .fmt import fmt_path
    from .usage import rules_arg
    res = fmt_path(str(rules_arg(args.path).given), check=args.check)
    for doc in res.failed:
        for d in doc.report.sorted():
            print(d, file=sys.stderr)
    for line in res.write_failures():
        print(f"harmony fmt: error: {line}", file=sys.stderr)
    verb = "would reformat" if args.check else "reformatted"
    for path in res.changed:
        print(f"{verb} {path}", file=sys.stderr if args.check else sys.stdout)
    done = "need formatting" if args.check else "reformatted"
    print(f"{len(res.changed)} of {res.files} files {done}"
          + (f", {len(res.failed)} not read (fix their errors first)" if res.failed else "")
          + (f", {len(res.unwritten)} not written" if res.unwritten else ""))
    if res.failed or res.unwritten or (args.check and res.changed):
        return 1
    return 0


class Command(NamedTuple):
    """One subcommand: its name, one line of help, its arguments and what runs it."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def _lazy(module: str, name: str) -> Callable:
    """``module``'s function ``name``, imported when first called: a command imports what it
    needs when it runs (``harmony check`` never imports Sphinx, WeasyPrint or Jinja)."""
    def call(arg):
        return getattr(importlib.import_module(module, __package__), name)(arg)
    call.__name__ = call.__qualname__ = name
    return call


#: Every subcommand, in the order ``harmony --help`` lists them.
COMMANDS: tuple[Command, ...] = (
    Command("check", "report every problem in rules_data", check_args, run_check),
    Command("fmt", "normalize key order and layout of rules_data files", fmt_args, run_fmt),
    Command("build", "build the static site (Sphinx) from rules_data",
            _lazy(".site.command", "build_args"), _lazy(".site.command", "run_build")),
    Command("serve", "build the site and serve it on 127.0.0.1, rebuilding on change",
            _lazy(".site.command", "serve_args"), _lazy(".site.command", "run_serve")),
    Command("cards", "print rule cards (PDF) of the rulesets' short rules",
            _lazy(".cards.command", "cards_args"), _lazy(".cards.command", "run_cards")),
    Command("rulebook", "print one ruleset's full rules as a rulebook (PDF, or EPUB)",
            _lazy(".rulebook.command", "rulebook_args"), _lazy(".rulebook.command", "run_rulebook")),
    Command("diff", "what changed in rules_data between two revisions: text, parameters, rulings",
            _lazy(".diff.command", "diff_args"), _lazy(".diff.command", "run_diff")),
    Command("accept", "rewrite the expected rulings of scenarios that now play otherwise, "
            "saying each change", _lazy(".accept", "accept_args"), _lazy(".accept", "run_accept")),
    Command("init", "start a new harmony in a new folder: a minimal rules_data that passes "
            "every check", _lazy(".init", "init_args"), _lazy(".init", "run_init")),
)
BY_NAME = {c.name: c for c in COMMANDS}


class Parser(argparse.ArgumentParser):
    """The harmony command line; ``subcommands`` holds each command's own parser by name.
    Its help ends with what :func:`_here` says of the current folder, found out only when
    the help is shown (it reads the harmony's title)."""

    subcommands: dict[str, argparse.ArgumentParser]

    def format_help(self) -> str:
        if self.epilog is None:
            self.epilog = _here()
        return super().format_help()


def parser(only: str | None = None) -> Parser:
    """The command line's parser, every command's arguments in it; with ``only``, that
    command's alone (the others are listed, their modules not imported)."""
    p = Parser(prog="harmony", description="A generator of rules harmonies: the rulebooks "
               "of a game (or a family of games) set side by side as structured clauses, "
               "checked, formatted, compared, built into a site and printed as rule cards.")
    p.add_argument("--version", action="version", version=f"harmony {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    p.subcommands = {}
    for cmd in COMMANDS:
        sp = p.subcommands[cmd.name] = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help)
        if only is None or cmd.name == only:
            cmd.add_arguments(sp)
    return p


def _here() -> str | None:
    """What ``harmony --help`` says of the harmony in the current folder, if there is one
    (:func:`harmony.usage.harmony_here`): its title and where its rules are."""
    from .usage import harmony_here, harmony_title
    try:
        root = harmony_here()
        if root is None:
            return "No harmony in this folder: start one with `harmony init DIR`."
        title = harmony_title(root) or "a harmony without a title (add harmony: {title: ...})"
    except (OSError, UnicodeError):
        return None
    where = "this folder" if root == Path(".") else f"./{root.as_posix()}"
    return f"In this folder: {title} (rules in {where}); the commands read it when given no PATH."


#: Python's cyclic collector, set to collect seldom (see :func:`main`).
COLLECTOR_THRESHOLDS = (50_000, 20, 100)


def main(argv: list[str] | None = None) -> int:
    # A command builds one large model (and scenario results) that lives to its end, and
    # makes little cyclic garbage: at Python's default thresholds the collector set off
    # full collections that walked that whole model again and again (at 2,046 clauses
    # 40% of a warm `harmony check`; bench/RESULTS.md). Collections still run, seldom.
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    given = sys.argv[1:] if argv is None else list(argv)
    # the command is the first word that is not an option (harmony's own options take no
    # value): only its arguments are set up, so only its modules are imported
    named = next((a for a in given if not a.startswith("-")), None)
    p = parser(named if named in BY_NAME else "")
    args, extra = p.parse_known_args(argv)
    if extra:
        # an unknown option after the command is reported with that command's usage line
        after = args.command in given and extra[0] in given and \
            given.index(extra[0]) > given.index(args.command)
        (p.subcommands[args.command] if after else p).error(
            f"unrecognized arguments: {' '.join(extra)}")
    if not args.command:
        p.print_help(sys.stderr)
        return 2
    from .signals import Terminated, terminated_as_exit
    from .usage import UsageError
    try:
        with terminated_as_exit():     # (SIGTERM unwinds as Ctrl-C does: nothing left half-done)
            return BY_NAME[args.command].run(args)
    except UsageError as e:
        print(f"harmony {args.command}: error: {e}", file=sys.stderr)
        return 2
    except Terminated as e:
        return e.code
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


def run() -> None:
    """The ``harmony`` program (``python -m harmony``, the ``harmony`` script): :func:`main`,
    then exit with its code. What a command built lives to its end, so the objects left are
    frozen first (:func:`gc.freeze`): Python's last collections at exit would otherwise walk
    them all again, a quarter of a ``harmony check`` of 940 clauses (bench/RESULTS.md).
    Everything is still freed and every exit handler runs."""
    code = main()
    gc.freeze()
    sys.exit(code)


def _describe(e: Exception) -> str:
    """One line for an unforeseen failure.

    >>> _describe(PermissionError(13, "Permission denied", "out/site"))
    'out/site: Permission denied'
    """
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename}: {e.strerror}" if e.filename else e.strerror
    import traceback
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
    run()
