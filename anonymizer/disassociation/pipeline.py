"""Disassociation (Terrovitis2012 sections 3-5): HORPART, VERPART with Lemma 2, REFINE, and the
builder that turns the partitions into a published :class:`~anonymizer.model.release.Release` and its
secret :class:`~anonymizer.model.release.Truth`.

Publishing order (Terrovitis2012 section 3: "the order of the subrecords that fall in a chunk is
randomized"). The shuffle draws from the ``"publish"`` stream of the secret seed
(:mod:`corpora.common.seeds`): the seed goes to the truth file, never to the release, and is drawn
from the operating system's entropy unless the caller passes one, so no one holding the release
alone can replay the shuffle. As a second line of defence, every chunk's sub-records are first
put in a *content order* (a fixed 64-bit set hash of each sub-record, which depends only on its
terms; equal sub-records are interchangeable) and only then shuffled: even a replayed shuffle
gives back an order that depends on the sub-records' contents alone, never on which record they
came from, and the release is the same bytes whatever the order of the records inside their
clusters. The truth file lists the record id of every published sub-record in the same order.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from anonymizer.disassociation.horpart import (
    BOUNDED_STRATEGIES,
    HORPART_STRATEGIES,
    HorizontalPartition,
    horpart,
    join_small_clusters,
)
from anonymizer.disassociation.verpart import (
    DEFAULT_MAX_ITEMSETS,
    VERPART_STRATEGIES,
    PartitionTable,
    VerticalPartition,
    partition_clusters,
)
from anonymizer.model.release import Cluster, ClusterTruth, JointCluster, JointClusterTruth, Release, Truth
from corpora.common.errors import InputError
from corpora.common.gcpause import no_gc
from corpora.common.seeds import generator, resolve_seed
from corpora.dataset import TransactionDataset
from corpora.io.identifiers import refuse_identifiers, screen_dataset

__all__ = ["DEFAULT_MAX_CLUSTER_SIZE", "DisassociationTimings", "default_max_cluster_size", "disassociate",
           "build_release", "check_split_depth", "validate_parameters"]

_HASH_SEED = 0x5EED_D15A
"""Seed of the fixed table of 64-bit term hashes that gives sub-records their content order."""


@dataclass
class DisassociationTimings:
    """Seconds spent in each step of one :func:`disassociate` call (pass one as ``timings=``), and
    the records HORPART did not publish or moved: ``records_suppressed`` (the ``suppression``
    strategy), ``records_moved`` (``adding``/``remaining``, plus the join step that gives every
    cluster k records; see :func:`anonymizer.disassociation.horpart.join_small_clusters`)."""

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


def _is_int(x: object) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def validate_parameters(
    n_records: int | None, k: object, m: object, max_cluster_size: object, horpart_name: object, verpart_name: object
) -> None:
    """Raise :class:`InputError` (one line) unless the disassociation parameters make sense.

    ``n_records=None`` skips the check that the dataset holds at least k records. Every HORPART
    strategy but ``abandon`` promises clusters of k to ``max_cluster_size`` records, which needs
    ``max_cluster_size >= 2k - 1`` (2k - 1 records fit neither one smaller cluster nor two of k):
    a smaller maximum is refused for them.
    """
    if not _is_int(k) or int(k) < 2:  # type: ignore[arg-type]
        raise InputError(f"k must be an integer >= 2, got {k!r}")
    if not _is_int(m) or int(m) < 1:  # type: ignore[arg-type]
        raise InputError(f"m must be an integer >= 1, got {m!r}")
    if not _is_int(max_cluster_size) or int(max_cluster_size) < int(k):  # type: ignore[arg-type]
        raise InputError(f"max cluster size must be an integer >= k ({k}), got {max_cluster_size!r}")
    if horpart_name not in HORPART_STRATEGIES:
        raise InputError(f"unknown horpart strategy {horpart_name!r}; choose one of: {', '.join(HORPART_STRATEGIES)}")
    if horpart_name in BOUNDED_STRATEGIES and int(max_cluster_size) < 2 * int(k) - 1:  # type: ignore[arg-type]
        raise InputError(f"max cluster size {max_cluster_size} is below 2k - 1 = {2 * int(k) - 1}: "
                         f"horpart {horpart_name!r} cannot keep clusters between k and the maximum "
                         "(use a larger maximum, or --horpart abandon)")
    if verpart_name not in VERPART_STRATEGIES:
        raise InputError(f"unknown verpart variant {verpart_name!r}; choose one of: {', '.join(VERPART_STRATEGIES)}")
    if n_records is not None and n_records < int(k):  # type: ignore[arg-type]
        raise InputError(f"the dataset has {n_records} records, fewer than k = {k}")


DEFAULT_MAX_CLUSTER_SIZE = 30
"""The largest cluster HORPART keeps when none is given: 30, the setting of the project's
Terrovitis2012 sweep and benchmarks (Terrovitis2012 section 7 does not state one; Awad2019 and
Barakat2016 sweep 10 to 60). Never below 2k - 1 (Lemma 2's size condition, see
:func:`validate_parameters`): :func:`default_max_cluster_size`."""


def default_max_cluster_size(k: int) -> int:
    """``max(30, 2k - 1)``: :data:`DEFAULT_MAX_CLUSTER_SIZE`, raised to 2k - 1 for a large k."""
    return max(DEFAULT_MAX_CLUSTER_SIZE, 2 * int(k) - 1) if _is_int(k) else DEFAULT_MAX_CLUSTER_SIZE


def disassociate(
    dataset: TransactionDataset | Iterable[Iterable[str]],
    k: int = 3,
    m: int = 2,
    max_cluster_size: int | None = None,
    horpart: str = "original",
    verpart: str = "strict",
    refine: bool = True,
    seed: int | None = None,
    timings: DisassociationTimings | None = None,
    *,
    safe: bool = False,
    safe_targets: str = "linkable",
    split_depth: int = 0,
    record_ids: Sequence[int] | np.ndarray | None = None,
    allow_identifiers: bool = False,
    max_itemsets: int | None = DEFAULT_MAX_ITEMSETS,
) -> tuple[Release, Truth]:
    """Disassociate ``dataset`` into a k^m-anonymous release (Terrovitis2012 sections 3-5).

    HORPART strategy ``horpart`` (``original``: Terrovitis2012's algorithm; ``abandon``,
    ``suppression``, ``adding``, ``remaining``: AlShuhail2021 3.3.1), then the join step that
    gives every cluster at least k records (Terrovitis2012 section 5, proof of Lemma 2; see
    :func:`anonymizer.disassociation.horpart.join_small_clusters`), VERPART variant ``verpart`` (``original``:
    Terrovitis2012's; ``strict``, ``grouped``: AlShuhail2021 3.3.3) with the Lemma 2 size
    condition in every cluster, REFINE (joint clusters and shared chunks) unless ``refine`` is
    False, then the release and truth with clusters ``P1..Pn`` and joint clusters ``J1..``.

    ``seed`` (an integer in 0..2**128 - 1) drives the publishing shuffle; ``None`` draws a fresh
    one from the operating system's entropy. The seed used is stored in the truth (``truth.seed``),
    never in the release; the same arguments and seed give the same release and truth, byte for
    byte. When ``timings`` is given, the seconds of each step are written into it (benchmarks and
    experiments read them).

    Defaults: k=3, m=2 and ``max_cluster_size=None``, which means :func:`default_max_cluster_size`
    (30, or 2k - 1 when that is larger). ``dataset`` may also be a list of records (each an
    iterable of string terms). ``safe=True`` then applies Awad2019's safe disassociation
    (:func:`anonymizer.disassociation.safe.safe_disassociate` with the same seed and ``targets=safe_targets``),
    as ``python -m anonymizer --safe`` does.

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
    if not isinstance(dataset, TransactionDataset):
        if isinstance(dataset, (str, bytes)) or not isinstance(dataset, Iterable):
            raise InputError("dataset must be a TransactionDataset or a list of records (corpora.load_dataset "
                             f"reads files and names), got {type(dataset).__name__}")
        dataset = TransactionDataset.from_records(dataset)
    if max_cluster_size is None:
        max_cluster_size = default_max_cluster_size(k)
    validate_parameters(len(dataset), k, m, max_cluster_size, horpart, verpart)
    seed = resolve_seed(seed)
    empty = np.flatnonzero(np.diff(np.asarray(dataset.indptr)) == 0)
    if len(empty):
        raise InputError(f"record {int(empty[0])} is empty ({len(empty)} empty record(s)): disassociation needs "
                         "non-empty records (Terrovitis2012 section 5: a valid dataset has no empty record)")
    k, m, max_cluster_size = int(k), int(m), int(max_cluster_size)
    if not allow_identifiers:
        refuse_identifiers(screen_dataset(dataset), dataset.name or "the dataset")
    check_split_depth(split_depth)
    ids = None if record_ids is None else np.asarray(record_ids, dtype=np.int64)
    if ids is not None and (ids.shape != (len(dataset),) or (len(ids) and int(ids.min()) < 0)):
        raise InputError(f"record_ids must hold one id >= 0 per record ({len(dataset)}), got shape {ids.shape}")
    if split_depth:
        if ids is not None:
            raise InputError("record_ids and split_depth cannot be combined (a split run numbers its parts' records)")
        return _disassociate_split(dataset, k, m, max_cluster_size, horpart, verpart, refine, seed, timings, safe,
                                   safe_targets, int(split_depth), bool(allow_identifiers), max_itemsets)
    with no_gc():
        release, truth = _disassociate(dataset, k, m, max_cluster_size, horpart, verpart, refine, seed,
                                       timings if timings is not None else DisassociationTimings(), ids,
                                       max_itemsets)
    if allow_identifiers:
        release = release.with_params(identifiers_allowed=True)
    if safe:
        from anonymizer.disassociation.safe import safe_disassociate

        release, truth = safe_disassociate(release, truth, seed=seed, targets=safe_targets)
    return release, truth


def _disassociate(
    dataset: TransactionDataset, k: int, m: int, max_cluster_size: int, horpart: str, verpart: str,
    refine: bool, seed: int, timings: DisassociationTimings, record_ids: np.ndarray | None = None,
    max_itemsets: int | None = DEFAULT_MAX_ITEMSETS,
) -> tuple[Release, Truth]:
    t0 = time.perf_counter()
    hp: HorizontalPartition = join_small_clusters(_horpart(dataset, k, max_cluster_size, horpart), dataset, k,
                                                  max_cluster_size)
    timings.records_suppressed, timings.records_moved = len(hp.suppressed), hp.moved + hp.joined
    t1 = time.perf_counter()
    table = partition_clusters(dataset, hp.clusters, k, m, verpart, max_itemsets)
    t2 = time.perf_counter()
    plans: list = []
    partitions: list[VerticalPartition] | None = None
    if refine:
        from anonymizer.disassociation.refine import refine as refine_step
        from anonymizer.disassociation.refine import restore_lemma2

        partitions = table.partitions()
        plans = refine_step(dataset, partitions, k, m)
        table = restore_lemma2(table, plans, k, m).table  # Lemma 2 on every leaf REFINE touched
    t3 = time.perf_counter()
    params = {
        "k": k,
        "m": m,
        "max_cluster_size": max_cluster_size,
        "horpart": horpart,
        "verpart": verpart,
        "refine": bool(refine),
        "safe": False,
    }
    release, truth = build_release(table, plans, params, seed, record_ids)
    t4 = time.perf_counter()
    timings.horpart, timings.verpart, timings.refine, timings.build = t1 - t0, t2 - t1, t3 - t2, t4 - t3
    return release, truth


def check_split_depth(split_depth: object) -> None:
    """Raise :class:`InputError` unless ``split_depth`` is an integer from 0 to ``MAX_SPLIT_DEPTH``."""
    from anonymizer.disassociation.parts import MAX_SPLIT_DEPTH

    if not _is_int(split_depth) or not 0 <= int(split_depth) <= MAX_SPLIT_DEPTH:  # type: ignore[arg-type]
        raise InputError(f"split depth must be an integer from 0 to {MAX_SPLIT_DEPTH}, got {split_depth!r}")


def _disassociate_split(
    dataset: TransactionDataset, k: int, m: int, max_cluster_size: int, horpart: str, verpart: str, refine: bool,
    seed: int, timings: DisassociationTimings | None, safe: bool, safe_targets: str, split_depth: int,
    identifiers_allowed: bool = False, max_itemsets: int | None = DEFAULT_MAX_ITEMSETS,
) -> tuple[Release, Truth]:
    """:func:`disassociate` with ``split_depth > 0``: the parts one after the other, merged in memory."""
    from anonymizer.disassociation.parts import Settings, run_parts, split_params, split_parts
    from anonymizer.io.json_writer import merge_parts

    settings = Settings(k, m, max_cluster_size, horpart, verpart, bool(refine), bool(safe), safe_targets,
                        identifiers_allowed, max_itemsets)
    t0 = time.perf_counter()
    parts = split_parts(dataset, split_depth, k, max_cluster_size)
    split_seconds = time.perf_counter() - t0
    results = list(run_parts(dataset, parts, settings, seed))
    if timings is not None:
        for step in ("horpart", "verpart", "refine", "build"):
            setattr(timings, step, sum(r.seconds[step] for r in results))
        timings.extra["split"] = split_seconds
        timings.records_suppressed = sum(r.records_suppressed for r in results)
        timings.records_moved = sum(r.records_moved for r in results)
    return merge_parts(((r.release, r.truth) for r in results), split_params(settings, split_depth),
                       seed, seed if safe else None)


_horpart = horpart  # the parameter named ``horpart`` shadows the function inside disassociate()


def _term_hashes(n_terms: int) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64(_HASH_SEED))
    return rng.integers(0, np.iinfo(np.uint64).max, size=max(n_terms, 1), dtype=np.uint64, endpoint=True)


