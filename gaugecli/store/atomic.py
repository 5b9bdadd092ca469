"""The one atomic writer: every file gaugecli writes (artifacts, cache entries, figures) goes
through :func:`atomic_target`, so a reader never sees a partial file and an interrupted run
(Ctrl-C, SIGTERM) leaves either the old file or nothing — never a temporary beside it.

The temporary file lives in the target folder (so the final rename is atomic) under a name
that starts with ``.`` and ends with ``.tmp``; :func:`sweep_leftovers` removes any such file
that a killed process (SIGKILL, power loss) could not clean up — once it is older than
:data:`LEFTOVER_AGE`, so that it never takes a live writer's file from under it.

Durability across a power loss (the file's bytes fsynced before the rename, the folder after it)
is the default. The run cache asks for ``durable=False``: every entry is checked on read (JSON,
schema, both hashes), so the worst a power loss can leave there — an empty or torn entry under
its final name — is reported and recomputed, as a hand-edited entry is. Its two fsyncs per file
were the largest part of a command's own cost (≈ 5 ms each on the development machine's ext4:
44 of them in one ``simulate`` call of 11 runs). Ctrl-C and SIGTERM need no fsync: the page
cache outlives the process, so atomicity (old file or new file, never a partial one) holds either way.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from gaugecli.store.errors import ArtifactError

TEMP_SUFFIX = ".tmp"
LEFTOVER_AGE = 600.0
"""Seconds after its last change at which a temporary counts as left over. A live writer holds
its temporary for the time of one write (milliseconds; a 100 MB artifact in ~1 s), while
``plot all``'s worker processes share one cache: sweeping every temporary at once deleted a
concurrent writer's file mid-write ("cannot write runs/select/….json (No such file or directory)")."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_names(path: Path, flag: str) -> None:
    """Every component of ``path`` within the filesystem's name length."""
    name_max = 255  # every common filesystem; pathconf refines it where the folder exists
    try:
        name_max = os.pathconf(_existing_ancestor(path), "PC_NAME_MAX")
    except (OSError, ValueError):
        pass
    too_long = [part for part in path.parts if len(os.fsencode(part)) > name_max]
    if too_long:
        raise ArtifactError(
            f"{flag}: the name {too_long[0][:24]}… is {len(os.fsencode(too_long[0]))} bytes, more than the "
            f"{name_max} this filesystem allows; choose a shorter one"
        )


def check_folder(path: Path, flag: str) -> None:
    """Fail early, creating nothing, if ``path`` cannot be (or become) a writable folder."""
    path = Path(path)
    check_names(path, flag)
    try:
        exists, is_dir = path.exists(), path.is_dir()
        ancestor = path if is_dir else _existing_ancestor(path)
    except OSError as exc:
        raise ArtifactError(f"{flag}: cannot use {path} ({exc.strerror or exc})") from None
    if exists and not is_dir:
        raise ArtifactError(f"{flag}: {path} is a file, not a folder; choose a folder")
    if not ancestor.is_dir():
        raise ArtifactError(f"{flag}: cannot create {path}: {ancestor} is a file, not a folder")
    _probe(ancestor, path, flag)


def check_writable(path: Path, flag: str = "--out") -> None:
    """Fail early — before any computation, and without creating anything — if ``path``
    cannot become a file. ``flag`` is the option that named the path, for the message."""
    path = Path(path)
    check_names(path, flag)
    try:
        is_dir = path.is_dir()
        special = path.exists() and not is_dir and not path.is_file()
        ancestor = _existing_ancestor(path)
        ancestor_is_dir = ancestor.is_dir()
    except OSError as exc:
        raise ArtifactError(f"{flag}: cannot use {path} ({exc.strerror or exc})") from None
    if is_dir:
        raise ArtifactError(f"{flag}: {path} is a directory; give a file path such as {path / 'run.json'}")
    if special:  # an atomic write replaces the path: it would turn a device or a pipe into a file
        raise ArtifactError(f"{flag}: {path} is a device or pipe, not a regular file; give a file path")
    if not ancestor_is_dir:
        raise ArtifactError(f"{flag}: cannot write {path}: {ancestor} is a file, not a folder; choose another path")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ArtifactError(f"{flag}: cannot write to {ancestor} (permission denied); choose a writable folder")
    _probe(ancestor, path, flag)


def _probe(folder: Path, path: Path, flag: str) -> None:
    """Create (and at once drop) a nameless file in ``folder``: ``os.access`` says yes to root
    everywhere, and a pseudo-filesystem such as /proc refuses only when asked to create."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ArtifactError(f"{flag}: cannot write {path} ({exc.strerror or exc}); choose another folder") from None


def _existing_ancestor(path: Path) -> Path:
    ancestor = Path(path).parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    return ancestor


@contextlib.contextmanager
def atomic_target(path: Path, flag: str = "--out", *, durable: bool = True) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it is fsynced (``durable``) and renamed
    onto ``path``, on any exception (KeyboardInterrupt included) it is removed."""
    path = Path(path)
    if path.is_symlink():  # write the file the link points to; renaming onto the link would replace it
        path = Path(os.path.realpath(path))
    check_writable(path, flag)
    # The name is chosen before the file exists and the file is created inside the ``try``:
    # a signal landing anywhere in between leaves nothing behind.
    tmp = path.parent / f".{path.name[:80]}.{uuid.uuid4().hex}{TEMP_SUFFIX}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        yield tmp
        if durable:
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ArtifactError(f"{flag}: cannot write {path} ({exc.strerror or exc})") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        _fsync_folder(path.parent)


def _fsync_folder(folder: Path) -> None:
    try:  # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # pragma: no cover - some filesystems refuse directory fsync
        pass


def atomic_write_text(path: Path, text: str, flag: str = "--out", *, durable: bool = True) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (fsynced unless ``durable=False``: see the module)."""
    with atomic_target(path, flag, durable=durable) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def sweep_leftovers(folder: Path, age: float = LEFTOVER_AGE) -> int:
    """Remove temporaries of this module that a killed process left in ``folder`` — those unchanged
    for ``age`` seconds (:data:`LEFTOVER_AGE`); a younger one may be a concurrent writer's. Returns
    how many were removed."""
    import time

    folder = Path(folder)
    if not folder.is_dir():
        return 0
    removed, now = 0, time.time()
    for tmp in folder.glob(f".*{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):  # another sweeper or the writer may remove it first
            if now - tmp.stat().st_mtime >= age:
                tmp.unlink()
                removed += 1
    return removed
