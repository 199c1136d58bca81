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
    _suggest,
    _type_name,
    _unique,
)
from experiments.sweep.limits import COLUMNS
from experiments.sweep.spec import MAX_SERIES, NUMERIC_COLUMNS, TRENDS, Claim, OurSetting, Panel, PaperValue, PlotSpec

__all__ = ["parse_claims", "parse_ours", "parse_plots"]

_PLOT_KEYS = ("id", "metric", "x", "group_by", "where", "title", "xlabel", "ylabel", "logx", "note", "best_over",
              "panels", "sharey")
_PANEL_KEYS = ("title", "where")
_CLAIM_KEYS = ("id", "statement", "metric", "x", "where", "paper", "trend", "tolerance", "reason", "rival",
               "controls", "explain", "lower", "plot", "step_tolerance")
_OURS_KEYS = ("setting", "value", "why", "sensitivity")
_MAX_PANELS = 12
_MAX_OURS = 100
_BOUND = re.compile(r"^\s*([<>])\s*(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*%?\s*$")


def _where(ctx: Ctx, raw: Any, path: str) -> list[tuple[str, tuple[Any, ...]]]:
    """A row selection: column -> a value or a non-empty list of values."""
    w = _as_mapping(ctx, raw, path)
    _check_keys(ctx, w, COLUMNS, path)
    out: list[tuple[str, tuple[Any, ...]]] = []
    for key, val in w.items():
        vals = tuple(_as_list(val))
        if not vals:
            raise ctx.fail(f"{path}.{key}", "expected a value or a non-empty list of values")
        out.append((key, vals))
    return out


def _panels(ctx: Ctx, raw: Any, path: str) -> tuple[Panel, ...]:
    """``panels``: small multiples, each ``{title, where}`` (the filters it adds to the figure's ``where``)."""
    if not isinstance(raw, list) or not raw or len(raw) > _MAX_PANELS:
        raise ctx.fail(path, f"expected a list of 1-{_MAX_PANELS} panels ({{title, where}}), got {_show(raw)}")
    out = []
    for j, entry in enumerate(raw):
        ppath = f"{path}[{j}]"
        entry = _as_mapping(ctx, entry, ppath)
        _check_keys(ctx, entry, _PANEL_KEYS, ppath)
        if "where" not in entry:
            raise ctx.fail(ppath, "'where' is missing (the rows this panel draws, e.g. {method: [a, b]})")
        where = tuple(_where(ctx, entry["where"], f"{ppath}.where"))
        default = ", ".join(f"{k}={'/'.join(str(v) for v in vs)}" for k, vs in where)
        title = _str(ctx, entry["title"], f"{ppath}.title") if "title" in entry else default
        out.append(Panel(title, where))
    return tuple(out)


def _check_series(ctx: Ctx, path: str, metrics: Sequence[str], group: Sequence[str],
                  where: Sequence[tuple[str, tuple[Any, ...]]], panels: Sequence[Panel]) -> None:
    """Refuse a panel that would draw more than MAX_SERIES lines, when the file lists every line's values."""
    for j, panel in enumerate(panels or (Panel("", ()),)):
        listed = dict(where)
        listed.update(dict(panel.where))
        if not all(col in listed for col in group):
            continue  # the lines come from the results: the figure's note warns instead
        count = len(metrics)
        for col in group:
            count *= len(listed[col])
        if count > MAX_SERIES:
            where_ = f"{path}.panels[{j}]" if panels else path
            raise ctx.fail(where_, f"this panel draws {count} lines, at most {MAX_SERIES}: split it with 'panels' "
                           "(small multiples, each {title, where})")


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
        where = _where(ctx, entry["where"], f"{path}.where") if "where" in entry else []
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
        panels = _panels(ctx, entry["panels"], f"{path}.panels") if "panels" in entry else ()
        if "sharey" in entry and not panels:
            raise ctx.fail(f"{path}.sharey", "applies to a figure with 'panels' only")
        sharey = _bool(ctx, entry["sharey"], f"{path}.sharey") if "sharey" in entry else True
        _check_series(ctx, path, wanted, group, where, panels)
        out.append(PlotSpec(id=pid, metrics=tuple(wanted), x=x, group_by=group, where=tuple(where), logx=logx,
                            best_over=best, panels=panels, sharey=sharey, **texts))
    return tuple(out)


def _paper_number(ctx: Ctx, value: Any, path: str) -> tuple[str, float]:
    """A paper value: a number, or a bound ``">90"`` / ``"<10"`` (ours must lie beyond it)."""
    if isinstance(value, str):
        match = _BOUND.match(value)
        if match is None:
            raise ctx.fail(path, f"{_show(value)}: expected a number or a bound such as '>90' or '<10'")
        return match.group(1), _number(ctx, float(match.group(2)), path)
    return "=", _number(ctx, value, path)


def _paper(ctx: Ctx, raw: Any, path: str, categorical: bool) -> tuple[PaperValue, ...]:
    """``paper``: {x: value} (a value may be a bound '>90'), and ``mean: value`` for an aggregate over our x."""
    pv = _as_mapping(ctx, raw, path)
    out = []
    for at, value in pv.items():
        if at == "mean":
            where: Any = None
        elif categorical:
            if not isinstance(at, str | int | float):
                raise ctx.fail(path, f"{_show(at)}: expected a category of x or 'mean'")
            where = str(at)
        elif isinstance(at, str):
            raise ctx.fail(path, f"{_show(at)}: expected an x value (a number) or 'mean'{_suggest(at, ['mean'])}")
        else:
            where = _number(ctx, at, path)
        bound, number = _paper_number(ctx, value, f"{path}.{at}")
        out.append(PaperValue(where, number, bound))
    if sum(p.is_mean for p in out) > 1:
        raise ctx.fail(path, "'mean' is given twice")
    return tuple(out)


