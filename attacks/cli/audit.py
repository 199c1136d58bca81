"""`python -m attacks audit RELEASE ...`: is this release safe to publish? (:mod:`attacks.auditing`).

Against a declared threat model (``--threat-model FILE``, :mod:`attacks.threat_model`; the options of the
"threat model" group override the file), every check beside its baselines with 95% intervals, the utility
the release costs, the checks skipped with the reason, the recommendations, and a provenance receipt
(:mod:`corpora.common.receipt`). Printed as Markdown (default) or JSON (``--json``); ``--json FILE``,
``-o FILE`` and ``--html FILE`` (one self-contained page, :func:`attacks.report_html.render_audit_html`)
write files, atomically.

Exit status: 0 when every gate holds, 1 when a threshold is crossed (Guarantee 1 broken, a term that
looks like a direct identifier, PEM above ``--max-pem``, an attacker's breached records above
``--max-vulnerable``, the semantic attack above ``--max-semantic-gain``), 2 for bad input (an
``--original`` or ``--truth`` that does not belong to the release, a threat model with an unknown key
included); so the command can gate a publishing pipeline. The verdict line lists every residual risk.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Any

from attacks.auditing import DEFAULT_MAX_PEM, DEFAULT_MAX_SEMANTIC_GAIN, DEFAULT_MAX_VULNERABLE, audit
from attacks.cli import COMMANDS
from attacks.cover.knowledge import ATTACKERS
from attacks.threat_model import KNOWLEDGE_SOURCES, PARAMETERS, SCORERS, SELECTORS, ThreatModel
from corpora.cli.options import add_reading_options, reading_options
from corpora.common.bounds import MAX_M, int_option
from corpora.common.errors import ArgumentParser
from corpora.common.files import check_output_paths, write_text_atomic
from corpora.common.receipt import make_receipt
from corpora.common.seeds import seed_argument
from corpora.common.yamlfile import did_you_mean
from corpora.dataset import TransactionDataset
from corpora.io.formats import FORMATS

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run", "original_source"]

HELP = COMMANDS["audit"]
DESCRIPTION = ("Audit a release before publishing it, against a declared threat model (--threat-model): Guarantee 1 "
               "(the independent verifier), cover problems and PEM (Awad2019, three readings), the breaches of "
               "Barakat2016's strong, strong-per-record, moderate and weak attackers (beside a frequency-only attacker "
               "and random placement), a semantic attack against its random and blind baselines and the oracle "
               "ceiling when the terms are words, the utility the release costs, and recommendations; 95% intervals "
               "throughout. Exit 0: publishable under the thresholds; 1: a threshold is crossed; 2: bad input.")


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}")
    return value


def _names(allowed: tuple[str, ...], what: str) -> Any:
    """An argparse ``type``: comma-separated names out of ``allowed``."""

    def parse(text: str) -> list[str]:
        names = [n.strip() for n in text.split(",") if n.strip()]
        for n in names:
            if n not in allowed:
                raise argparse.ArgumentTypeError(f"{n!r} is not a {what} ({', '.join(allowed)})"
                                                 + did_you_mean(n, allowed))
        return names

    parse.__name__ = what
    return parse


def add_arguments(p: ArgumentParser) -> None:
    p.error_prefix = "attacks audit"
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("release", help="release file (disassociated/1 JSON)")
    p.add_argument("--original", metavar="INPUT",
                   help="the original dataset (file or name): the attackers know its records; with --truth it also "
                        "scores the semantic attack; it measures the utility the release costs")
    p.add_argument("--truth", metavar="FILE",
                   help="truth file: the attackers know the real records of each cluster, as in the sweeps")
    p.add_argument("--before", metavar="RELEASE",
                   help="for a safe release: the release it was made from (same dataset, options and seed), for RLM")
    tm = p.add_argument_group("threat model", "what the attacker knows and the owner's thresholds; each option "
                              "given overrides --threat-model's value (docs/audit.md)")
    tm.add_argument("--threat-model", metavar="FILE",
                    help="YAML file declaring the attackers, their knowledge, the semantic background and the "
                         "thresholds (example: docs/examples/threat-model.yaml)")
    tm.add_argument("--max-pem", type=_share, default=argparse.SUPPRESS, metavar="P",
                    help=f"fail when PEM (Awad2019 5.1.1: share of record chunks with a cover problem, Definition 3 "
                         f"on every record chunk; the linkable and per-cluster readings are reported beside it) "
                         f"exceeds P (default {DEFAULT_MAX_PEM:g}: safe disassociation leaves none; 1 disables)")
    tm.add_argument("--max-vulnerable", type=_share, default=argparse.SUPPRESS, metavar="R",
                    help=f"fail when any attacker breaches more than this share of the records (default "
                         f"{DEFAULT_MAX_VULNERABLE:g}, the strictest public-release risk threshold of "
                         "de-identification practice, docs/audit.md; 1 disables)")
    tm.add_argument("--max-semantic-gain", type=_share, default=argparse.SUPPRESS, metavar="G",
                    help=f"fail when the lower end of the paired 95%% interval of the semantic attack's accuracy minus "
                         f"the random baseline's exceeds G (default {DEFAULT_MAX_SEMANTIC_GAIN:g}: any attack "
                         "measurably better than chance fails; 1 disables)")
    tm.add_argument("--attackers", type=_names(ATTACKERS, "attacker"), default=None, metavar="A[,A...]",
                    help=f"the Barakat2016 attackers to simulate (default all: {','.join(ATTACKERS)})")
    tm.add_argument("--attacker-m", type=int_option("--attacker-m", 1, MAX_M), default=None, metavar="M",
                    help="size of an itemset the attackers know (default the release's m)")
    tm.add_argument("--itemsets-per-target", type=int_option("--itemsets-per-target", 1, 64), default=None,
                    metavar="N", help="itemsets the strong-per-record and moderate attackers know of each target "
                                      "(default 1)")
    tm.add_argument("--moderate-share", type=_share, default=None, metavar="S",
                    help="share of the records the moderate attacker knows (default 0.5)")
    tm.add_argument("--knowledge", choices=KNOWLEDGE_SOURCES, default=None,
                    help="where the attackers' records come from (default auto: the truth, else the original, else "
                         "the release alone); a declared source that is not given skips those attackers")
    tm.add_argument("--scorer", choices=SCORERS, default=None,
                    help="the semantic background (default glove; none: no semantic attack)")
    tm.add_argument("--selector", choices=SELECTORS, default=None, help="the semantic attack's placement (default ABA)")
    tm.add_argument("--reference", metavar="REF", default=None,
                    help="the ngd scorer's reference corpus: a file or a text-source name (default gensim's "
                         "Wikipedia sample)")
    tm.add_argument("--unknown-parameters", type=_names(PARAMETERS, "parameter"), default=None, metavar="P[,P...]",
                    help="parameters (k, m, delta) the attacker is declared not to know")
    tm.add_argument("--no-semantic", action="store_true", help="skip the semantic attack (as --scorer none)")
    p.add_argument("--allow-identifiers", action="store_true",
                   help="report published terms that look like direct identifiers instead of failing on them "
                        "(for an owner who knows they are not identifiers)")
    p.add_argument("--seed", type=seed_argument, default=0,
                   help="seed of the simulated attackers, the attack and the reconstruction of the utility measures "
                        "(public: it is not the release's seed)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", nargs="?", const=True, default=None, metavar="FILE",
                     help="print the report as one JSON object, or write it to FILE")
    out.add_argument("--markdown", action="store_true", help="print (or write) the report as Markdown (the default)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the report to FILE (JSON if it ends in .json, else Markdown) instead of printing it; "
                        "the verdict line still goes to standard error")
    p.add_argument("--html", metavar="FILE",
                   help="also write the report as one self-contained HTML page (no script, nothing fetched)")
    p.add_argument("--format", choices=FORMATS, default=None, help="format of --original (default: by extension)")
    add_reading_options(p, what="--original")


def original_source(args: argparse.Namespace) -> str:
    """``--original`` and the options it was read with, shell-quoted: how a recommended command reads it again.

    An original read with ``--sql QUERY --db URL`` is read again the same way, the URL without its password
    (the command then takes it from ``PGPASSWORD`` or ``~/.pgpass``): a printed command never carries one."""
    if getattr(args, "sql", None) is not None:
        from corpora.io.sql_url import parse_db_url

        return shlex.join(["--sql", args.sql, "--db", parse_db_url(args.db).without_password])
    words = [args.original]
    if args.format is not None:
        words += ["--format", args.format]
    options = reading_options(args)
    if options["delimiter"] is not None:
        words += ["--delimiter", options["delimiter"]]
    if options["header"] is not None:
        words.append("--header" if options["header"] else "--no-header")
    for key in ("user_column", "item_column"):
        if options[key] is not None:
            words += [f"--{key.replace('_', '-')}", str(options[key])]
    return shlex.join(words)


def _receipt_facts(args: argparse.Namespace, original: TransactionDataset | None,
                   original_file: str | None) -> dict[str, Any]:
    """The receipt's facts beside its files: the public attack seed and, for an original that is not one
    file (a named dataset, rows from a database), the SHA-256 of its JSON lines and the command that checks it."""
    facts: dict[str, Any] = {"attack_seed": args.seed}
    if original is not None and original_file is None:
        from corpora.io.writers import jsonl_sha256

        source = original_source(args)
        facts["original dataset"] = source
        facts["original records"] = len(original)
        facts["original SHA-256 (its JSON lines)"] = jsonl_sha256(original)
        facts["original check"] = f"python -m corpora convert {source} -o original.jsonl && sha256sum original.jsonl"
    return facts


def run(args: argparse.Namespace) -> int:
    json_file = args.json if isinstance(args.json, str) else None
    check_output_paths({"report": args.output, "--json": json_file, "--html": args.html},
                       {"release": args.release, "--truth": args.truth, "--original": args.original,
                        "--threat-model": args.threat_model, "--before": args.before})
    tm = ThreatModel.from_yaml(args.threat_model) if args.threat_model else ThreatModel()
    tm = tm.with_options(args)
    original = None
    if args.original or args.sql or args.db:
        from corpora.registry import load_dataset

        original = load_dataset(args.original, format=args.format, **reading_options(args))
    inputs = {"release": args.release, "original": args.original if os.path.isfile(args.original or "") else None,
              "truth": args.truth, "threat model": args.threat_model, "before": args.before}
    report = audit(args.release, original=original, truth=args.truth, threat_model=tm,
                   allow_identifiers=args.allow_identifiers, seed=args.seed,
                   original_source=original_source(args) if original is not None else None, before=args.before)
    command = getattr(args, "command_line", None) or ["python", "-m", "attacks", "audit", args.release]
    report.receipt = make_receipt(inputs, command, extra=_receipt_facts(args, original, inputs["original"])).to_dict()
    as_json = args.json is True or (args.output is not None and not args.markdown
                                    and args.output.lower().endswith(".json"))
    text = report.to_json(indent=2) + "\n" if as_json else report.to_markdown()
    outputs: dict[str, str] = {}
    if json_file:
        outputs[json_file] = report.to_json(indent=2) + "\n"
    if args.output:
        outputs[args.output] = text
    if args.html:
        from attacks.report_html import render_audit_html

        outputs[args.html] = render_audit_html(report.to_dict())
    for path, content in outputs.items():  # every output is made before any is written
        write_text_atomic(path, content)
    if outputs:
        print(f"audit {report.verdict()}: {args.release} -> {', '.join(outputs)}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return report.exit_status
