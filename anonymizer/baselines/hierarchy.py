"""Item hierarchies (generalization taxonomies) for the baselines: Apriori (k^m by generalization) and DiffPart.

A :class:`Hierarchy` is a rooted tree whose leaves are items; an internal node stands for every
leaf below it. Nodes are numbered in depth-first preorder, so the subtree of node ``n`` is the
preorder range ``[n, end[n])`` and its leaves are the leaf-order range ``[leaf_lo[n], leaf_hi[n])``:
"generalize node n" is one slice assignment on an array over the leaves.

Two ways to get one:

* :func:`read_hierarchy` reads a file in the layout ARX uses for its hierarchies: **one line per
  item, the item first and then its ancestors up to the top**, fields separated by ``;`` (or by
  a tab, or ``,``: the first of these found on the first data line), e.g.::

      # item;parent;grandparent;...;root
      flu;respiratory;disease;*
      asthma;respiratory;disease;*
      hiv;infectious;disease;*

  Empty lines and lines starting with ``#`` are skipped. Lines may have different lengths (an
  unbalanced tree) and the last field of a line need not be the root: a node's parent may be
  given on another line. A line with only an item names a leaf whose parent comes from
  elsewhere (or the root of a one-node tree). Every item of the dataset must be the first field
  of a line. Errors are one :class:`InputError` line: a node with two different parents, a cycle
  (a node that is its own ancestor), two roots, an item of the data that the file does not list
  (or lists as an internal node), a line longer than :data:`MAX_PATH` fields, a file larger than
  :data:`MAX_HIERARCHY_BYTES`.

* :func:`balanced_hierarchy` builds a balanced tree of fan-out ``F`` over the sorted item domain
  (numbers sorted as numbers when every item is an integer, else as strings): consecutive groups
  of F leaves get a parent, consecutive groups of F parents get a parent, up to one root. A level
  whose last group would hold a single node gives it to the group before (that group has F + 1
  children), so no internal node has one child. Internal nodes are labelled ``first..last``
  (their first and last leaf), the root ``*``; a label that equals an item or another label gets
  ``#`` appended until it is unique.

  *Why a synthetic tree.* Terrovitis2012 compares with Apriori on POS, WV1 and WV2 (section 7.1,
  Figure 11) and says only "If a generalization hierarchy that allows the anonymization of the
  data exists, then we can assume that the same hierarchy can be used to mine" (section 6); it
  does not say where the hierarchies of these click streams and baskets came from (their item
  ids carry no categories). We do not have the 2008 Apriori paper's text; our reconstruction is
  that it, too, used synthetic hierarchies of a fixed fan-out over the item domain. The choice
  here: a balanced tree of fan-out 5 by default, over the items in their natural order (so
  neighbouring ids, often neighbouring pages or products, share parents). Pass ``--hierarchy``
  for a real taxonomy.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonymizer.model.params import DEFAULT_FANOUT
from corpora.common.errors import InputError
from corpora.common.files import read_text_bounded

__all__ = [
    "Hierarchy",
    "MAX_HIERARCHY_BYTES",
    "MAX_PATH",
    "MAX_NODES",
    "DEFAULT_FANOUT",
    "balanced_hierarchy",
    "read_hierarchy",
    "parse_hierarchy_text",
    "hierarchy_from_parents",
    "natural_order",
]

MAX_HIERARCHY_BYTES = 512 << 20
"""Largest hierarchy file read (512 MiB)."""
MAX_PATH = 256
"""Most fields (the item and its ancestors) on one line of a hierarchy file."""
MAX_NODES = 50_000_000
"""Most nodes of a hierarchy."""
MAX_LABEL = 4096
"""Longest node label (characters)."""


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """A rooted item tree, nodes in depth-first preorder (node 0 is the root).

    ``parent[n]`` is -1 for the root; ``end[n]`` is one past the last node of n's subtree;
    ``depth[n]`` is 0 for the root; ``leaf_lo[n]:leaf_hi[n]`` is the range of n's leaves in leaf
    order (the preorder of the leaves); ``leaf_nodes[i]`` is the node of the i-th leaf.
    ``source`` says where it came from (``"fanout:5"``, a file name, ``"inline"``).
    """

    labels: tuple[str, ...]
    parent: np.ndarray
    end: np.ndarray
    depth: np.ndarray
    leaf_lo: np.ndarray
    leaf_hi: np.ndarray
    leaf_nodes: np.ndarray
    source: str = ""
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def n_leaves(self) -> int:
        return int(self.leaf_nodes.size)

    @functools.cached_property
    def index(self) -> dict[str, int]:
        """Label -> node id."""
        return {label: i for i, label in enumerate(self.labels)}

    @functools.cached_property
    def is_leaf(self) -> np.ndarray:
        return self.end == np.arange(1, len(self.labels) + 1)

    @functools.cached_property
    def leaf_count(self) -> np.ndarray:
        """Leaves under each node."""
        return (self.leaf_hi - self.leaf_lo).astype(np.int64)

    @functools.cached_property
    def height(self) -> int:
        """Largest depth of a node (0 for a one-node tree)."""
        return int(self.depth.max()) if self.depth.size else 0

    def ancestors(self, node: int) -> list[int]:
        """``node`` and its ancestors, bottom up (the root last)."""
        out = [int(node)]
        parent = self.parent
        while parent[out[-1]] >= 0:
            out.append(int(parent[out[-1]]))
        return out

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when ``a`` is ``b`` or an ancestor of ``b``."""
        return a <= b < self.end[a]

    def leaf_positions(self, items: Sequence[str], what: str = "dataset") -> np.ndarray:
        """Leaf-order position of each item; one :class:`InputError` line if an item is missing or internal."""
        index = self.index
        missing = [t for t in items if t not in index]
        if missing:
            shown = ", ".join(repr(t) for t in missing[:3])
            more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            raise InputError(f"hierarchy {self.source or ''}: item(s) of the {what} missing from the hierarchy: "
                             f"{shown}{more}".replace("hierarchy : ", "hierarchy: "))
        nodes = np.fromiter((index[t] for t in items), dtype=np.int64, count=len(items))
        inner = nodes[~self.is_leaf[nodes]] if nodes.size else nodes
        if inner.size:
            shown = ", ".join(repr(self.labels[int(n)]) for n in inner[:3])
            raise InputError(f"hierarchy {self.source}: item(s) of the {what} are internal nodes of the hierarchy, "
                             f"not leaves: {shown}")
        return self.leaf_lo[nodes].astype(np.int64)

    def level_map(self, level: int) -> np.ndarray:
        """Node of each leaf (leaf order) when every leaf is generalized to its ancestor at depth ``level``.

        Leaves shallower than ``level`` stay themselves.
        """
        out = self.leaf_nodes.astype(np.int64).copy()
        nodes = np.flatnonzero(self.depth == level)
        for n in nodes.tolist():
            out[self.leaf_lo[n]:self.leaf_hi[n]] = n
        return out

    def to_dict(self) -> dict[str, Any]:
        """``{"source": ..., "nodes": [[label, parent index or null], ...]}`` in preorder."""
        return {"source": self.source,
                "nodes": [[label, None if p < 0 else int(p)] for label, p in zip(self.labels, self.parent.tolist(),
                                                                                strict=True)]}

    @classmethod
    def from_json(cls, obj: Any, source: str = "hierarchy") -> Hierarchy:
        """Parse the inline form of :meth:`to_dict`; parents must come before their children."""
        if not isinstance(obj, Mapping) or not isinstance(obj.get("nodes"), list) or not obj["nodes"]:
            raise InputError(f"{source}: 'hierarchy' must be an object with a non-empty 'nodes' list")
        nodes = obj["nodes"]
        if len(nodes) > MAX_NODES:
            raise InputError(f"{source}: more than {MAX_NODES} hierarchy nodes")
        parents: dict[str, str | None] = {}
        labels: list[str] = []
        for i, entry in enumerate(nodes):
            where = f"{source}: hierarchy.nodes[{i}]"
            if (not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str) or not entry[0]
                    or len(entry[0]) > MAX_LABEL):
                raise InputError(f"{where}: expected [label, parent index or null]")
            label, p = entry
            if label in parents:
                raise InputError(f"{where}: label {label!r} appears twice")
            if p is None:
                if i != 0:
                    raise InputError(f"{where}: only the first node (the root) may have no parent")
                parents[label] = None
            elif isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < i:
                raise InputError(f"{where}: the parent must be the index of an earlier node")
            else:
                parents[label] = labels[p]
            labels.append(label)
        src = obj.get("source", "inline")
        h = hierarchy_from_parents(parents, source=str(src) if isinstance(src, str) else "inline")
        if list(h.labels) != labels:
            raise InputError(f"{source}: hierarchy.nodes are not in depth-first preorder")
        return h


