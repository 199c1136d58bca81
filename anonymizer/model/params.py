"""The parameters of each anonymization method: one frozen, validated type per method.

Every way of starting a run (the Python API, ``python -m anonymizer``, a split or Dask run, a sweep)
builds one of these objects; its fields are checked once, when it is made (one :class:`InputError`
line each), and it carries the one set of defaults. ``to_json()`` gives exactly the ``params``
object a release publishes (same keys, order and values), ``from_json()`` reads it back, and
``from_mapping()`` reads a sweep's run configuration.

* :class:`DisassociationParams`: disassociation (Terrovitis2012 sections 3-5) with the horizontal
  strategies and VERPART variants of AlShuhail2021 3.3, and safe disassociation (Awad2019).
* :class:`AprioriParams`: the Apriori generalization baseline (Terrovitis2012 section 7, Figure 11).
* :class:`DiffPartParams`: the DiffPart differential-privacy baseline (Terrovitis2012 section 7).

A seed is never a parameter: it is secret and lives in the truth (or owner) file only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from corpora.common.errors import InputError

__all__ = ["BOUNDED_STRATEGIES", "DEFAULT_FANOUT", "DEFAULT_MAX_CLUSTER_SIZE", "DEFAULT_MAX_ITEMSETS",
           "DEFAULT_MAX_PARTITIONS", "DEFAULT_SAFE_TARGETS", "DEFAULT_THRESHOLD_SD", "HORPART_STRATEGIES",
           "MAX_SPLIT_DEPTH", "SAFE_TARGETS",
           "VERPART_STRATEGIES", "AprioriParams", "DiffPartParams", "DisassociationParams", "default_max_cluster_size"]

HORPART_STRATEGIES: tuple[str, ...] = ("original", "abandon", "suppression", "adding", "remaining")
"""``original``: Terrovitis2012's Algorithm HORPART; ``abandon``: AlShuhail2021's reading of it
(Table 3.2); ``suppression``, ``adding``, ``remaining``: AlShuhail2021 Algorithms 1-3."""

BOUNDED_STRATEGIES: tuple[str, ...] = ("original", "suppression", "adding", "remaining")
"""Strategies whose clusters never exceed ``max_cluster_size`` when it is at least ``2k - 1``."""

VERPART_STRATEGIES: tuple[str, ...] = ("original", "strict", "grouped")
"""``original``: Terrovitis2012's Algorithm VERPART; ``strict``, ``grouped``: AlShuhail2021 3.3.3."""

SAFE_TARGETS: tuple[str, ...] = ("every", "linkable")
"""Which chunks with a cover problem safe disassociation treats: ``every`` (the default, Awad2019 as it
evaluates PEM and RLM: "every record chunk that is subject to a cover problem is a vulnerable record
chunk", 5.1.1) or ``linkable`` (the named variant: only chunks another record chunk of the cluster can
be linked to, after section 3.3's "items in two distinct record chunks, from the same cluster")."""

DEFAULT_SAFE_TARGETS = SAFE_TARGETS[0]

DEFAULT_MAX_ITEMSETS = 2_000_000_000
"""Default budget of the k^m test (``--max-itemsets``), see :mod:`anonymizer.disassociation.verpart`."""

MAX_SPLIT_DEPTH = 16
"""The deepest split accepted (at most 65,536 parts)."""

DEFAULT_MAX_CLUSTER_SIZE = 30
"""The largest cluster HORPART keeps when none is given: 30, the setting of the project's
Terrovitis2012 sweep and benchmarks (Terrovitis2012 section 7 does not state one; Awad2019 and
Barakat2016 sweep 10 to 60). Never below 2k - 1 (Lemma 2's size condition):
:func:`default_max_cluster_size`."""

DEFAULT_FANOUT = 5
"""Fan-out of the balanced hierarchy the baselines build when no hierarchy file is given."""

DEFAULT_THRESHOLD_SD = 2.0
"""DiffPart's default threshold, in standard deviations (sqrt(2) / eps) of the Laplace noise of a count."""

DEFAULT_MAX_PARTITIONS = 5_000_000
"""Default bound on the partitions one DiffPart run makes."""


def _is_int(x: object) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def default_max_cluster_size(k: object) -> int:
    """``max(30, 2k - 1)``: :data:`DEFAULT_MAX_CLUSTER_SIZE`, raised to 2k - 1 for a large k."""
    return max(DEFAULT_MAX_CLUSTER_SIZE, 2 * int(k) - 1) if _is_int(k) else DEFAULT_MAX_CLUSTER_SIZE  # type: ignore


def _check_k_m(k: object, m: object) -> tuple[int, int]:
    if not _is_int(k) or int(k) < 2:  # type: ignore[call-overload]
        raise InputError(f"k must be an integer >= 2, got {k!r}")
    if not _is_int(m) or int(m) < 1:  # type: ignore[call-overload]
        raise InputError(f"m must be an integer >= 1, got {m!r}")
    return int(k), int(m)  # type: ignore[call-overload]


