"""The disassociation step of a run: Terrovitis2012's disassociation, safe disassociation, utility.

Disassociate the dataset (:func:`anonymizer.disassociation.pipeline.disassociate`), optionally make
the release safe (Awad2019; :func:`anonymizer.disassociation.safe.safe_disassociate`), then measure:

* ``anonymizer``: time, clusters, record chunks, share of term occurrences left in term chunks,
  the dataset's size and density (type-token ratio, AlShuhail2021 section 5.1.1);
* ``utility``: tKd, tKd-a, re, re-a, tlost, tKd-ML^2 and NCP (:func:`anonymizer.evaluation.utility.utility_report`,
  Terrovitis2012 section 7) and RAE (:func:`anonymizer.evaluation.safe_metrics.rae`, Awad2019 section 5.1.3);
* ``safe``: RLM (:func:`anonymizer.evaluation.safe_metrics.rlm`, Awad2019 section 5.1.2) and the time of
  safe disassociation (Awad2019 Figure 7).

The attacks run on the release that is published: the safe one when ``safe`` is true.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Mapping
from typing import Any

from anonymizer.disassociation.pipeline import disassociate
from anonymizer.model.params import DisassociationParams
from corpora.dataset import TransactionDataset
from experiments.steps.base import MetricInfo, Published, Row, row

__all__ = ["ANONYMIZER_METRICS", "DISASSOCIATION", "RELEASE_ID", "SAFE_METRICS", "UTILITY_METRICS", "Disassociation",
           "release_fingerprint", "release_key"]

ANONYMIZER_METRICS = (
    MetricInfo("anonymize_seconds", "anonymizer", "disassociation time", unit="s"),
    MetricInfo("clusters", "anonymizer", "clusters", unit="count"),
    MetricInfo("record_chunks", "anonymizer", "record chunks", unit="count"),
    MetricInfo("term_chunk_share", "anonymizer", "term-chunk share of term occurrences", fraction=True),
    MetricInfo("dataset_records", "anonymizer", "records in the dataset", unit="count"),
    MetricInfo("dataset_density", "anonymizer", "dataset density (type-token ratio)"),
    # How many clusters a cover problem can be linked across (Awad2019 section 3.3 needs two record
    # chunks in one cluster): the share of chunks in such clusters is the ceiling of PEM.
    MetricInfo("multi_chunk_clusters", "anonymizer", "clusters with two or more record chunks", fraction=True,
               default=False),
    MetricInfo("linkable_chunk_share", "anonymizer",
               "record chunks in multi-chunk clusters (ceiling of PEM's linkable reading)",
               fraction=True, default=False),
)
UTILITY_METRICS = (
    MetricInfo("tkd", "utility", "tKd", fraction=True, default=False),
    MetricInfo("tkd_a", "utility", "tKd-a", fraction=True, default=False),
    MetricInfo("re", "utility", "re (relative error)", default=False),
    MetricInfo("re_a", "utility", "re-a (relative error)", default=False),
    MetricInfo("tlost", "utility", "tlost (support more than k, Terrovitis2012 7.1)", fraction=True, default=False),
    MetricInfo("tlost_at_least_k", "utility", "tlost, variant: support at least k", fraction=True, default=False),
    # Terrovitis2012 Figure 7d: re over term-rank windows (column ``rank``), supports averaged over r
    # reconstructions; recorded on datasets whose utility settings give ``re_windows``.
    MetricInfo("re_r1", "utility", "re (1 reconstruction)", default=False),
    MetricInfo("re_r2", "utility", "re-r2 (2 reconstructions)", default=False),
    MetricInfo("re_r5", "utility", "re-r5 (5 reconstructions)", default=False),
    MetricInfo("re_r10", "utility", "re-r10 (10 reconstructions)", default=False),
    MetricInfo("tkd_ml2", "utility", "tKd-ML^2", fraction=True, default=False),
    MetricInfo("ncp", "utility", "NCP (normalized certainty penalty)", fraction=True, default=False),
    # RAE is drawn in percent, the unit of Awad2019 Figure 6 ("between 1% for BMS1 and 0.1% for BMS2")
    MetricInfo("rae", "utility", "RAE as printed, signed (Awad2019 5.1.3)", fraction=True, default=False),
    MetricInfo("rae_abs", "utility", "RAE, variant: absolute differences (= re)", fraction=True, default=False),
    MetricInfo("utility_seconds", "utility", "utility measurement time", unit="s", default=False),
)
RELEASE_ID = MetricInfo("release_id", "anonymizer", "release fingerprint (content, order-free)", unit="id",
                        default=False)
"""An integer fingerprint of the published release's content, blind to the order of clusters, chunks and
sub-records: equal across seeds when the seeds only reorder a release (Terrovitis2012's HORPART and VERPART
are deterministic), so the figures can say whether their bands span releases or attacker sampling only."""

SAFE_METRICS = (
    MetricInfo("rlm", "safe", "RLM (relative loss), every chunk with a cover problem treated", fraction=True),
    MetricInfo("rlm_linkable", "safe", "RLM, variant: only linkable chunks treated", fraction=True, default=False),
    MetricInfo("safe_seconds", "safe", "safe disassociation time", unit="s"),
)

_RE_BY_RANK = {"re_r1", "re_r2", "re_r5", "re_r10"}  # Terrovitis2012 Figure 7d

_LAST_RELEASE: dict[str, tuple[Any, Any, float]] = {}
"""The last disassociation this process computed, by :func:`release_key`: the runs that share it (the plain
and the safe run of a grid point, or runs differing only in metrics, attacks or utility settings) are run one
after the other in one worker (:mod:`experiments.sweep.runner`), and only the first computes it."""


def _plain_params(config: Mapping[str, Any]) -> DisassociationParams:
    """The run's parameters, checked once; safe disassociation runs as its own step on the plain release."""
    return dataclasses.replace(DisassociationParams.from_mapping(config), safe=False)


