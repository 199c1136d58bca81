"""The semantic attack as a sweep step (AlShuhail2021 chapters 4-5).

Per scorer x selector x attacked chunks: accuracy, WMD, transaction and k^m-anonymity breakage from
:func:`attacks.semantic.attack.run_semantic_attack` and :func:`attacks.semantic.metrics.evaluate_semantic`.
Accuracy in three readings (defined in :mod:`attacks.semantic.metrics`): ``accuracy`` (eq. 5.4 as
printed: C_1 terms counted, every record, identical anchors interchangeable), ``accuracy_one_to_one``
(the same formula on a fixed one-to-one pairing of records) and ``accuracy_disassociated`` (the
disassociated terms only, C_1 left out; ``_strict``: on the matched pairing), each with its paired
``_vs_random`` difference.
Scorers are looked up in :data:`experiments.registry.SCORERS` (``table:FILE`` names a table of scores).
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Mapping
from typing import Any

from attacks.semantic.selectors import SELECTORS
from experiments.registry import SCORERS
from experiments.steps.base import MetricInfo, OptionChecker, Published, Row, row

__all__ = ["CHUNKS", "SEMANTIC", "SemanticAttack"]

CHUNKS = ("both", "record", "term")  # attacks.semantic.attack.CHUNK_PARTS, the default first
_PATH = "attacks.semantic"
_KEYS = ("scorers", "selectors", "chunks", "reference", "vpa_limit", "ngd_settings", "baselines", "bootstrap")
_NGD_SETTINGS = ("source", "public", "private")
_BASELINES = ("blind", "oracle")

_METRICS = [
    MetricInfo("accuracy", "semantic", "accuracy (eq. 5.4 as printed)", fraction=True),
    MetricInfo("accuracy_one_to_one", "semantic", "accuracy (eq. 5.4, fixed one-to-one records)", fraction=True),
    MetricInfo("accuracy_disassociated", "semantic", "accuracy of the disassociated terms (C1 left out)",
               fraction=True, default=False),
    MetricInfo("accuracy_disassociated_strict", "semantic",
               "accuracy of the disassociated terms (C1 left out, matched one-to-one records)", fraction=True,
               default=False),
    MetricInfo("wmd", "semantic", "WMD original vs reconstructed", unit="GloVe distance"),
    MetricInfo("transaction_breakage", "semantic", "transaction breakage", fraction=True),
    MetricInfo("transaction_breakage_strict", "semantic", "transaction breakage (one-to-one records)",
               fraction=True, default=False),
    MetricInfo("km_breakage", "semantic", "k^m-anonymity breakage", fraction=True),
    MetricInfo("transaction_breakage_literal", "semantic", "transaction breakage, eqs. 5.2-5.3 as printed",
               fraction=True, default=False),
    MetricInfo("unknown_term_share", "semantic", "attacked terms unknown to the scorer", fraction=True,
               default=False),
    MetricInfo("semantic_seconds", "semantic", "semantic attack time", unit="s"),
]
# issue 11: the paired difference attack minus random (same run, same records) and its 95% bootstrap bounds
for _base in ("accuracy", "accuracy_one_to_one", "accuracy_disassociated", "transaction_breakage", "km_breakage",
              "wmd", "transaction_breakage_literal"):
    for _suffix, _what in (("", ""), ("_lo", ", lower 95% bound"), ("_hi", ", upper 95% bound")):
        _METRICS.append(MetricInfo(f"{_base}_vs_random{_suffix}", "semantic",
                                   f"{_base.replace('_', ' ')}: attack minus random{_what}",
                                   fraction=_base != "wmd", unit="GloVe distance" if _base == "wmd" else "",
                                   default=False))


@functools.lru_cache(maxsize=16)
def _scorer(spec: str, reference: str | None, seed: int, base_dir: str) -> Any:
    """A scorer, cached per worker process (the GloVe vectors load once)."""
    if spec.startswith("table:"):
        from attacks.semantic.scorers import make_scorer

        if not os.path.isabs(spec[6:]):
            candidate = os.path.join(base_dir, spec[6:])
            if os.path.exists(candidate):
                spec = "table:" + candidate
        return make_scorer(spec, reference=reference, seed=seed)
    return SCORERS.get(spec).make(spec, reference=reference, seed=seed)


def _scorer_label(spec: str) -> str:
    return SCORERS.get(spec).label if spec in SCORERS else spec


def _suffix(attacked: str) -> str:
    return f" [{attacked} only]" if attacked != "both" else ""


def _list_option(check: OptionChecker, sem: Mapping[str, Any], key: str, allowed: Any) -> list[str]:
    return check.choices(sem[key], f"{_PATH}.{key}", allowed)


class _Run:
    """One run's semantic attacks: the rows, the random baseline of each part, what is computed once."""

    def __init__(self, sem: Mapping[str, Any], published: Published) -> None:
        self.sem, self.p = sem, published
        self.wanted = published.wanted
        self.boot = int(sem.get("bootstrap", 200))
        self.want_diff = any(w.endswith(("_vs_random", "_vs_random_lo", "_vs_random_hi")) for w in self.wanted)
        self.rows: list[Row] = []
        self.cache: dict[tuple[str, str], Any] = {}
        self.shared: dict[str, Any] = {}  # protected itemsets and WMD pairs, computed once per run
        self.wmd_parts = tuple(sem.get("wmd_parts", ("overall",)))  # the thesis's figures plot the overall WMD
        self.needed = {w.split("_vs_random")[0] for w in self.wanted}  # a difference needs its metric

    def evaluate(self, result: Any, label: str, took: float | None) -> Any:
        from attacks.semantic.metrics import evaluate_semantic

        p = self.p
        scores = evaluate_semantic(result, p.release, p.truth, p.dataset, seed=p.seed, bootstrap=0,
                                   wmd="wmd" in self.wanted, baseline=False, shared=self.shared,
                                   wmd_parts=self.wmd_parts, metrics=self.needed)
        for r in scores.rows:
            if r.metric in self.wanted:
                self.rows.append(row(r.metric, r.value, took, "semantic", label, r.part))
        if took is not None:
            self.rows.append(row("semantic_seconds", took, took, "semantic", label, "overall"))
        return scores

    def random_of(self, attacked: str) -> Any:
        from attacks.semantic.attack import run_semantic_attack

        key = ("random", attacked)
        if key not in self.cache:
            t0 = time.perf_counter()
            rnd = run_semantic_attack(self.p.release, None, selector="random", chunks=attacked, seed=self.p.seed)
            self.cache[key] = self.evaluate(rnd, "random" + _suffix(attacked), time.perf_counter() - t0)
        return self.cache[key]

    def differences(self, scores: Any, label: str, attacked: str) -> None:
        """The paired attack-minus-random rows (value and 95% bounds) the sweep records."""
        if not self.want_diff:
            return
        for d in scores.difference_vs(self.random_of(attacked), "random", seed=self.p.seed, bootstrap=self.boot):
            for suffix, value in (("", d.value), ("_lo", d.lo), ("_hi", d.hi)):
                name = f"{d.metric}_vs_random{suffix}"
                if name in self.wanted:
                    self.rows.append(row(name, value, None, "semantic", label, d.part))

    def scorer_runs(self) -> list[tuple[str, Any, str, int]]:
        """(label prefix, reference, scorer spec, seed of the reference) of every scorer to run."""
        sem, dconf, seed = self.sem, self.p.config["dataset"], self.p.seed
        reference = sem.get("reference", "source")
        data_seed = int(dconf["seed"]) if dconf.get("seed") is not None else seed  # the text build's split seed
        ds_seed = seed
        if reference == "source":
            reference = dconf.get("text")
            ds_seed = data_seed
        runs: list[tuple[str, Any, str, int]] = []
        for spec in sem["scorers"]:
            if spec == "ngd" and sem.get("ngd_settings"):
                text = str(dconf.get("text") or "")
                for setting in sem["ngd_settings"]:
                    if setting == "source":
                        runs.append(("NGD", reference, spec, ds_seed))
                    else:  # the private corpus leaves out exactly the attacked parts of this build's split
                        runs.append((f"NGD({setting})", f"{setting}:{text}", spec, data_seed))
            else:
                runs.append((_scorer_label(spec), reference, spec, ds_seed))
        return runs

    def attack(self, selector: str, attacked: str, label: str, scorer: Any) -> None:
        from attacks.semantic.attack import run_semantic_attack

        label += _suffix(attacked)
        t0 = time.perf_counter()
        result = run_semantic_attack(self.p.release, scorer, selector=selector, chunks=attacked, seed=self.p.seed,
                                     vpa_limit=int(self.sem.get("vpa_limit", 10_000)), progress=False)
        took = time.perf_counter() - t0
        scores = self.evaluate(result, label, took)
        if scorer is not None and "unknown_term_share" in self.wanted:
            share = result.unknown_terms / result.distinct_terms if result.distinct_terms else 0.0
            self.rows.append(row("unknown_term_share", share, None, "semantic", label, "overall"))
        self.differences(scores, label, attacked)

    def attacks(self) -> None:
        done_scorerless: set[tuple[str, str]] = set()
        for prefix, ref, spec, ref_seed in self.scorer_runs():
            for selector in self.sem["selectors"]:
                for attacked in self.sem["chunks"]:
                    if selector not in ("VPA", "random"):
                        self.attack(selector, attacked, f"{prefix}-{selector}",
                                    _scorer(spec, ref, ref_seed, self.p.base_dir))
                    elif (selector, attacked) not in done_scorerless:  # they ignore the scorer: run them once
                        done_scorerless.add((selector, attacked))
                        if selector == "random":
                            self.random_of(attacked)
                        else:
                            self.attack(selector, attacked, selector, None)

    def baselines(self) -> None:
        from attacks.semantic.metrics import blind_attack, oracle_reconstruction

        p = self.p
        for name in self.sem.get("baselines", ()):
            for attacked in self.sem["chunks"]:
                if name == "blind":
                    result = blind_attack(p.release, chunks=attacked, seed=p.seed)
                else:
                    result = oracle_reconstruction(p.release, p.truth, attacked)
                label = name + _suffix(attacked)
                self.differences(self.evaluate(result, label, None), label, attacked)


