"""Issue 22, "nothing falsely certified": ``verify`` says OK only when Guarantee 1 is proven.

Every component is searched exactly or passes :func:`anonymizer.evaluation.exact.prove_component`, a
sufficient condition with a proof; else it is "unproven" and the verdict is not OK. These tests
hold the verdict and the condition against the exhaustive oracle of tests/reconstruction_oracle.py.
"""

from __future__ import annotations

import importlib
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reconstruction_oracle import guarantee1_violations, release_dict
from release_strategies import near_anonymous_releases, tamper, tiny_releases

from anonymizer.__main__ import main as anonymizer_main
from anonymizer.disassociation.pipeline import disassociate
from anonymizer.evaluation.exact import build_components, prove_component
from anonymizer.evaluation.verify import verify
from anonymizer.model.release import Release, Truth
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

verify_module = importlib.import_module("anonymizer.evaluation.verify")  # the package exports the function as .verify


def _oracle_ok(obj: dict) -> bool:
    feasible, bad = guarantee1_violations(obj, limit=2_000_000)
    return feasible and not bad


# ---- the tampered class of the issue ------------------------------------------------------------

def two_seven_record_clusters() -> dict:
    """Two 7-record clusters whose records all hold x, joined by a shared chunk [[x, y], [x, y]]:
    x is listed by both leaves, so no shared sub-record can land anywhere."""
    return release_dict([("P1", 7, [[["x"]] * 7], []), ("P2", 7, [[["x"]] * 7], [])],
                        [("J1", ["P1", "P2"], [[["x", "y"]] * 2])], k=2, m=2)


def nested_joint() -> dict:
    """The same under a nested joint cluster: the upper shared chunk [[x, z]] x2 fits no leaf."""
    return release_dict([("P1", 5, [[["x"]] * 5], []), ("P2", 5, [[["x"]] * 5], []), ("P3", 5, [[["x"]] * 5], [])],
                        [("J0", ["P1", "P2"], [[["y"]] * 3]), ("J1", ["J0", "P3"], [[["x", "z"]] * 2])], k=2, m=2)


@pytest.mark.parametrize("make", [two_seven_record_clusters, nested_joint])
@pytest.mark.parametrize("max_records", [0, 12, 100])
def test_impossible_releases_are_never_ok(make, max_records):
    obj = make()
    assert not _oracle_ok(obj)
    report = verify(obj, exact_max_records=max_records)
    assert not report.ok
    assert any("no valid reconstruction" in v for v in report.violations), report.violations


def _small_releases() -> list[dict]:
    """Releases the engine makes on small skewed datasets (with joint clusters among them)."""
    rng = random.Random(5)
    out = []
    for i in range(30):
        terms = [f"t{j}" for j in range(8)]
        records = [frozenset(terms[min(rng.randrange(8), rng.randrange(8))] for _ in range(rng.randint(1, 4)))
                   for _ in range(rng.randint(6, 12))]
        release, _ = disassociate(TransactionDataset.from_records(records), 2, rng.choice([1, 2]), 4, seed=i)
        out.append(release.to_dict())
    return out


def _tampered() -> list[dict]:
    rng = random.Random(22)
    base = _small_releases()
    out = []
    while len(out) < 120:
        # an empty shared chunk left behind is dropped: over overlapping terms it is a structural violation anyway
        obj = tamper(rng.choice(base), rng, drop_empty_shared=True)
        try:
            verify(obj)
        except InputError:
            continue
        out.append(obj)
    return out


TAMPERED = _tampered()


@pytest.mark.parametrize("index", range(len(TAMPERED)))
def test_tampered_releases_are_ok_only_when_the_oracle_agrees(index):
    obj = TAMPERED[index]
    oracle = _oracle_ok(obj)
    for max_records in (0, 12):  # 0: every component is left to the proven condition first
        report = verify(obj, exact_max_records=max_records)
        if report.ok:
            assert oracle, (max_records, json.dumps(obj))
        if not oracle:
            assert not report.ok


