"""What several commands of ``python -m anonymizer`` share: reading an input dataset, the format a
release file names (JSON ``disassociated/1``, ``generalized/1`` or a truth) before it is parsed, and
writing a published file with its secret companion, both or neither."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from corpora.common.files import atomic_files

if TYPE_CHECKING:
    from corpora.dataset import TransactionDataset

__all__ = ["load_input_dataset", "peek_format", "write_published_and_secret"]


def load_input_dataset(spec: str, **options: Any) -> TransactionDataset:
    """A dataset by registered name or path (``corpora.registry.load_dataset``; never downloads).

    ``options`` are the reading options of :func:`corpora.io.formats.read_dataset` (format, delimiter,
    header, user_column, item_column)."""
    from corpora.registry import load_dataset  # the readers (pandas, scipy): not for commands on a release alone

    return load_dataset(spec, **options)


def peek_format(path: str) -> str | None:
    """The ``format`` value of a release file, read from its first 4 KiB (None if not found)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    found = re.search(rb'"format"\s*:\s*"([^"]{1,40})"', head)
    return found.group(1).decode("ascii", "replace") if found else None


def write_published_and_secret(published: dict, path: str, secret: dict | None, secret_path: str | None) -> None:
    """Write the release and its truth (or owner) file through temporary files, both opened first;
    they are renamed (the secret file first) only when both are complete, so a failure before the
    renames leaves the existing files as they were (:func:`corpora.common.files.atomic_files`)."""
    with_secret = secret is not None and secret_path is not None
    with atomic_files(([(secret_path, "w")] if with_secret else []) + [(path, "w")]) as handles:
        handles[-1].write(json.dumps(published, ensure_ascii=False) + "\n")
        if with_secret:
            handles[0].write(json.dumps(secret, ensure_ascii=False) + "\n")
