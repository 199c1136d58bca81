"""Every command in README.md and docs/*.md can run as written (issue 13).

All commands are extracted (```bash blocks, and ``$ `` lines of plain blocks). Two checks:

* every file a command reads is shipped (``docs/examples/``, ``tests/data/``, the sweeps) or
  written by a documented command (``-o``, the anonymizer's ``--truth``, ``--save-knowledge``, the
  output of ``anonymizer convert``);
* a representative subset (:data:`RUN`, kept here beside the docs; the fast ones, no sweep, no
  text building, no GloVe) is run from a scratch folder that sees the repository's files, and
  each must end with the exit status the docs show.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from cli_runner import run_command

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
INPUT_SUFFIXES = (".json", ".jsonl", ".csv", ".tsv", ".txt", ".yaml", ".parquet")
OUTPUT_FLAGS = {"-o", "--output", "--save-knowledge", "--metrics-csv", "--results"}
#: The anonymizer's commands that read a release (the others anonymize, and write ``--truth``).
RELEASE_COMMANDS = {"verify", "reconstruct", "utility", "convert", "--help", "-h"}

#: Commands run by the test, with the exit status the docs show (in the order they run). The README's
#: tour runs its own commands (tests/test_readme_tour.py); a command it runs is not listed again here.
RUN: dict[str, int] = {
    "python -m corpora convert docs/examples/orders.csv --format long --user-column 0 --item-column 1 --header "
    "-o orders.jsonl": 0,
    "python -m corpora convert terrovitis2012-fig2 -o fig2.jsonl && head -2 fig2.jsonl": 0,
    "python -m corpora convert terrovitis2012-fig2 -o fig2.txt": 2,
    "python -m anonymizer terrovitis2012-fig2 -k 2 -m 2 --max-cluster-size 5 --horpart adding --verpart grouped "
    "-o rel.json --truth truth.json": 0,
    "python -m anonymizer verify rel.json": 0,
    "python -m anonymizer docs/examples/fig2.jsonl -k 1 -m 2 --max-cluster-size 6 -o x.json": 2,
    "python -m anonymizer verify docs/examples/fig2b.json": 0,
    "python -m anonymizer verify docs/examples/example1.json": 1,
    "python -m anonymizer verify docs/examples/example1.json --exact-max-records 0": 1,
    "python -m anonymizer reconstruct docs/examples/fig2b.json --seed 1 -o recon.jsonl": 0,
    "head -2 recon.jsonl": 0,
    "python -m anonymizer utility docs/examples/fig2.jsonl docs/examples/fig2b.json --top-k 10 --re-range 0 6 "
    "--json": 0,
    "python -m anonymizer utility docs/examples/fig2.jsonl docs/examples/fig2b.json --top-k 10": 0,
    "python -m anonymizer utility docs/examples/fig2.jsonl docs/examples/fig2b.json --re-range 200 220": 2,
    "python -m anonymizer kosarak10k -k 3 -m 2 --seed 7 -o release.json": 0,
    "python -m anonymizer kosarak10k -k 3 -m 2 --seed 7 --safe -o safe-release.json": 0,
    "python -m attacks cover docs/examples/fig1.json --truth docs/examples/fig1-truth.json "
    "--save-knowledge strong.jsonl": 0,
    "head -2 strong.jsonl": 0,
    "python -m attacks cover docs/examples/fig1.json --moderate-share 1.5": 2,
    "python -m attacks semantic docs/examples/table4.3-release.json --scorer "
    "table:tests/data/alshuhail2021_table4.4_scores.csv --selector ABA -o rec.jsonl --truth "
    "docs/examples/table4.3-truth.json --original docs/examples/table4.2.jsonl --bootstrap 200": 0,
    "python -m experiments.run sweep.yaml --dry-run": 0,
    "python -m experiments.run docs/examples/bad.yaml": 2,
}


def documented_commands(path: Path) -> list[str]:
    """The shell commands of a Markdown file, continuation lines joined and trailing comments cut."""
    return commands_in(path.read_text(encoding="utf-8"))


def commands_in(markdown: str) -> list[str]:
    """The shell commands of Markdown text, in document order (see :func:`documented_commands`)."""
    out: list[str] = []
    for lang, body in BLOCK.findall(markdown):
        if lang not in ("bash", "sh", ""):
            continue
        body = re.sub(r"\\\n\s*", "", body)
        for line in body.splitlines():
            if lang == "":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            line = _without_comment(line).strip()
            if line.startswith(("python ", "pip ", "bash ", "head ", "cat ")):
                out.append(line)
    return out


def _without_comment(line: str) -> str:
    """``line`` without a trailing shell comment: from the first ``#`` outside quotes that follows a blank."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def _all_commands() -> list[tuple[str, str]]:
    return [(path.name, cmd) for path in DOCS for cmd in documented_commands(path)]


