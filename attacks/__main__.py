"""`python -m attacks cover|semantic|audit|score ...`: attack a release, audit it, or score word pairs.

The tool's table of commands for the one dispatcher (:func:`corpora.common.cli.dispatch`):
``python -m attacks --help`` lists them, ``python -m attacks COMMAND --help`` shows a command's
options; each command is a module of :mod:`attacks.cli` (``HELP``, ``DESCRIPTION``,
``add_arguments``, ``run``), imported only when it runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from corpora.common.cli import Tool, dispatch

__all__ = ["TOOL", "main"]

TOOL = Tool(
    prog="python -m attacks",
    description="Attacks on a disassociated release (format disassociated/1), a pre-publication audit, and "
                "word-pair scoring. Each command has its own --help.",
    commands={
        "cover": ("attacks.cli.cover",
                  "cover problems, Barakat2016 Algorithm 1's breaches (strong, strong-per-record, moderate, weak "
                  "attacker), Awad2019's PEM"),
        "semantic": ("attacks.cli.semantic",
                     "the semantic attack of AlShuhail2021: reconstruct records by term relatedness, beside its "
                     "random, blind and oracle baselines"),
        "audit": ("attacks.cli.audit",
                  "is a release safe to publish? Guarantee 1, PEM, Barakat2016's attackers and a semantic attack "
                  "against a threat model, each beside its baselines; the utility cost; exit 1 when a threshold is "
                  "crossed"),
        "score": ("attacks.cli.score",
                  "a relatedness scorer's scores of word pairs, and its correlation with human scores"),
    },
)


def main(argv: Sequence[str] | None = None) -> int:
    return dispatch(TOOL, argv)


if __name__ == "__main__":
    sys.exit(main())
