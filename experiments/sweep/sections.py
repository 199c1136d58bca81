"""The sections of a sweep file besides datasets and figures: grid, zip, attacks, utility, seeds, metrics."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from anonymizer.disassociation.horpart import HORPART_STRATEGIES as HORPARTS
from anonymizer.disassociation.verpart import VERPART_STRATEGIES as VERPARTS
from anonymizer.model.params import DisassociationParams
from experiments.plugins import all_metrics, metrics_for_steps
from experiments.registry import ANONYMIZERS, ATTACKS
from experiments.sweep.checks import (
    Checker,
    Ctx,
    _as_list,
    _as_mapping,
    _bool,
    _check_keys,
    _choice,
    _int,
    _number,
    _show,
    _unique,
)
from experiments.sweep.kexpr import KExpr
from experiments.sweep.limits import GRID_PARAMS, LIMITS

__all__ = ["grid_values", "parse_attacks", "parse_grid", "parse_metrics", "parse_seeds",
           "parse_utility", "parse_zip"]

_RANGE_KEYS = ("from", "to", "step")
_UTILITY_KEYS = ("top_k", "re_range", "reconstructions", "re_windows")


def _parse_range(ctx: Ctx, value: Mapping[str, Any], path: str, number: bool = False) -> list[Any]:
    _check_keys(ctx, value, _RANGE_KEYS, path)
    for key in ("from", "to"):
        if key not in value:
            raise ctx.fail(path, f"a range needs 'from' and 'to' (and optional 'step'); '{key}' is missing")
    conv = (lambda v, p: _number(ctx, v, p)) if number else (lambda v, p: _int(ctx, v, p))
    lo, hi = conv(value["from"], f"{path}.from"), conv(value["to"], f"{path}.to")
    step = conv(value.get("step", 1), f"{path}.step")
    if step <= 0:
        raise ctx.fail(f"{path}.step", f"{step} is impossible: must be > 0")
    if hi < lo:
        raise ctx.fail(path, f"empty range: 'to' ({hi}) is below 'from' ({lo})")
    count = math.floor((hi - lo) / step + (1e-9 if number else 0)) + 1
    if count > LIMITS.range_values:
        raise ctx.fail(path, f"the range gives {count:,} values; at most {LIMITS.range_values:,} "
                       "(raise 'step' or split the sweep)")
    out: list[Any] = []
    i = 0
    while lo + i * step <= hi + (1e-9 if number else 0):
        out.append(round(lo + i * step, 10) if number else lo + i * step)
        i += 1
    return out


def grid_values(ctx: Ctx, name: str, value: Any, path: str | None = None) -> tuple[Any, ...]:  # noqa: C901 (older code, at most 20)
    path = path or f"grid.{name}"
    items: list[Any]
    if isinstance(value, Mapping):
        items = _parse_range(ctx, value, path)
    elif isinstance(value, list):
        if not value:
            raise ctx.fail(path, "expected a value or a non-empty list")
        items = []
        for i, v in enumerate(value):
            if isinstance(v, Mapping):
                items.extend(_parse_range(ctx, v, f"{path}[{i}]"))
            else:
                items.append(v)
    else:
        items = [value]
    out: list[Any] = []
    for i, v in enumerate(items):
        p = path if len(items) == 1 else f"{path}[{i}]"
        if name == "k":
            out.append(_int(ctx, v, p, 2, " (k-anonymity needs k >= 2)"))
        elif name == "m":
            out.append(_int(ctx, v, p, 1, " (an attacker knows at least 1 item)"))
        elif name == "max_cluster_size":
            if isinstance(v, str):
                expr = KExpr(v.strip())
                try:
                    expr.check()
                except ValueError as exc:
                    raise ctx.fail(p, str(exc)) from None
                out.append(expr)
            else:
                out.append(_int(ctx, v, p, 2))
        elif name == "horpart":
            out.append(_choice(ctx, v, p, HORPARTS))
        elif name == "verpart":
            out.append(_choice(ctx, v, p, VERPARTS))
        elif name == "anonymizer":
            out.append(_choice(ctx, v, p, ANONYMIZERS.names()))
        elif name == "epsilon":
            out.append(float(_number(ctx, v, p, 0.0, 1e6, low_open=True)))
        elif name == "fanout":
            out.append(_int(ctx, v, p, 2, " (a hierarchy node has at least 2 children)", maximum=1_000))
        else:
            out.append(_bool(ctx, v, p))
    _unique(ctx, out, path)
    return tuple(out)


_DISASSOCIATION = {f.name: f.default for f in dataclasses.fields(DisassociationParams)}
_GRID_DEFAULTS: dict[str, tuple[Any, ...]] = {
    **{name: (_DISASSOCIATION[name],) for name in ("k", "m", "max_cluster_size", "horpart", "verpart", "refine",
                                                   "safe")},
    "anonymizer": ("disassociation",),
    "epsilon": (1.0,),
    "fanout": (5,),
}
"""Grid defaults: the disassociation parameters default as in the API and the command line
(:class:`~anonymizer.model.params.DisassociationParams`; ``max_cluster_size`` None means
max(30, 2k - 1) for each point's k, resolved in :func:`experiments.sweep.grid.expand_points`).
``anonymizer`` (disassociation | apriori | diffpart), ``epsilon`` (DiffPart) and
``fanout`` (the automatic hierarchy of Apriori, DiffPart and tKd-ML^2) are left out of a run's
configuration while they keep their defaults, so the cache keys of older sweeps stay valid."""


def parse_grid(ctx: Ctx, value: Any) -> dict[str, tuple[Any, ...]]:
    grid = dict(_GRID_DEFAULTS)
    if value is None:
        return grid
    value = _as_mapping(ctx, value, "grid")
    _check_keys(ctx, value, GRID_PARAMS, "grid")
    for name, v in value.items():
        grid[name] = grid_values(ctx, name, v)
    return grid


def parse_zip(ctx: Ctx, value: Any, grid: Mapping[str, tuple[Any, ...]]) -> tuple[tuple[str, ...], ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        raise ctx.fail("zip", "expected a list of parameter names, or a list of such lists")
    flat = all(isinstance(v, str) for v in value)
    groups = [value] if flat else value
    out: list[tuple[str, ...]] = []
    used: set[str] = set()
    for gi, group in enumerate(groups):
        gpath = "zip" if flat else f"zip[{gi}]"
        if not isinstance(group, list) or len(group) < 2:
            raise ctx.fail(gpath, "a zip group lists at least two grid parameters")
        for j, name in enumerate(group):
            _choice(ctx, name, f"{gpath}[{j}]", GRID_PARAMS)
            if name in used:
                raise ctx.fail(f"{gpath}[{j}]", f"'{name}' is in more than one zip group")
            used.add(name)
        lengths = {name: len(grid[name]) for name in group}
        long = {n: n_ for n, n_ in lengths.items() if n_ > 1}
        if len(set(long.values())) > 1:
            desc = ", ".join(f"{n} has {c}" for n, c in lengths.items())
            raise ctx.fail(gpath, f"zipped parameters need lists of equal length ({desc} values)")
        out.append(tuple(group))
    return tuple(out)



def parse_attacks(ctx: Ctx, value: Any) -> dict[str, dict[str, Any]]:
    """``attacks``: each registered attack's section, checked by the attack itself (in registry order)."""
    if value is None:
        return {}
    value = _as_mapping(ctx, value, "attacks")
    names = ATTACKS.names()
    _check_keys(ctx, value, names, "attacks")
    check = Checker(ctx)
    return {name: ATTACKS.get(name).parse_options(value[name], check) for name in names
            if value.get(name) is not None}

def _rank_range(ctx: Ctx, rr: Any, path: str) -> list[int]:
    if not isinstance(rr, list) or len(rr) != 2:
        raise ctx.fail(path, f"expected [first, last] term ranks, got {_show(rr)}")
    lo = _int(ctx, rr[0], f"{path}[0]", 0, maximum=LIMITS.rank_max)
    hi = _int(ctx, rr[1], f"{path}[1]", lo + 2, maximum=LIMITS.rank_max)
    return [lo, hi]


def parse_utility(ctx: Ctx, value: Any, path: str = "utility") -> dict[str, Any]:
    """The ``utility`` section (or a dataset's override of it, at ``path``).

    ``re_windows`` (Terrovitis2012 Figure 7d) lists term-rank windows ``[first, last]``; when
    present, the runs record ``re_r1``, ``re_r2``, ``re_r5`` and ``re_r10`` for every window
    (column ``rank``: the window's first rank). It is absent by default, so it changes no other run.
    """
    out: dict[str, Any] = {"top_k": 1000, "re_range": [200, 220], "reconstructions": 1}
    if value is None:
        return out
    value = _as_mapping(ctx, value, path)
    _check_keys(ctx, value, _UTILITY_KEYS, path)
    if "top_k" in value:
        out["top_k"] = _int(ctx, value["top_k"], f"{path}.top_k", 1)
    if "reconstructions" in value:
        out["reconstructions"] = _int(ctx, value["reconstructions"], f"{path}.reconstructions", 1,
                                      maximum=LIMITS.reconstructions)
    if "re_range" in value:
        out["re_range"] = _rank_range(ctx, value["re_range"], f"{path}.re_range")
    if "re_windows" in value:
        windows = value["re_windows"]
        if not isinstance(windows, list) or not windows or len(windows) > 64:
            raise ctx.fail(f"{path}.re_windows", f"expected a list of 1-64 [first, last] term ranks, got "
                           f"{_show(windows)}")
        out["re_windows"] = [_rank_range(ctx, w, f"{path}.re_windows[{i}]") for i, w in enumerate(windows)]
        _unique(ctx, [w[0] for w in out["re_windows"]], f"{path}.re_windows")
    return out


def parse_seeds(ctx: Ctx, raw: Mapping[str, Any], path: str = "seeds") -> tuple[int, ...]:
    if "seeds" in raw and "repeats" in raw:
        raise ctx.fail(path, "give either 'seeds' (a list) or 'repeats' (a count), not both")
    if "repeats" in raw:
        n = _int(ctx, raw["repeats"], "repeats", 1, maximum=LIMITS.runs)
        return tuple(range(n))
    if "seeds" in raw:
        seeds = _as_list(raw["seeds"])
        if not seeds:
            raise ctx.fail(path, "expected an integer or a non-empty list of integers")
        out = [_int(ctx, s, f"{path}[{i}]", 0, maximum=LIMITS.seed_max) for i, s in enumerate(seeds)]
        _unique(ctx, out, path)
        return tuple(out)
    return (0,)


def _needs(step: str) -> str:
    """What a sweep declares to run a step (an attack's section, or safe disassociation)."""
    if step in ATTACKS:
        return ATTACKS.get(step).path
    return {"safe": "grid.safe: true"}.get(step, step)


def parse_metrics(ctx: Ctx, value: Any, steps: set[str]) -> tuple[str, ...]:
    known = all_metrics()
    available = metrics_for_steps(steps)
    if value is None:
        return tuple(metrics_for_steps(steps, defaults_only=True))
    if not isinstance(value, list) or not value:
        raise ctx.fail("metrics", "expected a non-empty list of metric names")
    out: list[str] = []
    for i, name in enumerate(value):
        p = f"metrics[{i}]"
        _choice(ctx, name, p, list(known))
        if name not in available:
            step = known[name].step
            need = _needs(step)
            raise ctx.fail(p, f"metric '{name}' needs {need} in this sweep")
        out.append(name)
    _unique(ctx, out, "metrics")
    return tuple(out)
