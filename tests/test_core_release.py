"""Release and truth files: round trips, validation errors, atomic writes."""

import json
import os
import stat

import pytest

from anonymizer.io.release_files import load_release, load_truth, save_release, save_truth
from anonymizer.model.release import Release, Truth
from corpora.common.errors import InputError, run_cli
from corpora.common.files import atomic_open

FIG2B = {
    "format": "disassociated/1",
    "params": {"k": 3, "m": 2, "max_cluster_size": 5},
    "clusters": [
        {"id": "P1", "size": 5,
         "record_chunks": [[["flu", "itunes", "madonna"], ["flu", "madonna"], ["itunes", "madonna"],
                            ["flu", "itunes"], ["flu", "itunes", "madonna"]],
                           [["audi a4", "sony tv"], ["audi a4", "sony tv"], ["audi a4", "sony tv"]]],
         "term_chunk": ["ikea", "ruby", "viagra"]},
        {"id": "P2", "size": 5,
         "record_chunks": [[["digital camera", "madonna"], ["iphone sdk", "madonna"],
                            ["digital camera", "iphone sdk", "madonna"], ["digital camera", "iphone sdk"],
                            ["digital camera", "iphone sdk", "madonna"]]],
         "term_chunk": ["ikea", "panic disorder", "playboy", "ruby"]},
    ],
    "joint_clusters": [],
}


def test_release_round_trip(tmp_path):
    release = Release.from_json(FIG2B)
    assert release.k == 3 and release.m == 2 and release.n_records == 10
    assert release.clusters[0].chunk_terms(1) == {"audi a4", "sony tv"}
    path = tmp_path / "r.json"
    save_release(release, path)
    assert json.loads(path.read_text()) == FIG2B
    assert load_release(path) == release


def test_nested_joint_clusters_have_leaves():
    obj = dict(FIG2B, joint_clusters=[
        {"id": "J1", "children": ["P1", "P2"], "shared_chunks": [[["ikea", "ruby"], ["ikea"]]]},
        {"id": "J2", "children": ["J1"], "shared_chunks": []},
    ])
    release = Release.from_json(obj)
    assert [c.id for c in release.leaves("J2")] == ["P1", "P2"]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda o: o.update(format="other"), "format"),
        (lambda o: o["params"].update(k="3"), "params.k"),
        (lambda o: o["clusters"][0].update(size=2), "exceed size"),
        (lambda o: o["clusters"][1].update(id="P1"), "unique"),
        (lambda o: o["clusters"][0]["record_chunks"][0].append([]), "non-empty"),
        (lambda o: o.update(joint_clusters=[{"id": "J1", "children": ["P9"], "shared_chunks": []}]), "children"),
    ],
)
def test_malformed_releases_name_the_problem(mutate, message):
    obj = json.loads(json.dumps(FIG2B))
    mutate(obj)
    with pytest.raises(InputError, match=message):
        Release.from_json(obj)


def test_empty_and_invalid_files(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(InputError, match="empty"):
        load_release(empty)
    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    with pytest.raises(InputError, match="not valid JSON"):
        load_release(broken)


def test_truth_round_trip_and_check(tmp_path):
    release = Release.from_json(FIG2B)
    truth = Truth.from_json({
        "format": "disassociated-truth/1",
        "clusters": [
            {"id": "P1", "records": [0, 1, 2, 3, 4], "record_chunks": [[0, 1, 2, 3, 4], [1, 2, 4]],
             "term_chunk": {"ikea": [0, 2], "ruby": [0, 1], "viagra": [1, 3]}},
            {"id": "P2", "records": [5, 6, 7, 8, 9], "record_chunks": [[5, 6, 7, 8, 9]],
             "term_chunk": {"ikea": [6, 9], "ruby": [6, 9], "panic disorder": [5, 8], "playboy": [5, 7]}},
        ],
    })
    truth.check_against(release)
    path = tmp_path / "t.json"
    save_truth(truth, path)
    assert load_truth(path) == truth
    truth.clusters[0].record_chunks[1].pop()
    with pytest.raises(InputError):
        truth.check_against(release)


def test_atomic_open_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with atomic_open(target) as handle:
            handle.write("half")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
    with atomic_open(target) as handle:
        handle.write("whole")
    assert target.read_text() == "whole"
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask  # not mkstemp's private 0600


def test_run_cli_turns_user_errors_into_one_line(capsys):
    def bad(argv):
        raise InputError("data.txt:3: malformed line")

    def missing(argv):
        open("/nonexistent/file.txt")

    assert run_cli(bad, []) == 2
    assert capsys.readouterr().err == "error: data.txt:3: malformed line\n"
    assert run_cli(missing, []) == 2
    assert capsys.readouterr().err.strip() == "error: /nonexistent/file.txt: no such file"