def release_key(config: Mapping[str, Any]) -> str | None:
    """What the disassociation of a run depends on: the dataset build, the parameters apart from ``safe``, the seed.

    None for another anonymizer. Two runs with one key get the same release and truth from
    :func:`anonymizer.disassociation.pipeline.disassociate` (it draws from its own generator of the seed).
    """
    if config.get("anonymizer", "disassociation") != "disassociation":
        return None
    dataset = {k: v for k, v in config["dataset"].items() if k != "label"}
    params = dataclasses.asdict(_plain_params(config))
    blob = json.dumps({"dataset": dataset, "params": params, "seed": int(config["seed"]),
                       "base_dir": str(config.get("base_dir", "."))}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _disassociate_once(config: Mapping[str, Any], ds: TransactionDataset, seed: int) -> tuple[Any, Any, float]:
    """The run's plain release, its truth and the seconds disassociation took (the first time, when shared)."""
    key = release_key(config)
    if key is not None and key in _LAST_RELEASE:
        return _LAST_RELEASE[key]
    _LAST_RELEASE.clear()  # one release held at a time
    t0 = time.perf_counter()
    release, truth = disassociate(ds, params=_plain_params(config), seed=seed)
    computed = (release, truth, time.perf_counter() - t0)
    if key is not None:
        _LAST_RELEASE[key] = computed
    return computed


def _chunk_structure_rows(release: Any, method: str) -> list[Row]:
    """Share of clusters with two or more record chunks, and of record chunks inside them.

    PEM's linkable reading (``pem_linkable``, after Awad2019 section 3.3) counts only chunks whose
    cover problem can be linked to another record chunk of the cluster, so the second share bounds
    that reading from above: it is what the measured reasons beside the papers' PEM and breach
    figures cite.
    """
    per_cluster = [len(c.record_chunks) for c in release.clusters]
    n_chunks = sum(per_cluster)
    multi = [n for n in per_cluster if n >= 2]
    return [
        row("multi_chunk_clusters", len(multi) / len(per_cluster) if per_cluster else 0.0, method=method),
        row("linkable_chunk_share", sum(multi) / n_chunks if n_chunks else 0.0, method=method),
    ]


def release_fingerprint(release: Any) -> int:
    """:data:`RELEASE_ID`: the first 40 bits of a SHA-256 over the release's content in sorted order
    (an integer a float column holds exactly)."""

    def cluster_key(cluster: Any) -> list[Any]:
        chunks = sorted(sorted(sorted(sub) for sub in chunk) for chunk in cluster.record_chunks)
        return [cluster.size, chunks, sorted(cluster.term_chunk)]

    joint = sorted(sorted(sorted(sorted(sub) for sub in chunk) for chunk in j.shared_chunks)
                   for j in release.joint_clusters)
    content = {"params": dict(release.params), "clusters": sorted(cluster_key(c) for c in release.clusters),
               "joint": joint}
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode("utf-8"))
    return int(digest.hexdigest()[:10], 16)


def _anonymizer_rows(ds: TransactionDataset, release: Any, seconds: float, method: str) -> list[Row]:
    n_chunks = sum(len(c.record_chunks) for c in release.clusters)
    in_terms = sum(len(c.term_chunk) for c in release.clusters)
    total = int(ds.lengths.sum()) if len(ds) else 0
    return [
        row("anonymize_seconds", seconds, seconds, method=method),
        row("clusters", len(release.clusters), method=method),
        row("record_chunks", n_chunks, method=method),
        row("term_chunk_share", in_terms / total if total else 0.0, method=method),
        row("dataset_records", len(ds), method=method),
        row("dataset_density", ds.density, method=method),
    ]


