"""The columnar form of a truth file: one parquet file (``disassociated-truth/1``, the same content as the JSON).

The truth is never published (:mod:`anonymizer.model.release`): it links every published piece of a
release to its record and keeps the secret seeds. At 1M records its JSON is about 100 MB and
takes seconds to parse into lists of ints; the parquet form is read in a fraction of that.

Layout (:func:`save_truth_parquet`, :func:`read_truth_parquet`), one row per node, the simple
clusters first, then the joint clusters, in the truth's order:

=====================  ==================================  ===============================================
column                 type                                content
=====================  ==================================  ===============================================
``id``                 string                              the cluster's or joint cluster's id
``joint``              bool                                false for a simple cluster, true for a joint one
``records``            large_list<int64>                   the cluster's records (empty for a joint cluster)
``chunks``             large_list<large_list<int64>>       per record chunk (shared chunk for a joint
                                                           cluster) the record of each listed sub-record
``term_chunk_terms``   large_list<string>                  the term-chunk terms, in the truth's order
``term_chunk_records`` large_list<large_list<int64>>       the records holding each of those terms
=====================  ==================================  ===============================================

The key-value metadata ``disassociated-truth`` holds ``{"format": "disassociated-truth/1",
"seed": ..., "safe_seed": ..., "release_sha256": ...}`` (a seed is absent when unknown;
``release_sha256``, the SHA-256 of the release file written with this truth, is absent in older
files: see :mod:`anonymizer.model.release`). Reading is bounded like a
parquet release (:mod:`anonymizer.io.parquet`): size on disk and uncompressed, exact column
types, no nulls, offsets checked; seeds through :func:`corpora.common.seeds.check_seed`.
"""

from __future__ import annotations

import itertools
import json
import os
from typing import Any

import numpy as np

from anonymizer.io.bounded import open_bounded
from anonymizer.model.truth import TRUTH_FORMAT, ClusterTruth, JointClusterTruth, Truth, check_digest
from corpora.common.errors import InputError
from corpora.common.files import atomic_open, parse_json
from corpora.common.gcpause import no_gc
from corpora.common.seeds import check_seed

__all__ = ["TRUTH_METADATA_KEY", "is_truth_parquet", "truth_table", "save_truth_parquet", "read_truth_parquet"]

TRUTH_METADATA_KEY = b"disassociated-truth"


def _schema() -> Any:
    import pyarrow as pa

    ids = pa.large_list(pa.int64())
    return pa.schema([("id", pa.string()), ("joint", pa.bool_()), ("records", ids), ("chunks", pa.large_list(ids)),
                      ("term_chunk_terms", pa.large_list(pa.string())), ("term_chunk_records", pa.large_list(ids))])


def _ids(rows: list[list[int]]) -> Any:
    """large_list<int64> of ``rows``, built from one flat numpy array and its offsets."""
    import pyarrow as pa

    flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64, count=sum(map(len, rows)))
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(ids) for ids in rows], out=off[1:])
    return pa.LargeListArray.from_arrays(pa.array(off), pa.array(flat))


def _nested(rows: list[list[list[int]]]) -> Any:
    """large_list<large_list<int64>> of ``rows``."""
    import pyarrow as pa

    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(row) for row in rows], out=off[1:])
    return pa.LargeListArray.from_arrays(pa.array(off), _ids([ids for row in rows for ids in row]))


def truth_table(truth: Truth) -> Any:
    """The truth as a ``pyarrow.Table`` of the layout above (with its metadata)."""
    import pyarrow as pa

    none: list[list[Any]] = [[] for _ in truth.joint_clusters]
    meta: dict[str, Any] = {"format": TRUTH_FORMAT}
    if truth.seed is not None:
        meta["seed"] = truth.seed
    if truth.safe_seed is not None:
        meta["safe_seed"] = truth.safe_seed
    if truth.release_sha256 is not None:
        meta["release_sha256"] = truth.release_sha256
    return pa.Table.from_arrays(
        [pa.array([c.id for c in truth.clusters] + [j.id for j in truth.joint_clusters], pa.string()),
         pa.array([False] * len(truth.clusters) + [True] * len(none), pa.bool_()),
         _ids([c.records for c in truth.clusters] + none),
         _nested([c.record_chunks for c in truth.clusters] + [j.shared_chunks for j in truth.joint_clusters]),
         pa.array([list(c.term_chunk) for c in truth.clusters] + none, pa.large_list(pa.string())),
         _nested([list(c.term_chunk.values()) for c in truth.clusters] + none)],
        schema=_schema().with_metadata({TRUTH_METADATA_KEY: json.dumps(meta).encode("utf-8")}))


def save_truth_parquet(truth: Truth, path: str | os.PathLike[str]) -> None:
    """Write ``truth`` in the parquet form (zstd-compressed), atomically (temporary file, then rename)."""
    import pyarrow.parquet as pq

    table = truth_table(truth)
    with atomic_open(path, "wb") as handle:
        pq.write_table(table, handle, compression="zstd")


