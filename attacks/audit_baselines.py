"""The baselines every risk of the audit stands beside, and the intervals (level 95%).

**Intervals.** A share of breached records (an attacker's, PEM's share of record chunks) gets a
**Wilson score interval** (:func:`wilson_interval`): the count is binomial-like, and Wilson's interval
stays inside [0, 1] and is not empty at 0 or at n, where a percentile bootstrap of a share collapses to
one point (0 breached records would give [0, 0], claiming a certainty the data do not hold). A
difference between an attack and its baseline gets a **paired percentile bootstrap**
(:func:`corpora.common.stats.paired_difference_interval`): one resample serves both, so what the two
have in common cancels. For the cover attackers the resampled units are the clusters (a record's breach
depends on its cluster, so records are not independent; clusters are), each cluster contributing its
vulnerable records over its records (ratio of sums). For the semantic attack the units are the
records, as :mod:`attacks.semantic.report` pairs them.

**Baselines of the cover attackers** (Barakat2016 Algorithm 1 counts the records an attacker links to
fewer than k records):

* :func:`frequency_only_per_cluster`, the **frequency-only attacker**: an attacker with the *same*
  background knowledge B who reads only the supports the release publishes inside each record chunk,
  without the cover reasoning across chunks (Barakat2016 Definition 3, Awad2019 Definition 3). For a
  target whose known itemset I meets a record chunk C, it counts the sub-records of C that hold all of
  I ∩ C; when there are from 1 to k − 1 of them the target's sub-record is among fewer than k, a breach.
  Counted in Algorithm 1's unit: per chunk the sub-records so singled out, per cluster the maximum over
  its chunks, summed. A k^m-anonymous release gives it nothing to find for |I| <= m (every published
  combination of at most m terms of a chunk has support 0 or at least k), so what an attacker breaches
  beyond it is what the cover reasoning adds. It applies to every attacker that holds itemsets; for the
  strong attacker of section 6 (every cover pair a breach) B is written out with
  :func:`attacks.cover.knowledge.cover_pair_itemsets`. Shared chunks of joint clusters are left out, as
  the detector leaves them out.
* :func:`random_placement_per_cluster`, the **random placement**: an attacker who puts each target on
  one of the s records of its cluster at random is right with probability 1/s (at most 1/k), so a
  cluster yields one expected re-identification whatever its size; the share is the number of non-empty
  clusters over the records. It is an exact expectation (no interval of its own); the floor any attacker
  reaches from the published clusters alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonymizer.model.release import Release
from corpora.common.stats import paired_difference_interval

__all__ = ["LEVEL", "BOOTSTRAP", "Baseline", "Paired", "interval_list", "wilson_interval", "frequency_only_per_cluster",
           "random_placement_per_cluster", "paired_cluster_difference", "cluster_sizes"]

LEVEL = 0.95
"""The level of every interval of the audit."""
BOOTSTRAP = 1000
"""Resamples of the audit's paired bootstrap intervals."""
_Z = 1.959963984540054
"""The standard normal quantile of 0.975 (a two-sided 95% Wilson interval)."""


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def interval_list(interval: tuple[float, float] | None) -> list[float | None] | None:
    """``[lo, hi]`` for JSON, or None when there is no interval (or a bound is NaN)."""
    if interval is None or any(_num(v) is None for v in interval):
        return None
    return [float(interval[0]), float(interval[1])]


@dataclass
class Baseline:
    """One baseline beside a check: its value (same unit as the check's), its interval and what it is;
    ``difference`` and ``difference_interval``: the check's value minus this one, with its paired interval."""

    name: str
    value: float | None
    interval: tuple[float, float] | None
    detail: str
    difference: float | None = None
    difference_interval: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": _num(self.value), "interval": interval_list(self.interval),
                "detail": self.detail, "difference": _num(self.difference),
                "difference_interval": interval_list(self.difference_interval)}


@dataclass
class Paired:
    """The paired difference of a check against one of its baselines (attack minus baseline)."""

    baseline: str
    difference: float | None
    interval: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "difference": _num(self.difference),
                "interval": interval_list(self.interval)}


