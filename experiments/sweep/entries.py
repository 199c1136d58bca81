"""The ``datasets`` section of a sweep file: registry names, file paths and text builds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.plugins import all_metrics
from experiments.registry import ATTACKS
from experiments.sweep.checks import (
    Ctx,
    _as_list,
    _as_mapping,
    _check_keys,
    _choice,
    _int,
    _number,
    _show,
    _str,
    _type_name,
    _unique,
)
from experiments.sweep.limits import GRID_PARAMS, LIMITS
from experiments.sweep.sections import grid_values, parse_seeds, parse_utility
from experiments.sweep.spec import DatasetSpec

__all__ = ["parse_datasets"]

_DATASET_KEYS = ("name", "text", "label", "density", "records", "seed", "stand_in", "options", "grid", "attacks",
                 "utility", "metrics", "seeds")


def parse_datasets(ctx: Ctx, value: Any, base_dir: str) -> tuple[DatasetSpec, ...]:
    """``datasets``: each entry a name (or a preference list of names) or a text build, with its overrides."""
    if not isinstance(value, list) or not value:
        raise ctx.fail("datasets", f"expected a non-empty list of datasets, got {_type_name(value)}")
    out: list[DatasetSpec] = []
    for i, entry in enumerate(value):
        path = f"datasets[{i}]"
        if isinstance(entry, str):
            out.append(DatasetSpec(names=(_str(ctx, entry, path),)))
        else:
            out.append(_entry(ctx, entry, path))
    labels = [d.display() for d in out]
    for i, lab in enumerate(labels):
        if labels.index(lab) != i:
            raise ctx.fail(f"datasets[{i}]", f"dataset {_show(lab)} is declared twice; give one of them a 'label'")
    return tuple(out)


def _entry(ctx: Ctx, entry: Any, path: str) -> DatasetSpec:
    entry = _as_mapping(ctx, entry, path)
    _check_keys(ctx, entry, _DATASET_KEYS, path)
    names, text = _source(ctx, entry, path)
    densities, records = _sizes(ctx, entry, path, text)
    seed = _int(ctx, entry["seed"], f"{path}.seed", 0, maximum=LIMITS.seed_max) if "seed" in entry else None
    label = _str(ctx, entry["label"], f"{path}.label") if "label" in entry else None
    stand_in = _str(ctx, entry["stand_in"], f"{path}.stand_in") if "stand_in" in entry else None
    options: tuple[tuple[str, Any], ...] = ()
    if "options" in entry:
        if text is None:
            raise ctx.fail(f"{path}.options", "options apply to text builds only ('text: SOURCE')")
        opts = _as_mapping(ctx, entry["options"], f"{path}.options")
        _check_text_options(ctx, opts, f"{path}.options")
        options = tuple(sorted((str(k), v) for k, v in opts.items()))
    return DatasetSpec(names=names, text=text, label=label, densities=densities, records=records, seed=seed,
                       stand_in=stand_in, options=options, **_overrides(ctx, entry, path))


def _source(ctx: Ctx, entry: Mapping[str, Any], path: str) -> tuple[tuple[str, ...], str | None]:
    """The entry's names (a registry name or path, or a preference list of them) or its text source."""
    if ("name" in entry) == ("text" in entry):
        raise ctx.fail(path, "give exactly one of 'name' (registry name or file path) or 'text' (a text source)")
    if "name" not in entry:
        return (), _str(ctx, entry["text"], f"{path}.text")
    raw_names = _as_list(entry["name"])
    if not raw_names:
        raise ctx.fail(f"{path}.name", "expected a name or a non-empty list of names")
    return tuple(_str(ctx, n, f"{path}.name") for n in raw_names), None


def _sizes(ctx: Ctx, entry: Mapping[str, Any], path: str,
           text: str | None) -> tuple[tuple[float | None, ...], tuple[int | None, ...]]:
    """The densities of a text build and the record counts (first N records) the entry sweeps."""
    densities: tuple[float | None, ...] = (None,)
    if "density" in entry:
        if text is None:
            raise ctx.fail(f"{path}.density", "density applies to text builds only ('text: SOURCE')")
        dens = _as_list(entry["density"])
        if not dens:
            raise ctx.fail(f"{path}.density", "expected a number or a non-empty list of numbers")
        densities = tuple(_number(ctx, d, f"{path}.density", 0.0, 1.0, low_open=True) for d in dens)
        _unique(ctx, list(densities), f"{path}.density")
    records: tuple[int | None, ...] = (None,)
    if "records" in entry:
        recs = _as_list(entry["records"])
        if not recs:
            raise ctx.fail(f"{path}.records", "expected an integer or a non-empty list of integers")
        records = tuple(_int(ctx, r, f"{path}.records", 1) for r in recs)
        _unique(ctx, list(records), f"{path}.records")
    return densities, records


def _overrides(ctx: Ctx, entry: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The entry's own grid, attacks, utility settings, metrics and seeds (empty: the sweep's)."""
    out: dict[str, Any] = {}
    if "grid" in entry:
        g = _as_mapping(ctx, entry["grid"], f"{path}.grid")
        _check_keys(ctx, g, GRID_PARAMS, f"{path}.grid")
        out["grid"] = tuple((name, grid_values(ctx, name, v, f"{path}.grid.{name}")) for name, v in g.items())
    if "attacks" in entry:
        sel = _as_list(entry["attacks"])
        out["attacks"] = tuple(_choice(ctx, a, f"{path}.attacks", ATTACKS.names()) for a in sel)
    if "utility" in entry:
        raw_u = _as_mapping(ctx, entry["utility"], f"{path}.utility")
        parsed = parse_utility(ctx, raw_u, f"{path}.utility")
        out["utility"] = tuple((key, parsed[key]) for key in sorted(raw_u))
    if "metrics" in entry:
        listed = _as_list(entry["metrics"])
        if not listed:
            raise ctx.fail(f"{path}.metrics", "expected a non-empty list of metric names")
        out["metrics"] = tuple(_choice(ctx, m, f"{path}.metrics[{j}]", list(all_metrics()))
                               for j, m in enumerate(listed))
        _unique(ctx, list(out["metrics"]), f"{path}.metrics")
    if "seeds" in entry:
        out["seeds"] = parse_seeds(ctx, {"seeds": entry["seeds"]}, f"{path}.seeds")
    return out


_TEXT_FIXED = ("source", "density", "seed")


def _check_text_options(ctx: Ctx, opts: Mapping[str, Any], path: str) -> None:
    """Options of a text build must be keyword parameters of ``corpora.text.api.build_text_dataset``."""
    try:
        import inspect

        from corpora.text.api import build_text_dataset
    except ImportError:  # the text pipeline is not installed: the run reports it
        return
    params = [p for p in inspect.signature(build_text_dataset).parameters if p not in _TEXT_FIXED]
    _check_keys(ctx, opts, params, path)


