"""The one shape of every command line of the workbench: command modules and one dispatcher.

Each tool (``python -m corpora``, ``anonymizer``, ``attacks``, ``experiments``) is a table of
commands. A command is a module with

* ``HELP``: one line for the tool's ``--help`` listing,
* ``DESCRIPTION``: the paragraph at the top of the command's own ``--help``,
* ``add_arguments(parser)``: declares its options on an :class:`~corpora.common.errors.ArgumentParser`,
* ``run(args) -> int``: does the work with the parsed namespace and returns the exit status.

:func:`dispatch` is the only entry point: it reads the command name, imports only that command's
module (so ``--help`` and a command's start stay fast), parses its options, and runs it inside
:func:`~corpora.common.errors.run_cli`, which is the one policy for errors (one line, exit 2),
interrupts (130) and SIGTERM (143, temporary outputs removed). Every parser has ``--version``.

A tool may end its ``--help`` with examples (``epilog``, printed as written), and may name a
default command (``python -m anonymizer INPUT ...`` means ``anonymize``): when the first
argument is not a command name or a top-level option, the default command is meant.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType

from corpora.common.errors import ArgumentParser, run_cli

DISTRIBUTION = "disassociation-workbench"


def version() -> str:
    """The installed version of the workbench (``0+unknown`` when run from a bare checkout)."""
    from importlib import metadata  # read only when asked: importing it costs every command's start

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0+unknown"


@dataclass(frozen=True)
class Tool:
    """A command-line tool: its program name, description, commands and optional default command.

    ``commands`` maps a command name to ``(module, help)``; the module is imported only when the
    command runs or its help is asked for.
    """

    prog: str
    description: str
    commands: Mapping[str, tuple[str, str]]
    default: str | None = None
    epilog: str = ""

    def module(self, name: str) -> ModuleType:
        return importlib.import_module(self.commands[name][0])


class _VersionAction(argparse._VersionAction):
    """argparse's ``version`` action, the version read only when ``--version`` is given."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        self.version = f"%(prog)s {version()}"
        super().__call__(parser, namespace, values, option_string)


def add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action=_VersionAction)


def command_parser(tool: Tool, name: str, module: ModuleType) -> ArgumentParser:
    """The parser of one command, as its own ``--help`` shows it."""
    parser = ArgumentParser(prog=f"{tool.prog} {name}", description=module.DESCRIPTION)
    add_version(parser)
    module.add_arguments(parser)
    return parser


def top_parser(tool: Tool) -> ArgumentParser:
    """The tool's parser: ``--help`` lists the commands with their one-line help, ``--version``."""
    parser = ArgumentParser(prog=tool.prog, description=tool.description, epilog=tool.epilog or None,
                            formatter_class=argparse.RawDescriptionHelpFormatter if tool.epilog else
                            argparse.HelpFormatter)
    add_version(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=ArgumentParser)
    for name, (_module, text) in tool.commands.items():
        sub.add_parser(name, help=text, add_help=False)
    return parser


def split_command(tool: Tool, argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """The command an argument list names and the arguments left for it (None: top-level only)."""
    args = list(argv)
    if args and args[0] in tool.commands:
        return args[0], args[1:]
    if tool.default is not None and args and args[0] not in ("-h", "--help", "--version"):
        return tool.default, args
    return None, args


def dispatch(tool: Tool, argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names (default: ``sys.argv[1:]``) and return its exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)

    def run(args: Sequence[str] | None) -> int:
        name, rest = split_command(tool, args or [])
        if name is None:
            top_parser(tool).parse_args(rest)  # --help, --version, or the error that names the commands
            return 2
        module = tool.module(name)
        parsed = command_parser(tool, name, module).parse_args(rest)
        parsed.command = name
        parsed.command_line = [*tool.prog.split(), name, *rest]  # what a provenance receipt records
        return int(module.run(parsed) or 0)

    return run_cli(run, arguments)