def natural_order(items: Iterable[str]) -> list[str]:
    """Items sorted as integers when every one is an integer literal, else as strings."""
    items = list(items)
    if items and all(_is_int_text(t) for t in items):
        return sorted(items, key=lambda t: (int(t), t))
    return sorted(items)


def _is_int_text(text: str) -> bool:
    t = text[1:] if text[:1] in "+-" else text
    return t.isdigit() and t.isascii() and len(t) < 40


def balanced_hierarchy(items: Iterable[str], fanout: int = DEFAULT_FANOUT) -> Hierarchy:
    """A balanced tree of fan-out ``fanout`` over ``items`` in natural order (see the module docstring)."""
    if isinstance(fanout, bool) or not isinstance(fanout, int) or fanout < 2:
        raise InputError(f"fan-out must be an integer >= 2, got {fanout!r}")
    leaves = natural_order(set(items))
    if not leaves:
        raise InputError("cannot build a hierarchy over an empty item domain")
    used = set(leaves)
    # a node is (height, first leaf, last leaf); leaves have height 0
    children: dict[tuple[int, int, int], list[tuple[int, int, int]]] = {}
    keys = [(0, i, i) for i in range(len(leaves))]
    height = 0
    while len(keys) > 1:
        height += 1
        groups = [keys[i:i + fanout] for i in range(0, len(keys), fanout)]
        if len(groups) > 1 and len(groups[-1]) == 1:
            groups[-2].extend(groups.pop())
        nxt = []
        for g in groups:
            key = (height, g[0][1], g[-1][2])
            children[key] = g
            nxt.append(key)
        keys = nxt
    root = keys[0]
    parents: dict[str, str | None] = {}
    label_of: dict[tuple[int, int, int], str] = {}

    def label(key: tuple[int, int, int]) -> str:
        if key[0] == 0:
            return leaves[key[1]]
        text = "*" if key == root else f"{leaves[key[1]]}..{leaves[key[2]]}"
        while text in used:
            text += "#"
        used.add(text)
        return text

    order = [root]
    label_of[root] = label(root)
    parents[label_of[root]] = None
    while order:
        key = order.pop()
        for child in children.get(key, []):
            label_of[child] = label_of.get(child) or label(child)
            parents[label_of[child]] = label_of[key]
        order.extend(reversed(children.get(key, [])))
    return hierarchy_from_parents(parents, source=f"fanout:{fanout}", child_order="given")


