"""Benchmark: seconds to build text datasets from every present source at three densities.

    python benchmarks/text.py [--densities 0.2,0.45,0.7] [--part attacked] [--weka-dir DIR]

For each source: the pre-processing time (read, clean, tokenise, lemmatise; done once per
process and cached) and, per density, the build time (split, TF-IDF, density search, dataset).
The total per source (pre-processing plus the three builds) has a target of 30 s. Peak memory
is the process's maximum resident set size. ``--weka-dir`` points the ``reuters`` source at an
unpacked weka package (``apt-get download weka && dpkg-deb -x weka_*.deb DIR``, then
``DIR/usr/share/doc/weka/examples``) when it is not installed.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import corpora.text.sources as textsources
from corpora.text.api import build_text_dataset, list_text_sources
from corpora.text.build import load_preprocessed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--densities", default="0.2,0.45,0.7")
    parser.add_argument("--part", default="attacked", choices=("all", "attacked", "reference"))
    parser.add_argument("--weka-dir", default=None, help="folder holding the Reuters ARFF files")
    args = parser.parse_args(argv)
    densities = [float(d) for d in args.densities.split(",")]
    if args.weka_dir:
        textsources.WEKA_EXAMPLES = Path(args.weka_dir)

    header = (f"{'source':<18} {'docs':>5} {'step':<14} {'records':>7} {'avg len':>8} {'density':>8} "
              f"{'method':<34} {'seconds':>8}")
    print(header)
    print("-" * len(header))
    for info in list_text_sources():
        present = all((textsources.WEKA_EXAMPLES / f).is_file() for f in textsources._REUTERS_FILES) \
            if info.name == "reuters" else info.present
        if not present:
            print(f"{info.name:<18} {'-':>5} absent: install Debian package weka or pass --weka-dir")
            continue
        start = time.perf_counter()
        docs = load_preprocessed(info.name)
        total = prep = time.perf_counter() - start
        print(f"{info.name:<18} {len(docs):>5} {'preprocess':<14} {'':>7} {'':>8} {'':>8} {'':<34} {prep:>8.2f}")
        for density in densities:
            start = time.perf_counter()
            ds = build_text_dataset(info.name, density=density, part=args.part, seed=0)
            took = time.perf_counter() - start
            total += took
            stats = ds.stats()
            meta = ds.metadata["density"]
            print(f"{info.name:<18} {len(docs):>5} {'density ' + str(density):<14} {stats.records:>7} "
                  f"{stats.avg_length:>8.1f} {stats.density:>8.4f} {meta['method']:<34} {took:>8.2f}")
        verdict = "ok" if total < 30 else "OVER the 30 s target"
        print(f"{info.name:<18} {len(docs):>5} {'total':<14} {'':>7} {'':>8} {'':>8} {verdict:<34} {total:>8.2f}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
