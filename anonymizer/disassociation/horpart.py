"""HORPART: horizontal partitioning of a dataset into clusters (Terrovitis2012 section 4,
Algorithm HORPART), AlShuhail2021's strategies for clusters smaller than k (section 3.3.1), and
the join step that gives every cluster at least k records (:func:`join_small_clusters`).

Algorithm HORPART splits a dataset D recursively: if D is small enough it is a cluster; otherwise
the most frequent term ``a`` of D that is not in ``ignore`` splits D into D1 (records holding
``a``, recursed with ``ignore + {a}``) and D2 (the rest, recursed with the same ``ignore``).

Which paper each strategy follows:

* ``original`` -- Terrovitis2012's Algorithm HORPART, literally: every too large part is split,
  whatever the sizes of its two halves ("This procedure is recursively applied to the new
  datasets until the final datasets are small enough to become clusters"). Its clusters can be
  smaller than k; :func:`join_small_clusters` (applied by ``disassociate`` after every strategy)
  gives them k records, see below.
* ``abandon`` -- AlShuhail2021's reading of the original method (section 3.3.1, Tables 3.1-3.2):
  a split that leaves a part smaller than k is abandoned and D is returned as one cluster, even
  if it is larger than ``max_cluster_size`` (Table 3.2 keeps all four records of Table 3.1).
* ``suppression``, ``adding``, ``remaining`` -- AlShuhail2021 Algorithms 1-3 (section 3.3.1),
  applied when a split leaves a part smaller than k:

  - ``suppression`` (Algorithm 1): the small part is deleted; its records are not published.
  - ``adding`` (Algorithm 2 adds the small cluster to "the second cluster on the queue"): the
    small part is added to the next group still waiting to be processed after its sibling's
    subtree (the nearest relative in the split tree). Adding it to its own sibling would rebuild
    the parent and split it the same way forever, so the sibling is skipped. When no group is
    waiting, the small records join the last cluster produced ("the last cluster on the queue").
  - ``remaining`` (Algorithm 3): small parts go to the remaining list; when the queue is empty
    and the list holds at least k records it is partitioned again as one dataset (ignore reset);
    with fewer than k records it joins the last cluster produced. The thesis gives no bound on the
    number of rounds: on data whose terms each occur once, every round places only its last
    ``max_cluster_size`` records and the list would be partitioned |D| / max_cluster_size times
    (quadratic). Here the list is partitioned again only if the round before placed at least 1/64
    of the records it started with (the whole dataset, for the first list); otherwise the list is
    cut as described below. The rounds then handle at most 64 times the first list, and the
    results do not change on kosarak10k/25k or Quest data (k 2-5, maximum 10-30), whose slowest
    rounds still place 2.3% of their list.
  - When both parts are smaller than k (only possible if ``max_cluster_size < 2k - 2``) none of
    these can keep both: D stays one cluster.

  A last cluster that grows beyond ``max_cluster_size`` by receiving small records is cut into
  balanced pieces of at least k records as below.

Choices made where the papers are terse or leave a gap (each one is tested in
``tests/test_anonymizer_horpart.py``):

* **Stop rule.** Terrovitis2012 stops when ``|D| < maxClusterSize``, so its largest cluster has
  ``maxClusterSize - 1`` records. Here ``max_cluster_size`` is the largest allowed cluster size
  for every strategy: a group stops when ``|D| <= max_cluster_size`` (the reading AlShuhail2021
  3.3.1 gives: a group whose size is between k and the max cluster size needs no further
  partitioning). ``original`` with ``max_cluster_size = d`` is Terrovitis2012's algorithm with
  ``maxClusterSize = d + 1``; one meaning of the parameter across all strategies keeps sweeps over
  it comparable.
* **Most frequent term.** Ties are broken by the smaller term id (alphabetical order, since the
  vocabulary is sorted). A split where every record holds ``a`` (D2 empty) is not a split: the
  recursion continues on D with ``ignore + {a}``.
* **No term left.** When every term of a too large group is in ``ignore`` (or its records are
  empty) no term can split it (Terrovitis2012's line 3 finds nothing); the group is cut into
  ``min(ceil(|D| / max_cluster_size), floor(|D| / k))`` pieces of balanced sizes after sorting its
  records by content (so similar records stay together and the cut does not depend on record
  order).
* **Order.** Groups are processed depth first, D1 before D2, so the clusters come out in the
  order of the split tree and neighbouring clusters share the longest split history.

**Join step** (:func:`join_small_clusters`). Guarantee 1 needs every cluster to hold at least k
records. Terrovitis2012 section 5, proof of Lemma 2: "A valid reconstruction of cluster P_a is a
possible initial cluster that has s non-empty records. We construct a cluster that contains s
records in total, where at least k of them contain t1..tm". A term that occurs only in a cluster
of s < k records can never reach k records in any reconstruction, so Terrovitis2012's literal
HORPART (which can leave such clusters) needs this step before VERPART. Each cluster smaller than
k joins its nearest relative in split-tree order: the cluster produced just before it (the first
cluster joins the next one); a joined cluster larger than ``max_cluster_size`` is cut into
balanced pieces of at least k records as above. The records moved this way are counted in
:attr:`HorizontalPartition.joined`. The other strategies never leave a cluster smaller than k, so
the step changes nothing for them.

**Sizes.** With ``max_cluster_size >= 2k - 1`` every strategy except ``abandon`` gives clusters
whose sizes lie in ``[k, max_cluster_size]`` after the join step (a balanced cut of n records
into ``ceil(n / max_cluster_size)`` pieces then never goes below k); ``abandon`` guarantees only
``>= k``. Below ``2k - 1`` no such bound exists (``2k - 1`` records can form neither one cluster
of at most ``2k - 2`` records nor two of at least k), so
:func:`anonymizer.disassociation.pipeline.validate_parameters` refuses a smaller maximum for every strategy
but ``abandon``; :func:`horpart` itself accepts any maximum ``>= k`` and then only promises
``>= k`` after the join step.

**Peel chains (speed).** When no term of a too large group (outside ``ignore``) occurs in more
than ``max_cluster_size`` of its records, every split peels off D1 of at most
``max_cluster_size`` records that needs no further split, and D2 keeps ``ignore``; the same holds
for D2 (supports only drop). Run one split at a time this costs O(|D|) per peeled part, which is
quadratic on records of support-1 terms (one record peeled per split). Such a chain is run in one
pass over the group's entries instead (:func:`anonymizer.disassociation.horpart_groups.peel_chain`:
posting lists of the group and a heap of term supports updated as records leave), giving the same
parts in the same order, after which each strategy handles the parts exactly as it handles single
splits.

Counts: :attr:`HorizontalPartition.suppressed` lists the records ``suppression`` deleted;
:attr:`HorizontalPartition.moved` counts the records ``adding`` or ``remaining`` took out of the
part their split put them in (each record counted once).

Speed otherwise (:mod:`anonymizer.disassociation.horpart_groups`): every record is a row of the
dataset's CSR arrays; a group is a sorted int64 array of record ids; the term counts of a group are
kept sparse and computed only for the smaller child of a split (the larger child's counts are the
parent's minus the smaller's); membership of the split term comes from a posting list with a binary
search. The whole run is close to linear in the number of term occurrences.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from anonymizer.disassociation.horpart_groups import (
    Counts,
    GroupIndex,
    add_counts,
    cut_group,
    most_frequent,
    peel_chain,
    subtract_counts,
)
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["HORPART_STRATEGIES", "HorizontalPartition", "horpart", "join_small_clusters"]

HORPART_STRATEGIES: tuple[str, ...] = ("original", "abandon", "suppression", "adding", "remaining")
"""``original``: Terrovitis2012's Algorithm HORPART; ``abandon``: AlShuhail2021's reading of it
(Table 3.2); ``suppression``, ``adding``, ``remaining``: AlShuhail2021 Algorithms 1-3."""

BOUNDED_STRATEGIES: tuple[str, ...] = ("original", "suppression", "adding", "remaining")
"""Strategies whose clusters (after :func:`join_small_clusters`) never exceed ``max_cluster_size``
when it is at least ``2k - 1``."""

ROUND_PROGRESS = 64
"""``remaining``: the list is partitioned again only if the last round placed at least 1/64 of the
records it started with in clusters; otherwise the list is cut (see the module docstring)."""

PEEL_CHAINS = True
"""Run chains of peeling splits in one pass (:func:`peel_chain`); tests switch it off to check
that the result equals one split at a time."""


@dataclass
class HorizontalPartition:
    """Result of :func:`horpart`.

    ``clusters`` are sorted int64 arrays of record ids (dataset positions), in split-tree order;
    ``suppressed`` holds the ids of the records the ``suppression`` strategy deleted (sorted);
    ``moved`` counts the records ``adding`` or ``remaining`` took out of the part their split put
    them in; ``joined`` counts the records :func:`join_small_clusters` moved into another cluster.
    """

    clusters: list[np.ndarray]
    suppressed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    moved: int = 0
    joined: int = 0

    @property
    def sizes(self) -> list[int]:
        return [len(c) for c in self.clusters]


Group = tuple[np.ndarray, tuple[int, ...], Counts | None]
"""A group waiting in HORPART's queue: its records, the terms in ``ignore`` and its term counts (if known)."""


