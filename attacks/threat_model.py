"""The declared threat model of an audit: what the attacker knows and what the owner accepts.

A data owner states, in a small YAML file (``attacks audit --threat-model FILE``, an example at
docs/examples/threat-model.yaml) or with the same options on the command line (options override the
file), against whom the release is checked:

* ``attackers``: which of Barakat2016's attackers (:data:`attacks.cover.knowledge.ATTACKERS`), each with
  ``m`` (the size of a known itemset; default the release's m), ``itemsets_per_target`` (how many
  itemsets the attacker knows of each target record: strong-per-record and moderate, whose knowledge is
  per record), ``moderate_share`` (the share of the records the moderate attacker knows) and, for the
  weak attacker, ``items`` and ``external_items`` (Barakat2016 section 6: 10 and 10);
* ``knowledge``: where the simulated attackers' records come from: ``auto`` (the truth file, else the
  original, else the release alone, as the audit always did), ``truth``, ``original`` or ``release``;
  an attacker whose source is not given is skipped with the reason, never run on another source;
* ``parameters_known``: whether k, m and delta (the maximum cluster size) are known to the attacker;
* ``semantic``: the semantic background of AlShuhail2021 ch. 4: ``scorer`` (``glove``: GloVe 6B 50-d;
  ``ngd``: NGD over ``reference``, a file or a text-source name of the project's corpora, never a web
  backend; ``wordnet``; ``none``: no semantic attack) and the ``selector`` (ABA, RGA, MRA);
* ``thresholds``: the owner's gates ``max_pem``, ``max_vulnerable``, ``max_semantic_gain`` (shares in
  [0, 1]; ``null``: reported, not a gate).

The defaults are the audit's defaults (``attacks audit REL`` without a threat model checks the same
things as before threat models existed). The file is read with the bounded loader of
:mod:`corpora.common.yamlfile`; an unknown key or value is one error line with a "did you mean".
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from attacks.cover.knowledge import ATTACKERS
from corpora.common.bounds import MAX_M
from corpora.common.errors import InputError
from corpora.common.messages import show
from corpora.common.yamlfile import YamlBounds, did_you_mean, read_yaml

__all__ = ["AttackerSpec", "ThreatModel", "DEFAULT_MAX_PEM", "DEFAULT_MAX_VULNERABLE", "DEFAULT_MAX_SEMANTIC_GAIN",
           "SCORERS", "SELECTORS", "KNOWLEDGE_SOURCES", "PARAMETERS", "THREAT_MODEL_BOUNDS"]

DEFAULT_MAX_PEM = 0.0
"""PEM (Awad2019 5.1.1, Definition 3 on every record chunk) above which the audit fails when no threshold
is given: any record chunk with a cover problem (safe disassociation leaves none, Awad2019 section 4, so
a release that has one was not made safe)."""

DEFAULT_MAX_VULNERABLE = 0.05
"""Share of records an attacker may breach before the audit fails: 5%, the strictest of the
re-identification risk thresholds that de-identification practice uses for public releases (0.05
to 0.09; 0.09 in the EMA's and Health Canada's guidance for clinical reports). Safe
disassociation leaves 0.4% (kosarak10k, k=3) to 2.2% (the supermarket baskets, k=5) to Barakat2016's
strong attacker, which partial suppression cannot remove; a plain release of the baskets
gives 8.1%."""

DEFAULT_MAX_SEMANTIC_GAIN = 0.0
"""Margin (accuracy, a share) by which the semantic attack may beat the random baseline before the audit
fails: the lower end of the paired 95% interval of attack minus random must not exceed it. 0: any attack
that places terms measurably better than chance fails, since disassociation promises that the published
chunks cannot be re-associated."""

SCORERS = ("glove", "ngd", "wordnet", "none")
"""The semantic backgrounds a threat model can name (``none``: no semantic attack)."""
SELECTORS = ("ABA", "RGA", "MRA")
"""The semantic attack's placement rules a threat model can name (AlShuhail2021 4.3)."""
KNOWLEDGE_SOURCES = ("auto", "truth", "original", "release")
"""Where the simulated attackers' records come from (module docstring)."""
PARAMETERS = ("k", "m", "delta")
"""The release parameters an attacker may or may not know (delta: the maximum cluster size)."""
PER_TARGET = ("strong-per-record", "moderate")
"""The attackers whose knowledge is per target record (``itemsets_per_target`` applies to them)."""
MAX_ITEMSETS_PER_TARGET = 64
MAX_WEAK_ITEMS = 10_000

