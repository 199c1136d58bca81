"""Files in and out: atomic output, checks of output paths, and bounded reading of untrusted input.

* :func:`atomic_open` writes a result file through a temporary file beside it, renamed onto the
  target only when the block succeeds: a result is either complete or absent, never half written.
  Temporary files are named ``.<name>.<pid>.<random>.tmp``; the next :func:`atomic_open` of the
  same target removes the ones whose process is dead (left by a SIGKILL). On SIGTERM the command
  lines (:func:`corpora.common.errors.run_cli`) raise an exception, so the temporary file is removed too.
* :func:`atomic_files` does the same for several files that belong together (a release and its
  truth): every temporary file is opened first, all are written, and only then are they renamed,
  one after the other in the order given; a failure before the renames leaves every existing
  target byte for byte as it was. Renaming two files is never atomic as a pair: a reader that must
  pair them checks that they belong together (:mod:`anonymizer.io.json_writer`).
* Only regular files (or new names) are ever replaced: :func:`check_output_paths` refuses, before
  any work starts, an output that exists and is not a regular file (a directory, a device such as
  ``/dev/null``, a FIFO, a socket, or a symbolic link to one of these), an output in a missing or
  read-only folder, and an output that is one of the inputs or another output. The writers check
  again just before each rename, so a device created meanwhile is not replaced either.
* :func:`read_bounded` / :func:`read_text_bounded` read input in 1 MiB pieces and stop at the first
  NUL byte (a binary file or a device such as ``/dev/zero``), at a size bound or at a line-length
  bound, instead of reading without end.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, BinaryIO

from corpora.common.errors import InputError, forget_temporary, register_temporary

__all__ = ["atomic_open", "atomic_files", "write_text_atomic", "write_json_atomic", "check_output_paths",
           "not_regular", "parse_json", "iter_bounded", "read_bounded", "read_text_bounded", "stale_temp_files"]

_PIECE = 1 << 20  # bytes read at a time by read_bounded


def _temp_prefix(target: Path) -> str:
    return f".{target.name}."


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # a process of another user holds it (or a pid we cannot ask about): leave it
    return True


def stale_temp_files(path: str | os.PathLike[str]) -> list[Path]:
    """Temporary files of :func:`atomic_open` for ``path`` whose writing process no longer exists.

    One ``os.listdir`` of the target's folder (about a millisecond per 10,000 entries).
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    prefix = _temp_prefix(target)
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return []
    stale: list[Path] = []
    for name in sorted(names):
        pid_text, _, rest = name[len(prefix):-len(".tmp")].partition(".")
        if pid_text.isdigit() and rest and not _pid_alive(int(pid_text)):
            stale.append(directory / name)
    return stale


