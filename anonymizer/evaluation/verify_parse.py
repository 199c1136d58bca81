"""The verifier's own strict parser of a ``disassociated/1`` release (:mod:`anonymizer.evaluation.verify`).

Written out here rather than imported: the verifier does not use the engine's reader, so a
mistake in one is not repeated in the other. What it refuses (one :class:`InputError` naming the
first problem) and what it reports as a violation is listed in the docstring of
:mod:`anonymizer.evaluation.verify` ("Structure"); the format is Terrovitis2012 section 3
(clusters, record chunks, term chunks, joint clusters with shared chunks).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from corpora.common.errors import InputError

__all__ = ["RELEASE_FORMAT", "MAX_RECORDS", "ParsedCluster", "ParsedJoint", "ParsedRelease", "parse_params",
           "parse_release"]

RELEASE_FORMAT = "disassociated/1"
"""The format this verifier reads (written out here: the verifier does not import the engine's parser)."""


@dataclass
class ParsedCluster:
    """A cluster as read by the strict parser: sub-records as sorted tuples of distinct terms."""

    id: str
    size: int
    record_chunks: list[list[tuple[str, ...]]]
    term_chunk: list[str]


@dataclass
class ParsedJoint:
    """A joint cluster as read by the strict parser."""

    id: str
    children: list[str]
    shared_chunks: list[list[tuple[str, ...]]]


@dataclass
class ParsedRelease:
    """A well-typed release: k and m (None where fatal), its clusters and joint clusters, and the
    ids the checks mark."""

    k: int | None
    m: int | None
    clusters: list[ParsedCluster]
    joints: list[ParsedJoint]
    unsound: set[str]
    """Ids of clusters and joint clusters with a structural violation (no exact search there)."""
    flagged: set[str] = field(default_factory=set)
    """Ids of clusters and joint clusters with a chunk violation (k^m, Lemma 2, Property 1): their
    component fails already, so it is decided further only when it is small."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


MAX_RECORDS = 2**31 - 1
"""A release holds at most this many records (the cluster sizes added up)."""

_OPTIONAL_PARAMS: dict[str, type] = {"max_cluster_size": int, "horpart": str, "verpart": str, "refine": bool,
                                     "safe": bool, "identifiers_allowed": bool}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse_chunks(raw: Any, where: str, out: list[str], fatal: list[str],
                  trusted: bool = False) -> tuple[list[list[tuple[str, ...]]], bool]:
    """The chunks of ``raw`` as sorted term tuples; the flag says whether every sub-record was
    well formed (a repeated term or an empty sub-record is a violation, a wrong type is fatal).
    ``trusted``: the sub-records are sorted tuples of distinct terms already (module docstring)."""
    if trusted and isinstance(raw, list):
        return [list(chunk) for chunk in raw], True
    if not isinstance(raw, list):
        fatal.append(f"{where}s must be a list of chunks, got {_short(raw)}")
        return [], False
    sound = True
    chunks = []
    for j, chunk in enumerate(raw):
        if not isinstance(chunk, list):
            fatal.append(f"{where} {j}: a chunk must be a list of sub-records, got {_short(chunk)}")
            continue
        subs = []
        for p, sub in enumerate(chunk):
            if not isinstance(sub, list) or not all(isinstance(t, str) and t for t in sub):
                fatal.append(f"{where} {j}: sub-record {p} must be a list of non-empty strings, got {_short(sub)}")
            elif not sub:
                out.append(f"{where} {j}: sub-record {p} is empty (empty sub-records are implied, never listed)")
                sound = False
            else:
                if len(set(sub)) != len(sub):
                    out.append(f"{where} {j}: sub-record {p} {sub} repeats a term")
                    sound = False
                subs.append(tuple(sorted(set(sub))))
        chunks.append(subs)
    return chunks, sound


def parse_params(params: Any, fatal: list[str]) -> tuple[int | None, int | None]:
    """k and m of ``params`` (None where wrong); every fatal problem of the params goes to ``fatal``."""
    if not isinstance(params, Mapping):
        fatal.append(f"params must be an object, got {_short(params)}")
        return None, None
    k, m = params.get("k"), params.get("m")
    if not _is_int(k) or k < 2:
        fatal.append(f"params.k must be an integer >= 2, got {_short(k)}")
        k = None
    if not _is_int(m) or m < 1:
        fatal.append(f"params.m must be an integer >= 1, got {_short(m)}")
        m = None
    for key, value in params.items():
        if "seed" in key.lower():
            fatal.append(f"params.{key} is a seed, which must never be published (it replays the random choices "
                         "that hide the records)")
            continue
        want = _OPTIONAL_PARAMS.get(key)
        if want is int and not (_is_int(value) and value >= (k or 2)):
            fatal.append(f"params.{key} must be an integer >= k, got {_short(value)}")
        elif want is not None and want is not int and not isinstance(value, want):
            fatal.append(f"params.{key} must be a {want.__name__}, got {_short(value)}")
        elif value is not None and not isinstance(value, (str, int, float, bool)):
            fatal.append(f"params.{key} must be a number, string or boolean, got {_short(value)}")
    return k, m


def _entries(obj: Mapping[str, Any], key: str, default: Any, seen: set[str],
             fatal: list[str]) -> Iterator[tuple[Mapping[str, Any], str]]:
    """The objects listed under ``key`` with their ids; a malformed entry or id is fatal and skipped."""
    raw = obj.get(key, default)
    if not isinstance(raw, list):
        fatal.append(f"'{key}' must be a list, got {_short(raw)}")
        return
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping):
            fatal.append(f"{key}[{i}] must be an object, got {_short(entry)}")
            continue
        eid = entry.get("id")
        if not isinstance(eid, str) or not eid or eid in seen:
            fatal.append(f"{key}[{i}]: 'id' must be a unique non-empty string, got {_short(eid)}")
            continue
        yield entry, eid


def _parse_clusters(obj: Mapping[str, Any], out: list[str], fatal: list[str], trusted: bool, seen: set[str],
                    records: dict[str, int], unsound: set[str]) -> list[ParsedCluster]:
    """The clusters of ``obj``; ``records`` gets each cluster's size, ``seen`` its id."""
    clusters: list[ParsedCluster] = []
    for c, cid in _entries(obj, "clusters", None, seen, fatal):
        seen.add(cid)
        name = f"cluster {cid}"
        size = c.get("size")
        if not _is_int(size) or not 1 <= size <= MAX_RECORDS:
            fatal.append(f"{name}: size must be a positive integer of at most {MAX_RECORDS}, got {_short(size)}")
            size = 0
        chunks, sound = _parse_chunks(c.get("record_chunks"), f"{name} record chunk", out, fatal, trusted)
        for j, chunk in enumerate(chunks):
            if size and len(chunk) > size:
                fatal.append(f"{name} record chunk {j}: {len(chunk)} sub-records exceed the cluster size {size}")
        terms = c.get("term_chunk", [])
        if not isinstance(terms, list) or not all(isinstance(t, str) and t for t in terms):
            fatal.append(f"{name}: the term chunk must be a list of non-empty strings, got {_short(terms)}")
            terms = []
        elif len(set(terms)) != len(terms):
            out.append(f"{name}: term chunk repeats a term")
            terms, sound = sorted(set(terms)), False
        if not sound:
            unsound.add(cid)
        records[cid] = size
        clusters.append(ParsedCluster(cid, size, chunks, list(terms)))
    return clusters


def _children(j: Mapping[str, Any], name: str, jid: str, seen: set[str], parent: dict[str, str],
              fatal: list[str]) -> list[str]:
    """The children of joint cluster ``j``: defined before it and in no other joint cluster."""
    raw_children = j.get("children")
    if not isinstance(raw_children, list) or not raw_children:
        fatal.append(f"{name}: 'children' must be a non-empty list of ids, got {_short(raw_children)}")
        raw_children = []
    children = []
    for child in raw_children:
        if not isinstance(child, str) or child not in seen:
            fatal.append(f"{name}: unknown child {_short(child)} (children are defined before their joint cluster)")
        elif child in parent:
            fatal.append(f"{name}: child {child!r} already belongs to joint cluster {parent[child]}")
        else:
            parent[child] = jid
            children.append(child)
    return children


def _parse_joints(obj: Mapping[str, Any], out: list[str], fatal: list[str], trusted: bool, seen: set[str],
                  records: dict[str, int], unsound: set[str]) -> list[ParsedJoint]:
    """The joint clusters of ``obj``; ``records`` gets the records under each."""
    joints: list[ParsedJoint] = []
    parent: dict[str, str] = {}
    for j, jid in _entries(obj, "joint_clusters", [], seen, fatal):
        name = f"joint cluster {jid}"
        children = _children(j, name, jid, seen, parent, fatal)
        seen.add(jid)
        records[jid] = sum(records[ch] for ch in children)
        chunks, sound = _parse_chunks(j.get("shared_chunks"), f"{name} shared chunk", out, fatal, trusted)
        for n, chunk in enumerate(chunks):
            if len(chunk) > records[jid]:
                fatal.append(f"{name} shared chunk {n}: {len(chunk)} sub-records exceed the {records[jid]} records "
                             "of its leaves")
        if not sound:
            unsound.add(jid)
        joints.append(ParsedJoint(jid, children, chunks))
    return joints


def parse_release(obj: Any, source: str, out: list[str], trusted: bool = False) -> ParsedRelease:
    """Parse ``obj`` strictly. Content problems of a well-typed release go to ``out``; a document
    that is not a ``disassociated/1`` release (wrong format, a wrong type or range, a missing
    key, an unknown child, a chunk with more sub-records than records) raises one InputError.
    ``trusted``: the sub-records are sorted tuples of distinct terms already (read into arrays)."""
    if not isinstance(obj, Mapping):
        raise InputError(f"{source}: not a release: expected a JSON object, got {type(obj).__name__}")
    if obj.get("format") != RELEASE_FORMAT:
        raise InputError(f"{source}: not a release: 'format' must be {RELEASE_FORMAT!r}, "
                         f"got {_short(obj.get('format'))}")
    fatal: list[str] = []
    k, m = parse_params(obj.get("params"), fatal)
    unsound: set[str] = set()
    seen: set[str] = set()
    records: dict[str, int] = {}  # node -> records under it
    clusters = _parse_clusters(obj, out, fatal, trusted, seen, records, unsound)
    if sum(records.values()) > MAX_RECORDS:
        fatal.append(f"the cluster sizes add up to more than {MAX_RECORDS} records")
    joints = _parse_joints(obj, out, fatal, trusted, seen, records, unsound)
    if fatal:
        more = f" (and {len(fatal) - 1} more problem(s))" if len(fatal) > 1 else ""
        raise InputError(f"{source}: not a release: {fatal[0]}{more}")
    return ParsedRelease(k, m, clusters, joints, unsound)
