"""DiffPart: noise calibrated to the budget share, the budget split, seed determinism, no seed published."""

from __future__ import annotations

import json

import numpy as np
import pytest

from anonymizer.baselines.diffpart import DiffPartParams, diffpart, laplace_noise, run_diffpart
from anonymizer.baselines.generalized import GeneralizedRelease
from anonymizer.baselines.hierarchy import balanced_hierarchy, parse_hierarchy_text
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset


@pytest.mark.parametrize("share", [0.25, 0.5, 1.25])
def test_laplace_noise_variance_matches_the_budget_share(share):
    rng = np.random.default_rng(0)
    noise = laplace_noise(400_000, share, rng)
    assert noise.var() == pytest.approx(2 * (1.0 / share) ** 2, rel=0.03)
    assert abs(noise.mean()) < 0.05 / share


def test_published_count_variance_matches_the_leaf_budget():
    # root with two leaves: one expansion (n = 1 internal node) spends all of the partitioning half,
    # eps_u = epsilon / 2; the leaf partitions count with epsilon / 2 + 0 left over.
    # Published {a} records: round(800 + Laplace(2 / epsilon)); variance 2 * (2 / epsilon)^2 + 1/12 (rounding).
    h = parse_hierarchy_text("a;*\nb;*\n")
    ds = TransactionDataset.from_records([["a"]] * 800 + [["b"]] * 600 + [["a", "b"]] * 700)
    epsilon = 1.0
    counts = []
    for seed in range(2500):
        rel, _ = diffpart(ds, h, epsilon, seed=seed)
        counts.append(sum(1 for r in rel.records if r == ("a",)))
    counts = np.asarray(counts, dtype=float)
    expected = 2 * (1.0 / (epsilon / 2)) ** 2 + 1 / 12
    assert counts.mean() == pytest.approx(800, abs=0.3)
    assert counts.var() == pytest.approx(expected, rel=0.15)


def test_budget_is_spread_over_the_expansions_ahead():
    # a three-level tree: the root's cut can be expanded 1 + 2 = 3 times on a path, so the first
    # expansion spends (epsilon/2)/3; the threshold 2*sqrt(2)*3/(epsilon/2) = 17 with epsilon = 1.
    h = balanced_hierarchy(["1", "2", "3", "4"], 2)  # * -> {1..2, 3..4}
    ds = TransactionDataset.from_records([["1"]] * 10 + [["3"]] * 10)
    passed = 0
    for seed in range(300):
        st = run_diffpart(ds, h, DiffPartParams(1.0, h.source), seed=seed).stats
        passed += st.expansions > 1
    # a count of 10 passes 17 only with noise >= 7 at scale 6: P = exp(-7/6)/2 = 0.16 (each of two groups)
    assert 0.1 < passed / 300 < 0.5


def test_same_seed_same_bytes_and_no_seed_in_the_release():
    ds = TransactionDataset.from_records([[str(i % 7), str(i % 5 + 7)] for i in range(400)])
    h = balanced_hierarchy(ds.vocabulary, 3)
    a, owner = diffpart(ds, h, 1.0, seed=123456789)
    b, _ = diffpart(ds, h, 1.0, seed=123456789)
    c, _ = diffpart(ds, h, 1.0, seed=987654321)
    ja, jb, jc = (json.dumps(r.to_dict()) for r in (a, b, c))
    assert ja == jb and ja != jc
    assert owner.seed == 123456789
    assert "123456789" not in ja and "seed" not in ja
    assert GeneralizedRelease.from_json(json.loads(ja)).records == a.records


def test_parameters_are_checked():
    ds = TransactionDataset.from_records([["a"], ["b"]])
    h = balanced_hierarchy(ds.vocabulary, 2)
    with pytest.raises(InputError, match="epsilon"):
        diffpart(ds, h, 0.0, seed=1)
    wide = balanced_hierarchy([str(i) for i in range(40)], 40)
    with pytest.raises(InputError, match="children"):
        diffpart(TransactionDataset.from_records([["1"]]), wide, 1.0, seed=1)