def test_the_engines_small_releases_are_proven_without_the_size_rule():
    for obj in _small_releases():
        assert _oracle_ok(obj)
        report = verify(obj, exact_max_records=0)
        assert report.unproven == [], report.unproven


# ---- the condition against the oracle -----------------------------------------------------------

def _components(obj: dict):
    return build_components([(c["id"], c["size"], c["record_chunks"], c["term_chunk"]) for c in obj["clusters"]],
                            [(j["id"], j["children"], j["shared_chunks"]) for j in obj["joint_clusters"]])


def _only(obj: dict, comp) -> dict:
    return {**obj, "clusters": [c for c in obj["clusters"] if c["id"] in comp.members],
            "joint_clusters": [j for j in obj["joint_clusters"] if j["id"] in comp.members]}


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(obj=st.one_of(near_anonymous_releases(), tiny_releases(max_size=5)))
def test_the_proven_condition_implies_guarantee1(obj):
    """prove_component passes => the oracle finds a valid reconstruction and no itemset below k."""
    k, m = obj["params"]["k"], obj["params"]["m"]
    for comp in _components(obj):
        if prove_component(comp, k, m) is None:
            assert _oracle_ok(_only(obj, comp)), json.dumps(_only(obj, comp))


# ---- unproven -------------------------------------------------------------------------------------

def unprovable() -> dict:
    """Guarantee 1 holds, but the condition fails: the shared u's may go to P1 only and fill it,
    so the two s's of the same shared chunk can sit on P2 only; the condition asks for k=2 s's on
    P1, whose terms do not forbid them there."""
    return release_dict([("P1", 2, [[["a"]] * 2], []), ("P2", 2, [[["u"]] * 2], [])],
                        [("J1", ["P1", "P2"], [[["u"], ["u"], ["s"], ["s"]]])], k=2, m=2)


def test_unproven_is_not_ok_and_exits_3(tmp_path, monkeypatch, capsys):
    obj = unprovable()
    assert _oracle_ok(obj)
    assert verify(obj).ok  # 4 records: searched exactly
    assert verify(obj, exact_max_records=0).ok  # the condition fails, the fallback search decides
    monkeypatch.setattr(verify_module, "FALLBACK_SPREADS", 0)
    report = verify(obj, exact_max_records=0)
    assert not report.ok and report.violations == [] and report.components_unproven == 1
    assert report.unproven[0].startswith("joint cluster J1: unproven: the sufficient condition fails")
    assert report.summary().startswith("unproven: 1 line(s), no violation found")
    path = tmp_path / "r.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    assert anonymizer_main(["verify", str(path), "--exact-max-records", "0"]) == 3
    out = capsys.readouterr().out
    assert "joint cluster J1: unproven" in out and "OK" not in out


def test_audit_fails_an_unproven_release(monkeypatch):
    from attacks.auditing import audit

    monkeypatch.setattr(verify_module, "FALLBACK_SPREADS", 0)
    monkeypatch.setattr(verify_module.verify, "__defaults__", (False, 0, "release"))
    report = audit(Release.from_dict(unprovable()), max_pem=None, max_vulnerable=None)
    g1 = next(c for c in report.checks if c.name == "Guarantee 1")
    assert g1.status == "fail" and "unproven" in g1.detail and "violation(s)" not in g1.detail


# ---- seeds ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["seed", "safe_seed"])
def test_a_seed_in_a_release_is_an_error_in_both_parsers(key):
    obj = release_dict([("P1", 2, [[["a"]] * 2], [])], k=2, m=1)
    obj["params"][key] = 7
    with pytest.raises(InputError, match=f"params.{key} is a seed"):
        verify(obj)
    with pytest.raises(InputError, match=f"params.{key} is a seed"):
        Release.from_dict(obj)
    truth = Truth([], [], seed=7, safe_seed=8)  # a truth file keeps its seeds
    assert Truth.from_dict(json.loads(json.dumps(truth.to_dict()))) == truth
