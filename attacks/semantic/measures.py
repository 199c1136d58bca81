"""Per-record values of the semantic attack's metrics (AlShuhail2021 section 5.2).

Each measure takes the matched records (:class:`attacks.semantic.matching.RecordOutcome`) and a
part (``record``, ``term`` or ``overall``) and returns, for the records that count, their ids,
numerators and denominators; the metric is the ratio of the sums (:mod:`attacks.semantic.metrics`
defines each one in the thesis's words):

* :func:`accuracy` (eq. 5.4 as printed, C_1 terms counted, every record, class reading) and
  :func:`accuracy_one_to_one` (the same formula on the fixed one-to-one pairing);
* :func:`accuracy_disassociated` (C_1 left out, records with something disassociated only, class
  reading) and :func:`accuracy_disassociated_strict` (the same on the matched pairing);
* :func:`transaction_breakage` (eqs. 5.2-5.3, class reading), :func:`transaction_breakage_strict`
  and :func:`transaction_breakage_literal` (as printed: every reconstructed record counts);
* :func:`km_breakage`: the protected itemsets (:func:`protected_itemsets`) the reconstruction recovers;
* :func:`wmd`: Word Mover's Distance between original and reconstructed records
  (:func:`word_movers_distance`).

:data:`MEASURES` maps each metric name to its measure.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attacks.semantic.matching import RecordOutcome
from attacks.semantic.ngd import term_words

__all__ = ["MEASURES", "Measured", "Inputs", "Supports", "protected_itemsets", "word_movers_distance", "accuracy",
           "accuracy_one_to_one", "accuracy_disassociated", "accuracy_disassociated_strict", "transaction_breakage",
           "transaction_breakage_strict", "transaction_breakage_literal", "km_breakage", "wmd"]


def part_sets(o: RecordOutcome, part: str) -> tuple[frozenset[str], frozenset[str]]:
    if part == "overall":
        return o.original["record"] | o.original["term"], o.placed["record"] | o.placed["term"]
    return o.original[part], o.placed[part]


def fixed_placed(o: RecordOutcome, part: str) -> frozenset[str]:
    """What the attack put on the record's anchor of the fixed pairing, restricted to the part."""
    if part == "overall":
        return o.fixed["record"] | o.fixed["term"]
    return o.fixed[part]


def class_hits(o: RecordOutcome, part: str) -> float:
    if part == "overall":
        return o.class_hits["record"] + o.class_hits["term"]
    return o.class_hits[part]


class Supports:
    """Itemset supports in the original dataset with Python-int bitsets (one bit per record)."""

    def __init__(self, records: Sequence[frozenset[str]]) -> None:
        postings: dict[str, list[int]] = {}
        for i, r in enumerate(records):
            for t in r:
                postings.setdefault(t, []).append(i)
        self.bits = {t: sum(1 << i for i in ids) if len(ids) < 64 else _bits(ids) for t, ids in postings.items()}

    def support(self, itemset: Iterable[str]) -> int:
        acc = -1
        for t in itemset:
            b = self.bits.get(t, 0)
            acc = b if acc == -1 else acc & b
            if acc == 0:
                return 0
        return 0 if acc == -1 else acc.bit_count()


