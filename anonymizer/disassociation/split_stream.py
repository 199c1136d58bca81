"""Applying REFINE across the parts of a split run while the parts stream into one release.

:func:`pool_results` sits between the parts (as :func:`anonymizer.disassociation.pipeline.run_parts`
or the Dask executor, :mod:`anonymizer.disassociation.distributed`, yield them) and whoever writes or
merges them. It collects every part's summary, runs the pooled REFINE pass
(:func:`anonymizer.disassociation.split_refine.plan_pool`, whose docstring gives the choices), takes
the terms the pooled joint clusters place out of the parts' term chunks, and yields the parts in
order followed by one more part holding the pooled joint clusters (no simple cluster; its children
are named as the merged release names them, so the writer keeps those names, see
:func:`anonymizer.io.json_writer.renumbered`).

Every part must be done before the first one is written, because any part may lose terms to a
pooled joint. Encoded parts (the command line's stream, a Dask worker's JSON pieces) wait in a
temporary file, so the client holds only the summaries; a part that loses terms has just those
clusters decoded and encoded again. The same client code runs for both executors, so they write
the same bytes.
"""

from __future__ import annotations

import dataclasses
import itertools
import pickle
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import numpy as np
import orjson

from anonymizer.disassociation.parts import PartResult, RunFigures
from anonymizer.disassociation.split_refine import PartSummary, PoolPlan, plan_pool
from anonymizer.io.json_writer import EncodedPart, encode_part
from anonymizer.model.params import DisassociationParams
from anonymizer.model.provenance import dumps
from anonymizer.model.release import Cluster, ClusterTruth, Release, Truth

__all__ = ["pool_results"]



def _without(release: Release, truth: Truth | None, removed: Mapping[int, set[str]]) -> tuple[Release, Truth | None]:
    """``release`` and ``truth`` with the ``removed`` terms out of their clusters' term chunks."""
    clusters = list(release.clusters)
    truths = list(truth.clusters) if truth is not None else []
    for position, gone in removed.items():
        c = clusters[position]
        clusters[position] = Cluster(c.id, c.size, c.record_chunks, [t for t in c.term_chunk if t not in gone])
        if truth is not None:
            t = truths[position]
            truths[position] = ClusterTruth(t.id, t.records, t.record_chunks,
                                            {term: ids for term, ids in t.term_chunk.items() if term not in gone})
    out = Release(release.params, clusters, release.joint_clusters)
    return out, (dataclasses.replace(truth, clusters=truths) if truth is not None else None)


def _patch_piece(cid: str, tail: bytes, gone: set[str]) -> bytes:
    """One encoded cluster (release or truth) without the ``gone`` terms in its term chunk."""
    head = b'{"id":' + dumps(cid)
    value = orjson.loads(head + tail)
    chunk = value["term_chunk"]
    value["term_chunk"] = ([t for t in chunk if t not in gone] if isinstance(chunk, list)
                           else {t: ids for t, ids in chunk.items() if t not in gone})
    return dumps(value)[len(head):]


def _patch_encoded(part: EncodedPart, removed: Mapping[int, set[str]]) -> None:
    """:func:`_without` on an encoded part, in place (only the clusters that lose terms are decoded)."""
    for position, gone in removed.items():
        cid = part.cluster_ids[position]
        part.clusters[position] = _patch_piece(cid, part.clusters[position], gone)
        if part.truth_clusters is not None:
            part.truth_clusters[position] = _patch_piece(cid, part.truth_clusters[position], gone)


def _apply(result: PartResult, removed: Mapping[int, set[str]]) -> PartResult:
    if not removed:
        return result
    if result.encoded is not None:
        _patch_encoded(result.encoded, removed)
    elif result.release is not None:
        result.release, result.truth = _without(result.release, result.truth, removed)
    return result


def _pooled_part(plan: PoolPlan, index: int, params: Mapping[str, object], encoded: bool, with_truth: bool,
                 seconds: float) -> PartResult:
    """The pooled joint clusters as one more part (no simple cluster; children in earlier parts)."""
    release, truth = Release(params, [], plan.joints), Truth([], plan.joint_truths)
    times = {"horpart": 0.0, "verpart": 0.0, "refine": seconds, "build": 0.0, "safe": 0.0}
    result = PartResult(index, release, truth, np.zeros(0, dtype=np.int64), times)
    if encoded:
        result.figures = RunFigures(seconds=dict(times))
        result.figures.add(release, truth)
        result.figures.term_chunk_occurrences -= plan.moved
        result.encoded = encode_part(release, truth if with_truth else None)
        result.release = result.truth = None
    return result


def pool_results(results: Iterable[PartResult], params: DisassociationParams, seed: int,
                 supports: Mapping[str, int], spool_dir: str | Path | None = None) -> Iterator[PartResult]:
    """The parts of a split run with the pooled REFINE pass applied (module doc), in part order,
    followed by one more part holding the pooled joint clusters (when there are any).

    ``results`` are the parts as :func:`anonymizer.disassociation.pipeline.run_parts` or the Dask
    executor yield them, each with its summary (``PartResult.pool``); a run that is not split (no
    summary) or runs without REFINE passes through unchanged. Every part must be done before the
    first one is yielded: encoded parts wait in a temporary file (in ``spool_dir``), so only the
    summaries are held in memory; parts made of objects (the in-memory API) are kept as they are.
    ``supports`` are the term supports of the whole dataset.
    """
    results = iter(results)
    first = next(results, None)
    if first is None:
        return
    if first.pool is None or not params.refine:
        yield first
        yield from results
        return
    encoded = first.encoded is not None
    with_truth = (first.encoded.truth_clusters is not None) if first.encoded is not None else True
    summaries: list[PartSummary] = []
    held: list[PartResult | None] = []
    with tempfile.TemporaryFile(dir=spool_dir) as spool:
        for result in itertools.chain([first], results):
            if result.pool is None:
                raise ValueError("every part of a pooled run needs its summary (PartResult.pool)")
            summaries.append(result.pool)
            result.pool = None
            if encoded:
                pickle.dump(result, spool, protocol=pickle.HIGHEST_PROTOCOL)
            held.append(None if encoded else result)
        start = time.perf_counter()
        plan = plan_pool(summaries, supports, params.k, params.m, seed)
        seconds = time.perf_counter() - start
        del summaries
        spool.seek(0)
        for i in range(len(held)):
            result = pickle.load(spool) if encoded else held[i]
            held[i] = None
            yield _apply(result, plan.removed[i])  # type: ignore[arg-type]
    if plan.joints:
        yield _pooled_part(plan, len(held), params.to_json(), encoded, with_truth, seconds)
