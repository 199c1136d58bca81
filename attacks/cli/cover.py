"""`python -m attacks cover RELEASE ...`: the cover-problem attack (Barakat2016, Awad2019) on a release file."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from anonymizer.io.release_files import load_release, load_truth
from attacks.cli import COMMANDS
from attacks.cover.detector import CoverReport, run_cover_attack
from attacks.cover.knowledge import (
    ATTACKERS,
    EVERY_COVER_PAIR,
    cover_pair_itemsets,
    load_knowledge,
    make_knowledge,
    save_knowledge,
)
from attacks.cover.problem import flatten
from corpora.cli.options import add_reading_options, reading_options
from corpora.common.bounds import int_option
from corpora.common.errors import ArgumentParser, InputError
from corpora.common.files import check_output_paths
from corpora.common.seeds import seed_argument
from corpora.io.formats import FORMATS

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run", "format_report"]

HELP = COMMANDS["cover"]
DESCRIPTION = ("Detect cover problems and count the records an attacker's knowledge breaches (Barakat2016 Algorithm 1, "
               "Awad2019 PEM). Reads only the release and the knowledge; --truth/--original only give the simulated "
               "attacker real records to know.")


def add_arguments(p: ArgumentParser) -> None:
    p.error_prefix = "attacks cover"
    p.add_argument("release", help="release file (disassociated/1 JSON)")
    p.add_argument("--attacker", choices=ATTACKERS, default="strong",
                   help="simulated attacker (default strong: Barakat2016 section 6, every cover problem a breach; "
                        "strong-per-record: section 4, one well-picked itemset per record; moderate; weak)")
    p.add_argument("--knowledge", metavar="FILE",
                   help="read the knowledge (JSON lines of itemsets) instead of simulating it")
    p.add_argument("--save-knowledge", metavar="FILE",
                   help="write the knowledge used as JSON lines (strong: every cover pair {x, y})")
    p.add_argument("--truth", metavar="FILE", help="truth file: the attacker knows the real records of the release")
    p.add_argument("--original", metavar="INPUT", help="original dataset file: the attacker knows its records")
    p.add_argument("--format", choices=FORMATS, default=None, help="format of --original (default: by extension)")
    add_reading_options(p, what="--original")
    p.add_argument("--moderate-share", type=float, default=0.5, help="share of records the moderate attacker knows")
    p.add_argument("--seed", type=seed_argument, default=0, help="seed of the simulated knowledge (default 0)")
    p.add_argument("--max-problems", type=int_option("--max-problems", 0, 10**6), default=20,
                   help="cover problems listed per definition in text output")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def _names(items: Sequence[str]) -> str:
    return ", ".join(items) if items else "(each other)"


def format_report(report: CoverReport, release_name: str, max_problems: int = 20) -> str:
    """The human-readable report printed by the CLI."""
    share = report.vulnerable_records / report.n_records if report.n_records else 0.0
    known = (f"knows every cover pair, {report.knowledge_size} pairs {{x, y}}: every cover problem is a breach, "
             "Barakat2016 section 6" if report.knowledge_source == EVERY_COVER_PAIR else
             f"{report.knowledge_size} itemsets, knowledge from {report.knowledge_source}")
    lines = [
        f"release: {release_name}",
        f"attacker: {report.attacker} ({known})",
        f"vulnerable records: {report.vulnerable_records} of {report.n_records} ({share:.1%})",
        f"breaches (Barakat2016 Algorithm 1, breach++ count): {report.breaches}",
        f"Algorithm 1 total (sum over clusters of the max per chunk): {report.algorithm1_total}",
        f"PEM (Awad2019 5.1.1: Definition 3 on every record chunk): {report.vulnerable_chunks} / "
        f"{report.record_chunks} record chunks = {report.pem:.4f}",
        f"PEM, linkable chunks only (Awad2019 3.3, Lemma 1): {report.vulnerable_chunks_linkable} / "
        f"{report.record_chunks} = {report.pem_linkable:.4f} (ceiling: {report.linkable_chunks} record chunks "
        f"in multi-chunk clusters)",
        f"PEM per cluster (Definition 3: the cluster is subject to a cover problem): {report.vulnerable_clusters} / "
        f"{report.clusters} clusters = {report.pem_cluster:.4f}",
    ]
    for definition, title in (("awad2019", "Awad2019 Definition 3"), ("barakat2016", "Barakat2016 Definition 3")):
        found = [p for p in report.cover_problems if p.definition == definition]
        lines.append(f"cover problems ({title}): {len(found)}")
        for p in found[:max_problems]:
            via = f" for {p.item!r} of chunk {p.item_chunk}" if p.item is not None else ""
            alone = " [only record chunk of its cluster: not in PEM linkable]" if p.linkable is False else ""
            lines.append(f"  cluster {p.cluster} chunk {p.chunk}{via}: {_names(p.covered)} covered by "
                         f"{_names(p.covering)} (s(I) = {p.support}){alone}")
        if len(found) > max_problems:
            lines.append(f"  ... and {len(found) - max_problems} more")
    lines.append(f"detector time: {report.seconds:.3f} s")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if not 0.0 < args.moderate_share < 1.0:
        raise InputError(f"--moderate-share must be strictly between 0 and 1, got {args.moderate_share}")
    if args.max_problems < 0:
        raise InputError("--max-problems must not be negative")
    check_output_paths({"--save-knowledge": args.save_knowledge},
                       {"release": args.release, "--knowledge": args.knowledge, "--truth": args.truth,
                        "--original": args.original})
    release = load_release(args.release)
    flat = flatten(release)  # one index for the attacker's knowledge and the detector
    if args.knowledge:
        if args.truth or args.original or args.sql or args.db:
            raise InputError("--knowledge replaces the simulated attacker: drop --truth/--original/--sql")
        knowledge = load_knowledge(args.knowledge)
        knowledge.attacker = args.attacker
    else:
        truth = load_truth(args.truth) if args.truth else None
        original = None
        if args.original or args.sql or args.db:
            from corpora.registry import load_dataset

            original = load_dataset(args.original, format=args.format, **reading_options(args))
        knowledge = make_knowledge(release, args.attacker, args.seed, truth=truth, original=original,
                                   moderate_share=args.moderate_share, flat=flat)
    vocabulary = str(knowledge.details.get("vocabulary", "")) if knowledge.attacker == "weak" else ""
    if vocabulary and not vocabulary.startswith("wordnet:"):
        print(f"note: WordNet not found (install Debian's wordnet-base); the weak attacker's external words "
              f"come from {vocabulary}", file=sys.stderr)
    if args.save_knowledge:
        save_knowledge(cover_pair_itemsets(release, flat) if knowledge.every_cover_pair else knowledge,
                       args.save_knowledge)
    report = run_cover_attack(release, args.attacker, args.seed, args.moderate_share, knowledge, flat=flat)
    if args.json:
        print(report.to_json())
    else:
        print(format_report(report, args.release, args.max_problems))
    return 0