def _bits(ids: list[int]) -> int:
    arr = np.zeros(max(ids) + 1, dtype=np.uint8)
    arr[ids] = 1
    packed = np.packbits(arr, bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def protected_itemsets(
    o: RecordOutcome, original: frozenset[str], supports: Supports, k: int, m: int
) -> list[tuple[frozenset[str], bool]]:
    """(itemset, involves a term-chunk term) for each protected itemset of one record."""
    piece_of: dict[str, int] = {}
    for idx, piece in enumerate(o.pieces):
        for t in piece:
            piece_of.setdefault(t, idx)
    allowed = o.anchor | o.original["record"] | o.original["term"]
    terms = sorted(t for t in original if t in piece_of and t in allowed)
    out: list[tuple[frozenset[str], bool]] = []
    for size in range(2, min(m, len(terms)) + 1):
        for combo in itertools.combinations(terms, size):
            if len({piece_of[t] for t in combo}) < 2:
                continue
            if supports.support(combo) < k:
                out.append((frozenset(combo), any(t in o.term_chunk for t in combo)))
    return out


def _words(terms: Iterable[str], kv: Any) -> list[str]:
    out: list[str] = []
    for t in sorted(terms):
        if t in kv.key_to_index:
            out.append(t)
        elif t.lower() in kv.key_to_index:
            out.append(t.lower())
        else:
            out.extend(w for w in term_words(t) if w in kv.key_to_index)
    return out


def _wmd(
    kv: Any, a: frozenset[str], b: frozenset[str], cache: dict[tuple[frozenset[str], frozenset[str]], float]
) -> float:
    if a == b:
        return 0.0
    key = (a, b)
    if key not in cache:
        wa, wb = _words(a, kv), _words(b, kv)
        if not wa or not wb:
            cache[key] = math.nan
        else:
            d = word_movers_distance(kv, wa, wb)
            cache[key] = d if math.isfinite(d) else math.nan
    return cache[key]


def word_movers_distance(kv: Any, words_a: Sequence[str], words_b: Sequence[str]) -> float:
    """Word Mover's Distance as gensim's ``KeyedVectors.wmdistance`` computes it, without its overhead.

    gensim builds a dictionary of both documents and solves the transport problem over the whole
    joint vocabulary, with zero cost between words of the same document; only the flows from
    document a's words to document b's words carry mass, so the same optimum comes from the
    smaller problem solved here: normalised bag-of-words weights of each document, Euclidean
    distances between the unit vectors of a's and b's distinct words, one ``ot.emd2``. Words
    outside the vocabulary are dropped first; ``inf`` when a document is left empty (as gensim).
    Agrees with gensim to 1e-9 (tested).
    """
    from ot import emd2  # on first use: POT is slow to import and only WMD needs it
    from scipy.spatial.distance import cdist

    wa = [w for w in words_a if w in kv.key_to_index]
    wb = [w for w in words_b if w in kv.key_to_index]
    if not wa or not wb:
        return math.inf
    ua, ca = np.unique(wa, return_counts=True)
    ub, cb = np.unique(wb, return_counts=True)
    if len(ua) == len(ub) == 1 and ua[0] == ub[0]:
        return 0.0
    va = np.array([kv.get_vector(w, norm=True) for w in ua], dtype=np.float64)
    vb = np.array([kv.get_vector(w, norm=True) for w in ub], dtype=np.float64)
    cost = cdist(va, vb)
    if abs(float(cost.sum())) < 1e-8:
        return 0.0
    return float(emd2(ca / ca.sum(), cb / cb.sum(), cost))


@dataclass
class Inputs:
    """What the measures need beside the matched records: the original records, each record's
    protected itemsets, the word vectors of WMD (``None``: no WMD) and its cache of record pairs."""

    records: list[frozenset[str]]
    protected: dict[int, list[tuple[frozenset[str], bool]]] = field(default_factory=dict)
    kv: Any = None
    wmd_cache: dict[tuple[frozenset[str], frozenset[str]], float] = field(default_factory=dict)


Measured = tuple[list[int], list[float], list[float]]
"""Record ids, numerators and denominators of the records that count."""


def _unpublished(outcomes: Sequence[RecordOutcome], inputs: Inputs, ids: list[int], num: list[float]) -> None:
    """Add the records of D the release does not publish (Algorithm 1's suppression deletes them) with
    Rec = 0: Ac(D) divides "by the total number of transactions in the original dataset D"."""
    published = {o.record for o in outcomes}
    for rid in range(len(inputs.records)):
        if rid not in published:
            ids.append(rid)
            num.append(0.0)


def _eq_5_4(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs,
            right: Callable[[RecordOutcome, frozenset[str]], float]) -> Measured:
    """Eq. 5.4 as printed over every record of D: Rec(T_i) = right(T_i) / |T_i| with T_i = A_i ∪ O_i;
    published records with an empty T_i are left out, unpublished ones count 0 (:func:`_unpublished`)."""
    ids: list[int] = []
    num: list[float] = []
    for o in outcomes:
        orig, _got = part_sets(o, part)
        whole = o.anchor | orig
        if whole:
            ids.append(o.record)
            num.append(right(o, orig) / len(whole))
    _unpublished(outcomes, inputs, ids, num)
    return ids, num, [1.0] * len(ids)


def accuracy(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs) -> Measured:
    """Eq. 5.4 as printed, Rec(T_i) = |T̄_i ∩ T_i| / |T_i|, over every record of D (class reading).

    T_i is the record restricted to its C_1 sub-record A_i and the part's disassociated terms O_i;
    |T̄_i ∩ T_i| = |A_i| (always right) + the terms of O_i credited under the class reading.
    Published records with an empty T_i (nothing of theirs in C_1 nor in the part) are left out;
    unpublished ones count 0."""
    return _eq_5_4(outcomes, part, inputs,
                   lambda o, orig: len(o.anchor - orig) + min(float(len(orig)), class_hits(o, part)))


def accuracy_one_to_one(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs) -> Measured:
    """Eq. 5.4 as printed on the fixed pairing: T̄_i = A_i + what the attack put on T_i's fixed anchor."""
    return _eq_5_4(outcomes, part, inputs,
                   lambda o, orig: float(len((o.anchor | orig) & (o.anchor | fixed_placed(o, part)))))


def _over_disassociated(outcomes: Sequence[RecordOutcome], part: str,
                        value: Callable[[RecordOutcome, frozenset[str], frozenset[str]], float]) -> Measured:
    """Per record with a non-empty O_i (C_1 left out, as section 5.2.1 does): value(o, O_i, R_i)."""
    ids: list[int] = []
    num: list[float] = []
    for o in outcomes:
        orig, got = part_sets(o, part)
        if orig:
            ids.append(o.record)
            num.append(value(o, orig, got))
    return ids, num, [1.0] * len(ids)


def accuracy_disassociated(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs) -> Measured:
    """Rec(T_i) = C_i / |O_i|, C_1 left out, the records with a non-empty O_i (class reading)."""
    return _over_disassociated(outcomes, part, lambda o, orig, _got: min(1.0, class_hits(o, part) / len(orig)))


def transaction_breakage(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs) -> Measured:
    """Br(T_i) = 1 when some piece of T_i reached an anchor of its class, C_i > 0 (eqs. 5.2-5.3)."""
    return _over_disassociated(outcomes, part, lambda o, _orig, _got: float(class_hits(o, part) > 0))


def km_breakage(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs) -> Measured:
    """The protected itemsets of T_i that its reconstructed record holds entirely, over all of them."""
    ids: list[int] = []
    num: list[float] = []
    den: list[float] = []
    for o in outcomes:
        items = [s for s, is_term in inputs.protected[o.record] if part == "overall" or (part == "term") == is_term]
        if items:
            ids.append(o.record)
            den.append(len(items))
            num.append(sum(1 for s in items if s <= o.reconstructed))
    return ids, num, den


def wmd(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs) -> Measured:
    """Word Mover's Distance between A_i + O_i and A_i + R_i (``overall``: the whole records);
    records whose documents have no known word are left out."""
    ids: list[int] = []
    num: list[float] = []
    for o in outcomes:
        orig, got = part_sets(o, part)
        if not orig:
            continue
        if part == "overall":
            a, b = inputs.records[o.record], o.reconstructed
        else:
            a, b = o.anchor | orig, o.anchor | got
        value = _wmd(inputs.kv, a, b, inputs.wmd_cache)
        if not math.isnan(value):
            ids.append(o.record)
            num.append(value)
    return ids, num, [1.0] * len(ids)


def accuracy_disassociated_strict(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs) -> Measured:
    """Rec(T_i) = |R_i & O_i| / |O_i| on the matched anchor, C_1 left out, records with a non-empty O_i."""
    return _over_disassociated(outcomes, part, lambda _o, orig, got: len(orig & got) / len(orig))


def transaction_breakage_strict(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs) -> Measured:
    """Br(T_i) = 1 when |R_i & O_i| > 0 on the matched anchor."""
    return _over_disassociated(outcomes, part, lambda _o, orig, got: 1.0 if orig & got else 0.0)


def transaction_breakage_literal(outcomes: Sequence[RecordOutcome], part: str, inputs: Inputs) -> Measured:
    """Eqs. 5.2-5.3 as printed: every reconstructed record counts, broken when R_i & O_i is not empty."""
    ids = [o.record for o in outcomes]
    num = [1.0 if orig & got else 0.0 for orig, got in (part_sets(o, part) for o in outcomes)]
    return ids, num, [1.0] * len(ids)


MEASURES: dict[str, Callable[[Sequence[RecordOutcome], str, Inputs], Measured]] = {
    "accuracy": accuracy,
    "accuracy_one_to_one": accuracy_one_to_one,
    "accuracy_disassociated": accuracy_disassociated,
    "transaction_breakage": transaction_breakage,
    "km_breakage": km_breakage,
    "wmd": wmd,
    "accuracy_disassociated_strict": accuracy_disassociated_strict,
    "transaction_breakage_strict": transaction_breakage_strict,
    "transaction_breakage_literal": transaction_breakage_literal,
}
"""Metric name -> its per-record measure (in the order of :data:`attacks.semantic.report.METRICS`)."""
