"""An independent checker of a disassociated release: Terrovitis2012's Guarantee 1 (sections 2, 3, 5).

This module shares no code with the engine's algorithms (an import contract in ``pyproject.toml``,
checked by ``lint-imports`` in CI, forbids it and the modules it uses to import
:mod:`anonymizer.disassociation` or :mod:`anonymizer.baselines`, even indirectly): it reads the
release file itself (strictly, :mod:`anonymizer.evaluation.verify_parse`), decides the chunk
conditions with the papers' definitions as written (:mod:`anonymizer.model.conditions`: every
itemset of size 1..m of every sub-record is counted; the engine's fast paths are property-tested
against the same definitions), and searches small components exactly
(:mod:`anonymizer.evaluation.exact`), so the tests can use it as a reference against the engine.

**Sufficient conditions** (Terrovitis2012 section 5, Lemmas 1-3 show they give Guarantee 1). The
chunk conditions are checked everywhere; Lemma 2, a condition on the cluster size only ("It
suffices to enforce the condition of the following lemma", section 5), is reported for the
clusters of components that are not searched exactly: where the exact search runs, it decides
Guarantee 1 itself (a leaf that fails Lemma 2 but that shared sub-records can fill is no breach,
and one that cannot be filled shows up as an itemset below k or as "no valid reconstruction").

* **k^m-anonymous record chunks** (section 3, "Vertical partitioning"; Lemma 1): every itemset of
  at most m terms that appears in a record chunk appears in at least k of its sub-records.
* **Lemma 2** for *every* cluster, the leaves of joint clusters included: in a cluster of size s
  with record chunks C_1..C_v, the listed sub-records number at least ``s + k * (h - 1)`` with
  ``h = min(m, v)``, or the *published* term chunk is non-empty (a cluster without record chunks
  is read with h = 1: it needs a non-empty term chunk). The lemma is stated for the chunks a
  reader sees, and its proof fills the records with the cluster's own sub-records and term-chunk
  terms; a term REFINE moved out of the term chunk into a shared chunk may land on another leaf
  in a valid reconstruction, so it no longer protects this cluster.
* **Property 1** (section 5) for each shared chunk of a joint cluster J: it is k^m-anonymous, and
  if it holds a term of T^r (the terms in the record chunks of J's leaves and in the shared chunks
  of J's descendant joint clusters) it is also k-anonymous: every distinct sub-record it lists
  appears at least k times.

**Exact check** (:mod:`anonymizer.evaluation.exact`): a component (a top-level joint cluster with its
leaves, or a cluster in no joint cluster) of at most ``exact_max_records`` records (default
:data:`anonymizer.evaluation.exact.EXACT_MAX_RECORDS` = 12), or every component with ``exact=True``, is
searched: a valid reconstruction must exist, and every itemset of 1..m terms that a valid
reconstruction holds must reach k records in some valid reconstruction. Supports add up over
components (they are independent), so an itemset that stays below k in the searched components
is reported unless it may also occur in a component that was not searched (that one is covered
by the sufficient conditions). With every component searched, this is Guarantee 1 exactly.
``VerifyReport`` counts the components searched and those judged by the sufficient conditions
only.

**Structure** (section 3). A document that is not a ``disassociated/1`` release at all raises
one :class:`InputError` (exit status 2 on the command line, as for every command that reads a
release): unreadable, not JSON, not an object, another format, a wrong type or range (k >= 2,
m >= 1, positive sizes adding up to at most 2**31 - 1, sub-records and term chunks as lists of
non-empty strings, the known optional parameters; a seed, ``params.seed``, ``params.safe_seed`` or
any key naming one, is refused: it replays the random choices that hide the records), a missing
key, an id that is not unique, a child not defined before its joint cluster or in two joint clusters, a chunk with more
sub-records than its cluster has records (a shared chunk: than the records of its joint
cluster's leaves). Each of the following is a violation (what the engine's own parser would
silently fix is reported, not fixed): a sub-record that repeats a term, an empty sub-record, a
term chunk that repeats a term, a key repeated in a JSON object, record-chunk term sets that
overlap within a cluster or overlap the term chunk, shared chunks of one joint cluster over
overlapping term sets. A shared-chunk term that also sits in a leaf's term chunk is allowed:
REFINE removes the refining terms from the term chunks, but the Lemma 2 repair after REFINE and
safe disassociation may move a record-chunk term of a leaf into its term chunk later. Such a
leaf's records then hold every occurrence of the term already, so no shared sub-record with it
can go there (the exact search and the sampler both apply that rule); it is no violation.
The exact search runs only on components without such violations.

**Reading.** A JSON release is parsed here, strictly. A parquet release, and a JSON release that
the fast reader of :mod:`anonymizer.io.json_fast` accepts (a plain, canonical file: no key
repeated, every sub-record's terms sorted and distinct), are read into arrays and checked by
:func:`anonymizer.model.arrays.validate` (every sub-record non-empty, sorted and distinct, every
id and offset in range), so their sub-records are not checked again one by one here; everything
else above is checked the same way for both. A release in memory (a :class:`Release` not read from
a file) is verified as the JSON it would be published as: its ``to_dict()`` encoded and offered to
the same fast reader, so it is checked exactly as its saved file would be (the object path when the
reader declines); the fast reader is offered a JSON file of any size here (:func:`verify_file`),
not only the large ones :func:`anonymizer.io.release_files.load_release` gives it, since settling
components on arrays saves more than importing pyarrow costs (kosarak10k at k=3, in memory: 0.08 s
against 0.40 s as objects).

**Settled components** (issue 25). On a release read into arrays, the components for which the
answer is known without the object model (no line to report, and the proven condition holds by a
test that implies it; :mod:`anonymizer.evaluation.verify_fast`) are counted as searched exactly or
proven, as the object path would count them, and only the other components are parsed and decided
as objects, in release order; when an itemset stays below k in one of those (deciding it needs the
whole release) or the array test does not apply, the whole release is decided as objects. The
report is the same line for line (``tests/test_perf_verify2.py``).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from anonymizer.evaluation.exact import (
    EXACT_MAX_RECORDS,
    MAX_SPREADS,
    Component,
    build_components,
    check_component,
    prove_component,
)
from anonymizer.evaluation.verify_arrays import k_anonymous_chunks, km_anonymous_chunks
from anonymizer.evaluation.verify_checks import MAX_ITEMSETS_PER_CHUNK, check_cluster, check_joints, fmt_itemset
from anonymizer.evaluation.verify_fast import plain_subset, settle
from anonymizer.evaluation.verify_parse import (
    RELEASE_FORMAT,
    ParsedRelease,
    parse_params,
    parse_release,
)
from anonymizer.model.arrays import ReleaseArrays
from anonymizer.model.conditions import chunk_terms, k_anonymity_violations, km_violations
from corpora.common.errors import InputError
from corpora.common.files import parse_json, read_text_bounded

__all__ = ["VerifyReport", "verify", "verify_file", "km_violations", "k_anonymity_violations",
           "MAX_ITEMSETS_PER_CHUNK", "EXACT_MAX_RECORDS"]

MAX_RELEASE_BYTES = 4 << 30
"""A release file larger than this is refused before it is read (4 GiB)."""


@dataclass
class VerifyReport:
    """Result of :func:`verify`: ``ok`` is True exactly when ``violations`` and ``unproven`` are
    both empty, i.e. Guarantee 1 is proven for every component."""

    ok: bool
    violations: list[str] = field(default_factory=list)
    unproven: list[str] = field(default_factory=list)
    """One line per component (or itemset) neither searched exactly nor proven: not OK, not a violation."""
    clusters_checked: int = 0
    chunks_checked: int = 0
    components_exact: int = 0
    """Components whose valid reconstructions were searched exactly."""
    components_proven: int = 0
    """Components that pass the proven sufficient condition :func:`anonymizer.evaluation.exact.prove_component`."""
    components_unproven: int = 0
    """Components neither searched nor proven (unproven, or structurally broken: a violation)."""
    k: int | None = None
    m: int | None = None

    def __repr__(self) -> str:
        return (f"VerifyReport(ok={self.ok}, violations={len(self.violations)}, k={self.k}, m={self.m}, "
                f"clusters_checked={self.clusters_checked}, chunks_checked={self.chunks_checked}, "
                f"components_exact={self.components_exact}, components_proven={self.components_proven}, "
                f"unproven={len(self.unproven)})")

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python values."""
        return asdict(self)

    def to_frame(self) -> Any:
        """One row per violation, then per unproven line (a DataFrame, column ``violation``; empty when ok)."""
        import pandas as pd

        return pd.DataFrame({"violation": list(self.violations) + list(self.unproven)}, dtype=object)

    def summary(self) -> str:
        """One line: OK or the number of violations, with the counts of what was checked."""
        what = (f"{self.clusters_checked} clusters, {self.chunks_checked} chunks; components: "
                f"{self.components_exact} exact, {self.components_proven} proven, {self.components_unproven} undecided")
        if self.ok:
            return f"OK ({what})"
        if not self.violations:
            return f"unproven: {len(self.unproven)} line(s), no violation found ({what})"
        more = f", {len(self.unproven)} unproven" if self.unproven else ""
        return f"{len(self.violations)} violation(s){more} ({what})"


