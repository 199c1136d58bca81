"""Disassociation past one machine, on Dask: ``python -m anonymizer INPUT ... --executor dask``.

The run is the split run of :mod:`anonymizer.disassociation.parts` (read its docstring: HORPART's first
``split_depth`` levels over the whole dataset, then every part disassociated on its own),
spread over a Dask cluster:

1. **Reading.** The input file is cut into byte blocks at line ends (``fsspec``'s
   ``read_block``, as ``dask.bytes`` does; local paths, or any URL fsspec reads, such as
   ``s3://`` on a real cluster); each worker parses its blocks with the same parser as
   :func:`corpora.io.formats.read_dataset` and keeps them as compact CSR arrays
   (:class:`~corpora.dataset.TransactionDataset`). A record's id is its position in the whole
   file: blocks are numbered in file order and their record counts summed.
2. **The first splits.** For each level, every block counts the term supports of the records in
   each node still to split (the global term supports, at the root); the scheduler's client adds
   the counts up and applies :func:`anonymizer.disassociation.parts.choose_split`, the rule the single-process
   run applies to the same counts. Only the counts travel, never the records.
3. **The parts.** Every block cuts its records by part; each part's pieces go to one worker,
   which joins them in file order (the records' ids ascending, the vocabulary of the terms they
   hold, sorted) and disassociates the part with its own seed
   (:func:`corpora.common.seeds.part_seed`) exactly as :func:`anonymizer.disassociation.pipeline.run_parts` does.
4. **REFINE across the parts.** Each worker also sends a summary of its part's term chunks
   (:class:`anonymizer.disassociation.split_refine.PartSummary`); the client runs the pooled REFINE
   pass over all of them (:mod:`anonymizer.disassociation.split_refine`), the same code as the
   single-process run, while the parts wait in a temporary file on the client's disk.
5. **One release.** The client then streams the parts in part order into one release and truth
   (:class:`anonymizer.io.json_writer.ReleaseWriter`), each with the terms the pooled joint clusters
   took out of its term chunks, and the pooled joint clusters last
   (:func:`anonymizer.disassociation.split_stream.pool_results`); it holds one part at a time.

So the same input, parameters, seed and split depth give the same bytes on Dask as in one
process (``tests/test_distributed.py`` checks it with a 2-worker ``LocalCluster``).

Formats: the line formats (``spmf``, ``basket``, ``jsonl``), uncompressed; an SPMF ``@ITEM``
rename line (which applies to the whole file) is refused, as are the table formats (``kdd``,
``long``, ``parquet``), each in one line: convert them with ``python -m corpora convert`` first.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from anonymizer.disassociation.parts import PartResult, choose_split, holders
from anonymizer.disassociation.pipeline import disassociate_part
from anonymizer.disassociation.split_stream import pool_results
from anonymizer.model.params import DisassociationParams
from corpora.common.errors import InputError
from corpora.dataset import TransactionDataset

__all__ = ["DEFAULT_BLOCKSIZE", "DEFAULT_SPLIT_DEPTH", "DaskRun", "check_dask_input", "dask_client", "plan_dask_run"]

DEFAULT_BLOCKSIZE = 64 * 2**20
"""The largest block of input one task reads (bytes); smaller files are cut into four blocks per worker."""

DEFAULT_SPLIT_DEPTH = 3
"""Split depth of ``--executor dask`` when none is given: up to 8 parts."""

LINE_FORMATS = ("spmf", "basket", "jsonl")

Path_ = tuple[bool, ...]
"""A node of the split tree: the answers (holds the split term?) from the root."""


@dataclass
class DaskRun:
    """What the client learned before the parts run: records, global term supports, the parts' paths
    and sizes, and the parts themselves as an iterator (in part order; consume it while the client
    is open)."""

    n_records: int
    supports: dict[str, int]
    paths: list[tuple[tuple[str, bool], ...]]
    sizes: list[int]
    results: Iterator[PartResult] = field(repr=False, default_factory=lambda: iter(()))


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A client of the scheduler at ``scheduler``, or of a new ``LocalCluster`` of ``workers``
    single-threaded worker processes (default 2) when none is given; closed on exit."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - dask[distributed] is a dependency
        raise InputError("--executor dask needs dask[distributed]: pip install 'dask[distributed]'") from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {str(exc)[:120]}") from None
        with client:
            yield client
        return
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    with LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        yield client


# ---------------------------------------------------------------------------------------------
# Tasks (run on the workers)
# ---------------------------------------------------------------------------------------------

def _renames_refused(path: str) -> InputError:
    return InputError(f"{path}: SPMF @ITEM renames apply to the whole file; --executor dask cannot read them "
                      "(convert the file with python -m corpora convert first)")


def _renames_at_head(path: str, limit: int = 1 << 20) -> bool:
    """True when the SPMF metadata lines opening ``path`` (those starting with ``@``, read up to ``limit``
    bytes) rename items; each block's parser still refuses a rename found further on."""
    with open(path, "rb") as handle:
        for line in handle:
            if not line.startswith(b"@") or handle.tell() > limit:
                return False
            if line.startswith(b"@ITEM="):
                return True
    return False


