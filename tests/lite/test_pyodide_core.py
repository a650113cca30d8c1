"""The atomic transaction in the real Pyodide runtime the site ships (node runs it, no browser).

Pyodide has no ``flock`` (its standard library has no ``fcntl``; JupyterLite's kernel puts an
empty module of that name in ``sys.modules``) and only one process: the journal's lock is then
held in the process's memory (``journal.LOCKING == "process"``). Both forms of the missing
``fcntl`` are run. What must hold there as on Linux: a failed atomic call leaves the tree as it
was, a journal in use by a running call is never recovered from under it, a journal left by
a call that did not finish is recovered by the next call, and the key that signs journals is made
there (in the kernel's memory, where no hard link can be made) so that a journal another program
wrote, or one changed after its call died, is refused and moved aside.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from applypatch_ext.core.apply import journal

from ..conftest import unavailable

pytestmark = pytest.mark.slow

RUNNER = Path(__file__).with_name("pyodide_run.mjs")

SCRIPT = textwrap.dedent(
    """
    import json, os, sys, tempfile, types
    if STUB:  # what the JupyterLite kernel does before any user code
        sys.modules["fcntl"] = types.ModuleType("fcntl")
    from pathlib import Path
    from applypatch_ext.core.apply import journal
    from applypatch_ext.core.apply.journal import DiskJournal, JournalEntry
    from applypatch_ext.core.turn.options import PipelineOptions
    from applypatch_ext.core.turn.turn import Turn

    os.environ[journal.STATE_DIR_ENV] = tempfile.mkdtemp()
    root = Path(tempfile.mkdtemp()) / "project"
    root.mkdir()
    cwd = str(root)
    PATCH = (
        "*** Begin Patch\\n*** Update File: a.txt\\n@@\\n-a\\n+A\\n*** Delete File: gone.txt\\n"
        "*** Add File: sub/later.txt\\n+later\\n*** End Patch"
    )
    BEFORE = {"a.txt": "a\\n", "gone.txt": "gone\\n"}

    def reset():
        for p in sorted(root.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        for name, text in BEFORE.items():
            (root / name).write_text(text)

    def tree():
        return {p.relative_to(root).as_posix(): p.read_text()
                for p in sorted(root.rglob("*")) if p.is_file()}

    def journals():
        return sorted(os.listdir(journal.journal_dir()))

    def call(*faults):
        opts = PipelineOptions.from_strings(cwd, transaction="atomic", faults=list(faults))
        r = Turn(cwd, options=opts).run(PATCH, "approve")
        refused = [e.to_json() for e in r.events if e.event.type == "transaction_journal_refused"]
        return {"status": str(r.status), "output": r.output, "tree": tree(),
                "events": [e.to_json()["type"] for e in r.events], "journals": journals(),
                "refused": [e["reason"] for e in refused]}

    out = {"platform": sys.platform, "locking": journal.LOCKING}
    reset()
    out["failed"] = call("delete:gone.txt")
    reset()
    out["completed"] = call()

    reset()
    held = DiskJournal(cwd, "call-held")
    held.start([JournalEntry("file", str(root / "a.txt"), b"a\\n", 0o644)])
    out["busy"] = call()
    held.finish(remove=True)

    # a call that did not finish: its journal stays, its lock is gone, a.txt was changed
    reset()
    dead = DiskJournal(cwd, "call-dead")
    dead.start([JournalEntry("file", str(root / "a.txt"), b"a\\n", 0o644)])
    (root / "a.txt").write_text("half-written")
    dead.finish(remove=False)
    out["recovered"] = call("delete:gone.txt")

    # the key: made in the kernel's memory (no hard links there), 0600, used to sign
    from applypatch_ext.core.apply import state
    out["key_mode"] = oct(os.lstat(state.key_path()).st_mode & 0o7777)
    out["key_links"] = os.lstat(state.key_path()).st_nlink
    path = journal.journal_path(cwd)

    # a journal this program did not write: refused, moved aside, the call goes on
    reset()
    with open(path, "w") as handle:
        handle.write('{"format": "applypatch_ext-journal", "version": 1}\\n')
    os.chmod(path, 0o600)
    out["foreign"] = call()

    # a journal of a call that did not finish, changed after it died: refused as well
    reset()
    dead = DiskJournal(cwd, "call-dead")
    dead.start([JournalEntry("file", str(root / "a.txt"), b"a\\n", 0o644)])
    (root / "a.txt").write_text("half-written")
    dead.finish(remove=False)
    with open(path, "rb") as handle:
        data = handle.read()
    with open(path, "wb") as handle:
        handle.write(data.replace(b"a.txt", b"b.txt"))
    out["tampered"] = call()
    print("RESULT " + json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def pyodide_dist(lite_site: Path) -> Path:
    if shutil.which("node") is None:
        unavailable("no node on PATH: it runs Pyodide outside the browser")
    return lite_site / "static" / "pyodide"


@pytest.mark.parametrize("stub", [False, True], ids=["no-fcntl", "kernel-stub-fcntl"])
def test_atomic_transaction_under_pyodide(pyodide_dist: Path, stub: bool) -> None:
    proc = subprocess.run(
        ["node", str(RUNNER), str(pyodide_dist), "applypatch-ext"],
        input=f"STUB = {stub}\n" + SCRIPT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (line,) = [text for text in proc.stdout.splitlines() if text.startswith("RESULT ")]
    out = json.loads(line.removeprefix("RESULT "))
    assert (out["platform"], out["locking"]) == ("emscripten", "process")
    before = {"a.txt": "a\n", "gone.txt": "gone\n"}
    lock_only = [name for name in out["completed"]["journals"] if name.endswith(".lock")]

    failed = out["failed"]
    assert failed["status"] == "failed", failed["output"]
    assert failed["tree"] == before  # rolled back: a.txt's update undone, sub/ removed
    assert failed["journals"] == lock_only  # the journal is gone, no temporary file left

    completed = out["completed"]
    assert completed["status"] == "completed", completed["output"]
    assert completed["tree"] == {"a.txt": "A\n", "sub/later.txt": "later\n"}
    assert len(lock_only) == 1

    busy = out["busy"]
    assert busy["status"] == "failed"
    assert "an atomic apply_patch call is still running in" in busy["output"]
    assert "(call call-held, pid " in busy["output"]
    assert "transaction_recovered" not in busy["events"]  # not recovered from under it
    assert busy["tree"] == before

    recovered = out["recovered"]
    events = recovered["events"]
    assert "transaction_recovered" in events
    assert events.index("transaction_recovered") < events.index("patch_apply_begin")
    assert recovered["status"] == "failed", recovered["output"]  # the fault, after recovery
    assert recovered["tree"] == before  # a.txt put back by the recovery, the call rolled back
    assert recovered["refused"] == []

    # the key lives in the kernel's memory: made without a hard link, 0600
    assert (out["key_mode"], out["key_links"]) == ("0o600", 1)
    foreign = out["foreign"]
    assert foreign["refused"] == [
        "it is not signed (a format version 1 journal: an older applypatch_ext wrote it, or "
        "something else did; this one signs every journal)"
    ]
    assert foreign["status"] == "completed", foreign["output"]  # the call went on
    assert [n for n in foreign["journals"] if ".journal.refused-" in n]
    tampered = out["tampered"]
    assert tampered["refused"] == ["line 3's signature does not match: changed since"]
    assert "transaction_recovered" not in tampered["events"]
    # nothing restored from it: a.txt stays as the dead call left it, and the patch, which
    # expects the old text, fails its verification there
    assert tampered["tree"]["a.txt"] == "half-written"
    assert tampered["status"] == "error", tampered["output"]


def test_real_platforms_lock_with_flock() -> None:
    # Linux and macOS keep the OS lock, dropped by the kernel when the holder dies (what
    # tests/reliability/test_crash.py relies on); the in-memory lock is Emscripten's only.
    assert journal.LOCKING == "flock"
