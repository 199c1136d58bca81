"""`python -m attacks cover|semantic|score ...`: run an attack on a release file, or score word pairs."""

from __future__ import annotations

import sys

from corpora.errors import run_cli

USAGE = ("usage: python -m attacks {cover,semantic} RELEASE [options] | python -m attacks score PAIRS.tsv [options]"
         "  (python -m attacks cover --help)")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "cover":
        from attacks import cover_cli

        return run_cli(cover_cli.main, rest)
    if command == "semantic":
        from attacks import semantic_cli

        return run_cli(semantic_cli.main, rest)
    if command == "score":
        from attacks import score_cli

        return run_cli(score_cli.main, rest)
    print(f"error: unknown command {command!r}; choose cover, semantic or score", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
