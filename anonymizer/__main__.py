"""`python -m anonymizer`: disassociate a dataset, or `verify` / `reconstruct` / `utility` a release."""

from __future__ import annotations

import sys

from corpora.errors import run_cli

SUBCOMMANDS = ("verify", "reconstruct", "utility")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        from anonymizer import cli_tools

        return run_cli(lambda a: cli_tools.main(args[0], a), args[1:])
    from anonymizer import cli

    return run_cli(cli.main, args)


if __name__ == "__main__":
    sys.exit(main())
