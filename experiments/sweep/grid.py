"""Expanding a sweep into its runs: datasets x densities x sizes x grid points x seeds.

The grid is the Cartesian product of the grid parameters, except that the parameters of one
``zip`` group advance together (element i of each list; a single value is repeated). A
``max_cluster_size`` expression (``k^2``, ``k^2..k^6``) is evaluated for each (k, m) of the product
and may give several values. Each run's configuration is a plain JSON object; its key (the cache
key, the run's file name) is a hash of that object, so the same configuration is never run twice
and a changed one is never mistaken for an old one.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from anonymizer.disassociation.pipeline import validate_parameters
from anonymizer.model.params import default_max_cluster_size
from corpora.common.errors import InputError
from experiments.plugins import load
from experiments.registry import ANONYMIZERS, ATTACKS
from experiments.sweep.kexpr import KExpr
from experiments.sweep.limits import GRID_PARAMS, LIMITS
from experiments.sweep.spec import DatasetSpec, SweepSpec

__all__ = ["RUN_PARAMS", "Run", "expand_points", "expand_runs", "filter_runs", "parse_only", "run_key"]

CACHE_VERSION = 2
"""Bumped when the meaning of a run configuration changes, so old cached runs are not reused (2: issue 24's
readings: safe disassociation treats every chunk, tlost "more than k", RAE signed, the PEM, strong-attacker
and accuracy readings)."""

RUN_PARAMS = ("dataset", "records", "density", "k", "m", "max_cluster_size", "horpart", "verpart", "refine",
              "safe", "anonymizer", "epsilon", "fanout", "seed")
"""The columns that identify a run (the tidy table adds attack, method, chunks, metric, value...)."""


@dataclass(frozen=True)
class Run:
    """One run: a grid point on one dataset build with one seed."""

    key: str
    config: Mapping[str, Any]

    @property
    def params(self) -> dict[str, Any]:
        """The run's values of :data:`RUN_PARAMS`."""
        ds = self.config["dataset"]
        out = {"dataset": ds["label"], "records": ds["records"], "density": ds["density"]}
        for name in GRID_PARAMS:
            out[name] = self.config.get(name, _OMITTED.get(name))
        out["seed"] = self.config["seed"]
        return out


_OMITTED: dict[str, Any] = {"anonymizer": "disassociation", "epsilon": None, "fanout": 5}
"""The new grid parameters, left out of a run's configuration at these values (old cache keys stay valid)."""

def _baseline_point(merged: Mapping[str, Any]) -> dict[str, Any]:
    """A grid point of another anonymizer than disassociation (Apriori, DiffPart, a plugin's).

    The parameters it does not read (its ``grid_params``) are None, so they give one run, not many:
    DiffPart uses neither k nor m (Terrovitis2012 section 7: "DiffPart is unaffected by this parameter").
    """
    used = ANONYMIZERS.get(merged["anonymizer"]).grid_params
    return {name: merged[name] if name == "anonymizer" or name in used else None for name in GRID_PARAMS}


