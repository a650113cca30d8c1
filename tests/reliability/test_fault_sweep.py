"""Fault sweep (issue 7, item 2): every fault kind at every operation index, on multi-file
patches, in both transaction modes, through the whole pipeline.

For each patch (adds, updates, deletes, moves, moves onto existing files, nested new
directories) and each fault spec of :mod:`applypatch_ext.core.turn.faults` -- ``write:N`` and
``cancel:N`` for every N up to one past the last operation, and ``write:``, ``delete:``,
``remove-source:``, ``eperm:``, ``drift:`` on every path the patch names (and their parent
directories) -- the call runs once, and:

* Codex mode (no transaction): replaying the committed delta on the tree as it was before the
  call (with a drift's own change, which is the outside world's) gives the tree on disk.
  With ``exact`` true this is checked strictly: every recorded old content is what was there,
  every recorded change is on disk, nothing else changed (directories may only be added, and
  only as parents of patch paths). With ``exact`` false the delta is a lower bound: every
  recorded change is on disk, and anything else that changed is a path of the patch.
* Atomic mode: a call that does not complete leaves the tree byte-identical (every path, every
  directory, every symlink); a completed one is checked like Codex mode, strictly.
* Both: the event stream matches the status (a cancelled call has a begin and no end), and the
  TurnDiff exists exactly when the delta is exact and changed something.

The memory filesystem runs every combination; the real disk runs one patch fully (and, under
``make fuzz``, every patch); seeded random pairs of faults are added (many under ``make
fuzz``). Two more patches run on a tree with symlinks (to a file, dangling, to a directory),
and atomic mode is also checked when something other than a fault escapes the attempt (a
``KeyboardInterrupt`` outside the cancellation token, a buggy filesystem).
"""

from __future__ import annotations

import itertools
import os
import posixpath
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from applypatch_ext.core.apply.changes import (
    AppliedAdd,
    AppliedDelete,
    AppliedPatchDelta,
    AppliedUpdate,
)
from applypatch_ext.core.apply.fs import Filesystem, LocalFilesystem
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.transaction import Transaction
from applypatch_ext.core.apply.verify import DuplicatePaths
from applypatch_ext.core.parse.model import UpdateFile
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.faults import DRIFT_LINE, FAULT_KINDS
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.policy import PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.result import CallResult
from applypatch_ext.core.turn.turn import Turn

from ._support import (
    FIGURES,
    SCALE,
    RecordingFilesystem,
    Tree,
    ancestors,
    disk_tree,
    files_of,
    memory_tree,
    scaled,
)

MEMORY_ROOT = "/work"
WORKSPACE = SandboxPolicy(
    PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
)

INITIAL: dict[str, str] = {
    "a.txt": "alpha\nbeta\ngamma\ndelta\n",
    "b.txt": "bravo\n",
    "c.txt": "charlie\nline two\n",
    "del.txt": "delete me\n",
    "dst.txt": "the previous destination\n",
    "old/m.txt": "move me\nsecond\n",
    "old/keep.txt": "keep\n",
    "crlf.txt": "one\r\ntwo\r\n",
}


def patch(*hunks: str) -> str:
    return "\n".join(["*** Begin Patch", *hunks, "*** End Patch"])


PATCHES: dict[str, str] = {
    "adds-nested-and-overwrite": patch(
        "*** Add File: new.txt\n+fresh",
        "*** Add File: deep/nested/dir/n.txt\n+nested\n+lines",
        "*** Add File: b.txt\n+overwritten",
    ),
    "update-delete-add-move-into-new-dirs": patch(
        "*** Update File: a.txt\n@@\n-beta\n+BETA\n@@ gamma\n-delta\n+DELTA",
        "*** Delete File: del.txt",
        "*** Add File: new/inner/x.txt\n+x",
        "*** Update File: c.txt\n*** Move to: renamed/sub/c.txt\n@@\n charlie\n-line two\n+line 2",
    ),
    "moves-onto-existing-and-new": patch(
        "*** Update File: old/m.txt\n*** Move to: dst.txt\n@@\n-move me\n+moved",
        "*** Update File: b.txt\n*** Move to: fresh/b.txt\n@@\n-bravo\n+BRAVO",
        "*** Update File: crlf.txt\n*** Move to: old/crlf.txt\n@@\n-one\n+uno",
    ),
    "deletes-then-updates": patch(
        "*** Delete File: b.txt",
        "*** Delete File: old/keep.txt",
        "*** Update File: a.txt\n@@\n alpha\n-beta\n+b\n*** Update File: c.txt\n@@\n-charlie\n+C",
        "*** Add File: old/keep.txt.new\n+k",
    ),
}