THREAT_MODEL_BOUNDS = YamlBounds(file_bytes=64 << 10, nodes=2_000, depth=10, scalar_chars=4_096, what="threat model")
"""A threat model is a few lines of settings (the example has about 30)."""

_TOP_KEYS = ("attackers", "knowledge", "parameters_known", "semantic", "thresholds")
_ATTACKER_KEYS = ("name", "m", "itemsets_per_target", "moderate_share", "items", "external_items")
_SEMANTIC_KEYS = ("scorer", "selector", "reference")
_THRESHOLD_KEYS = ("max_pem", "max_vulnerable", "max_semantic_gain")


@dataclass(frozen=True)
class AttackerSpec:
    """One of Barakat2016's attackers as the threat model declares it (module docstring)."""

    name: str
    m: int | None = None
    itemsets_per_target: int = 1
    moderate_share: float = 0.5
    items: int = 10
    external_items: int = 10

    def __post_init__(self) -> None:
        where = f"attacker {self.name}"
        if self.name not in ATTACKERS:
            raise InputError(f"attacker {self.name!r} is not one of {', '.join(ATTACKERS)}"
                             + did_you_mean(self.name, ATTACKERS))
        if self.m is not None and not 1 <= self.m <= MAX_M:
            raise InputError(f"{where}: m must be an integer from 1 to {MAX_M}, got {self.m}")
        if not 1 <= self.itemsets_per_target <= MAX_ITEMSETS_PER_TARGET:
            raise InputError(f"{where}: itemsets_per_target must be from 1 to {MAX_ITEMSETS_PER_TARGET}, "
                             f"got {self.itemsets_per_target}")
        if self.itemsets_per_target != 1 and self.name not in PER_TARGET:
            raise InputError(f"{where}: itemsets_per_target applies to {' and '.join(PER_TARGET)} only (the "
                             f"{self.name} attacker's knowledge is not per target record)")
        if not 0.0 < self.moderate_share < 1.0:
            raise InputError(f"{where}: moderate_share must be strictly between 0 and 1, got {self.moderate_share}")
        for label, value in (("items", self.items), ("external_items", self.external_items)):
            if not 0 <= value <= MAX_WEAK_ITEMS:
                raise InputError(f"{where}: {label} must be from 0 to {MAX_WEAK_ITEMS}, got {value}")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _default_attackers() -> tuple[AttackerSpec, ...]:
    return tuple(AttackerSpec(name) for name in ATTACKERS)


