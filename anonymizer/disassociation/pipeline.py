"""Disassociation (Terrovitis2012 sections 3-5): HORPART, VERPART with Lemma 2, REFINE, and the
release builder (:mod:`anonymizer.disassociation.publish`), run on a whole dataset or part by part.

The parameters of a run are one :class:`~anonymizer.model.params.DisassociationParams`, checked when
it is made; :func:`run_disassociation` takes it and returns a :class:`DisassociationResult` (the
release, its truth, the seconds of each step and, with ``safe``, Awad2019's report).
:func:`disassociate` is the keyword API over it. A split run (``split_depth > 0``) cuts the dataset
by HORPART's first splits (:mod:`anonymizer.disassociation.parts`) and disassociates each part here
(:func:`disassociate_part`, :func:`run_parts`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from anonymizer.disassociation.horpart import HorizontalPartition, horpart, join_small_clusters
from anonymizer.disassociation.parts import Part, PartResult, RunFigures, split_parts
from anonymizer.disassociation.publish import build_release
from anonymizer.disassociation.refine import refine as refine_step
from anonymizer.disassociation.refine import restore_lemma2
from anonymizer.disassociation.safe import SafeResult, safe_disassociate_report
from anonymizer.disassociation.split_refine import summarize_part
from anonymizer.disassociation.split_stream import pool_results
from anonymizer.disassociation.verpart import partition_clusters
from anonymizer.io.json_writer import encode_part, merge_parts
from anonymizer.model.params import (
    DEFAULT_MAX_CLUSTER_SIZE,
    DEFAULT_MAX_ITEMSETS,
    DEFAULT_SAFE_TARGETS,
    DisassociationParams,
    default_max_cluster_size,
)
from anonymizer.model.release import Release, Truth
from corpora.common.errors import InputError
from corpora.common.gcpause import no_gc
from corpora.common.seeds import part_seed, resolve_seed
from corpora.dataset import TransactionDataset
from corpora.io.identifiers import refuse_identifiers, screen_dataset

__all__ = ["DEFAULT_MAX_CLUSTER_SIZE", "DisassociationParams", "DisassociationResult", "DisassociationTimings",
           "build_release", "check_split_depth", "default_max_cluster_size", "disassociate", "disassociate_part",
           "run_disassociation", "run_parts", "validate_parameters"]

STEPS = ("horpart", "verpart", "refine", "build")


@dataclass
class DisassociationTimings:
    """Seconds spent in each step of one run, and the records HORPART did not publish or moved:
    ``records_suppressed`` (the ``suppression`` strategy), ``records_moved`` (``adding``/``remaining``,
    plus the join step that gives every cluster k records; see
    :func:`anonymizer.disassociation.horpart.join_small_clusters`). ``extra`` holds ``split`` (split
    runs) and ``safe`` (safe runs)."""

    horpart: float = 0.0
    verpart: float = 0.0
    refine: float = 0.0
    build: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)
    records_suppressed: int = 0
    records_moved: int = 0

    @property
    def total(self) -> float:
        return self.horpart + self.verpart + self.refine + self.build

    def steps(self) -> dict[str, float]:
        """``{"horpart": s, "verpart": s, "refine": s, "build": s}``."""
        return {step: getattr(self, step) for step in STEPS}


@dataclass(frozen=True)
class DisassociationResult:
    """What one run returns: the release, its truth, the timings and, with ``safe``, the safe report."""

    release: Release
    truth: Truth
    timings: DisassociationTimings
    safe_report: SafeResult | None = None


def validate_parameters(
    n_records: int | None, k: object, m: object, max_cluster_size: object, horpart_name: object, verpart_name: object
) -> None:
    """Raise :class:`InputError` (one line) unless the parameters make sense (checked by
    :class:`~anonymizer.model.params.DisassociationParams`); ``n_records=None`` skips the dataset's size."""
    params = DisassociationParams(k, m, max_cluster_size, horpart_name, verpart_name)  # type: ignore[arg-type]
    if n_records is not None:
        params.check_records(n_records)


def check_split_depth(split_depth: object) -> None:
    """Raise :class:`InputError` unless ``split_depth`` is an integer from 0 to ``MAX_SPLIT_DEPTH``."""
    DisassociationParams(split_depth=split_depth)  # type: ignore[arg-type]


