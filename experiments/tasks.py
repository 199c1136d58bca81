"""The default task of a run: small adapters over the workbench's own APIs, nothing re-implemented.

One run = load (or build) the dataset, disassociate it (Terrovitis2012;
:func:`anonymizer.disassociation.pipeline.disassociate`) or, with ``anonymizer: apriori | diffpart``, run a
baseline of Terrovitis2012 Figure 11 (:mod:`anonymizer.baselines.apriori`, :mod:`anonymizer.baselines.diffpart`;
tKd, re, tKd-ML^2, NCP from :func:`anonymizer.evaluation.multilevel.baseline_utility`; no attacks),
optionally make it safe (Awad2019;
:func:`anonymizer.disassociation.safe.safe_disassociate`), then measure what the sweep asks:

* ``anonymizer``: time, clusters, record chunks, share of term occurrences left in term chunks,
  the dataset's size and density (type-token ratio, AlShuhail2021 section 5.1.1);
* ``utility``: tKd, tKd-a, re, re-a, tlost, tKd-ML^2 and NCP (:func:`anonymizer.evaluation.utility.utility_report`,
  Terrovitis2012 section 7) and RAE (:func:`anonymizer.evaluation.safe_metrics.rae`, Awad2019 section 5.1.3);
* ``safe``: RLM (:func:`anonymizer.evaluation.safe_metrics.rlm`, Awad2019 section 5.1.2) and the time of
  safe disassociation (Awad2019 Figure 7);
* ``cover``: per attacker (strong, moderate, weak; Barakat2016 section 6) the vulnerable records,
  breaches, PEM (Awad2019 section 5.1.1) and the detector's time (Barakat2016 Figure 5), from
  :func:`attacks.cover.detector.run_cover_attack`;
* ``semantic``: per scorer x selector x attacked chunks (AlShuhail2021 chapters 4-5) accuracy,
  WMD, transaction and k^m-anonymity breakage from :func:`attacks.semantic.attack.run_semantic_attack`
  and :func:`attacks.semantic.metrics.evaluate_semantic`.

The attacks run on the release that is published: the safe one when ``safe`` is true. Every
random step takes the run's seed. Datasets and scorers are cached per worker process, so the
many runs of one worker load the kosarak file or the GloVe vectors once.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Mapping
from typing import Any

from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset
from experiments.schema import DatasetSpec

__all__ = ["load_run_dataset", "resolve_dataset_label", "run_task"]


# --------------------------------------------------------------------------- datasets
@functools.lru_cache(maxsize=8)
def _load_named(name: str, base_dir: str) -> TransactionDataset:
    from corpora.registry import load_dataset

    candidate = os.path.join(base_dir, name)
    if not os.path.isabs(name) and os.path.exists(candidate) and not os.path.exists(name):
        name = candidate
    return load_dataset(name)


def resolve_dataset_label(ds: DatasetSpec, base_dir: str = ".") -> str:
    """The first of the entry's names that loads offline (a cached BMS file before its kosarak stand-in)."""
    problems = []
    for name in ds.names:
        try:
            _load_named(name, base_dir)
            return name
        except (InputError, OSError) as exc:
            problems.append(f"{name}: {exc}")
    raise InputError("no dataset of [" + ", ".join(ds.names) + "] loads offline (" + "; ".join(problems) + ")")


@functools.lru_cache(maxsize=16)
def _load_text(source: str, density: float | None, seed: int,
               options: tuple[tuple[str, Any], ...]) -> TransactionDataset:
    from corpora.text.api import build_text_dataset

    return build_text_dataset(source, density=density, seed=seed, **dict(options))


