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

The function names are also submodule names (``anonymizer.disassociation.pipeline``, ``anonymizer.evaluation.verify``,
``anonymizer.evaluation.reconstruct``): here the package attribute is the function; import the module with
``importlib.import_module("anonymizer.evaluation.verify")`` when you need it.
"""

from anonymizer.disassociation.pipeline import DEFAULT_MAX_CLUSTER_SIZE, disassociate
from anonymizer.disassociation.safe import safe_disassociate, safe_disassociate_report
from anonymizer.evaluation.reconstruct import reconstruct
from anonymizer.evaluation.utility import utility_report
from anonymizer.evaluation.verify import VerifyReport, verify
from anonymizer.io.parquet import save_release_parquet
from anonymizer.io.release_files import load_release, load_truth, save_release, save_truth
from anonymizer.io.truth_parquet import save_truth_parquet
from anonymizer.model.release import Cluster, JointCluster, Release, Truth

__all__ = ["DEFAULT_MAX_CLUSTER_SIZE", "Cluster", "JointCluster", "Release", "Truth", "VerifyReport", "disassociate",
           "load_release", "load_truth", "reconstruct", "safe_disassociate", "safe_disassociate_report",
           "save_release", "save_release_parquet", "save_truth", "save_truth_parquet", "utility_report", "verify"]
