"""Outputs are all or nothing (issue 22): only regular files are replaced, a failed run changes no
existing output, and a release is never used with a truth from another run (killed between renames)."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import random
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tqdm import tqdm

from anonymizer.__main__ import main as anonymizer_main
from anonymizer.cli.common import write_published_and_secret
from anonymizer.disassociation.pipeline import disassociate
from anonymizer.io.json_writer import ReleaseWriter, release_digest, write_release_and_truth
from anonymizer.io.parquet import write_parquet_and_secret
from anonymizer.io.release_files import load_release, load_truth
from anonymizer.model.release import Release, Truth
from attacks.__main__ import main as attacks_main
from corpora.__main__ import main as corpora_main
from corpora.common import files
from corpora.common.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
RECORDS = [["a", "b", "c"], ["a", "b", "d"], ["a", "c", "d"], ["b", "c", "d"], ["a", "b"], ["b", "c"], ["a", "d"],
           ["c", "d"], ["a", "b", "c", "d"], ["b", "d"], ["a", "c"], ["b", "c", "e"], ["a", "e"], ["d", "e"]]
TOO_LONG = "t" * 300  # ENAMETOOLONG: root ignores permissions, not name lengths


@pytest.fixture(autouse=True)
def _no_hang() -> Iterator[None]:
    """A command that opened a FIFO for writing would block: fail instead."""
    def alarm(signum: int, frame: object) -> None:
        raise TimeoutError("blocked (opened a FIFO?)")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    (folder / "data.txt").write_text("".join(" ".join(r) + "\n" for r in RECORDS))
    assert anonymizer_main([str(folder / "data.txt"), "-k", "2", "-m", "2", "--seed", "1", "-o",
                            str(folder / "r.json"), "--truth", str(folder / "t.json")]) == 0
    return folder


def _special(kind: str, path: Path) -> None:
    if kind == "device":  # a clone of /dev/null, in the test's folder: never the machine's device
        try:
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("creating a device node needs root")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:  # a symbolic link to a FIFO
        os.mkfifo(path.parent / "real.fifo")
        path.symlink_to(path.parent / "real.fifo")


def _state(folder: Path) -> dict[str, tuple[int, int, int, int]]:
    out = {}
    for entry in folder.iterdir():
        st_ = entry.lstat()
        out[entry.name] = (st_.st_mode, st_.st_ino, st_.st_rdev, st_.st_size)
    return out


def _commands(w: Path, x: str, side: Path) -> dict[str, tuple[Callable[[list[str]], int], list[str]]]:
    data, rel, tru = str(w / "data.txt"), str(w / "r.json"), str(w / "t.json")
    common = [data, "-k", "2", "-m", "2"]
    return {
        "anonymize -o": (anonymizer_main, [*common, "-o", x]),
        "anonymize --truth": (anonymizer_main, [*common, "-o", str(side), "--truth", x]),
        "anonymize split --truth": (anonymizer_main, [*common, "--split-depth", "1", "-o", str(side), "--truth", x]),
        "anonymize parquet --truth": (anonymizer_main, [*common, "-o", str(side) + ".parquet", "--truth", x]),
        "apriori -o": (anonymizer_main, [data, "--method", "apriori", "-k", "2", "-m", "2", "-o", x]),
        "reconstruct -o": (anonymizer_main, ["reconstruct", rel, "-o", x]),
        "convert": (anonymizer_main, ["convert", rel, x]),
        "attacks audit -o": (attacks_main, ["audit", rel, "--truth", tru, "-o", x]),
        "attacks cover --save-knowledge": (attacks_main, ["cover", rel, "--save-knowledge", x]),
        "attacks semantic -o": (attacks_main, ["semantic", rel, "-o", x]),
        "corpora convert -o": (corpora_main, ["convert", data, "-o", x]),
        "corpora build-text -o": (corpora_main, ["build-text", "--source", "lee", "--top-n", "3", "-o", x]),
    }


COMMANDS = list(_commands(Path("."), "x", Path("s")))


@pytest.mark.parametrize("kind", ["device", "fifo", "directory", "symlink to a fifo"])
@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_that_is_not_a_regular_file_is_refused(work: Path, tmp_path: Path, kind: str, command: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.json"
    _special(kind, target)
    before = _state(tmp_path)
    main, argv = _commands(work, str(target), tmp_path / "side.json")[command]
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith(f"error: {target}: is a ") and err.count("\n") == 1, err
    assert "must be a regular file or a new name" in err
    assert _state(tmp_path) == before  # nothing touched, nothing created beside it


@pytest.mark.parametrize("kind", ["device", "fifo", "directory"])
def test_the_writer_refuses_to_rename_onto_a_special_file(tmp_path: Path, kind: str) -> None:
    """Defence in depth: a device that appears after the checks is not replaced either."""
    target = tmp_path / "out.json"

    def appear(path: Path) -> None:
        if path == target:
            _special(kind, target)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(files, "_before_rename", appear)
        with pytest.raises(InputError, match="must be a regular file"):
            files.write_text_atomic(target, "text")
    assert not stat.S_ISREG(target.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_a_truth_name_too_long_leaves_the_release_intact(work: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "r.json"
    old.write_bytes((work / "r.json").read_bytes())
    before = old.read_bytes()
    common = [str(work / "data.txt"), "-k", "2", "-m", "2"]
    for extra in ([], ["--split-depth", "1"]):
        assert anonymizer_main([*common, *extra, "-o", str(old), "--truth", str(tmp_path / TOO_LONG)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "name is too long" in err
        assert old.read_bytes() == before


@pytest.mark.parametrize("writer", ["json", "parquet", "split", "published"])
def test_the_writers_open_every_file_before_renaming_any(tmp_path: Path, writer: str) -> None:
    """Below the command line's checks: the truth cannot be opened, the release stays byte for byte."""
    release, truth = disassociate(RECORDS, 2, 2, seed=5)
    target = tmp_path / ("r.parquet" if writer == "parquet" else "r.json")
    target.write_bytes(b"the old release\n")
    secret = str(tmp_path / TOO_LONG)
    with pytest.raises(OSError):
        if writer == "json":
            write_release_and_truth(release, truth, target, secret)
        elif writer == "parquet":
            write_parquet_and_secret(release, target, truth, secret)
        elif writer == "split":
            with ReleaseWriter(target, secret, release.params, seed=5) as out:
                out.add(release, truth)
        else:
            write_published_and_secret({"format": "x"}, str(target), {"seed": 1}, secret)
    assert target.read_bytes() == b"the old release\n"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_the_truth_records_the_release_digest_in_both_forms(work: Path, tmp_path: Path) -> None:
    data = work / "data.txt"
    common = [str(data), "-k", "2", "-m", "2", "--seed", "9"]
    assert anonymizer_main([*common, "-o", str(tmp_path / "r.parquet"), "--truth", str(tmp_path / "t.parquet")]) == 0
    assert anonymizer_main([*common, "-o", str(tmp_path / "r.json"), "--truth", str(tmp_path / "t.json")]) == 0
    digest = hashlib.sha256((tmp_path / "r.json").read_bytes()).hexdigest()
    assert load_truth(tmp_path / "t.json").release_sha256 == digest == load_truth(tmp_path / "t.parquet").release_sha256
    assert release_digest(load_release(tmp_path / "r.parquet")) == digest
    for r in ("r.json", "r.parquet"):  # the forms convert into each other: any form pairs with any form
        for t in ("t.json", "t.parquet"):
            load_truth(tmp_path / t).check_against(load_release(tmp_path / r))
    other = load_truth(work / "t.json")
    with pytest.raises(InputError, match="the truth belongs to another release"):
        other.check_against(load_release(tmp_path / "r.json"))