#: Symlinks for the atomic sweep: to a file, dangling, and to a directory (all inside the root).
LINKS: dict[str, str] = {
    "link.txt": "c.txt",
    "dangling.txt": "nowhere.txt",
    "linkdir": "old",
}

LINK_PATCHES: dict[str, str] = {
    "delete-links-then-write-through-them": patch(
        "*** Delete File: link.txt",
        "*** Add File: dangling.txt\n+now a file",
        "*** Update File: linkdir/m.txt\n@@\n-move me\n+changed through the link",
        "*** Add File: linkdir/new.txt\n+new through the link",
        "*** Delete File: a.txt",
    ),
    # Two hunks on link.txt: run with duplicates="fold", as the legacy map allowed.
    "write-through-then-delete-the-link": patch(
        "*** Update File: link.txt\n@@\n-charlie\n+CHARLIE",
        "*** Delete File: link.txt",
        "*** Delete File: c.txt",
        "*** Update File: linkdir/keep.txt\n*** Move to: moved.txt\n@@\n-keep\n+kept",
        "*** Add File: dangling.txt\n+x",
    ),
}
ALL_PATCHES = {**PATCHES, **LINK_PATCHES}


def patch_paths(text: str) -> list[str]:
    """Every path the patch names (hunk paths and move destinations), relative, in order."""
    out: list[str] = []
    for hunk in parse_patch(text).hunks:
        out.append(posixpath.normpath(hunk.path))
        if isinstance(hunk, UpdateFile) and hunk.move_path is not None:
            out.append(posixpath.normpath(hunk.move_path))
    return list(dict.fromkeys(out))


# -- workspaces -----------------------------------------------------------------------------


class Workspace:
    """A fresh tree with ``INITIAL`` (and ``LINKS`` if asked) in memory or on the real disk."""

    def __init__(self, kind: str, scratch: Path | None, *, links: bool = False) -> None:
        self.kind = kind
        symlinks = LINKS if links else {}
        if kind == "memory":
            self.root = MEMORY_ROOT
            self.memory: MemoryFilesystem | None = MemoryFilesystem(
                {f"{MEMORY_ROOT}/{p}": c for p, c in INITIAL.items()}
            )
            for rel, target in symlinks.items():
                self.memory.add_symlink(f"{MEMORY_ROOT}/{rel}", target)
            self.base: Filesystem = self.memory
        else:
            assert scratch is not None
            self.root = str(scratch.resolve())
            self.memory = None
            for rel, content in INITIAL.items():
                path = Path(self.root, rel)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content.encode())
            for rel, target in symlinks.items():
                Path(self.root, rel).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(target, Path(self.root, rel))
            self.base = LocalFilesystem()
        self.fs = RecordingFilesystem(self.base, DRIFT_LINE.encode())

    def tree(self) -> Tree:
        if self.memory is not None:
            return memory_tree(self.memory, self.root)
        return disk_tree(self.root)

    def rel(self, path: str) -> str:
        assert path.startswith(self.root + "/"), path
        return path[len(self.root) + 1 :]


# -- the oracle ------------------------------------------------------------------------------


def _text(data: bytes | tuple[str, str] | None) -> str | None:
    if data is None:
        return None
    assert isinstance(data, bytes), data
    return data.decode()


