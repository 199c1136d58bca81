"""The ``plots`` and ``claims`` sections of a sweep file: the figures drawn and the papers' claims judged."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from experiments.plugins import all_metrics
from experiments.sweep.checks import (
    NAME_RE,
    Ctx,
    _allowed,
    _as_list,
    _as_mapping,
    _bool,
    _check_keys,
    _choice,
    _number,
    _show,
    _str,
    _type_name,
    _unique,
)
from experiments.sweep.limits import COLUMNS
from experiments.sweep.spec import TRENDS, Claim, PlotSpec

__all__ = ["parse_claims", "parse_plots"]

_PLOT_KEYS = ("id", "metric", "x", "group_by", "where", "title", "xlabel", "ylabel", "logx", "note", "best_over")
_CLAIM_KEYS = ("id", "statement", "metric", "x", "where", "paper", "trend", "tolerance", "reason", "rival",
               "controls", "explain")


def parse_plots(ctx: Ctx, value: Any, metrics: Sequence[str]) -> tuple[PlotSpec, ...]:  # noqa: C901 (older code, at most 20)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ctx.fail("plots", f"expected a list of figures, got {_type_name(value)}")
    out: list[PlotSpec] = []
    ids: set[str] = set()
    for i, entry in enumerate(value):
        path = f"plots[{i}]"
        entry = _as_mapping(ctx, entry, path)
        _check_keys(ctx, entry, _PLOT_KEYS, path)
        for key in ("metric", "x"):
            if key not in entry:
                raise ctx.fail(path, f"'{key}' is missing (a figure plots 'metric' against 'x')")
        wanted = _as_list(entry["metric"])
        if not wanted:
            raise ctx.fail(f"{path}.metric", "expected a metric name or a non-empty list of them")
        for j, name in enumerate(wanted):
            mp = f"{path}.metric" if len(wanted) == 1 else f"{path}.metric[{j}]"
            if isinstance(name, str) and name in all_metrics() and name not in metrics:
                raise ctx.fail(mp, f"'{name}' is not recorded by this sweep; add it to "
                               f"'metrics' or plot one of: {_allowed(metrics)}")
            _choice(ctx, name, mp, list(metrics))
        _unique(ctx, wanted, f"{path}.metric")
        metric = "-".join(wanted)
        x = _choice(ctx, entry["x"], f"{path}.x", COLUMNS)
        group_raw = _as_list(entry.get("group_by", ["method"] if len(wanted) == 1 else []))
        group = tuple(_choice(ctx, g, f"{path}.group_by", COLUMNS) for g in group_raw)
        if x in group:
            raise ctx.fail(f"{path}.group_by", f"'{x}' is already the x axis")
        where: list[tuple[str, tuple[Any, ...]]] = []
        if "where" in entry:
            w = _as_mapping(ctx, entry["where"], f"{path}.where")
            _check_keys(ctx, w, COLUMNS, f"{path}.where")
            for key, val in w.items():
                vals = tuple(_as_list(val))
                if not vals:
                    raise ctx.fail(f"{path}.where.{key}", "expected a value or a non-empty list of values")
                where.append((key, vals))
        pid = entry.get("id")
        if pid is not None:
            pid = _str(ctx, pid, f"{path}.id")
            if not NAME_RE.match(pid):
                raise ctx.fail(f"{path}.id", f"{_show(pid)}: use letters, digits, '_', '.', '-' only")
        else:
            suffix = "".join(f"_{k}-{'-'.join(str(v) for v in vs)}" for k, vs in where)
            pid = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{metric}_vs_{x}{suffix}")
        if pid in ids:
            raise ctx.fail(f"{path}.id", f"figure id {_show(pid)} is used twice; give each figure its own 'id'")
        ids.add(pid)
        texts = {}
        for key in ("title", "xlabel", "ylabel", "note"):
            texts[key] = _str(ctx, entry[key], f"{path}.{key}") if key in entry else None
        logx = _bool(ctx, entry["logx"], f"{path}.logx") if "logx" in entry else False
        best = _choice(ctx, entry["best_over"], f"{path}.best_over", COLUMNS) if "best_over" in entry else None
        if best is not None and (best == x or best in group):
            raise ctx.fail(f"{path}.best_over", f"'{best}' is already the x axis or a line")
        out.append(PlotSpec(id=pid, metrics=tuple(wanted), x=x, group_by=group, where=tuple(where), logx=logx,
                            best_over=best, **texts))
    return tuple(out)


def parse_claims(ctx: Ctx, value: Any, metrics: Sequence[str]) -> tuple[Claim, ...]:
    """``claims``: a paper's stated results, evaluated after the sweep (:mod:`experiments.claims`)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ctx.fail("claims", f"expected a list of claims, got {_type_name(value)}")
    out: list[Claim] = []
    for i, entry in enumerate(value):
        path = f"claims[{i}]"
        entry = _as_mapping(ctx, entry, path)
        _check_keys(ctx, entry, _CLAIM_KEYS, path)
        for key in ("id", "statement", "metric", "x"):
            if key not in entry:
                raise ctx.fail(path, f"'{key}' is missing")
        cid = _str(ctx, entry["id"], f"{path}.id")
        if not NAME_RE.match(cid) or any(c.id == cid for c in out):
            raise ctx.fail(f"{path}.id", f"{_show(cid)}: use a new name of letters, digits, '_', '.', '-'")
        metric = _choice(ctx, entry["metric"], f"{path}.metric", list(metrics))
        x = _choice(ctx, entry["x"], f"{path}.x", COLUMNS)
        where: list[tuple[str, tuple[Any, ...]]] = []
        if "where" in entry:
            w = _as_mapping(ctx, entry["where"], f"{path}.where")
            _check_keys(ctx, w, COLUMNS, f"{path}.where")
            where = [(key, tuple(_as_list(val))) for key, val in w.items()]
        paper = []
        if "paper" in entry:
            pv = _as_mapping(ctx, entry["paper"], f"{path}.paper")
            paper = [(_number(ctx, a, f"{path}.paper"), _number(ctx, b, f"{path}.paper.{a}")) for a, b in pv.items()]
        trend = _choice(ctx, entry["trend"], f"{path}.trend", TRENDS) if "trend" in entry else None
        rival: list[tuple[str, tuple[Any, ...]]] = []
        if "rival" in entry:  # a comparison of two lines (issue 11)
            rv = _as_mapping(ctx, entry["rival"], f"{path}.rival")
            _check_keys(ctx, rv, COLUMNS, f"{path}.rival")
            rival = [(key, tuple(_as_list(val))) for key, val in rv.items()]
        if trend is None and not paper and not rival:
            raise ctx.fail(path, "give the paper's 'trend', its 'paper' values, a 'rival', or a combination")
        tolerance = _number(ctx, entry.get("tolerance", 0), f"{path}.tolerance", low=0)
        controls = []
        for j, control in enumerate(_as_list(entry["controls"]) if "controls" in entry else []):
            cpath = f"{path}.controls[{j}]"
            control = _as_mapping(ctx, control, cpath)
            if not control:
                raise ctx.fail(cpath, "expected a row selection such as {dataset: WV2-fitted}")
            _check_keys(ctx, control, COLUMNS, cpath)
            controls.append(tuple((key, tuple(_as_list(val))) for key, val in control.items()))
        explained = _as_list(entry["explain"]) if "explain" in entry else []
        explain = tuple(_choice(ctx, m, f"{path}.explain", list(metrics)) for m in explained)
        out.append(Claim(cid, _str(ctx, entry["statement"], f"{path}.statement"), metric, x, tuple(where),
                         tuple(paper), trend, float(tolerance),
                         _str(ctx, entry["reason"], f"{path}.reason") if "reason" in entry else "",
                         tuple(rival), tuple(controls), explain))
    return tuple(out)
