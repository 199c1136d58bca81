"""Brute-force search for releases that break Terrovitis2012's Guarantee 1 (issue 9).

A helper shared by ``tests/test_guarantee_golden.py`` and ``tests/test_guarantee_properties.py``
(pytest does not collect it: its name does not start with ``test_``) and a standalone script::

    PYTHONPATH=$PWD python tests/guarantee_search.py [--releases 3000] [--seed 0]

The script disassociates random tiny datasets (4-10 records over 3-7 terms) with random
parameters (every HORPART strategy, VERPART variant, REFINE on/off, safe on/off, k in 2..3, m in
1..3, maximum cluster size in k..2k+2) and asks the exhaustive oracle of
``tests/reconstruction_oracle.py`` three questions about each release: does a valid reconstruction
exist, does Guarantee 1 hold, and is the truth (the records behind the release) itself a valid
reconstruction. It prints how many releases it checked and how many broke, with the first broken
cases as reproducible parameter lines.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reconstruction_oracle import (  # noqa: E402
    TooLarge,
    guarantee1_violations,
    is_valid_reconstruction,
    truth_records,
)

from anonymizer.disassociation.horpart import HORPART_STRATEGIES  # noqa: E402
from anonymizer.disassociation.pipeline import disassociate  # noqa: E402
from anonymizer.disassociation.safe import TARGETS, safe_disassociate  # noqa: E402
from anonymizer.disassociation.verpart import VERPART_STRATEGIES  # noqa: E402
from corpora.dataset import TransactionDataset  # noqa: E402


@dataclass(frozen=True)
class Case:
    """One disassociation run on a tiny dataset."""

    records: tuple[tuple[str, ...], ...]
    k: int
    m: int
    max_cluster_size: int
    horpart: str
    verpart: str
    refine: bool
    safe: bool
    seed: int
    targets: str = "linkable"
    """Which chunks safe disassociation treats (anonymizer.disassociation.safe.TARGETS)."""

    def describe(self) -> str:
        recs = ",".join("{" + ",".join(r) + "}" for r in self.records)
        return (f"{recs} -k {self.k} -m {self.m} --max-cluster-size {self.max_cluster_size} "
                f"--horpart {self.horpart} --verpart {self.verpart}"
                + ("" if self.refine else " --no-refine")
                + (f" --safe --safe-targets {self.targets}" if self.safe else "")
                + f" --seed {self.seed}")


@dataclass
class Verdict:
    """What the oracle says about one release."""

    feasible: bool
    violations: list[tuple[frozenset, int]]
    truth_valid: bool
    joint: bool

    @property
    def ok(self) -> bool:
        return self.feasible and not self.violations and self.truth_valid


def release_of(case: Case) -> tuple[dict, dict]:
    """The release and truth of ``case`` as plain JSON objects."""
    ds = TransactionDataset.from_records([set(r) for r in case.records])
    rel, tru = disassociate(ds, case.k, case.m, case.max_cluster_size, case.horpart, case.verpart,
                            case.refine, case.seed)
    if case.safe:
        rel, tru = safe_disassociate(rel, tru, seed=case.seed, targets=case.targets)
    return json.loads(json.dumps(rel.to_dict())), json.loads(json.dumps(tru.to_dict()))


LIMIT = 20_000
"""Distinct partial reconstructions the oracle may hold per step before giving up (TooLarge)."""


def judge(case: Case, limit: int = LIMIT) -> Verdict:
    """Run ``case`` and ask the oracle (raises :class:`TooLarge` on a release too big to enumerate).

    The truth check enumerates the same states as the Guarantee 1 check, so ``limit`` bounds both.
    """
    rel, tru = release_of(case)
    feasible, bad = guarantee1_violations(rel, limit=limit)
    truth_ok = is_valid_reconstruction(rel, truth_records(rel, tru))
    return Verdict(feasible, bad, truth_ok, bool(rel["joint_clusters"]))


def random_case(rng: np.random.Generator) -> Case:
    """A random tiny dataset (4-10 records over 3-7 terms) with random parameters."""
    n = int(rng.integers(4, 11))
    vocab = [chr(ord("a") + i) for i in range(int(rng.integers(3, 8)))]
    records = []
    for _ in range(n):
        size = int(rng.integers(1, min(4, len(vocab)) + 1))
        records.append(tuple(sorted(rng.choice(vocab, size=size, replace=False).tolist())))
    k = int(rng.integers(2, 4))
    m = int(rng.integers(1, 4))
    horpart = str(rng.choice(HORPART_STRATEGIES))
    smallest = k if horpart == "abandon" else 2 * k - 1  # the bounded strategies need max >= 2k - 1
    return Case(tuple(records), k, m, int(rng.integers(smallest, 2 * k + 3)), horpart,
                str(rng.choice(VERPART_STRATEGIES)), bool(rng.integers(2)), bool(rng.integers(2)),
                int(rng.integers(0, 1000)), str(rng.choice(TARGETS)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--releases", type=int, default=3000, help="random releases to check (default 3000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random cases (default 0)")
    p.add_argument("--show", type=int, default=10, help="broken cases to print (default 10)")
    args = p.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    checked = broken = too_large = joint = 0
    kinds = {"no valid reconstruction": 0, "Guarantee 1": 0, "truth not valid": 0}
    start = time.perf_counter()
    while checked < args.releases:
        case = random_case(rng)
        try:
            verdict = judge(case)
        except TooLarge:
            too_large += 1
            continue
        checked += 1
        joint += verdict.joint
        if verdict.ok:
            continue
        broken += 1
        kinds["no valid reconstruction"] += not verdict.feasible
        kinds["Guarantee 1"] += bool(verdict.violations)
        kinds["truth not valid"] += not verdict.truth_valid
        if broken <= args.show:
            print(f"BROKEN: {case.describe()}: feasible={verdict.feasible} "
                  f"violations={[(sorted(s), n) for s, n in verdict.violations]} truth_valid={verdict.truth_valid}")
    print(f"checked {checked} random releases ({joint} with joint clusters; {too_large} too large to enumerate, "
          f"skipped) in {time.perf_counter() - start:.1f} s: {broken} broken "
          + ", ".join(f"{name} {n}" for name, n in kinds.items()))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
