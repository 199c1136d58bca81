"""The sweep file: YAML read with ``yaml.safe_load`` and validated completely before anything runs.

A sweep declares what to vary (datasets, text densities, dataset sizes, the disassociation
parameters k, m and the maximum cluster size delta, the anonymizer options), which attacks to run
on every release, which metrics to keep, the seeds, and which figures to draw. Every mistake is
reported as one :class:`~corpora.common.errors.InputError` line that names the file, the key path
(``plots[2].group_by``), what is wrong and the allowed values, with a "did you mean" suggestion
for a mistyped key.

Layout (every key but ``name`` and ``datasets`` is optional)::

    name: small-default            # results go to results/<name>/
    description: one line for the report
    datasets:                      # registry names, file paths or text builds
      - kosarak10k
      - {name: [bms-webview-1, kosarak10k], records: [1000, 2000], stand_in: BMS-WebView-1}
      - {text: lee, density: [0.3, 0.5], options: {...}}
    grid:                          # one value, a list, a range or an expression of k and m
      k: {from: 2, to: 5}
      m: 2
      max_cluster_size: "k^2..k^6" # the thesis' k^2 .. k^6 (powers of k)
      horpart: original            # original | abandon | suppression | adding | remaining
      verpart: strict              # original | strict | grouped
      refine: true
      safe: [false, true]
    zip: [[k, max_cluster_size]]   # these lists pair up element by element instead of a product
    attacks:
      cover: {attackers: [strong, moderate, weak], moderate_share: 0.5}
      semantic: {scorers: [ngd, glove], selectors: [ABA, RGA, MRA, VPA, random], chunks: [both],
                 reference: source, vpa_limit: 10000,   # NGD counts: the text source's reference part
                 ngd_settings: [public, private],       # or pooled corpora in two threat settings (issue 11)
                 baselines: [blind, oracle], bootstrap: 200}  # beside random; paired attack-minus-random
    metrics: [pem, accuracy, wmd]  # default: every metric the declared steps produce
    utility: {top_k: 1000, re_range: [200, 220], reconstructions: 1}
    seeds: [0, 1, 2]               # or repeats: 3 (seeds 0, 1, 2)
    plots:
      - {metric: pem, x: max_cluster_size, group_by: method, where: {dataset: kosarak10k}}
    executor: local                # local | dask
    scheduler: tcp://host:8786     # dask scheduler address (none: a local cluster)
    jobs: 2
    zip_results: false             # also write results/<name>.zip
"""

from __future__ import annotations

import ast
import difflib
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from corpora.common.errors import InputError
from corpora.common.files import read_text_bounded
from corpora.common.messages import show
from experiments.claims import TRENDS, Claim
from experiments.metrics import (
    ALL_METRICS,
    ANONYMIZERS,
    ATTACKERS,
    CHUNKS,
    HORPARTS,
    SELECTORS,
    VERPARTS,
    metrics_for_steps,
)

__all__ = [
    "GRID_PARAMS",
    "LIMITS",
    "Limits",
    "COLUMNS",
    "DatasetSpec",
    "PlotSpec",
    "SweepSpec",
    "KExpr",
    "load_sweep",
    "parse_sweep",
]

GRID_PARAMS = ("k", "m", "max_cluster_size", "horpart", "verpart", "refine", "safe", "anonymizer", "epsilon",
               "fanout")
"""The parameters of the grid section, in the order the runs are enumerated."""

COLUMNS = (
    "dataset",
    "records",
    "density",
    "k",
    "m",
    "max_cluster_size",
    "horpart",
    "verpart",
    "refine",
    "safe",
    "anonymizer",
    "epsilon",
    "fanout",
    "seed",
    "attack",
    "method",
    "chunks",
    "rank",
)
"""Parameter columns of the tidy results table (usable as plot axes, groups, filters, --only keys)."""

_TOP_KEYS = (
    "name",
    "description",
    "note",
    "datasets",
    "grid",
    "zip",
    "attacks",
    "metrics",
    "utility",
    "seeds",
    "repeats",
    "plots",
    "executor",
    "scheduler",
    "jobs",
    "zip_results",
    "claims",
)
_DATASET_KEYS = ("name", "text", "label", "density", "records", "seed", "stand_in", "options", "grid", "attacks",
                 "utility", "metrics", "seeds")
_RANGE_KEYS = ("from", "to", "step")
_COVER_KEYS = ("attackers", "moderate_share")
_SEMANTIC_KEYS = ("scorers", "selectors", "chunks", "reference", "vpa_limit", "ngd_settings", "baselines",
                  "bootstrap")
