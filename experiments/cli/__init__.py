"""The commands of ``python -m experiments`` (run, claims, differences), one module each.

:data:`TOOL` is the table the one dispatcher reads (:func:`corpora.common.cli.dispatch`,
``experiments/__main__.py``); :data:`COMMANDS` holds each command's one-line help, which is also the
command module's ``HELP``.
"""

from __future__ import annotations

from corpora.common.cli import Tool

__all__ = ["COMMANDS", "TOOL"]

COMMANDS: dict[str, str] = {
    "run": "run a sweep (resumable; writes results.csv, figures, report.md and report.html)",
    "claims": "copy each sweep's paper-vs-ours table into a README",
    "differences": "the attack's edge over the random baseline, as a table",
}
"""The commands and their one-line help (``python -m experiments --help``); each module's ``HELP``."""

TOOL = Tool(
    prog="python -m experiments",
    description="Sweeps of disassociation experiments: run them, and put their results into a README.",
    commands={name: (f"experiments.cli.{name}", text) for name, text in COMMANDS.items()},
)