def not_regular(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when it exists and is not a regular file (symbolic links followed): ``"a
    directory"``, ``"a character device"``, ``"a block device"``, ``"a FIFO"``, ``"a socket"``;
    ``None`` for a regular file, a missing name or a dangling link (a rename may replace those)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return None  # e.g. a name too long: opening the temporary file beside it reports that
    if stat.S_ISREG(mode):
        return None
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"  # pragma: no cover - every file type is listed above


def _refuse_not_regular(path: str | os.PathLike[str], label: str = "output") -> None:
    kind = not_regular(path)
    if kind is not None:
        raise InputError(f"{os.fspath(path)}: is {kind}; the {label} must be a regular file or a new name")


def _open_temp(path: str | os.PathLike[str]) -> tuple[Path, Path, int]:
    """``(target, temporary path, fd)``: a new temporary file beside ``path`` (stale ones removed)."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise FileNotFoundError(2, "No such directory", str(directory))
    _refuse_not_regular(target)
    for stale in stale_temp_files(target):
        with contextlib.suppress(OSError):
            stale.unlink()
    tmp = directory / f"{_temp_prefix(target)}{os.getpid()}.{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for any output
    return target, tmp, fd


_before_rename: Any = None
"""Test hook: called with the target just before each rename of :func:`atomic_files`."""


@contextlib.contextmanager
def atomic_files(specs: Sequence[tuple[str | os.PathLike[str], str]], encoding: str | None = "utf-8"
                 ) -> Iterator[list[IO[Any]]]:
    """Open a temporary file beside each ``(path, mode)`` of ``specs`` and yield their handles; only
    if the block succeeds are all flushed to disk and renamed onto their paths, in the order given.

    Every temporary file is opened before the block runs, so a path that cannot be written (a name
    too long, a folder that vanished) fails before anything is renamed. On any exception (SIGTERM
    included, see :func:`corpora.common.errors.run_cli`) the temporary files are removed and the paths not
    yet renamed are left as they were. Just before the renames each path is checked again: an
    existing path that is not a regular file (a device, a FIFO, a directory) is never replaced.
    """
    temps: list[tuple[Path, Path]] = []
    handles: list[IO[Any]] = []
    try:
        for path, mode in specs:
            target, tmp, fd = _open_temp(path)
            temps.append((target, tmp))
            register_temporary(tmp)  # the SIGTERM watchdog removes it if it has to end a stuck command
            try:
                handles.append(os.fdopen(fd, mode, encoding=None if "b" in mode else encoding))
            except BaseException:
                os.close(fd)
                raise
        yield handles
        for handle in handles:
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
        for target, _ in temps:
            _refuse_not_regular(target)
        for target, tmp in temps:
            if _before_rename is not None:
                _before_rename(target)
            _refuse_not_regular(target)
            os.replace(tmp, target)
            forget_temporary(tmp)
    except BaseException:
        for handle in handles:
            with contextlib.suppress(OSError, ValueError):
                handle.close()
        for _, tmp in temps:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            forget_temporary(tmp)
        raise


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; rename it onto ``path`` only if the block succeeds.

    On any exception (SIGTERM included, see :func:`corpora.common.errors.run_cli`) the temporary file is
    removed and ``path`` is left as it was. Stale temporary files of ``path`` whose process is
    dead are removed first. An existing ``path`` that is not a regular file is refused (one
    :class:`InputError` line) when opening and again just before the rename.
    """
    with atomic_files([(path, mode)], encoding) as (handle,):
        yield handle


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8)."""
    with atomic_open(path, "w") as handle:
        handle.write(text)


def write_json_atomic(path: str | os.PathLike[str], obj: Any, indent: int | None = None) -> None:
    """Serialize ``obj`` as JSON (UTF-8, non-ASCII kept) and write it to ``path`` atomically."""
    write_text_atomic(path, json.dumps(obj, ensure_ascii=False, indent=indent) + "\n")


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


_TEMP_EXTRA = 32
"""Bytes a temporary file's name adds to its target's: ``.`` ``.<pid>.<8 hex>.tmp``."""


def _name_max(directory: str) -> int:
    try:
        return os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def check_output_paths(outputs: Mapping[str, str | os.PathLike[str] | None],
                       inputs: Mapping[str, str | os.PathLike[str] | None] | None = None) -> None:
    """Refuse bad output paths before any work starts (:class:`InputError`, one line).

    ``outputs`` and ``inputs`` map a label (``"release"``, ``"--truth"``) to a path; ``None``
    entries are skipped, and so are inputs that are not existing files (a registered dataset
    name). An output is refused when its folder does not exist or is not writable, when it exists
    and is not a regular file (a directory, a device, a FIFO, a socket, or a link to one), when its
    name leaves no room for its temporary file's (``NAME_MAX`` less 32 bytes), and when it is the
    same file (resolved path, or ``os.path.samefile``) as an input or as another output.
    """
    outs = [(label, os.fspath(p)) for label, p in outputs.items() if p is not None]
    ins = [(label, os.fspath(p)) for label, p in (inputs or {}).items()
           if p is not None and os.path.isfile(os.fspath(p))]
    for i, (label, path) in enumerate(outs):
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise InputError(f"{path}: the folder for the {label} file does not exist")
        kind = not_regular(path)
        if kind is not None:
            raise InputError(f"{path}: is {kind}; the {label} must be a regular file or a new name")
        longest = _name_max(directory) - _TEMP_EXTRA
        if len(os.fsencode(os.path.basename(path))) > longest:
            raise InputError(f"{path}: the {label} file's name is too long (at most {longest} bytes here, "
                             "room left for its temporary file)")
        if not os.access(directory, os.W_OK | os.X_OK):
            raise InputError(f"{path}: cannot write in the folder of the {label} file (permission denied)")
        for in_label, in_path in ins:
            if _same_file(path, in_path):
                raise InputError(f"{path}: the {label} file would overwrite the {in_label} file; "
                                 "choose another output name")
        for other_label, other in outs[:i]:
            if _same_file(path, other):
                raise InputError(f"{path}: the {label} and the {other_label} must be different files")


def iter_bounded(handle: BinaryIO, source: str | os.PathLike[str], *, max_bytes: int | None = None,
                 max_line: int | None = None) -> Iterator[bytes]:
    """Yield ``handle``'s bytes in 1 MiB pieces with the checks of :func:`read_bounded`.

    The same errors, raised at the same piece, as :func:`read_bounded` (which joins these
    pieces): a streaming reader sees exactly what the whole-file reader would accept.
    """
    if max_line is not None and max_line < _PIECE:
        raise ValueError(f"max_line must be at least {_PIECE} bytes (one piece)")
    total = 0
    lines_before = 0  # newlines in the pieces already yielded
    line = 0  # bytes since the last newline
    while True:
        piece = handle.read(_PIECE)
        if not piece:
            break
        nul = piece.find(b"\0")
        if nul >= 0:
            raise InputError(f"{source}: a binary file (NUL byte at offset {total + nul}), expected text")
        total += len(piece)
        if max_bytes is not None and total > max_bytes:
            raise InputError(f"{source}: larger than {_size(max_bytes)}; refusing to read it into memory")
        if max_line is not None:
            first = piece.find(b"\n")
            longest = line + (len(piece) if first < 0 else first)  # lines inside one piece are shorter
            if longest > max_line:
                raise InputError(f"{source}:{lines_before + 1}: a line longer than {_size(max_line)} "
                                 "(not a transaction file?)")
            line = longest if first < 0 else len(piece) - piece.rfind(b"\n") - 1
            lines_before += piece.count(b"\n")
        yield piece


def read_bounded(handle: BinaryIO, source: str | os.PathLike[str], *, max_bytes: int | None = None,
                 max_line: int | None = None) -> bytes:
    """Read ``handle`` to its end in 1 MiB pieces, refusing what cannot be a text input.

    Raises :class:`InputError` at the first NUL byte (a binary file, ``/dev/zero``), when more
    than ``max_bytes`` bytes come, or when a line grows longer than ``max_line`` bytes; so an
    endless or binary input fails after at most one bound's worth of reading.
    """
    return b"".join(iter_bounded(handle, source, max_bytes=max_bytes, max_line=max_line))


def read_text_bounded(path: str | os.PathLike[str], max_bytes: int) -> str:
    """The UTF-8 text of the file ``path``, read with :func:`read_bounded` (at most ``max_bytes``)."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise InputError(f"{path}: {size} bytes, larger than {_size(max_bytes)}; refusing to read it into memory")
        data = read_bounded(handle, path, max_bytes=max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not valid UTF-8 text") from None


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} bytes"


def parse_json(text: str, source: str, object_pairs_hook: Any = None) -> Any:
    """``json.loads`` with every way decoding can fail as one :class:`InputError` line naming ``source``.

    Besides syntax errors: nesting deep enough to exhaust Python's recursion (RecursionError) and
    an integer literal too long to convert (ValueError, over 4300 digits).
    """
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise InputError(f"{source}: not valid JSON (nested too deeply)") from None
    except ValueError as exc:
        raise InputError(f"{source}: not valid JSON ({str(exc)[:120]})") from None


def parsed_json(obj: Any, source: str) -> Any:
    """``obj`` as parsed JSON: text or UTF-8 bytes go through :func:`parse_json`, anything else is returned."""
    if isinstance(obj, (str, bytes)):
        return parse_json(obj.decode("utf-8") if isinstance(obj, bytes) else obj, source)
    return obj
