"""Run a tool's command line in this process, as a subprocess would, but without starting Python.

``run_tool("anonymizer", ["verify", "release.json"], cwd=folder)`` calls ``anonymizer.__main__.main``
with the arguments, in ``cwd``, with ``env`` added to the environment and ``stdin`` as standard
input, and returns a :class:`subprocess.CompletedProcess` with the exit status and what the command
printed. A test that needs a real process (signals, a crash, a fresh interpreter's imports) keeps
using :mod:`subprocess`; every tool keeps one such smoke test.

:func:`run_command` runs a documented command line (README.md, docs/*.md) as a reader would type it:
a plain ``python -m TOOL ...`` line in-process through :func:`run_tool` (the same ``main`` and
arguments, without a second of interpreter start-up per line), and so a plain line followed by
``|| echo "TEXT"`` (bash's meaning: on a non-zero status, TEXT is printed and the line's status is 0);
anything else with shell syntax (``&&``, ``|``, redirections, ``head``) through ``bash``.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS = {"anonymizer": "anonymizer.__main__", "attacks": "attacks.__main__", "corpora": "corpora.__main__",
         "experiments": "experiments.__main__", "experiments.run": "experiments.run"}


@contextlib.contextmanager
def _environment(cwd: str | Path | None, env: Mapping[str, str] | None) -> Iterator[None]:
    before_dir = os.getcwd()
    saved = {name: os.environ.get(name) for name in (env or {})}
    try:
        if cwd is not None:
            os.chdir(cwd)
        os.environ.update(env or {})
        yield
    finally:
        os.chdir(before_dir)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_tool(tool: str, argv: Sequence[str], cwd: str | Path | None = None, env: Mapping[str, str] | None = None,
             stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``python -m TOOL ARGV`` run in-process: its exit status, stdout and stderr.

    ``main`` runs inside :func:`~corpora.common.errors.run_cli`, as every tool's ``__main__`` block
    runs it (a tool whose ``main`` already does so is unaffected): a user's mistake is one line and status 2.
    """
    from corpora.common.errors import run_cli

    main = importlib.import_module(TOOLS[tool]).main
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with _environment(cwd, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = run_cli(main, list(argv))
            except SystemExit as exc:  # --help, --version
                status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin = old_stdin
    return subprocess.CompletedProcess([tool, *argv], int(status or 0), out.getvalue(), err.getvalue())


#: Characters that, outside quotes, make a line shell syntax rather than one command with its arguments.
_SHELL = set("|&;<>()$`*?[]{}~\\\n#")


def _unquoted(command: str) -> str:
    """The characters of ``command`` outside single and double quotes."""
    out, quote = [], ""
    for ch in command:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        else:
            out.append(ch)
    return "".join(out)


def in_process_words(command: str) -> tuple[str, list[str]] | None:
    """``(tool, argv)`` when ``command`` is one plain ``python -m TOOL ARGS`` line of a known tool, else None."""
    if set(_unquoted(command)) & _SHELL:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 3 or words[:2] != ["python", "-m"] or words[2] not in TOOLS:
        return None
    return words[2], words[3:]


def run_command(command: str, cwd: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run one documented command line in ``cwd``: in-process when it is plain (module doc), else with bash.

    The bash run finds this checkout's packages (``PYTHONPATH``) and this interpreter as ``python``.
    """
    plain = in_process_words(command)
    if plain is not None:
        return run_tool(plain[0], plain[1], cwd=cwd)
    first, bar, rest = command.partition(" || ")
    fallback = shlex.split(rest) if bar and not set(_unquoted(rest)) & _SHELL else []
    plain = in_process_words(first)
    if plain is not None and len(fallback) == 2 and fallback[0] == "echo":
        done = run_tool(plain[0], plain[1], cwd=cwd)
        if done.returncode != 0:
            done.stdout += fallback[1] + "\n"
            done.returncode = 0
        return done
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env["PATH"] = f"{os.path.dirname(sys.executable)}:{env.get('PATH', '/usr/bin:/bin')}"
    return subprocess.run(["bash", "-c", command.replace("python -m", f"{sys.executable} -m")], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
