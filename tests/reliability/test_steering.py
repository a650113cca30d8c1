"""Issue 11 item 1, as the attack: the shell form's ``cd`` cannot steer the sandbox.

A model that calls ``cd DIR && apply_patch <<'EOF' ... EOF`` (or the same inside ``bash -lc
"..."``) chooses where the patch's relative paths resolve, never where the pipeline lets it
write: the writable roots and the ``.git`` / ``.agents`` / ``.codex`` carve-outs stay those of
the turn's working directory. Each real shell-form text runs through ``Turn.run``, the ``turn``
command in a subprocess and ``%%apply_patch`` in a real IPython shell, under ``never``,
``on-request`` + Decline and ``on-request`` + Approve, and the whole tree (the working
directory and its neighbours) is compared afterwards:

* escaping the working directory (``cd ..``, an absolute ``cd``, ``cd sub`` then ``../..``) or
  entering a carve-out (``cd .git`` to add an ``fsmonitor`` command to ``.git/config``,
  ``cd .git/hooks`` to plant a hook, ``cd '.codex'``) is refused under ``never``, asked about
  otherwise, and written only when approved: exactly the file the request showed;
* every request, begin event, the widget's approval state and the result name the target by
  its absolute path, with the turn's working directory as ``cwd``, never the ``cd`` directory;
* ``cd sub && apply_patch`` inside the working directory still applies without asking.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from unittest.mock import ANY

import pytest

from applypatch_ext.core.turn.options import PipelineOptions
from applypatch_ext.core.turn.safety import PATCH_REJECTED_OUTSIDE_PROJECT_REASON
from applypatch_ext.core.turn.turn import Turn

from ..trees import Tree, snapshot_dir
from ._frontends import FRONTENDS, MODES, run


def heredoc(cd: str, body: str) -> str:
    return f"cd {cd} && apply_patch <<'EOF'\n*** Begin Patch\n{body}*** End Patch\nEOF\n"


def bash_lc(cd: str, body: str) -> str:
    script = f"cd {cd} && apply_patch <<'EOF'\n*** Begin Patch\n{body}*** End Patch\nEOF"
    return f'bash -lc "{script}"\n'


@dataclass(frozen=True)
class Attack:
    #: the cell / tool-call text; ``{elsewhere}`` is replaced by that directory's absolute path
    text: str
    #: the file it writes, relative to the tree's top (the working directory is ``ws``)
    target: str
    #: the target's bytes once written
    after: bytes
    #: False: a legitimate ``cd`` inside the working directory, applied without asking
    hostile: bool = True
    #: other files the patch changes (a move source that disappears: None)
    also: dict[str, bytes | None] = field(default_factory=dict)


UPDATE_OUTSIDE = "*** Update File: outside.txt\n@@\n-outside\n+pwned\n"
FSMONITOR = "\tfsmonitor = touch ../../PWNED"

ATTACKS = {
    "cd-parent": Attack(heredoc("..", UPDATE_OUTSIDE), "outside.txt", b"pwned\n"),
    "cd-absolute": Attack(
        heredoc("{elsewhere}", "*** Add File: planted.txt\n+planted\n"),
        "elsewhere/planted.txt",
        b"planted\n",
    ),
    "cd-sub-then-up": Attack(
        heredoc("sub", "*** Update File: ../../outside.txt\n@@\n-outside\n+pwned\n"),
        "outside.txt",
        b"pwned\n",
    ),
    "cd-git-fsmonitor": Attack(
        heredoc(".git", f"*** Update File: config\n@@\n [core]\n+{FSMONITOR}\n"),
        "ws/.git/config",
        f"[core]\n{FSMONITOR}\n".encode(),
    ),
    "bash-cd-git-hooks": Attack(
        bash_lc(".git/hooks", "*** Add File: pre-commit\n+touch ../../../PWNED\n"),
        "ws/.git/hooks/pre-commit",
        b"touch ../../../PWNED\n",
    ),
    "cd-quoted-codex": Attack(
        heredoc("'.codex'", "*** Add File: config.toml\n+approval_policy = 'never'\n"),
        "ws/.codex/config.toml",
        b"approval_policy = 'never'\n",
    ),
    "bash-cd-sub": Attack(
        bash_lc("sub", "*** Update File: s.txt\n@@\n-sub\n+sub, edited\n"),
        "ws/sub/s.txt",
        b"sub, edited\n",
        hostile=False,
    ),
    "cd-sub-move-up": Attack(
        heredoc("sub", "*** Update File: s.txt\n*** Move to: ../moved.txt\n@@\n-sub\n+moved\n"),
        "ws/moved.txt",
        b"moved\n",
        hostile=False,
        also={"ws/sub/s.txt": None},
    ),
}


def build(top: Path) -> Tree:
    (top / "ws/sub").mkdir(parents=True)
    (top / "ws/.git/hooks").mkdir(parents=True)
    (top / "elsewhere").mkdir()
    (top / "outside.txt").write_bytes(b"outside\n")
    (top / "elsewhere/keep.txt").write_bytes(b"keep\n")
    (top / "ws/a.txt").write_bytes(b"a\n")
    (top / "ws/sub/s.txt").write_bytes(b"sub\n")
    (top / "ws/.git/config").write_bytes(b"[core]\n")
    return snapshot_dir(top)


def written(before: Tree, attack: Attack) -> Tree:
    """The tree once the attack's patch has been applied."""
    tree = dict(before)
    for rel, data in {attack.target: attack.after, **attack.also}.items():
        if data is None:
            tree.pop(rel)
            continue
        tree[rel] = data
        parent = Path(rel).parent
        while str(parent) != ".":
            tree.setdefault(parent.as_posix(), None)
            parent = parent.parent
    return dict(sorted(tree.items()))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name", list(ATTACKS))