def wilson_interval(successes: int, n: int, z: float = _Z) -> tuple[float, float]:
    """The Wilson score interval of the share ``successes / n`` (95% with the default ``z``); (0, 1) for n = 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi


def cluster_sizes(release: Release) -> np.ndarray:
    """The record count of each simple cluster, in the release's order (the detector's per-cluster order)."""
    return np.array([c.size for c in release.clusters], dtype=np.int64)


def random_placement_per_cluster(release: Release) -> np.ndarray:
    """Expected re-identifications per cluster of the random placement (module docstring): 1 for a non-empty one."""
    return (cluster_sizes(release) > 0).astype(np.float64)


Location = tuple[int, int]
"""(cluster position, record chunk position)."""


def _chunk_postings(release: Release) -> dict[str, dict[Location, int]]:
    """Per term, every record chunk of a simple cluster publishing it, with the sub-records holding it as a
    bitset (bit i: the chunk's i-th sub-record)."""
    postings: dict[str, dict[Location, int]] = {}
    for ci, cluster in enumerate(release.clusters):
        for j, chunk in enumerate(cluster.record_chunks):
            bits: dict[str, int] = {}
            for pos, sub in enumerate(chunk):
                for term in sub:
                    bits[term] = bits.get(term, 0) | 1 << pos
            for term, held in bits.items():
                postings.setdefault(term, {})[(ci, j)] = held
    return postings


def _singled_out(terms: list[str], postings: dict[str, dict[Location, int]], rare: dict[str, dict[Location, int]],
                 k: int) -> Iterator[tuple[Location, int]]:
    """The chunks where the sub-records holding every one of ``terms`` (distinct, all published) that the chunk
    publishes are 1 to k - 1, with those sub-records as a bitset. A chunk publishing one of them counts only
    when that term is rare there (support below k); a chunk publishing two or more publishes one that is not
    the most widely published, so those chunks are found from the others' postings."""
    for t in terms:
        for loc, held in rare.get(t, {}).items():
            if not any(loc in postings[u] for u in terms if u != t):
                yield loc, held
    if len(terms) < 2:
        return
    widest = max(terms, key=lambda t: len(postings[t]))
    grouped: set[Location] = set()
    for a in terms:
        if a != widest:
            grouped.update(loc for loc in postings[a] if sum(loc in postings[t] for t in terms) >= 2)
    for loc in grouped:
        common = -1
        for t in terms:
            common &= postings[t].get(loc, -1)
        if 1 <= common.bit_count() < k:
            yield loc, common


def frequency_only_per_cluster(release: Release, itemsets: Iterable[Sequence[str]]) -> np.ndarray:
    """Records the frequency-only attacker (module docstring) breaches in each cluster, knowing ``itemsets``.

    For a known itemset I and a record chunk C publishing terms of I, the sub-records of C holding all of
    I ∩ C are the AND of those terms' bitsets; from 1 to k - 1 of them are singled out. Each distinct itemset
    is looked at once (a chunk's singled-out sub-records are a union over the itemsets).
    """
    k = release.k
    postings = _chunk_postings(release)
    rare = {t: {loc: held for loc, held in at.items() if held.bit_count() < k} for t, at in postings.items()}
    marked: dict[Location, int] = {}
    for known in {frozenset(itemset) for itemset in itemsets}:
        for loc, held in _singled_out(sorted(t for t in known if t in postings), postings, rare, k):
            marked[loc] = marked.get(loc, 0) | held
    out = np.zeros(len(release.clusters), dtype=np.int64)
    for (ci, _j), held in marked.items():
        out[ci] = max(out[ci], held.bit_count())
    return out


def paired_cluster_difference(attack: np.ndarray, baseline: np.ndarray, sizes: np.ndarray, seed: int,
                              stream: int, resamples: int = BOOTSTRAP) -> tuple[float, tuple[float, float] | None]:
    """(attack share - baseline share, its 95% paired bootstrap interval over clusters); shares are
    per-cluster counts summed over summed sizes. The interval is None when there is nothing to resample."""
    total = float(sizes.sum())
    if total <= 0:
        return math.nan, None
    difference = float(attack.sum() / total - baseline.sum() / total)
    if len(sizes) < 2 or resamples <= 0:
        return difference, None
    rng = np.random.default_rng([seed, 26, stream])
    den = sizes.astype(np.float64)
    lo, hi = paired_difference_interval(attack.astype(np.float64), den, baseline.astype(np.float64), den, rng,
                                        resamples)
    return difference, (None if math.isnan(lo) else (lo, hi))