def load_run_dataset(dconf: Mapping[str, Any], seed: int, base_dir: str = ".") -> TransactionDataset:
    """The dataset of a run: a registry name or path, or a text build at the run's density.

    ``records`` keeps the first N records (for size sweeps, Awad2019 Figure 7); a text build
    uses the entry's seed, or the run's seed when the entry gives none (so repeats sample
    different documents).
    """
    if dconf.get("text"):
        ds_seed = dconf["seed"] if dconf.get("seed") is not None else seed
        options = tuple(sorted((k, _freeze(v)) for k, v in dict(dconf.get("options") or {}).items()))
        if "part" not in dict(options):  # the attacked part, disjoint from the NGD reference part
            options = tuple(sorted((*options, ("part", "attacked"))))
        ds = _load_text(dconf["text"], dconf.get("density"), int(ds_seed), options)
    else:
        ds = _load_named(dconf["names"][0], base_dir)
    n = dconf.get("records")
    if n is not None:
        if n > len(ds):
            raise InputError(f"dataset {dconf['label']}: records={n} but it has only {len(ds)} records")
        ds = ds.subset(range(n))
    return ds


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    return v


# --------------------------------------------------------------------------- scorers
@functools.lru_cache(maxsize=16)
def _scorer(spec: str, reference: str | None, seed: int, base_dir: str) -> Any:
    from attacks.semantic.scorers import make_scorer

    if spec.startswith("table:") and not os.path.isabs(spec[6:]):
        candidate = os.path.join(base_dir, spec[6:])
        if os.path.exists(candidate):
            spec = "table:" + candidate
    return make_scorer(spec, reference=reference, seed=seed)


def _scorer_label(spec: str) -> str:
    return {"ngd": "NGD", "glove": "WE", "hybrid": "WE+WN", "wordnet": "WN"}.get(spec, spec)


# --------------------------------------------------------------------------- the task
_RE_BY_RANK = {"re_r1", "re_r2", "re_r5", "re_r10"}  # Terrovitis2012 Figure 7d
def _row(metric: str, value: Any, seconds: float | None = None, attack: str = "", method: str = "",
         chunks: str = "", rank: int | None = None) -> dict[str, Any]:
    return {"metric": metric, "value": None if value is None else float(value), "seconds": seconds,
            "attack": attack, "method": method, "chunks": chunks, "rank": rank}


def _chunk_structure_rows(release: Any, method: str) -> list[dict[str, Any]]:
    """Share of clusters with two or more record chunks, and of record chunks inside them.

    Awad2019's PEM counts only chunks whose cover problem can be linked to another record chunk
    of the cluster (section 3.3), so the second share bounds PEM from above: it is what the
    measured reasons beside the papers' PEM and breach figures cite.
    """
    per_cluster = [len(c.record_chunks) for c in release.clusters]
    n_chunks = sum(per_cluster)
    multi = [n for n in per_cluster if n >= 2]
    return [
        _row("multi_chunk_clusters", len(multi) / len(per_cluster) if per_cluster else 0.0, method=method),
        _row("linkable_chunk_share", sum(multi) / n_chunks if n_chunks else 0.0, method=method),
    ]


def _anonymizer_rows(ds: TransactionDataset, release: Any, seconds: float, method: str) -> list[dict[str, Any]]:
    n_chunks = sum(len(c.record_chunks) for c in release.clusters)
    in_terms = sum(len(c.term_chunk) for c in release.clusters)
    total = int(ds.lengths.sum()) if len(ds) else 0
    return [
        _row("anonymize_seconds", seconds, seconds, method=method),
        _row("clusters", len(release.clusters), method=method),
        _row("record_chunks", n_chunks, method=method),
        _row("term_chunk_share", in_terms / total if total else 0.0, method=method),
        _row("dataset_records", len(ds), method=method),
        _row("dataset_density", ds.density, method=method),
    ]


_BASELINE_LABELS = {"apriori": "Apriori", "diffpart": "DiffPart"}


