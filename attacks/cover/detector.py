"""Cover-problem attack on a disassociated release: Barakat2016 Algorithm 1 and Awad2019's PEM.

The detector reads only the release and the attacker's knowledge (never the truth file).

Barakat2016 Algorithm 1 (quantitative privacy breach detection), as implemented here:

* for every cluster, every record chunk C_j, every item x of C_j and every earlier chunk C_l
  (l = j-1 down to the first; the text says "the number of privacy breaches in all the previous
  record chunks", so l restarts for each item, unlike the literal pseudocode whose ``l`` is
  decremented once and never reset), take I_l(x) = {y in C_l : s(y, C_l) >= s(x, C_j)}; if it is
  a cover problem (Definition 3, see :mod:`attacks.cover.problem`) and some covered item y has
  {x, y} inside one itemset of the knowledge B, that (x, l) is one breach (``breach++``). With
  the knowledge of section 6's strong attacker (``every_cover_pair``: "a privacy breach occurs
  whenever a cover problem is found"; Figure 5: "The algorithm treats every cover problem as a
  privacy breach") every such (x, l) is a breach and no itemset is searched.
* ``breaches`` is the number of such (x, l) pairs over the release. ``algorithm1_total`` is the
  literal return value: per cluster, the maximum over its chunks of the breach counter, summed
  (``max`` is reset per cluster; the pseudocode never resets it, which would carry one
  cluster's maximum into every later one and contradicts "the sum of the maximum number of
  privacy breaches").
* ``vulnerable_records`` (what the paper plots as "number of vulnerable records"): per chunk C_j,
  the number of its sub-records that hold at least one breached item x (each such record, known
  by {x, y}, is linked to fewer than k records of the reconstructions); per cluster the maximum
  over its chunks (the same record can be counted in several chunks, so the maximum, as in the
  algorithm, not the sum); summed over clusters. It never exceeds the number of records.

PEM (Awad2019 section 5.1.1: "PEM = vRC / RC", vulnerable record chunks over record chunks), in
three readings that ignore the knowledge (5.2.1: "a potential privacy breach exists whenever a cover
problem is identified in a record chunk regardless of the background knowledge of the attacker"):

* ``pem`` (the paper's): Definition 3 on every record chunk, 5.1.1: "we consider that every record
  chunk that is subject to a cover problem is a vulnerable record chunk" (``vulnerable_chunks``).
* ``pem_linkable``: only the chunks another record chunk of their cluster can be linked to (section
  3.3: "the ability to associate one-to-one or one-to-many items in two distinct record chunks, from
  the same cluster"; Lemma 1's proof: "y is an item in another record chunk R_Cl")
  (``vulnerable_chunks_linkable``). It never exceeds ``linkable_chunks / record_chunks``, the share
  of record chunks in clusters with two or more record chunks (its ceiling).
* ``pem_cluster``: vulnerable clusters over clusters, a cluster being vulnerable when one of its
  record chunks meets Definition 3 (Definition 3: "the cluster R, and the dataset T* as a
  consequence, are subject to a cover problem") (``vulnerable_clusters`` / ``clusters``; every
  simple cluster counts in ``clusters``, one without record chunks too).

Chunk numbers in reports are 0-based positions in the cluster's ``record_chunks``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from anonymizer.model.release import Release
from attacks.cover.knowledge import Knowledge, make_knowledge
from attacks.cover.problem import FlatRelease, awad_covers, barakat_relations, flatten
from corpora.common.errors import InputError

__all__ = ["CoverProblem", "Breach", "CoverReport", "detect", "run_cover_attack", "knowledge_pair_keys"]


def _fields_dict(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """``dataclasses.asdict`` for the flat records of this module (fields hold scalars and lists of
    strings): the same dict, without asdict's recursive deep copy (seconds on a 1M-record report)."""
    return {name: list(value) if isinstance(value, list) else value
            for name in obj.__dataclass_fields__ if name not in skip
            for value in (getattr(obj, name),)}


@dataclass
class CoverProblem:
    """One cover problem: in ``cluster``'s record chunk ``chunk``, ``covered`` items are covered by ``covering``.

    ``definition`` is "awad2019" (whole chunk) or "barakat2016" (the prefix I_l(x) selected by
    ``item`` of the later chunk ``item_chunk``). ``support`` is s(I, chunk). ``linkable`` (Awad2019
    problems only) says whether the cluster has another record chunk, i.e. whether ``pem_linkable``
    counts it (``pem`` and ``pem_cluster`` count every Awad2019 problem).
    """

    cluster: str
    chunk: int
    covered: list[str]
    covering: list[str]
    definition: str
    support: int = 0
    item: str | None = None
    item_chunk: int | None = None
    linkable: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        out = _fields_dict(self)
        if self.item is None:
            del out["item"], out["item_chunk"]
        if self.linkable is None:
            del out["linkable"]
        return out


