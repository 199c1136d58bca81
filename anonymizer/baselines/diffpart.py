"""DiffPart: set-valued data under epsilon-differential privacy by top-down partitioning over a taxonomy.

The second baseline of Terrovitis2012 section 7 (Figure 11) is *DiffPart*, its reference [6]:
Chen, Mohammed, Fung, Desai and Xiong, "Publishing set-valued data via differential privacy",
PVLDB 4(11), 2011 ("the 2011 paper" below). Terrovitis2012 describes it as "a top down approach,
which starts from the unification of the whole domain and refines it by partitioning it to
subdomains, if the item combinations can be published without breaching differential privacy"
and, in section 7, as "suppressing infrequent terms and adding noise". We do not have the 2011
paper's text; this is our reconstruction, with every choice named.

**Partitions.** A partition is a set of records that share one *hierarchy cut*: a set of
hierarchy nodes, the generalized form of each of its records (a record holds a leaf under every
node of the cut and no other leaf). The first partition holds every non-empty record with the cut
{root} (*choice*: empty records are not published; they carry no item). A partition whose cut
still has an internal node u is *expanded*: each record goes to the sub-partition of the
non-empty subset of u's children it holds leaves under; the 2^f - 1 possible sub-partitions
(f children) all get a noisy count ``true count + Laplace(1 / eps_u)`` and only those whose
noisy count reaches the threshold ``theta = threshold_sd * sqrt(2) / eps_u`` (``threshold_sd``
standard deviations of the noise; default 2, *our reading* of the 2011 paper's threshold) are
kept and expanded in turn. A record is in one sub-partition only, so the vector of counts has
sensitivity 1 (parallel composition). Sub-partitions without records are not enumerated one by
one: the number of them whose noise alone passes the threshold is drawn from the binomial law
with ``P(Laplace(b) >= theta) = exp(-theta / b) / 2`` and that many are picked uniformly (the
2011 paper's treatment of empty partitions as we reconstruct it). A partition whose cut holds
leaves only is a *leaf partition*: it is published as ``max(0, round(count + Laplace(1 /
eps_leaf)))`` copies of its cut.

**Budget split** (our reconstruction of the 2011 paper's adaptive allocation). Half the budget,
``epsilon / 2``, is reserved for the leaf partitions' counts; the other half guides the
partitioning. A partition carries the partitioning budget it has left, ``r`` (``epsilon / 2`` at
the root). Its cut can still be expanded at most ``n = `` (internal nodes under the cut's nodes)
more times on any path, so one expansion spends ``eps_u = r / n`` and its sub-partitions carry
``r - eps_u``; a sub-partition whose cut left out whole subtrees has fewer expansions ahead, so
its share per expansion grows. A leaf partition counts with ``epsilon / 2 + r`` (the unused rest).
Along every record's path the shares add up to at most ``epsilon`` (sequential composition).

*Choices*: the node expanded is the first internal node of the cut in preorder (the one nearest
the root, leftmost); the noise comes from ``numpy.random.default_rng(seed)`` and is drawn in a
fixed order (depth-first over partitions), so a seed gives the same bytes; without a seed one is
drawn from the operating system's entropy. The seed is never written to the release (it would
let anyone subtract the noise): :class:`anonymizer.baselines.generalized.OwnerFile` keeps it for the owner.
A node may have at most :data:`MAX_DIFFPART_FANOUT` children (2^f - 1 sub-partitions each), and
at most ``max_partitions`` partitions are made (one error line past it).

*Public domain.* The 2011 paper assumes a public taxonomy of the item universe. The automatic
hierarchy (``--fanout``) is built over the dataset's own items, which makes that item set public;
pass ``--hierarchy`` with a taxonomy fixed in advance for a release that is differentially
private in the strict sense.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from anonymizer.baselines.generalized import GeneralizedRelease, OwnerFile
from anonymizer.baselines.hierarchy import Hierarchy
from anonymizer.model.params import DEFAULT_MAX_PARTITIONS, DEFAULT_THRESHOLD_SD, DiffPartParams
from corpora.common.errors import InputError
from corpora.common.seeds import check_seed, new_seed
from corpora.dataset import TransactionDataset

__all__ = ["DiffPartParams", "DiffPartResult", "DiffPartStats", "diffpart", "laplace_noise", "MAX_DIFFPART_FANOUT",
           "DEFAULT_THRESHOLD_SD", "MAX_PARTITIONS", "run_diffpart"]

MAX_DIFFPART_FANOUT = 16
"""Most children of a node DiffPart expands (2^16 - 1 sub-partitions)."""
MAX_PARTITIONS = DEFAULT_MAX_PARTITIONS
"""Default bound on the partitions one run makes (:data:`anonymizer.model.params.DEFAULT_MAX_PARTITIONS`)."""


@dataclass
class DiffPartStats:
    """What one DiffPart run did."""

    expansions: int = 0
    leaf_partitions: int = 0
    empty_partitions_kept: int = 0
    published_records: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class DiffPartResult:
    """What one DiffPart run returns: the release, the owner file (with the seed) and what the run did."""

    release: GeneralizedRelease
    owner: OwnerFile
    stats: DiffPartStats


def laplace_noise(size: int, epsilon_share: float, rng: np.random.Generator, sensitivity: float = 1.0) -> np.ndarray:
    """Laplace noise of scale ``sensitivity / epsilon_share`` (variance ``2 * scale**2``)."""
    return rng.laplace(0.0, sensitivity / epsilon_share, size)


def _check_fanout(h: Hierarchy) -> None:
    kids = np.bincount(h.parent[h.parent >= 0], minlength=len(h))
    widest = int(kids.max()) if kids.size else 0
    if widest > MAX_DIFFPART_FANOUT:
        node = h.labels[int(np.argmax(kids))]
        raise InputError(f"diffpart: hierarchy node {node!r} has {widest} children; DiffPart enumerates the 2^f - 1 "
                         f"subsets of a node's children, so at most {MAX_DIFFPART_FANOUT} (use a smaller fan-out)")


def diffpart(ds: TransactionDataset, hierarchy: Hierarchy, epsilon: float | None = None, seed: int | None = None,
             threshold_sd: float = DEFAULT_THRESHOLD_SD, max_partitions: int = MAX_PARTITIONS, *,
             params: DiffPartParams | None = None) -> tuple[GeneralizedRelease, OwnerFile]:
    """Publish ``ds`` under ``epsilon``-differential privacy (module docstring).

    ``epsilon``, ``threshold_sd`` and ``max_partitions`` make one
    :class:`~anonymizer.model.params.DiffPartParams` (or pass ``params=``); :func:`run_diffpart` also
    returns what the run did. Returns the ``generalized/1`` release (method ``diffpart``; no seed in
    it) and the owner file that keeps the seed.
    """
    if params is None:
        params = DiffPartParams(epsilon, hierarchy.source or "file", threshold_sd, max_partitions)  # type: ignore
    elif epsilon is not None or threshold_sd != DEFAULT_THRESHOLD_SD or max_partitions != MAX_PARTITIONS:
        raise InputError("give params= or epsilon, threshold_sd and max_partitions, not both")
    result = run_diffpart(ds, hierarchy, params, seed)
    return result.release, result.owner


def run_diffpart(ds: TransactionDataset, hierarchy: Hierarchy, params: DiffPartParams,
                 seed: int | None = None) -> DiffPartResult:
    """DiffPart on ``ds`` with ``params`` (checked when made) and the secret ``seed`` (None: a fresh one)."""
    start = time.perf_counter()
    eps, threshold_sd, max_partitions = params.epsilon, params.threshold_sd, params.max_partitions
    seed = new_seed() if seed is None else check_seed(seed)
    rng = np.random.default_rng(seed)
    h = hierarchy
    _check_fanout(h)
    st = DiffPartStats()
    pos = h.leaf_positions(list(ds.vocabulary))
    indptr = ds.indptr.astype(np.int64)
    leaf = pos[ds.indices.astype(np.int64)] if ds.indices.size else np.zeros(0, dtype=np.int64)
    lengths = np.diff(indptr)
    is_leaf = h.is_leaf
    internal_prefix = np.concatenate([[0], np.cumsum(~is_leaf)])
    internal_under = internal_prefix[h.end] - internal_prefix[np.arange(len(h))]
    children: dict[int, np.ndarray] = {}
    parent = h.parent

    def kids(u: int) -> np.ndarray:
        got = children.get(u)
        if got is None:
            got = np.flatnonzero(parent == u)
            children[u] = got
        return got

    half = eps / 2.0
    published: list[tuple[tuple[int, ...], int]] = []
    stack: list[tuple[tuple[int, ...], np.ndarray, float]] = [((0,), np.flatnonzero(lengths > 0), half)]
    made = 1
    while stack:
        cut, rows, budget = stack.pop()
        inner = [n for n in cut if not is_leaf[n]]
        if not inner:
            noisy = rows.size + laplace_noise(1, half + budget, rng)[0]
            count = max(0, int(np.rint(noisy)))
            st.leaf_partitions += 1
            if count:
                published.append((cut, count))
            continue
        u = inner[0]
        n_exp = int(internal_under[list(inner)].sum())
        share = budget / n_exp
        scale = 1.0 / share
        theta = threshold_sd * math.sqrt(2.0) * scale
        ch = kids(u)
        f = int(ch.size)
        st.expansions += 1
        row_mask = _row_masks(rows, indptr, leaf, h.leaf_lo[ch], int(h.leaf_lo[u]), int(h.leaf_hi[u]))
        masks, counts = np.unique(row_mask, return_counts=True)
        rest = tuple(n for n in cut if n != u)
        keep = counts + laplace_noise(counts.size, share, rng) >= theta if counts.size else np.zeros(0, bool)
        group_rows = _split_rows(rows, row_mask, counts)
        pending = []
        for j in np.flatnonzero(keep).tolist():
            pending.append((int(masks[j]), group_rows[j]))
        n_empty = (1 << f) - 1 - int(masks.size)
        if n_empty > 0:
            passing = int(rng.binomial(n_empty, 0.5 * math.exp(-theta / scale)))
            if passing:
                taken = np.zeros(1 << f, dtype=bool)
                taken[0] = True
                taken[masks] = True
                free = np.flatnonzero(~taken)
                for mask in np.sort(rng.choice(free, size=passing, replace=False)).tolist():
                    pending.append((int(mask), np.zeros(0, dtype=np.int64)))
                st.empty_partitions_kept += passing
        made += len(pending)
        if made > max_partitions:
            raise InputError(f"diffpart: more than {max_partitions:,} partitions; use a larger epsilon, a higher "
                             "threshold or a smaller fan-out")
        for mask, sub_rows in reversed(pending):
            chosen = tuple(int(c) for b, c in enumerate(ch.tolist()) if mask >> b & 1)
            stack.append((tuple(sorted(rest + chosen)), sub_rows, budget - share))
    labels = h.labels
    records: list[tuple[str, ...]] = []
    for cut, count in published:
        rec = tuple(sorted(labels[n] for n in cut))
        records.extend([rec] * count)
    records.sort()
    st.published_records = len(records)
    st.seconds = time.perf_counter() - start
    label = h.source or "file"
    published = (params if params.hierarchy == label else replace(params, hierarchy=label)).to_json()
    return DiffPartResult(GeneralizedRelease("diffpart", published, h, records), OwnerFile("diffpart", seed), st)


def _row_masks(rows: np.ndarray, indptr: np.ndarray, leaf: np.ndarray, child_lo: np.ndarray, lo: int,
               hi: int) -> np.ndarray:
    """For the records ``rows``: each one's subset (bit mask) of the children (leaf ranges from
    ``child_lo``, inside ``[lo, hi)``) it holds leaves under."""
    if rows.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts, ends = indptr[rows], indptr[rows + 1]
    lens = ends - starts
    flat = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()), dtype=np.int64)
    owner = np.repeat(np.arange(rows.size, dtype=np.int64), lens)
    values = leaf[flat]
    inside = (values >= lo) & (values < hi)
    child = np.searchsorted(child_lo, values[inside], side="right") - 1
    pairs = np.unique(owner[inside] * 64 + child)
    mask = np.zeros(rows.size, dtype=np.int64)
    np.add.at(mask, pairs // 64, np.left_shift(1, pairs % 64))
    return mask


def _split_rows(rows: np.ndarray, row_mask: np.ndarray, counts: np.ndarray) -> list[np.ndarray]:
    """The records of each distinct mask (ascending, as ``np.unique`` gives them), in their order."""
    if rows.size == 0:
        return []
    order = np.argsort(row_mask, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(counts)])
    return [rows[order[bounds[j]:bounds[j + 1]]] for j in range(counts.size)]
