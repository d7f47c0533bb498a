"""The archive's files: reports stored content-addressed and read-only, never overwritten.

How one report is added, and why in this order (each step is a place a killed process may stop):

  staged   the bytes are copied to tmp/SHA.PID.RANDOM.part, fsynced, the part file held under an
           flock for as long as this process works on it (created and flocked under a shared
           flock on tmp/ itself, which recover() takes exclusively: no recover sees a part file
           before its flock is on); verification reads this copy, so what was verified is
           exactly what is stored;
  verified verification is done;
  (lock)   tmp/SHA.lock is created and flocked: one process at a time stores a given report;
  stored   the part file is made read-only (0444) and renamed to objects/ab/SHA.pdf (atomic,
           same folder tree, same file system), and the folder is fsynced;
  indexed  the index row, its offers, claims and inputs and the log entry commit in one
           transaction; then the lock file is removed.

File before index row: a killed add can leave a stored file with no row (never a row without
its file), and the lock file it leaves says so. `recover()`, run by the next command that may
write, removes part files and lock files whose flock nobody holds (their process is gone) and,
for such a lock, the stored file if the index has no row for it: the add that put it there
never reported success. A live add's files are never touched, because it holds their flocks.
flock (not lockf): closing another descriptor of the same file must not drop the lock, and the
kernel drops it when the process dies, however it dies (with the verification workers it forked,
which inherit the descriptor: a part file whose add is gone is abandoned even while one of them
still finishes reading it).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

READ_ONLY = 0o444
_CONTENT_ADDRESS = re.compile(r"objects/([0-9a-f]{2})/(\1[0-9a-f]{62}\.pdf)")
_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"}


class StoreProblem(Exception):
    """A file in the archive cannot be written or read (one line)."""


@dataclass
class Staged:
    """A report copied into tmp/, held under this process's flock until it is stored or dropped."""

    source: Path
    sha256: str
    size: int
    part: Path
    fd: int

    def drop(self) -> None:
        if self.fd >= 0:
            _unlink_quietly(self.part)
            os.close(self.fd)
            self.fd = -1


