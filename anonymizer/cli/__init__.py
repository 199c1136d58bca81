"""The command line of the anonymizer: ``python -m anonymizer COMMAND ...`` (:mod:`anonymizer.__main__`).

One module per command, each with ``HELP``, ``DESCRIPTION``, ``add_arguments(parser)`` and
``run(args) -> int``, run by the one dispatcher of the workbench (:mod:`corpora.common.cli`):
``anonymize`` (the default: ``python -m anonymizer INPUT -k 3 -m 2 -o release.json``), ``verify``,
``reconstruct``, ``utility`` and ``convert``. :func:`run_command` runs one command in this process
without the dispatcher's error policy (a user's mistake raises :class:`InputError`), for tests.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from corpora.common.cli import Tool, command_parser
from corpora.common.errors import InputError

__all__ = ["COMMANDS", "TOOL", "run_command"]

COMMANDS: dict[str, str] = {
    "anonymize": "disassociate a dataset (default), or generalize it (apriori) or add noise (diffpart)",
    "verify": "independent check of Guarantee 1 (k^m, Lemma 2, Property 1, exact search)",
    "reconstruct": "sample one dataset of the inverse transformation",
    "utility": "information loss: tKd, tKd-a, re, re-a, tlost, tKd-ML^2, NCP, RAE, RLM",
    "convert": "rewrite a release as parquet (OUT.parquet) or as JSON",
}
"""The commands and their one-line help (``python -m anonymizer --help``); each module's ``HELP``."""

TOOL = Tool(
    prog="python -m anonymizer",
    description="Anonymize set-valued data by disassociation (Terrovitis2012) or a baseline, and check, sample or "
                "score the release. Without a command, 'anonymize' is meant: python -m anonymizer INPUT -k 3 -m 2 "
                "-o release.json.",
    commands={name: (f"anonymizer.cli.{name}", text) for name, text in COMMANDS.items()},
    default="anonymize",
)


def run_command(name: str, argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[2:]``) for command ``name`` and run it in this process."""
    if name not in TOOL.commands:
        raise InputError(f"unknown command {name!r}; expected one of {', '.join(TOOL.commands)}")
    module = TOOL.module(name)
    args = command_parser(TOOL, name, module).parse_args(list(sys.argv[2:] if argv is None else argv))
    args.command = name
    return int(module.run(args) or 0)
