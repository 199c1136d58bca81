"""An independent checker of a ``generalized/1`` release (Apriori's k^m-anonymity by generalization).

It shares no code with the engine (:mod:`anonymizer.baselines.apriori`) or its loader: it reads the JSON
object itself and checks, with its own parent-pointer walks and a brute-force count,

* structure: the hierarchy's nodes (unique labels, the root first, every parent an earlier node),
  the ``generalized`` nodes (known, internal, none under another), every record a list of
  distinct known labels;
* the *global full-subtree recoding*: for ``apriori``, every published item is a generalized
  node or a leaf that lies under none; for ``diffpart``, every item is a leaf;
* **k^m-anonymity** (Terrovitis2012 section 2) for ``apriori``: every itemset of 1..m published
  items that some record holds is held by at least ``params.k`` records. Brute force: the
  distinct records are counted first, then every combination of each distinct record is added
  with its multiplicity (:func:`anonymizer.model.conditions.itemset_supports`).

DiffPart's guarantee (differential privacy) is a property of the random process, not of its
output, so only the structure of a ``diffpart`` release is checked; the report says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anonymizer.model.conditions import itemset_supports, supports_below
from corpora.common.errors import InputError

__all__ = ["GeneralizedVerifyReport", "verify_generalized", "km_violations_brute"]

MAX_NAMED = 5


@dataclass
class GeneralizedVerifyReport:
    """Result of :func:`verify_generalized`: ``ok`` exactly when ``violations`` is empty."""

    ok: bool
    method: str
    violations: list[str] = field(default_factory=list)
    records: int = 0
    distinct_records: int = 0
    itemsets_checked: int = 0
    k: int | None = None
    m: int | None = None
    note: str = ""

    def summary(self) -> str:
        what = (f"{self.method}: {self.records} records, {self.distinct_records} distinct, "
                f"{self.itemsets_checked} itemsets of 1..m checked")
        if self.note:
            what += f"; {self.note}"
        return f"OK ({what})" if self.ok else f"{len(self.violations)} violation(s) ({what})"


def km_violations_brute(records: list[tuple[str, ...]], k: int,
                        m: int) -> tuple[list[tuple[tuple[str, ...], int]], int]:
    """Every itemset of 1..m items held by 1..k-1 records (with its support), and how many itemsets occur."""
    counts = itemset_supports(records, m)  # Terrovitis2012's k^m-anonymity (anonymizer.model.conditions)
    return supports_below(counts, k), len(counts)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _header(obj: Any, source: str, out: list[str]) -> tuple[str, Any, Any]:
    """The method and the parameters k, m (Apriori's must be valid; a published seed is a violation)."""
    if not isinstance(obj, Mapping) or obj.get("format") != "generalized/1":
        raise InputError(f"{source}: not a generalized/1 release")
    method = obj.get("method")
    if method not in ("apriori", "diffpart"):
        raise InputError(f"{source}: 'method' must be apriori or diffpart")
    params = obj.get("params")
    if not isinstance(params, Mapping):
        raise InputError(f"{source}: 'params' must be an object")
    if "seed" in params:
        out.append("params.seed: the release publishes its seed (anyone could recompute the random choices)")
    k = params.get("k")
    m = params.get("m")
    if method == "apriori" and (not _int(k) or k < 2 or not _int(m) or m < 1):
        raise InputError(f"{source}: params.k must be an integer >= 2 and params.m an integer >= 1")
    return method, k, m


def _parents(obj: Mapping, source: str) -> dict[str, str | None]:
    """label -> parent label (None for the root) of the inline hierarchy, checked node by node."""
    hier = obj.get("hierarchy")
    nodes = hier.get("nodes") if isinstance(hier, Mapping) else None
    if not isinstance(nodes, list) or not nodes:
        raise InputError(f"{source}: 'hierarchy.nodes' must be a non-empty list")
    parent: dict[str, str | None] = {}
    labels: list[str] = []
    for i, entry in enumerate(nodes):
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str) or not entry[0]:
            raise InputError(f"{source}: hierarchy.nodes[{i}] must be [label, parent index or null]")
        label, p = entry
        if label in parent:
            raise InputError(f"{source}: hierarchy.nodes[{i}]: label {label!r} appears twice")
        if p is None and i == 0:
            parent[label] = None
        elif _int(p) and 0 <= p < i:
            parent[label] = labels[p]
        else:
            raise InputError(f"{source}: hierarchy.nodes[{i}]: the parent must be an earlier node (the root first)")
        labels.append(label)
    return parent


