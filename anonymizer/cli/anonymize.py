"""`python -m anonymizer INPUT -k K -m M --max-cluster-size D ... -o release.json [--truth truth.json]`.

``--method disassociation`` (the default) disassociates; ``--method apriori -k K -m M [--hierarchy
FILE | --fanout F]`` generalizes (:mod:`anonymizer.baselines.apriori`) and ``--method diffpart --epsilon E
[--hierarchy FILE | --fanout F] [--seed S] [--truth owner.json]`` publishes noisy records
(:mod:`anonymizer.baselines.diffpart`); both write a ``generalized/1`` release
(:mod:`anonymizer.baselines.generalized`).
Options that belong to one method only are refused with another, in one line.

Disassociates a dataset (a file, or a name known to :mod:`corpora.registry`) and writes the
release, and optionally the truth, through temporary files renamed only when both are complete
(the truth first): a failed run changes no existing file, and a truth left beside an older release
by a kill between the renames is refused by every reader (:mod:`anonymizer.io.json_writer`).
Prints a short summary: clusters, joint clusters, record chunks, the share of term
occurrences left in term chunks, tlost (Terrovitis2012 section 7.1) and the seconds taken.

The seed of the random choices is secret (:mod:`corpora.common.seeds`): without ``--seed`` it is drawn
from the operating system's entropy; either way it goes to the truth file only, never to the
release. Output paths are checked before any work starts (:func:`corpora.common.files.check_output_paths`).

The options become one :class:`~anonymizer.model.params.DisassociationParams` (or the baselines'
parameters, :mod:`anonymizer.cli.baselines`), checked once when it is made; the run, split or not,
local or on Dask, takes that object.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from anonymizer.cli import COMMANDS, run_command
from anonymizer.cli.common import load_input_dataset
from anonymizer.cli.database import add_database_arguments, check_database_options, database_output
from anonymizer.disassociation.distributed import (
    DEFAULT_SPLIT_DEPTH,
    check_dask_input,
    dask_client,
    plan_dask_run,
)
from anonymizer.disassociation.parts import PartResult, RunFigures, split_parts
from anonymizer.disassociation.pipeline import run_disassociation, run_parts
from anonymizer.disassociation.split_stream import pool_results
from anonymizer.io.json_writer import ReleaseWriter, write_release_and_truth
from anonymizer.io.parquet import wants_parquet, write_parquet_and_secret
from anonymizer.model.params import (
    DEFAULT_FANOUT,
    DEFAULT_MAX_CLUSTER_SIZE,
    DEFAULT_MAX_ITEMSETS,
    DEFAULT_SAFE_TARGETS,
    HORPART_STRATEGIES,
    MAX_SPLIT_DEPTH,
    SAFE_TARGETS,
    VERPART_STRATEGIES,
    DisassociationParams,
)
from anonymizer.model.release import Release, Truth
from corpora.cli.options import add_reading_options, reading_options
from corpora.common.bounds import MAX_M, MAX_RECORDS, MAX_WORKERS, int_option, scheduler_address
from corpora.common.errors import InputError
from corpora.common.files import check_output_paths
from corpora.common.gcpause import no_gc
from corpora.common.seeds import new_seed, seed_argument
from corpora.dataset import TransactionDataset
from corpora.io.formats import FORMATS
from corpora.io.identifiers import refuse_identifiers, screen_dataset, screen_terms

__all__ = ["HELP", "DESCRIPTION", "METHODS", "add_arguments", "disassociation_params", "main", "run", "summarize"]

HELP = COMMANDS["anonymize"]
DESCRIPTION = ("Disassociate a transaction dataset into a k^m-anonymous release (Terrovitis2012), or run a baseline: "
               "--method apriori (k^m-anonymity by generalization) or diffpart (differential privacy).")

METHODS = ("disassociation", "apriori", "diffpart")
_ONLY = {
    "max_cluster_size": ("--max-cluster-size", ("disassociation",)),
    "horpart": ("--horpart", ("disassociation",)),
    "verpart": ("--verpart", ("disassociation",)),
    "no_refine": ("--no-refine", ("disassociation",)),
    "safe": ("--safe", ("disassociation",)),
    "safe_targets": ("--safe-targets", ("disassociation",)),
    "k": ("-k", ("disassociation", "apriori")),
    "m": ("-m", ("disassociation", "apriori")),
    "hierarchy": ("--hierarchy", ("apriori", "diffpart")),
    "fanout": ("--fanout", ("apriori", "diffpart")),
    "epsilon": ("--epsilon", ("diffpart",)),
    "threshold": ("--threshold", ("diffpart",)),
    "seed": ("--seed", ("disassociation", "diffpart")),
    "split_depth": ("--split-depth", ("disassociation",)),
    "scheduler": ("--scheduler", ("disassociation",)),
    "workers": ("--workers", ("disassociation",)),
    "truth": ("--truth", ("disassociation", "diffpart")),
}
"""Option -> (its flag, the methods it belongs to)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``python -m anonymizer [anonymize] INPUT ...``."""
    p.add_argument("input", metavar="INPUT", nargs="?", default=None,
                   help="dataset file (spmf/kdd/basket/jsonl/long/parquet) or registry name; or none with --sql/--db")
    p.add_argument("--method", choices=METHODS, default="disassociation",
                   help="disassociation (Terrovitis2012, default); apriori (k^m-anonymity by generalization, "
                        "Terrovitis et al. 2008); diffpart (differential privacy, Chen et al. 2011)")
    p.add_argument("-k", type=int_option("k", 2, MAX_RECORDS), default=None,
                   help="k of k^m-anonymity (>= 2; disassociation, apriori)")
    p.add_argument("-m", type=int_option("m", 1, MAX_M), default=None,
                   help=f"m of k^m-anonymity (1..{MAX_M}; disassociation, apriori)")
    p.add_argument("--max-cluster-size", type=int_option("--max-cluster-size", 2, MAX_RECORDS), default=None,
                   dest="max_cluster_size",
                   help="largest cluster HORPART keeps (>= 2k-1; >= k with --horpart abandon; disassociation "
                        f"only; default max({DEFAULT_MAX_CLUSTER_SIZE}, 2k-1), as in the Python API)")
    p.add_argument("--hierarchy", default=None, metavar="FILE",
                   help="apriori, diffpart: item hierarchy, one line per item: item;parent;...;top")
    p.add_argument("--fanout", type=int_option("--fanout", 2, MAX_RECORDS), default=None,
                   help=f"apriori, diffpart: build a balanced hierarchy of this fan-out over the sorted items "
                        f"(default {DEFAULT_FANOUT} when no --hierarchy is given)")
    p.add_argument("--epsilon", type=float, default=None, help="diffpart: privacy budget epsilon (> 0)")
    p.add_argument("--threshold", type=float, default=None,
                   help="diffpart: partition threshold in standard deviations of the noise (default 2)")
    p.add_argument("--horpart", choices=HORPART_STRATEGIES, default=None,
                   help="horizontal partitioning: original = Terrovitis2012's HORPART (clusters smaller than k "
                        "then join their neighbour in split order); abandon = AlShuhail2021's reading (a split "
                        "leaving fewer than k records is abandoned; clusters may exceed the maximum); "
                        "suppression, adding, remaining = AlShuhail2021 3.3.1 (default: original)")
    p.add_argument("--verpart", choices=VERPART_STRATEGIES, default=None,
                   help="vertical partitioning: original = Terrovitis2012's VERPART (only term combinations "
                        "that occur must reach k); strict, grouped = AlShuhail2021 3.3.3 (default: strict)")
    p.add_argument("--no-refine", action="store_true", help="skip REFINE (no joint clusters)")
    p.add_argument("--safe", action="store_true", help="apply safe disassociation (Awad2019) afterwards")
    p.add_argument("--safe-targets", choices=SAFE_TARGETS, default=None,
                   help="with --safe: treat every record chunk with a cover problem (every, the default: "
                        "Awad2019 5.1.1, what its PEM counts) or only those another record chunk of the cluster "
                        "can be linked to (linkable, the variant after Awad2019 3.3)")
    p.add_argument("--seed", type=seed_argument, default=None,
                   help="secret seed of the random choices (sub-record order, safe disassociation's ghosts), "
                        "0..2**128-1; default: drawn from the operating system's entropy. The seed is written "
                        "to the truth file, never to the release; keep it secret: a small or reused seed can "
                        "be guessed, and whoever knows it can undo the shuffles and find the ghost records")
    p.add_argument("--split-depth", type=int_option("split depth", 0, MAX_SPLIT_DEPTH), default=None,
                   dest="split_depth", metavar="D",
                   help="disassociate part by part after D levels of HORPART's first splits (0..16; default 0, "
                        f"i.e. one part; {DEFAULT_SPLIT_DEPTH} with --executor dask): bounded memory for tens of "
                        "millions of records; joint clusters stay inside a part "
                        "(see anonymizer/disassociation/parts.py)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local: this process (default); dask: read, split and disassociate the parts on a Dask "
                        "cluster (--scheduler ADDR, or a local cluster of --workers processes); the same split "
                        "depth and seed give the same release bytes as local")
    p.add_argument("--scheduler", type=scheduler_address, default=None, metavar="ADDR",
                   help="with --executor dask: address of a running Dask scheduler (e.g. tcp://10.0.0.5:8786); "
                        "default: start a local cluster")
    p.add_argument("--workers", type=int_option("--workers", 1, MAX_WORKERS), default=None, metavar="N",
                   help="with --executor dask and no --scheduler: worker processes of the local cluster (default 2)")
    p.add_argument("--max-itemsets", type=int_option("--max-itemsets", 1, 10**15), default=DEFAULT_MAX_ITEMSETS,
                   metavar="N", dest="max_itemsets",
                   help="disassociation with m >= 3: refuse, before VERPART starts, a run whose k^m test would "
                        "visit more than N term combinations (estimated as the sum over records of C(f, 3) + ... "
                        "+ C(f, m), f the record's terms frequent in its cluster); default "
                        f"{DEFAULT_MAX_ITEMSETS:,} (minutes of work; the papers' sweeps, m <= 6 on click streams, "
                        "stay far below)")
    p.add_argument("--allow-identifiers", action="store_true",
                   help="go on when terms look like direct identifiers (e-mail addresses, phone numbers, long numeric "
                        "or hex ids, IP addresses, URLs naming a user, values of the user column); without it such "
                        "a dataset is refused before anything is written. The release's params record "
                        "identifiers_allowed")
    p.add_argument("--format", choices=FORMATS, default=None, help="input format (default: by extension)")
    add_reading_options(p)
    p.add_argument("-o", "--output", required=True,
                   help="release file to write: JSON, or the columnar parquet form if the name ends in .parquet")
    p.add_argument("--truth", default=None,
                   help="truth file to write (JSON, or parquet if the name ends in .parquet; never publish it); "
                        "diffpart: the owner file with the seed (JSON)")
    add_database_arguments(p)


def summarize(dataset: TransactionDataset, release: Release, truth: Truth) -> dict[str, float | int]:
    """Figures printed by the command line: clusters, chunks, term-chunk share and tlost."""
    figures = RunFigures()
    figures.add(release, truth)
    return figures.summary(dataset.supports(), release.k)


def _write(release: Release, truth: Truth | None, release_path: str, truth_path: str | None) -> None:
    """The release and truth in the form their names ask for (parquet or JSON), both or neither."""
    if wants_parquet(release_path) or (truth_path is not None and wants_parquet(truth_path)):
        write_parquet_and_secret(release, release_path, truth, truth_path)  # the columnar forms
        return
    write_release_and_truth(release, truth, release_path, truth_path)


def _check_method_options(args: argparse.Namespace) -> None:
    """One line for an option given with a method it does not belong to, or a required one missing."""
    for name, (flag, methods) in _ONLY.items():
        value = getattr(args, name)
        if value not in (None, False) and args.method not in methods:
            raise InputError(f"{flag} belongs to --method {' or '.join(methods)}, not to --method {args.method}")
    need = {"disassociation": ("k", "m"), "apriori": ("k", "m"), "diffpart": ("epsilon",)}
    for name in need[args.method]:
        if getattr(args, name) is None:
            raise InputError(f"{_ONLY[name][0]} is required with --method {args.method}")
    if args.safe_targets is not None and not args.safe:
        raise InputError("--safe-targets needs --safe")
    if args.hierarchy is not None and args.fanout is not None:
        raise InputError("give --hierarchy FILE or --fanout F, not both")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m anonymizer [anonymize] INPUT ...`` in this process; returns the exit status (a
    user's mistake raises :class:`InputError`; ``python -m anonymizer`` reports it in one line)."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run_command("anonymize", args[1:] if args[:1] == ["anonymize"] else args)


def disassociation_params(args: argparse.Namespace) -> DisassociationParams:
    """The one parameters object of a disassociation run, from the parsed options (checked here)."""
    dask = args.executor == "dask"
    depth = args.split_depth if args.split_depth is not None else (DEFAULT_SPLIT_DEPTH if dask else 0)
    return DisassociationParams(args.k, args.m, args.max_cluster_size, args.horpart or "original",
                                args.verpart or "strict", not args.no_refine, bool(args.safe),
                                args.safe_targets or DEFAULT_SAFE_TARGETS, depth, bool(args.allow_identifiers),
                                args.max_itemsets)


def _refuse_parquet(args: argparse.Namespace, why: str) -> None:
    for path in (args.output, args.truth):
        if path is not None and wants_parquet(path):
            raise InputError(f"{path}: {why}")


def run(args: argparse.Namespace) -> int:
    """Anonymize with parsed arguments (disassociation, or the Apriori / DiffPart baselines)."""
    _check_method_options(args)
    check_database_options(args)
    if args.method != "disassociation" and args.executor != "local":
        raise InputError(f"--executor {args.executor} belongs to --method disassociation")
    if args.method != "disassociation":
        _refuse_parquet(args, "the parquet form holds disassociated releases and their truth only; "
                              f"write the {args.method} files as JSON")
        from anonymizer.cli.baselines import run_baseline  # pandas and scipy: only the baselines need them

        return run_baseline(args)
    check_output_paths({"release": args.output, "truth": args.truth}, {"input dataset": args.input})
    params = disassociation_params(args)
    if args.executor != "dask" and (args.scheduler is not None or args.workers is not None):
        raise InputError("--scheduler and --workers belong to --executor dask")
    if args.executor == "dask" or args.split_depth:
        _refuse_parquet(args, "split and Dask runs stream JSON part by part; write JSON and convert it "
                              "with python -m anonymizer convert")
        return _run_split(args, params)
    # The release and truth are millions of small objects without reference cycles: with the collector on,
    # its first sweeps after disassociation walk all of them again while the figures and files are made.
    with no_gc():
        return _run_whole(args, params)


def _run_whole(args: argparse.Namespace, params: DisassociationParams) -> int:
    """One disassociation in this process: read, disassociate, print the figures, write the files."""
    start = time.perf_counter()
    dataset = load_input_dataset(args.input, format=args.format, **reading_options(args))
    params.check_records(len(dataset))
    loaded = time.perf_counter()
    seed = new_seed() if args.seed is None else args.seed
    result = run_disassociation(dataset, params, seed)
    release, truth, steps, report = result.release, result.truth, result.timings, result.safe_report
    safe_line = None
    if report is not None:
        safe_line = (f"safe: {report.partially_suppressed} chunks partially suppressed "
                     f"({report.ghost_records} ghost records, {report.ghost_records_removed} removed again), "
                     f"{report.fully_suppressed} suppressed; {report.suppressed_occurrences} occurrences suppressed, "
                     f"{report.emptied_records} records kept non-empty by {report.moved_to_term_chunk} terms "
                     f"({report.moved_occurrences} occurrences) in term chunks")
    seconds = time.perf_counter() - loaded
    load_seconds = loaded - start
    figures = summarize(dataset, release, truth)
    writing = time.perf_counter()
    with database_output(args, release):  # --to-db: the tables committed once the files are in place
        _write(release, truth if args.truth else None, args.output, args.truth)
    _print_run(args, params, dataset.name or args.input, len(dataset), figures, steps.records_suppressed,
               steps.records_moved, safe_line,
               f"loading {load_seconds:.2f}, disassociation {seconds:.2f} ({_phases(steps.steps())}), "
               f"writing {time.perf_counter() - writing:.2f}")
    return 0


def _phases(seconds: Mapping[str, object]) -> str:
    """``horpart 1.20, verpart 0.50, refine 3.10, build 0.90`` (and ``safe`` when it ran)."""
    steps = ["horpart", "verpart", "refine", "build"] + (["safe"] if seconds.get("safe") else [])
    return ", ".join(f"{step} {float(seconds[step]):.2f}" for step in steps)  # type: ignore[arg-type]


def _print_run(args: argparse.Namespace, params: DisassociationParams, name: str, n_records: int,
               figures: Mapping[str, float | int], suppressed: int, moved: int, safe_line: str | None,
               seconds: str) -> None:
    print(f"{name}: {n_records} records -> {args.output}" + (f" (truth: {args.truth})" if args.truth else ""))
    print(f"clusters {figures['clusters']}, joint clusters {figures['joint_clusters']}, "
          f"record chunks {figures['record_chunks']}, shared chunks {figures['shared_chunks']}")
    print(f"horpart {params.horpart}: records suppressed {suppressed}, moved to another cluster {moved}")
    print(f"term occurrences in term chunks {100 * figures['term_chunk_share']:.1f}%, "
          f"tlost {100 * figures['tlost']:.1f}%")
    if safe_line:
        print(safe_line)
    print(f"seconds: {seconds}")


def _run_split(args: argparse.Namespace, params: DisassociationParams) -> int:
    """``--split-depth D`` or ``--executor dask``: the parts disassociated one after the other (or on
    the cluster) and streamed into one release and truth (:mod:`anonymizer.disassociation.parts`)."""
    dask = args.executor == "dask"
    seed = new_seed() if args.seed is None else args.seed
    start = time.perf_counter()
    if dask:
        check_dask_input(args.input, args.format, reading_options(args))
        with dask_client(args.scheduler, args.workers) as client:
            run = plan_dask_run(client, args.input, params, seed, fmt=args.format, options=reading_options(args),
                                encode=True, with_truth=args.truth is not None)
            sizes = run.sizes
            if not params.identifiers_allowed:  # every term's support came back before any part runs
                refuse_identifiers(screen_terms(run.supports), args.input)
            split_at = time.perf_counter()
            figures, suppressed, moved = _stream(args, params, seed, run.results)
            name, n_records, supports = Path(args.input).name.split(".")[0], run.n_records, run.supports
    else:
        dataset = load_input_dataset(args.input, format=args.format, **reading_options(args))
        params.check_records(len(dataset))
        if not params.identifiers_allowed:
            refuse_identifiers(screen_dataset(dataset), dataset.name or args.input)
        parts = split_parts(dataset, params.split_depth, params.k, int(params.max_cluster_size))  # type: ignore
        sizes = [len(p) for p in parts]
        split_at = time.perf_counter()
        supports = dataset.supports()
        results = run_parts(dataset, parts, params, seed, encode=True, with_truth=args.truth is not None)
        results = pool_results(results, params, seed, supports, Path(args.output).parent)  # REFINE across parts
        figures, suppressed, moved = _stream(args, params, seed, results)
        name, n_records = dataset.name or args.input, len(dataset)
    done = time.perf_counter()
    where = "on Dask" if dask else "in this process"
    _print_run(args, params, name, n_records, figures.summary(supports, params.k), suppressed, moved,
               "safe: applied in every part" if params.safe else None,
               f"reading and splitting {split_at - start:.2f} ({len(sizes)} parts at depth {params.split_depth}, "
               f"the largest {max(sizes)} records), "
               f"disassociating and writing {done - split_at:.2f} {where} ({_phases(figures.seconds)} "
               f"{'added up over the workers' if dask else 'in all'})")
    return 0


def _stream(args: argparse.Namespace, params: DisassociationParams, seed: int, results: Iterable[PartResult]
            ) -> tuple[RunFigures, int, int]:
    """Write the encoded parts into one release (and truth) as they come; their figures added up."""
    figures = RunFigures(seconds=dict.fromkeys(("horpart", "verpart", "refine", "build", "safe"), 0.0))
    suppressed = moved = 0
    with ReleaseWriter(args.output, args.truth, params.to_json(), seed=seed,
                       safe_seed=seed if params.safe else None) as out:
        for result in results:
            if result.encoded is None or result.figures is None:
                raise ValueError("the parts of a streamed run must be encoded (run_parts(..., encode=True))")
            out.add(result.encoded)
            figures.merge(result.figures)
            suppressed += result.records_suppressed
            moved += result.records_moved
    return figures, suppressed, moved
