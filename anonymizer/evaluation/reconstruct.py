"""Sampling one dataset from the inverse transformation of a release (Terrovitis2012 sections 3 and 5).

A disassociated release stands for the set I(D^A) of all datasets that could have produced it
(Terrovitis2012 section 2). :func:`reconstruct` draws one member of that set at random, and finds
one whenever the set is not empty; when it is empty it raises one :class:`InputError`.

**What a valid reconstruction is** (the model the tests' exhaustive oracle enumerates):

* a record chunk of a cluster of size s lists n <= s sub-records; padded with s - n empty ones,
  they are matched one to one with the cluster's records (section 3);
* each term-chunk term is held by at least one record of its cluster (section 5, proof of
  Lemma 1: "the multiplicity and the correlations of these terms are not disclosed");
* each sub-record of a shared chunk of a joint cluster J goes to a different record of J's leaves,
  never to a leaf whose record chunks or term chunk list one of its terms, nor to a leaf of a
  joint cluster below J whose shared chunks list one: section 3 builds a shared chunk "by
  projecting the records of every P_j to C_Tj ∩ T_i", so every occurrence of such a term in that
  leaf is already published elsewhere;
* every record is non-empty (proof of Lemma 2: "A valid reconstruction of cluster P_a is a
  possible initial cluster that has s non-empty records").

The sampler needs the chunk term sets of a cluster pairwise disjoint and disjoint from its term
chunk, and the shared chunks of one joint cluster over pairwise disjoint term sets (section 3:
VERPART splits a cluster's terms into T_1..T_v and T_T; REFINE moves each term into one shared
chunk). A release that breaks this is malformed (``verify`` names the overlap) and is refused.
Then, records within a leaf being interchangeable, a valid reconstruction exists exactly when the
shared sub-records can be spread over the leaves (each to a leaf it may go to, at most s_P
sub-records of one chunk on leaf P) so that every leaf without a term chunk holds at least as
many pieces (non-empty sub-records) as records: inside a leaf, a piece can always move from a
record holding two to an empty one.

**Steps.**

1. **Record chunks.** Each record chunk's sub-records, padded to s, are matched to the s records
   by a uniform random permutation.
2. **Shared chunks**, deepest joint cluster first: each sub-record goes to a distinct, uniformly
   random record among the leaves it may go to (a greedy pass in random order, repaired by an
   augmenting path inside the chunk; if no placement exists, :class:`InputError`).
3. **Enough pieces per leaf.** A leaf without a term chunk that the random placement left with
   fewer pieces than records takes shared sub-records from other leaves along augmenting paths
   (a sub-record moves to a leaf it may go to; a leaf that gives one either has pieces to spare,
   has a term chunk, or takes one in turn). This is Ford-Fulkerson on the flow network
   sub-record -> (chunk, leaf) -> leaf with the leaves' shortfalls as demands, so it fails only
   when no spread exists; then :class:`InputError` says which leaf cannot be filled. A cluster in
   no joint cluster with an empty term chunk and fewer sub-records than records has no valid
   reconstruction either.
4. **No empty records.** In a leaf without a term chunk, an empty record takes a piece (a
   record-chunk sub-record, whose slot it takes, or a shared sub-record) from a random record
   holding two or more; step 3 guarantees such a donor.
5. **Term chunk.** The paper keeps the multiplicity of a term-chunk term secret (section 5,
   proof of Lemma 1) and bounds it below by one (section 6: "adding one to the support of each
   term that appears in a term chunk"). Choice: with ``term_rule="one"`` (the default) each term
   lands in exactly one record, the paper's lower bound; it is also what the data look like:
   VERPART sends terms of support below k to the term chunk, and on synthetic Quest data (25k
   records, k=5, m=2, clusters of 30) 96% of the term-chunk terms of the truth file sit in
   exactly one record. With ``term_rule="uniform"`` each term lands in c records, c drawn
   uniformly from 1..min(k-1, s). Records still empty after step 4 (a leaf with a term chunk)
   first receive one term each, terms taken round-robin in random order (a term then holds at
   least that many records); the other holders are uniformly random records of the cluster.

Records come out cluster by cluster, in the release's cluster order; the same seed always
gives the same dataset. Steps 1-2 run on the release's arrays in
:mod:`anonymizer.evaluation.reconstruct_arrays` (their object form, which draws the same random
numbers, is :mod:`anonymizer.evaluation.reconstruct_chunks`); steps 3-4, on the object form, in
:mod:`anonymizer.evaluation.reconstruct_balance`, only for a release that needs them; step 5 on
arrays in :mod:`anonymizer.evaluation.reconstruct_terms` (on the object form, :func:`_cells`, after
steps 3-4); the assembly is here.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Sequence

import numpy as np
from tqdm import tqdm

from anonymizer.evaluation.reconstruct_arrays import check_disjoint, place_chunks, to_states
from anonymizer.evaluation.reconstruct_balance import balance_components, fill_empty_records
from anonymizer.evaluation.reconstruct_chunks import ClusterState
from anonymizer.evaluation.reconstruct_terms import term_chunk_cells
from anonymizer.model.release import Release
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["reconstruct", "reconstruct_cells", "reconstruct_many", "TERM_RULES"]

TERM_RULES = ("one", "uniform")


def reconstruct(release: Release, seed: int = 0, term_rule: str = "one") -> TransactionDataset:
    """One random dataset of the inverse transformation I(release) (Terrovitis2012 sections 3, 5).

    See the module docstring for the model of a valid reconstruction, the steps and the documented
    choices (term-chunk multiplicity ``term_rule`` in ``"one"`` / ``"uniform"``). The result has
    ``release.n_records`` records, cluster by cluster, all non-empty; no record repeats a term.
    Raises :class:`InputError` when the release has no valid reconstruction or is malformed.
    """
    rows, cols, vocab = reconstruct_cells(release, seed, term_rule)
    return _dataset(rows, cols, vocab, release.arrays.n_records, seed, term_rule)


def reconstruct_cells(release: Release, seed: int = 0,
                      term_rule: str = "one") -> tuple[list[np.ndarray], list[np.ndarray], list[str]]:
    """The cells of :func:`reconstruct`'s dataset before it is built: ``(rows, cols, vocabulary)``, where
    the concatenated ``rows`` / ``cols`` are (record, term id) pairs (a pair may repeat) and term ids
    index ``vocabulary`` (sorted; it may list terms no cell uses). Same seed, same cells as :func:`reconstruct`."""
    if term_rule not in TERM_RULES:
        raise InputError(f"term_rule must be one of {', '.join(TERM_RULES)}, got {term_rule!r}")
    a = release.arrays
    check_disjoint(a)
    rng = np.random.default_rng(seed)
    p = place_chunks(a, rng)  # steps 1-2
    n = a.n_records
    pieces = p.pieces(n)
    no_term_chunk = np.diff(p.term_chunk_off) == 0
    cluster_pieces = np.bincount(p.cluster_of, weights=pieces, minlength=a.n_clusters)
    short = (no_term_chunk & (cluster_pieces < a.cluster_size)).any()
    if short or (no_term_chunk[p.cluster_of] & (pieces == 0)).any():  # steps 3-4 have work: the object form
        states, shared, forest = to_states(a, p)
        balance_components(states, shared, forest, a.cluster_ids, rng)  # step 3
        for st in states:  # step 4
            if not st.term_chunk:
                fill_empty_records(st, rng)
        rows, cols = _cells(states, release.k, term_rule, rng, not sys.stderr.isatty())  # step 5
        return rows, cols, a.terms
    sub_len = np.diff(a.term_off)
    shared_len = np.diff(a.shared_term_off)
    t_rows, t_cols = term_chunk_cells(a.cluster_size, p.offset, p.term_chunk_off, p.term_chunk, pieces, release.k,
                                      term_rule, rng)  # step 5
    rows = [np.repeat(p.record_of_sub, sub_len), np.repeat(p.record_of_shared, shared_len), t_rows]
    cols = [a.sub_terms.astype(np.int64), a.shared_terms.astype(np.int64), t_cols]
    return rows, cols, a.terms


def _cells(states: list[ClusterState], k: int, term_rule: str, rng: np.random.Generator,
           quiet: bool) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The (record, term id) cells of every record: chunk pieces where steps 1-4 put them, term-chunk terms."""
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    shared_rows: list[int] = []
    shared_cols: list[int] = []
    for st in tqdm(states, desc="assembling", unit="cluster", disable=quiet, leave=False):
        for j, subs in enumerate(st.subs):
            if subs:
                lens = np.fromiter(map(len, subs), dtype=np.int64, count=len(subs))
                rows.append(st.offset + np.repeat(st.place[j], lens))
                cols.append(np.fromiter(itertools.chain.from_iterable(subs), dtype=np.int64, count=int(lens.sum())))
        for pos, items in st.shared.items():
            for _, terms in items:
                shared_rows.extend([st.offset + pos] * len(terms))
                shared_cols.extend(terms)
        if st.term_chunk and st.size > 0:
            r, t = _term_chunk_cells(st, k, term_rule, rng)
            rows.append(st.offset + r)
            cols.append(t)
    rows.append(np.asarray(shared_rows, dtype=np.int64))
    cols.append(np.asarray(shared_cols, dtype=np.int64))
    return rows, cols


