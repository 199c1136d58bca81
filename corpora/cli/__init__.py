"""`python -m corpora`: the corpora tool's commands, one module each, run by the one dispatcher.

:data:`TOOL` is the table :func:`corpora.common.cli.dispatch` reads (``corpora/__main__.py``):

``list`` (:mod:`corpora.cli.listing`)
    the named datasets and text sources, and whether each is present offline;
``stats`` (:mod:`corpora.cli.stats`)
    records, distinct terms, lengths and type-token density of a dataset;
``convert`` (:mod:`corpora.cli.convert`)
    a dataset in another format;
``build-text`` (:mod:`corpora.cli.build_text`)
    transactions from a named text source (AlShuhail2021 section 5.1).

Each command module has ``HELP``, ``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args)``.
The options shared by the commands that read a dataset are in :mod:`corpora.cli.options` (also
used by the other tools) and :mod:`corpora.cli.source`. :func:`run_command` runs one command
in-process without the dispatcher's error handling, so a mistake raises :class:`InputError`.
"""

from __future__ import annotations

from collections.abc import Sequence

from corpora.common.cli import Tool, command_parser
from corpora.common.errors import InputError

__all__ = ["COMMANDS", "TOOL", "run_command"]

COMMANDS: dict[str, str] = {
    "list": "list the named datasets and text sources, and whether each is present offline",
    "stats": "records, distinct terms, lengths and type-token density of a dataset (file or name)",
    "convert": "convert a dataset to another format (spmf, kdd, basket, jsonl, long, parquet)",
    "build-text": "build transactions from a named text source (AlShuhail2021 section 5.1)",
}
"""The commands and their one-line help (``python -m corpora --help``); each module's ``HELP``."""

TOOL = Tool(
    prog="python -m corpora",
    description="Transaction data for the workbench: named datasets, statistics, format conversion and text "
                "corpora.",
    commands={
        "list": ("corpora.cli.listing", COMMANDS["list"]),
        "stats": ("corpora.cli.stats", COMMANDS["stats"]),
        "convert": ("corpora.cli.convert", COMMANDS["convert"]),
        "build-text": ("corpora.cli.build_text", COMMANDS["build-text"]),
    },
    epilog="examples:\n"
           "  python -m corpora list\n"
           "  python -m corpora stats kosarak10k\n"
           "  python -m corpora stats orders.csv --user-column user_id --item-column item\n"
           "  python -m corpora convert terrovitis2012-fig2 -o fig2.jsonl\n"
           "  python -m corpora build-text --source lee --density 0.3 --topics 10 --seed 0 -o lee.jsonl\n\n"
           "Each command has its own help: python -m corpora stats --help",
)


def run_command(command: str, argv: Sequence[str]) -> int:
    """Parse ``argv`` for ``command`` and run it in this process; a mistake raises :class:`InputError`."""
    if command not in TOOL.commands:
        raise InputError(f"unknown command {command!r}; choose one of: {', '.join(TOOL.commands)}")
    module = TOOL.module(command)
    args = command_parser(TOOL, command, module).parse_args(list(argv))
    args.command = command
    return int(module.run(args) or 0)
