"""The commands of ``python -m attacks`` (cover, semantic, audit, score), one module each.

:data:`TOOL` is the table the one dispatcher reads (:func:`corpora.common.cli.dispatch`,
``attacks/__main__.py``); :data:`COMMANDS` holds each command's one-line help, which is also the
command module's ``HELP``.
"""

from __future__ import annotations

from corpora.common.cli import Tool

__all__ = ["COMMANDS", "TOOL"]

COMMANDS: dict[str, str] = {
    "cover": "cover problems, Barakat2016 Algorithm 1's breaches (strong, strong-per-record, moderate, weak "
             "attacker), Awad2019's PEM",
    "semantic": "the semantic attack of AlShuhail2021: reconstruct records by term relatedness, beside its random, "
                "blind and oracle baselines",
    "audit": "is a release safe to publish? Guarantee 1, PEM, Barakat2016's attackers and a semantic attack against "
             "a threat model, each beside its baselines; the utility cost; exit 1 when a threshold is crossed",
    "score": "a relatedness scorer's scores of word pairs, and its correlation with human scores",
}
"""The commands and their one-line help (``python -m attacks --help``); each module's ``HELP``."""

TOOL = Tool(
    prog="python -m attacks",
    description="Attacks on a disassociated release (format disassociated/1), a pre-publication audit, and "
                "word-pair scoring. Each command has its own --help.",
    commands={name: (f"attacks.cli.{name}", text) for name, text in COMMANDS.items()},
)
