"""The README's tour of the command line runs in order, in one folder, as written (issue 21).

The tour (the section "## A tour of the command line" of README.md) is read as one session: a
reader types its commands top to bottom in one folder. Two checks:

* statically, in document order: no command writes a file an earlier command wrote or read (a
  later command would silently read another file than the one the prose describes), writes into
  the repository, or reads a file that neither the repository ships nor an earlier command wrote;
* the commands run in that order in one scratch folder (a plain ``python -m TOOL ...`` line in this
  process, as :func:`cli_runner.run_command` says; a line with shell syntax through bash), each
  ending with exit status 0 unless :data:`EXPECTED` says otherwise; the slow ones are left out by
  :data:`SKIP`, each with its reason, and a file a skipped command would make for a later one comes
  from :data:`STAND_INS`.

A command added to the tour runs here unless it is listed in :data:`SKIP`.
"""

from __future__ import annotations

import shutil
import time

import pytest
from cli_runner import run_command
from test_docs_commands import ROOT, _files, commands_in

README = ROOT / "README.md"
TOUR = "## A tour of the command line"

#: Tour commands not run here, with the reason. Their outputs are read by no command that runs,
#: except the ones :data:`STAND_INS` provides (checked by ``test_skipped_outputs_are_not_needed``).
SKIP: dict[str, str] = {
    # text corpora: gensim's documents pre-processed (about a minute on a fresh cache, then cached)
    "python -m corpora build-text --source lee --density 0.3 --topics 10 --seed 0 -o lee.jsonl":
        "builds a text corpus (pre-processing of gensim's Lee corpus)",
    "python -m corpora build-text --source pool --pipeline thesis --density 0.3 --part attacked -o pool.jsonl":
        "builds the pooled text corpus (Lee, Wikipedia, newsgroups, Reuters); pool.jsonl is stood in",
    # Dask
    "python -m anonymizer kosarak10k.txt -k 3 -m 2 --split-depth 2 --executor dask -o dask-release.json":
        "starts a local Dask cluster of 2 worker processes (tests/test_distributed.py covers it)",
    # semantic attacks and scorers that load GloVe 6B (400k words) or count over the pooled corpora
    "python -m attacks semantic pool-release.json -o rec.jsonl --truth pool-truth.json --original pool.jsonl":
        "default NGD scorer: counts in gensim's Wikipedia sample; WMD loads GloVe 6B",
    "python -m attacks semantic pool-release.json --scorer ngd --ngd-setting public --reference pool "
    "-o rec-public.jsonl --truth pool-truth.json --original pool.jsonl --json":
        "NGD counts over the pooled text corpora (builds them on a fresh cache; 12 s warm)",
    "python -m attacks semantic pool-release.json --scorer ngd --ngd-setting private --reference pool "
    "-o rec-private.jsonl":
        "NGD counts over the pooled text corpora (builds them on a fresh cache; 8 s warm)",
    "python -m attacks semantic pool-release.json --scorer glove --selector ABA-spread -o rec-spread.jsonl":
        "loads GloVe 6B",
    "python -m attacks score miller-charles": "default NGD scorer: counts in gensim's Wikipedia sample",
    "python -m attacks score attacks/data/miller_charles_1991.tsv --scorer glove --json": "loads GloVe 6B",
}

#: Files a skipped command writes and a command that runs reads: a shipped file copied in its place
#: when the skipped command's turn comes. pool.jsonl (the pooled text, 200 transactions) is stood in
#: by AlShuhail2021's Table 4.2 (4 text transactions): the commands reading it run as written, on less.
STAND_INS: dict[str, str] = {"pool.jsonl": "docs/examples/table4.2.jsonl"}

#: Commands whose exit status is not 0, with the status (as the README shows or, for the audit's
#: gates, as the data make it: 0 every gate holds, 1 one is crossed, 2 bad input).
EXPECTED: dict[str, int] = {
    # kosarak10k's plain release: PEM 7.6% > 0: the audit fails and recommends --safe
    "python -m attacks audit release.json --original kosarak10k --truth truth.json": 1,
    # six users' orders at k=2: PEM 33% > 0, strong and weak attackers 33% > 5% (the ids stay out)
    "python -m attacks audit orders-release.json --original docs/examples/orders.csv --format long "
    "--user-column user_id --item-column item": 1,
    # Awad2019 Figure 1 against the declared threat model, two attackers: PEM, strong and weak fail
    "python -m attacks audit docs/examples/fig1.json --truth docs/examples/fig1-truth.json "
    "--threat-model docs/examples/threat-model.yaml --attackers strong,weak --html audit.html": 1,
    # on the stand-in pool (4 records, one cluster of 2 record chunks) PEM is 50% > --max-pem 0.05;
    # on the real pool.jsonl the same line passes (exit 0)
    "python -m attacks audit pool-release.json --truth pool-truth.json --original pool.jsonl --max-pem 0.05 "
    "--max-vulnerable 0.1": 1,
}

#: Text a command's standard output must hold: the audit of Figure 1 fails (exit 1), which the
#: README's ``|| echo`` turns into a line (and the status 0 of the whole line).
PRINTS: dict[str, str] = {
    'python -m attacks audit docs/examples/fig1.json --json -o audit.json || echo "not publishable"':
        "not publishable",
}


