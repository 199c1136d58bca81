"""Every bad input of issue 15 to every command: exit 2, one `error:` line, no traceback, nothing written.

Covers the release validated on load by every command that reads one (verify, reconstruct,
utility, attacks cover, attacks semantic), seeds out of range, outputs that equal an input or sit
in a missing folder (refused before any work), and inputs that are not text (``/dev/zero``, a
binary file, an endless line, non-UTF-8, JSON nested a million levels deep).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from paper_examples import fig2b

from anonymizer.__main__ import main as anonymizer_main
from anonymizer.disassociation.pipeline import disassociate
from anonymizer.io.release_files import save_release, save_truth
from attacks.__main__ import main as attacks_main
from corpora.common.seeds import SEED_BITS
from corpora.io.formats import MAX_LINE_BYTES, write_dataset
from corpora.synthetic.toy import toy_dataset

GOOD = fig2b().to_dict()


def _edit(change: Callable[[dict], None]) -> bytes:
    obj = json.loads(json.dumps(GOOD))
    change(obj)
    return json.dumps(obj).encode()


def _set(path: str, value: object) -> Callable[[dict], None]:
    def change(obj: dict) -> None:
        *keys, last = path.split(".")
        node = obj
        for key in keys:
            node = node[int(key)] if key.isdigit() else node[key]
        node[int(last) if last.isdigit() else last] = value
    return change


BAD_RELEASES: dict[str, bytes] = {
    "k=0": _edit(_set("params.k", 0)),
    "k=1": _edit(_set("params.k", 1)),
    "m=0": _edit(_set("params.m", 0)),
    "k string": _edit(_set("params.k", "3")),
    "k boolean": _edit(_set("params.k", True)),
    "k missing": _edit(lambda o: o["params"].pop("k")),
    "safe not boolean": _edit(_set("params.safe", "yes")),
    "max_cluster_size below k": _edit(_set("params.max_cluster_size", 1)),
    "param nested": _edit(_set("params.horpart", [["a"]])),
    "params a list": _edit(_set("params", [1, 2])),
    "joint_clusters 5": _edit(_set("joint_clusters", 5)),
    "size 10**30": _edit(_set("clusters.0.size", 10**30)),
    "size 0": _edit(_set("clusters.0.size", 0)),
    "size negative": _edit(_set("clusters.0.size", -3)),
    "size float": _edit(_set("clusters.0.size", 5.0)),
    "size below a chunk": _edit(_set("clusters.0.size", 1)),
    "sizes add up too far": _edit(lambda o: [c.update(size=2**31 - 2) for c in o["clusters"]]),
    "record_chunks string": _edit(_set("clusters.0.record_chunks", "x")),
    "sub-record of numbers": _edit(_set("clusters.0.record_chunks.0.0", [1, 2])),
    "term_chunk numbers": _edit(_set("clusters.0.term_chunk", [1])),
    "cluster id empty": _edit(_set("clusters.0.id", "")),
    "unknown child": _edit(_set("joint_clusters", [{"id": "J1", "children": ["nope"], "shared_chunks": []}])),
    "no children": _edit(_set("joint_clusters", [{"id": "J1", "children": [], "shared_chunks": []}])),
    "shared_chunks missing": _edit(_set("joint_clusters", [{"id": "J1", "children": ["P1"]}])),
    "clusters missing": _edit(lambda o: o.pop("clusters")),
    "wrong format": _edit(_set("format", "disassociated/9")),
    "top-level list": b"[]",
    "empty file": b"",
    "nested a million levels": b"[" * 1_000_000,
    "nested inside params": b'{"format": "disassociated/1", "params": ' + b"[" * 100_000,
    "not UTF-8": b'{"format": "disassociated/1", "params": {"k": 2, "m": 2}, "clusters": [], "x": "\xff\xfe"}',
    "binary": bytes(range(256)) * 4,
    "integer of 5000 digits": b'{"format": "disassociated/1", "params": {"k": 1' + b"0" * 5000 + b', "m": 1}}',
    "not JSON": b"{format: disassociated/1}",
}

COMMANDS: dict[str, Callable[[str, Path], list[str]]] = {
    "verify": lambda rel, d: ["anonymizer", "verify", rel],
    "reconstruct": lambda rel, d: ["anonymizer", "reconstruct", rel, "-o", str(d / "out.jsonl")],
    "utility": lambda rel, d: ["anonymizer", "utility", str(d / "data.jsonl"), rel],
    "cover": lambda rel, d: ["attacks", "cover", rel],
    "semantic": lambda rel, d: ["attacks", "semantic", rel, "--selector", "random", "-o", str(d / "out.jsonl")],
}


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    data = toy_dataset("terrovitis2012-fig2")
    release, truth = disassociate(data, 2, 2, 5, seed=1)
    save_release(release, tmp_path / "release.json")
    save_truth(truth, tmp_path / "truth.json")
    bad_seed = truth.to_dict()
    bad_seed["seed"] = -1
    (tmp_path / "badseed.json").write_text(json.dumps(bad_seed), encoding="utf-8")
    write_dataset(data, tmp_path / "data.jsonl")
    (tmp_path / "binary.bin").write_bytes(bytes(range(256)))
    (tmp_path / "binary.txt").write_bytes(bytes(range(256)))
    (tmp_path / "latin1.jsonl").write_bytes(b'["caf\xe9"]\n')
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "\n", encoding="utf-8")
    return tmp_path


def run(argv: list[str]) -> int:
    program, *rest = argv
    return anonymizer_main(rest) if program == "anonymizer" else attacks_main(rest)


def assert_one_error_line(folder: Path, argv: list[str], capsys) -> None:
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    status = run(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert len(err) < 400, err
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert after == before  # nothing written, no temporary file, every input unchanged


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("case", sorted(BAD_RELEASES))
def test_every_command_refuses_a_bad_release(folder, capsys, case, command):
    bad = folder / "bad.json"
    bad.write_bytes(BAD_RELEASES[case])
    assert_one_error_line(folder, COMMANDS[command](str(bad), folder), capsys)


TOO_BIG = str(2**SEED_BITS)
DIS = ["-k", "2", "-m", "2", "--max-cluster-size", "5"]

BAD_ARGUMENTS: dict[str, list[str]] = {
    "anonymizer --seed -5": ["anonymizer", "{data}", *DIS, "--seed", "-5", "-o", "{d}/r.json"],
    "anonymizer --seed 2**128": ["anonymizer", "{data}", *DIS, "--seed", TOO_BIG, "-o", "{d}/r.json"],
    "anonymizer --seed x": ["anonymizer", "{data}", *DIS, "--seed", "x", "-o", "{d}/r.json"],
    "anonymizer -o = input": ["anonymizer", "{data}", *DIS, "-o", "{data}"],
    "anonymizer -o = input by another path": ["anonymizer", "{data}", *DIS, "-o", "{d}/../{dname}/data.jsonl"],
    "anonymizer --truth = -o": ["anonymizer", "{data}", *DIS, "-o", "{d}/r.json", "--truth", "{d}/r.json"],
    "anonymizer --truth = input": ["anonymizer", "{data}", *DIS, "-o", "{d}/r.json", "--truth", "{data}"],
    "anonymizer -o missing folder": ["anonymizer", "{data}", *DIS, "-o", "{d}/no/r.json"],
    "anonymizer -o a folder": ["anonymizer", "{data}", *DIS, "-o", "{d}"],
    "anonymizer /dev/zero": ["anonymizer", "/dev/zero", "--format", "spmf", *DIS, "-o", "{d}/r.json"],
    "anonymizer binary input": ["anonymizer", "{d}/binary.bin", "--format", "jsonl", *DIS, "-o", "{d}/r.json"],
    "anonymizer endless line": ["anonymizer", "{d}/long.txt", *DIS, "-o", "{d}/r.json"],
    "anonymizer non-UTF-8 input": ["anonymizer", "{d}/latin1.jsonl", *DIS, "-o", "{d}/r.json"],
    "reconstruct --seed -5": ["anonymizer", "reconstruct", "{rel}", "--seed", "-5", "-o", "{d}/o.jsonl"],
    "reconstruct -o = release": ["anonymizer", "reconstruct", "{rel}", "-o", "{rel}"],
    "reconstruct -o missing folder": ["anonymizer", "reconstruct", "{rel}", "-o", "{d}/no/o.jsonl"],
    "utility --seed -5": ["anonymizer", "utility", "{data}", "{rel}", "--seed", "-5"],
    "utility binary dataset": ["anonymizer", "utility", "{d}/binary.txt", "{rel}"],
    "cover --seed -5": ["attacks", "cover", "{rel}", "--seed", "-5"],
    "cover --seed 2**128": ["attacks", "cover", "{rel}", "--seed", TOO_BIG],
    "cover --save-knowledge = release": ["attacks", "cover", "{rel}", "--save-knowledge", "{rel}"],
    "cover --save-knowledge missing folder": ["attacks", "cover", "{rel}", "--save-knowledge", "{d}/no/k.jsonl"],
    "cover --knowledge binary": ["attacks", "cover", "{rel}", "--knowledge", "{d}/binary.bin"],
    "cover --knowledge non-UTF-8": ["attacks", "cover", "{rel}", "--knowledge", "{d}/latin1.jsonl"],
    "cover --knowledge nested": ["attacks", "cover", "{rel}", "--knowledge", "{d}/deep.jsonl"],
    "cover --truth binary": ["attacks", "cover", "{rel}", "--truth", "{d}/binary.bin"],
    "cover --truth with a negative seed": ["attacks", "cover", "{rel}", "--truth", "{d}/badseed.json"],
    "semantic --seed -5": ["attacks", "semantic", "{rel}", "--selector", "random", "--seed", "-5", "-o", "{d}/o"],
    "semantic -o = release": ["attacks", "semantic", "{rel}", "--selector", "random", "-o", "{rel}"],
    "semantic --metrics-csv = -o": ["attacks", "semantic", "{rel}", "--selector", "random", "-o", "{d}/o.jsonl",
                                    "--truth", "{d}/truth.json", "--original", "{data}",
                                    "--metrics-csv", "{d}/o.jsonl"],
    "semantic --metrics-csv missing folder": ["attacks", "semantic", "{rel}", "--selector", "random",
                                              "-o", "{d}/o.jsonl", "--truth", "{d}/truth.json",
                                              "--original", "{data}", "--no-wmd", "--metrics-csv", "{d}/no/m.csv"],
    "semantic --metrics-csv without --truth": ["attacks", "semantic", "{rel}", "--selector", "random",
                                               "-o", "{d}/o.jsonl", "--metrics-csv", "{d}/m.csv"],
    "semantic --vpa-limit 0": ["attacks", "semantic", "{rel}", "--selector", "VPA", "--vpa-limit", "0",
                               "-o", "{d}/o.jsonl"],
    "semantic --vpa-budget -1": ["attacks", "semantic", "{rel}", "--selector", "VPA", "--vpa-budget", "-1",
                                 "-o", "{d}/o.jsonl"],
}


@pytest.mark.parametrize("case", sorted(BAD_ARGUMENTS))
def test_bad_arguments_and_outputs_are_refused_before_any_work(folder, capsys, case):
    if "endless line" in case:
        (folder / "long.txt").write_bytes(b"7 " * (MAX_LINE_BYTES // 2 + 1))
    values = {"d": str(folder), "dname": folder.name, "data": str(folder / "data.jsonl"),
              "rel": str(folder / "release.json")}
    argv = [a.format(**values) for a in BAD_ARGUMENTS[case]]
    assert_one_error_line(folder, argv, capsys)
