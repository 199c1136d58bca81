"""Range-checked integer options and checked addresses, refused at parse time in one line.

Every integer a command line reads goes through :func:`int_option`: a value outside its range
(``-m 10**30``, ``--workers 0``) is one ``error:`` line before any work, never a TypeError after
the whole run. :func:`scheduler_address` checks a Dask scheduler address the same way.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

__all__ = ["MAX_RECORDS", "MAX_M", "MAX_WORKERS", "int_option", "scheduler_address"]

MAX_RECORDS = 2**31 - 1
"""The most records a dataset holds (int32 record ids); k and the maximum cluster size are at most this."""

MAX_M = 64
"""Largest m of k^m-anonymity: the papers use m <= 6, and the work of the k^m test grows as
C(record length, m) (see ``--max-itemsets``); 64 leaves room for any experiment while keeping
every count of combinations a float64 can hold."""

MAX_WORKERS = 1024
"""Most worker processes of a local cluster or pool (one machine)."""


def int_option(name: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a decimal integer in ``low..high``, else one line naming ``name`` and the range."""

    def parse(text: str) -> int:
        text = text.strip()
        if not re.fullmatch(r"[+-]?\d{1,30}", text):
            raise argparse.ArgumentTypeError(f"{name} must be an integer from {low} to {high}, got {text[:40]!r}")
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be an integer from {low} to {high}, got {value}")
        return value

    parse.__name__ = name  # argparse names the type in its messages
    return parse


_HOST = r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]{1,253})"
_INPROC = re.compile(r"inproc://[0-9A-Za-z._-]+/\d+/\d+")
_ADDRESS = re.compile(rf"(?:(tcp|tls|ws|wss|ucx)://)?{_HOST}:(\d{{1,5}})")


def scheduler_address(text: str) -> str:
    """An argparse ``type``: a Dask scheduler address ``[tcp://]HOST:PORT`` (IPv6 in brackets), checked
    before anything runs (an address Dask cannot parse used to fail after the input was read)."""
    if _INPROC.fullmatch(text.strip()):  # a scheduler in this process (tests, notebooks)
        return text.strip()
    match = _ADDRESS.fullmatch(text.strip())
    if match is None or not 1 <= int(match.group(3)) <= 65535:
        raise argparse.ArgumentTypeError(
            f"invalid scheduler address {text[:60]!r}; expected [tcp://]HOST:PORT, e.g. tcp://10.0.0.5:8786 "
            "(IPv6 in brackets: tcp://[::1]:8786)")
    return text.strip()