def _check_size(k: int, max_cluster_size: object, horpart: object) -> int:
    """The maximum cluster size (None: the default for k), checked against k and the HORPART strategy."""
    size = default_max_cluster_size(k) if max_cluster_size is None else max_cluster_size
    if not _is_int(size) or int(size) < k:  # type: ignore[call-overload]
        raise InputError(f"max cluster size must be an integer >= k ({k}), got {size!r}")
    if horpart not in HORPART_STRATEGIES:
        raise InputError(f"unknown horpart strategy {horpart!r}; choose one of: {', '.join(HORPART_STRATEGIES)}")
    if horpart in BOUNDED_STRATEGIES and int(size) < 2 * k - 1:  # type: ignore[call-overload]
        raise InputError(f"max cluster size {size} is below 2k - 1 = {2 * k - 1}: "
                         f"horpart {horpart!r} cannot keep clusters between k and the maximum "
                         "(use a larger maximum, or --horpart abandon)")
    return int(size)  # type: ignore[call-overload]


class _Params:
    """What the three parameter types share: setting a field in ``__post_init__``, and reading a mapping."""

    def _set(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)

    @classmethod
    def _known(cls, obj: Mapping[str, Any], what: str, strict: bool) -> dict[str, Any]:
        if not isinstance(obj, Mapping):
            raise InputError(f"{what} must be an object, got {type(obj).__name__}")
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(str(key) for key in obj if key not in names)
        if strict and unknown:
            raise InputError(f"{what}: unknown key(s) {', '.join(unknown)}")
        return {key: value for key, value in obj.items() if key in names}


@dataclass(frozen=True)
class DisassociationParams(_Params):
    """The parameters of one disassociation run (Terrovitis2012; AlShuhail2021 3.3; Awad2019).

    ``max_cluster_size=None`` means :func:`default_max_cluster_size` (30, or 2k - 1 when larger).
    Every HORPART strategy but ``abandon`` promises clusters of k to ``max_cluster_size`` records,
    which needs ``max_cluster_size >= 2k - 1`` (2k - 1 records fit neither one smaller cluster nor
    two of k): a smaller maximum is refused for them. ``split_depth > 0`` runs part by part
    (:mod:`anonymizer.disassociation.parts`). ``safe_targets`` and ``max_itemsets`` are not published.
    """

    k: int = 3
    m: int = 2
    max_cluster_size: int | None = None
    horpart: str = "original"
    verpart: str = "strict"
    refine: bool = True
    safe: bool = False
    safe_targets: str = DEFAULT_SAFE_TARGETS
    split_depth: int = 0
    identifiers_allowed: bool = False
    """The owner allowed terms that look like direct identifiers (``--allow-identifiers``)."""
    max_itemsets: int | None = DEFAULT_MAX_ITEMSETS
    """Budget of the k^m test (``--max-itemsets``); None: no budget."""

    def __post_init__(self) -> None:
        k, m = _check_k_m(self.k, self.m)
        size = _check_size(k, self.max_cluster_size, self.horpart)
        if self.verpart not in VERPART_STRATEGIES:
            raise InputError(f"unknown verpart variant {self.verpart!r}; "
                             f"choose one of: {', '.join(VERPART_STRATEGIES)}")
        if self.safe_targets not in SAFE_TARGETS:
            raise InputError(f"targets must be one of {', '.join(SAFE_TARGETS)}, got {self.safe_targets!r}")
        depth = self.split_depth
        if not _is_int(depth) or not 0 <= int(depth) <= MAX_SPLIT_DEPTH:  # type: ignore[call-overload]
            raise InputError(f"split depth must be an integer from 0 to {MAX_SPLIT_DEPTH}, got {depth!r}")
        for name, value in (("k", k), ("m", m), ("max_cluster_size", size), ("split_depth", int(depth)),  # type: ignore
                            ("refine", bool(self.refine)), ("safe", bool(self.safe)),
                            ("identifiers_allowed", bool(self.identifiers_allowed))):
            self._set(name, value)

    def check_records(self, n_records: int) -> None:
        """:class:`InputError` when a dataset of ``n_records`` records is too small for k."""
        if n_records < self.k:
            raise InputError(f"the dataset has {n_records} records, fewer than k = {self.k}")

    def to_json(self) -> dict[str, Any]:
        """The ``params`` object of the release (``split_depth`` and ``identifiers_allowed`` only when set)."""
        out: dict[str, Any] = {"k": self.k, "m": self.m, "max_cluster_size": self.max_cluster_size,
                               "horpart": self.horpart, "verpart": self.verpart, "refine": self.refine,
                               "safe": self.safe}
        if self.split_depth:
            out["split_depth"] = self.split_depth
        if self.identifiers_allowed:
            out["identifiers_allowed"] = True
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> DisassociationParams:
        """The parameters a release's ``params`` object publishes (the others take their defaults)."""
        return cls(**cls._known(obj, "params", strict=True))

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any]) -> DisassociationParams:
        """The parameters named in a sweep's run configuration; other keys (dataset, seed, ...) are ignored."""
        return cls(**cls._known(config, "run configuration", strict=False))


