"""`python -m corpora list|stats|build-text|convert ...`: named datasets, statistics, text building."""

from __future__ import annotations

import sys

from corpora.errors import run_cli

USAGE = "usage: python -m corpora {list,stats,convert,build-text} [options]"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command in ("list", "stats", "convert"):
        from corpora import cli

        return run_cli(lambda a: cli.main(command, a), rest)
    if command == "build-text":
        from corpora import text_cli

        return run_cli(text_cli.main, rest)
    print(f"error: unknown command {command!r}; choose list, stats, convert or build-text", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