def replay(
    before: dict[str, bytes | tuple[str, str]],
    delta: AppliedPatchDelta,
    ws: Workspace,
    *,
    strict: bool,
) -> tuple[dict[str, bytes | tuple[str, str]], set[str]]:
    """``before`` with the delta's changes applied, and the paths they touched.

    ``strict``: every old or overwritten content recorded must be what the replay has there.
    """
    state = dict(before)
    touched: set[str] = set()
    for change in delta.changes:
        match change:
            case AppliedAdd(path=path, content=content, overwritten_content=overwritten):
                p = ws.rel(path)
                if strict:
                    assert _text(state.get(p)) == overwritten, (p, change)
                state[p] = content.encode()
                touched.add(p)
            case AppliedDelete(path=path, content=content):
                p = ws.rel(path)
                if strict:
                    assert _text(state.get(p)) == content, (p, change)
                state.pop(p, None)
                touched.add(p)
            case AppliedUpdate(
                path=path,
                move_path=move_path,
                old_content=old,
                overwritten_move_content=overwritten,
                new_content=new,
            ):
                p = ws.rel(path)
                if strict:
                    assert _text(state.get(p)) == old, (p, change)
                touched.add(p)
                if move_path is None:
                    state[p] = new.encode()
                    continue
                dest = ws.rel(move_path)
                if strict:
                    assert _text(state.get(dest)) == overwritten, (dest, change)
                state.pop(p, None)
                state[dest] = new.encode()
                touched.add(dest)
    return state, touched


def resolve_links(tree: Tree, rel: str) -> str:
    """``rel`` with the symlinks of ``tree`` resolved (targets relative to their directory)."""
    for _ in range(40):
        parts = rel.split("/")
        for i in range(len(parts)):
            prefix = "/".join(parts[: i + 1])
            node = tree.get(prefix)
            if isinstance(node, tuple) and node[0] == "symlink":
                base = posixpath.dirname(prefix)
                rel = posixpath.normpath(posixpath.join(base, node[1], *parts[i + 1 :]))
                break
        else:
            return rel
    raise AssertionError(f"symlink loop at {rel}")


def event_types(result: CallResult) -> list[str]:
    return [e.event.type for e in result.events]


@dataclass(frozen=True)
class Case:
    patch_name: str
    transaction: Transaction
    faults: tuple[str, ...]


def run_case(ws: Workspace, case: Case) -> CallResult:
    FIGURES["fault sweep calls"] += 1
    FIGURES["faults injected"] += len(case.faults)
    text = ALL_PATCHES[case.patch_name]
    before = ws.tree()
    options = PipelineOptions(
        sandbox=WORKSPACE,
        transaction=case.transaction,
        faults=case.faults,
        duplicates=DuplicatePaths.FOLD
        if case.patch_name in LINK_PATCHES
        else DuplicatePaths.REJECT,
    )
    turn = Turn(ws.root, options=options, filesystem=ws.fs)
    result = turn.run(text, "approve")

    after = ws.tree()
    # A drift is the outside world changing a file: it belongs to "before".
    for path in ws.fs.drifted:
        rel = resolve_links(before, ws.rel(path))
        existing = before[rel]
        assert isinstance(existing, bytes)
        before[rel] = existing + DRIFT_LINE.encode()
    kinds = event_types(result)
    delta = result.delta
    FIGURES[f"fault sweep status {result.status}"] += 1
    if not delta.exact:
        FIGURES["fault sweep inexact deltas"] += 1

    # The event stream tells the status.
    assert result.status in (CallStatus.COMPLETED, CallStatus.FAILED, CallStatus.CANCELLED), (
        result.status,
        result.output,
    )
    assert kinds.count("patch_apply_begin") == 1
    if result.status == CallStatus.CANCELLED:
        assert "patch_apply_end" not in kinds
        assert any(f.startswith("cancel:") for f in case.faults)
    else:
        assert kinds.count("patch_apply_end") == 1
        end = next(e.event for e in result.events if e.event.type == "patch_apply_end")
        assert end.to_json()["status"] == result.status
    if result.status == CallStatus.COMPLETED:
        assert result.stderr == ""

    if case.transaction is Transaction.ATOMIC and result.status != CallStatus.COMPLETED:
        assert after == before, "atomic: the tree must be byte-identical to before"
        assert delta == AppliedPatchDelta()
        assert result.turn_diff is None
        return result
    if case.patch_name in LINK_PATCHES:
        # Every hunk of these touches a symlink, which the delta cannot describe (docs/behaviour.md
        # §5.4).
        assert not delta.changes or not delta.exact
        assert result.turn_diff is None
        return result

    strict = delta.exact
    expected, touched = replay(files_of(before), delta, ws, strict=strict)
    got = files_of(after)
    if strict:
        assert got == expected
    else:
        for path in touched:
            assert got.get(path) == expected.get(path), path
        named = set(patch_paths(text))
        stray = {p for p in got.keys() | expected.keys() if got.get(p) != expected.get(p)}
        assert stray <= named, stray
    new_dirs = {p for p, v in after.items() if v is None} - {
        p for p, v in before.items() if v is None
    }
    assert {p for p, v in before.items() if v is None} <= {p for p, v in after.items() if v is None}
    assert new_dirs <= ancestors(patch_paths(text)), new_dirs

    # The TurnDiff follows the delta: none when inexact, one when something changed.
    if not delta.exact:
        assert result.turn_diff is None
    elif got != files_of(before):
        assert result.turn_diff is not None
        for path in touched:
            if got.get(path) != files_of(before).get(path):
                assert path in result.turn_diff
    return result


