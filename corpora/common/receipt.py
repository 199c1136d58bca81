"""A provenance receipt: what a report was made from, so that anyone holding the files can check it.

:func:`make_receipt` records, for a report handed on (the audit's, a sweep's):

* each input file by its role (``{"release": "r.json", "threat model": "t.yaml"}``): its path, its
  size and its SHA-256, read in 1 MiB pieces (never its content);
* the exact command line, shell-quoted (:func:`shlex.join`), with any credentials masked: the
  user and password of a URL (``postgresql://user:pass@host`` -> ``postgresql://***@host``) and the
  value of a ``password=`` / ``token=`` parameter;
* the versions of the project and of every package it declares (:mod:`importlib.metadata`), the
  platform, the Python version and the time (UTC, ISO 8601).

A receipt never carries a secret seed (docs/DESIGN: "A seed is never published: it lives in the truth
file and in the data owner's command line"; :mod:`corpora.common.seeds`). The value of ``--seed`` is
masked in every command line except the attacks' (``python -m attacks ...``, the ``attacks`` script),
whose ``--seed`` is the public seed of the attackers' sampling, needed to reproduce the report. An
``extra`` mapping with a key naming a seed (other than ``attack_seed``) is refused. A truth file given
as an input is listed by size and digest only: a digest reveals nothing of the content to anyone who
does not already hold the original records.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import os
import platform
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from corpora.common.errors import InputError

__all__ = ["PROJECT", "InputFile", "Receipt", "make_receipt", "mask_command", "mask_credentials", "sha256_file"]

PROJECT = "disassociation-workbench"
"""The distribution name of the project (``pyproject.toml``)."""

_PIECE = 1 << 20
_URL_USER = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)[^/@\s]*@")
_SECRET_PARAM = re.compile(r"(?i)\b(?P<key>password|passwd|pwd|token|secret|api[_-]?key)=[^&;\s]*")
_SEED_OPTIONS = ("--seed",)
_PUBLIC_SEED_TOOLS = ("attacks",)
_MASK = "***"


@dataclass(frozen=True)
class InputFile:
    """One input of a report: its role, path, size in bytes and SHA-256 (hex)."""

    role: str
    path: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Receipt:
    """What a report was made from and by what (module docstring)."""

    inputs: list[InputFile]
    command: str
    versions: dict[str, str]
    platform: str
    python: str
    time: str
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sha256_file(path: str | os.PathLike[str]) -> tuple[str, int]:
    """The SHA-256 (hex) and the size of the file at ``path``, read in 1 MiB pieces."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while piece := handle.read(_PIECE):
            digest.update(piece)
            size += len(piece)
    return digest.hexdigest(), size


def mask_credentials(text: str) -> str:
    """``text`` with the user and password of every URL and every ``password=``-like value replaced by ``***``."""
    text = _URL_USER.sub(lambda m: f"{m.group('scheme')}{_MASK}@", text)
    return _SECRET_PARAM.sub(lambda m: f"{m.group('key')}={_MASK}", text)


def _public_seed(argv: Sequence[str]) -> bool:
    """Whether ``argv`` runs the attacks' tool, whose ``--seed`` is the public seed of the attackers' sampling."""
    for i, arg in enumerate(argv[:4]):
        if arg == "-m" and i + 1 < len(argv):
            return argv[i + 1].split(".")[0] in _PUBLIC_SEED_TOOLS
        name = Path(arg).name
        if name in _PUBLIC_SEED_TOOLS or (name == "__main__.py" and Path(arg).parent.name in _PUBLIC_SEED_TOOLS):
            return True
    return False


def mask_command(argv: Sequence[str]) -> str:
    """The shell-quoted command line of ``argv`` with credentials and (outside the attacks) seeds masked."""
    public = _public_seed(argv)
    out: list[str] = []
    hide_next = False
    for arg in map(str, argv):
        if hide_next:
            out.append(_MASK)
            hide_next = False
            continue
        option, eq, _value = arg.partition("=")
        if not public and option in _SEED_OPTIONS:
            if eq:
                out.append(f"{option}={_MASK}")
            else:
                out.append(arg)
                hide_next = True
            continue
        out.append(mask_credentials(arg))
    return shlex.join(out)


def _versions() -> dict[str, str]:
    """The project's version and those of the packages it declares, as installed (``absent`` when not)."""
    out: dict[str, str] = {}
    try:
        out[PROJECT] = importlib.metadata.version(PROJECT)
        requires = importlib.metadata.requires(PROJECT) or []
    except importlib.metadata.PackageNotFoundError:
        out[PROJECT] = "not installed"
        requires = []
    for line in requires:
        if "extra ==" in line:
            continue
        name = re.split(r"[\s\[<>=!~;(]", line, maxsplit=1)[0]
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def _check_extra(extra: Mapping[str, Any], where: str = "extra") -> None:
    """Refuse a key that names a seed (``attack_seed``, the attackers' public seed, aside)."""
    for key, value in extra.items():
        lowered = str(key).lower()
        if "seed" in lowered and lowered != "attack_seed":
            raise ValueError(f"{where}[{key!r}]: a receipt never carries a seed (corpora.common.seeds)")
        if isinstance(value, Mapping):
            _check_extra(value, f"{where}[{key!r}]")


def make_receipt(inputs: Mapping[str, str | os.PathLike[str] | None], argv: Sequence[str],
                 extra: Mapping[str, Any] | None = None) -> Receipt:
    """The receipt of a report made from ``inputs`` (role -> path; ``None`` skipped) by the command ``argv``.

    ``argv`` is the whole command line (``sys.orig_argv`` for the running process). A missing or
    unreadable input is :class:`InputError` (one line); ``extra`` (JSON-like facts to pin, such as the
    thresholds) may not name a seed (:class:`ValueError`).
    """
    extra = dict(extra or {})
    _check_extra(extra)
    files: list[InputFile] = []
    for role, path in inputs.items():
        if path is None:
            continue
        try:
            digest, size = sha256_file(path)
        except OSError as exc:
            raise InputError(f"{os.fspath(path)}: cannot be read for the receipt "
                             f"({exc.strerror or type(exc).__name__})") from None
        files.append(InputFile(str(role), mask_credentials(os.fspath(path)), size, digest))
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    return Receipt(inputs=files, command=mask_command(argv), versions=_versions(),
                   platform=platform.platform(), python=sys.version.split()[0],
                   time=now.isoformat().replace("+00:00", "Z"), extra=extra)