def is_truth_parquet(path: str | os.PathLike[str]) -> bool:
    """True if the parquet file ``path`` carries the truth metadata (False if it is unreadable)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return TRUTH_METADATA_KEY in (pq.read_schema(path).metadata or {})
    except (pa.ArrowException, OSError, ValueError):
        return False


def _has_nulls(array: Any) -> bool:
    import pyarrow as pa

    if array.null_count:
        return True
    return pa.types.is_large_list(array.type) and _has_nulls(array.values)


def _lists(column: Any, depth: int, rows: int, source: str, what: str) -> list[Any]:
    """``column`` as nested Python lists, after checking its offsets (no nulls: the caller checked).

    Built from the offsets and one ``tolist()`` of the leaf values (arrow's ``to_pylist`` of nested
    lists is about ten times slower)."""
    if len(column) != rows:
        raise InputError(f"{source}: column {what!r} has {len(column)} rows, not {rows}")
    offsets = []
    array = column
    for _ in range(depth):
        off = np.asarray(array.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
        if off[0] != 0 or off[-1] != len(array.values) or (np.diff(off) < 0).any():
            raise InputError(f"{source}: malformed offsets of the {what!r} lists")
        offsets.append(off.tolist())
        array = array.values
    out = array.to_numpy(zero_copy_only=False).tolist() if len(array) else []
    for off in reversed(offsets):
        out = [out[a:b] for a, b in zip(off[:-1], off[1:], strict=True)]
    return out


def read_truth_parquet(path: str | os.PathLike[str]) -> Truth:
    """Read and validate a parquet truth file (bounds in the module docstring)."""
    with no_gc():
        return _read_truth_parquet(path)


def _read_truth_parquet(path: str | os.PathLike[str]) -> Truth:
    import pyarrow as pa

    source = str(path)
    try:
        handle = open_bounded(path)
        schema = handle.schema_arrow
        head_bytes = (schema.metadata or {}).get(TRUTH_METADATA_KEY)
        if head_bytes is None:
            raise InputError(f"{source}: not a truth file (no '{TRUTH_METADATA_KEY.decode()}' metadata)")
        if not schema.remove_metadata().equals(_schema()):
            raise InputError(f"{source}: the columns are not those of a parquet truth file (id, joint, records, "
                             "chunks, term_chunk_terms, term_chunk_records)")
        table = handle.read()
        cols = {name: table.column(name).combine_chunks() for name in table.column_names}
        for name, col in cols.items():
            if _has_nulls(col):
                raise InputError(f"{source}: column {name!r} has null entries")
        rows = table.num_rows
        ids = cols["id"].to_pylist()
        joint = cols["joint"].to_pylist()
        records = _lists(cols["records"], 1, rows, source, "records")
        chunks = _lists(cols["chunks"], 2, rows, source, "chunks")
        terms = cols["term_chunk_terms"].to_pylist()
        holders = _lists(cols["term_chunk_records"], 2, rows, source, "term_chunk_records")
    except InputError:
        raise
    except UnicodeDecodeError:
        raise InputError(f"{source}: a string of the truth file is not valid UTF-8") from None
    except (pa.ArrowException, OSError, ValueError, TypeError) as exc:
        raise InputError(f"{source}: not a readable parquet truth file ({str(exc).splitlines()[0][:120]})") from None
    head = parse_json(head_bytes.decode("utf-8", errors="replace"), f"{source}: truth metadata")
    if not isinstance(head, dict) or head.get("format") != TRUTH_FORMAT:
        raise InputError(f"{source}: not a truth file ('format' must be {TRUTH_FORMAT!r})")
    n = joint.count(False)
    if any(joint[:n]):
        raise InputError(f"{source}: every simple cluster must come before the joint clusters")
    clusters = []
    for i in range(n):
        if len(set(terms[i])) != len(terms[i]):
            raise InputError(f"{source}: cluster {ids[i]!r}: a term-chunk term is listed twice")
        if len(terms[i]) != len(holders[i]):
            raise InputError(f"{source}: cluster {ids[i]!r}: {len(terms[i])} term-chunk terms but "
                             f"{len(holders[i])} lists of records")
        clusters.append(ClusterTruth(ids[i], records[i], chunks[i], dict(zip(terms[i], holders[i], strict=True))))
    joints = []
    for i in range(n, rows):
        if records[i] or terms[i] or holders[i]:
            raise InputError(f"{source}: joint cluster {ids[i]!r} must have no records and no term chunk")
        joints.append(JointClusterTruth(ids[i], chunks[i]))
    seeds = [None if head.get(key) is None else check_seed(head[key], f"{source}: {key}")
             for key in ("seed", "safe_seed")]
    return Truth(clusters, joints, *seeds, release_sha256=check_digest(head.get("release_sha256"), source))