@dataclass(frozen=True)
class ThreatModel:
    """What the attacker knows and the owner's thresholds (module docstring); defaults = the audit's defaults."""

    attackers: tuple[AttackerSpec, ...] = field(default_factory=_default_attackers)
    knowledge: str = "auto"
    parameters_known: tuple[str, ...] = PARAMETERS
    """The parameters the attacker knows (a subset of :data:`PARAMETERS`)."""
    scorer: str = "glove"
    selector: str = "ABA"
    reference: str | None = None
    max_pem: float | None = DEFAULT_MAX_PEM
    max_vulnerable: float | None = DEFAULT_MAX_VULNERABLE
    max_semantic_gain: float | None = DEFAULT_MAX_SEMANTIC_GAIN
    source: str | None = None
    """The file it was read from (its SHA-256 goes into the report's receipt), None when built in code."""
    options: tuple[str, ...] = field(default=(), compare=False)
    """The settings that command-line options set over the file or the defaults (:meth:`with_options`)."""

    def __post_init__(self) -> None:
        names = [a.name for a in self.attackers]
        if len(set(names)) != len(names):
            raise InputError(f"attackers: each attacker at most once, got {', '.join(names)}")
        for label, value, allowed in (("knowledge", self.knowledge, KNOWLEDGE_SOURCES),
                                      ("semantic.scorer", self.scorer, SCORERS),
                                      ("semantic.selector", self.selector, SELECTORS)):
            if value not in allowed:
                raise InputError(f"{label}: {show(value)} is not one of {', '.join(allowed)}"
                                 + did_you_mean(value, allowed))
        for p in self.parameters_known:
            if p not in PARAMETERS:
                raise InputError(f"parameters_known: {show(p)} is not one of {', '.join(PARAMETERS)}"
                                 + did_you_mean(p, PARAMETERS))
        if self.reference is not None and self.scorer != "ngd":
            raise InputError(f"semantic.reference applies to the ngd scorer only, not {self.scorer}")
        if self.reference is not None and self.reference.lower().startswith(("http:", "https:", "web")):
            raise InputError(f"semantic.reference: {show(self.reference)}: the audit runs offline; give a file or "
                             "a text-source name, never a web backend")
        for label in _THRESHOLD_KEYS:
            value = getattr(self, label)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not 0.0 <= value <= 1.0):
                raise InputError(f"{label} must be a share between 0 and 1, got {value}")

    # ------------------------------------------------------------------ reading
    @classmethod
    def from_yaml(cls, path: str | os.PathLike[str]) -> ThreatModel:
        """Read a threat-model file (bounded YAML; one :class:`InputError` line naming the file and key)."""
        doc = read_yaml(path, THREAT_MODEL_BOUNDS)
        try:
            return cls.from_mapping({} if doc is None else doc, source=os.fspath(path))
        except InputError as exc:
            text = str(exc)
            prefix = f"{os.fspath(path)}: "
            raise InputError(text if text.startswith(prefix) else prefix + text) from None

    @classmethod
    def from_mapping(cls, doc: Any, source: str | None = None) -> ThreatModel:
        """A threat model from a parsed document (the layout of :meth:`to_dict`, without ``source``)."""
        top = _mapping(doc, "the threat model", _TOP_KEYS)
        kwargs: dict[str, Any] = {"source": source}
        if "attackers" in top:
            kwargs["attackers"] = _attackers(top["attackers"])
        if "knowledge" in top:
            kwargs["knowledge"] = _text(top["knowledge"], "knowledge")
        if "parameters_known" in top:
            known = _mapping(top["parameters_known"], "parameters_known", PARAMETERS)
            kwargs["parameters_known"] = tuple(p for p in PARAMETERS if _flag(known.get(p, True),
                                                                                f"parameters_known.{p}"))
        if "semantic" in top:
            sem = _mapping(top["semantic"], "semantic", _SEMANTIC_KEYS)
            for key in ("scorer", "selector"):
                if key in sem:
                    kwargs[key] = _text(sem[key], f"semantic.{key}")
            if sem.get("reference") is not None:
                kwargs["reference"] = _text(sem["reference"], "semantic.reference")
        if "thresholds" in top:
            limits = _mapping(top["thresholds"], "thresholds", _THRESHOLD_KEYS)
            for key, value in limits.items():
                kwargs[key] = None if value is None else _share(value, f"thresholds.{key}")
        return cls(**kwargs)

    def with_options(self, args: argparse.Namespace) -> ThreatModel:
        """This threat model with the command line's options on top (an option given overrides the file)."""
        changes: dict[str, Any] = {}
        for key in ("max_pem", "max_vulnerable", "max_semantic_gain", "knowledge", "scorer", "selector", "reference"):
            value = getattr(args, key, None)
            if value is not None:
                changes[key] = value
        if getattr(args, "no_semantic", False):
            changes["scorer"] = "none"
        names = getattr(args, "attackers", None)
        per_target = getattr(args, "itemsets_per_target", None)
        share = getattr(args, "moderate_share", None)
        attacker_m = getattr(args, "attacker_m", None)
        if names is not None or per_target is not None or share is not None or attacker_m is not None:
            chosen = names if names is not None else [a.name for a in self.attackers]
            current = {a.name: a for a in self.attackers}
            specs = []
            for name in chosen:
                spec = current.get(name) or AttackerSpec(name)
                update: dict[str, Any] = {}
                if per_target is not None and name in PER_TARGET:
                    update["itemsets_per_target"] = per_target
                if share is not None:
                    update["moderate_share"] = share
                if attacker_m is not None:
                    update["m"] = attacker_m
                specs.append(dataclasses.replace(spec, **update))
            changes["attackers"] = tuple(specs)
        unknown = getattr(args, "unknown_parameters", None)
        if unknown is not None:
            changes["parameters_known"] = tuple(p for p in PARAMETERS if p not in unknown)
        if not changes:
            return self
        return dataclasses.replace(self, **changes, options=tuple(dict.fromkeys((*self.options, *changes))))

    # ------------------------------------------------------------------ writing
    def to_dict(self) -> dict[str, Any]:
        """The threat model in the layout of the file (plus ``source``), for the report."""
        return {
            "attackers": [a.to_dict() for a in self.attackers],
            "knowledge": self.knowledge,
            "parameters_known": {p: p in self.parameters_known for p in PARAMETERS},
            "semantic": {"scorer": self.scorer, "selector": self.selector, "reference": self.reference},
            "thresholds": {key: getattr(self, key) for key in _THRESHOLD_KEYS},
            "source": self.source,
            "options": list(self.options),
        }

    def attacker(self, name: str) -> AttackerSpec | None:
        """The declared attacker called ``name``, or None when the threat model leaves it out."""
        return next((a for a in self.attackers if a.name == name), None)

    def describe(self) -> str:
        """One line: who is checked, with what background, under which thresholds."""
        who = ", ".join(a.name + (f" (m={a.m})" if a.m is not None else "") for a in self.attackers) or "no attacker"
        unknown = [p for p in PARAMETERS if p not in self.parameters_known]
        records = {"auto": "the truth, else the original, else the release alone", "truth": "the truth file",
                   "original": "the original", "release": "the release alone"}[self.knowledge]
        return (f"attackers {who}, their records known from {records}; semantic background {self.scorer}"
                + (f" ({self.selector})" if self.scorer != "none" else "")
                + (f"; {', '.join(unknown)} declared unknown to the attacker" if unknown else "")
                + (f"; declared in {self.source}" if self.source else "" if self.options else "; the audit's defaults")
                + (f"; set by options: {', '.join(self.options)}" if self.options else ""))