def _shuffled_order(groups: np.ndarray, hashes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Order of items: by group (ascending), and within a group a seeded shuffle of the content order.

    The content order sorts by the sub-record hash; only identical sub-records (equal hashes) keep
    their input order among themselves, which the release cannot show. The shuffle draws a 32-bit
    key per item in content order; equal keys keep content order, so no tie reveals record order.
    """
    n = len(groups)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    by_hash = np.argsort(hashes, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[by_hash] = np.arange(n, dtype=np.int64)
    g = groups.astype(np.int64)
    canonical = np.argsort((g << 32) | rank, kind="stable")
    noise = rng.integers(0, 2**32, size=n, dtype=np.int64)
    return canonical[np.argsort((g[canonical] << 32) | noise, kind="stable")]


def build_release(
    table: PartitionTable, plans: Sequence, params: dict, seed: int, record_ids: np.ndarray | None = None
) -> tuple[Release, Truth]:
    """Build the release and truth from VERPART's table and REFINE's joint plans (interfaces_refine).

    ``params`` are published as given (they must not hold the seed); ``seed`` drives the
    publishing shuffle and is stored in the truth. The truth names record ``i`` of the table
    ``record_ids[i]`` (default: ``i``).
    """

    def ids(positions: np.ndarray) -> np.ndarray:
        return positions if record_ids is None else record_ids[positions]

    if "seed" in params:
        raise ValueError("params must not hold the seed: the release is published, the seed is secret")
    rng = generator(seed, "publish")
    voc = np.asarray(table.vocabulary, dtype=object)
    n_cl = len(table.clusters)
    hashes = _term_hashes(len(table.vocabulary))

    # ---- record chunks: one sub-record per (chunk, record) with a non-empty projection
    support = table.pair_end - table.pair_start
    in_chunk = table.pair_chunk >= 0
    chunk_offset = np.zeros(n_cl + 1, dtype=np.int64)
    np.cumsum(table.n_chunks, out=chunk_offset[1:])
    pair_gid = np.where(in_chunk, chunk_offset[table.pair_cluster] + table.pair_chunk, -1)
    e_gid = np.repeat(pair_gid, support)
    e_term = np.repeat(table.pair_term, support)
    sel = e_gid >= 0
    e_gid, e_term, e_rec = e_gid[sel], e_term[sel], table.entry_record[sel]
    n_rec = int(table.entry_record.max()) + 1 if len(table.entry_record) else 1
    width = max(len(table.vocabulary), 1)
    if (int(chunk_offset[-1]) + 1) * n_rec * width < 2**62:  # by (chunk, record, term) in one sort
        key = np.sort((e_gid * n_rec + e_rec) * width + e_term)
        e_term = key % width
        key //= width
        e_rec = key % n_rec
        e_gid = key // n_rec
    else:
        order = np.lexsort((e_term, e_rec, e_gid))
        e_gid, e_term, e_rec = e_gid[order], e_term[order], e_rec[order]
    if len(e_gid):
        new_sub = np.empty(len(e_gid), dtype=bool)
        new_sub[0] = True
        new_sub[1:] = (e_gid[1:] != e_gid[:-1]) | (e_rec[1:] != e_rec[:-1])
        s_start = np.flatnonzero(new_sub)
    else:
        s_start = np.zeros(0, dtype=np.int64)
    s_end = np.append(s_start[1:], len(e_gid)).astype(np.int64)
    s_gid = e_gid[s_start]
    s_rec = e_rec[s_start]
    s_hash = np.add.reduceat(hashes[e_term], s_start) if len(s_start) else np.zeros(0, dtype=np.uint64)
    final = _shuffled_order(s_gid, s_hash, rng)
    term_strings = voc[e_term].tolist() if len(e_term) else []
    subs = list(map(tuple, map(term_strings.__getitem__, map(slice, s_start[final].tolist(), s_end[final].tolist()))))
    sub_recs = ids(s_rec[final]).tolist()
    g_bounds = np.searchsorted(s_gid[final], np.arange(int(chunk_offset[-1]) + 1)).tolist()

    # ---- term chunks: terms sorted; the truth lists the records holding each term. The terms the
    # joint clusters move into shared chunks are dropped here, before any list is built (the plans
    # are checked first, in order, so a bad plan still fails with the same message).
    names = [f"P{c + 1}" for c in range(n_cl)]
    term_id = {t: i for i, t in enumerate(table.vocabulary)}
    gone_cluster: list[int] = []
    gone_terms: list[str] = []
    for j, plan in enumerate(plans):
        for child in plan.children:
            if not 0 <= child < n_cl + j:
                raise ValueError(f"REFINE plan {j}: child {child} does not name a cluster or an earlier joint cluster")
        for idx, terms in plan.removed.items():
            if not 0 <= idx < n_cl:
                raise ValueError(f"REFINE plan {j}: removes terms from unknown cluster {idx}")
            gone_cluster.append(len(terms))
            gone_cluster.append(idx)
            gone_terms.extend(terms)
    tc_mask = ~in_chunk
    if gone_terms:
        gone_ids = list(map(term_id.get, gone_terms))
        owner = np.repeat(np.asarray(gone_cluster[1::2], dtype=np.int64), gone_cluster[0::2])
        if None in gone_ids:  # a term outside the vocabulary is in no term chunk: nothing to drop
            known = np.fromiter((i is not None for i in gone_ids), dtype=bool, count=len(gone_ids))
            owner = owner[known]
            gone_ids = [i for i in gone_ids if i is not None]
        gone = np.sort(owner * width + np.asarray(gone_ids, dtype=np.int64))
        pair_keys = table.pair_cluster.astype(np.int64) * width + table.pair_term
        pos = np.minimum(np.searchsorted(gone, pair_keys), len(gone) - 1)
        tc_mask &= gone[pos] != pair_keys
    tc_pairs = np.flatnonzero(tc_mask)
    tc_bounds = np.searchsorted(table.pair_cluster[tc_pairs], np.arange(n_cl + 1)).tolist()
    tc_terms = voc[table.pair_term[tc_pairs]].tolist() if len(tc_pairs) else []
    tc_support = support[tc_pairs]
    tc_recs = ids(table.entry_record[np.repeat(tc_mask, support)]).tolist()
    tc_ends = np.cumsum(tc_support)
    tc_lists = list(map(tc_recs.__getitem__, map(slice, (tc_ends - tc_support).tolist(), tc_ends.tolist())))
    member_lists = ids(np.concatenate(table.clusters)).tolist() if n_cl else []
    member_bounds = np.cumsum([0] + [len(c) for c in table.clusters]).tolist()

    clusters: list[Cluster] = []
    truths: list[ClusterTruth] = []
    for c in range(n_cl):
        cid = f"P{c + 1}"
        g0, g1 = int(chunk_offset[c]), int(chunk_offset[c + 1])
        chunks = [subs[g_bounds[g] : g_bounds[g + 1]] for g in range(g0, g1)]
        chunk_truth = [sub_recs[g_bounds[g] : g_bounds[g + 1]] for g in range(g0, g1)]
        a, b = tc_bounds[c], tc_bounds[c + 1]
        terms = tc_terms[a:b]
        members = member_lists[member_bounds[c] : member_bounds[c + 1]]
        clusters.append(Cluster(cid, len(members), chunks, terms))
        truths.append(ClusterTruth(cid, members, chunk_truth, dict(zip(terms, tc_lists[a:b], strict=True))))

    # ---- joint clusters from REFINE's plans, applied in list order
    # all shared sub-records at once: content order by the same set hash, then the seeded shuffle
    pairs: list[tuple[int, tuple[str, ...]]] = []
    listed: list[int] = []
    for plan in plans:
        for chunk in plan.shared_chunks:
            pairs.extend(chunk.subrecords)
            listed.append(len(chunk.subrecords))
    flat_recs_t, flat_subs_t = zip(*pairs, strict=True) if pairs else ((), ())
    del pairs
    flat_subs: list[tuple[str, ...]] = list(map(tuple, flat_subs_t))  # (a tuple maps to itself)
    del flat_subs_t
    sub_len = np.fromiter(map(len, flat_subs), dtype=np.int64, count=len(flat_subs))
    flat_rec_ids = np.fromiter(flat_recs_t, dtype=np.int64, count=len(flat_recs_t))
    del flat_recs_t
    listed_group = np.repeat(np.arange(len(listed), dtype=np.int64), listed)
    if (sub_len == 0).any():  # empty sub-records are implied, never listed
        nonempty = np.flatnonzero(sub_len)
        flat_subs = [flat_subs[i] for i in nonempty.tolist()]
        sub_len, flat_rec_ids, listed_group = sub_len[nonempty], flat_rec_ids[nonempty], listed_group[nonempty]
    chunk_sizes = np.bincount(listed_group, minlength=len(listed)).tolist()
    flat_terms = np.fromiter(map(term_id.__getitem__, itertools.chain.from_iterable(flat_subs)), dtype=np.int64,
                             count=int(sub_len.sum()))
    sub_first = np.cumsum(sub_len) - sub_len
    shared_hash = (np.add.reduceat(hashes[flat_terms], sub_first) if len(flat_subs)
                   else np.zeros(0, dtype=np.uint64))
    shared_order_arr = _shuffled_order(listed_group, shared_hash, rng)
    ordered_recs = ids(flat_rec_ids[shared_order_arr]).tolist()
    ordered_subs = list(map(flat_subs.__getitem__, shared_order_arr.tolist()))
    del flat_subs
    chunk_bounds = np.cumsum([0, *chunk_sizes]).tolist()

    joints: list[JointCluster] = []
    joint_truths: list[JointClusterTruth] = []
    g = 0
    for j, plan in enumerate(plans):
        jid = f"J{j + 1}"
        children = [names[child] for child in plan.children]
        shared: list[list[tuple[str, ...]]] = []
        shared_truth: list[list[int]] = []
        for _ in plan.shared_chunks:
            shared.append(ordered_subs[chunk_bounds[g] : chunk_bounds[g + 1]])
            shared_truth.append(ordered_recs[chunk_bounds[g] : chunk_bounds[g + 1]])
            g += 1
        joints.append(JointCluster(jid, children, shared))
        joint_truths.append(JointClusterTruth(jid, shared_truth))
        names.append(jid)
    return Release(dict(params), clusters, joints), Truth(truths, joint_truths, seed=seed)
