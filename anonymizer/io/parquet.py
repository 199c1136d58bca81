"""The columnar form of a release: one parquet file (``disassociated/1``, the same content as the JSON).

Layout (written by :func:`save_release_parquet`, read by :func:`read_release_parquet`). One row per
node: first every simple cluster in release order, then every joint cluster in release order.

============  ==================================  ==========================================================
column        type                                content
============  ==================================  ==========================================================
``id``        string                              the cluster's or joint cluster's id
``joint``     bool                                false for a simple cluster, true for a joint cluster
``size``      int64                               the cluster's record count (0 for a joint cluster)
``chunks``    large_list<large_list<large_list    record chunks (simple cluster) or shared chunks (joint
              <int32>>>                           cluster): chunks, their sub-records in published order,
                                                  the sorted term ids of each sub-record
``term_chunk`` large_list<int32>                  the term chunk, in published order (empty for a joint)
``children``  large_list<int64>                   a joint cluster's children as row numbers (empty for a
                                                  simple cluster); children come before their parent
============  ==================================  ==========================================================

Term ids are positions in the sorted vocabulary. The file's key-value metadata holds one key,
``disassociated``: a JSON object ``{"format": "disassociated/1", "params": {...}, "terms": [...]}``
(the params of the release, never a seed, and the vocabulary). The parquet and the JSON form
convert into each other without loss (:func:`anonymizer.io.release_files.load_release` reads both).

Reading is bounded before any data is decoded: at most :data:`anonymizer.model.clusters.MAX_JSON_BYTES`
bytes on disk and as many uncompressed bytes of column data, at most :data:`MAX_ROWS` rows, the
exact column types above, no nulls; then :func:`anonymizer.model.arrays.validate` checks every
offset, id and size. Any failure is one :class:`~corpora.common.errors.InputError` line naming the file.
Nothing is unpickled: only plain arrow types are read (pyarrow >= 14 never unpickles an extension
type named in a file's schema), and a schema other than the one above is refused before the data.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from anonymizer.io.bounded import MAX_ROWS, PARQUET_MAGIC, is_parquet, open_bounded, wants_parquet
from anonymizer.io.truth_parquet import truth_table
from anonymizer.model.arrays import ReleaseArrays, validate
from anonymizer.model.provenance import release_digest
from anonymizer.model.release import RELEASE_FORMAT, Release
from corpora.common.errors import InputError
from corpora.common.files import atomic_files, atomic_open, parse_json

__all__ = ["PARQUET_MAGIC", "METADATA_KEY", "MAX_ROWS", "is_parquet", "wants_parquet", "open_bounded",
           "save_release_parquet", "write_parquet_and_secret", "read_release_parquet", "release_table",
           "arrays_from_table"]

METADATA_KEY = b"disassociated"


def _schema() -> Any:
    import pyarrow as pa

    chunks = pa.large_list(pa.large_list(pa.large_list(pa.int32())))
    return pa.schema([("id", pa.string()), ("joint", pa.bool_()), ("size", pa.int64()), ("chunks", chunks),
                      ("term_chunk", pa.large_list(pa.int32())), ("children", pa.large_list(pa.int64()))])


def release_table(release: Release | ReleaseArrays) -> Any:
    """The release as a ``pyarrow.Table`` of the layout above (with its metadata)."""
    import pyarrow as pa

    a = release if isinstance(release, ReleaseArrays) else release.arrays
    n, n_joints = a.n_clusters, len(a.joint_ids)
    chunk_off = np.concatenate([a.chunk_off, a.chunk_off[-1] + a.shared_chunk_off[1:]])
    sub_off = np.concatenate([a.sub_off, a.sub_off[-1] + a.shared_sub_off[1:]])
    term_off = np.concatenate([a.term_off, a.term_off[-1] + a.shared_term_off[1:]])
    ids = np.concatenate([a.sub_terms, a.shared_terms]).astype(np.int32)
    subs = pa.LargeListArray.from_arrays(pa.array(term_off, pa.int64()), pa.array(ids, pa.int32()))
    chunks = pa.LargeListArray.from_arrays(pa.array(sub_off, pa.int64()), subs)
    nodes = pa.LargeListArray.from_arrays(pa.array(chunk_off, pa.int64()), chunks)
    tc_off = np.concatenate([a.term_chunk_off, np.full(n_joints, a.term_chunk_off[-1], dtype=np.int64)])
    kid_off = np.concatenate([np.zeros(n, dtype=np.int64), a.child_off])
    meta = json.dumps({"format": RELEASE_FORMAT, "params": {k: v for k, v in a.params.items() if k != "seed"},
                       "terms": a.terms}, ensure_ascii=False)
    return pa.Table.from_arrays(
        [pa.array(a.node_ids(), pa.string()),
         pa.array(np.arange(n + n_joints) >= n, pa.bool_()),
         pa.array(np.concatenate([a.cluster_size, np.zeros(n_joints, dtype=np.int64)]), pa.int64()),
         nodes,
         pa.LargeListArray.from_arrays(pa.array(tc_off, pa.int64()), pa.array(a.term_chunk_terms, pa.int32())),
         pa.LargeListArray.from_arrays(pa.array(kid_off, pa.int64()), pa.array(a.children, pa.int64()))],
        schema=_schema().with_metadata({METADATA_KEY: meta.encode("utf-8")}))


def save_release_parquet(release: Release | ReleaseArrays, path: str | os.PathLike[str]) -> None:
    """Write ``release`` in the parquet form (zstd-compressed), atomically (temporary file, then rename)."""
    import pyarrow.parquet as pq

    table = release_table(release)
    with atomic_open(path, "wb") as handle:
        pq.write_table(table, handle, compression="zstd")


def write_parquet_and_secret(release: Release, path: str | os.PathLike[str], truth: Any,
                             truth_path: str | os.PathLike[str] | None) -> None:
    """Write ``release`` and its ``truth`` (a :class:`~anonymizer.model.release.Truth`, or None), each in the
    form its name asks for (:func:`wants_parquet`), as :mod:`anonymizer.io.json_writer` does: both
    temporary files are opened first, the truth records the SHA-256 of the release's JSON form
    (:func:`~anonymizer.io.json_writer.release_digest`), and the truth is renamed first, the release
    last, only when both are complete."""
    import dataclasses

    import pyarrow as pa
    import pyarrow.parquet as pq

    def encode(thing: Any, parquet: bool, to_table: Any) -> bytes:
        if not parquet:
            return (json.dumps(thing.to_dict(), ensure_ascii=False) + "\n").encode("utf-8")
        sink = pa.BufferOutputStream()
        pq.write_table(to_table(thing), sink, compression="zstd")
        return sink.getvalue().to_pybytes()

    with_truth = truth is not None and truth_path is not None
    specs = ([(truth_path, "wb")] if with_truth else []) + [(path, "wb")]
    with atomic_files(specs) as handles:  # every temporary file opened before any work
        data = encode(release, wants_parquet(path), release_table)
        handles[-1].write(data)
        if with_truth:
            truth = dataclasses.replace(truth, release_sha256=release_digest(release))
            handles[0].write(encode(truth, wants_parquet(truth_path), truth_table))  # type: ignore[arg-type]


def _offsets(array: Any) -> np.ndarray:
    return np.asarray(array.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)


def _levels(column: Any, depth: int, source: str) -> tuple[list[np.ndarray], np.ndarray]:
    """Offsets of ``depth`` nested list levels of ``column`` and the leaf values (no nulls anywhere)."""
    offsets = []
    array = column
    for _ in range(depth):
        if array.null_count:
            raise InputError(f"{source}: null entries in a parquet release")
        offsets.append(_offsets(array))
        array = array.values
    if array.null_count:
        raise InputError(f"{source}: null entries in a parquet release")
    return offsets, array.to_numpy(zero_copy_only=False)


def arrays_from_table(table: Any, source: str) -> ReleaseArrays:
    """Validated :class:`ReleaseArrays` of a table of the layout above (InputError naming ``source`` if not)."""
    meta = (table.schema.metadata or {}).get(METADATA_KEY)
    if meta is None:
        raise InputError(f"{source}: a parquet file without the '{METADATA_KEY.decode()}' metadata, not a release")
    head = parse_json(meta.decode("utf-8", errors="strict"), f"{source}: release metadata")
    if not isinstance(head, dict) or head.get("format") != RELEASE_FORMAT:
        raise InputError(f"{source}: the metadata's 'format' must be {RELEASE_FORMAT!r}")
    terms = head.get("terms")
    if not isinstance(terms, list):
        raise InputError(f"{source}: the metadata's 'terms' must be a list of strings")
    if not table.schema.remove_metadata().equals(_schema()):
        raise InputError(f"{source}: the columns are not those of a parquet release "
                         f"(id, joint, size, chunks, term_chunk, children)")
    cols = {name: table.column(name).combine_chunks() for name in table.column_names}
    for name, col in cols.items():
        if col.null_count:
            raise InputError(f"{source}: column {name!r} has null entries")
    ids = cols["id"].to_pylist()
    joint = cols["joint"].to_numpy(zero_copy_only=False).astype(bool)
    n = int(np.count_nonzero(~joint))
    if joint[:n].any():
        raise InputError(f"{source}: every simple cluster must come before the joint clusters")
    size = np.asarray(cols["size"].to_numpy(zero_copy_only=False), dtype=np.int64)
    if (size[n:] != 0).any():
        raise InputError(f"{source}: a joint cluster's 'size' must be 0")
    (node_off, sub_off, term_off), values = _levels(cols["chunks"], 3, source)
    (tc_off,), tc_terms = _levels(cols["term_chunk"], 1, source)
    (kid_off,), kids = _levels(cols["children"], 1, source)
    rows = len(ids)
    for what, off, length, per_row in (("chunks", node_off, sub_off.size - 1, True),
                                       ("sub-records", sub_off, term_off.size - 1, False),
                                       ("terms", term_off, values.size, False),
                                       ("term_chunk", tc_off, tc_terms.size, True),
                                       ("children", kid_off, kids.size, True)):
        if (per_row and off.size != rows + 1) or off[0] != 0 or off[-1] != length or (np.diff(off) < 0).any():
            raise InputError(f"{source}: malformed offsets of the {what!r} lists")
    if (tc_off[n:] != tc_off[n]).any():
        raise InputError(f"{source}: a joint cluster's 'term_chunk' must be empty")
    if (kid_off[: n + 1] != 0).any():
        raise InputError(f"{source}: a simple cluster's 'children' must be empty")
    # Split the node rows into record chunks (simple clusters) and shared chunks (joint clusters).
    c_end = int(node_off[n])
    s_end = int(sub_off[c_end])
    arrays = ReleaseArrays(
        params=head.get("params"),  # type: ignore[arg-type]  # validate() checks it
        terms=terms,
        cluster_ids=ids[:n],
        cluster_size=size[:n],
        chunk_off=node_off[: n + 1],
        sub_off=sub_off[: c_end + 1],
        term_off=term_off[: s_end + 1],
        sub_terms=np.asarray(values[: int(term_off[s_end])], dtype=np.int32),
        term_chunk_off=tc_off[: n + 1],
        term_chunk_terms=np.asarray(tc_terms, dtype=np.int32),
        joint_ids=ids[n:],
        child_off=kid_off[n:] - kid_off[n],
        children=np.asarray(kids, dtype=np.int64),
        shared_chunk_off=node_off[n:] - c_end,
        shared_sub_off=sub_off[c_end:] - s_end,
        shared_term_off=term_off[s_end:] - int(term_off[s_end]),
        shared_terms=np.asarray(values[int(term_off[s_end]):], dtype=np.int32),
    )
    return validate(arrays, source)


def read_release_parquet(path: str | os.PathLike[str]) -> Release:
    """Read and validate a parquet release (bounds in the module docstring); the clusters are built lazily."""
    import pyarrow as pa

    source = str(path)
    try:
        handle = open_bounded(path)
        if not handle.schema_arrow.remove_metadata().equals(_schema()):
            raise InputError(f"{source}: the columns are not those of a parquet release "
                             f"(id, joint, size, chunks, term_chunk, children)")
        table = handle.read()
    except InputError:
        raise
    except (pa.ArrowException, OSError, ValueError, TypeError) as exc:
        raise InputError(f"{source}: not a readable parquet release ({str(exc).splitlines()[0][:120]})") from None
    try:
        return Release.from_arrays(arrays_from_table(table, source), source)
    except UnicodeDecodeError:
        raise InputError(f"{source}: a string of the release is not valid UTF-8") from None