@dataclass
class Breach:
    """Algorithm 1 breach: known {item, y} for a covered y of chunk ``covered_chunk`` (an earlier chunk)."""

    cluster: str
    chunk: int
    item: str
    covered_chunk: int
    covered: list[str]
    records: int

    def to_dict(self) -> dict[str, Any]:
        return _fields_dict(self)


@dataclass
class CoverReport:
    """Result of :func:`run_cover_attack` (see the module docstring for each count).

    ``knowledge_size`` is the number of itemsets known; for the strong attacker of Barakat2016
    section 6 (every cover pair) the number of distinct cover pairs {x, y}.
    """

    attacker: str
    knowledge_source: str
    knowledge_size: int
    n_records: int
    vulnerable_records: int
    breaches: int
    algorithm1_total: int
    pem: float
    record_chunks: int
    vulnerable_chunks: int
    pem_linkable: float
    vulnerable_chunks_linkable: int
    linkable_chunks: int
    pem_cluster: float
    vulnerable_clusters: int
    clusters: int
    cover_problems: list[CoverProblem] = field(default_factory=list)
    breach_list: list[Breach] = field(default_factory=list)
    seconds: float = 0.0
    knowledge_seconds: float = 0.0
    vulnerable_per_cluster: Any = field(default=None, repr=False)
    """The vulnerable records of each cluster (a numpy array in the order of the release's simple clusters;
    they sum to ``vulnerable_records``): the audit's paired interval resamples clusters. Not in :meth:`to_dict`."""

    def to_dict(self) -> dict[str, Any]:
        """Every count and the listings, as plain Python values (what ``--json`` prints)."""
        out = _fields_dict(self, skip=("cover_problems", "breach_list", "vulnerable_per_cluster"))
        out["cover_problems"] = [p.to_dict() for p in self.cover_problems]
        out["breach_list"] = [b.to_dict() for b in self.breach_list]
        return out

    def to_json(self, indent: int | None = None) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def summary(self) -> dict[str, Any]:
        """The counts without the listings."""
        return _fields_dict(self, skip=("cover_problems", "breach_list", "vulnerable_per_cluster"))

    def to_frame(self, what: str = "cover_problems") -> Any:
        """A pandas DataFrame, one row per cover problem (``what="cover_problems"``) or per breach
        (``what="breaches"``); list cells (covered, covering items) are joined with ``"; "``."""
        import pandas as pd

        if what not in ("cover_problems", "breaches"):
            raise InputError(f"to_frame: what must be 'cover_problems' or 'breaches', got {what!r}")
        if what == "cover_problems":
            rows, columns = [asdict(p) for p in self.cover_problems], list(CoverProblem.__dataclass_fields__)
        else:
            rows, columns = [asdict(b) for b in self.breach_list], list(Breach.__dataclass_fields__)
        for row in rows:
            for key, value in row.items():
                if isinstance(value, list):
                    row[key] = "; ".join(value)
        return pd.DataFrame(rows, columns=columns)

    def __repr__(self) -> str:
        awad = sum(1 for p in self.cover_problems if p.definition == "awad2019")
        return (f"CoverReport(attacker={self.attacker!r}, records={self.n_records}, "
                f"vulnerable_records={self.vulnerable_records}, breaches={self.breaches}, pem={self.pem:.4f}, "
                f"vulnerable_chunks={self.vulnerable_chunks}/{self.record_chunks}, "
                f"pem_linkable={self.pem_linkable:.4f}, pem_cluster={self.pem_cluster:.4f}, cover_problems={awad})")


def knowledge_pair_keys(itemsets: Iterable[Sequence[str]], term_id: dict[str, int]) -> np.ndarray:
    """Sorted unique codes lo * V + hi of every item pair inside some itemset (terms of the release only)."""
    v = max(len(term_id), 1)
    keys: list[int] = []
    for itemset in itemsets:
        ids = sorted({term_id[t] for t in itemset if t in term_id})
        for a in range(len(ids)):
            base = ids[a] * v
            for b in range(a + 1, len(ids)):
                keys.append(base + ids[b])
    return np.unique(np.asarray(keys, dtype=np.int64))


