"""`python -m anonymizer INPUT --method apriori|diffpart ...`: the baselines' command line.

Called by :func:`anonymizer.cli.anonymize.run` after the options were checked against the method. The
options become one :class:`~anonymizer.model.params.AprioriParams` or
:class:`~anonymizer.model.params.DiffPartParams`, checked when it is made. The hierarchy comes from
``--hierarchy FILE`` (:func:`anonymizer.baselines.hierarchy.read_hierarchy`) or is a balanced tree of
``--fanout F`` (default 5) over the dataset's items. The release (and, for DiffPart with ``--truth``,
the owner file holding the seed) is written atomically at the end.
"""

from __future__ import annotations

import argparse
import time

from anonymizer.baselines.apriori import run_apriori
from anonymizer.baselines.diffpart import run_diffpart
from anonymizer.baselines.generalized import GeneralizedRelease, OwnerFile
from anonymizer.baselines.hierarchy import Hierarchy, balanced_hierarchy, read_hierarchy
from anonymizer.cli.common import load_input_dataset, write_published_and_secret
from anonymizer.model.params import DEFAULT_FANOUT, DEFAULT_THRESHOLD_SD, AprioriParams, DiffPartParams
from corpora.cli.options import reading_options
from corpora.common.errors import InputError
from corpora.common.files import check_output_paths, write_text_atomic
from corpora.common.seeds import new_seed
from corpora.dataset import TransactionDataset
from corpora.io.identifiers import refuse_identifiers, screen_dataset

__all__ = ["baseline_params", "hierarchy_for", "run_baseline"]


def hierarchy_for(dataset: TransactionDataset, path: str | None, fanout: int | None) -> Hierarchy:
    """The hierarchy of a run: the file ``path``, or a balanced tree of ``fanout`` (default 5) over the items."""
    if path is not None:
        h = read_hierarchy(path)
        h.leaf_positions(list(dataset.vocabulary))  # every item must be a leaf: one error line otherwise
        return h
    return balanced_hierarchy(dataset.vocabulary, DEFAULT_FANOUT if fanout is None else fanout)


def _write(release: GeneralizedRelease, owner: OwnerFile | None, path: str, owner_path: str | None) -> None:
    if owner is None or owner_path is None:  # the release alone: its JSON text written as is
        write_text_atomic(path, release.to_json_text() + "\n")
        return
    write_published_and_secret(release.to_dict(), path, owner.to_dict(), owner_path)


def baseline_params(args: argparse.Namespace) -> AprioriParams | DiffPartParams:
    """The one parameters object of an Apriori or DiffPart run, from the parsed options (checked here)."""
    label = args.hierarchy if args.hierarchy is not None else f"fanout:{args.fanout or DEFAULT_FANOUT}"
    if args.method == "apriori":
        return AprioriParams(args.k, args.m, label, bool(args.allow_identifiers))
    threshold = DEFAULT_THRESHOLD_SD if args.threshold is None else args.threshold
    try:
        return DiffPartParams(args.epsilon, label, threshold, identifiers_allowed=bool(args.allow_identifiers))
    except InputError as exc:
        if str(exc).startswith("threshold") and not threshold >= 0:  # the command line names its option
            raise InputError(f"--{exc}") from None
        raise


def run_baseline(args: argparse.Namespace) -> int:
    """Run Apriori or DiffPart as the parsed ``args`` say; print a short summary; return 0."""
    check_output_paths({"release": args.output, "truth": args.truth},
                       {"input dataset": args.input, "hierarchy": args.hierarchy})
    params = baseline_params(args)
    start = time.perf_counter()
    dataset = load_input_dataset(args.input, format=args.format, **reading_options(args))
    if not params.identifiers_allowed:
        refuse_identifiers(screen_dataset(dataset), dataset.name or args.input)
    hierarchy = hierarchy_for(dataset, args.hierarchy, args.fanout)
    loaded = time.perf_counter()
    name = dataset.name or args.input
    if isinstance(params, AprioriParams):
        result = run_apriori(dataset, hierarchy, params)
        release, st = result.release, result.stats
        seconds = time.perf_counter() - loaded
        _write(release, None, args.output, None)
        print(f"{name}: {len(dataset)} records -> {args.output} (apriori, k={params.k}, m={params.m}, "
              f"hierarchy {hierarchy.source}: {len(hierarchy)} nodes, height {hierarchy.height})")
        print(f"generalized nodes {st.generalized_nodes}, fixes per round {st.fixes}, passes {st.passes}, "
              f"NCP {100 * st.ncp:.2f}%")
    else:
        seed = new_seed() if args.seed is None else args.seed
        outcome = run_diffpart(dataset, hierarchy, params, seed)
        st2 = outcome.stats
        seconds = time.perf_counter() - loaded
        _write(outcome.release, outcome.owner, args.output, args.truth)
        print(f"{name}: {len(dataset)} records -> {args.output} (diffpart, epsilon={args.epsilon:g}, "
              f"hierarchy {hierarchy.source}: {len(hierarchy)} nodes)"
              + (f" (owner file with the seed: {args.truth})" if args.truth else ""))
        print(f"published records {st2.published_records} ({len(set(outcome.release.records))} distinct), "
              f"expansions {st2.expansions}, leaf partitions {st2.leaf_partitions}, "
              f"empty partitions kept by noise {st2.empty_partitions_kept}")
    print(f"seconds: loading {loaded - start:.2f}, {args.method} {seconds:.2f}")
    return 0
