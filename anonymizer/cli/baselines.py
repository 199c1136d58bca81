"""`python -m anonymizer INPUT --method apriori|diffpart ...`: the baselines' command line.

Called by :func:`anonymizer.cli.anonymize.main` after the options were checked against the method. The
hierarchy comes from ``--hierarchy FILE`` (:func:`anonymizer.baselines.hierarchy.read_hierarchy`) or is a
balanced tree of ``--fanout F`` (default 5) over the dataset's items. The release (and, for
DiffPart with ``--truth``, the owner file holding the seed) is written atomically at the end.
"""

from __future__ import annotations

import argparse
import time

from anonymizer.baselines.generalized import GeneralizedRelease, OwnerFile
from anonymizer.baselines.hierarchy import DEFAULT_FANOUT, Hierarchy, balanced_hierarchy, read_hierarchy
from corpora.cli.options import reading_options
from corpora.common.errors import InputError
from corpora.common.files import check_output_paths
from corpora.dataset import TransactionDataset
from corpora.io.identifiers import refuse_identifiers, screen_dataset

__all__ = ["run_baseline", "hierarchy_for"]


def hierarchy_for(dataset: TransactionDataset, path: str | None, fanout: int | None) -> Hierarchy:
    """The hierarchy of a run: the file ``path``, or a balanced tree of ``fanout`` (default 5) over the items."""
    if path is not None:
        h = read_hierarchy(path)
        h.leaf_positions(list(dataset.vocabulary))  # every item must be a leaf: one error line otherwise
        return h
    return balanced_hierarchy(dataset.vocabulary, DEFAULT_FANOUT if fanout is None else fanout)


def _write(release: GeneralizedRelease, owner: OwnerFile | None, path: str, owner_path: str | None) -> None:
    from anonymizer.cli.anonymize import write_published_and_secret

    write_published_and_secret(release.to_dict(), path, owner.to_dict() if owner is not None else None, owner_path)


def run_baseline(args: argparse.Namespace) -> int:
    """Run Apriori or DiffPart as the parsed ``args`` say; print a short summary; return 0."""
    from anonymizer.cli.anonymize import _load

    check_output_paths({"release": args.output, "truth": args.truth},
                       {"input dataset": args.input, "hierarchy": args.hierarchy})
    if args.fanout is not None and args.fanout < 2:
        raise InputError(f"--fanout must be an integer >= 2, got {args.fanout}")
    if args.method == "apriori":
        from anonymizer.baselines.apriori import validate_apriori

        validate_apriori(None, args.k, args.m)
    else:
        from anonymizer.baselines.diffpart import validate_epsilon

        validate_epsilon(args.epsilon)
        if args.threshold is not None and not args.threshold >= 0:
            raise InputError(f"--threshold must be a number >= 0, got {args.threshold}")
    start = time.perf_counter()
    dataset = _load(args.input, args.format, **reading_options(args))
    if not args.allow_identifiers:
        refuse_identifiers(screen_dataset(dataset), dataset.name or args.input)
    hierarchy = hierarchy_for(dataset, args.hierarchy, args.fanout)
    loaded = time.perf_counter()
    name = dataset.name or args.input
    if args.method == "apriori":
        from anonymizer.baselines.apriori import AprioriStats, apriori_anonymize

        st = AprioriStats()
        release = apriori_anonymize(dataset, hierarchy, args.k, args.m, stats=st)
        if args.allow_identifiers:
            release.params["identifiers_allowed"] = True
        seconds = time.perf_counter() - loaded
        _write(release, None, args.output, None)
        print(f"{name}: {len(dataset)} records -> {args.output} (apriori, k={args.k}, m={args.m}, "
              f"hierarchy {hierarchy.source}: {len(hierarchy)} nodes, height {hierarchy.height})")
        print(f"generalized nodes {st.generalized_nodes}, fixes per round {st.fixes}, passes {st.passes}, "
              f"NCP {100 * st.ncp:.2f}%")
    else:
        from anonymizer.baselines.diffpart import DEFAULT_THRESHOLD_SD, DiffPartStats, diffpart
        from corpora.common.seeds import new_seed

        seed = new_seed() if args.seed is None else args.seed
        st2 = DiffPartStats()
        threshold = DEFAULT_THRESHOLD_SD if args.threshold is None else args.threshold
        release, owner = diffpart(dataset, hierarchy, args.epsilon, seed=seed, threshold_sd=threshold, stats=st2)
        if args.allow_identifiers:
            release.params["identifiers_allowed"] = True
        seconds = time.perf_counter() - loaded
        _write(release, owner, args.output, args.truth)
        print(f"{name}: {len(dataset)} records -> {args.output} (diffpart, epsilon={args.epsilon:g}, "
              f"hierarchy {hierarchy.source}: {len(hierarchy)} nodes)"
              + (f" (owner file with the seed: {args.truth})" if args.truth else ""))
        print(f"published records {st2.published_records} ({len(set(release.records))} distinct), "
              f"expansions {st2.expansions}, leaf partitions {st2.leaf_partitions}, "
              f"empty partitions kept by noise {st2.empty_partitions_kept}")
    print(f"seconds: loading {loaded - start:.2f}, {args.method} {seconds:.2f}")
    return 0