def _baseline_rows(config: Mapping[str, Any], ds: TransactionDataset, wanted: set[str]) -> list[dict[str, Any]]:
    """One run of a baseline (Apriori or DiffPart, Terrovitis2012 Figure 11) and its utility rows.

    The hierarchy is the balanced tree of the run's ``fanout`` over the dataset's items
    (:func:`anonymizer.baselines.hierarchy.balanced_hierarchy`). DiffPart's noise takes the run's seed.
    tKd-a, re-a and tlost are disassociation's measures and are not recorded here.
    """
    from anonymizer.baselines.hierarchy import balanced_hierarchy
    from anonymizer.evaluation.multilevel import baseline_utility

    method = config["anonymizer"]
    label = _BASELINE_LABELS[method]
    hierarchy = balanced_hierarchy(ds.vocabulary, int(config.get("fanout", 5)))
    t0 = time.perf_counter()
    if method == "apriori":
        from anonymizer.baselines.apriori import apriori_anonymize

        release = apriori_anonymize(ds, hierarchy, int(config["k"]), int(config["m"]))
    else:
        from anonymizer.baselines.diffpart import diffpart

        release, _owner = diffpart(ds, hierarchy, float(config["epsilon"]), seed=int(config["seed"]))
    took = time.perf_counter() - t0
    rows = [_row("anonymize_seconds", took, took, method=label),
            _row("dataset_records", len(ds), method=label),
            _row("dataset_density", ds.density, method=label)]
    utility_metrics = {"tkd", "re", "tkd_ml2", "ncp"} & wanted
    if utility_metrics:
        u = config["utility"]
        t0 = time.perf_counter()
        report = baseline_utility(ds, release, top_k=int(u["top_k"]),
                                  re_range=(int(u["re_range"][0]), int(u["re_range"][1])))
        elapsed = time.perf_counter() - t0
        for name in sorted(utility_metrics):
            value = getattr(report, name)
            if value is not None:
                rows.append(_row(name, value, method=label))
        rows.append(_row("utility_seconds", elapsed, elapsed, method=label))
    return [r for r in rows if r["metric"] in wanted]


