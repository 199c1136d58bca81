"""Run a tool's command line in this process, as a subprocess would, but without starting Python.

``run_tool("anonymizer", ["verify", "release.json"], cwd=folder)`` calls ``anonymizer.__main__.main``
with the arguments, in ``cwd``, with ``env`` added to the environment and ``stdin`` as standard
input, and returns a :class:`subprocess.CompletedProcess` with the exit status and what the command
printed. A test that needs a real process (signals, a crash, a fresh interpreter's imports) keeps
using :mod:`subprocess`; every tool keeps one such smoke test.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

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
    """``python -m TOOL ARGV`` run in-process: its exit status, stdout and stderr."""
    main = importlib.import_module(TOOLS[tool]).main
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with _environment(cwd, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(argv))
            except SystemExit as exc:  # --help, --version
                status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin = old_stdin
    return subprocess.CompletedProcess([tool, *argv], int(status or 0), out.getvalue(), err.getvalue())