class Store:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.objects = root / "objects"
        self.tmp = root / "tmp"
        self.anchors = root / "anchors"

    def create(self) -> None:
        for folder in (self.root, self.objects, self.tmp, self.anchors):
            folder.mkdir(exist_ok=True)

    def writable(self) -> bool:
        return os.access(self.root, os.W_OK) and os.access(self.tmp, os.W_OK | os.X_OK)

    # -- paths

    def relative(self, sha256: str) -> str:
        return f"objects/{sha256[:2]}/{sha256}.pdf"

    def path_of(self, relative: str) -> Path:
        return self.root / relative

    # -- adding

    def stage(self, source: Path, max_bytes: int) -> Staged:
        """Copy `source` into tmp/ (hashing it on the way) and fsync it."""
        try:
            # Without waiting: a plain open of a FIFO blocks until something writes to it.
            with open(os.open(source, os.O_RDONLY | os.O_NONBLOCK), "rb") as fh:
                if stat.S_ISDIR(os.fstat(fh.fileno()).st_mode):
                    raise IsADirectoryError
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    raise StoreProblem(f"{source}: not a regular file")
                data = fh.read(max_bytes + 1)
        except IsADirectoryError:
            raise StoreProblem(f"{source}: is a directory, not a PDF") from None
        except OSError as exc:
            raise StoreProblem(f"{source}: cannot read ({exc.strerror or exc})") from None
        if len(data) > max_bytes:
            raise StoreProblem(f"{source}: larger than {max_bytes:,} bytes")
        sha = hashlib.sha256(data).hexdigest()
        part = self.tmp / f"{sha}.{os.getpid()}.{secrets.token_hex(4)}.part"
        try:
            # Between creating the part file and flocking it, another add's recover() would see
            # it unheld and delete it; the shared hold on tmp/ keeps recover() out meanwhile.
            with self._holding_tmp(fcntl.LOCK_SH):
                fd = os.open(part, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
                fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            raise StoreProblem(f"{self.tmp}: cannot write ({exc.strerror or exc})") from None
        staged = Staged(source, sha, len(data), part, fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError as exc:
            staged.drop()
            raise StoreProblem(f"{self.tmp}: cannot write ({exc.strerror or exc})") from None
        return staged

    @contextmanager
    def _holding_tmp(self, how: int) -> Iterator[None]:
        """A flock on the tmp/ folder itself: shared while a part file is created and locked,
        exclusive while recover() decides which part files are abandoned."""
        fd = os.open(self.tmp, os.O_RDONLY)
        try:
            fcntl.flock(fd, how)
            yield
        finally:
            os.close(fd)

    @contextmanager
    def report_lock(self, sha256: str) -> Iterator[None]:
        """Only one process at a time stores (or recovers) a given report. The lock file is
        removed while still held; a waiter that then gets the lock on the removed file sees
        that the path is gone or another file, and takes the lock again."""
        path = self.tmp / f"{sha256}.lock"
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _same_file(fd, path):
                break
            os.close(fd)
        try:
            yield
            _unlink_quietly(path)
        finally:
            os.close(fd)

    def place(self, staged: Staged) -> str:
        """Make the staged copy read-only and move it to its content address (under report_lock).
        An existing file there has no index row (the caller checked, under the same lock): it
        was left by a killed add, so this identical, complete copy replaces it."""
        relative = self.relative(staged.sha256)
        target = self.root / relative
        try:
            target.parent.mkdir(exist_ok=True)
            os.fchmod(staged.fd, READ_ONLY)
            os.replace(staged.part, target)
            _fsync_folder(target.parent)
            _fsync_folder(self.tmp)
        except OSError as exc:
            raise StoreProblem(f"{target}: cannot store ({exc.strerror or exc})") from None
        os.close(staged.fd)
        staged.fd = -1
        return relative

    def remove_unindexed(self, relative: str) -> None:
        """Undo `place` when the index refused the row (under report_lock)."""
        _unlink_quietly(self.root / relative)
        _fsync_folder((self.root / relative).parent)

    # -- reading

    def sha256_of(self, relative: str) -> str:
        """The stored file's SHA-256; StoreProblem says "missing" or "unreadable (why)" (the caller names the file)."""
        digest = hashlib.sha256()
        fd = self._open_stored(relative)
        try:
            with open(fd, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
        except OSError as exc:
            raise StoreProblem(f"unreadable ({exc.strerror or exc})") from None
        return digest.hexdigest()

    def read(self, relative: str) -> bytes:
        """The stored file; StoreProblem as for sha256_of."""
        from ..verify.one import MAX_REPORT_BYTES

        fd = self._open_stored(relative)
        try:
            with open(fd, "rb") as fh:
                data = fh.read(MAX_REPORT_BYTES + 1)
        except OSError as exc:
            raise StoreProblem(f"unreadable ({exc.strerror or exc})") from None
        if len(data) > MAX_REPORT_BYTES:
            raise StoreProblem(f"unreadable (larger than {MAX_REPORT_BYTES:,} bytes, which verify reads of a report)")
        return data

    def read_admitted(self, stored_as: str, sha256: str) -> bytes:
        """The stored file an index row names, only if it is where the archive put it (its content
        address: an edited row cannot send a reader outside objects/) and still the one admitted;
        StoreProblem otherwise ("missing", "unreadable (why)", "changed (...)", "not ...")."""
        if stored_as != self.relative(sha256):
            raise StoreProblem(f"the index names it at {stored_as!r}, not at its content address {self.relative(sha256)}")
        data = self.read(stored_as)
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha256:
            raise StoreProblem(f"changed (SHA-256 {actual}, the index says {sha256})")
        return data

    def _open_stored(self, relative: str) -> int:
        """A descriptor on objects/ab/SHA.pdf, opened without following a symbolic link (in its
        folder or as the file) and without waiting (a FIFO put in its place would block a plain
        open forever); StoreProblem for anything but the regular file add stored there."""
        match = _CONTENT_ADDRESS.fullmatch(relative)
        if match is None:
            raise StoreProblem(f"not a place the archive stores reports (objects/ab/SHA-256.pdf): {relative!r}")
        folder_fd = fd = -1
        try:
            folder_fd = os.open(self.objects / match.group(1), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            fd = os.open(match.group(2), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder_fd)
            kind = stat.S_IFMT(os.fstat(fd).st_mode)
        except FileNotFoundError:
            raise StoreProblem("missing") from None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise StoreProblem(f"unreadable ({_what_is_there(self.objects, match)}, not a file the archive stored)") from None
            raise StoreProblem(f"unreadable ({exc.strerror or exc})") from None
        finally:
            if folder_fd >= 0:
                os.close(folder_fd)
        if kind == stat.S_IFREG:
            return fd
        os.close(fd)
        if kind == stat.S_IFDIR:
            raise StoreProblem(f"unreadable ({os.strerror(errno.EISDIR)})")
        raise StoreProblem(f"unreadable ({_KINDS.get(kind, 'a special file')}, not a file the archive stored)")

    # -- recovery

    def recover(self, indexed: Callable[[str], bool]) -> list[str]:
        """Clear what killed adds left behind; what was removed, one line each."""
        removed: list[str] = []
        with ExitStack() as held:
            try:
                held.enter_context(self._holding_tmp(fcntl.LOCK_EX))
                leftovers = sorted(self.tmp.iterdir())
            except OSError:
                return removed
            for path in leftovers:
                if path.suffix == ".part" and (_abandoned(path) or _maker_gone(path)):
                    _unlink_quietly(path)
                    removed.append(f"removed {path.relative_to(self.root)}: a copy an interrupted add left")
        for path in leftovers:
            if path.suffix != ".lock" or not _abandoned(path):
                continue
            sha = path.stem
            with self.report_lock(sha):
                relative = self.relative(sha)
                if (self.root / relative).exists() and not indexed(sha):
                    self.remove_unindexed(relative)
                    removed.append(f"removed {relative}: stored by an add that was interrupted before indexing it")
        return removed


def _abandoned(path: Path) -> bool:
    """True when no process holds the file's flock (whoever made it is gone)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return False
        raise
    finally:
        os.close(fd)


def _maker_gone(part: Path) -> bool:
    """True when the add named in the part file's name (SHA.PID.RANDOM.part) is no longer running.
    Its flock may then still be held by a verification worker it forked (the worker inherited the
    descriptor, and outlives a SIGKILLed add until it has finished its share); such a worker only
    reads the copy, it never stores it, so the copy is abandoned. A reused PID keeps it (safe)."""
    try:
        pid = int(part.name.split(".")[1])
    except (IndexError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's live process
        return False
    return False


def _what_is_there(objects: Path, match: re.Match[str]) -> str:
    """What stands where a stored file or its folder should be, in words (a symbolic link, and to where)."""
    folder = objects / match.group(1)
    if folder.is_symlink():
        return f"its folder {folder.relative_to(objects.parent)} is a symbolic link to {os.readlink(folder)!r}"
    if (folder / match.group(2)).is_symlink():
        return f"a symbolic link to {os.readlink(folder / match.group(2))!r}"
    return "not a regular file"


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _fsync_folder(folder: Path) -> None:
    """A rename is durable only once its folder is flushed."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def read_kept(path: Path) -> bytes:
    """A file the archive keeps beside its objects (archive.json, log.jsonl, an anchor's statement),
    read whole without waiting: someone may have put a FIFO in its place, where a plain read would
    block until something wrote to it. OSError as a read's (FileNotFoundError, IsADirectoryError,
    or "not a regular file")."""
    with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as fh:
        kind = stat.S_IFMT(os.fstat(fh.fileno()).st_mode)
        if kind == stat.S_IFDIR:
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if kind != stat.S_IFREG:
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return fh.read()


def write_read_only(path: Path, data: bytes) -> None:
    """A new file (never an existing one), fsynced, mode 0444."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    with open(tmp, "xb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(tmp, READ_ONLY)
    os.link(tmp, path)  # fails if the target exists: nothing is ever replaced
    os.unlink(tmp)
    _fsync_folder(path.parent)


def write_replacing(path: Path, data: bytes, *, mode: int) -> None:
    """Replace a file the archive owns (log.jsonl made from the index, archive.json gaining a key)
    atomically: a new file, fsynced, renamed over the old one."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    with open(tmp, "xb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    _fsync_folder(path.parent)
