"""Bounds on what a sweep file may ask for, and the parameters and columns a sweep knows."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COLUMNS", "GRID_PARAMS", "LIMITS", "Limits"]

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