def run_key(config: Mapping[str, Any]) -> str:
    """The cache key of a run configuration: 16 hex digits of the SHA-256 of its canonical JSON."""
    hashed = {k: v for k, v in config.items() if k != "base_dir"}  # where the file sits is not what it means
    blob = json.dumps({"v": CACHE_VERSION, "config": hashed}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _axes(spec: SweepSpec, grid: Mapping[str, tuple[Any, ...]]) -> list[list[dict[str, Any]]]:
    zipped = {name: group for group in spec.zip_groups for name in group}
    axes: list[list[dict[str, Any]]] = []
    done: set[str] = set()
    for name in GRID_PARAMS:
        if name in done:
            continue
        group = zipped.get(name, (name,))
        done.update(group)
        lengths = {g: len(grid[g]) for g in group}
        if len({n for n in lengths.values() if n > 1}) > 1:
            desc = ", ".join(f"{g} has {n}" for g, n in lengths.items())
            raise InputError(f"{spec.source}: zip: zipped parameters need lists of equal length ({desc} values)")
        length = max(lengths.values())
        axis = []
        for i in range(length):
            axis.append({g: grid[g][i] if len(grid[g]) > 1 else grid[g][0] for g in group})
        axes.append(axis)
    return axes


def expand_points(spec: SweepSpec, dataset: DatasetSpec | None = None) -> list[dict[str, Any]]:  # noqa: C901 (older code, at most 20)
    """The grid points (values of :data:`GRID_PARAMS`), in order, without duplicates.

    With ``dataset``, its own ``grid`` values replace the sweep's. Raises InputError for an
    impossible point: a maximum cluster size below k (a cluster holds at least k records,
    Terrovitis2012 section 4) or an expression that gives no value.
    """
    load()
    grid = dict(spec.grid)
    if dataset is not None:
        grid.update(dict(dataset.grid))
    points: list[dict[str, Any]] = []
    seen: set[str] = set()
    axes = _axes(spec, grid)
    if math.prod(len(a) for a in axes) > LIMITS.runs:
        raise InputError(f"{spec.source}: grid: {math.prod(len(a) for a in axes):,} grid points; "
                         f"at most {LIMITS.runs:,} in one sweep (split it)")
    for combo in itertools.product(*axes):
        merged: dict[str, Any] = {}
        for part in combo:
            merged.update(part)
        if merged["anonymizer"] != "disassociation":
            point = _baseline_point(merged)
            tag = json.dumps(point, sort_keys=True)
            if tag not in seen:
                seen.add(tag)
                points.append(point)
            continue
        k, m = merged["k"], merged["m"]
        size = merged["max_cluster_size"]
        if isinstance(size, KExpr):
            try:
                sizes = size.values(k, m)
            except ValueError as exc:
                raise InputError(f"{spec.source}: grid.max_cluster_size: {exc}") from None
            if not sizes:
                raise InputError(f"{spec.source}: grid.max_cluster_size: '{size.text}' gives no value for k={k}, m={m}")
        else:
            sizes = [default_max_cluster_size(k) if size is None else size]
        for s in sizes:
            if s > LIMITS.param_max:
                shown = f"'{size.text}' gives {s:,}" if isinstance(size, KExpr) else f"{s:,}"
                raise InputError(f"{spec.source}: grid.max_cluster_size: {shown}; at most {LIMITS.param_max:,}")
            if s < k:
                shown = f"'{size.text}' gives {s}" if isinstance(size, KExpr) else str(s)
                raise InputError(f"{spec.source}: grid.max_cluster_size: {shown} is impossible for k={k}: "
                                 "must be >= k (a cluster holds at least k records)")
            try:  # e.g. a bounded HORPART strategy needs max_cluster_size >= 2k - 1
                validate_parameters(None, k, m, int(s), merged["horpart"], merged["verpart"])
            except InputError as exc:
                raise InputError(f"{spec.source}: grid: {exc}") from None
            point = {name: merged[name] for name in GRID_PARAMS}
            point["max_cluster_size"] = int(s)
            point["epsilon"] = None
            tag = json.dumps(point, sort_keys=True)
            if tag not in seen:
                seen.add(tag)
                points.append(point)
                if len(points) > LIMITS.runs:
                    raise InputError(f"{spec.source}: grid: more than {LIMITS.runs:,} grid points in one sweep "
                                     "(split it)")
    return points


def _dataset_config(ds: DatasetSpec, label: str, names: list[str], density: float | None,
                    records: int | None) -> dict[str, Any]:
    return {
        "label": label,
        "names": names,
        "text": ds.text,
        "density": density,
        "records": records,
        "seed": ds.seed,
        "options": dict(ds.options),
    }


def expand_runs(spec: SweepSpec, resolve: Callable[[DatasetSpec], str] | None = None) -> list[Run]:
    """All runs of the sweep, in a stable order (datasets, densities, sizes, grid points, seeds).

    ``resolve`` maps a (non-text) dataset entry to the one name that is loaded; by default its
    first name. The runner passes a resolver that picks, from a preference list of names, the
    first dataset available offline. The results label a dataset by the entry's ``label``, else
    by that name (``text:<source>`` for a text build).
    """
    runs: list[Run] = []
    seen: set[str] = set()
    for ds in spec.datasets:
        points = expand_points(spec, ds)
        chosen = ds.attacks if ds.attacks is not None else [a for a in spec.attacks
                                                            if not ATTACKS.get(a).text_only or ds.is_text]
        attacks = {a: spec.attacks[a] for a in spec.attacks if a in chosen}
        if ds.is_text:
            names: list[str] = []
            label = ds.display()
        else:
            used = resolve(ds) if resolve is not None else ds.names[0]
            names = [used]
            label = ds.label or used
        for density in ds.densities:
            for records in ds.records:
                dconf = _dataset_config(ds, label, names, density, records)
                for point in points:
                    for seed in ds.seeds or spec.seeds:
                        config = {
                            "dataset": dconf,
                            **{p: v for p, v in point.items() if p not in _OMITTED or v != _OMITTED[p]},
                            "seed": seed,
                            "attacks": _jsonable(attacks),
                            "metrics": list(ds.metrics or spec.metrics),
                            "utility": _jsonable({**spec.utility, **dict(ds.utility)}),
                            "base_dir": spec.base_dir,
                        }
                        key = run_key(config)
                        if key not in seen:
                            seen.add(key)
                            runs.append(Run(key=key, config=config))
    return runs


def _jsonable(obj: Any) -> Any:
    return json.loads(json.dumps(obj, sort_keys=True))


def parse_only(items: Sequence[str] | None) -> dict[str, list[str]]:
    """Parse ``--only KEY=VALUE`` filters (several values of one key are alternatives)."""
    import difflib

    out: dict[str, list[str]] = {}
    for item in items or ():
        if "=" not in item:
            raise InputError(f"--only {item}: expected KEY=VALUE, e.g. --only k=3")
        key, value = (s.strip() for s in item.split("=", 1))
        if key not in RUN_PARAMS:
            close = difflib.get_close_matches(key, RUN_PARAMS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise InputError(f"--only {item}: unknown key '{key}'{hint}; allowed keys: {', '.join(RUN_PARAMS)}")
        out.setdefault(key, []).append(value)
    return out


def _matches(value: Any, wanted: str) -> bool:
    if isinstance(value, bool):
        return wanted.lower() in (("true", "yes", "1") if value else ("false", "no", "0"))
    if value is None:
        return wanted.lower() in ("", "none", "null")
    if isinstance(value, int | float):
        try:
            return float(wanted) == float(value)
        except ValueError:
            return False
    return str(value) == wanted


def filter_runs(runs: Iterable[Run], only: Mapping[str, Sequence[str]]) -> list[Run]:
    """The runs whose parameters match every ``--only`` key (any of its values)."""
    return [r for r in runs if all(any(_matches(r.params[k], v) for v in vs) for k, vs in only.items())]