def operation_count(patch_name: str) -> int:
    """How many mutating operations (writes, directory creations, removals) a clean run does."""

    class Counting(RecordingFilesystem):
        count = 0

        def write_bytes(self, path: str, data: bytes) -> None:
            # A write that finds a parent missing writes nothing (it is tried again after the
            # directories are created): not an operation, as for the faults' counters.
            super().write_bytes(path, data)
            Counting.count += 1

        def create_dirs(self, path: str) -> None:
            Counting.count += 1
            super().create_dirs(path)

        def remove_file(self, path: str, *, move_source: bool = False) -> None:
            Counting.count += 1
            super().remove_file(path, move_source=move_source)

    ws = Workspace("memory", None, links=patch_name in LINK_PATCHES)
    fs = Counting(ws.base, b"")
    options = PipelineOptions(sandbox=WORKSPACE, duplicates=DuplicatePaths.FOLD)
    result = Turn(ws.root, options=options, filesystem=fs).run(ALL_PATCHES[patch_name], "approve")
    assert result.status == CallStatus.COMPLETED, result.output
    return Counting.count


def fault_specs(patch_name: str) -> Iterator[str]:
    """Every fault kind: at every operation index, and on every path of the patch."""
    total = operation_count(patch_name)
    paths = patch_paths(ALL_PATCHES[patch_name])
    targets = sorted({*paths, *ancestors(paths), "unrelated.txt"})
    kinds = set()
    for index in range(1, total + 2):
        for kind in ("write", "cancel"):
            kinds.add(kind)
            yield f"{kind}:{index}"
    for kind in ("write", "delete", "remove-source", "eperm", "drift"):
        kinds.add(kind)
        for target in targets:
            yield f"{kind}:{target}"
    kinds.add("journal")
    yield "journal:enospc"  # a full disk under an atomic attempt's on-disk journal
    assert kinds | {"kill", "stop"} == set(FAULT_KINDS)


def cases(
    patch_names: list[str], transactions: tuple[Transaction, ...] = tuple(Transaction)
) -> Iterator[Case]:
    for name in patch_names:
        specs = list(fault_specs(name))
        for transaction in transactions:
            for spec in specs:
                yield Case(name, transaction, (spec,))
            # Seeded pairs of faults: a handful normally, many under `make fuzz`.
            rng = random.Random(f"pairs/{name}/{transaction}")
            for _ in range(scaled(8)):
                yield Case(name, transaction, tuple(rng.sample(specs, 2)))