def _parse_block(path: str, offset: int, length: int, fmt: str, first: bool, options: Mapping[str, Any]
                 ) -> TransactionDataset:
    """The records of one byte block of ``path`` (whole lines), parsed as :func:`read_dataset` would."""
    import fsspec
    from fsspec.utils import read_block

    from corpora.io.formats import parse_dataset

    with fsspec.open(path, "rb") as handle:
        data = read_block(handle, offset, length, delimiter=b"\n")
    source = f"{path} (block at byte {offset})"
    if b"\0" in data:
        raise InputError(f"{source}: binary data (a NUL byte)")
    if fmt == "spmf" and b"@ITEM=" in data:
        raise _renames_refused(path)
    if not data.strip():
        return TransactionDataset((), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32))
    header = options.get("header") if first or fmt != "basket" else False  # a header is the file's first line
    try:
        return parse_dataset(data, fmt, source=source, delimiter=options.get("delimiter"), header=header)
    except InputError as exc:
        if str(exc) == f"{source}: empty file (no transactions)":  # only comments in this block
            return TransactionDataset((), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32))
        raise


def _holds(block: TransactionDataset, term: str) -> np.ndarray:
    """Which of the block's records hold ``term`` (none when the block does not know it)."""
    position = int(np.searchsorted(np.asarray(block.vocabulary, dtype=object), term)) if block.vocabulary else 0
    if position < len(block.vocabulary) and block.vocabulary[position] == term:
        return holders(block, position)
    return np.zeros(len(block), dtype=bool)


def _assign(block: TransactionDataset, decisions: Mapping[Path_, str]) -> tuple[np.ndarray, list[Path_]]:
    """The node of every record of ``block`` under the split decisions so far, and the node paths."""
    node = np.zeros(len(block), dtype=np.int32)
    keys: list[Path_] = [()]
    frontier = [0]
    while frontier:
        nxt: list[int] = []
        for i in frontier:
            term = decisions.get(keys[i])
            if term is None:
                continue
            at = node == i
            held = _holds(block, term)
            j = len(keys)
            keys += [(*keys[i], True), (*keys[i], False)]
            node[at & held] = j
            node[at & ~held] = j + 1
            nxt += [j, j + 1]
        frontier = nxt
    return node, keys


def _block_counts(block: TransactionDataset, decisions: Mapping[Path_, str], open_nodes: list[Path_]
                  ) -> dict[Path_, tuple[int, list[str], np.ndarray]]:
    """Per open node: the block's records in it, and the term supports over them (terms, counts)."""
    node, keys = _assign(block, decisions)
    out: dict[Path_, tuple[int, list[str], np.ndarray]] = {}
    position = {key: i for i, key in enumerate(keys)}
    lengths = np.diff(np.asarray(block.indptr))
    entry_node = np.repeat(node, lengths)
    indices = np.asarray(block.indices)
    for key in open_nodes:
        i = position.get(key)
        if i is None:
            continue
        counts = np.bincount(indices[entry_node == i], minlength=len(block.vocabulary))
        present = np.flatnonzero(counts)
        out[key] = (int(np.count_nonzero(node == i)), [block.vocabulary[t] for t in present.tolist()],
                    counts[present])
    return out


