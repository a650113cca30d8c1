"""Bad files (issue 7, item 5): each gives the reference's error text and writes nothing.

The texts were checked against the reference binary (``apply_patch`` 0.163.0, run in a temp
directory; the permission cases as user ``nobody`` through ``setpriv``, since root reads and
writes everything). Each case runs through the standalone ``apply_patch()`` (the reference's
entry point, no verification) and through the pipeline (verification first, docs/behaviour.md §5.2).

Permissions: the tests run as root here, and root ignores file modes, so an unreadable file and
a read-only directory are emulated by :class:`PermissionsEmulator`, a filesystem wrapper that
raises ``EACCES`` where Linux would for a non-root user; run as another user, the same cases
also run on the real disk with ``chmod``.

Where we differ from the reference, on purpose: an Add onto a FIFO fails (``Failed to write
file``) where the reference blocks until a reader appears, and a FIFO or device is never read
(the reference's core reads a Delete target; ``/dev/zero`` would then fill 512 MiB of memory).
Atomic mode (ours) refuses to overwrite or remove a FIFO or device, which it could not restore.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import signal
import stat
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from applypatch_ext.core.apply.changes import AppliedAdd, AppliedPatchDelta
from applypatch_ext.core.apply.fs import MAX_READ_BYTES, FileMetadata, Filesystem, LocalFilesystem
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.runtime import apply_hunks
from applypatch_ext.core.apply.standalone import apply_patch
from applypatch_ext.core.apply.transaction import JournalingFilesystem, Transaction
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.policy import PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.result import CallResult
from applypatch_ext.core.turn.turn import Turn

from ._support import FIGURES, Tree, disk_tree, memory_tree

IS_ROOT = os.geteuid() == 0
TOO_LARGE = f"file is too large to read: limit is {MAX_READ_BYTES} bytes"


def patch(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch"


def run_pipeline(
    root: str, fs: Filesystem, body: str, transaction: Transaction = Transaction.NONE
) -> CallResult:
    options = PipelineOptions(
        sandbox=SandboxPolicy(PermissionProfile.WORKSPACE_WRITE, include_tmp=False),
        transaction=transaction,
    )
    FIGURES["bad-file calls"] += 1
    return Turn(root, options=options, filesystem=fs).run(patch(body), "approve")


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail instead of hanging (a FIFO's open could block forever)."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# -- non-UTF-8 and binary --------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        pytest.param(b"a\xffb\n", "invalid utf-8 sequence of 1 bytes from index 1", id="latin1"),
        pytest.param(PNG, "invalid utf-8 sequence of 1 bytes from index 0", id="binary-png"),
        pytest.param(b"ok\n\xe2\x82", "incomplete utf-8 byte sequence from index 3", id="cut"),
    ],
)
def test_non_utf8_file(tmp_path: Path, data: bytes, reason: str) -> None:
    root = str(tmp_path)
    p = f"{root}/f.bin"
    Path(p).write_bytes(data)
    update = "*** Update File: f.bin\n@@\n-ok\n+OK"
    result = apply_patch(patch(update), root)
    assert (result.exit_code, result.stderr) == (
        1,
        f"Failed to read file to update {p}: {reason}\n",
    )
    assert Path(p).read_bytes() == data
    call = run_pipeline(root, LocalFilesystem(), update)
    assert call.status == CallStatus.ERROR
    assert (
        call.output
        == f"apply_patch verification failed: Failed to read file to update {p}: {reason}"
    )
    # Delete: the core verifies (and refuses); the standalone tool deletes, inexactly.
    call = run_pipeline(root, LocalFilesystem(), "*** Delete File: f.bin")
    assert call.output == f"apply_patch verification failed: Failed to read {p}: {reason}"
    assert Path(p).read_bytes() == data
    result = apply_patch(patch("*** Delete File: f.bin"), root)
    assert result.stdout == "Success. Updated the following files:\nD f.bin\n"
    assert result.delta == AppliedPatchDelta((), exact=False)


def test_binary_file_that_is_valid_utf8_is_text(tmp_path: Path) -> None:
    Path(tmp_path, "nul.txt").write_bytes(b"a\x00b\nkeep\n")
    result = apply_patch(patch("*** Update File: nul.txt\n@@\n-a\x00b\n+A\x00B"), tmp_path)
    assert result.ok, result.stderr
    assert Path(tmp_path, "nul.txt").read_bytes() == b"A\x00B\nkeep\n"


# -- too large -----------------------------------------------------------------------------


def test_file_above_the_reference_limit(tmp_path: Path) -> None:
    root = str(tmp_path)
    p = f"{root}/big.txt"
    with open(p, "wb") as handle:  # sparse: nothing is really written
        handle.truncate(MAX_READ_BYTES + 1)
    update = "*** Update File: big.txt\n@@\n-a\n+b"
    result = apply_patch(patch(update), root)
    assert result.stderr == f"Failed to read file to update {p}: {TOO_LARGE}\n"
    call = run_pipeline(root, LocalFilesystem(), update)
    assert (
        call.output
        == f"apply_patch verification failed: Failed to read file to update {p}: {TOO_LARGE}"
    )
    call = run_pipeline(root, LocalFilesystem(), "*** Delete File: big.txt")
    assert call.output == f"apply_patch verification failed: Failed to read {p}: {TOO_LARGE}"
    assert os.stat(p).st_size == MAX_READ_BYTES + 1
    # An Add overwrites it without reading it (the old text is unknown: inexact).
    call = run_pipeline(root, LocalFilesystem(), "*** Add File: big.txt\n+small")
    assert call.status == CallStatus.COMPLETED
    assert call.delta == AppliedPatchDelta((AppliedAdd(p, "small\n", None),), exact=False)
    assert Path(p).read_bytes() == b"small\n"


# -- FIFOs and devices -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_fifo(tmp_path: Path, kind: str) -> None:
    fs: Filesystem
    if kind == "local":
        root, fs = str(tmp_path), LocalFilesystem()
        os.mkfifo(f"{root}/f")

        def is_fifo() -> bool:
            return os.path.lexists(f"{root}/f") and stat.S_ISFIFO(os.lstat(f"{root}/f").st_mode)
    else:
        root, memory = "/w", MemoryFilesystem()
        memory.add_special("/w/f")
        fs = memory

        def is_fifo() -> bool:
            return memory.tree().get("/w/f") == ("special", "")

    p = f"{root}/f"
    with deadline(10):
        result = apply_patch(patch("*** Update File: f\n@@\n-a\n+b"), root, filesystem=fs)
        assert result.stderr == f"Failed to read file to update {p}: path `{p}` is not a file\n"
        call = run_pipeline(root, fs, "*** Delete File: f")
        assert (
            call.output
            == f"apply_patch verification failed: Failed to read {p}: path `{p}` is not a file"
        )
        # The reference blocks here until a reader opens the FIFO; we fail at once.
        call = run_pipeline(root, fs, "*** Add File: f\n+x")
        assert (call.status, call.stderr) == (CallStatus.FAILED, f"Failed to write file {p}\n")
        assert not call.delta.exact
        assert is_fifo()
        # Atomic mode could not put a FIFO back, so it does not touch one.
        call = run_pipeline(
            root, fs, "*** Add File: new.txt\n+n\n*** Add File: f\n+x", Transaction.ATOMIC
        )
        assert (call.status, call.stderr) == (CallStatus.FAILED, f"Failed to write file {p}\n")
        assert call.error == (
            f"Failed to write file {p} (an atomic transaction cannot restore a special file at {p})"
        )
        assert is_fifo() and not fs_exists(fs, f"{root}/new.txt")
        journal = JournalingFilesystem(fs)
        outcome = apply_hunks(parse_patch(patch("*** Delete File: f")).hunks, root, journal)
        assert str(outcome.error) == f"Failed to delete file {p}" and is_fifo()
        result = apply_patch(patch("*** Delete File: f"), root, filesystem=fs)
    assert result.stdout == "Success. Updated the following files:\nD f\n"
    assert not result.delta.exact
    assert not is_fifo()


def fs_exists(fs: Filesystem, path: str) -> bool:
    try:
        fs.metadata(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def test_device(tmp_path: Path) -> None:
    update = "*** Update File: /dev/null\n@@\n-a\n+b"
    result = apply_patch(patch(update), tmp_path)
    assert (
        result.stderr == "Failed to read file to update /dev/null: path `/dev/null` is not a file\n"
    )
    call = run_pipeline(str(tmp_path), LocalFilesystem(), "*** Delete File: /dev/null")
    # /dev is outside the writable roots, and /dev/null cannot be read anyway.
    assert call.output == (
        "apply_patch verification failed: Failed to read /dev/null: path `/dev/null` is not a file"
    )
    assert os.path.exists("/dev/null")


def test_deleting_an_endless_device_does_not_read_it(tmp_path: Path) -> None:
    """A device node for /dev/zero in the tree: deleting it must not read 512 MiB of zeros."""
    root = str(tmp_path)
    try:
        os.mknod(f"{root}/zero", 0o644 | stat.S_IFCHR, os.makedev(1, 5))
        fs: Filesystem = LocalFilesystem()
    except PermissionError:  # not root: the memory model of a special file
        root = "/w"
        memory = MemoryFilesystem()
        memory.add_special("/w/zero")
        fs = memory
    tracemalloc.start()
    try:
        result = apply_patch(patch("*** Delete File: zero"), root, filesystem=fs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.stdout == "Success. Updated the following files:\nD zero\n"
    assert peak < 10 * 1024 * 1024, peak


# -- permissions (emulated for root) ---------------------------------------------------------


def _eacces(path: str) -> PermissionError:
    return PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)


class PermissionsEmulator:
    """What a non-root user meets: ``unreadable`` files (mode 000) cannot be read or written;
    in ``read_only_dirs`` (mode 555) no entry can be created or removed, existing writable files
    can still be written. Metadata always works (the directories stay searchable)."""

    def __init__(self, inner: Filesystem, unreadable: set[str], read_only_dirs: set[str]) -> None:
        self.inner = inner
        self.unreadable = unreadable
        self.read_only_dirs = read_only_dirs

    def _exists(self, path: str) -> bool:
        try:
            self.inner.metadata(path, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return True

    def read_bytes(self, path: str) -> bytes:
        if path in self.unreadable:
            raise _eacces(path)
        return self.inner.read_bytes(path)

    def write_bytes(self, path: str, data: bytes) -> None:
        if path in self.unreadable:
            raise _eacces(path)
        if posixpath.dirname(path) in self.read_only_dirs and not self._exists(path):
            raise _eacces(path)
        self.inner.write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        current = path
        while not self._exists(current):
            if posixpath.dirname(current) in self.read_only_dirs:
                raise _eacces(path)
            current = posixpath.dirname(current)
        self.inner.create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        if posixpath.dirname(path) in self.read_only_dirs:
            raise _eacces(path)
        self.inner.remove_file(path, move_source=move_source)

    def remove_dir(self, path: str) -> None:
        if posixpath.dirname(path) in self.read_only_dirs:
            raise _eacces(path)
        self.inner.remove_dir(path)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)


class Restricted:
    """``secret.txt`` (unreadable) and ``ro/f.txt`` (in a read-only directory, writable)."""

    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.kind = kind
        if kind == "emulated-memory":
            self.root = "/w"
            self.memory: MemoryFilesystem | None = MemoryFilesystem(
                {"/w/secret.txt": "a\n", "/w/ro/f.txt": "x\n"}
            )
            base: Filesystem = self.memory
        else:
            self.root = str(tmp_path)
            self.memory = None
            Path(self.root, "secret.txt").write_text("a\n")
            Path(self.root, "ro").mkdir()
            Path(self.root, "ro/f.txt").write_text("x\n")
            base = LocalFilesystem()
        if kind == "real-disk":
            self.fs: Filesystem = base
            self.set_modes(restricted=True)
        else:
            self.fs = PermissionsEmulator(base, {f"{self.root}/secret.txt"}, {f"{self.root}/ro"})

    def p(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def set_modes(self, *, restricted: bool) -> None:
        """The real modes (only on the real disk as a non-root user)."""
        if self.kind != "real-disk":
            return
        for rel, mode in (("secret.txt", 0), ("ro", 0o555)):
            with contextlib.suppress(FileNotFoundError):
                os.chmod(self.p(rel), mode if restricted else 0o755)

    def tree(self) -> Tree:
        if self.memory is not None:
            return memory_tree(self.memory, self.root)
        self.set_modes(restricted=False)
        try:
            return disk_tree(self.root)
        finally:
            self.set_modes(restricted=True)


RESTRICTED_KINDS = ["emulated-memory", "emulated-disk"] + ([] if IS_ROOT else ["real-disk"])


@pytest.fixture(params=RESTRICTED_KINDS)
def restricted(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Restricted]:
    env = Restricted(request.param, tmp_path)
    yield env
    env.set_modes(restricted=False)  # so that pytest can remove the directory


# (patch body, the standalone tool's stderr -- the reference's, checked as user nobody)
PERMISSION_CASES = {
    "update-unreadable": (
        "*** Update File: secret.txt\n@@\n-a\n+b",
        "Failed to read file to update {secret.txt}: Permission denied (os error 13)",
    ),
    "add-over-unreadable": ("*** Add File: secret.txt\n+z", "Failed to write file {secret.txt}"),
    "add-in-read-only-dir": ("*** Add File: ro/new.txt\n+z", "Failed to write file {ro/new.txt}"),
    "add-nested-in-read-only-dir": (
        "*** Add File: ro/sub/new.txt\n+z",
        "Failed to create parent directories for {ro/sub/new.txt}",
    ),
    "delete-in-read-only-dir": ("*** Delete File: ro/f.txt", "Failed to delete file {ro/f.txt}"),
}


def _fill(text: str, env: Restricted) -> str:
    for rel in ("secret.txt", "ro/new.txt", "ro/sub/new.txt", "ro/f.txt"):
        text = text.replace("{" + rel + "}", env.p(rel))
    return text


@pytest.mark.parametrize("case", list(PERMISSION_CASES))
def test_permission_denied(restricted: Restricted, case: str) -> None:
    body, stderr = PERMISSION_CASES[case]
    before = restricted.tree()
    result = apply_patch(patch(body), restricted.root, filesystem=restricted.fs)
    assert result.stderr == _fill(stderr, restricted) + "\n"
    assert restricted.tree() == before
    call = run_pipeline(restricted.root, restricted.fs, body)
    if case == "update-unreadable":
        assert call.output == "apply_patch verification failed: " + _fill(stderr, restricted)
    else:
        assert call.status == CallStatus.FAILED
        assert call.stderr == _fill(stderr, restricted) + "\n"
        assert call.error is not None and call.error.endswith("(Permission denied (os error 13))")
    assert restricted.tree() == before


def test_unreadable_file_deletes_like_the_reference(restricted: Restricted) -> None:
    """The standalone tool removes it (removal needs only the directory); the core refuses."""
    call = run_pipeline(restricted.root, restricted.fs, "*** Delete File: secret.txt")
    secret = restricted.p("secret.txt")
    assert call.output == (
        f"apply_patch verification failed: Failed to read {secret}: Permission denied (os error 13)"
    )
    result = apply_patch(
        patch("*** Delete File: secret.txt"), restricted.root, filesystem=restricted.fs
    )
    assert result.stdout == "Success. Updated the following files:\nD secret.txt\n"
    assert result.delta == AppliedPatchDelta((), exact=False)
    assert "secret.txt" not in restricted.tree()


def test_writable_file_in_a_read_only_directory_is_updated(restricted: Restricted) -> None:
    result = apply_patch(
        patch("*** Update File: ro/f.txt\n@@\n-x\n+y"), restricted.root, filesystem=restricted.fs
    )
    assert result.stdout == "Success. Updated the following files:\nM ro/f.txt\n"
    assert restricted.tree()["ro/f.txt"] == b"y\n"


def test_move_out_of_a_read_only_directory(restricted: Restricted) -> None:
    """The reference writes the destination first, then fails to remove the source: Codex mode
    keeps that destination and says so in the delta; atomic mode rolls it back."""
    body = "*** Update File: ro/f.txt\n*** Move to: moved.txt\n@@\n-x\n+w"
    before = restricted.tree()
    call = run_pipeline(restricted.root, restricted.fs, body, Transaction.ATOMIC)
    assert call.stderr == f"Failed to remove original {restricted.p('ro/f.txt')}\n"
    assert restricted.tree() == before
    result = apply_patch(patch(body), restricted.root, filesystem=restricted.fs)
    assert result.stderr == f"Failed to remove original {restricted.p('ro/f.txt')}\n"
    assert result.delta == AppliedPatchDelta((AppliedAdd(restricted.p("moved.txt"), "w\n"),))
    after = restricted.tree()
    assert after["moved.txt"] == b"w\n" and after["ro/f.txt"] == b"x\n"