def _dataset(rows: list[np.ndarray], cols: list[np.ndarray], vocab: list[str], n: int, seed: int,
             term_rule: str) -> TransactionDataset:
    """The n records as a CSR dataset: cells kept once, terms no record holds dropped from the vocabulary."""
    width = max(len(vocab), 1)
    key = np.sort(np.concatenate(rows) * width + np.concatenate(cols))
    if len(key):  # set semantics: a repeated (record, term) cell is kept once
        key = key[np.concatenate(([True], key[1:] != key[:-1]))]
    row, col = key // width, key % width
    used = np.flatnonzero(np.bincount(col, minlength=width))
    relabel = np.full(width, -1, dtype=np.int64)
    relabel[used] = np.arange(len(used))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=n), out=indptr[1:])
    return TransactionDataset(
        vocabulary=tuple(vocab[i] for i in used.tolist()),
        indptr=indptr,
        indices=relabel[col].astype(np.int32),
        name="reconstructed",
        metadata={"seed": seed, "term_rule": term_rule, "source": "reconstruct"},
    )


def _term_chunk_cells(st: ClusterState, k: int, rule: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(record position, term id) pairs that place the cluster's term-chunk terms."""
    s = st.size
    terms = np.asarray(st.term_chunk, dtype=np.int64)
    nt = len(terms)
    top = max(1, min(k - 1, s))
    counts = np.ones(nt, dtype=np.int64) if rule == "one" else rng.integers(1, top + 1, size=nt)
    keys = rng.random((nt, s))
    empties = np.flatnonzero(st.pieces() == 0)
    if len(empties):
        rng.shuffle(empties)
        term_order = rng.permutation(nt)
        who = term_order[np.arange(len(empties)) % nt]
        keys[who, empties] = -1.0
        counts = np.maximum(counts, np.bincount(who, minlength=nt))
    order = np.argsort(keys, axis=1, kind="stable")
    mask = np.arange(s)[None, :] < counts[:, None]
    return order[mask], np.repeat(terms, mask.sum(axis=1))


def reconstruct_many(release: Release, seeds: Sequence[int], term_rule: str = "one") -> list[TransactionDataset]:
    """One reconstruction per seed (Terrovitis2012 section 6: average query results over several)."""
    return [reconstruct(release, seed=s, term_rule=term_rule) for s in seeds]