# ---------------------------------------------------------------------- checks of a parsed document
def _mapping(value: Any, where: str, allowed: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: expected a mapping (key: value lines), got {show(value)}")
    for key in value:
        if not isinstance(key, str) or key not in allowed:
            prefix = "" if where == "the threat model" else f"{where}."
            raise InputError(f"{prefix}{show(key, quote=False)}: unknown key{did_you_mean(key, allowed)}; allowed "
                             f"keys: {', '.join(allowed)}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{where}: expected a string, got {show(value)}")
    return value


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{where}: expected true or false, got {show(value)}")
    return value


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: expected an integer, got {show(value)}")
    return value


def _share(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)) \
            or not 0.0 <= float(value) <= 1.0:
        raise InputError(f"{where}: expected a share between 0 and 1, got {show(value)}")
    return float(value)


def _attackers(value: Any) -> tuple[AttackerSpec, ...]:
    if not isinstance(value, list):
        raise InputError(f"attackers: expected a list of attackers, got {show(value)}")
    out = []
    for i, item in enumerate(value):
        where = f"attackers[{i}]"
        if isinstance(item, str):
            item = {"name": item}
        entry = _mapping(item, where, _ATTACKER_KEYS)
        if "name" not in entry:
            raise InputError(f"{where}: missing key 'name' (one of {', '.join(ATTACKERS)})")
        kwargs: dict[str, Any] = {"name": _text(entry["name"], f"{where}.name")}
        if kwargs["name"] not in ATTACKERS:
            raise InputError(f"{where}.name: {show(kwargs['name'])} is not one of {', '.join(ATTACKERS)}"
                             + did_you_mean(kwargs["name"], ATTACKERS))
        for key in ("m", "itemsets_per_target", "items", "external_items"):
            if entry.get(key) is not None:
                kwargs[key] = _int(entry[key], f"{where}.{key}")
        if entry.get("moderate_share") is not None:
            kwargs["moderate_share"] = _share(entry["moderate_share"], f"{where}.moderate_share")
        try:
            out.append(AttackerSpec(**kwargs))
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    return tuple(out)