@dataclass
class _Run:
    """HORPART's working state: the queue of groups (a stack: depth first, D1 before D2) and the output.

    ``leftovers``: ``adding``'s small groups with no waiting group, ``remaining``'s list L;
    ``added``: ``adding``'s small groups handed to the queue entry at that position;
    ``moved``: per record, whether ``adding``/``remaining`` took it out of its split's part;
    ``last_round``: ``remaining``'s size of the list the last round started with.
    """

    index: GroupIndex
    k: int
    max_cluster_size: int
    strategy: str
    bar: tqdm
    stack: list[Group]
    moved: np.ndarray
    last_round: int
    saved: list[np.ndarray] = field(default_factory=list)
    suppressed: list[np.ndarray] = field(default_factory=list)
    leftovers: list[np.ndarray] = field(default_factory=list)
    added: dict[int, list[np.ndarray]] = field(default_factory=dict)

    def keep(self, clusters: list[np.ndarray], done: int) -> None:
        """Output ``clusters`` (``done`` records leave the queue)."""
        self.saved.extend(clusters)
        self.bar.update(done)

    def cut(self, records: np.ndarray) -> list[np.ndarray]:
        return cut_group(self.index.indptr, self.index.indices, records, self.k, self.max_cluster_size)


def _validate(dataset: TransactionDataset, k: int, max_cluster_size: int, strategy: str) -> None:
    if strategy not in HORPART_STRATEGIES:
        raise InputError(f"unknown horpart strategy {strategy!r}; choose one of: {', '.join(HORPART_STRATEGIES)}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise InputError(f"k must be an integer >= 2, got {k!r}")
    if isinstance(max_cluster_size, bool) or not isinstance(max_cluster_size, int) or max_cluster_size < k:
        raise InputError(f"max cluster size must be an integer >= k ({k}), got {max_cluster_size!r}")
    if len(dataset) < k:
        raise InputError(f"the dataset has {len(dataset)} records, fewer than k = {k}")



def _place_small(run: _Run, small: list[np.ndarray]) -> None:
    """A part smaller than k, under suppression, adding or remaining (AlShuhail2021 Algorithms 1-3)."""
    if not small:
        return
    if run.strategy == "suppression":
        run.suppressed.extend(small)
        run.bar.update(sum(len(s) for s in small))
        return
    for s in small:
        run.moved[s] = True
    if run.strategy == "remaining" or not run.stack:
        run.leftovers.extend(small)
        return
    # adding: join the group waiting after the sibling's subtree
    w_records, w_ignore, w_counts = run.stack[-1]
    if w_counts is not None:
        run.stack[-1] = (w_records, w_ignore, add_counts(w_counts, run.index.counts(np.concatenate(small))))
    run.added.setdefault(len(run.stack) - 1, []).extend(small)


def _pop_group(run: _Run) -> Group:
    """The next group of the queue, with the small groups ``adding`` handed to it."""
    records, ignore, counts = run.stack.pop()
    joined = run.added.pop(len(run.stack), None)
    if joined:
        records = np.sort(np.concatenate([records, *joined]))
    return records, ignore, counts


def _peel(run: _Run, records: np.ndarray, ignore: tuple[int, ...]) -> bool:
    """A chain of peeling splits in one pass; False if it stopped before its first split."""
    strategy, k = run.strategy, run.k
    peels, rest = peel_chain(run.index, records, ignore, run.max_cluster_size,
                             min_rest=1 if strategy == "original" else k,
                             stop_below=k if strategy == "abandon" else 0)
    if not peels:
        return False
    small: list[np.ndarray] = []
    for part in peels:
        if len(part) >= k or strategy == "original":
            run.keep([part], len(part))
        else:
            small.append(part)
    _place_small(run, small)
    if len(rest) <= run.max_cluster_size:
        run.keep([rest], len(rest))
    else:  # no term left, or the next split would leave a part smaller than k
        run.stack.append((rest, ignore, None))
    return True


def _split_with_small_part(run: _Run, records: np.ndarray, ignore: tuple[int, ...], counts: Counts, term: int,
                           d1: np.ndarray, d2: np.ndarray) -> None:
    """A split on ``term`` that leaves a part smaller than k (every strategy but ``original``)."""
    small1 = len(d1) < run.k
    if (small1 and len(d2) < run.k) or run.strategy == "abandon":
        run.keep([records], len(records))  # AlShuhail2021 Table 3.2: the split is abandoned
        return
    small, big = (d1, d2) if small1 else (d2, d1)
    big_ignore = ignore if small1 else ignore + (term,)
    big_counts = None
    if len(big) > run.max_cluster_size:
        big_counts = subtract_counts(counts, run.index.counts(small))
    _place_small(run, [small])
    run.stack.append((big, big_ignore, big_counts))


def _split(run: _Run, records: np.ndarray, ignore: tuple[int, ...], counts: Counts, term: int) -> None:
    """Split on ``term``: D1 (records holding it, recursed with ``ignore + {term}``) and D2 (the rest)."""
    mask = run.index.holds(records, term)
    d1, d2 = records[mask], records[~mask]
    if len(d2) == 0:
        run.stack.append((d1, ignore + (term,), counts))
        return
    if run.strategy != "original" and (len(d1) < run.k or len(d2) < run.k):
        _split_with_small_part(run, records, ignore, counts, term, d1, d2)
        return
    # a regular split: count the smaller child, derive the larger one's counts
    c1 = c2 = None
    if max(len(d1), len(d2)) > run.max_cluster_size:
        if len(d1) <= len(d2):
            c1 = run.index.counts(d1)
            c2 = subtract_counts(counts, c1)
        else:
            c2 = run.index.counts(d2)
            c1 = subtract_counts(counts, c2)
    run.stack.append((d2, ignore, c2))
    run.stack.append((d1, ignore + (term,), c1))


def _partition_group(run: _Run, records: np.ndarray, ignore: tuple[int, ...], counts: Counts | None) -> None:
    """One step of Algorithm HORPART on a group: keep it, cut it, peel a chain or split it."""
    size = len(records)
    if size <= run.max_cluster_size:
        run.keep([records], size)
        return
    if counts is None:
        counts = run.index.counts(records)
    term, support = most_frequent(counts, ignore)
    if term < 0:
        run.keep(run.cut(records), size)
        return
    if PEEL_CHAINS and support <= run.max_cluster_size and _peel(run, records, ignore):
        return  # every split from here peeled a finished part
    _split(run, records, ignore, counts, term)  # (or the chain stopped before its first split)


def _next_round(run: _Run) -> bool:
    """The queue is empty: queue the leftovers again (``remaining``) or place them; False when done."""
    if not run.leftovers:
        return False
    pool = np.sort(np.concatenate(run.leftovers))
    run.leftovers = []
    if run.strategy == "remaining" and len(pool) >= run.k:
        if len(pool) * ROUND_PROGRESS > run.last_round * (ROUND_PROGRESS - 1):  # too little progress
            run.keep(run.cut(pool), len(pool))
            return False
        run.last_round = len(pool)
        run.stack.append((pool, (), None))
        return True
    # fewer than k records left (remaining) or small groups at the end of the queue (adding)
    merged = np.union1d(run.saved[-1], pool)
    run.saved[-1:] = run.cut(merged)
    run.bar.update(len(pool))
    return False


def horpart(
    dataset: TransactionDataset,
    k: int,
    max_cluster_size: int,
    strategy: str = "original",
) -> HorizontalPartition:
    """Algorithm HORPART (Terrovitis2012 section 4) or one of its AlShuhail2021 3.3.1 variants.

    ``strategy`` is one of :data:`HORPART_STRATEGIES`. Returns the clusters (sorted record-id
    arrays in split-tree order), the records ``suppression`` deleted and the count of records
    ``adding``/``remaining`` moved. ``original`` returns Terrovitis2012's clusters as they are,
    including clusters smaller than k: apply :func:`join_small_clusters` before VERPART (as
    ``disassociate`` does). See the module docstring for the stop rule and each strategy.
    """
    _validate(dataset, k, max_cluster_size, strategy)
    index = GroupIndex(dataset)
    n = len(dataset)
    bar = tqdm(total=n, desc="horpart", unit="rec", disable=not sys.stderr.isatty(), leave=False)
    run = _Run(index=index, k=k, max_cluster_size=max_cluster_size, strategy=strategy, bar=bar,
               stack=[(np.arange(n, dtype=np.int64), (), None)], moved=np.zeros(n, dtype=bool), last_round=n)
    try:
        while True:
            while run.stack:
                _partition_group(run, *_pop_group(run))
            if not _next_round(run):
                break
    finally:
        bar.close()
    gone = np.sort(np.concatenate(run.suppressed)) if run.suppressed else np.zeros(0, dtype=np.int64)
    return HorizontalPartition(clusters=run.saved, suppressed=gone, moved=int(run.moved.sum()))


def join_small_clusters(
    partition: HorizontalPartition, dataset: TransactionDataset, k: int, max_cluster_size: int
) -> HorizontalPartition:
    """Give every cluster at least k records (Terrovitis2012 section 5, proof of Lemma 2).

    Walks the clusters in split-tree order: a cluster smaller than k joins the cluster produced
    just before it (several small ones in a row all join that one); small clusters at the very
    start join the first cluster after them. A cluster that received records and now holds more
    than ``max_cluster_size`` is cut into balanced pieces of at least k records (content order,
    as HORPART's own cut). Clusters that received nothing are kept as they are. Returns a new
    partition whose ``joined`` adds the records moved here; with ``max_cluster_size >= 2k - 1``
    every cluster that received records ends within ``[k, max_cluster_size]``.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}")
    if isinstance(max_cluster_size, bool) or not isinstance(max_cluster_size, int) or max_cluster_size < 1:
        raise InputError(f"max cluster size must be a positive integer, got {max_cluster_size!r}")
    groups: list[list[np.ndarray]] = []  # each output cluster as its parts (first part: the host)
    pending: list[np.ndarray] = []  # small clusters met before any cluster of k records or more
    joined = 0
    for cluster in partition.clusters:
        if len(cluster) >= k:
            groups.append([cluster, *pending])
            pending = []
        elif groups:
            groups[-1].append(cluster)
            joined += len(cluster)
        else:
            pending.append(cluster)
            joined += len(cluster)
    if pending:  # no cluster reaches k: everything forms one group
        groups.append(pending)
        joined -= len(pending[0])  # the first small cluster is the host, nothing moved into it... yet
    indptr = np.asarray(dataset.indptr, dtype=np.int64)
    indices = np.asarray(dataset.indices)  # read slice by slice as Python ints: no int64 copy needed
    clusters: list[np.ndarray] = []
    for parts in groups:
        if len(parts) == 1:
            clusters.append(parts[0])
            continue
        merged = np.sort(np.concatenate(parts))
        if len(merged) > max_cluster_size:
            clusters.extend(cut_group(indptr, indices, merged, k, max_cluster_size))
        else:
            clusters.append(merged)
    return HorizontalPartition(clusters=clusters, suppressed=partition.suppressed, moved=partition.moved,
                               joined=partition.joined + joined)
