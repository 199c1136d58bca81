"""`python -m corpora list|stats|convert|build-text ...`: named datasets, statistics, text building.

The parser (one subcommand each, full help) is :func:`corpora.cli.main.build_parser`.
"""

from __future__ import annotations

import sys

from corpora.common.errors import run_cli


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from corpora.cli import main as cli
    if not args:  # like the other tools: the short usage and one error line, status 2
        parser = cli.build_parser()
        parser.print_usage(sys.stderr)
        print(f"error: {parser.prog}: the following arguments are required: COMMAND "
              "(list, stats, convert, build-text; --help for more)", file=sys.stderr)
        return 2
    return run_cli(cli.run, args)


if __name__ == "__main__":
    sys.exit(main())