def _as_dataset(dataset: object) -> TransactionDataset:
    if isinstance(dataset, TransactionDataset):
        return dataset
    if isinstance(dataset, (str, bytes)) or not isinstance(dataset, Iterable):
        raise InputError("dataset must be a TransactionDataset or a list of records (corpora.load_dataset "
                         f"reads files and names), got {type(dataset).__name__}")
    return TransactionDataset.from_records(dataset)


def _check_dataset(dataset: TransactionDataset, params: DisassociationParams) -> None:
    """The checks of the data itself (after :meth:`DisassociationParams.check_records`): no record
    empty, no term that looks like a direct identifier unless the owner allowed them."""
    empty = np.flatnonzero(np.diff(np.asarray(dataset.indptr)) == 0)
    if len(empty):
        raise InputError(f"record {int(empty[0])} is empty ({len(empty)} empty record(s)): disassociation needs "
                         "non-empty records (Terrovitis2012 section 5: a valid dataset has no empty record)")
    if not params.identifiers_allowed:
        refuse_identifiers(screen_dataset(dataset), dataset.name or "the dataset")


def run_disassociation(dataset: TransactionDataset | Iterable[Iterable[str]], params: DisassociationParams,
                       seed: int | None = None, *, record_ids: Sequence[int] | np.ndarray | None = None
                       ) -> DisassociationResult:
    """Disassociate ``dataset`` with ``params`` (see :func:`disassociate`); the result holds the
    release, the truth, the seconds of each step and the records HORPART suppressed or moved."""
    dataset = _as_dataset(dataset)
    params.check_records(len(dataset))
    seed = resolve_seed(seed)
    _check_dataset(dataset, params)
    ids = None if record_ids is None else np.asarray(record_ids, dtype=np.int64)
    if ids is not None and (ids.shape != (len(dataset),) or (len(ids) and int(ids.min()) < 0)):
        raise InputError(f"record_ids must hold one id >= 0 per record ({len(dataset)}), got shape {ids.shape}")
    if params.split_depth:
        if ids is not None:
            raise InputError("record_ids and split_depth cannot be combined (a split run numbers its parts' records)")
        return _run_split(dataset, params, seed)
    return _run_whole(dataset, params, seed, ids)


def _run_whole(dataset: TransactionDataset, params: DisassociationParams, seed: int,
               record_ids: np.ndarray | None) -> DisassociationResult:
    """One disassociation of a checked dataset (no split), then safe disassociation if asked."""
    with no_gc():
        release, truth, timings = _disassociate(dataset, params, seed, record_ids)
    if not params.safe:
        return DisassociationResult(release, truth, timings)
    start = time.perf_counter()
    report = safe_disassociate_report(release, truth, seed=seed, targets=params.safe_targets)
    timings.extra["safe"] = time.perf_counter() - start
    return DisassociationResult(report.release, report.truth, timings, report)


def _disassociate(dataset: TransactionDataset, params: DisassociationParams, seed: int,
                  record_ids: np.ndarray | None = None) -> tuple[Release, Truth, DisassociationTimings]:
    k, m, size = params.k, params.m, int(params.max_cluster_size)  # type: ignore[arg-type]
    t0 = time.perf_counter()
    hp: HorizontalPartition = join_small_clusters(horpart(dataset, k, size, params.horpart), dataset, k, size)
    t1 = time.perf_counter()
    table = partition_clusters(dataset, hp.clusters, k, m, params.verpart, params.max_itemsets)
    t2 = time.perf_counter()
    plans: list = []
    if params.refine:
        plans = refine_step(dataset, table, k, m)  # the table itself: no term strings on the way
        table = restore_lemma2(table, plans, k, m).table  # Lemma 2 on every leaf REFINE touched
    t3 = time.perf_counter()
    published = {**params.to_json(), "safe": False}  # safe disassociation marks its own output
    published.pop("split_depth", None)
    release, truth = build_release(table, plans, published, seed, record_ids)
    t4 = time.perf_counter()
    timings = DisassociationTimings(t1 - t0, t2 - t1, t3 - t2, t4 - t3, {}, len(hp.suppressed), hp.moved + hp.joined)
    return release, truth, timings


