"""Issue 21, item 1: a patch plants a crash journal; the next call's recovery must not write
outside every root. Run as the attack, with the real things: ``python -m applypatch_ext turn``
and ``recover`` in subprocesses, ``%%apply_patch`` in a real IPython shell, real files, in both
set-ups where the state folder lies in a writable root:

* ``cwd-is-home``: the notebook runs in ``$HOME`` (JupyterLab started in ``~``), under
  ``--approval-policy never --exclude-tmp``: the working directory is the only root;
* ``home-under-tmp``: ``$HOME`` is under ``/tmp``, a writable root, and the project elsewhere
  (under ``--approval-policy never``); what is "outside" is then outside ``/tmp`` too.

The journal is the issue's: a setuid file outside every root, a file outside deleted, and
``~/.codex/config.toml`` rewritten (sandbox off, never ask). First the patch that writes it is
refused (the state folder is refused to every patch). Then the journal is put there anyway (as
the program before this fix let a patch do), unsigned as it was, or signed with a key of the
attacker's own: the next call, by the magic or ``turn``, and ``recover``, refuse it, move it
aside and say where and why; nothing outside changes and the call goes on. Last, a journal
signed with the real key (an attacker who read the key: no patch can) still restores nothing
the interrupted call could not write.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.core.apply.journal import STATE_DIR_ENV, journal_path
from applypatch_ext.core.apply.state import state_dir
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.jupyter.live.session import SESSION
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
from applypatch_ext.jupyter.magics import magic as magic_module

from ..trees import snapshot_dir_with_modes
from ._ipython import ipython  # noqa: F401  (the fixture)
from ._journals import (
    EVIL_CONFIG,
    attack_entries,
    plant,
    real_key,
    signed_journal,
    unsigned_journal,
)
from ._support import FIGURES

CONFIG = b'sandbox_mode = "workspace-write"\n'
NEXT = "*** Begin Patch\n*** Add File: next.txt\n+the call goes on\n*** End Patch\n"


@dataclass
class World:
    """Where the attack runs: ``$HOME``, the working directory, a folder outside every root,
    and the command-line flags of the set-up."""

    home: Path
    cwd: Path
    outside: Path
    flags: list[str]
    before: dict[str, Any] = field(default_factory=dict)

    @property
    def journal(self) -> str:
        return journal_path(str(self.cwd))

    def untouched(self) -> dict[str, Any]:
        """What must not change: everything outside, and Codex's configuration."""
        return {
            "outside": snapshot_dir_with_modes(self.outside),
            "codex": snapshot_dir_with_modes(self.home / ".codex"),
        }

    def assert_untouched(self) -> None:
        now = self.untouched()
        assert now == self.before
        assert not (self.outside / "suid").exists()
        assert (self.outside / "victim.txt").read_bytes() == b"victim\n"
        assert (self.home / ".codex" / "config.toml").read_bytes() == CONFIG

    def moved_aside(self) -> list[str]:
        folder = os.path.dirname(self.journal)
        name = os.path.basename(self.journal)
        return sorted(n for n in os.listdir(folder) if n.startswith(name + ".refused-"))


@pytest.fixture(params=["cwd-is-home", "home-under-tmp"])
def world(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[World]:
    home = (tmp_path / "home").resolve()
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_bytes(CONFIG)
    for name in (STATE_DIR_ENV, "XDG_STATE_HOME", "TMPDIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    made = None
    if request.param == "cwd-is-home":
        cwd, outside = home, (tmp_path / "outside").resolve()
        flags = ["--approval-policy", "never", "--exclude-tmp"]
    else:
        assert str(home).startswith("/tmp/")
        cwd = (tmp_path / "project").resolve()
        made = Path(tempfile.mkdtemp(prefix="applypatch-outside-", dir="/var/tmp")).resolve()
        outside = made
        flags = ["--approval-policy", "never"]
    cwd.mkdir(exist_ok=True)
    outside.mkdir(exist_ok=True)
    (outside / "victim.txt").write_bytes(b"victim\n")
    assert state_dir() == f"{home}/.local/state/applypatch_ext"
    found = World(home, cwd, outside, flags)
    found.before = found.untouched()
    yield found
    if made is not None:
        shutil.rmtree(made)


def environ() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (STATE_DIR_ENV, "XDG_STATE_HOME")}
    return env


def run_turn(world: World, patch: str) -> tuple[int, list[dict[str, Any]], str]:
    patch_file = world.home.parent / f"p{secrets.token_hex(4)}.patch"
    patch_file.write_text(patch)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "applypatch_ext",
            "turn",
            "--cwd",
            str(world.cwd),
            *world.flags,
            str(patch_file),
        ],
        capture_output=True,
        text=True,
        check=False,
        env=environ(),
        timeout=300,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()], proc.stderr


