"""Benchmark (issue 25): every step of the research loop against the parsing floor, in one run.

    python benchmarks/loop.py                                   # 200k and 1M
    python benchmarks/loop.py --sizes 200000 --api              # also the same steps from the Python API
    python benchmarks/loop.py --sizes 200000 --steps utility    # one step (the floor is always measured)

Data: ``generate_quest(n, 5000, 10.0, seed=0)`` as SPMF text (5,000 items, average length 10), the same files
as ``benchmarks/scale.py`` (``--data-dir``). Parameters: k=5, m=2, maximum cluster size 30, seed 1; Apriori
with the balanced hierarchy of fan-out 5.

Every command row is a fresh process timed from start to exit (start-up, reading, the work, writing), its
peak memory the largest resident size of the process and its children (``scale.measure``). The floor is the
median of three runs of ``[set(line.split()) for line in f]`` in a fresh process; ``x floor`` = seconds /
floor. Rows:

* ``anonymize``: ``python -m anonymizer FILE -k 5 -m 2 --max-cluster-size 30 -o R.json --truth T.json``;
* ``verify``: ``python -m anonymizer verify R.json`` (without ``--exact``);
* ``reconstruct``: ``python -m anonymizer reconstruct R.json -o OUT``;
* ``utility``: ``python -m anonymizer utility FILE R.json --json`` (tKd, tKd-a, re, re-a, tlost, tKd-ML^2,
  NCP, RAE; one reconstruction);
* ``apriori``: ``python -m anonymizer FILE --method apriori -k 5 -m 2 --fanout 5 -o A.json``.

``--api`` adds, per step, the seconds of the Python call alone on objects already in memory (no start-up,
no reading), from one process: ``verify(release)``, ``reconstruct(release, seed=0)``,
``utility_report(original, release, hierarchy=...)`` (with the CLI's fan-out-5 hierarchy for tKd-ML^2), and
``run_apriori``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's packages, not an installed copy: here and in every child process
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])

from scale import FLOOR, generate, measure  # noqa: E402

STEPS = ("anonymize", "verify", "reconstruct", "utility", "apriori")


def commands(py: str, path: Path, out: Path, n: int) -> dict[str, list[str]]:
    release, truth = out / f"loop-r{n}.json", out / f"loop-t{n}.json"
    return {
        "anonymize": [py, "-m", "anonymizer", str(path), "-k", "5", "-m", "2", "--max-cluster-size", "30",
                      "--seed", "1", "-o", str(release), "--truth", str(truth)],
        "verify": [py, "-m", "anonymizer", "verify", str(release)],
        "reconstruct": [py, "-m", "anonymizer", "reconstruct", str(release), "--seed", "0",
                        "-o", str(out / "loop-rec.txt")],
        "utility": [py, "-m", "anonymizer", "utility", str(path), str(release), "--json"],
        "apriori": [py, "-m", "anonymizer", str(path), "--method", "apriori", "-k", "5", "-m", "2",
                    "--fanout", "5", "-o", str(out / "loop-apriori.json")],
    }


API = """
import json, sys, time
from anonymizer.baselines.apriori import AprioriParams, run_apriori
from anonymizer.baselines.hierarchy import balanced_hierarchy
from anonymizer.evaluation.reconstruct import reconstruct
from anonymizer.evaluation.utility import utility_report
from anonymizer.evaluation.verify import verify
from anonymizer.io.release_files import load_release
from corpora.io.formats import read_dataset
steps = set(sys.argv[3].split(","))
original = read_dataset(sys.argv[1], format="spmf")
release = load_release(sys.argv[2])
out = {}
def timed(name, f):
    if name in steps:
        t = time.perf_counter(); f(); out[name] = time.perf_counter() - t
timed("verify", lambda: verify(release))
timed("reconstruct", lambda: reconstruct(release, seed=0))
timed("utility", lambda: utility_report(original, release, reconstructions=1, seed=0,
                                      hierarchy=balanced_hierarchy(original.vocabulary, 5)))
hierarchy = balanced_hierarchy(original.vocabulary, 5)
timed("apriori", lambda: run_apriori(original, hierarchy, AprioriParams(5, 2, hierarchy.source)))
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000])
    parser.add_argument("--data-dir", default="/tmp/disassociation-bench")
    parser.add_argument("--steps", nargs="+", choices=STEPS, default=list(STEPS))
    parser.add_argument("--api", action="store_true", help="also time the Python calls alone")
    args = parser.parse_args()
    data = Path(args.data_dir)
    data.mkdir(parents=True, exist_ok=True)
    py = sys.executable
    print(f"{'records':>10} {'step':<14} {'seconds':>8} {'x floor':>8} {'peak GB':>8} {'API s':>8} {'API x':>6}")
    for n in args.sizes:
        path = data / f"quest{n}.txt"
        generate(n, path)
        runs = [measure([py, "-c", FLOOR, str(path)]) for _ in range(3)]
        floor = statistics.median(r[0] for r in runs)
        print(f"{n:>10,} {'floor':<14} {floor:>8.2f} {1:>8.2f} {max(r[1] for r in runs):>8.2f}", flush=True)
        cmds = commands(py, path, data, n)
        rows = {}
        for step in STEPS:
            if step in args.steps or (step == "anonymize" and not (data / f"loop-r{n}.json").exists()):
                rows[step] = measure(cmds[step])[:2]
        api: dict[str, float] = {}
        if args.api:
            chosen = [s for s in args.steps if s != "anonymize"]
            res = subprocess.run([py, "-c", API, str(path), str(data / f"loop-r{n}.json"), ",".join(chosen)],
                                 capture_output=True, text=True, check=True)
            api = json.loads(res.stdout.strip().splitlines()[-1])
        for step, (seconds, gb) in rows.items():
            extra = (f" {api[step]:>8.2f} {api[step] / floor:>6.2f}" if step in api else "")
            print(f"{n:>10,} {step:<14} {seconds:>8.2f} {seconds / floor:>8.2f} {gb:>8.2f}{extra}", flush=True)


if __name__ == "__main__":
    main()
