"""`TransactionDataset`: a collection of set-valued records (transactions).

A record is a set of string terms (a user's queries, a basket's products, a document's words).
Duplicates inside a record collapse. Record order is kept and a record's id is its 0-based
position. Internally the dataset is a CSR structure over a sorted vocabulary: ``indptr`` and
``indices`` hold, for record ``i``, the sorted term ids ``indices[indptr[i]:indptr[i+1]]``. This
keeps a million records in a few tens of megabytes and lets the algorithms work on integer ids
and ``scipy.sparse`` matrices.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from corpora.common.errors import InputError

if TYPE_CHECKING:  # scipy is imported by matrix(), not with the dataset (a third of a command's start-up)
    import scipy.sparse as sp

__all__ = ["DatasetStats", "TransactionDataset"]


def _str_key(term: object) -> tuple[int, str]:
    """Sort key that never fails on mixed types (strings first, in their order); a non-string sends
    :meth:`TransactionDataset.from_term_lists` to the checking :meth:`TransactionDataset.from_records`."""
    return (0, term) if type(term) is str else (1, repr(term))


@dataclass(frozen=True)
class DatasetStats:
    """Summary figures of a dataset.

    ``density`` is the type-token ratio used by AlShuhail2021 (section 5.1.2): distinct terms
    divided by all term occurrences (0.0 for a dataset without terms).
    """

    records: int
    distinct_terms: int
    term_occurrences: int
    avg_length: float
    max_length: int
    density: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "records": self.records,
            "distinct_terms": self.distinct_terms,
            "term_occurrences": self.term_occurrences,
            "avg_length": self.avg_length,
            "max_length": self.max_length,
            "density": self.density,
        }


@dataclass(frozen=True, eq=False)
class TransactionDataset:
    """Set-valued records over a sorted vocabulary, stored as CSR arrays.

    Build one with :meth:`from_records`; the constructor is for code that already holds valid
    CSR arrays (sorted, unique term ids per record, vocabulary sorted and without duplicates).
    The readers build it from files and tables (:mod:`corpora.io`; a pandas DataFrame through
    :func:`corpora.from_dataframe`); the type itself knows no file format.
    """

    vocabulary: tuple[str, ...]
    indptr: np.ndarray
    indices: np.ndarray
    name: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_records(
        cls,
        records: Iterable[Iterable[str]],
        name: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> TransactionDataset:
        """Build a dataset from an iterable of records, each an iterable of string terms.

        Terms must be non-empty strings; a duplicate term inside a record is kept once.
        """
        index: dict[str, int] = {}
        setdefault = index.setdefault
        flat: list[int] = []
        indptr = [0]
        for number, record in enumerate(records):
            if isinstance(record, str):
                raise InputError(f"record {number}: expected a collection of terms, got the string {record!r}")
            ids = set()
            for term in record:
                if not isinstance(term, str) or not term:
                    raise InputError(f"record {number}: term {term!r} is not a non-empty string")
                ids.add(setdefault(term, len(index)))
            flat.extend(ids)
            indptr.append(len(flat))
        terms = list(index)
        order = sorted(range(len(terms)), key=terms.__getitem__)
        relabel = np.empty(len(terms), dtype=np.int32)
        relabel[np.asarray(order, dtype=np.int64)] = np.arange(len(terms), dtype=np.int32)
        indptr_arr = np.asarray(indptr, dtype=np.int64)
        indices = relabel[np.asarray(flat, dtype=np.int64)] if flat else np.zeros(0, dtype=np.int32)
        rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr_arr))
        indices = indices[np.lexsort((indices, rows))].astype(np.int32, copy=False)
        vocabulary = tuple(terms[i] for i in order)
        return cls(vocabulary, indptr_arr, indices, name=name, metadata=dict(metadata or {}))

    @classmethod
    def from_term_lists(
        cls,
        records: Sequence[Sequence[str]],
        name: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> TransactionDataset:
        """:meth:`from_records` for records held as sequences of terms (lists, tuples), with the same result and
        errors, by one dictionary look-up per term and one sort (no per-record set).

        Any other input (a record that is a string, a term that is not a non-empty string) goes to
        :meth:`from_records`, which names the offending record.
        """
        try:
            lengths = np.fromiter(map(len, records), dtype=np.int64, count=len(records))
            flat = list(itertools.chain.from_iterable(records))
            terms = sorted(set(flat), key=_str_key)
        except TypeError:  # a record without a length, an unhashable term
            return cls.from_records(records, name=name, metadata=metadata)
        if any(isinstance(r, str) for r in records) or any(type(t) is not str or not t for t in terms):
            return cls.from_records(records, name=name, metadata=metadata)
        index = {t: i for i, t in enumerate(terms)}
        ids = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
        rows = np.repeat(np.arange(len(records), dtype=np.int64), lengths)
        width = max(len(terms), 1)
        key = np.sort(rows * width + ids)
        if key.size:  # a term repeated in a record is kept once
            key = key[np.concatenate(([True], key[1:] != key[:-1]))]
        indptr = np.zeros(len(records) + 1, dtype=np.int64)
        np.cumsum(np.bincount(key // width, minlength=len(records)), out=indptr[1:])
        indices = (key % width).astype(np.int32)
        return cls(tuple(terms), indptr, indices, name=name, metadata=dict(metadata or {}))

    # ------------------------------------------------------------------ record access
    def __len__(self) -> int:
        return len(self.indptr) - 1

    def __getitem__(self, i: int) -> frozenset[str]:
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"record {i} out of range for {len(self)} records")
        voc = self.vocabulary
        return frozenset(voc[t] for t in self.indices[self.indptr[i] : self.indptr[i + 1]])

    def __iter__(self) -> Iterator[frozenset[str]]:
        voc = self.vocabulary
        ind = self.indices.tolist()
        ptr = self.indptr.tolist()
        for a, b in zip(ptr[:-1], ptr[1:], strict=True):
            yield frozenset(voc[t] for t in ind[a:b])

    @property
    def records(self) -> list[frozenset[str]]:
        """All records as frozensets of terms, in record order."""
        return list(self)

    def sorted_records(self) -> list[list[str]]:
        """All records as sorted term lists (the form the writers and JSON use)."""
        voc = self.vocabulary
        ind = self.indices.tolist()
        ptr = self.indptr.tolist()
        return [[voc[t] for t in ind[a:b]] for a, b in zip(ptr[:-1], ptr[1:], strict=True)]

    def term_ids(self, i: int) -> np.ndarray:
        """Sorted term ids of record ``i``."""
        return self.indices[self.indptr[i] : self.indptr[i + 1]]

    @functools.cached_property
    def term_index(self) -> dict[str, int]:
        """Map from term to its id in :attr:`vocabulary`."""
        return {t: i for i, t in enumerate(self.vocabulary)}

    @property
    def lengths(self) -> np.ndarray:
        """Number of terms of every record."""
        return np.diff(self.indptr)

    # ------------------------------------------------------------------ matrix views
    def matrix(self) -> sp.csr_matrix:
        """The records x terms incidence matrix (``uint8``, 1 where the record holds the term)."""
        import scipy.sparse as sp

        data = np.ones(len(self.indices), dtype=np.uint8)
        return sp.csr_matrix((data, self.indices, self.indptr), shape=(len(self), len(self.vocabulary)))

    def term_supports(self) -> np.ndarray:
        """Support (number of records holding it) of every term id."""
        return np.bincount(self.indices, minlength=len(self.vocabulary)).astype(np.int64)

    def supports(self) -> dict[str, int]:
        """Support of every term, by term."""
        return dict(zip(self.vocabulary, self.term_supports().tolist(), strict=True))

    # ------------------------------------------------------------------ summaries
    def stats(self) -> DatasetStats:
        """Records, distinct terms, occurrences, average and maximum length, type-token density."""
        lengths = self.lengths
        occurrences = int(lengths.sum())
        present = int(np.count_nonzero(self.term_supports()))
        return DatasetStats(
            records=len(self),
            distinct_terms=present,
            term_occurrences=occurrences,
            avg_length=float(lengths.mean()) if len(self) else 0.0,
            max_length=int(lengths.max()) if len(self) else 0,
            density=present / occurrences if occurrences else 0.0,
        )

    @property
    def density(self) -> float:
        """Type-token ratio: distinct terms / all term occurrences (AlShuhail2021 5.1.2)."""
        return self.stats().density

    # ------------------------------------------------------------------ derived datasets
    def entries(self, record_ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """The term ids of the given records, concatenated in that order (one vectorized gather)."""
        ids = np.asarray(record_ids, dtype=np.int64).reshape(-1)
        indptr = np.asarray(self.indptr, dtype=np.int64)
        starts = indptr[ids]
        lens = indptr[ids + 1] - starts
        ends = np.cumsum(lens)
        total = int(ends[-1]) if len(ends) else 0
        offsets = np.repeat(starts - (ends - lens), lens) + np.arange(total, dtype=np.int64)
        return np.asarray(self.indices)[offsets]

    def subset(self, record_ids: Sequence[int] | np.ndarray, name: str | None = None) -> TransactionDataset:
        """The records with the given ids, in the given order, as a new dataset over the sorted
        vocabulary of the terms they hold (what reading those records alone from a file gives).

        Vectorized: one gather of the records' entries and a relabelling of the terms present.
        """
        ids = np.asarray(record_ids, dtype=np.int64).reshape(-1)
        indptr = np.asarray(self.indptr, dtype=np.int64)
        lens = indptr[ids + 1] - indptr[ids]
        entries = self.entries(ids)
        present = np.flatnonzero(np.bincount(entries, minlength=len(self.vocabulary)))
        new_id = np.zeros(max(len(self.vocabulary), 1), dtype=np.int32)
        new_id[present] = np.arange(len(present), dtype=np.int32)
        new_ptr = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(lens, out=new_ptr[1:])
        return TransactionDataset(tuple(self.vocabulary[t] for t in present.tolist()), new_ptr, new_id[entries],
                                  name=self.name if name is None else name, metadata=dict(self.metadata))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TransactionDataset):
            return NotImplemented
        return self.sorted_records() == other.sorted_records()

    def __hash__(self) -> int:  # datasets are compared by content; they are not dict keys
        raise TypeError("TransactionDataset is not hashable")

    def __repr__(self) -> str:
        s = self.stats()
        label = f"{self.name!r}, " if self.name else ""
        return (f"TransactionDataset({label}records={s.records}, terms={s.distinct_terms}, "
                f"avg_length={s.avg_length:.2f})")