def _roots(p: ParsedRelease) -> dict[str, str]:
    """The component (top-level node id) of every cluster and joint cluster."""
    parent = {child: j.id for j in p.joints for child in j.children}
    root: dict[str, str] = {}
    for node in [c.id for c in p.clusters] + [j.id for j in p.joints]:
        top = node
        while top in parent:
            top = parent[top]
        root[node] = top
    return root


FALLBACK_SPREADS = MAX_SPREADS
"""A component that is not small and fails the proven condition is still searched exactly if it
has at most this many spreads (:mod:`anonymizer.evaluation.exact`, the same bound as the exact search);
beyond that it is unproven. (20,000 left an 18-record engine release with 50,000 spreads
unproven: found by tests/test_refine_properties.py in a fresh CI clone; it is searched in 3 s.)"""


def _exact(out: list[str], unproven: list[str], p: ParsedRelease, exact: bool,
           max_records: int, whole: bool = True) -> tuple[set[str], int, int, int] | None:
    """Decide every component (module docstring, "Deciding the components"); returns the ids of
    the clusters in components searched because they are small (Lemma 2 is not reported there),
    and the numbers of components searched exactly, proven by
    :func:`anonymizer.evaluation.exact.prove_component`, and not decided (unproven, or structurally broken).
    ``whole=False``: ``p`` holds only some components of the release; None when an itemset stays
    below k in a searched one (deciding it needs the whole release)."""
    root = _roots(p)
    broken = {root[node] for node in p.unsound if node in root}
    failing = {root[node] for node in p.flagged if node in root}
    n_components = len(set(root.values()))
    if p.k is None or p.m is None:
        return set(), 0, 0, n_components
    k, m = p.k, p.m
    comps = build_components(
        [(c.id, c.size, c.record_chunks, c.term_chunk) for c in p.clusters if root[c.id] not in broken],
        [(j.id, j.children, j.shared_chunks) for j in p.joints if root[j.id] not in broken])
    searched: dict[str, Component] = {}
    proven: dict[str, Component] = {}
    low: dict[frozenset[str], list[tuple[str, int]]] = {}
    done: set[str] = set()
    for comp in comps:
        small = exact or comp.n_records <= max_records
        result = check_component(comp, m, below=k) if small else None
        if result is not None:
            done.update(leaf.id for leaf in comp.leaves)
        elif comp.root in failing:
            continue  # a violation fails it already: nothing to decide
        if result is None:
            why = prove_component(comp, k, m, chunks_anonymous=True)  # failing components are skipped above
            if why is None:
                proven[comp.root] = comp
                continue
            if not small:
                result = check_component(comp, m, below=k, max_spreads=FALLBACK_SPREADS)
            if result is None:
                unproven.append(f"{comp.name}: unproven: the sufficient condition fails ({why}) and its "
                                f"{comp.n_records} records have too many valid reconstructions to search")
                continue
        top = comp.root
        searched[top] = comp
        if not result.feasible:
            out.append(f"{comp.name}: Guarantee 1 fails: no valid reconstruction (its {comp.n_records} records cannot "
                       "all be non-empty, Terrovitis2012 proof of Lemma 2, or a shared sub-record fits no record)")
            continue
        for itemset, n in result.below(k):
            low.setdefault(itemset, []).append((top, n))
    if low and not whole:
        return None
    if low:
        _report_low(out, unproven, p, root, searched, proven, low, k, m)
    return done, len(searched), len(proven), n_components - len(searched) - len(proven)