def _run_split(dataset: TransactionDataset, params: DisassociationParams, seed: int) -> DisassociationResult:
    """A split run in this process: the parts one after the other, merged in memory."""
    t0 = time.perf_counter()
    parts = split_parts(dataset, params.split_depth, params.k, int(params.max_cluster_size))  # type: ignore[arg-type]
    split_seconds = time.perf_counter() - t0
    results = list(pool_results(run_parts(dataset, parts, params, seed), params, seed, dataset.supports()))
    timings = DisassociationTimings(*(sum(r.seconds[step] for r in results) for step in STEPS),
                                    {"split": split_seconds}, sum(r.records_suppressed for r in results),
                                    sum(r.records_moved for r in results))
    release, truth = merge_parts(((r.release, r.truth) for r in results), params.to_json(), seed,
                                 seed if params.safe else None)
    return DisassociationResult(release, truth, timings)


def disassociate(
    dataset: TransactionDataset | Iterable[Iterable[str]],
    k: int = 3,
    m: int = 2,
    max_cluster_size: int | None = None,
    horpart: str = "original",
    verpart: str = "strict",
    refine: bool = True,
    seed: int | None = None,
    *,
    safe: bool = False,
    safe_targets: str = DEFAULT_SAFE_TARGETS,
    split_depth: int = 0,
    record_ids: Sequence[int] | np.ndarray | None = None,
    allow_identifiers: bool = False,
    max_itemsets: int | None = DEFAULT_MAX_ITEMSETS,
    params: DisassociationParams | None = None,
) -> tuple[Release, Truth]:
    """Disassociate ``dataset`` into a k^m-anonymous release (Terrovitis2012 sections 3-5).

    HORPART strategy ``horpart`` (``original``: Terrovitis2012's algorithm; ``abandon``,
    ``suppression``, ``adding``, ``remaining``: AlShuhail2021 3.3.1), then the join step that
    gives every cluster at least k records (Terrovitis2012 section 5, proof of Lemma 2; see
    :func:`anonymizer.disassociation.horpart.join_small_clusters`), VERPART variant ``verpart`` (``original``:
    Terrovitis2012's; ``strict``, ``grouped``: AlShuhail2021 3.3.3) with the Lemma 2 size
    condition in every cluster, REFINE (joint clusters and shared chunks) unless ``refine`` is
    False, then the release and truth with clusters ``P1..Pn`` and joint clusters ``J1..``.

    The keywords make one :class:`~anonymizer.model.params.DisassociationParams` (checked once);
    pass ``params=`` instead to give that object itself. :func:`run_disassociation` takes the same
    object and also returns the seconds of each step (what benchmarks and experiments read).

    ``seed`` (an integer in 0..2**128 - 1) drives the publishing shuffle; ``None`` draws a fresh
    one from the operating system's entropy. The seed used is stored in the truth (``truth.seed``),
    never in the release; the same arguments and seed give the same release and truth, byte for
    byte.

    Defaults: k=3, m=2 and ``max_cluster_size=None``, which means
    :func:`~anonymizer.model.params.default_max_cluster_size` (30, or 2k - 1 when that is larger).
    ``dataset`` may also be a list of records (each an iterable of string terms). ``safe=True``
    then applies Awad2019's safe disassociation
    (:func:`anonymizer.disassociation.safe.safe_disassociate` with the same seed and
    ``targets=safe_targets``), as ``python -m anonymizer --safe`` does.

    ``split_depth > 0`` first cuts the dataset by that many levels of HORPART's first splits and
    disassociates each part on its own (:mod:`anonymizer.disassociation.parts`, where what stays the same as the
    unsplit run is stated): the way to run tens of millions of records in bounded memory, and
    what ``--executor dask`` distributes. The release's params then carry ``split_depth``.
    ``record_ids`` are the ids the truth gives the records (default: their positions 0..n-1); a
    split run passes each part's positions in the whole dataset.

    Before any work the terms are screened for direct identifiers (e-mail addresses, phone numbers,
    long numeric or hex ids, IP addresses, URLs naming a user, values of the reader's user column:
    :mod:`corpora.io.identifiers`), because every term is published, rare ones in the clear in a term
    chunk. A flagged term raises :class:`InputError` unless ``allow_identifiers=True``, which the
    release's params then record as ``identifiers_allowed: true``.

    >>> from corpora import load_dataset
    >>> release, truth = disassociate(load_dataset("terrovitis2012-fig2"), k=2, m=2, seed=7)
    >>> release
    Release(k=2, m=2, max_cluster_size=30, safe=False, records=10, clusters=1, joint_clusters=0, record_chunks=6)
    """
    dataset = _as_dataset(dataset)
    keywords = dict(k=k, m=m, max_cluster_size=max_cluster_size, horpart=horpart, verpart=verpart, refine=refine,
                    safe=safe, safe_targets=safe_targets, split_depth=split_depth,
                    identifiers_allowed=allow_identifiers, max_itemsets=max_itemsets)
    if params is None:
        params = DisassociationParams(**keywords)  # type: ignore[arg-type]
    elif any(value != _DEFAULTS[name] for name, value in keywords.items()):
        raise InputError("give params= or the parameter keywords (k, m, ...), not both")
    result = run_disassociation(dataset, params, seed, record_ids=record_ids)
    return result.release, result.truth


