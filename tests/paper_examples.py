"""Releases of the papers' worked examples, shared by the test modules.

The original records of these examples live in :mod:`corpora.synthetic.toy` (``toy_dataset(name)``).
"""

from anonymizer.model.release import Cluster, Release


def fig2b() -> Release:
    """Terrovitis2012 Figure 2b: the 3^2-anonymous disassociation of Figure 2a (two clusters of 5)."""
    p1 = Cluster("P1", 5, [
        [("flu", "itunes", "madonna"), ("flu", "madonna"), ("itunes", "madonna"), ("flu", "itunes"),
         ("flu", "itunes", "madonna")],
        [("audi a4", "sony tv")] * 3,
    ], ["ikea", "ruby", "viagra"])
    p2 = Cluster("P2", 5, [[
        ("digital camera", "madonna"), ("iphone sdk", "madonna"), ("digital camera", "iphone sdk", "madonna"),
        ("digital camera", "iphone sdk"), ("digital camera", "iphone sdk", "madonna"),
    ]], ["ikea", "panic disorder", "playboy", "ruby"])
    return Release({"k": 3, "m": 2}, [p1, p2])
