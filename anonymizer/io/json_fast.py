"""Read a ``disassociated/1`` JSON release straight into :class:`~anonymizer.model.arrays.ReleaseArrays`.

``json.loads`` of a large release spends its time creating millions of small lists and strings
(6.7 s of a 100 MB release); pyarrow's JSON reader (C++) parses the same file into columns in
about 1.5 s, and the terms are then dictionary-encoded into the sorted vocabulary in numpy.

This is a fast path, never a second reading of the format: :func:`read_release_json_arrays`
returns ``None`` whenever the file is anything but a plain, canonical release (bigger than the
bound, a NUL byte, a byte order mark, not UTF-8, nested deeper than a release is, a repeated key, a value of another
type, a missing key, unsorted or repeated terms in a sub-record, anything :func:`validate` refuses),
and the caller then reads it with ``json.loads`` and :meth:`Release.from_dict`, which give the
result or the one-line error they always gave. So both paths give the same release.

Nesting is bounded before pyarrow sees the bytes (pyarrow's parser recurses and would crash on a
deeply nested file): :func:`json_depth` counts brackets outside strings with numpy.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from anonymizer.model.arrays import ReleaseArrays, validate
from anonymizer.model.release import MAX_JSON_BYTES, RELEASE_FORMAT
from corpora.common.errors import InputError
from corpora.io.tokens import factorize_spans

__all__ = ["MAX_RELEASE_DEPTH", "MIN_FAST_BYTES", "json_depth", "read_release_json_arrays", "arrays_from_json_bytes"]

MIN_FAST_BYTES = 4 << 20
"""Smaller JSON files are read with ``json.loads`` (faster than importing pyarrow, about 0.3 s)."""

MAX_RELEASE_DEPTH = 6
"""Deepest bracket nesting of a release: {clusters: [{record_chunks: [[[term, ...]]]}]}."""


_DELETE = bytes(c for c in range(256) if c not in b'"[]{}')


def json_depth(data: bytes) -> int:
    """The deepest nesting of ``[``/``{`` outside strings in the JSON text ``data`` (-1 if the brackets
    do not balance). Escaped backslashes, then escaped quotes are dropped, then everything but
    quotes and brackets, then adjacent pairs of quotes (C-speed ``bytes`` methods); numpy counts what
    is left."""
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    # Dropping two adjacent quotes changes no bracket's count of quotes before it by an odd number.
    s = np.frombuffer(data.translate(None, _DELETE).replace(b'""', b""), dtype=np.uint8)
    quote = s == 34
    outside = ~quote & (np.cumsum(quote, dtype=np.int64) % 2 == 0)
    step = np.where((s[outside] == 91) | (s[outside] == 123), 1, -1)
    depth = np.cumsum(step, dtype=np.int64)
    if depth.size and (depth[-1] != 0 or depth.min() < 0):
        return -1
    return int(depth.max()) if depth.size else 0


_INTEGERS = {"int32": np.int32, "int64": np.int64, "uint32": np.uint32, "uint64": np.uint64}


def _numpy(array: Any) -> np.ndarray:
    """A fixed-width integer pyarrow array without nulls as numpy, read from its buffer (pyarrow's own
    ``to_numpy`` imports pandas, 0.3-0.5 s of a reading)."""
    dtype = np.dtype(_INTEGERS[str(array.type)])
    if array.null_count:
        raise ValueError("null in an integer column")
    data = array.buffers()[1]
    if data is None or not len(array):
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def _strings(array: Any) -> list[str] | None:
    import pyarrow as pa

    if not pa.types.is_string(array.type) or array.null_count:
        return None
    return array.to_pylist()


def _lists(array: Any, depth: int) -> tuple[list[np.ndarray], Any] | None:
    """Offsets of ``depth`` nested list levels and the leaf array; None on a null or a non-list.

    An empty level that pyarrow typed ``null`` (every list below it empty) gives empty levels."""
    import pyarrow as pa

    offsets: list[np.ndarray] = []
    for level in range(depth):
        if pa.types.is_null(array.type):
            if len(array):
                return None
            offsets.extend(np.zeros(1, dtype=np.int64) for _ in range(depth - level))
            return offsets, pa.array([], pa.string())
        if not pa.types.is_list(array.type) or array.null_count:
            return None
        off = _numpy(array.offsets).astype(np.int64)
        if off[0] != 0:
            return None
        offsets.append(off)
        array = array.values
    if pa.types.is_null(array.type):
        if len(array):
            return None
        array = pa.array([], pa.string())
    return offsets, array


def _field(struct: Any, name: str, default_empty: bool) -> Any:
    import pyarrow as pa

    if struct.type.get_field_index(name) < 0:
        if not default_empty:
            return None
        return pa.ListArray.from_arrays(pa.array(np.zeros(len(struct) + 1, dtype=np.int32)), pa.array([], pa.string()))
    return struct.field(name)


def arrays_from_json_bytes(data: bytes, source: str = "release") -> ReleaseArrays | None:
    """The validated arrays of the release JSON ``data``, or None if the fast path does not apply."""
    import pyarrow as pa
    import pyarrow.json as pj

    if b"\0" in data or data.startswith(b"\xef\xbb\xbf"):  # json.loads refuses a byte order mark, pyarrow not
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    depth = json_depth(data)
    if not 1 <= depth <= MAX_RELEASE_DEPTH:
        return None
    try:
        table = pj.read_json(pa.BufferReader(data),
                             read_options=pj.ReadOptions(block_size=len(data) + 64, use_threads=True),
                             parse_options=pj.ParseOptions(newlines_in_values=True))
    except (pa.ArrowException, ValueError, OSError):
        return None
    if table.num_rows != 1 or "clusters" not in table.column_names or "params" not in table.column_names:
        return None
    try:
        return _arrays(table, source)
    except (InputError, pa.ArrowException, ValueError, TypeError, KeyError, IndexError, OverflowError,
            AttributeError):
        return None


def _arrays(table: Any, source: str) -> ReleaseArrays | None:  # noqa: C901 (older code, at most 20)
    import pyarrow as pa

    row = {name: table.column(name).combine_chunks() for name in table.column_names}
    if row.get("format") is None or row["format"].to_pylist() != [RELEASE_FORMAT]:
        return None
    if not pa.types.is_struct(row["params"].type) or row["params"].null_count:
        return None
    params = row["params"].to_pylist()[0]
    clusters = _lists(row["clusters"], 1)
    if clusters is None or not pa.types.is_struct(clusters[1].type) or clusters[1].null_count:
        return None
    cl = clusters[1]
    ids = _strings(_field(cl, "id", False)) if len(cl) else []
    size_col = _field(cl, "size", False)
    if ids is None or (len(cl) and (size_col is None or not pa.types.is_int64(size_col.type) or size_col.null_count)):
        return None
    sizes = _numpy(size_col).astype(np.int64) if len(cl) else np.zeros(0, np.int64)
    record = _lists(_field(cl, "record_chunks", False), 3) if len(cl) else None
    if len(cl) and record is None:
        return None
    term_chunk = _lists(_field(cl, "term_chunk", True), 1) if len(cl) else None
    if len(cl) and term_chunk is None:
        return None
    joints_col = row.get("joint_clusters")
    joint_ids: list[str] = []
    children: list[str] = []
    child_off = np.zeros(1, dtype=np.int64)
    shared = None
    if joints_col is not None and not (pa.types.is_null(joints_col.type)):
        joints = _lists(joints_col, 1)
        if joints is None:
            return None
        jt = joints[1]
        if len(jt):
            if not pa.types.is_struct(jt.type) or jt.null_count:
                return None
            found_ids = _strings(_field(jt, "id", False))
            kids = _lists(_field(jt, "children", False), 1)
            shared = _lists(_field(jt, "shared_chunks", False), 3)
            if found_ids is None or kids is None or shared is None:
                return None
            found_children = _strings(kids[1])
            if found_children is None:
                return None
            joint_ids, children, child_off = found_ids, found_children, kids[0][0]
    zero = [np.zeros(1, dtype=np.int64)] * 3
    record = record or (zero, pa.array([], pa.string()))  # pa.array only when needed: it imports pandas
    term_chunk = term_chunk or ([np.zeros(len(cl) + 1, dtype=np.int64)], pa.array([], pa.string()))
    shared = shared or ([np.zeros(len(joint_ids) + 1, dtype=np.int64), *zero[1:]], pa.array([], pa.string()))
    leaves = [record[1], term_chunk[1], shared[1]]
    for leaf in leaves:
        if not pa.types.is_string(leaf.type) or leaf.null_count:
            return None
    words = pa.concat_arrays(leaves)
    terms, codes = _encoded(words)
    n_rec, n_tc = len(record[1]), len(term_chunk[1])
    number = {name: i for i, name in enumerate([*ids, *joint_ids])}
    if len(number) != len(ids) + len(joint_ids) or any(ch not in number for ch in children):
        return None
    arrays = ReleaseArrays(
        params=params,
        terms=terms,
        cluster_ids=ids,
        cluster_size=sizes,
        chunk_off=record[0][0], sub_off=record[0][1], term_off=record[0][2],
        sub_terms=codes[:n_rec],
        term_chunk_off=term_chunk[0][0],
        term_chunk_terms=codes[n_rec:n_rec + n_tc],
        joint_ids=joint_ids,
        child_off=child_off,
        children=np.asarray([number[ch] for ch in children], dtype=np.int64),
        shared_chunk_off=shared[0][0], shared_sub_off=shared[0][1], shared_term_off=shared[0][2],
        shared_terms=codes[n_rec + n_tc:],
    )
    return validate(arrays, source)


def _encoded(words: Any) -> tuple[list[str], np.ndarray]:
    """The sorted distinct strings of a pyarrow string array and each string's int32 position among them, factorized
    on the array's UTF-8 buffer (:func:`corpora.io.tokens.factorize_spans`, which wants spans without a NUL byte;
    ``pyarrow.compute``, imported otherwise, is a tenth of a second)."""
    if not len(words):
        return [], np.zeros(0, dtype=np.int32)
    offsets = np.frombuffer(words.buffers()[1], dtype=np.int32, count=len(words) + 1, offset=4 * words.offset)
    data = words.buffers()[2]
    blob = data.to_pybytes() if data is not None else b""
    buf = np.frombuffer(blob, dtype=np.uint8)
    if b"\0" in blob:  # a JSON escape \u0000 in a term: the compute functions encode it
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(words)
        order = _numpy(pc.sort_indices(encoded.dictionary))
        rank = np.empty(order.size, dtype=np.int32)
        rank[order] = np.arange(order.size, dtype=np.int32)
        words_of = encoded.dictionary.to_pylist()
        return [words_of[i] for i in order.tolist()], rank[_numpy(encoded.indices).astype(np.int64)]
    starts = offsets[:-1].astype(np.int64)
    codes, texts = factorize_spans(blob, buf, starts, np.diff(offsets).astype(np.int64))
    order = sorted(range(len(texts)), key=texts.__getitem__)
    rank = np.empty(len(texts), dtype=np.int32)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(texts), dtype=np.int32)
    return [texts[i] for i in order], rank[codes]


def read_release_json_arrays(path: str | os.PathLike[str]) -> ReleaseArrays | None:
    """The validated arrays of the JSON release file ``path``, or None if the fast path does not apply
    (the caller then reads the file the ordinary way, see the module docstring; so are files
    smaller than :data:`MIN_FAST_BYTES`)."""
    try:
        with open(path, "rb") as handle:
            if not MIN_FAST_BYTES <= os.fstat(handle.fileno()).st_size <= MAX_JSON_BYTES:
                return None
            data = handle.read(MAX_JSON_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_JSON_BYTES:
        return None
    return arrays_from_json_bytes(data, str(path))
