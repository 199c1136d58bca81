"""`python -m corpora list`: the named datasets and text sources, and whether each is present offline."""

from __future__ import annotations

import argparse
import json
from typing import Any

from corpora.cli import COMMANDS
from corpora.registry import list_datasets

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "run"]

HELP = COMMANDS["list"]
DESCRIPTION = HELP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # the help texts name their defaults as the command has always printed them
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table (default: False)")
    parser.add_argument("--cache-dir", help="download cache to look in (default $DISASSOC_CACHE or "
                                            "~/.cache/disassociation-workbench) (default: None)")


def _text_sources() -> list[dict[str, Any]] | None:
    """The text sources (:func:`corpora.text.sources.list_text_sources`), or ``None`` without the text stack."""
    try:  # imported here: the text stack (NLTK, scikit-learn, simplemma) is optional for this command
        from corpora.text.sources import list_text_sources
    except ModuleNotFoundError as exc:
        if exc.name in ("corpora.text.sources", "corpora"):
            return None
        raise
    rows = []
    for item in list_text_sources():
        get = item.get if isinstance(item, dict) else (lambda key, _i=item: getattr(_i, key, None))
        rows.append({"name": get("name"), "documents": get("documents"), "licence": get("licence"),
                     "present": bool(get("present")), "description": get("description") or ""})
    return rows


def run(args: argparse.Namespace) -> int:
    """Print the table (or ``--json``) of named datasets and text sources."""
    datasets = [info.__dict__ for info in list_datasets(cache_dir=args.cache_dir)]
    texts = _text_sources()
    if args.json:
        print(json.dumps({"datasets": datasets, "text_sources": texts or []}, indent=2, ensure_ascii=False))
        return 0
    print("transaction datasets")
    width = max(len(d["name"]) for d in datasets)
    for d in datasets:
        records = "-" if d["records"] is None else f"{d['records']:,}"
        state = "present" if d["present"] else "not cached (--download)"
        print(f"  {d['name']:<{width}}  {d['kind']:<9} {records:>9}  {state:<24} {d['description']}")
    if texts is not None:
        print("text sources (python -m corpora build-text)")
        width = max((len(str(t["name"])) for t in texts), default=4)
        for t in texts:
            state = "present" if t["present"] else "missing"
            print(f"  {t['name']:<{width}}  {t['documents']:>6} documents  {state:<8} {t['licence']}")
    return 0