def _check_hierarchy(label: object) -> str:
    if not isinstance(label, str) or not label:
        raise InputError(f"hierarchy must be a non-empty string, got {label!r}")
    if label.startswith("fanout:"):
        fanout = label[len("fanout:"):]
        if not fanout.isdigit() or int(fanout) < 2:
            raise InputError(f"--fanout must be an integer >= 2, got {fanout}")
    return label


def _hierarchy_from_mapping(config: Mapping[str, Any]) -> dict[str, Any]:
    """``hierarchy`` from a run configuration: as given, or ``fanout:F`` (default :data:`DEFAULT_FANOUT`)."""
    if "hierarchy" in config:
        return {}
    return {"hierarchy": f"fanout:{config.get('fanout', DEFAULT_FANOUT)}"}


class _Baseline(_Params):
    """What the baselines' parameter types share: the hierarchy label and the fan-out it names."""

    hierarchy: str
    identifiers_allowed: bool

    @property
    def fanout(self) -> int | None:
        """The fan-out of a balanced hierarchy (``hierarchy`` is ``fanout:F``), else None (a file)."""
        return int(self.hierarchy[len("fanout:"):]) if self.hierarchy.startswith("fanout:") else None

    def _tail(self, out: dict[str, Any]) -> dict[str, Any]:
        if self.identifiers_allowed:
            out["identifiers_allowed"] = True
        return out


@dataclass(frozen=True)
class AprioriParams(_Baseline):
    """The parameters of one Apriori run (k^m-anonymity by generalization; Terrovitis2012 section 7).

    ``hierarchy`` is the published label of the hierarchy: ``fanout:F`` for the balanced tree of
    fan-out F the run builds over the items, else the file it was read from.
    """

    k: int = 3
    m: int = 2
    hierarchy: str = f"fanout:{DEFAULT_FANOUT}"
    identifiers_allowed: bool = False

    def __post_init__(self) -> None:
        k, m = _check_k_m(self.k, self.m)
        self._set("k", k)
        self._set("m", m)
        self._set("hierarchy", _check_hierarchy(self.hierarchy))
        self._set("identifiers_allowed", bool(self.identifiers_allowed))

    def check_records(self, n_records: int) -> None:
        """:class:`InputError` when fewer than k records are non-empty."""
        if self.k > n_records:
            raise InputError(f"k={self.k} is larger than the dataset's {n_records} non-empty records")

    def to_json(self) -> dict[str, Any]:
        """The ``params`` object of the ``generalized/1`` release."""
        return self._tail({"k": self.k, "m": self.m, "hierarchy": self.hierarchy})

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> AprioriParams:
        return cls(**cls._known(obj, "params", strict=True))

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any]) -> AprioriParams:
        """k, m and the hierarchy (``hierarchy``, or ``fanout:`` the run's ``fanout``, default 5)."""
        return cls(**{**cls._known(config, "run configuration", strict=False), **_hierarchy_from_mapping(config)})


def _check_epsilon(epsilon: object) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not math.isfinite(epsilon) \
            or epsilon <= 0:
        raise InputError(f"epsilon must be a positive number, got {epsilon!r}")
    return float(epsilon)


@dataclass(frozen=True)
class DiffPartParams(_Baseline):
    """The parameters of one DiffPart run (epsilon-differential privacy; Terrovitis2012 section 7).

    ``threshold_sd``: the partition threshold in standard deviations of the noise;
    ``max_partitions`` bounds the work and is not published. The seed is not a parameter: it goes
    to the owner file.
    """

    epsilon: float = 1.0
    hierarchy: str = f"fanout:{DEFAULT_FANOUT}"
    threshold_sd: float = DEFAULT_THRESHOLD_SD
    max_partitions: int = DEFAULT_MAX_PARTITIONS
    identifiers_allowed: bool = False

    def __post_init__(self) -> None:
        self._set("epsilon", _check_epsilon(self.epsilon))
        threshold = self.threshold_sd
        if not (isinstance(threshold, (int, float)) and math.isfinite(threshold) and threshold >= 0):
            raise InputError(f"threshold must be a number >= 0, got {threshold!r}")
        self._set("threshold_sd", float(threshold))
        self._set("hierarchy", _check_hierarchy(self.hierarchy))
        self._set("identifiers_allowed", bool(self.identifiers_allowed))

    def to_json(self) -> dict[str, Any]:
        """The ``params`` object of the ``generalized/1`` release."""
        return self._tail({"epsilon": self.epsilon, "hierarchy": self.hierarchy, "threshold_sd": self.threshold_sd})

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> DiffPartParams:
        return cls(**cls._known(obj, "params", strict=True))

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any]) -> DiffPartParams:
        """epsilon, the threshold and the hierarchy (``hierarchy``, or ``fanout:`` the run's ``fanout``)."""
        return cls(**{**cls._known(config, "run configuration", strict=False), **_hierarchy_from_mapping(config)})
