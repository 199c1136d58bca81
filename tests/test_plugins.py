"""One extension point: registries, and a third-party plugin installed through entry points and run in a sweep."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpora.common.errors import InputError
from corpora.common.plugins import Registry
from experiments.plugins import all_metrics
from experiments.registry import ANONYMIZERS, ATTACKS, SCORERS

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "docs" / "examples" / "plugin"


def test_registry_registers_gets_and_names_the_known_ones():
    reg: Registry[int] = Registry("widget")
    reg.register("a", 1)
    reg.register("b", 2)
    assert reg.get("b") == 2 and reg.names() == ("a", "b") and "a" in reg
    with pytest.raises(InputError, match=r"^unknown widget 'c'; known: a, b$"):
        reg.get("c")
    with pytest.raises(ValueError, match="registered twice"):
        reg.register("a", 3)


def test_builtins_are_registered_and_declare_their_metrics():
    assert ANONYMIZERS.names()[:3] == ("disassociation", "apriori", "diffpart")
    assert ATTACKS.names()[:2] == ("cover", "semantic")
    assert SCORERS.names()[:4] == ("hybrid", "glove", "wordnet", "ngd")
    metrics = all_metrics()
    assert {m.name for m in ATTACKS.get("cover").metrics} <= set(metrics)
    assert metrics["pem"].step == "cover" and metrics["accuracy"].step == "semantic"
    assert list(metrics)[:2] == ["anonymize_seconds", "clusters"]


def _install(site: Path) -> None:
    """Install the example plugin into ``site`` as a distribution ``importlib.metadata`` finds."""
    shutil.copytree(PLUGIN / "example_attack", site / "example_attack")
    info = site / "example_attack-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: example_attack\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[disassociation_workbench.attacks]\nexample = example_attack:ATTACK\n\n"
        "[disassociation_workbench.anonymizers]\nexample_passthrough = example_attack:ANONYMIZER\n",
        encoding="utf-8")


def test_an_installed_plugin_runs_in_a_sweep(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(site), str(ROOT),
                                                                 os.environ.get("PYTHONPATH", "")) if p))
    cmd = [sys.executable, "-m", "experiments.run", str(PLUGIN / "sweep.yaml"), "--results", str(tmp_path / "r"),
           "--no-plots"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "r" / "plugin-example" / "results.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    attack = [r for r in rows if r["metric"] == "example_term_chunk_terms"]
    assert len(attack) == 1 and attack[0]["attack"] == "example" and float(attack[0]["value"]) >= 0
    assert float(attack[0]["value"]) % 2 == 0  # the option scale: 2 reached the attack
    passthrough = [r for r in rows if r["metric"] == "example_distinct_terms"]
    assert len(passthrough) == 1 and passthrough[0]["anonymizer"] == "example_passthrough"
    assert float(passthrough[0]["value"]) == 12  # terrovitis2012-fig2 has 12 distinct terms
    # without the plugin, the sweep file names an unknown anonymizer: one line, exit status 2
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 2 and "grid.anonymizer[1]: 'example_passthrough' is not allowed" in proc.stderr