def hierarchy_from_parents(parents: Mapping[str, str | None], source: str = "",
                           child_order: str = "given") -> Hierarchy:
    """Build a :class:`Hierarchy` from ``label -> parent label`` (``None`` for the root).

    Children keep the order in which they appear in ``parents``. Raises one :class:`InputError`
    line for a parent that is not a node, a cycle, no root or two roots.
    """
    del child_order
    where = f"hierarchy {source}" if source else "hierarchy"
    kids: dict[str, list[str]] = {}
    roots = []
    for node, p in parents.items():
        if p is None:
            roots.append(node)
        else:
            if p not in parents:
                raise InputError(f"{where}: parent {p!r} of {node!r} is not a node")
            kids.setdefault(p, []).append(node)
    # a cycle: follow parents from every node (memoised)
    state: dict[str, int] = {}
    for start in parents:
        path = []
        node: str | None = start
        while node is not None and state.get(node) is None:
            state[node] = 1
            path.append(node)
            node = parents[node]
        if node is not None and state.get(node) == 1:
            loop = path[path.index(node):] + [node]
            shown = " -> ".join(repr(x) for x in loop[:6]) + (" -> ..." if len(loop) > 6 else "")
            raise InputError(f"{where}: cycle {shown} (a node cannot be its own ancestor)")
        for x in path:
            state[x] = 2
    if not roots:
        raise InputError(f"{where}: no root (every node has a parent)")
    if len(roots) > 1:
        raise InputError(f"{where}: two roots, {roots[0]!r} and {roots[1]!r}"
                         + (f" (and {len(roots) - 2} more)" if len(roots) > 2 else "")
                         + "; a hierarchy has one top node")
    labels: list[str] = []
    parent: list[int] = []
    end: list[int] = []
    depth: list[int] = []
    stack: list[tuple[str, int, int, bool]] = [(roots[0], -1, 0, False)]
    pos: dict[str, int] = {}
    while stack:
        node, p, d, closing = stack.pop()
        if closing:
            end[pos[node]] = len(labels)
            continue
        pos[node] = len(labels)
        labels.append(node)
        parent.append(p)
        depth.append(d)
        end.append(0)
        stack.append((node, p, d, True))
        for child in reversed(kids.get(node, [])):
            stack.append((child, pos[node], d + 1, False))
    if len(labels) != len(parents):  # unreachable nodes would have been a cycle or a second root
        raise InputError(f"{where}: {len(parents) - len(labels)} node(s) not under the root")
    end_arr = np.asarray(end, dtype=np.int64)
    n = len(labels)
    is_leaf = end_arr == np.arange(1, n + 1)
    leaf_rank = np.cumsum(is_leaf) - is_leaf  # leaves before each node in preorder
    leaf_lo = leaf_rank.astype(np.int64)
    total = np.concatenate([np.cumsum(is_leaf), [int(is_leaf.sum())]])
    leaf_hi = total[end_arr - 1].astype(np.int64)
    return Hierarchy(tuple(labels), np.asarray(parent, dtype=np.int64), end_arr,
                     np.asarray(depth, dtype=np.int64), leaf_lo, leaf_hi,
                     np.flatnonzero(is_leaf).astype(np.int64), source=source)


