"""Disassociation of set-valued data (Terrovitis2012, AlShuhail2021 ch. 3, Awad2019)."""

from anonymizer.release import Cluster, JointCluster, Release, Truth, load_release, load_truth, save_release, save_truth

__all__ = ["Cluster", "JointCluster", "Release", "Truth", "load_release", "load_truth", "save_release", "save_truth"]