_DEFAULTS = dict(k=3, m=2, max_cluster_size=None, horpart="original", verpart="strict", refine=True, safe=False,
                 safe_targets=DEFAULT_SAFE_TARGETS, split_depth=0, identifiers_allowed=False,
                 max_itemsets=DEFAULT_MAX_ITEMSETS)
"""The keyword defaults of :func:`disassociate` (the defaults of :class:`DisassociationParams`)."""


def disassociate_part(dataset: TransactionDataset, index: int, records: np.ndarray, params: DisassociationParams,
                      seed: int, split: bool = True, encode: bool = False, with_truth: bool = True) -> PartResult:
    """Disassociate one part (``dataset`` holds only its records) with its own seed.

    ``seed`` is the owner's seed; part ``index`` draws from :func:`corpora.common.seeds.part_seed`
    unless ``split`` is False (the unsplit run, which uses the owner's seed as is). ``encode``
    returns the part as JSON pieces with its figures instead of objects (what the streaming writer
    takes, and all a Dask worker sends back); ``with_truth=False`` leaves the truth out of them.
    The parameters were checked when ``params`` was made; the part's data is checked here.
    """
    params.check_records(len(dataset))
    _check_dataset(dataset, params)
    ids = np.asarray(records, dtype=np.int64)
    result = _run_whole(dataset, params, part_seed(seed, index) if split else seed, ids if split else None)
    timings = result.timings
    seconds = {**timings.steps(), "safe": timings.extra.get("safe", 0.0)}
    part = PartResult(index, result.release, result.truth, ids, seconds, timings.records_suppressed,
                      timings.records_moved)
    if split and params.refine:  # what REFINE across the parts needs (split_refine.pool_results)
        part.pool = summarize_part(result.release, result.truth, params.k, params.m)
    if encode:
        with no_gc():
            part.figures = RunFigures(seconds=dict(seconds))
            part.figures.add(result.release, result.truth)
            part.encoded = encode_part(result.release, result.truth if with_truth else None)
        part.release = part.truth = None
    return part


def run_parts(dataset: TransactionDataset, parts: Sequence[Part], params: DisassociationParams, seed: int,
              progress: bool | None = None, encode: bool = False, with_truth: bool = True) -> Iterator[PartResult]:
    """Disassociate the parts one after the other in this process, yielding each as it is done
    (only one part's release is alive at a time when the caller writes and drops it); ``encode``
    and ``with_truth`` as in :func:`disassociate_part`."""
    split = len(parts) > 1 or bool(parts and parts[0].path)
    with tqdm(total=sum(len(p) for p in parts), desc="disassociating parts", unit="rec", leave=False,
              disable=None if progress is None else not progress) as bar:
        for part in parts:
            sub = dataset.subset(part.records) if split else dataset
            yield disassociate_part(sub, part.index, part.records, params, seed, split=split, encode=encode,
                                    with_truth=with_truth)
            bar.update(len(part))