def parse_hierarchy_text(text: str, source: str = "hierarchy") -> Hierarchy:
    """Parse the file layout of the module docstring (``item;parent;...;top`` per line)."""
    parents: dict[str, str | None] = {}
    sep: str | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if sep is None:
            sep = next((s for s in (";", "\t", ",") if s in line), ";")
        fields = [f.strip() for f in line.split(sep)]
        where = f"{source}:{lineno}"
        if len(fields) > MAX_PATH:
            raise InputError(f"{where}: {len(fields)} fields; at most {MAX_PATH} (an item and its ancestors)")
        if any(not f for f in fields):
            raise InputError(f"{where}: an empty field (expected item{sep}parent{sep}...{sep}top)")
        if any(len(f) > MAX_LABEL for f in fields):
            raise InputError(f"{where}: a label longer than {MAX_LABEL} characters")
        if len(set(fields)) != len(fields):
            repeated = next(f for f in fields if fields.count(f) > 1)
            raise InputError(f"{where}: cycle: {repeated!r} appears twice on one path (a node cannot be its own "
                             "ancestor)")
        for child, par in zip(fields, [*fields[1:], None], strict=True):
            old = parents.get(child)
            if par is None:
                parents.setdefault(child, None)
            elif old is None:
                parents[child] = par
            elif old != par:
                raise InputError(f"{where}: {child!r} has two parents, {old!r} and {par!r}")
        if len(parents) > MAX_NODES:
            raise InputError(f"{where}: more than {MAX_NODES} nodes")
    if not parents:
        raise InputError(f"{source}: no hierarchy lines (expected item;parent;...;top)")
    return hierarchy_from_parents(parents, source=source)


def read_hierarchy(path: str | os.PathLike[str]) -> Hierarchy:
    """Read a hierarchy file (bounded: :data:`MAX_HIERARCHY_BYTES`, UTF-8, no NUL bytes)."""
    text = read_text_bounded(path, MAX_HIERARCHY_BYTES)
    return parse_hierarchy_text(text, source=str(path))