_SCORERS = ("hybrid", "glove", "wordnet", "ngd")
_NGD_SETTINGS = ("source", "public", "private")
_BASELINES = ("blind", "oracle")
_UTILITY_KEYS = ("top_k", "re_range", "reconstructions", "re_windows")
_PLOT_KEYS = ("id", "metric", "x", "group_by", "where", "title", "xlabel", "ylabel", "logx", "note", "best_over")
_CLAIM_KEYS = ("id", "statement", "metric", "x", "where", "paper", "trend", "tolerance", "reason", "rival",
               "controls", "explain")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Limits:
    """Bounds on the work a sweep file may ask for before anything runs.

    A sweep file is a few kilobytes of settings; these bounds are far above any real sweep and
    keep a hostile or mistyped file (a YAML alias bomb, ``max_cluster_size: "1..k^40"``, ``repeats:
    10^12``) from taking seconds, gigabytes or a traceback: it gets one error line instead.
    """

    file_bytes: int = 256 << 10
    """Largest sweep file read (256 KiB; the example sweeps are 1-4 KiB)."""
    yaml_nodes: int = 10_000
    """Most YAML nodes (scalars, lists, mappings) in a sweep file (the examples have 100-600);
    aliases are refused outright."""
    yaml_depth: int = 50
    """Deepest nesting of lists and mappings."""
    scalar_chars: int = 10_000
    """Longest single value (a string or a number written out)."""
    expr_chars: int = 100
    """Longest k-expression (``k^2..k^6``)."""
    range_values: int = 1_000
    """Most values one range (``{from, to, step}``, ``a..b``, ``k^a..k^b``) may give."""
    param_max: int = 10**9
    """Largest integer setting (k, m, a cluster size, a record count, ...): above any dataset held in memory."""
    seed_max: int = 2**64 - 1
    """Largest seed."""
    runs: int = 100_000
    """Most runs in one sweep (datasets x densities x sizes x grid points x seeds)."""
    jobs: int = 1_024
    """Most worker processes."""
    rank_max: int = 10**7
    """Largest term rank in a re window (no dataset here has ten million distinct terms)."""
    reconstructions: int = 1_000
    """Most reconstructions one utility measurement may draw."""


LIMITS = Limits()

def _show(value: Any) -> str:
    """A short repr of a value for an error message (see :func:`corpora.common.messages.show`)."""
    return show(value)