def test_an_older_truth_without_a_digest_is_read_and_checked_piece_by_piece(work: Path, tmp_path: Path) -> None:
    truth = load_truth(work / "t.json")
    old = dataclasses.replace(truth, release_sha256=None)
    (tmp_path / "old.json").write_text(old.to_json())
    loaded = load_truth(tmp_path / "old.json")
    assert loaded.release_sha256 is None
    loaded.check_against(load_release(work / "r.json"))


def test_the_commands_refuse_a_truth_of_another_run(work: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert anonymizer_main([str(work / "data.txt"), "-k", "2", "-m", "2", "--seed", "2", "-o",
                            str(tmp_path / "r.json"), "--truth", str(tmp_path / "t.json")]) == 0
    capsys.readouterr()
    assert (tmp_path / "r.json").read_bytes() != (work / "r.json").read_bytes()
    for argv in (["cover", str(work / "r.json"), "--truth", str(tmp_path / "t.json")],
                 ["audit", str(work / "r.json"), "--truth", str(tmp_path / "t.json"), "--no-semantic"]):
        assert attacks_main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "the truth belongs to another release" in err, err


# ---- both or neither: failures and kills at every step of a write ----------------------------------------------

def _pair(seed: int) -> tuple[Release, Truth]:
    return disassociate(RECORDS, 2, 2, seed=seed)


def _write(form: str, release: Release, truth: Truth, folder: Path) -> tuple[Path, Path]:
    r, t = folder / ("r.parquet" if form == "parquet" else "r.json"), folder / ("t.parquet" if form == "parquet"
                                                                                else "t.json")
    if form == "json":
        write_release_and_truth(release, truth, r, t)
    elif form == "parquet":
        write_parquet_and_secret(release, r, truth, t)
    else:
        with ReleaseWriter(r, t, release.params, seed=truth.seed) as out:
            out.add(release, truth)
            out.add(release, truth)
    return r, t


def _verdict(r: Path, t: Path, old: tuple[bytes, bytes], new: tuple[bytes, bytes]) -> str:
    """"old" or "new" (a pair a reader accepts), "refused" (a mix the reader refuses); fails on anything else."""
    now = (r.read_bytes(), t.read_bytes())
    try:
        load_truth(t).check_against(load_release(r))
    except InputError as exc:
        assert "the truth belongs to another release" in str(exc)
        assert now in ((old[0], new[1]), (new[0], old[1]))
        return "refused"
    assert now in (old, new), "a reader accepted a release and a truth of different runs"
    return "old" if now == old else "new"


class Injected(Exception):
    pass


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(form=st.sampled_from(["json", "parquet", "split"]), step=st.integers(0, 7),
       interrupt=st.booleans())
def test_a_failure_at_any_step_leaves_the_old_pair_or_the_new_one(tmp_path_factory: pytest.TempPathFactory,
                                                                   form: str, step: int, interrupt: bool) -> None:
    folder = tmp_path_factory.mktemp("pair")
    old = [p.read_bytes() for p in _write(form, *_pair(1), folder)]
    steps = {"n": 0}
    real = {name: getattr(os, name) for name in ("open", "fsync", "replace")}

    def counted(name: str) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            if steps["n"] == step:
                steps["n"] += 1
                raise KeyboardInterrupt if interrupt else Injected(f"failure at {name}")
            steps["n"] += 1
            return real[name](*args, **kwargs)
        return call

    with pytest.MonkeyPatch.context() as mp:
        for name in real:
            mp.setattr(files.os, name, counted(name))
        failed = True
        try:
            r, t = _write(form, *_pair(2), folder)
            failed = False
        except (Injected, KeyboardInterrupt):
            pass
    r, t = (folder / "r.parquet", folder / "t.parquet") if form == "parquet" else (folder / "r.json", folder / "t.json")
    new = [p.read_bytes() for p in _write(form, *_pair(2), tmp_path_factory.mktemp("new"))]
    assert old != new
    verdict = _verdict(r, t, tuple(old), tuple(new))  # type: ignore[arg-type]
    if not failed:
        assert verdict == "new"
    if failed and verdict == "old":
        assert [r.read_bytes(), t.read_bytes()] == old  # byte for byte
    assert sorted(p.name for p in folder.iterdir()) == sorted([r.name, t.name])  # no temporary file left


def _killed_write(form: str, folder: Path, kill_at: int | None, delay: float) -> int:
    """Fork a process that writes the seed-2 pair into ``folder``; SIGKILL it at its ``kill_at``-th
    rename (0: before the first, 1: between the two) or, with ``kill_at=None``, after ``delay`` s."""
    release, truth = _pair(2)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read)
            # tqdm's lock is shared with the parent through fork: a child killed holding it would
            # block the parent, so the child takes a lock of its own
            tqdm.set_lock(threading.RLock())
            renames: list[Path] = []

            def hook(target: Path) -> None:
                if len(renames) == kill_at:
                    os.kill(os.getpid(), signal.SIGKILL)
                renames.append(target)

            files._before_rename = hook
            os.write(write, b"go")
            _write(form, release, truth, folder)
        finally:
            os._exit(0)
    os.close(write)
    os.read(read, 2)
    os.close(read)
    if kill_at is None:
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def test_sigkill_at_random_points_never_leaves_a_pair_a_reader_accepts_as_one(tmp_path: Path) -> None:
    """SIGKILL before the first rename, between the two renames, and at random moments while writing."""
    import pyarrow.parquet  # noqa: F401  # imported before the forks, as a command has it

    rng = random.Random(22)
    seen: dict[str, int] = {}
    forms = ("json", "parquet", "split")
    new, took = {}, {}
    for form in forms:  # a write without a kill: its duration bounds the random delays
        release, truth = _pair(2)
        start = time.monotonic()
        pair = _write(form, release, truth, _fresh(tmp_path / f"new-{form}"))
        took[form] = time.monotonic() - start
        new[form] = tuple(p.read_bytes() for p in pair)
    tries: list[tuple[str, int | None, float]] = [(form, kill_at, 0.0) for form in forms for kill_at in (0, 1)]
    for _ in range(KILLS - len(tries)):
        form = rng.choice(forms)
        tries.append((form, None, rng.uniform(0.0, 3 * max(took[form], 0.001))))
    for i, (form, kill_at, delay) in enumerate(tries):
        folder = _fresh(tmp_path / f"run{i}")
        old = tuple(p.read_bytes() for p in _write(form, *_pair(1), folder))
        status = _killed_write(form, folder, kill_at, delay)
        r, t = (folder / "r.parquet", folder / "t.parquet") if form == "parquet" else (folder / "r.json",
                                                                                       folder / "t.json")
        verdict = _verdict(r, t, old, new[form])  # type: ignore[arg-type]
        if kill_at is not None:
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            assert verdict == ("old" if kill_at == 0 else "refused")
        if verdict == "old":
            assert (r.read_bytes(), t.read_bytes()) == old  # byte for byte
        seen[verdict] = seen.get(verdict, 0) + 1
        _write(form, *_pair(3), folder)  # the next write removes what the killed process left
        assert sorted(p.name for p in folder.iterdir()) == sorted([r.name, t.name])
    assert seen.get("old", 0) >= 3 and seen.get("refused", 0) >= 3, seen
    print(f"{len(tries)} kills: {seen}; writes took {took}")


KILLS = 40


def _fresh(folder: Path) -> Path:
    folder.mkdir()
    return folder
