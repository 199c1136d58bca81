"""Splitting a run into parts by HORPART's first splits, and disassociating part by part.

A dataset too large to disassociate in one piece (tens of millions of records), or one to spread
over a cluster of machines (:mod:`anonymizer.disassociation.distributed`), is cut the way HORPART itself cuts it
first (Terrovitis2012 section 4, Algorithm HORPART: "the most frequent term a ... splits D into
D1, the records that contain a, and D2, the rest; this procedure is recursively applied to the
new datasets"). The first ``split_depth`` levels of that recursion are computed over the whole
dataset (:func:`split_parts`); each resulting *part* is then disassociated on its own: HORPART
goes on inside it, then the join step, VERPART, REFINE and the release builder, exactly as for a
whole dataset (:func:`anonymizer.disassociation.pipeline.disassociate_part`). The parts' releases
are concatenated, clusters and joint clusters renumbered in part order (:mod:`anonymizer.io.json_writer`).

What is the same as the unsplit run, and what is not (tested in ``tests/test_parts.py``):

* **HORPART's clusters are the same** for ``original``, ``abandon`` and ``suppression``: a part is
  a node of the unsplit run's split tree, and HORPART's recursion below a node depends only on the
  node's records (the split terms of the path are held by every record of D1, so inside the part
  they are chosen first and split nothing, which is what ``ignore`` does in the unsplit run). For
  ``adding`` and ``remaining`` (AlShuhail2021 3.3.1), whose small groups move to a group waiting
  elsewhere in the tree, the moves stay inside a part.
* **Everything after HORPART starts inside a part**: the join step (a cluster smaller than k joins
  the cluster made just before it in its part), VERPART, REFINE and the publishing shuffle (each
  part draws from its own seed, :func:`corpora.common.seeds.part_seed`).
* **Then REFINE runs once more across the parts** (issue 25,
  :mod:`anonymizer.disassociation.split_refine`): over the parts' top clusters, so that a term rare
  in every part is pooled as the unsplit run pools it; its joint clusters span parts and are
  published after the parts' own. So a split run is *a* disassociation with every guarantee of one,
  but not byte for byte the unsplit run. Runs with the same split depth give the same bytes
  whatever the executor: that is the contract of ``--executor dask``.

Choices (the paper has no split depth):

* **Split rule at the top** (:func:`choose_split`). A node of n records is split when n exceeds the
  maximum cluster size, by the most frequent term among those some but not all of its records hold
  (ties: the alphabetically first, HORPART's tie rule), and only when both halves keep at least k
  records. A node not split here is a part: if HORPART would split it with a smaller half, it does
  so inside the part, the same way. Every part therefore holds at least k records, as
  disassociation requires.
* **Order**: parts are numbered depth first, D1 before D2, HORPART's own order; so the split run's
  clusters come out in the unsplit run's order.
* **Depth 0** is the unsplit run itself (one part, the owner's seed unchanged).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from anonymizer.io.json_writer import EncodedPart
from anonymizer.model.lost import tlost_share
from anonymizer.model.params import MAX_SPLIT_DEPTH
from anonymizer.model.release import Release, Truth
from corpora.dataset import TransactionDataset

if TYPE_CHECKING:
    from anonymizer.disassociation.split_refine import PartSummary

__all__ = ["MAX_SPLIT_DEPTH", "Part", "PartResult", "RunFigures", "choose_split", "holders", "split_parts"]

_BLOCK_RECORDS = 1 << 20
"""Records gathered at a time when counting a node's term supports (bounds the temporary arrays)."""


@dataclass(frozen=True)
class Part:
    """One part of a split run: ``records`` (ids in the whole dataset, ascending) and its ``path``,
    the split terms from the root with whether the part's records hold each one."""

    index: int
    records: np.ndarray
    path: tuple[tuple[str, bool], ...] = ()

    def __len__(self) -> int:
        return len(self.records)


@dataclass
class PartResult:
    """A disassociated part: its release, truth (record ids of the whole dataset), the part's record
    ids, and the seconds and record counts of its steps."""

    index: int
    release: Release | None
    truth: Truth | None
    records: np.ndarray
    seconds: dict[str, float] = field(default_factory=dict)
    records_suppressed: int = 0
    records_moved: int = 0
    encoded: EncodedPart | None = None
    """The release (and truth) as JSON pieces when the part was encoded (``release``/``truth`` are then None)."""
    figures: RunFigures | None = None
    """The part's printed figures, when it was encoded."""
    pool: PartSummary | None = None
    """What REFINE across the parts needs of this part (split runs with REFINE,
    :mod:`anonymizer.disassociation.split_refine`); the client drops it once read."""