def _block_pieces(block: TransactionDataset, offset: int, decisions: Mapping[Path_, str], leaves: list[Path_]
                  ) -> list[tuple[np.ndarray, TransactionDataset]]:
    """The block's records of every leaf, in leaf order: (ids in the whole file, the records)."""
    node, keys = _assign(block, decisions)
    position = {key: i for i, key in enumerate(keys)}
    out = []
    for key in leaves:
        local = np.flatnonzero(node == position[key]) if key in position else np.zeros(0, dtype=np.int64)
        out.append((local + offset, block.subset(local)))
    return out


def _join_pieces(pieces: list[tuple[np.ndarray, TransactionDataset]]) -> tuple[np.ndarray, TransactionDataset]:
    """The pieces of one part joined in file order, over the sorted vocabulary of their terms."""
    vocabulary = sorted(set().union(*(p.vocabulary for _, p in pieces)))
    where = {t: i for i, t in enumerate(vocabulary)}
    ids, indptrs, indices = [], [np.zeros(1, dtype=np.int64)], []
    total = 0
    for records, piece in pieces:
        if not len(records):
            continue
        relabel = np.fromiter((where[t] for t in piece.vocabulary), dtype=np.int32, count=len(piece.vocabulary))
        ids.append(records)
        indices.append(relabel[np.asarray(piece.indices)])
        indptrs.append(np.asarray(piece.indptr[1:], dtype=np.int64) + total)
        total += len(piece.indices)
    dataset = TransactionDataset(tuple(vocabulary), np.concatenate(indptrs),
                                 np.concatenate(indices) if indices else np.zeros(0, dtype=np.int32))
    return (np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)), dataset


def _run_part(index: int, params: DisassociationParams, seed: int, split: bool, encode: bool, with_truth: bool,
              *pieces: tuple[np.ndarray, TransactionDataset]) -> PartResult:
    records, dataset = _join_pieces(list(pieces))
    return disassociate_part(dataset, index, records, params, seed, split=split, encode=encode,
                             with_truth=with_truth)


def _pick(pieces: list, i: int) -> Any:
    return pieces[i]


# ---------------------------------------------------------------------------------------------
# The client's side
# ---------------------------------------------------------------------------------------------