@dataclass
class _Cut:
    """The hierarchy (parent pointers) and the generalized nodes of the global cut."""

    parent: dict[str, str | None]
    has_child: set[str]
    gen_set: set[str]

    def covering(self, label: str) -> list[str]:
        """The generalized nodes among the strict ancestors of ``label``."""
        found = []
        node = self.parent.get(label)
        while node is not None:
            if node in self.gen_set:
                found.append(node)
            node = self.parent[node]
        return found

    def judge(self, t: str, method: str) -> str | None:
        """Why item ``t`` breaks the global full-subtree recoding, or None when it does not."""
        if t not in self.parent:
            return "is not in the hierarchy"
        if method == "diffpart":
            return None if t not in self.has_child else "is not a leaf"
        if t in self.gen_set:
            return None
        if t in self.has_child:
            return "is an internal node that is not in 'generalized'"
        return None if not self.covering(t) else f"is a leaf under generalized node {self.covering(t)[0]!r}"


def _cut(obj: Mapping, parent: dict[str, str | None], method: str, source: str, out: list[str]) -> _Cut:
    """Check the ``generalized`` nodes: known, internal, none under another; none for DiffPart."""
    has_child = {p for p in parent.values() if p is not None}
    gen = obj.get("generalized", [])
    if not isinstance(gen, list) or not all(isinstance(g, str) for g in gen):
        raise InputError(f"{source}: 'generalized' must be a list of labels")
    for g in gen:
        if g not in parent:
            out.append(f"generalized node {g!r} is not in the hierarchy")
        elif g not in has_child:
            out.append(f"generalized node {g!r} is a leaf")
    if method == "diffpart" and gen:
        out.append("a diffpart release generalizes no node, but 'generalized' is not empty")
    cut = _Cut(parent, has_child, set(gen))
    for g in sorted(cut.gen_set & set(parent)):
        above = cut.covering(g)
        if above:
            out.append(f"generalized nodes {g!r} and {above[0]!r} overlap (one lies under the other)")
    return cut


def _records(obj: Mapping, cut: _Cut, method: str, source: str, out: list[str]) -> list[tuple[str, ...]]:
    """The records, each item judged once (at most about 50 violations listed)."""
    raw = obj.get("records")
    if not isinstance(raw, list):
        raise InputError(f"{source}: 'records' must be a list")
    records: list[tuple[str, ...]] = []
    judged: dict[str, str | None] = {}
    for i, rec in enumerate(raw):
        if not isinstance(rec, list) or not all(isinstance(t, str) for t in rec):
            raise InputError(f"{source}: records[{i}] must be a list of labels")
        if len(set(rec)) != len(rec):
            out.append(f"records[{i}] repeats an item")
        for t in rec:
            if t not in judged:
                judged[t] = cut.judge(t, method)
            if judged[t]:
                out.append(f"records[{i}]: item {t!r} {judged[t]} (not a global full-subtree recoding)")
        records.append(tuple(rec))
        if len(out) > 50:
            out.append("... more violations not listed")
            break
    return records


def _check_km(report: GeneralizedVerifyReport, records: list[tuple[str, ...]], k: int, m: int,
              out: list[str]) -> None:
    """k^m-anonymity by brute force (Terrovitis2012 section 2), the first ``MAX_NAMED`` violations named."""
    bad, n_itemsets = km_violations_brute(records, k, m)
    report.itemsets_checked = n_itemsets
    for itemset, n in bad[:MAX_NAMED]:
        out.append(f"k^m: itemset {{{', '.join(itemset)}}} is held by {n} record(s), fewer than k={k}")
    if len(bad) > MAX_NAMED:
        out.append(f"k^m: ... and {len(bad) - MAX_NAMED} more such itemsets")


def verify_generalized(obj: Any, source: str = "release") -> GeneralizedVerifyReport:
    """Check a parsed ``generalized/1`` object; :class:`InputError` if it is not one at all."""
    out: list[str] = []
    method, k, m = _header(obj, source, out)
    parent = _parents(obj, source)
    cut = _cut(obj, parent, method, source, out)
    records = _records(obj, cut, method, source, out)
    report = GeneralizedVerifyReport(ok=False, method=str(method), records=len(records),
                                     distinct_records=len(set(records)), k=k if _int(k) else None,
                                     m=m if _int(m) else None)
    if method == "apriori":
        _check_km(report, records, k, m, out)
    else:
        report.note = "differential privacy is a property of the noise, not checkable from the output"
    report.violations = out
    report.ok = not out
    return report