def _safe(release: Any, truth: Any, seed: int, wanted: set[str], method: str) -> tuple[Any, Any, list[Row]]:
    """Safe disassociation (Awad2019 section 4), its time and RLM (section 5.1.2)."""
    from anonymizer.disassociation.safe import safe_disassociate
    from anonymizer.evaluation.safe_metrics import rlm

    rows: list[Row] = []
    t0 = time.perf_counter()
    published, published_truth = safe_disassociate(release, truth, seed=seed)
    elapsed = time.perf_counter() - t0
    rows.append(row("safe_seconds", elapsed, elapsed, method=method))
    if "rlm" in wanted:
        rows.append(row("rlm", rlm(release, published), method=method))
    if "rlm_linkable" in wanted:  # the named variant (anonymizer.model.params.SAFE_TARGETS)
        variant, _ = safe_disassociate(release, truth, seed=seed, targets="linkable")
        rows.append(row("rlm_linkable", rlm(release, variant), method=method))
    return published, published_truth, rows


def _utility_rows(config: Mapping[str, Any], ds: TransactionDataset, published: Any, wanted: set[str], seed: int,
                  method: str) -> list[Row]:
    """tKd, tKd-a, re, re-a, tlost, tKd-ML^2, NCP (Terrovitis2012 section 7) of the published release."""
    from anonymizer.evaluation.utility import utility_report

    rows: list[Row] = []
    utility_metrics = {"tkd", "tkd_a", "re", "re_a", "tlost", "tlost_at_least_k", "tkd_ml2", "ncp"} & wanted
    if not utility_metrics:
        return rows
    u = config["utility"]
    hierarchy = None
    if {"tkd_ml2", "ncp"} & wanted:
        from anonymizer.baselines.hierarchy import balanced_hierarchy

        hierarchy = balanced_hierarchy(ds.vocabulary, int(config.get("fanout", 5)))
    t0 = time.perf_counter()
    report = utility_report(ds, published, reconstructions=int(u["reconstructions"]), seed=seed,
                            top_k=int(u["top_k"]), re_range=(int(u["re_range"][0]), int(u["re_range"][1])),
                            hierarchy=hierarchy)
    elapsed = time.perf_counter() - t0
    for name in sorted(utility_metrics):
        rows.append(row(name, getattr(report, name), method=method))
    rows.append(row("utility_seconds", elapsed, elapsed, method=method))
    return rows


def _rank_rows(config: Mapping[str, Any], ds: TransactionDataset, published: Any, wanted: set[str], seed: int,
               method: str) -> list[Row]:
    """re by term-rank window (Terrovitis2012 Figure 7d) and RAE (Awad2019 section 5.1.3)."""
    rows: list[Row] = []
    figure_7d = sorted(_RE_BY_RANK & wanted)
    if figure_7d and config["utility"].get("re_windows"):
        from anonymizer.evaluation.utility import re_by_rank

        windows = [(int(lo), int(hi)) for lo, hi in config["utility"]["re_windows"]]
        values = re_by_rank(ds, published, windows, [int(name[4:]) for name in figure_7d], seed=seed)
        for name in figure_7d:
            for lo, _hi in windows:
                rows.append(row(name, values[(lo, int(name[4:]))], method=method, rank=lo))
    if {"rae", "rae_abs"} & wanted:
        from anonymizer.evaluation.safe_metrics import rae_readings

        u = config["utility"]
        signed, absolute = rae_readings(ds, published, seed=seed,
                                        rank_range=(int(u["re_range"][0]), int(u["re_range"][1])))
        rows += [row(name, value, method=method) for name, value in (("rae", signed), ("rae_abs", absolute))
                 if name in wanted]
    return rows


class Disassociation:
    """Disassociation (Terrovitis2012), made safe on request (Awad2019), and its utility measures."""

    name = "disassociation"
    metrics = ANONYMIZER_METRICS + (RELEASE_ID,) + UTILITY_METRICS + SAFE_METRICS
    grid_params = ("k", "m", "max_cluster_size", "horpart", "verpart", "refine", "safe", "fanout")
    release_key = staticmethod(release_key)

    def run(self, config: Mapping[str, Any], ds: TransactionDataset) -> tuple[list[Row], Published]:
        wanted = set(config["metrics"])
        seed = int(config["seed"])
        safe = bool(config["safe"])
        method = "safe disassociation" if safe else "disassociation"
        rows: list[Row] = []

        release, truth, took = _disassociate_once(config, ds, seed)
        rows += _anonymizer_rows(ds, release, took, method)

        published, published_truth = release, truth
        if safe:
            published, published_truth, safe_rows = _safe(release, truth, seed, wanted, method)
            rows += safe_rows
        rows += _chunk_structure_rows(published, method)
        if RELEASE_ID.name in wanted:
            rows.append(row(RELEASE_ID.name, release_fingerprint(published), method=method))
        rows += _utility_rows(config, ds, published, wanted, seed, method)
        rows += _rank_rows(config, ds, published, wanted, seed, method)
        return rows, Published(config=config, dataset=ds, release=published, truth=published_truth, seed=seed,
                               base_dir=str(config.get("base_dir", ".")), wanted=frozenset(wanted))


DISASSOCIATION = Disassociation()