class SemanticAttack:
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

    name = "semantic"
    path = _PATH
    text_only = True
    metrics = tuple(_METRICS)

    def parse_options(self, raw: Any, check: OptionChecker) -> dict[str, Any]:
        sem = check.mapping({} if raw is True else raw, _PATH)
        check.keys(sem, _KEYS, _PATH)
        out: dict[str, Any] = {"scorers": self._scorers(sem.get("scorers", ["ngd"]), check)}
        out["selectors"] = check.choices(sem.get("selectors", list(SELECTORS)), f"{_PATH}.selectors", SELECTORS)
        out["chunks"] = check.choices(sem.get("chunks", ["both"]), f"{_PATH}.chunks", CHUNKS)
        out["reference"] = check.string(sem.get("reference", "source"), f"{_PATH}.reference")
        out["vpa_limit"] = check.integer(sem.get("vpa_limit", 10_000), f"{_PATH}.vpa_limit", 1)
        # issue 11: NGD threat settings, baselines beside random, bootstrap of the paired differences
        if "ngd_settings" in sem:
            out["ngd_settings"] = _list_option(check, sem, "ngd_settings", _NGD_SETTINGS)
        if "baselines" in sem:
            base = [check.choice(x, f"{_PATH}.baselines[{i}]", _BASELINES)
                    for i, x in enumerate(check.as_list(sem["baselines"]))]
            check.unique(base, f"{_PATH}.baselines")
            out["baselines"] = base
        if "bootstrap" in sem:
            out["bootstrap"] = check.integer(sem["bootstrap"], f"{_PATH}.bootstrap", 0, maximum=100_000)
        return out

    @staticmethod
    def _scorers(raw: Any, check: OptionChecker) -> list[str]:
        names = SCORERS.names()
        shown = ", ".join(names)
        scorers = check.as_list(raw)
        if not scorers:
            raise check.fail(f"{_PATH}.scorers", f"expected a non-empty list of: {shown}, table:FILE")
        for i, s in enumerate(scorers):
            p = f"{_PATH}.scorers[{i}]"
            check.string(s, p)
            if s not in names and not s.startswith("table:"):
                raise check.fail(p, f"{check.show(s)} is not a scorer{check.suggest(s, list(names))}; "
                                 f"allowed: {shown}, table:FILE")
        check.unique(scorers, f"{_PATH}.scorers")
        return scorers

    def run(self, options: Mapping[str, Any], published: Published) -> list[Row]:
        run = _Run(options, published)
        run.attacks()
        run.baselines()
        return run.rows


SEMANTIC = SemanticAttack()