def _holders(p: ParsedRelease, root: dict[str, str], wanted: set[str]) -> dict[str, set[str]]:
    """The components (top-level ids) listing each ``wanted`` term anywhere."""
    holders: dict[str, set[str]] = {t: set() for t in wanted}
    for c in p.clusters:
        for t in wanted & set(c.term_chunk).union(*(chunk_terms(ch) for ch in c.record_chunks)):
            holders[t].add(root[c.id])
    for j in p.joints:
        for t in wanted & set().union(*(chunk_terms(ch) for ch in j.shared_chunks)):
            holders[t].add(root[j.id])
    return holders


def _report_low(out: list[str], unproven: list[str], p: ParsedRelease, root: dict[str, str],
                searched: dict[str, Component], proven: dict[str, Component],
                low: dict[frozenset[str], list[tuple[str, int]]], k: int, m: int) -> None:
    """Add up an itemset's largest supports over the components; report those below k. An
    itemset whose terms all occur in a component that was not searched is looked up there with
    the exact search (at most :data:`FALLBACK_SPREADS` spreads), else it is unproven; in a
    component neither searched nor proven (broken or unproven) it is left: the verdict already
    fails there."""
    holders = _holders(p, root, {t for itemset in low for t in itemset})
    decidable = {**searched, **proven}
    recheck: dict[str, set[frozenset[str]]] = {}
    undecided: set[frozenset[str]] = set()
    for itemset, where in low.items():
        others = set.intersection(*(holders[t] for t in itemset)) - {top for top, _ in where}
        for top in others:
            if top in decidable:
                recheck.setdefault(top, set()).add(itemset)
            else:
                undecided.add(itemset)
    extra: Counter = Counter()
    for top, itemsets in recheck.items():
        result = check_component(decidable[top], m, only=itemsets,
                                 max_spreads=MAX_SPREADS if top in searched else FALLBACK_SPREADS)
        if result is None:
            for itemset in sorted(itemsets, key=sorted)[:MAX_ITEMSETS_PER_CHUNK]:
                unproven.append(f"{decidable[top].name}: unproven: itemset {fmt_itemset(itemset)} stays below k={k} "
                                "elsewhere and whether it occurs here is not decided (too many reconstructions)")
            undecided |= itemsets
        elif result.feasible:
            extra.update({s: n for s, n in result.max_support.items() if s in itemsets})
    failing = []
    for itemset, where in low.items():
        total = sum(n for _, n in where) + extra[itemset]
        if itemset not in undecided and total < k:
            failing.append((itemset, total, where))
    failing.sort(key=lambda x: (len(x[0]), x[1], sorted(x[0])))
    for itemset, total, where in failing[:MAX_ITEMSETS_PER_CHUNK]:
        names = ", ".join(searched[top].name for top, _ in where)
        out.append(f"{names}: Guarantee 1 fails: itemset {fmt_itemset(itemset)} reaches at most {total} record(s) "
                   f"in any valid reconstruction, fewer than k={k}")
    if len(failing) > MAX_ITEMSETS_PER_CHUNK:
        out.append(f"Guarantee 1: ... and {len(failing) - MAX_ITEMSETS_PER_CHUNK} more such itemsets")