def test_the_patches_apply_cleanly_on_both_filesystems(tmp_path: Path) -> None:
    for kind, name in itertools.product(("memory", "local"), ALL_PATCHES):
        scratch = tmp_path / f"{kind}-{name}"
        scratch.mkdir()
        ws = Workspace(kind, scratch, links=name in LINK_PATCHES)
        result = run_case(ws, Case(name, Transaction.NONE, ()))
        assert result.status == CallStatus.COMPLETED, result.output
        assert result.delta.exact == (name not in LINK_PATCHES)


@pytest.mark.parametrize("patch_name", list(PATCHES))
def test_fault_sweep_in_memory(patch_name: str) -> None:
    for case in cases([patch_name]):
        run_case(Workspace("memory", None), case)


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("patch_name", list(LINK_PATCHES))
def test_atomic_sweep_with_symlinks(patch_name: str, kind: str, tmp_path: Path) -> None:
    """With symlinks in the tree, atomic mode puts them back as symlinks (deleted, dangling, or
    written through), and Codex mode says its delta is inexact."""
    for number, case in enumerate(cases([patch_name])):
        scratch = tmp_path / str(number)
        scratch.mkdir()
        run_case(Workspace(kind, scratch, links=True), case)


def test_fault_sweep_on_disk(tmp_path: Path) -> None:
    names = list(PATCHES) if SCALE > 1 else ["update-delete-add-move-into-new-dirs"]
    for number, case in enumerate(cases(names)):
        scratch = tmp_path / str(number)
        scratch.mkdir()
        run_case(Workspace("local", scratch), case)


def test_cancellation_at_every_operation_index_keeps_a_truthful_prefix() -> None:
    """Cancelling before operation N: no end event, the delta is what was done (run_case
    checks it against the tree), and a later cancellation never records less (Codex mode)."""
    name = "update-delete-add-move-into-new-dirs"
    total = operation_count(name)
    previous: list[int] = []
    for index in range(1, total + 2):
        ws = Workspace("memory", None)
        result = run_case(ws, Case(name, Transaction.NONE, (f"cancel:{index}",)))
        assert result.status == (CallStatus.CANCELLED if index <= total else CallStatus.COMPLETED)
        previous.append(len(result.delta.changes))
    assert previous == sorted(previous)
    assert previous[0] == 0


def test_sweep_covers_every_fault_kind() -> None:
    specs = {spec.split(":")[0] for name in ALL_PATCHES for spec in fault_specs(name)}
    # kill and stop signal the process itself: tests/reliability/test_crash.py runs them.
    assert specs | {"kill", "stop"} == set(FAULT_KINDS)


class InterruptingFilesystem(RecordingFilesystem):
    """Raises ``exc`` at the ``at``-th write: Ctrl-C outside the cancellation token, or a
    filesystem that raises something other than ``OSError``."""

    def __init__(self, inner: Filesystem, at: int, exc: BaseException) -> None:
        super().__init__(inner, b"")
        self.at, self.exc, self.writes = at, exc, 0

    def write_bytes(self, path: str, data: bytes) -> None:
        self.writes += 1
        if self.writes == self.at:
            raise self.exc
        super().write_bytes(path, data)


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), RuntimeError("bug")], ids=repr)
def test_atomic_mode_rolls_back_when_anything_escapes(exc: BaseException) -> None:
    name = "update-delete-add-move-into-new-dirs"
    options = PipelineOptions(sandbox=WORKSPACE, transaction=Transaction.ATOMIC)
    for at in itertools.count(1):
        ws = Workspace("memory", None)
        before = ws.tree()
        fs = InterruptingFilesystem(ws.base, at, exc)
        try:
            result = Turn(ws.root, options=options, filesystem=fs).run(PATCHES[name], "approve")
        except type(exc):
            assert ws.tree() == before, at
            continue
        assert result.status == CallStatus.COMPLETED and at > 3  # past the last write
        break