# --------------------------------------------------------------------------- errors and helpers
class _Ctx:
    """Where we are in the file, for messages: ``sweep.yaml: grid.k[2]: ...``."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, message: str) -> InputError:
        where = f"{self.source}: {path}" if path else self.source
        return InputError(f"{where}: {message}")


def _suggest(word: str, allowed: Sequence[str]) -> str:
    if len(str(word)) > 40:  # no near miss of a short name; and difflib's cost grows with the length
        return ""
    close = difflib.get_close_matches(str(word), [str(a) for a in allowed], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _allowed(allowed: Sequence[Any]) -> str:
    return ", ".join(str(a) for a in allowed)


def _check_keys(ctx: _Ctx, obj: Mapping[str, Any], allowed: Sequence[str], path: str) -> None:
    for key in obj:
        if not isinstance(key, str) or key not in allowed:
            shown = key if isinstance(key, str) and len(key) <= 40 else _show(key)
            where = f"{path}.{shown}" if path else shown
            hint = _suggest(key, allowed) if isinstance(key, str) and len(key) <= 40 else ""
            raise ctx.fail(where, f"unknown key{hint}; allowed keys: {_allowed(allowed)}")


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a mapping"}.get(type(value), type(value).__name__)


def _as_mapping(ctx: _Ctx, value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ctx.fail(path, f"expected a mapping (key: value lines), got {_type_name(value)}")
    return value


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _int(ctx: _Ctx, value: Any, path: str, minimum: int | None = None, what: str = "",
         maximum: int = LIMITS.param_max) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.fail(path, f"expected an integer, got {_type_name(value)} {_show(value)}")
    if minimum is not None and value < minimum:
        raise ctx.fail(path, f"{_show(value)} is impossible: must be >= {minimum}{what}")
    if value > maximum:
        raise ctx.fail(path, f"{_show(value)} is too large: at most {maximum:,}")
    return value


def _number(ctx: _Ctx, value: Any, path: str, low: float | None = None, high: float | None = None,
            low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
        raise ctx.fail(path, f"expected a number, got {_type_name(value)} {_show(value)}")
    v = float(value)
    if low is not None and (v < low or (low_open and v == low)):
        op = ">" if low_open else ">="
        raise ctx.fail(path, f"{_show(value)} is impossible: must be {op} {low}")
    if high is not None and v > high:
        raise ctx.fail(path, f"{_show(value)} is impossible: must be <= {high}")
    return v


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer beyond the float range
        return False


def _str(ctx: _Ctx, value: Any, path: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ctx.fail(path, f"expected a non-empty string, got {_type_name(value)} {_show(value)}")
    return value


def _bool(ctx: _Ctx, value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise ctx.fail(path, f"expected true or false, got {_type_name(value)} {_show(value)}")
    return value


def _choice(ctx: _Ctx, value: Any, path: str, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        hint = _suggest(str(value), allowed) if isinstance(value, str) else ""
        raise ctx.fail(path, f"{_show(value)} is not allowed{hint}; allowed values: {_allowed(allowed)}")
    return value


def _unique(ctx: _Ctx, values: list[Any], path: str) -> None:
    seen: set[str] = set()
    for i, v in enumerate(values):
        key = repr(v)
        if key in seen:
            raise ctx.fail(f"{path}[{i}]", f"{_show(v)} is listed twice")
        seen.add(key)


# --------------------------------------------------------------------------- k-expressions
_EXPR_MAX = 10**18
_ALLOWED_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Add, ast.Sub,
                  ast.Mult, ast.Pow, ast.FloorDiv, ast.USub, ast.UAdd, ast.Load)


@dataclass(frozen=True)
class KExpr:
    """An integer expression of ``k`` and ``m`` (``k^2``, ``2*k+1``) or a range of them.

    ``"a..b"`` with both ends powers of the same base (``k^2..k^6``) expands over the exponents,
    as AlShuhail2021 section 5.3.5 sweeps the maximum cluster size "from k^2 to k^6" (k=2:
    4, 8, 16, 32, 64); any other ``"a..b"`` is the inclusive integer range a, a+1, ..., b.
    ``^`` is a power. Only integers, ``k``, ``m``, ``+ - * // ^`` and parentheses are allowed.
    """

    text: str

    @staticmethod
    def _parse(text: str) -> ast.Expression:
        if len(text) > LIMITS.expr_chars:
            raise ValueError(f"{_show(text)} is too long for an expression of k and m "
                             f"(at most {LIMITS.expr_chars} characters)")
        try:
            tree = ast.parse(text.replace("^", "**"), mode="eval")
        except (SyntaxError, ValueError):
            raise ValueError(f"'{text}' is not an expression of k and m") from None
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED_NODES):
                raise ValueError(f"'{text}' may use only integers, k, m, + - * // ^ and parentheses")
            if isinstance(node, ast.Name) and node.id not in ("k", "m"):
                raise ValueError(f"'{text}' names '{node.id}'; only k and m are known")
            if isinstance(node, ast.Constant) and (isinstance(node.value, bool) or not isinstance(node.value, int)):
                raise ValueError(f"'{text}' holds {_show(node.value)}; only integers are allowed")
        return tree

    def check(self) -> None:
        """Raise ValueError when the text is not a valid expression or range."""
        if len(self.text) > LIMITS.expr_chars:
            raise ValueError(f"{_show(self.text)} is too long for an expression of k and m "
                             f"(at most {LIMITS.expr_chars} characters)")
        parts = self.text.split("..")
        if len(parts) > 2 or not all(p.strip() for p in parts):
            raise ValueError(f"'{self.text}' is neither an expression nor a range 'a..b'")
        for part in parts:
            self._parse(part.strip())

    @staticmethod
    def _bounded(text: str, value: int) -> int:
        """Every intermediate value stays within 10^18, so no expression builds a huge integer."""
        if abs(value) > _EXPR_MAX:
            raise ValueError(f"'{text}' reaches a value above 10^18")
        return value

    @classmethod
    def _pow(cls, text: str, base: int, exponent: int) -> int:
        if exponent < 0 or exponent > 64:
            raise ValueError(f"'{text}' raises to the power {exponent}; powers 0..64 only")
        if abs(base) > 1 and (abs(base).bit_length() - 1) * exponent > 62:
            raise ValueError(f"'{text}' reaches a value above 10^18")
        return cls._bounded(text, base**exponent)

    @classmethod
    def _eval(cls, text: str, k: int, m: int) -> int:
        def ev(node: ast.AST) -> int:
            if isinstance(node, ast.Expression):
                return ev(node.body)
            if isinstance(node, ast.Constant):
                return cls._bounded(text, int(node.value))
            if isinstance(node, ast.Name):
                return k if node.id == "k" else m
            if isinstance(node, ast.UnaryOp):
                v = ev(node.operand)
                return -v if isinstance(node.op, ast.USub) else v
            assert isinstance(node, ast.BinOp)
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return cls._bounded(text, a + b)
            if isinstance(node.op, ast.Sub):
                return cls._bounded(text, a - b)
            if isinstance(node.op, ast.Mult):
                return cls._bounded(text, a * b)
            if isinstance(node.op, ast.FloorDiv):
                if b == 0:
                    raise ValueError(f"'{text}' divides by zero")
                return a // b
            return cls._pow(text, a, b)

        return ev(cls._parse(text))

    @staticmethod
    def _power(text: str) -> tuple[str, str] | None:
        tree = ast.parse(text.replace("^", "**"), mode="eval").body
        if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.Pow):
            return ast.unparse(tree.left), ast.unparse(tree.right)
        return None

    def _count(self, lo: int, hi: int, k: int, m: int) -> None:
        if hi - lo + 1 > LIMITS.range_values:
            raise ValueError(f"'{self.text}' gives {hi - lo + 1:,} values for k={k}, m={m}; "
                             f"a range gives at most {LIMITS.range_values:,}")

    def values(self, k: int, m: int) -> list[int]:
        """The integers this expression gives for one (k, m).

        ValueError when it is invalid, when a value passes 10^18 or when a range would give more
        than :attr:`Limits.range_values` values (``"1..k^40"``), before anything is allocated.
        """
        parts = [p.strip() for p in self.text.split("..")]
        if len(parts) == 1:
            return [self._eval(parts[0], k, m)]
        for part in parts:
            self._parse(part)
        lo_pow, hi_pow = self._power(parts[0]), self._power(parts[1])
        if lo_pow and hi_pow and lo_pow[0] == hi_pow[0]:
            base = self._eval(lo_pow[0], k, m)
            lo, hi = self._eval(lo_pow[1], k, m), self._eval(hi_pow[1], k, m)
            self._count(lo, hi, k, m)
            return [self._pow(self.text, base, e) for e in range(lo, hi + 1)]
        lo, hi = self._eval(parts[0], k, m), self._eval(parts[1], k, m)
        self._count(lo, hi, k, m)
        return list(range(lo, hi + 1))


# --------------------------------------------------------------------------- spec dataclasses
@dataclass(frozen=True)
class DatasetSpec:
    """One entry of ``datasets``.

    ``names`` is the preference list of registry names or paths (the first that loads offline is
    used: a cached BMS-WebView file before its kosarak stand-in); ``text`` is a text source of
    ``corpora.text.api`` built at each requested ``density``. ``records`` (a list) takes the first N
    records, for size sweeps. ``seed`` fixes the text build's sample (default: the run's seed).
    ``grid`` overrides grid parameters for this dataset only (one sweep can sweep delta on
    kosarak and k on a text build); ``attacks`` picks which of the sweep's attacks run on it
    (default: cover on every dataset, semantic on text builds only, where its scorers apply).
    ``utility`` overrides keys of the sweep's ``utility`` section for this dataset only (one
    figure's settings, e.g. Terrovitis2012 Figure 7d's ``re_windows`` on POS alone).
    """

    names: tuple[str, ...] = ()
    text: str | None = None
    label: str | None = None
    densities: tuple[float | None, ...] = (None,)
    records: tuple[int | None, ...] = (None,)
    seed: int | None = None
    stand_in: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    grid: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    attacks: tuple[str, ...] | None = None
    utility: tuple[tuple[str, Any], ...] = ()
    """Overrides of the sweep's ``utility`` settings for this dataset (Terrovitis2012 Figure 11c
    measures re over the 0-20th terms on POS, Figure 7d re over rank windows)."""
    metrics: tuple[str, ...] = ()
    """This dataset's metrics (a subset of the sweep's; empty: all of them): a control measured on
    a large dataset records only what its claims need."""
    seeds: tuple[int, ...] = ()
    """This dataset's seeds (empty: the sweep's)."""

    @property
    def is_text(self) -> bool:
        return self.text is not None

    def display(self) -> str:
        return self.label or (f"text:{self.text}" if self.text else self.names[0])


@dataclass(frozen=True)
class PlotSpec:
    """One figure: ``metrics`` against parameter ``x``, one line per value of ``group_by``.

    Several metrics in one figure (Terrovitis2012 Figure 7b: tKd, tKd-a, tlost against k) give
    one line per metric (and per group). ``where`` keeps only rows whose columns equal the given
    value (or one of a list of values).
    """

    id: str
    metrics: tuple[str, ...]
    x: str
    group_by: tuple[str, ...]
    where: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    title: str | None = None
    xlabel: str | None = None
    ylabel: str | None = None
    logx: bool = False
    note: str | None = None
    best_over: str | None = None
    """A column (``epsilon``): each point is the best (lowest) mean over its values, as Terrovitis2012
    Figure 11 reports DiffPart's best budget."""

    @property
    def metric(self) -> str:
        """The first (usually the only) metric."""
        return self.metrics[0]


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep file."""

    name: str
    datasets: tuple[DatasetSpec, ...]
    grid: Mapping[str, tuple[Any, ...]]
    zip_groups: tuple[tuple[str, ...], ...]
    attacks: Mapping[str, Mapping[str, Any]]
    metrics: tuple[str, ...]
    utility: Mapping[str, Any]
    seeds: tuple[int, ...]
    plots: tuple[PlotSpec, ...]
    claims: tuple[Claim, ...] = ()
    executor: str = "local"
    scheduler: str | None = None
    jobs: int = 1
    zip_results: bool = False
    description: str = ""
    note: str = ""
    source: str = "<sweep>"
    base_dir: str = "."
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)


# --------------------------------------------------------------------------- sections
def _parse_datasets(ctx: _Ctx, value: Any, base_dir: str) -> tuple[DatasetSpec, ...]:
    if not isinstance(value, list) or not value:
        raise ctx.fail("datasets", f"expected a non-empty list of datasets, got {_type_name(value)}")
    out: list[DatasetSpec] = []
    for i, entry in enumerate(value):
        path = f"datasets[{i}]"
        if isinstance(entry, str):
            out.append(DatasetSpec(names=(_str(ctx, entry, path),)))
            continue
        entry = _as_mapping(ctx, entry, path)
        _check_keys(ctx, entry, _DATASET_KEYS, path)
        if ("name" in entry) == ("text" in entry):
            raise ctx.fail(path, "give exactly one of 'name' (registry name or file path) or 'text' (a text source)")
        names: tuple[str, ...] = ()
        text = None
        if "name" in entry:
            raw_names = _as_list(entry["name"])
            if not raw_names:
                raise ctx.fail(f"{path}.name", "expected a name or a non-empty list of names")
            names = tuple(_str(ctx, n, f"{path}.name") for n in raw_names)
        else:
            text = _str(ctx, entry["text"], f"{path}.text")
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
        grid_override: tuple[tuple[str, tuple[Any, ...]], ...] = ()
        if "grid" in entry:
            g = _as_mapping(ctx, entry["grid"], f"{path}.grid")
            _check_keys(ctx, g, GRID_PARAMS, f"{path}.grid")
            grid_override = tuple((name, _grid_values(ctx, name, v, f"{path}.grid.{name}")) for name, v in g.items())
        attacks_sel: tuple[str, ...] | None = None
        if "attacks" in entry:
            sel = _as_list(entry["attacks"])
            attacks_sel = tuple(_choice(ctx, a, f"{path}.attacks", ("cover", "semantic")) for a in sel)
        utility_override: tuple[tuple[str, Any], ...] = ()
        if "utility" in entry:
            raw_u = _as_mapping(ctx, entry["utility"], f"{path}.utility")
            parsed = _parse_utility(ctx, raw_u, f"{path}.utility")
            utility_override = tuple((key, parsed[key]) for key in sorted(raw_u))
        own_metrics: tuple[str, ...] = ()
        if "metrics" in entry:
            listed = _as_list(entry["metrics"])
            if not listed:
                raise ctx.fail(f"{path}.metrics", "expected a non-empty list of metric names")
            own_metrics = tuple(_choice(ctx, m, f"{path}.metrics[{j}]", list(ALL_METRICS))
                                for j, m in enumerate(listed))
            _unique(ctx, list(own_metrics), f"{path}.metrics")
        own_seeds: tuple[int, ...] = ()
        if "seeds" in entry:
            own_seeds = _parse_seeds(ctx, {"seeds": entry["seeds"]}, f"{path}.seeds")
        out.append(DatasetSpec(names=names, text=text, label=label, densities=densities, records=records,
                               seed=seed, stand_in=stand_in, options=options, grid=grid_override,
                               attacks=attacks_sel, utility=utility_override, metrics=own_metrics,
                               seeds=own_seeds))
    labels = [d.display() for d in out]
    for i, lab in enumerate(labels):
        if labels.index(lab) != i:
            raise ctx.fail(f"datasets[{i}]", f"dataset {_show(lab)} is declared twice; give one of them a 'label'")
    return tuple(out)


_TEXT_FIXED = ("source", "density", "seed")


def _check_text_options(ctx: _Ctx, opts: Mapping[str, Any], path: str) -> None:
    """Options of a text build must be keyword parameters of ``corpora.text.api.build_text_dataset``."""
    try:
        import inspect

        from corpora.text.api import build_text_dataset
    except ImportError:  # the text pipeline is not installed: the run reports it
        return
    params = [p for p in inspect.signature(build_text_dataset).parameters if p not in _TEXT_FIXED]
    _check_keys(ctx, opts, params, path)


def _parse_range(ctx: _Ctx, value: Mapping[str, Any], path: str, number: bool = False) -> list[Any]:
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


def _grid_values(ctx: _Ctx, name: str, value: Any, path: str | None = None) -> tuple[Any, ...]:
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
            out.append(_choice(ctx, v, p, ANONYMIZERS))
        elif name == "epsilon":
            out.append(float(_number(ctx, v, p, 0.0, 1e6, low_open=True)))
        elif name == "fanout":
            out.append(_int(ctx, v, p, 2, " (a hierarchy node has at least 2 children)", maximum=1_000))
        else:
            out.append(_bool(ctx, v, p))
    _unique(ctx, out, path)
    return tuple(out)


_GRID_DEFAULTS: dict[str, tuple[Any, ...]] = {
    "k": (3,),
    "m": (2,),
    "max_cluster_size": (10,),
    "horpart": ("original",),
    "verpart": ("strict",),
    "refine": (True,),
    "safe": (False,),
    "anonymizer": ("disassociation",),
    "epsilon": (1.0,),
    "fanout": (5,),
}
"""Grid defaults. ``anonymizer`` (disassociation | apriori | diffpart), ``epsilon`` (DiffPart) and
``fanout`` (the automatic hierarchy of Apriori, DiffPart and tKd-ML^2) are left out of a run's
configuration while they keep their defaults, so the cache keys of older sweeps stay valid."""


def _parse_grid(ctx: _Ctx, value: Any) -> dict[str, tuple[Any, ...]]:
    grid = dict(_GRID_DEFAULTS)
    if value is None:
        return grid
    value = _as_mapping(ctx, value, "grid")
    _check_keys(ctx, value, GRID_PARAMS, "grid")
    for name, v in value.items():
        grid[name] = _grid_values(ctx, name, v)
    return grid


def _parse_zip(ctx: _Ctx, value: Any, grid: Mapping[str, tuple[Any, ...]]) -> tuple[tuple[str, ...], ...]:
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


def _parse_attacks(ctx: _Ctx, value: Any) -> dict[str, dict[str, Any]]:
    if value is None:
        return {}
    value = _as_mapping(ctx, value, "attacks")
    _check_keys(ctx, value, ("cover", "semantic"), "attacks")
    out: dict[str, dict[str, Any]] = {}
    if value.get("cover") is not None:
        cov = value["cover"]
        if cov is True:
            cov = {}
        cov = _as_mapping(ctx, cov, "attacks.cover.detector")
        _check_keys(ctx, cov, _COVER_KEYS, "attacks.cover.detector")
        attackers = _as_list(cov.get("attackers", ["strong"]))
        if not attackers:
            raise ctx.fail("attacks.cover.detector.attackers", f"expected a non-empty list of: {_allowed(ATTACKERS)}")
        attackers = [_choice(ctx, a, f"attacks.cover.detector.attackers[{i}]", ATTACKERS) for i, a in enumerate(attackers)]
        _unique(ctx, attackers, "attacks.cover.detector.attackers")
        share = _number(ctx, cov.get("moderate_share", 0.5), "attacks.cover.detector.moderate_share", 0.0, 1.0, low_open=True)
        out["cover"] = {"attackers": attackers, "moderate_share": share}
    if value.get("semantic") is not None:
        sem = value["semantic"]
        if sem is True:
            sem = {}
        sem = _as_mapping(ctx, sem, "attacks.semantic.attack")
        _check_keys(ctx, sem, _SEMANTIC_KEYS, "attacks.semantic.attack")
        scorers = _as_list(sem.get("scorers", ["ngd"]))
        if not scorers:
            raise ctx.fail("attacks.semantic.attack.scorers",
                           f"expected a non-empty list of: {_allowed(_SCORERS)}, table:FILE")
        for i, s in enumerate(scorers):
            p = f"attacks.semantic.attack.scorers[{i}]"
            _str(ctx, s, p)
            if s not in _SCORERS and not s.startswith("table:"):
                hint = _suggest(s, list(_SCORERS))
                raise ctx.fail(p, f"{_show(s)} is not a scorer{hint}; allowed: {_allowed(_SCORERS)}, table:FILE")
        _unique(ctx, scorers, "attacks.semantic.attack.scorers")
        selectors = _as_list(sem.get("selectors", list(SELECTORS)))
        if not selectors:
            raise ctx.fail("attacks.semantic.attack.selectors", f"expected a non-empty list of: {_allowed(SELECTORS)}")
        selectors = [_choice(ctx, s, f"attacks.semantic.attack.selectors[{i}]", SELECTORS) for i, s in enumerate(selectors)]
        _unique(ctx, selectors, "attacks.semantic.attack.selectors")
        chunks = _as_list(sem.get("chunks", ["both"]))
        if not chunks:
            raise ctx.fail("attacks.semantic.attack.chunks", f"expected a non-empty list of: {_allowed(CHUNKS)}")
        chunks = [_choice(ctx, c, f"attacks.semantic.attack.chunks[{i}]", CHUNKS) for i, c in enumerate(chunks)]
        _unique(ctx, chunks, "attacks.semantic.attack.chunks")
        reference = _str(ctx, sem.get("reference", "source"), "attacks.semantic.attack.reference")
        vpa_limit = _int(ctx, sem.get("vpa_limit", 10_000), "attacks.semantic.attack.vpa_limit", 1)
        out["semantic"] = {"scorers": scorers, "selectors": selectors, "chunks": chunks, "reference": reference,
                           "vpa_limit": vpa_limit}
        # issue 11: NGD threat settings, baselines beside random, bootstrap of the paired differences
        if "ngd_settings" in sem:
            settings = _as_list(sem["ngd_settings"])
            if not settings:
                raise ctx.fail("attacks.semantic.attack.ngd_settings",
                               f"expected a non-empty list of: {_allowed(_NGD_SETTINGS)}")
            settings = [_choice(ctx, x, f"attacks.semantic.attack.ngd_settings[{i}]", _NGD_SETTINGS)
                        for i, x in enumerate(settings)]
            _unique(ctx, settings, "attacks.semantic.attack.ngd_settings")
            out["semantic"]["ngd_settings"] = settings
        if "baselines" in sem:
            base = [_choice(ctx, x, f"attacks.semantic.attack.baselines[{i}]", _BASELINES)
                    for i, x in enumerate(_as_list(sem["baselines"]))]
            _unique(ctx, base, "attacks.semantic.attack.baselines")
            out["semantic"]["baselines"] = base
        if "bootstrap" in sem:
            out["semantic"]["bootstrap"] = _int(ctx, sem["bootstrap"], "attacks.semantic.attack.bootstrap", 0, maximum=100_000)
    return out


def _rank_range(ctx: _Ctx, rr: Any, path: str) -> list[int]:
    if not isinstance(rr, list) or len(rr) != 2:
        raise ctx.fail(path, f"expected [first, last] term ranks, got {_show(rr)}")
    lo = _int(ctx, rr[0], f"{path}[0]", 0, maximum=LIMITS.rank_max)
    hi = _int(ctx, rr[1], f"{path}[1]", lo + 2, maximum=LIMITS.rank_max)
    return [lo, hi]


def _parse_utility(ctx: _Ctx, value: Any, path: str = "utility") -> dict[str, Any]:
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


def _parse_seeds(ctx: _Ctx, raw: Mapping[str, Any], path: str = "seeds") -> tuple[int, ...]:
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


def _parse_metrics(ctx: _Ctx, value: Any, steps: set[str]) -> tuple[str, ...]:
    available = metrics_for_steps(steps)
    if value is None:
        return tuple(metrics_for_steps(steps, defaults_only=True))
    if not isinstance(value, list) or not value:
        raise ctx.fail("metrics", "expected a non-empty list of metric names")
    out: list[str] = []
    for i, name in enumerate(value):
        p = f"metrics[{i}]"
        _choice(ctx, name, p, list(ALL_METRICS))
        if name not in available:
            step = ALL_METRICS[name].step
            need = {"cover": "attacks.cover.detector", "semantic": "attacks.semantic.attack", "safe": "grid.safe: true"}.get(step, step)
            raise ctx.fail(p, f"metric '{name}' needs {need} in this sweep")
        out.append(name)
    _unique(ctx, out, "metrics")
    return tuple(out)


def _parse_plots(ctx: _Ctx, value: Any, metrics: Sequence[str]) -> tuple[PlotSpec, ...]:
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
            if isinstance(name, str) and name in ALL_METRICS and name not in metrics:
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
            if not _NAME_RE.match(pid):
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


def _parse_claims(ctx: _Ctx, value: Any, metrics: Sequence[str]) -> tuple[Claim, ...]:
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
        if not _NAME_RE.match(cid) or any(c.id == cid for c in out):
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


# --------------------------------------------------------------------------- entry points
def parse_sweep(raw: Any, source: str = "<sweep>", base_dir: str = ".") -> SweepSpec:
    """Validate a loaded YAML document and return the :class:`SweepSpec` (InputError on any mistake)."""
    ctx = _Ctx(source)
    if not isinstance(raw, Mapping):
        raise ctx.fail("", f"expected a mapping at the top level, got {_type_name(raw)}")
    _check_keys(ctx, raw, _TOP_KEYS, "")
    if "name" not in raw:
        raise ctx.fail("name", "missing: every sweep needs a name (results go to results/<name>/)")
    name = _str(ctx, raw["name"], "name")
    if not _NAME_RE.match(name):
        raise ctx.fail("name", f"{_show(name)}: use letters, digits, '_', '.', '-' only (it names a folder)")
    if "datasets" not in raw:
        raise ctx.fail("datasets", "missing: list at least one dataset")
    datasets = _parse_datasets(ctx, raw["datasets"], base_dir)
    grid = _parse_grid(ctx, raw.get("grid"))
    zip_groups = _parse_zip(ctx, raw.get("zip"), grid)
    attacks = _parse_attacks(ctx, raw.get("attacks"))
    if "semantic" in attacks and not any(d.is_text for d in datasets):
        raise ctx.fail("attacks.semantic.attack", "the semantic attack needs at least one text dataset ('text: SOURCE')")
    for i, d in enumerate(datasets):
        for a in d.attacks or ():
            if a not in attacks:
                raise ctx.fail(f"datasets[{i}].attacks", f"'{a}' is not declared in the sweep's 'attacks'")
    steps = {"anonymizer", "utility"} | set(attacks)
    if True in grid["safe"] or any(True in dict(d.grid).get("safe", ()) for d in datasets):
        steps.add("safe")
    metrics = _parse_metrics(ctx, raw.get("metrics"), steps)
    utility = _parse_utility(ctx, raw.get("utility"))
    seeds = _parse_seeds(ctx, raw)
    plots = _parse_plots(ctx, raw.get("plots"), metrics)
    for i, d in enumerate(datasets):
        extra = [m for m in d.metrics if m not in metrics]
        if extra:
            raise ctx.fail(f"datasets[{i}].metrics", f"{_show(extra[0])} is not among the sweep's metrics "
                           f"({', '.join(metrics)})")
    claims = _parse_claims(ctx, raw.get("claims"), metrics)
    executor = _choice(ctx, raw.get("executor", "local"), "executor", ("local", "dask"))
    scheduler = _str(ctx, raw["scheduler"], "scheduler") if raw.get("scheduler") is not None else None
    if scheduler is not None and executor != "dask":
        raise ctx.fail("scheduler", "a scheduler address needs 'executor: dask'")
    jobs = _int(ctx, raw.get("jobs", 1), "jobs", 1, maximum=LIMITS.jobs)
    zip_results = _bool(ctx, raw.get("zip_results", False), "zip_results")
    description = _str(ctx, raw["description"], "description") if raw.get("description") is not None else ""
    note = _str(ctx, raw["note"], "note") if raw.get("note") is not None else ""
    spec = SweepSpec(name=name, datasets=datasets, grid=grid, zip_groups=zip_groups, attacks=attacks,
                     metrics=metrics, utility=utility, seeds=seeds, plots=plots, claims=claims, executor=executor,
                     scheduler=scheduler, jobs=jobs, zip_results=zip_results, description=description,
                     note=note, source=source, base_dir=base_dir, raw=dict(raw))
    # Expanding the grid checks the points themselves (k <= max_cluster_size, expressions).
    from experiments.grid import expand_points

    total = 0
    for d in datasets:
        total += len(expand_points(spec, d)) * len(d.densities) * len(d.records) * len(d.seeds or seeds)
    if total > LIMITS.runs:
        raise ctx.fail("", f"the sweep has {total:,} runs; at most {LIMITS.runs:,} in one file (split it)")
    return spec


try:
    from yaml.cyaml import CParser as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None

if _CParser is not None:

    class _SafeBase(yaml.composer.Composer, _CParser, yaml.constructor.SafeConstructor,  # type: ignore[misc]
                    yaml.resolver.Resolver):
        """libyaml's parser (fast) under PyYAML's Python composer, so :class:`_BoundedLoader` can
        check every node as it is composed (``yaml.CSafeLoader`` composes in C, out of reach)."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