def _segment_max(values: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    out = np.zeros(n_groups, dtype=np.int64)
    np.maximum.at(out, groups, values)
    return out


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def detect(release: Release, itemsets: Iterable[Sequence[str]], *, flat: FlatRelease | None = None,
           list_problems: bool = True, every_cover_pair: bool = False) -> dict[str, Any]:
    """Run the cover-problem detector and Algorithm 1 on ``release`` with knowledge ``itemsets``.

    ``every_cover_pair``: the knowledge holds every cover pair {x, y} (Barakat2016 section 6's strong
    attacker), so every cover relation is a breach and ``itemsets`` is not read. Returns a dict of
    the :class:`CoverReport` fields that depend on the release and knowledge, ``cover_pairs``
    (the number of distinct cover pairs {x, y}) and ``vulnerable_per_cluster`` (the vulnerable records
    of each cluster of ``flat.cluster_ids``, whose sum is ``vulnerable_records``).
    """
    flat = flatten(release) if flat is None else flat
    n_chunks = flat.n_chunks
    n_clusters = len(flat.cluster_ids)
    awad = awad_covers(flat)
    rels = barakat_relations(flat)
    terms = flat.terms
    v = max(int(terms.size), 1)
    # Which (x, l) relations have a covered y with {x, y} inside a known itemset.
    rel_idx, ys = rels.covered_pairs(flat)
    xs = flat.key_item[rels.x_key][rel_idx]
    pair = np.minimum(xs, ys) * v + np.maximum(xs, ys)
    if every_cover_pair:
        hit = np.ones(pair.size, dtype=bool)
    else:
        known = knowledge_pair_keys(itemsets, flat.term_id()) if rel_idx.size else np.zeros(0, dtype=np.int64)
        hit = np.isin(pair, known)
    rel_hit = np.bincount(rel_idx[hit], minlength=rels.x_key.size) > 0
    breaches = int(rel_hit.sum())
    # Literal Algorithm 1 total: per chunk j the breach counter, max per cluster, summed.
    x_chunk = flat.key_chunk[rels.x_key]
    per_chunk = np.bincount(x_chunk[rel_hit], minlength=n_chunks).astype(np.int64)
    alg1 = int(_segment_max(per_chunk, flat.chunk_cluster, n_clusters).sum()) if n_chunks else 0
    # Vulnerable records: sub-records of chunk j holding a breached item, max per cluster, summed.
    key_breached = np.zeros(flat.key_chunk.size, dtype=bool)
    key_breached[rels.x_key[rel_hit]] = True
    occ_flag = key_breached[flat.occ_key]
    sub_flag = np.bincount(flat.occ_sub[occ_flag], minlength=flat.sub_len.size) > 0
    chunk_vuln = np.bincount(flat.sub_chunk[sub_flag], minlength=n_chunks).astype(np.int64)
    per_cluster = (_segment_max(chunk_vuln, flat.chunk_cluster, n_clusters) if n_chunks
                   else np.zeros(n_clusters, dtype=np.int64))
    vulnerable_records = int(per_cluster.sum())
    # PEM in its three readings (module docstring).
    vulnerable = int(awad.vulnerable.sum())
    vulnerable_linkable = int(awad.vulnerable_linkable.sum())
    vulnerable_clusters = int(np.unique(flat.chunk_cluster[awad.vulnerable]).size)
    problems: list[CoverProblem] = []
    breach_list: list[Breach] = []
    if list_problems:
        problems, breach_list = _listings(flat, awad, rels, rel_idx, ys, hit, rel_hit)
    return {
        "n_records": int(flat.cluster_size.sum()),
        "vulnerable_records": vulnerable_records,
        "breaches": breaches,
        "algorithm1_total": alg1,
        "pem": _share(vulnerable, n_chunks),
        "record_chunks": n_chunks,
        "vulnerable_chunks": vulnerable,
        "pem_linkable": _share(vulnerable_linkable, n_chunks),
        "vulnerable_chunks_linkable": vulnerable_linkable,
        "linkable_chunks": int(awad.linkable.sum()),
        "pem_cluster": _share(vulnerable_clusters, n_clusters),
        "vulnerable_clusters": vulnerable_clusters,
        "clusters": n_clusters,
        "cover_problems": problems,
        "breach_list": breach_list,
        "cover_pairs": int(np.unique(pair).size),
        "vulnerable_per_cluster": per_cluster,
    }


def _listings(flat: FlatRelease, awad: Any, rels: Any, rel_idx: np.ndarray, ys: np.ndarray, hit: np.ndarray,
              rel_hit: np.ndarray) -> tuple[list[CoverProblem], list[Breach]]:
    terms = flat.terms.tolist()
    key_item = flat.key_item.tolist()
    off = flat.chunk_off.tolist()
    cid = flat.cluster_ids
    chunk_cluster = flat.chunk_cluster.tolist()
    chunk_index = flat.chunk_index.tolist()
    support = flat.key_support.tolist()
    problems: list[CoverProblem] = []
    covered_key = awad.covered_key
    linkable = awad.linkable.tolist()
    for c in np.flatnonzero(awad.vulnerable).tolist():
        lo, hi = off[c], off[c + 1]
        flags = covered_key[lo:hi].tolist()
        names = [terms[key_item[i]] for i in range(lo, hi)]
        problems.append(CoverProblem(
            cluster=cid[chunk_cluster[c]], chunk=chunk_index[c],
            covered=sorted(n for n, f in zip(names, flags, strict=True) if f),
            covering=sorted(n for n, f in zip(names, flags, strict=True) if not f),
            definition="awad2019", support=int(awad.full_support[c]), linkable=linkable[c]))
    x_key = rels.x_key.tolist()
    l_chunk = rels.l_chunk.tolist()
    prefix = rels.prefix.tolist()
    first = rels.first_covered.tolist()
    key_chunk = flat.key_chunk.tolist()
    for r in range(len(x_key)):
        l, lo = l_chunk[r], off[l_chunk[r]]
        problems.append(CoverProblem(
            cluster=cid[chunk_cluster[l]], chunk=chunk_index[l],
            covered=sorted(terms[key_item[i]] for i in range(lo + first[r], lo + prefix[r])),
            covering=sorted(terms[key_item[i]] for i in range(lo, lo + first[r])),
            definition="barakat2016", support=support[lo + prefix[r] - 1],
            item=terms[key_item[x_key[r]]], item_chunk=chunk_index[key_chunk[x_key[r]]]))
    matched: dict[int, list[str]] = {}
    for r, y in zip(rel_idx[hit].tolist(), ys[hit].tolist(), strict=True):
        matched.setdefault(r, []).append(terms[y])
    breach_list = []
    for r in np.flatnonzero(rel_hit).tolist():
        k = x_key[r]
        breach_list.append(Breach(
            cluster=cid[chunk_cluster[key_chunk[k]]], chunk=chunk_index[key_chunk[k]], item=terms[key_item[k]],
            covered_chunk=chunk_index[l_chunk[r]], covered=sorted(matched[r]), records=support[k]))
    return problems, breach_list


def run_cover_attack(
    release: Release,
    attacker: str = "strong",
    seed: int = 0,
    moderate_share: float = 0.5,
    knowledge: Knowledge | Iterable[Sequence[str]] | None = None,
    *,
    list_problems: bool = True,
    flat: FlatRelease | None = None,
) -> CoverReport:
    """Simulate ``attacker`` (one of :data:`~attacks.cover.knowledge.ATTACKERS`, unless ``knowledge``
    is given) and run the detector on ``release`` (``flat``: its :func:`~attacks.cover.problem.flatten`
    index, if the caller made it already).

    Knowledge made here reads the release only; pass ``knowledge=make_knowledge(..., truth=...)``
    to give the attacker the real records. The ``strong`` attacker (Barakat2016 section 6) needs
    none: every cover problem is a breach. ``seconds`` times the detector alone,
    ``knowledge_seconds`` the knowledge simulation.
    """
    t0 = time.perf_counter()
    if knowledge is None:
        if flat is None and attacker == "strong-per-record":
            flat = flatten(release)  # this attacker's knowledge and the detector read the same index
        knowledge = make_knowledge(release, attacker, seed, moderate_share=moderate_share, flat=flat)
    elif not isinstance(knowledge, Knowledge):
        knowledge = Knowledge([tuple(s) for s in knowledge], attacker, "given")
    t1 = time.perf_counter()
    found = detect(release, knowledge.itemsets, flat=flat, list_problems=list_problems,
                   every_cover_pair=knowledge.every_cover_pair)
    t2 = time.perf_counter()
    cover_pairs = found.pop("cover_pairs")
    per_cluster = found.pop("vulnerable_per_cluster")
    return CoverReport(
        attacker=knowledge.attacker if knowledge.attacker != "custom" else attacker,
        knowledge_source=knowledge.source,
        knowledge_size=cover_pairs if knowledge.every_cover_pair else len(knowledge.itemsets),
        seconds=t2 - t1,
        knowledge_seconds=t1 - t0,
        vulnerable_per_cluster=per_cluster,
        **found,
    )