class KeptWidget(ApplyPatchWidget):
    """The real widget, kept where the test can read its synced traits."""

    made: ClassVar[list[ApplyPatchWidget]] = []

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        KeptWidget.made.append(self)


@dataclass
class MagicRun:
    status: str
    events: list[dict[str, Any]]  # the call's events, as the library records them
    timeline: list[dict[str, Any]]  # the widget's timeline (type, summary)
    html: str  # every version of the call's static record


def run_magic(
    shell: InteractiveShell, world: World, patch: str, monkeypatch: pytest.MonkeyPatch
) -> MagicRun:
    monkeypatch.setattr(magic_module, "ApplyPatchWidget", KeptWidget)
    KeptWidget.made.clear()
    SESSION.new_turn()
    line = f"attack_result --cwd {world.cwd} " + " ".join(world.flags)
    with capture_output() as captured:
        shell.run_cell_magic("apply_patch", line, patch)
    result = shell.user_ns.pop("attack_result")
    (widget,) = KeptWidget.made
    html = "".join(o.data.get("text/html", "") for o in captured.outputs)
    assert "Traceback" not in captured.stdout + captured.stderr
    return MagicRun(
        str(result.status),
        [e.to_json() for e in result.raw.events],
        list(widget.events),
        html,
    )


# -- 1: the patch that plants the journal is refused ---------------------------------------------


def planting_patch(world: World) -> str:
    lines = unsigned_journal(world.cwd, attack_entries(world.home, world.outside)).decode()
    body = "".join(f"+{line}\n" for line in lines.splitlines())
    return f"*** Begin Patch\n*** Add File: {world.journal}\n{body}*** End Patch\n"