def verify(release: Any, exact: bool = False, exact_max_records: int = EXACT_MAX_RECORDS,
           source: str = "release") -> VerifyReport:
    """Check ``release`` (a ``disassociated/1`` JSON object, an object with ``to_dict()`` such as
    :class:`anonymizer.model.release.Release`, or the path of a release file, read by
    :func:`verify_file`) for the sufficient conditions of Guarantee 1, structure, and, on
    components of at most ``exact_max_records`` records (every component with ``exact=True``),
    Guarantee 1 exactly.

    Every problem found is one line in ``violations`` naming the cluster / chunk / itemset.
    Raises :class:`InputError` if ``release`` is not a release at all.
    """
    if isinstance(release, (str, os.PathLike)):
        return verify_file(release, exact=exact, exact_max_records=exact_max_records)
    trusted = bool(getattr(release, "validated", False))
    if not trusted and hasattr(release, "to_dict") and not isinstance(release, dict):
        published = _as_published(release, source)
        if published is not None:
            return verify(published, exact=exact, exact_max_records=exact_max_records, source=source)
    if trusted:
        report = _verify_arrays(release, exact, exact_max_records, source)
        if report is not None:
            return report
    obj = _plain(release) if trusted else release.to_dict() if hasattr(release, "to_dict") else release
    out: list[str] = []
    parsed = parse_release(obj, source, out, trusted)
    known = _known_chunks(release.arrays, parsed.k, parsed.m) if trusted else None
    unproven: list[str] = []
    decided = _decide(out, unproven, parsed, known and tuple(x.tolist() for x in known), exact,
                      exact_max_records)
    assert decided is not None  # the whole release: nothing is left undecided for want of the rest
    chunks, n_exact, n_proven, n_unproven = decided
    return VerifyReport(ok=not out and not unproven, violations=out, unproven=unproven,
                        clusters_checked=len(parsed.clusters), chunks_checked=chunks, components_exact=n_exact,
                        components_proven=n_proven, components_unproven=n_unproven, k=parsed.k, m=parsed.m)


