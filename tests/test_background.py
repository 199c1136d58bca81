"""corpora.common.background: work in a daemon thread, its value or its error handed over where asked for."""

from __future__ import annotations

import threading

import pytest
from cli_runner import run_tool

from corpora.common.background import Background
from corpora.common.errors import InputError


def test_the_value_comes_back_and_the_thread_is_a_daemon():
    gate = threading.Event()
    job = Background(lambda: gate.wait(5) and 42, name="t")
    assert job._thread.daemon and job._thread.name == "t"
    gate.set()
    assert job.result() == 42 and job.result() == 42


def test_the_error_is_raised_where_the_value_is_asked_for():
    def fail() -> None:
        raise InputError("release.json: not a release")

    job = Background(fail)
    with pytest.raises(InputError, match="not a release"):
        job.result()


def test_utility_reports_the_original_error_before_the_release_error(tmp_path):
    (tmp_path / "bad.json").write_text("{}")
    done = run_tool("anonymizer", ["utility", str(tmp_path / "missing.txt"), str(tmp_path / "bad.json")])
    assert done.returncode == 2 and "missing.txt" in done.stderr and done.stderr.count("\n") == 1
    (tmp_path / "data.txt").write_text("1 2\n1 3\n2 3\n1 2\n")
    done = run_tool("anonymizer", ["utility", str(tmp_path / "data.txt"), str(tmp_path / "bad.json")])
    assert done.returncode == 2 and "bad.json" in done.stderr and done.stderr.count("\n") == 1