def _files(command: str) -> tuple[list[str], list[str]]:
    """(files read, files written) named by a command line, in the order they are named.

    Written: the value of an output flag (:data:`OUTPUT_FLAGS`), the anonymizer's ``--truth`` when it
    anonymizes (elsewhere ``--truth`` is read) and the second file of ``anonymizer convert IN OUT``.
    Read: every other word ending like a data file (:data:`INPUT_SUFFIXES`; ``table:`` cut off).
    Lines joined by ``&&``, ``||``, ``;`` or ``|`` are read command by command.
    """
    reads, writes = [], []
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    simple: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", "||", ";", "|"):
            simple.append([])
        else:
            simple[-1].append(word)
    for part in simple:
        sub = part[3] if part[:3] == ["python", "-m", "anonymizer"] and len(part) > 3 else ""
        anonymizes = part[:3] == ["python", "-m", "anonymizer"] and sub not in RELEASE_COMMANDS
        converted = [w for w in part[4:] if not w.startswith("-")][1:2] if sub == "convert" else []
        for before, word in zip(["", *part], part, strict=False):
            word = word.removeprefix("table:")
            if before in OUTPUT_FLAGS or (before == "--truth" and anonymizes) or word in converted:
                writes.append(word)
            elif word.endswith(INPUT_SUFFIXES) and not word.startswith("-"):
                reads.append(word)
    return reads, writes


def test_every_documented_input_exists_or_is_made_by_a_documented_command():
    commands = _all_commands()
    assert len(commands) > 40
    made = {w for _, cmd in commands for w in _files(cmd)[1]}
    missing = []
    for doc, cmd in commands:
        for name in _files(cmd)[0]:
            if name not in made and not (ROOT / name).exists() and "CONFIG" not in name and "FILE" not in name:
                missing.append(f"{doc}: {cmd} -> {name}")
    assert missing == []


def test_the_run_list_is_documented_and_leaves_the_tour_to_its_test():
    documented = {cmd for _, cmd in _all_commands()}
    assert sorted(set(RUN) - documented) == []
    from test_readme_tour import tour_commands

    assert sorted(set(RUN) & set(tour_commands())) == []


@pytest.mark.slow
def test_representative_commands_run_as_documented(tmp_path):
    for name in ("docs", "tests", "sweep.yaml", "experiments"):
        (tmp_path / name).symlink_to(ROOT / name)
    failures = []
    for command, expected in RUN.items():
        done = run_command(command, tmp_path, timeout=180)
        if done.returncode != expected:
            failures.append(f"{command}: exit {done.returncode}, expected {expected}: {done.stderr.strip()[-300:]}")
    assert failures == []


def test_a_plain_line_or_echo_runs_in_process_as_bash_would(tmp_path, monkeypatch):
    """``python -m TOOL ... || echo "TEXT"``: the tool in this process; on a non-zero status TEXT is printed and the
    status is 0, on 0 nothing is added; any other shell syntax still goes to bash (a real process)."""
    import subprocess

    failing = 'python -m anonymizer verify missing.json || echo "not publishable"'
    started = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: started.append(a) or subprocess.CompletedProcess(a, 0))
    done = run_command(failing, tmp_path)
    assert started == [] and done.returncode == 0 and done.stdout == "not publishable\n"
    assert "missing.json" in done.stderr
    passing = run_command('python -m corpora list || echo "never"', tmp_path)
    assert passing.returncode == 0 and "never" not in passing.stdout and "kosarak10k" in passing.stdout
    run_command('python -m corpora list || echo "a" > out.txt', tmp_path)
    run_command('python -m corpora list && echo "b"', tmp_path)
    assert len(started) == 2