def _decide(out: list[str], unproven: list[str], parsed: ParsedRelease,
            known: tuple[list[bool], list[bool], list[bool]] | None, exact: bool, exact_max_records: int,
            whole: bool = True) -> tuple[int, int, int, int] | None:
    """Check the chunks of ``parsed`` and decide its components into ``out`` and ``unproven``;
    returns the chunks checked and the components searched exactly, proven and undecided (None as
    :func:`_exact` says when ``parsed`` is not the ``whole`` release)."""
    lemma2 = {}
    at = 0
    for c in parsed.clusters:
        n = len(c.record_chunks)
        line = check_cluster(out, c, parsed.k, parsed.m, parsed.unsound, parsed.flagged,
                              known[0][at:at + n] if known else None)
        at += n
        if line:
            lemma2[c.id] = line
            parsed.flagged.add(c.id)
    chunks = sum(len(c.record_chunks) for c in parsed.clusters) + check_joints(out, parsed, known and known[1:])
    decided = _exact(out, unproven, parsed, exact, exact_max_records, whole)
    if decided is None:
        return None
    done, n_exact, n_proven, n_unproven = decided
    out.extend(line for cid, line in lemma2.items() if cid not in done)
    return chunks, n_exact, n_proven, n_unproven


def _verify_arrays(release: Any, exact: bool, exact_max_records: int, source: str) -> VerifyReport | None:
    """:func:`verify` of a release read into validated arrays: the components
    :func:`anonymizer.evaluation.verify_fast.settle` settles are counted, the others parsed and
    decided as objects; the same report. None where that does not apply (the caller decides the
    whole release as objects)."""
    a = release.arrays
    params = dict(release.params)
    fatal: list[str] = []
    k, m = parse_params(params, fatal)
    known = None if fatal or k is None or m is None else _known_chunks(a, k, m)
    if known is None or k is None or m is None:
        return None
    split = settle(a, k, m, known, exact, exact_max_records, MAX_SPREADS)
    if split is None:
        return None
    out: list[str] = []
    try:
        parsed = parse_release(plain_subset(a, params, RELEASE_FORMAT, split.clusters, split.joints), source, out,
                               trusted=True)
    except InputError:
        return None  # the whole release gives the one-line error
    record = np.concatenate([np.arange(a.chunk_off[c], a.chunk_off[c + 1]) for c in split.clusters] or [[]])
    shared = np.concatenate([np.arange(a.shared_chunk_off[j], a.shared_chunk_off[j + 1])
                             for j in split.joints] or [[]])
    record, shared = record.astype(np.int64), shared.astype(np.int64)
    unproven: list[str] = []
    decided = _decide(out, unproven, parsed, (known[0][record].tolist(), known[1][shared].tolist(),
                                              known[2][shared].tolist()), exact, exact_max_records, whole=False)
    if decided is None:
        return None
    _, n_exact, n_proven, n_unproven = decided
    return VerifyReport(ok=not out and not unproven, violations=out, unproven=unproven,
                        clusters_checked=a.n_clusters, chunks_checked=int(a.chunk_off[-1] + a.shared_chunk_off[-1]),
                        components_exact=n_exact + split.exact, components_proven=n_proven + split.proven,
                        components_unproven=n_unproven, k=k, m=m)