def tour_commands() -> list[str]:
    """The tour's commands in document order."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n{TOUR}\n")
    end = text.find("\n## ", start + len(TOUR) + 2)
    return commands_in(text[start:end if end > 0 else len(text)])


def _shipped(name: str) -> bool:
    """A file of the repository (a path inside one of its folders, or the default sweep)."""
    return ("/" in name or name == "sweep.yaml") and (ROOT / name).is_file()


def order_problems(commands: list[str]) -> list[str]:
    """What breaks reading ``commands`` as one session in one folder, in their order."""
    problems: list[str] = []
    written: dict[str, str] = {}
    read: dict[str, str] = {}
    for command in commands:
        reads, writes = _files(command)
        for name in reads:
            if name not in written and not _shipped(name):
                later = [c for c in commands[commands.index(command) + 1:] if name in _files(c)[1]]
                why = f"made only later, by `{later[0]}`" if later else "neither shipped nor made by the tour"
                problems.append(f"`{command}` reads {name}: {why}")
            read.setdefault(name, command)
        for name in writes:
            if "/" in name or _shipped(name):
                problems.append(f"`{command}` writes {name} into the repository")
            elif name in written:
                problems.append(f"`{command}` overwrites {name}, written by `{written[name]}`")
            elif name in read and read[name] != command:
                problems.append(f"`{command}` overwrites {name}, read by `{read[name]}`")
            written.setdefault(name, command)
    return problems


def test_the_tour_is_long_and_its_lists_name_tour_commands():
    commands = tour_commands()
    assert len(commands) > 30
    assert len(set(commands)) == len(commands)
    for listed in (SKIP, EXPECTED, PRINTS):
        assert sorted(set(listed) - set(commands)) == []
    assert sorted(set(SKIP) & (set(EXPECTED) | set(PRINTS))) == []


def test_no_tour_command_overwrites_an_earlier_file_or_reads_one_made_later():
    assert order_problems(tour_commands()) == []


def test_the_order_check_sees_overwrites_and_files_used_before_they_are_made():
    make = "python -m anonymizer kosarak10k -k 3 -m 2 -o r.json --truth t.json"
    assert order_problems([make, "python -m anonymizer verify r.json"]) == []
    assert order_problems([make, "python -m anonymizer kosarak10k -k 4 -m 2 -o r.json"]) == [
        "`python -m anonymizer kosarak10k -k 4 -m 2 -o r.json` overwrites r.json, written by "
        f"`{make}`"]
    audit = "python -m attacks audit r.json --truth t.json"
    assert order_problems([audit, make]) == [
        f"`{audit}` reads r.json: made only later, by `{make}`",
        f"`{audit}` reads t.json: made only later, by `{make}`",
        f"`{make}` overwrites r.json, read by `{audit}`",
        f"`{make}` overwrites t.json, read by `{audit}`"]
    assert order_problems(["python -m anonymizer convert docs/examples/fig2b.json docs/examples/fig1.json"])
    assert order_problems(["python -m corpora convert in.tsv -o x.jsonl"]) == [
        "`python -m corpora convert in.tsv -o x.jsonl` reads in.tsv: neither shipped nor made by the tour"]
    assert order_problems([make, "python -m anonymizer convert r.json r.parquet",
                           "python -m anonymizer convert r.parquet r.json"]) == [
        "`python -m anonymizer convert r.parquet r.json` overwrites r.json, written by "
        f"`{make}`"]


def test_skipped_outputs_are_not_needed():
    commands = tour_commands()
    skipped = {name for command in SKIP for name in _files(command)[1]}
    needed = {name for command in commands if command not in SKIP for name in _files(command)[0]}
    assert sorted((skipped & needed) - set(STAND_INS)) == []
    assert all((ROOT / shipped).is_file() for shipped in STAND_INS.values())


@pytest.mark.slow
def test_the_tour_runs_in_order(tmp_path):
    commands = tour_commands()
    links = {"docs", "tests", "sweep.yaml", "experiments"}
    links |= {name.split("/")[0] for command in commands if command not in SKIP
              for name in _files(command)[0] if _shipped(name)}
    for name in sorted(links):
        (tmp_path / name).symlink_to(ROOT / name)
    failures, seconds = [], {}
    for command in commands:
        if command in SKIP:
            for name in _files(command)[1]:
                if name in STAND_INS:
                    shutil.copyfile(ROOT / STAND_INS[name], tmp_path / name)
            continue
        started = time.monotonic()
        done = run_command(command, tmp_path)
        seconds[command] = time.monotonic() - started
        expected = EXPECTED.get(command, 0)
        if done.returncode != expected:
            failures.append(f"{command}: exit {done.returncode}, expected {expected}: {done.stderr.strip()[-300:]}")
        elif PRINTS.get(command, "") not in done.stdout:
            failures.append(f"{command}: does not print {PRINTS[command]!r}")
    assert failures == []
    assert len(seconds) == len(commands) - len(SKIP)
    release = (tmp_path / "orders-release.json").read_text()  # the long CSV's user column stays out
    assert "u1" not in release and "user_id" not in release and "madonna" in release
