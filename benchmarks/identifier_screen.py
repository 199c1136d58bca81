"""False positives of the identifier screen (corpora.io.identifiers) on the shipped datasets and text corpora.

Prints one row per source: distinct terms screened, terms flagged (with masked examples), seconds.
Every flagged term of these sources is a false positive: none of them holds a direct identifier.

    python benchmarks/identifier_screen.py [--text]   # --text also screens the text corpora's tokens
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from corpora.io.identifiers import screen_terms
from corpora.registry import load_dataset

DATASETS = ("kosarak10k", "kosarak25k", "wv1-shaped", "wv2-shaped", "pos-shaped", "wv1-fitted", "terrovitis2012-fig2",
            "alshuhail2021-table4.2")
SUPERMARKET = Path("/usr/share/doc/weka/examples/supermarket.arff")


def supermarket_terms() -> list[str]:
    """The 216 department items of weka's supermarket.arff (attribute names), when Debian's weka examples exist."""
    names = []
    for line in SUPERMARKET.read_text(encoding="latin-1").splitlines():
        if line.lower().startswith("@attribute"):
            names.append(line.split(None, 2)[1].strip("'\""))
    return names


def text_terms(source: str) -> list[str]:
    """Every preprocessed token of a text source: a superset of the terms any dataset built from it holds."""
    from corpora.text.build import load_preprocessed

    return sorted({t for doc in load_preprocessed(source) for t in doc})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", action="store_true", help="also screen the text corpora's terms")
    args = parser.parse_args()
    rows = []
    sources: list[tuple[str, object]] = [(name, lambda n=name: list(load_dataset(n).vocabulary)) for name in DATASETS]
    if SUPERMARKET.exists():
        sources.append(("supermarket (weka)", supermarket_terms))
    if args.text:
        for source in ("lee", "wiki-sample", "newsgroups-sample", "reuters"):
            sources.append((f"text:{source}", lambda s=source: text_terms(s)))
    print(f"{'source':24} {'terms':>8} {'flagged':>8} {'seconds':>8}  examples")
    for name, get in sources:
        try:
            terms = get()
        except Exception as exc:  # a source absent on this machine
            print(f"{name:24} skipped: {exc}")
            continue
        start = time.perf_counter()
        screen = screen_terms(terms)
        seconds = time.perf_counter() - start
        rows.append((name, screen))
        print(f"{name:24} {screen.checked:>8} {screen.count:>8} {seconds:>8.3f}  {', '.join(screen.examples)}")


if __name__ == "__main__":
    main()