@dataclass
class RunFigures:
    """The figures the command line prints, added up part by part (a split run never holds the
    whole release): clusters, chunks, the share of term occurrences in term chunks and tlost
    (Terrovitis2012 section 7.1, as :func:`anonymizer.evaluation.utility.tlost` computes it)."""

    clusters: int = 0
    joint_clusters: int = 0
    record_chunks: int = 0
    shared_chunks: int = 0
    published_records: int = 0
    term_chunk_occurrences: int = 0
    kept: set[str] = field(default_factory=set)
    in_term_chunks: set[str] = field(default_factory=set)
    seconds: dict[str, float] = field(default_factory=dict)
    """Seconds of each disassociation step, added up over the parts (split runs)."""

    def add(self, release: Release, truth: Truth) -> None:
        """Add one release's figures (every term walk is chained in C: no Python frame per sub-record)."""
        clusters, joints = release.clusters, release.joint_clusters
        record_chunks = [c.record_chunks for c in clusters]
        shared = [j.shared_chunks for j in joints]
        self.clusters += len(clusters)
        self.joint_clusters += len(joints)
        self.record_chunks += sum(map(len, record_chunks))
        self.shared_chunks += sum(map(len, shared))
        self.published_records += release.n_records
        self.term_chunk_occurrences += sum(map(len, chain.from_iterable(c.term_chunk.values()
                                                                        for c in truth.clusters)))
        for chunks in (record_chunks, shared):  # chunks -> chunk -> sub-record -> term
            self.kept.update(chain.from_iterable(chain.from_iterable(chain.from_iterable(chunks))))
        self.in_term_chunks.update(chain.from_iterable(c.term_chunk for c in clusters))

    def merge(self, other: RunFigures) -> None:
        """Add another part's figures to these."""
        for name in ("clusters", "joint_clusters", "record_chunks", "shared_chunks", "published_records",
                     "term_chunk_occurrences"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.kept |= other.kept
        self.in_term_chunks |= other.in_term_chunks
        for step, value in other.seconds.items():
            self.seconds[step] = self.seconds.get(step, 0.0) + value

    def summary(self, supports: Mapping[str, int], k: int) -> dict[str, float | int]:
        """The printed figures, given the input's term supports."""
        occurrences = sum(supports.values())
        return {
            "clusters": self.clusters,
            "joint_clusters": self.joint_clusters,
            "record_chunks": self.record_chunks,
            "shared_chunks": self.shared_chunks,
            "published_records": self.published_records,
            "term_chunk_share": self.term_chunk_occurrences / occurrences if occurrences else 0.0,
            "tlost": tlost_share(supports, k, self.kept, self.in_term_chunks),
        }


def choose_split(n_records: int, supports: np.ndarray, k: int, max_cluster_size: int) -> int | None:
    """The position of the split term in ``supports`` (term supports in the node, terms in sorted
    order), or ``None`` when the node stays one part (see the module doc for the rule)."""
    if n_records <= max_cluster_size or len(supports) == 0:
        return None
    candidates = np.where(supports < n_records, supports, 0)
    best = int(np.argmax(candidates))  # argmax returns the first maximum: the alphabetically first term
    held = int(candidates[best])
    if held < k or n_records - held < k:
        return None
    return best


def holders(dataset: TransactionDataset, term: int) -> np.ndarray:
    """Boolean mask over all records: which hold ``term`` (one vectorized pass over the entries)."""
    indptr = np.asarray(dataset.indptr)
    hits = np.flatnonzero(np.asarray(dataset.indices) == term)
    mask = np.zeros(len(indptr) - 1, dtype=bool)
    mask[np.searchsorted(indptr, hits, side="right") - 1] = True
    return mask


def _supports(dataset: TransactionDataset, records: np.ndarray) -> np.ndarray:
    """Term supports over ``records`` (dense, over the dataset's vocabulary), gathered in blocks."""
    n_terms = len(dataset.vocabulary)
    if len(records) == len(dataset):
        return np.bincount(np.asarray(dataset.indices), minlength=n_terms)
    out = np.zeros(n_terms, dtype=np.int64)
    for start in range(0, len(records), _BLOCK_RECORDS):
        out += np.bincount(dataset.entries(records[start : start + _BLOCK_RECORDS]), minlength=n_terms)
    return out


def split_parts(dataset: TransactionDataset, split_depth: int, k: int, max_cluster_size: int) -> list[Part]:
    """The parts of ``dataset`` after ``split_depth`` levels of HORPART's first splits (module doc)."""
    frontier: list[tuple[np.ndarray, tuple[tuple[str, bool], ...], bool]] = [
        (np.arange(len(dataset), dtype=np.int64), (), False)]
    for _ in tqdm(range(split_depth), desc="splitting", unit="level", leave=False, disable=None):
        nxt: list[tuple[np.ndarray, tuple[tuple[str, bool], ...], bool]] = []
        for records, path, final in frontier:
            best = None if final else choose_split(len(records), _supports(dataset, records), k, max_cluster_size)
            if best is None:
                nxt.append((records, path, True))
                continue
            held = holders(dataset, best)[records]
            term = dataset.vocabulary[best]
            nxt.append((records[held], (*path, (term, True)), False))
            nxt.append((records[~held], (*path, (term, False)), False))
        frontier = nxt
    return [Part(i, records, path) for i, (records, path, _) in enumerate(frontier)]