def _blocks(path: str, blocksize: int | None, n_workers: int) -> list[tuple[int, int]]:
    """Byte ranges of ``path``: ``blocksize`` bytes each, or (``None``) enough blocks for every worker
    to hold four, between 1 MiB and :data:`DEFAULT_BLOCKSIZE` each."""
    import fsspec

    try:
        fs, _, paths = fsspec.get_fs_token_paths(path)
        size = int(fs.size(paths[0]))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read ({str(exc)[:100]})") from None
    if size == 0:
        raise InputError(f"{path}: empty file (no transactions)")
    if blocksize is None:
        blocksize = min(DEFAULT_BLOCKSIZE, max(2**20, -(-size // (4 * max(n_workers, 1)))))
    return [(start, min(blocksize, size - start)) for start in range(0, size, blocksize)]


def check_dask_input(path: str, fmt: str | None = None, options: Mapping[str, Any] | None = None) -> tuple[str, str]:
    """(the path as the workers should open it, its format), or :class:`InputError` for an input the
    Dask executor cannot cut into blocks (checked before any cluster starts)."""
    from corpora.io.formats import resolve_format

    options = options or {}
    if str(path).endswith((".gz", ".bz2", ".xz", ".zst")):
        raise InputError(f"{path}: --executor dask reads uncompressed files (a compressed file cannot be cut "
                         "into blocks); decompress it first")
    local = "://" not in str(path)
    if local and not os.path.isfile(path):
        raise InputError(f"{path}: no such file (--executor dask reads a file, not a dataset name)")
    declared = fmt
    fmt = resolve_format(str(path), fmt, header=options.get("header"), user_column=options.get("user_column"),
                         item_column=options.get("item_column"))
    if fmt not in LINE_FORMATS:
        raise InputError(f"--executor dask reads the line formats ({', '.join(LINE_FORMATS)}), not {fmt}: "
                         "convert the file with python -m corpora convert first")
    if local and fmt == "spmf" and _renames_at_head(path):
        raise _renames_refused(path)
    if local and fmt == "basket" and declared is None:
        from corpora.io.formats import sniff_long_layout

        sniff_long_layout(path, options.get("delimiter"))  # the same rule as the whole-file reader, on the head
    return (os.path.abspath(path) if local else path), fmt


def plan_dask_run(client: Any, path: str, params: DisassociationParams, seed: int, *, fmt: str | None = None,
                  blocksize: int | None = None, options: Mapping[str, Any] | None = None, encode: bool = False,
                  with_truth: bool = True, spool_dir: str | None = None) -> DaskRun:
    """Read ``path`` on the cluster, take the first ``params.split_depth`` splits, and return the run
    whose ``results`` yields the parts disassociated with ``params`` in order (see the module doc).
    ``encode=True`` has the workers send each part as JSON pieces
    (:class:`anonymizer.io.json_writer.EncodedPart`) and its figures instead of Python objects: the
    client then only writes bytes. With REFINE, the parts come back after REFINE across the parts
    (:func:`anonymizer.disassociation.split_refine.pool_results`, encoded parts waiting in a temporary
    file in ``spool_dir``), followed by one more part holding the joint clusters that span parts."""
    split_depth, size = params.split_depth, int(params.max_cluster_size)  # type: ignore[arg-type]
    options = dict(options or {})
    path, fmt = check_dask_input(path, fmt, options)
    workers = sorted(client.scheduler_info().get("workers", {}))
    blocks = [client.submit(_parse_block, path, start, length, fmt, start == 0, options, pure=False)
              for start, length in _blocks(path, blocksize, len(workers))]
    sizes = client.gather([client.submit(len, b) for b in blocks])
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64).tolist()
    n_records = int(offsets[-1])
    if n_records == 0:
        raise InputError(f"{path}: empty file (no transactions)")
    params.check_records(n_records)

    decisions: dict[Path_, str] = {}
    supports: dict[str, int] = {}
    open_nodes: list[Path_] = [()]
    final: list[Path_] = []
    size_of: dict[Path_, int] = {}
    for level in tqdm(range(max(split_depth, 1)), desc="splitting on dask", unit="level", leave=False, disable=None):
        counted = client.gather([client.submit(_block_counts, b, dict(decisions), open_nodes) for b in blocks])
        nxt: list[Path_] = []
        for key in open_nodes:
            n = sum(c[key][0] for c in counted if key in c)
            size_of[key] = n
            merged: dict[str, int] = {}
            for c in counted:
                if key in c:
                    for term, count in zip(c[key][1], c[key][2].tolist(), strict=True):
                        merged[term] = merged.get(term, 0) + count
            if key == ():
                supports = merged
            terms = sorted(merged)
            best = (choose_split(n, np.asarray([merged[t] for t in terms], dtype=np.int64), params.k,
                                 size) if level < split_depth else None)
            if best is None:
                final.append(key)
            else:
                decisions[key] = terms[best]
                nxt += [(*key, True), (*key, False)]
                size_of[(*key, True)] = merged[terms[best]]
                size_of[(*key, False)] = n - merged[terms[best]]
        open_nodes = nxt
    final += open_nodes  # the children of the last level's splits
    leaves = sorted(final, key=lambda key: tuple(not held for held in key))  # depth first, D1 before D2
    paths = []
    for key in leaves:
        steps, node = [], ()
        for held in key:
            steps.append((decisions[node], held))
            node = (*node, held)
        paths.append(tuple(steps))
    split = len(leaves) > 1

    def results() -> Iterator[PartResult]:
        pieces = [client.submit(_block_pieces, b, offsets[i], decisions, leaves) for i, b in enumerate(blocks)]
        window = max(2, 2 * len(workers))

        def submit(index: int) -> Any:  # parts go round the workers (the pieces' locality would pile them up)
            place = {"workers": [workers[index % len(workers)]], "allow_other_workers": True} if workers else {}
            return client.submit(_run_part, index, params, seed, split, encode, with_truth,
                                 *[client.submit(_pick, p, index) for p in pieces], **place)

        pending = deque(submit(index) for index in range(min(window, len(leaves))))
        following = len(pending)
        with tqdm(total=len(leaves), desc="parts on dask", unit="part", leave=False, disable=None) as bar:
            while pending:
                future = pending.popleft()
                if following < len(leaves):  # at most `window` finished parts wait on the workers
                    pending.append(submit(following))
                    following += 1
                yield future.result()
                future.release()
                bar.update()
        del blocks[:], pieces[:]

    pooled = pool_results(results(), params, seed, supports, spool_dir)  # REFINE across the parts, on the client
    return DaskRun(n_records, supports, paths, [size_of[key] for key in leaves], pooled)