else:  # pragma: no cover - PyYAML built without libyaml
    _SafeBase = yaml.SafeLoader  # type: ignore[misc,assignment]


class _BoundedLoader(_SafeBase):
    """A safe YAML loader that refuses aliases and bounds the node count, the depth and value lengths.

    The checks run while the document is composed, before any Python object is built, so a
    billion-laughs file (a few aliases of aliases) fails at its first ``*alias`` in microseconds.
    Anchors alone (``&name``) are harmless and allowed.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._nodes = 0
        self._depth = 0

    def _refuse(self, problem: str) -> yaml.composer.ComposerError:
        return yaml.composer.ComposerError(None, None, problem, self.peek_event().start_mark)

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise self._refuse("aliases (*name) are not allowed in a sweep file; write the value out")
        self._nodes += 1
        if self._nodes > LIMITS.yaml_nodes:
            raise self._refuse(f"more than {LIMITS.yaml_nodes:,} values in one sweep file")
        event = self.peek_event()
        if isinstance(event, yaml.ScalarEvent) and len(event.value) > LIMITS.scalar_chars:
            raise self._refuse(f"a value of {len(event.value):,} characters; at most {LIMITS.scalar_chars:,}")
        self._depth += 1
        try:
            if self._depth > LIMITS.yaml_depth:
                raise self._refuse(f"lists and mappings nested more than {LIMITS.yaml_depth} deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        """A mapping whose keys are distinct: a repeated key is refused (YAML says keys are unique;
        PyYAML would keep the last value silently, so a sweep would run other settings than it shows)."""
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = (key_node.tag, key_node.value) if isinstance(key_node, yaml.ScalarNode) else None
            if key is None:
                continue
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {_show_text(str(key_node.value))}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _read_yaml(p: Path) -> Any:
    """The YAML document of a sweep file, within :data:`LIMITS` (InputError otherwise)."""
    text = read_text_bounded(p, LIMITS.file_bytes)  # a sweep file holds settings, not data
    try:
        return yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "nesting depth" in problem:  # PyYAML >= 6.0.4 stops deep nesting in its scanner, before our bound
            raise InputError(f"{p}: {where}lists and mappings nested more than {LIMITS.yaml_depth} deep") from None
        raise InputError(f"{p}: {where}not valid YAML ({_show_text(problem)})") from None
    except ValueError as exc:  # a constructor's refusal, e.g. an integer of more than 4,300 digits
        raise InputError(f"{p}: a value cannot be read ({_show_text(str(exc))})") from None


def _show_text(text: str) -> str:
    return show(text.strip().splitlines()[0] if text.strip() else "", quote=False)


def load_sweep(path: str | os.PathLike[str]) -> SweepSpec:
    """Read and validate a sweep file (InputError names the file and the key path of any mistake).

    The file is read within :data:`LIMITS`: at most 256 KiB, no YAML aliases, at most 10,000
    values (the example sweeps have 100-600) nested at most 50 deep; every message quotes at
    most a short prefix of a value.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such sweep file")
    raw = _read_yaml(p)
    return parse_sweep(raw, source=str(p), base_dir=str(p.parent))
