"""`python -m corpora build-text`: build a transaction dataset from a named text source.

Example::

    python -m corpora build-text --source lee --density 0.3 --topics 10 --select-topics 0,3 \\
        --part attacked --seed 1 -o data.jsonl

writes ``data.jsonl`` (one JSON array of terms per line) and ``data.jsonl.meta.json`` and prints
a summary: documents, records, distinct terms, density reached and the choice made to reach it, and
the composition (transactions per source, also ``composition`` in the metadata; issue 24).
The build is AlShuhail2021 section 5.1 (:mod:`corpora.text.build`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from corpora.cli import COMMANDS
from corpora.common.bounds import MAX_RECORDS, int_option
from corpora.common.errors import InputError
from corpora.common.files import check_output_paths
from corpora.text.parameters import PARTS, PIPELINES

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "describe_choice", "describe_composition", "run"]

HELP = COMMANDS["build-text"]
DESCRIPTION = ("Build transactions from a named text source (AlShuhail2021 section 5.1): pre-processing, a seeded "
               "attacked/reference split, NMF topics, TF-IDF top-N terms and a target type-token density.")


def _topic_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected topic ids like 0,3, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("expected at least one topic id")
    return values


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``build-text``."""
    p.add_argument("--source", required=True,
                   help="lee, wiki-sample, newsgroups-sample or reuters (--pipeline thesis: also pool, a comma list)")
    p.add_argument("--pipeline", choices=PIPELINES, default="term-dropping",
                   help="term-dropping (default): full documents, density reached by dropping rare terms; thesis: "
                        "~20 terms per transaction, density reached by choosing documents (AlShuhail2021 ch. 5)")
    p.add_argument("--transactions", type=int_option("--transactions", 2, MAX_RECORDS), default=200,
                   help="thesis pipeline: number of transactions (default: 200)")
    p.add_argument("--density", type=float, default=None,
                   help="type-token density to reach within 0.02 (default: none, full transactions)")
    p.add_argument("--topics", type=int_option("--topics", 1, 10_000), default=None,
                   help="number of NMF topics to fit (default: none)")
    p.add_argument("--select-topics", type=_topic_list, default=None,
                   help="keep the documents of these topics, e.g. 0,3 (needs --topics)")
    p.add_argument("--top-n", type=int_option("--top-n", 1, 10**6), default=None,
                   help="keep at most N terms per document by TF-IDF")
    p.add_argument("--part", choices=PARTS, default="all",
                   help="all documents, the attacked part or the reference part (default: all)")
    p.add_argument("--reference-share", type=float, default=0.3,
                   help="share of documents in the reference part (default: 0.3)")
    p.add_argument("--seed", type=int_option("--seed", 0, 2**32 - 1), default=0,
                   help="seed of the split and the topic model (default: 0)")
    p.add_argument("-o", "--output", required=True, help="output JSON lines file (a .meta.json is written beside it)")


def describe_choice(density: dict[str, Any]) -> str:
    """One line saying how the density was reached (from the ``density`` metadata)."""
    method = density["method"]
    reached = f"density {density['reached']:.4f}"
    if method == "full":
        return f"{reached} (no target: full transactions)"
    head = f"{reached} (target {density['target']}, "
    if method.startswith("fewer-documents+"):
        head += (f"fewer-documents: {density['documents_kept']} kept, {density['documents_left_out']} left out, "
                 f"then ")
        method = method.split("+", 1)[1]
    if method == "tfidf-truncation":
        return (head + f"tfidf-truncation: each document keeps its best {density['cap']} terms by TF-IDF, "
                f"{density['documents_with_one_more']} keep one more)")
    return (head + f"drop-rare-terms: {density['dropped_terms']} terms held by at most "
            f"{density['max_dropped_document_frequency']} documents dropped, "
            f"{density['emptied_documents']} documents emptied)")


def describe_composition(composition: dict[str, int], offered: dict[str, int] | None = None) -> str:
    """One line: transactions per source with their share (and, for a pool, the documents each source offered)."""
    total = sum(composition.values())
    parts = []
    for name, n in composition.items():
        share = f"{n / total:.0%}" if total else "0%"
        parts.append(f"{name} {n} ({share}" + (f" of {offered[name]} offered)" if offered else ")"))
    return "composition (transactions per source): " + ", ".join(parts)


def run(args: argparse.Namespace) -> int:
    """Build the dataset the parsed options describe, write it and its metadata, print a summary."""
    folder = Path(args.output).parent
    if not folder.is_dir():
        raise InputError(f"{args.output}: the output folder {folder} does not exist")
    check_output_paths({"output": args.output, "metadata": args.output + ".meta.json"})
    # imported when a build runs: the text stack (NLTK, scikit-learn, simplemma) takes seconds to load,
    # which --help and a refused output path do not need
    from corpora.text.api import build_text_dataset, write_text_dataset

    ds = build_text_dataset(args.source, density=args.density, topics=args.topics,
                            select_topics=args.select_topics, top_n=args.top_n, seed=args.seed,
                            part=args.part, reference_share=args.reference_share, pipeline=args.pipeline,
                            transactions=args.transactions)
    meta_path = write_text_dataset(ds, args.output)
    meta = ds.metadata
    counts = meta["counts"]
    if args.pipeline == "thesis":
        print(f"source {args.source} (thesis pipeline), part {args.part}, seed {args.seed}: {counts['records']} of "
              f"{counts['pool_documents']} documents chosen; {counts['topics_spanned']} topics spanned")
        print(describe_composition(meta["composition"], counts["pool_by_source"]))
        print(f"distinct terms {counts['distinct_terms']}, term occurrences {counts['term_occurrences']}, "
              f"average length {counts['avg_length']:.2f}")
        print(f"density {meta['density']['reached']:.4f} (target {meta['density']['target']}, "
              f"{meta['density']['method']}: no term dropped)")
        if meta["parameters"]["missing_sources"]:
            print(f"note: not installed, left out of the pool: {', '.join(meta['parameters']['missing_sources'])}")
        print(f"wrote {args.output} and {meta_path}")
        return 0
    print(f"source {args.source}, part {args.part}, seed {args.seed}: {counts['selected_documents']} of "
          f"{counts['part_documents']} documents selected -> {counts['records']} records")
    print(f"distinct terms {counts['distinct_terms']}, term occurrences {counts['term_occurrences']}, "
          f"average length {counts['avg_length']:.2f}")
    print(describe_choice(meta["density"]))
    print(describe_composition(meta["composition"]))
    for topic in meta["topics"]:
        mark = "*" if topic["selected"] else " "
        print(f" {mark}topic {topic['id']:>2} ({topic['documents']} documents): {' '.join(topic['top_words'][:6])}")
    print(f"wrote {args.output} and {meta_path}")
    return 0
