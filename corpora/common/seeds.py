"""The secret seed of a release: how it is drawn, checked and turned into random generators.

Every random choice that hides something in a release (the published order of sub-records, the
ghost records and reshuffles of safe disassociation) comes from one seed. The seed is the data
owner's secret: it is written to the truth file and never to the release, because anyone who
knows it can replay the draws with the public code and undo them (issue 15: replaying safe
disassociation with a published seed located the ghost sub-records exactly). A guessable seed is
as bad as a published one, so by default the seed is drawn from the operating system's entropy
(:func:`new_seed`, 128 bits); a seed the owner passes is accepted as is (experiments pass their
stated seeds) and must be kept secret and not reused.

One seed feeds independent streams (numpy ``SeedSequence`` spawn keys), so the draws of one step
say nothing about the draws of another: ``"publish"`` (the sub-record shuffle of
:mod:`anonymizer.disassociation.pipeline`; spawn key ``()``, i.e. ``PCG64(seed)``) and ``"safe"`` (safe
disassociation, :mod:`anonymizer.disassociation.safe`; spawn key ``(1,)``). A run split into parts
(:mod:`anonymizer.disassociation.parts`) gives part ``i`` its own seed, :func:`part_seed`, drawn from spawn key
``(2, i)``: the parts' draws are independent of one another and of the unsplit run's, and the
owner's one seed still replays them all. The joint clusters REFINE makes across the parts
(:mod:`anonymizer.disassociation.split_refine`) are shuffled by the ``"pool"`` stream (spawn key ``(3,)``).
"""

from __future__ import annotations

import argparse
import secrets

import numpy as np

from corpora.common.errors import InputError

__all__ = ["SEED_BITS", "STREAMS", "new_seed", "check_seed", "resolve_seed", "generator", "part_seed", "seed_argument"]

SEED_BITS = 128
"""Seeds are integers in ``0 .. 2**SEED_BITS - 1``; :func:`new_seed` draws all of the bits."""

STREAMS: dict[str, tuple[int, ...]] = {"publish": (), "safe": (1,), "pool": (3,)}
"""Purpose -> ``SeedSequence`` spawn key of its generator."""


def new_seed() -> int:
    """A fresh seed from the operating system's entropy (``secrets.randbits(SEED_BITS)``)."""
    return secrets.randbits(SEED_BITS)


def check_seed(seed: object, what: str = "seed") -> int:
    """``seed`` as an int, or :class:`InputError` unless it is an integer in ``0 .. 2**128 - 1``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"{what} must be an integer >= 0, got {seed!r}"[:200])
    value = int(seed)
    if value < 0 or value.bit_length() > SEED_BITS:
        shown = str(value) if value.bit_length() <= 256 else f"a {value.bit_length()}-bit integer"
        raise InputError(f"{what} must be an integer from 0 to 2**{SEED_BITS} - 1, got {shown}")
    return value


def resolve_seed(seed: object | None, what: str = "seed") -> int:
    """The seed to use: a fresh :func:`new_seed` for ``None``, else ``seed`` checked."""
    return new_seed() if seed is None else check_seed(seed, what)


def generator(seed: int, purpose: str) -> np.random.Generator:
    """The PCG64 generator of ``purpose`` (a key of :data:`STREAMS`) under ``seed``."""
    sequence = np.random.SeedSequence(check_seed(seed), spawn_key=STREAMS[purpose])
    return np.random.Generator(np.random.PCG64(sequence))


def part_seed(seed: int, index: int) -> int:
    """The secret seed of part ``index`` of a split run (:mod:`anonymizer.disassociation.parts`), derived from ``seed``.

    128 bits of ``SeedSequence(seed, spawn_key=(2, index))``: the same for every executor, so a
    run on Dask and a run in one process give the same bytes; never written anywhere, since the
    owner's seed in the truth file gives it back.
    """
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
        raise ValueError(f"part index must be an integer >= 0, got {index!r}")
    words = np.random.SeedSequence(check_seed(seed), spawn_key=(2, int(index))).generate_state(4, dtype=np.uint32)
    return sum(int(w) << (32 * i) for i, w in enumerate(words.tolist()))


def seed_argument(text: str) -> int:
    """``argparse`` type of a ``--seed`` option: a non-negative integer below ``2**128``."""
    try:
        value = int(text, 10)
    except ValueError:
        value = None
    if value is None or value < 0 or value.bit_length() > SEED_BITS:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer below 2**{SEED_BITS}, got {text[:40]!r}")
    return value