@pytest.mark.parametrize("frontend", ["turn", "magic"])
def test_the_patch_that_plants_a_journal_is_refused(
    world: World,
    frontend: str,
    ipython: InteractiveShell,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    patch = planting_patch(world)
    reason = (
        f"writing {world.journal}: inside {world.home}/.local/state/applypatch_ext, "
        "applypatch_ext's state folder (its crash journals and their key); no patch may write "
        "there"
    )
    if frontend == "turn":
        code, events, _stderr = run_turn(world, patch)
        assert code == 1
        (result,) = [e for e in events if e["type"] == "call_result"]
        assert (result["status"], result["output"]) == ("rejected", f"patch rejected: {reason}")
        assert not [e for e in events if e["type"] == "patch_apply_begin"]
        code, events, _stderr = run_turn(world, NEXT)
    else:
        run = run_magic(ipython, world, patch, monkeypatch)
        assert run.status == "rejected"
        (safety,) = [e for e in run.events if e["type"] == "patch_safety_assessed"]
        assert safety["reason"] == reason
        run = run_magic(ipython, world, NEXT, monkeypatch)
        assert run.status == "completed"
        events = run.events
    assert not os.path.lexists(world.journal)
    assert not [e for e in events if e["type"].startswith("transaction_")]
    world.assert_untouched()
    FIGURES["journal attacks: planting patches refused"] += 1


# -- 2: a journal put there anyway is refused, moved aside, named -------------------------------

PLANTED = {
    # the journal, as an Add File left it (the umask's 0644), and the same made 0600
    "unsigned-0644": (0o644, "its mode is 0o644: others may read or write it (a journal is 0o600)"),
    "unsigned-0600": (0o600, "it is not signed (a format version 1 journal"),
    # the current format, signed with a key of the attacker's own
    "foreign-key": (0o600, "its signature does not match this user's key"),
}


def planted(world: World, kind: str) -> str:
    entries = attack_entries(world.home, world.outside)
    mode, reason = PLANTED[kind]
    if kind == "foreign-key":
        real_key()  # this user has a key: the journal is checked against it
        data = signed_journal(world.cwd, entries, secrets.token_bytes(32), {"view": "unconfined"})
    else:
        data = unsigned_journal(world.cwd, entries)
    plant(world.journal, data, mode)
    return reason


@pytest.mark.parametrize("kind", list(PLANTED))
@pytest.mark.parametrize("frontend", ["turn", "magic", "recover"])
def test_a_planted_journal_is_refused_and_nothing_outside_is_touched(
    world: World,
    frontend: str,
    kind: str,
    ipython: InteractiveShell,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reason = planted(world, kind)
    journal = world.journal
    if frontend == "recover":
        proc = subprocess.run(
            [sys.executable, "-m", "applypatch_ext", "recover", "--cwd", str(world.cwd)],
            capture_output=True,
            text=True,
            check=False,
            env=environ(),
        )
        assert proc.returncode == 1
        (aside,) = world.moved_aside()
        first, second = proc.stderr.splitlines()
        assert first.startswith(f"refused the journal {journal} found for {world.cwd}: {reason}")
        assert second == (
            "nothing was restored from it and it will not be used; it was moved aside to "
            f"{os.path.dirname(journal)}/{aside}"
        )
    else:
        if frontend == "turn":
            code, events, _stderr = run_turn(world, NEXT)
            assert code == 0
            timeline = [e["type"] for e in events]
        else:
            run = run_magic(ipython, world, NEXT, monkeypatch)
            assert run.status == "completed"
            events = run.events
            timeline = [e["type"] for e in run.timeline]
        (refused,) = [e for e in events if e["type"] == "transaction_journal_refused"]
        (aside,) = world.moved_aside()
        assert refused["journal"] == journal and refused["cwd"] == str(world.cwd)
        assert refused["reason"].startswith(reason)
        assert refused["moved_to"] == f"{os.path.dirname(journal)}/{aside}"
        assert "transaction_recovered" not in timeline
        assert timeline.index("transaction_journal_refused") < timeline.index("patch_apply_begin")
        if frontend == "magic":
            (entry,) = [e for e in run.timeline if e["type"] == "transaction_journal_refused"]
            assert entry["summary"] == (
                f"refused the journal {journal}: {refused['reason']}; moved aside to "
                f"{refused['moved_to']}"
            )
            assert "transaction_journal_refused" in run.html and aside in run.html
        assert (world.cwd / "next.txt").read_text() == "the call goes on\n"
    assert not os.path.lexists(journal)
    moved = Path(os.path.dirname(journal), aside)
    assert stat.S_IMODE(os.lstat(moved).st_mode) == PLANTED[kind][0], "moved as it was"
    world.assert_untouched()
    FIGURES["journal attacks: planted journals refused"] += 1


# -- 3: even signed with the real key, only what the call could write ---------------------------


@pytest.mark.parametrize("frontend", ["turn", "recover"])
def test_a_journal_signed_with_the_real_key_changes_nothing_the_call_could_not(
    world: World, frontend: str
) -> None:
    """The third wall: a journal this user's key signed (a test can read the key, no patch
    can) whose record says the call was sandboxed in its working directory. Its entries outside
    are left alone and listed; the one inside is restored; the setuid bit of a file that had none
    is never applied."""
    root_flags = {"include_tmp": "--exclude-tmp" not in world.flags}
    confinement = {
        "view": "sandbox",
        "root": str(world.cwd),
        "policy": {
            "profile": "workspace-write",
            "writable_roots": [],
            "include_tmp": root_flags["include_tmp"],
            "include_tmpdir_env": True,
            "tmpdir": None,
            "read_only_subpaths": [".git", ".agents", ".codex"],
        },
        "approved": [],
    }
    inside = {"kind": "file", "path": f"{world.cwd}/notes.txt", "data": "bm90ZXMK", "mode": 0o644}
    entries = [*attack_entries(world.home, world.outside), inside]
    plant(world.journal, signed_journal(world.cwd, entries, real_key(), confinement))
    if frontend == "recover":
        proc = subprocess.run(
            [sys.executable, "-m", "applypatch_ext", "recover", "--cwd", str(world.cwd)],
            capture_output=True,
            text=True,
            check=False,
            env=environ(),
        )
        assert proc.returncode == 0, proc.stderr
        report = proc.stdout
        assert f"  restored {world.cwd}/notes.txt\n" in report
        for path in (f"{world.outside}/suid", f"{world.outside}/victim.txt"):
            assert f"  left alone {path} (that call could not change it): sandbox: " in report
        if world.cwd == world.home:
            assert f"  left alone {world.home}/.codex/config.toml" in report
    else:
        code, events, _stderr = run_turn(world, NEXT)
        assert code == 0
        (recovered,) = [e for e in events if e["type"] == "transaction_recovered"]
        assert f"{world.cwd}/notes.txt" in recovered["restored"]
        skipped = {item.split(": ", 1)[0] for item in recovered["skipped"]}
        assert {f"{world.outside}/suid", f"{world.outside}/victim.txt"} <= skipped
    assert (world.cwd / "notes.txt").read_bytes() == b"notes\n"
    assert not os.path.lexists(world.journal)
    if world.cwd == world.home:
        world.assert_untouched()
    else:
        # $HOME under /tmp: ~/.codex is inside the /tmp root, writable by any patch there (as in
        # Codex); the journal's config entry is what the call could have written. Outside:
        assert snapshot_dir_with_modes(world.outside) == world.before["outside"]
        assert (world.home / ".codex" / "config.toml").read_bytes() in (CONFIG, EVIL_CONFIG)


# -- 4: the state folder reached through a symlinked directory, under every profile -------------


@pytest.mark.parametrize("profile", ["danger-full-access", "external", "workspace-write"])
def test_a_state_folder_behind_a_symlink_is_refused_under_every_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    """``~/.local/state`` is a symlink into the project (as a dotfile manager such as GNU stow
    makes it), the notebook runs in that project: a patch names the state folder by the
    project's path, which the lexical safety check cannot see. The write is refused when it is
    made, whatever the profile (the sandbox's own confinement, or none): no journal is planted,
    the key is not replaced, and the call fails naming the state folder."""
    home = (tmp_path / "home").resolve()
    project = home / "dotfiles"
    (project / "local-state").mkdir(parents=True)
    (home / ".local").mkdir()
    (home / ".local" / "state").symlink_to(project / "local-state")
    for name in (STATE_DIR_ENV, "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    real_key()  # the state folder exists, with its key, as after any atomic call
    state = project / "local-state" / "applypatch_ext"
    before = snapshot_dir_with_modes(state)
    journal = f"local-state/applypatch_ext/journals/{Path(journal_path(str(project))).name}"
    options = PipelineOptions.from_strings(str(project), sandbox=profile, approval_policy="never")
    for target in (journal, "local-state/applypatch_ext/key"):
        patch = f"*** Begin Patch\n*** Add File: {target}\n+x\n*** End Patch\n"
        result = Turn(str(project), options=options).run(patch, "approve")
        assert result.status == CallStatus.FAILED, result.output
        assert f"{state}, applypatch_ext's state folder" in (result.error or ""), result.error
        assert result.delta.refused == (f"{project}/{target}",)
    assert snapshot_dir_with_modes(state) == before
    FIGURES["journal attacks: state folder behind a symlink refused"] += 1