def _as_published(release: Any, source: str) -> Any | None:
    """``release`` (a release in memory) as the strict fast reader reads its JSON, or None where the reader
    declines it or it does not encode (the caller decides it as objects)."""
    import orjson

    try:
        data = orjson.dumps(release.to_dict())
    except (TypeError, ValueError, AttributeError):  # not a plain release object: the object path says what
        return None
    return _read_fast(data, source)


def _read_fast(data: bytes, source: str) -> Any | None:
    """The release the fast reader makes of the JSON ``data`` (validated arrays), or None."""
    from anonymizer.io.json_fast import arrays_from_json_bytes
    from anonymizer.model.release import Release

    arrays = arrays_from_json_bytes(data, source)
    return None if arrays is None else Release.from_arrays(arrays, source)


def _known_chunks(a: ReleaseArrays, k: int | None, m: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Record chunks known k^m-anonymous, shared chunks known k^m-anonymous and known k-anonymous
    (:mod:`anonymizer.evaluation.verify_arrays`), or None when that is not counted at once."""
    if k is None or m is None:
        return None
    n_terms = len(a.terms)
    record = km_anonymous_chunks(a.sub_off, a.term_off, a.sub_terms, n_terms, k, m)
    shared = km_anonymous_chunks(a.shared_sub_off, a.shared_term_off, a.shared_terms, n_terms, k, m)
    if record is None or shared is None:
        return None
    return record, shared, k_anonymous_chunks(a.shared_sub_off, a.shared_term_off, a.shared_terms, k)


def _plain(release: Any) -> dict[str, Any]:
    """The ``disassociated/1`` object of a release read into arrays, its sub-records kept as tuples."""
    return {"format": RELEASE_FORMAT, "params": dict(release.params),
            "clusters": [{"id": c.id, "size": c.size, "record_chunks": c.record_chunks, "term_chunk": c.term_chunk}
                         for c in release.clusters],
            "joint_clusters": [{"id": j.id, "children": j.children, "shared_chunks": j.shared_chunks}
                               for j in release.joint_clusters]}


def verify_file(path: str | os.PathLike[str], exact: bool = False,
                exact_max_records: int = EXACT_MAX_RECORDS) -> VerifyReport:
    """Read a release file strictly (a key repeated in a JSON object is a violation) and :func:`verify` it.

    The file is read with :func:`corpora.common.files.read_text_bounded` (at most
    :data:`MAX_RELEASE_BYTES`, UTF-8, no NUL byte). A parquet release, and a JSON release the fast
    reader accepts, are read into arrays (module docstring, "Reading")."""
    from anonymizer.io.json_fast import MIN_FAST_BYTES, read_release_json_arrays
    from anonymizer.io.parquet import is_parquet, read_release_parquet
    from anonymizer.model.release import Release

    if is_parquet(path):
        return verify(read_release_parquet(path), exact=exact, exact_max_records=exact_max_records, source=str(path))
    arrays = read_release_json_arrays(path)
    if arrays is not None:
        return verify(Release.from_arrays(arrays, str(path)), exact=exact, exact_max_records=exact_max_records,
                      source=str(path))
    text = read_text_bounded(path, MAX_RELEASE_BYTES)
    data = text.encode("utf-8")  # a small file, which read_release_json_arrays leaves: "Reading" in the module doc
    fast = _read_fast(data, str(path)) if len(data) < MIN_FAST_BYTES else None
    if fast is not None:
        return verify(fast, exact=exact, exact_max_records=exact_max_records, source=str(path))
    repeated: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = Counter(key for key, _ in items)
        repeated.extend(sorted(key for key, n in keys.items() if n > 1))
        return dict(items)

    obj = parse_json(text, f"{path}: not a release", object_pairs_hook=pairs)
    report = verify(obj, exact=exact, exact_max_records=exact_max_records, source=str(path))
    if repeated:
        report.violations[:0] = [f"JSON: key {key!r} repeated in an object (a reader keeps only one value)"
                                 for key in repeated]
        report.ok = False
    return report