def run_task(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Do one run of a sweep (see the module docstring); return its metric rows."""
    from anonymizer.disassociation.pipeline import disassociate

    wanted = set(config["metrics"])
    seed = int(config["seed"])
    base_dir = str(config.get("base_dir", "."))
    ds = load_run_dataset(config["dataset"], seed, base_dir)
    if config.get("anonymizer", "disassociation") != "disassociation":
        return _baseline_rows(config, ds, wanted)
    safe = bool(config["safe"])
    method = "safe disassociation" if safe else "disassociation"
    rows: list[dict[str, Any]] = []

    t0 = time.perf_counter()
    release, truth = disassociate(ds, k=int(config["k"]), m=int(config["m"]),
                                  max_cluster_size=int(config["max_cluster_size"]), horpart=config["horpart"],
                                  verpart=config["verpart"], refine=bool(config["refine"]), seed=seed)
    rows += _anonymizer_rows(ds, release, time.perf_counter() - t0, method)

    published, published_truth = release, truth
    if safe:
        from anonymizer.disassociation.safe import safe_disassociate
        from anonymizer.evaluation.safe_metrics import rlm

        t0 = time.perf_counter()
        published, published_truth = safe_disassociate(release, truth, seed=seed)
        elapsed = time.perf_counter() - t0
        rows.append(_row("safe_seconds", elapsed, elapsed, method=method))
        if "rlm" in wanted:
            rows.append(_row("rlm", rlm(release, published), method=method))
    rows += _chunk_structure_rows(published, method)

    utility_metrics = {"tkd", "tkd_a", "re", "re_a", "tlost", "tkd_ml2", "ncp"} & wanted
    if utility_metrics:
        from anonymizer.evaluation.utility import utility_report

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
            rows.append(_row(name, getattr(report, name), method=method))
        rows.append(_row("utility_seconds", elapsed, elapsed, method=method))
    figure_7d = sorted(_RE_BY_RANK & wanted)
    if figure_7d and config["utility"].get("re_windows"):
        from anonymizer.evaluation.utility import re_by_rank

        windows = [(int(lo), int(hi)) for lo, hi in config["utility"]["re_windows"]]
        values = re_by_rank(ds, published, windows, [int(name[4:]) for name in figure_7d], seed=seed)
        for name in figure_7d:
            for lo, _hi in windows:
                rows.append(_row(name, values[(lo, int(name[4:]))], method=method, rank=lo))
    if "rae" in wanted:
        from anonymizer.evaluation.safe_metrics import rae

        u = config["utility"]
        rows.append(_row("rae", rae(ds, published, seed=seed, rank_range=(int(u["re_range"][0]),
                                                                        int(u["re_range"][1]))), method=method))

    attacks = config.get("attacks") or {}
    if "cover" in attacks:
        from attacks.cover.detector import run_cover_attack
        from attacks.cover.knowledge import make_knowledge

        cov = attacks["cover"]
        linkable = sum(len(c.record_chunks) for c in published.clusters if len(c.record_chunks) >= 2)
        for attacker in cov["attackers"]:
            # Barakat2016 section 6 simulates attackers from the real records ("a strict subset of D"):
            # a sweep has the truth, so knowledge comes from it, never from a reconstruction.
            knowledge = make_knowledge(published, attacker, seed, truth=published_truth,
                                       moderate_share=float(cov["moderate_share"]))
            rep = run_cover_attack(published, attacker=attacker, seed=seed, knowledge=knowledge,
                                   list_problems=False)
            took = rep.seconds  # the detector alone (Barakat2016 Figure 5), not the knowledge simulation
            n = rep.n_records
            rows += [
                _row("vulnerable_records", rep.vulnerable_records, took, "cover", attacker),
                _row("vulnerable_records_share", rep.vulnerable_records / n if n else 0.0, took, "cover", attacker),
                _row("breaches", rep.breaches, took, "cover", attacker),
                _row("algorithm1_total", rep.algorithm1_total, took, "cover", attacker),
                _row("pem", rep.pem, took, "cover", attacker),
                _row("vulnerable_chunks", rep.vulnerable_chunks, took, "cover", attacker),
                _row("pem_literal", rep.pem_literal, took, "cover", attacker),
                _row("pem_of_linkable", rep.vulnerable_chunks / linkable if linkable else 0.0, took, "cover",
                     attacker),
                _row("cover_seconds", took, took, "cover", attacker),
            ]

    if "semantic" in attacks:
        rows += _semantic_rows(config, attacks["semantic"], ds, published, published_truth, wanted, seed, base_dir)
    return [r for r in rows if r["metric"] in wanted]


def _semantic_rows(config: Mapping[str, Any], sem: Mapping[str, Any], ds: TransactionDataset, release: Any,
                   truth: Any, wanted: set[str], seed: int, base_dir: str) -> list[dict[str, Any]]:
    """The semantic attack for every scorer x selector x attacked chunks (AlShuhail2021 chapters 4-5).

    Rows carry the method (``NGD-ABA``, ``WE-MRA``; ``VPA`` and ``random`` use no scorer and run
    once) and, in the ``chunks`` column, the part measured: ``overall``, ``record`` (record and
    shared chunks) or ``term`` (the term chunk), as the thesis's figures 5.1-5.30 split them.
    When the attack itself is limited to one part (``chunks: record``), the method says so.

    Issue 11: ``ngd_settings`` runs the NGD scorer once per threat setting (``public``/``private``:
    the pooled corpus of :func:`attacks.semantic.ngd.pooled_reference_documents`, method ``NGD(public)-ABA``;
    ``source``: the ``reference`` option as before); ``baselines`` adds the ``blind`` placement and
    the ``oracle`` ceiling beside ``random``; every scoring method gets ``<metric>_vs_random`` rows
    (with ``_lo``/``_hi``): the paired difference to the random baseline of the same run and seed on
    the same records, with a ``bootstrap``-resample interval; ``unknown_term_share`` counts the
    attacked terms the scorer does not know.
    """
    from attacks.semantic.attack import run_semantic_attack
    from attacks.semantic.metrics import blind_attack, evaluate_semantic, oracle_reconstruction

    dconf = config["dataset"]
    reference = sem.get("reference", "source")
    data_seed = int(dconf["seed"]) if dconf.get("seed") is not None else seed  # the text build's split seed
    ds_seed = seed
    if reference == "source":
        reference = dconf.get("text")
        ds_seed = data_seed
    need_wmd = "wmd" in wanted
    boot = int(sem.get("bootstrap", 200))
    want_diff = any(w.endswith(("_vs_random", "_vs_random_lo", "_vs_random_hi")) for w in wanted)
    rows: list[dict[str, Any]] = []
    cache: dict[tuple[str, str], Any] = {}
    shared: dict[str, Any] = {}  # protected itemsets and WMD pairs, computed once per run
    wmd_parts = tuple(sem.get("wmd_parts", ("overall",)))  # the thesis's figures plot the overall WMD only
    needed = {w.split("_vs_random")[0] for w in wanted}  # a difference needs its metric

    def evaluate(result: Any, label: str, attacked: str, took: float | None) -> Any:
        scores = evaluate_semantic(result, release, truth, ds, seed=seed, bootstrap=0, wmd=need_wmd, baseline=False,
                                   shared=shared, wmd_parts=wmd_parts, metrics=needed)
        for r in scores.rows:
            if r.metric in wanted:
                rows.append(_row(r.metric, r.value, took, "semantic", label, r.part))
        if took is not None:
            rows.append(_row("semantic_seconds", took, took, "semantic", label, "overall"))
        return scores

    def random_of(attacked: str) -> Any:
        key = ("random", attacked)
        if key not in cache:
            t0 = time.perf_counter()
            rnd = run_semantic_attack(release, None, selector="random", chunks=attacked, seed=seed)
            label = "random" + (f" [{attacked} only]" if attacked != "both" else "")
            cache[key] = evaluate(rnd, label, attacked, time.perf_counter() - t0)
        return cache[key]

    def difference_rows(scores: Any, label: str, attacked: str) -> list[dict[str, Any]]:
        """The paired attack-minus-random rows (value and 95% bounds) the sweep records."""
        out = []
        for d in scores.difference_vs(random_of(attacked), "random", seed=seed, bootstrap=boot):
            for suffix, value in (("", d.value), ("_lo", d.lo), ("_hi", d.hi)):
                name = f"{d.metric}_vs_random{suffix}"
                if name in wanted:
                    out.append(_row(name, value, None, "semantic", label, d.part))
        return out

    scorer_runs: list[tuple[str, Any, str, int]] = []  # (label prefix, reference, spec, seed of the reference)
    for spec in sem["scorers"]:
        if spec == "ngd" and sem.get("ngd_settings"):
            text = str(dconf.get("text") or "")
            for setting in sem["ngd_settings"]:
                if setting == "source":
                    scorer_runs.append(("NGD", reference, spec, ds_seed))
                else:  # the private corpus leaves out exactly the attacked parts of this build's split
                    scorer_runs.append((f"NGD({setting})", f"{setting}:{text}", spec, data_seed))
        else:
            scorer_runs.append((_scorer_label(spec), reference, spec, ds_seed))
    done_scorerless: set[tuple[str, str]] = set()
    for prefix, ref, spec, ref_seed in scorer_runs:
        for selector in sem["selectors"]:
            scorerless = selector in ("VPA", "random")
            for attacked in sem["chunks"]:
                if scorerless:
                    if (selector, attacked) in done_scorerless:
                        continue  # VPA and the random baseline ignore the scorer: run them once
                    done_scorerless.add((selector, attacked))
                    if selector == "random":
                        random_of(attacked)
                        continue
                    label = selector
                    scorer = None
                else:
                    label = f"{prefix}-{selector}"
                    scorer = _scorer(spec, ref, ref_seed, base_dir)
                if attacked != "both":
                    label += f" [{attacked} only]"
                t0 = time.perf_counter()
                result = run_semantic_attack(release, scorer, selector=selector, chunks=attacked, seed=seed,
                                             vpa_limit=int(sem.get("vpa_limit", 10_000)), progress=False)
                took = time.perf_counter() - t0
                scores = evaluate(result, label, attacked, took)
                if scorer is not None and "unknown_term_share" in wanted:
                    share = result.unknown_terms / result.distinct_terms if result.distinct_terms else 0.0
                    rows.append(_row("unknown_term_share", share, None, "semantic", label, "overall"))
                if want_diff:
                    rows += difference_rows(scores, label, attacked)
    for name in sem.get("baselines", ()):
        for attacked in sem["chunks"]:
            if name == "blind":
                result = blind_attack(release, chunks=attacked, seed=seed)
            else:
                result = oracle_reconstruction(release, truth, attacked)
            label = name + (f" [{attacked} only]" if attacked != "both" else "")
            scores = evaluate(result, label, attacked, None)
            if want_diff:
                rows += difference_rows(scores, label, attacked)
    return rows
