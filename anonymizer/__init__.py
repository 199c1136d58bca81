"""Disassociation of set-valued data (Terrovitis2012, AlShuhail2021 ch. 3, Awad2019).

The Python API, in the order a data owner uses it::

    from corpora import load_dataset
    from anonymizer import safe_disassociate
    from anonymizer import disassociate
    from anonymizer import verify
    from anonymizer import reconstruct
    ds = load_dataset("terrovitis2012-fig2")            # or read_dataset("orders.csv", user_column=...)
    release, truth = disassociate(ds, k=3, m=2)          # max_cluster_size defaults to max(30, 2k - 1)
    safe, safe_truth = safe_disassociate(release, truth) # Awad2019 (or disassociate(..., safe=True))
    verify(safe).ok                                      # the independent check of Guarantee 1
    sample = reconstruct(safe, seed=1)                   # one dataset of the inverse transformation
    save_release(safe, "release.json"); save_truth(safe_truth, "truth.json")   # never publish the truth
    save_release_parquet(safe, "release.parquet")       # the columnar form; load_release reads both

The names are loaded on first use, so ``import anonymizer`` stays cheap (numpy, scipy and the
engine load when a function is first asked for). No package attribute shadows a module: the
modules live in the role subpackages (``anonymizer.model``, ``.io``, ``.disassociation``,
``.baselines``, ``.evaluation``, ``.cli``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "DEFAULT_MAX_CLUSTER_SIZE": "anonymizer.disassociation.pipeline",
    "disassociate": "anonymizer.disassociation.pipeline",
    "safe_disassociate": "anonymizer.disassociation.safe",
    "safe_disassociate_report": "anonymizer.disassociation.safe",
    "reconstruct": "anonymizer.evaluation.reconstruct",
    "utility_report": "anonymizer.evaluation.utility",
    "VerifyReport": "anonymizer.evaluation.verify",
    "verify": "anonymizer.evaluation.verify",
    "save_release_parquet": "anonymizer.io.parquet",
    "load_release": "anonymizer.io.release_files",
    "load_truth": "anonymizer.io.release_files",
    "save_release": "anonymizer.io.release_files",
    "save_truth": "anonymizer.io.release_files",
    "save_truth_parquet": "anonymizer.io.truth_parquet",
    "Cluster": "anonymizer.model.release",
    "JointCluster": "anonymizer.model.release",
    "Release": "anonymizer.model.release",
    "Truth": "anonymizer.model.release",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'anonymizer' has no attribute {name!r}") from None
    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