def test_cd_cannot_steer_the_sandbox(name: str, frontend: str, mode: str, tmp_path: Path) -> None:
    attack = ATTACKS[name]
    top = tmp_path.resolve() / "t"
    before = build(top)
    ws = top / "ws"
    text = attack.text.replace("{elsewhere}", str(top / "elsewhere"))
    target = str(top / attack.target)

    result = run(frontend, ws, tmp_path / "patches", text, mode)

    after = snapshot_dir(top)
    assert not (tmp_path / "PWNED").exists()
    assert result.cwd == str(ws)  # the turn's working directory, not the cd directory
    if frontend == "magic":
        assert result.widget_cwd == str(ws)  # the widget shows paths relative to it
    # The begin event (when there is one) names every target by its absolute path.
    for begin in result.begins:
        assert set(begin["changes"]) <= {target, *(str(top / p) for p in attack.also)}
        assert target in begin["changes"] or any(
            change.get("move_path") == target for change in begin["changes"].values()
        )

    if not attack.hostile:
        assert result.status == "completed", result.error
        assert result.requests == [] and result.pending_views == []
        assert after == written(before, attack)
        return

    if mode == "never":
        assert result.status == "rejected"
        assert result.requests == [] and result.begins == []
        if result.error is not None:
            assert result.error == PATCH_REJECTED_OUTSIDE_PROJECT_REASON
        assert after == before
        return

    # on-request: the user is asked once, and sees the real target, absolute.
    (request,) = result.requests
    assert request["files"] == [target]
    assert request["cwd"] == str(ws)
    assert request["retry"] is False
    if frontend == "magic":
        # What the widget shows while the call waits (its approval state).
        from applypatch_ext.jupyter.records.vocabulary import request_words

        assert result.pending_views == [
            {
                "files": [target],
                "reason": None,
                "retry": False,
                "cwd": str(ws),
                "request_id": ANY,
                **request_words(1),
            }
        ]
    if mode == "decline":
        assert result.status == "declined"
        assert after == before
    else:
        assert result.status == "completed", result.error
        assert after == written(before, attack)


def test_a_nul_in_the_cd_directory_is_a_verification_error(tmp_path: Path) -> None:
    top = tmp_path.resolve() / "t"
    before = build(top)
    text = heredoc("'su\0b'", "*** Add File: n.txt\n+n\n")
    result = Turn(str(top / "ws")).run(text, "approve")
    assert result.status == "error"
    assert result.output == "apply_patch verification failed: 'su\0b' is invalid on 'linux'"
    assert [e.event.type for e in result.events] == ["patch_diagnosis"]
    assert result.diagnosis is not None and result.diagnosis.kind == "malformed"
    assert snapshot_dir(top) == before


def test_fault_paths_stay_relative_to_the_working_directory(tmp_path: Path) -> None:
    """``--fault eperm:PATH`` names PATH relative to the turn's working directory (its
    ``--help``), not to the ``cd`` directory: the cd moves the patch's paths only."""
    top = tmp_path.resolve() / "t"
    before = build(top)
    ws = str(top / "ws")
    options = PipelineOptions.from_strings(ws, exclude_tmp=True, faults=["eperm:sub/s.txt"])
    text = ATTACKS["bash-cd-sub"].text
    result = Turn(ws, options=options).run(text, "decline")
    assert result.status == "failed"  # denied in the sandbox, the retry declined
    assert result.cwd == ws and result.workdir == f"{ws}/sub"
    assert snapshot_dir(top) == before
    result = Turn(ws, options=options).run(text, "approve")
    assert result.status == "completed", result.error
    assert snapshot_dir(top) == written(before, ATTACKS["bash-cd-sub"])
