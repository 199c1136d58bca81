"""`python -m attacks cover|semantic ...`: run an attack on a release file."""

from __future__ import annotations

import sys

from corpora.errors import run_cli

USAGE = """usage: python -m attacks {cover,semantic,audit} RELEASE [options]

Attacks on a disassociated release (release.json, format disassociated/1).

commands:
  cover      cover problems, Barakat2016 Algorithm 1's breaches (strong, moderate, weak attacker), Awad2019's PEM
  semantic   the semantic attack of AlShuhail2021: reconstruct records by term relatedness (GloVe, NGD, a table)
  audit      is it safe to publish? Guarantee 1, PEM, the three attackers, a quick semantic attack,
             recommendations; exit 1 when a threshold is crossed

Each command has its own help: python -m attacks audit --help"""


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
    if command == "audit":
        from attacks import audit_cli

        return run_cli(audit_cli.main, rest)
    print(f"error: unknown command {command!r}; choose cover, semantic or audit", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