def _selections(ctx: Ctx, entry: Any, path: str) -> tuple[tuple[tuple[str, tuple[Any, ...]], ...], ...]:
    controls = []
    for j, control in enumerate(_as_list(entry) if entry is not None else []):
        cpath = f"{path}[{j}]"
        control = _as_mapping(ctx, control, cpath)
        if not control:
            raise ctx.fail(cpath, "expected a row selection such as {dataset: WV2-fitted}")
        _check_keys(ctx, control, COLUMNS, cpath)
        controls.append(tuple((key, tuple(_as_list(val))) for key, val in control.items()))
    return tuple(controls)


def _claim_plot(ctx: Ctx, entry: Any, path: str, x: str, plots: Sequence[PlotSpec]) -> str | None:
    """``plot``: the id of the figure that marks the claim's paper values (it must plot the same x)."""
    if "plot" not in entry:
        return None
    pid = _choice(ctx, entry["plot"], f"{path}.plot", [p.id for p in plots])
    plot = next(p for p in plots if p.id == pid)
    if plot.x != x:
        raise ctx.fail(f"{path}.plot", f"figure '{pid}' plots against {plot.x}, the claim against {x}")
    return pid


def parse_claims(ctx: Ctx, value: Any, metrics: Sequence[str], plots: Sequence[PlotSpec] = ()) -> tuple[Claim, ...]:
    """``claims``: a paper's stated results, evaluated after the sweep (:mod:`experiments.report.claims`)."""
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
        categorical = x not in NUMERIC_COLUMNS
        where = _where(ctx, entry["where"], f"{path}.where") if "where" in entry else []
        paper = _paper(ctx, entry["paper"], f"{path}.paper", categorical) if "paper" in entry else ()
        trend = _choice(ctx, entry["trend"], f"{path}.trend", TRENDS) if "trend" in entry else None
        if trend is not None and categorical:
            raise ctx.fail(f"{path}.trend", f"a trend needs a numeric x; '{x}' is a category (compare two lines "
                           "on every category with 'rival')")
        rival = _where(ctx, entry["rival"], f"{path}.rival") if "rival" in entry else []
        if trend is None and not paper and not rival:
            raise ctx.fail(path, "give the paper's 'trend', its 'paper' values, a 'rival', or a combination")
        lower = _bool(ctx, entry["lower"], f"{path}.lower") if "lower" in entry else False
        if lower and not rival:
            raise ctx.fail(f"{path}.lower", "'lower: true' needs a 'rival' (ours must be below it)")
        tolerance = _number(ctx, entry.get("tolerance", 0), f"{path}.tolerance", low=0)
        step_tolerance = _number(ctx, entry.get("step_tolerance", 0), f"{path}.step_tolerance", low=0)
        if "step_tolerance" in entry and trend not in ("rising", "falling"):
            raise ctx.fail(f"{path}.step_tolerance", "applies to a 'rising' or 'falling' trend only")
        controls = _selections(ctx, entry.get("controls"), f"{path}.controls")
        explained = _as_list(entry["explain"]) if "explain" in entry else []
        explain = tuple(_choice(ctx, m, f"{path}.explain", list(metrics)) for m in explained)
        out.append(Claim(cid, _str(ctx, entry["statement"], f"{path}.statement"), metric, x, tuple(where),
                         paper, trend, float(tolerance),
                         _str(ctx, entry["reason"], f"{path}.reason") if "reason" in entry else "",
                         tuple(rival), controls, explain, lower=lower,
                         plot=_claim_plot(ctx, entry, path, x, plots), step_tolerance=float(step_tolerance)))
    return tuple(out)


def parse_ours(ctx: Ctx, value: Any, claims: Sequence[Claim]) -> tuple[OurSetting, ...]:
    """``ours``: every setting the sweep chose that the papers do not state, and the claims measuring its effect."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value or len(value) > _MAX_OURS:
        raise ctx.fail("ours", f"expected a list of 1-{_MAX_OURS} settings ({{setting, value, why}}), "
                       f"got {_type_name(value)}")
    ids = [c.id for c in claims]
    out: list[OurSetting] = []
    for i, entry in enumerate(value):
        path = f"ours[{i}]"
        entry = _as_mapping(ctx, entry, path)
        _check_keys(ctx, entry, _OURS_KEYS, path)
        for key in ("setting", "value", "why"):
            if key not in entry:
                raise ctx.fail(path, f"'{key}' is missing (each entry: setting, value, why; optional sensitivity)")
        raw = entry["value"]
        if isinstance(raw, list | dict) or raw is None:
            raise ctx.fail(f"{path}.value", f"expected a value (text or a number), got {_type_name(raw)}")
        shown = str(raw).lower() if isinstance(raw, bool) else str(raw)
        sensitivity = _as_list(entry["sensitivity"]) if "sensitivity" in entry else []
        cids = [_choice(ctx, c, f"{path}.sensitivity[{j}]", ids) for j, c in enumerate(sensitivity)]
        _unique(ctx, cids, f"{path}.sensitivity")
        out.append(OurSetting(_str(ctx, entry["setting"], f"{path}.setting"), shown,
                              _str(ctx, entry["why"], f"{path}.why"), tuple(cids)))
    _unique(ctx, [o.setting for o in out], "ours")
    return tuple(out)
