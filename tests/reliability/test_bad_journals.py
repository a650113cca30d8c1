"""Issue 21, item 6: every malformed or foreign journal gives a clear message that names the file
and what is wrong, from ``recover`` (exit 1) and from the next ``%%apply_patch`` and ``turn``
call there (a ``transaction_journal_refused`` event, and the call goes on), never a traceback;
the journal is moved aside, so the calls after it see nothing.

Each shape is put where the working directory's journal goes, in the test's state folder. The
structural shapes come twice: as a foreign file (refused at its first line: no signature) and
signed with the real key (a test can read it, no patch can), so that they reach the checks of
every field a journal of this program could get wrong.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.core.apply.journal import journal_path

from ._ipython import ipython  # noqa: F401 - the fixture
from ._journals import b64, body, header, plant, real_key, sign
from ._support import FIGURES

NEXT = "*** Begin Patch\n*** Add File: next.txt\n+goes on\n*** End Patch\n"
NO_SIGNATURE = "it is not a journal of this program: its first line has no signature"


def entry(cwd: Path, **fields: Any) -> dict[str, Any]:
    return {"kind": "file", "path": f"{cwd}/a.txt", "data": b64(b"a\n"), "mode": 0o644, **fields}


def signed(cwd: Path, *objects: Any, entries: int | None = None) -> bytes:
    """A journal with the real signatures: the header, the confinement, then ``objects``."""
    count = len(objects) if entries is None else entries
    return sign(
        real_key(),
        [body(header(cwd, count)), body({"confinement": None})]
        + [o if isinstance(o, bytes) else body(o) for o in objects],
    )


def deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


#: shape -> (what writes it at the journal's path, what the refusal says)
Shape = Callable[[Path, str], None]


def write(data: Callable[[Path], bytes], mode: int = 0o600) -> Shape:
    return lambda cwd, path: plant(path, data(cwd), mode)


def signed_header(**changes: Any) -> Callable[[Path], bytes]:
    return lambda cwd: sign(
        real_key(), [body(header(cwd, 0, **changes)), body({"confinement": None})]
    )


def truncated(cwd: Path) -> bytes:
    data = signed(cwd, entry(cwd), entry(cwd, path=f"{cwd}/b.txt"))
    return data[: data.rindex(b"\n", 0, len(data) - 1) + 20]  # the last entry cut short


def symlink(cwd: Path, path: str) -> None:
    copy = cwd.parent / "a-journal-elsewhere"
    copy.write_bytes(signed(cwd, entry(cwd)))
    os.chmod(copy, 0o600)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(copy, path)


def directory(cwd: Path, path: str) -> None:
    os.makedirs(path)


def fifo(cwd: Path, path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.mkfifo(path, 0o600)


def huge(cwd: Path, path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.truncate(1 << 30)  # 1 GiB of zero bytes, sparse: never read whole
    os.chmod(path, 0o600)


def other_owner(cwd: Path, path: str) -> None:
    plant(path, signed(cwd, entry(cwd)))
    os.chown(path, 65534, -1)


SHAPES: dict[str, tuple[Shape, str]] = {
    # foreign files: refused at the first line, or before it is opened
    "empty": (write(lambda cwd: b""), "it is empty"),
    "list-header": (write(lambda cwd: b"[1, 2]\n"), NO_SIGNATURE),
    "deep-json": (write(lambda cwd: deep(20_000) + b"\n"), NO_SIGNATURE),
    "binary": (write(lambda cwd: bytes(range(256)) * 8 + b"\n"), NO_SIGNATURE),
    "huge": (huge, "line 1 is longer than 65536 bytes"),
    "unsigned-v1": (
        write(
            lambda cwd: (
                json.dumps({"format": "applypatch_ext-journal", "version": 1}).encode() + b"\n"
            )
        ),
        "it is not signed (a format version 1 journal",
    ),
    "made-up-signature": (
        write(lambda cwd: (real_key(), b"ab" * 32 + b" " + body(header(cwd, 0)) + b"\n")[1]),
        "its signature does not match this user's key",
    ),
    "cut-in-the-header": (write(lambda cwd: signed(cwd, entry(cwd))[:100]), "no complete header"),
    "a-directory": (directory, "it is a directory, not a file"),
    "a-symlink": (symlink, "it is a symbolic link, not a file this program wrote (to "),
    "a-fifo": (fifo, "it is not a regular file (a FIFO, socket or device)"),
    "wrong-mode": (write(lambda cwd: signed(cwd, entry(cwd)), 0o644), "its mode is 0o644"),
    "wrong-owner": (
        other_owner,
        f"it is owned by uid 65534, not by this user (uid {os.geteuid()})",
    ),
    # signed with the real key: every field checked
    "signed-list-header": (
        write(lambda cwd: sign(real_key(), [b"[1, 2]"])),
        "its header is a JSON list",
    ),
    "signed-deep-json": (
        write(lambda cwd: signed(cwd, deep(100_000))),
        "line 3 is JSON nested too deeply",
    ),
    "signed-binary": (write(lambda cwd: signed(cwd, b"\xff\xfe\x00")), "line 3 is not JSON"),
    "missing-data": (
        write(lambda cwd: signed(cwd, {"kind": "file", "path": f"{cwd}/a.txt"})),
        "line 3: a file entry's data is missing or not a string",
    ),
    "data-not-base64": (
        write(lambda cwd: signed(cwd, entry(cwd, data="%%%"))),
        "line 3: its data is not base64",
    ),
    "mode-minus-1": (
        write(lambda cwd: signed(cwd, entry(cwd, mode=-1))),
        "line 3: its mode -1 is not a file mode (0 to 0o7777)",
    ),
    "mode-a-string": (
        write(lambda cwd: signed(cwd, entry(cwd, mode="0644"))),
        "line 3: its mode '0644' is not a file mode",
    ),
    "mode-huge": (
        write(lambda cwd: signed(cwd, entry(cwd, mode=10**30))),
        f"line 3: its mode {10**30} is not a file mode",
    ),
    "mode-true": (
        write(lambda cwd: signed(cwd, entry(cwd, mode=True))),
        "line 3: its mode True is not a file mode",
    ),
    "path-a-number": (
        write(lambda cwd: signed(cwd, entry(cwd, path=5))),
        "line 3: its path is not a string",
    ),
    "path-relative": (
        write(lambda cwd: signed(cwd, entry(cwd, path="a.txt"))),
        "line 3: its path 'a.txt' is not absolute",
    ),
    "path-with-dotdot": (
        write(lambda cwd: signed(cwd, entry(cwd, path=f"{cwd}/../x"))),
        "is not normalised",
    ),
    "unknown-kind": (
        write(lambda cwd: signed(cwd, {"kind": "device", "path": f"{cwd}/a"})),
        "line 3: its kind 'device' is not one of file, symlink, absent, dir",
    ),
    "unknown-field": (
        write(lambda cwd: signed(cwd, {"kind": "absent", "path": f"{cwd}/a", "mode": 1})),
        "line 3: an entry of kind absent has no field 'mode'",
    ),
    "entry-a-list": (write(lambda cwd: signed(cwd, [1])), "line 3: it is a JSON list"),
    "pid-a-string": (
        write(signed_header(pid="x")),
        "its header's pid 'x' is not an integer",
    ),
    "no-confinement-line": (
        write(lambda cwd: sign(real_key(), [body(header(cwd, 0))])),
        "it is cut short: no confinement line",
    ),
    "bad-confinement": (
        write(
            lambda cwd: sign(
                real_key(), [body(header(cwd, 0)), body({"confinement": {"view": "everywhere"}})]
            )
        ),
        "its confinement has the fields ['view']",
    ),
    "truncated": (write(truncated), "it is cut short: its first write held 2 entries, 1 remain"),
    "another-directory": (
        write(signed_header(cwd="/somewhere/else")),
        "it is for /somewhere/else, not ",
    ),
}


def project(tmp_path: Path) -> Path:
    cwd = (tmp_path / "project").resolve()
    cwd.mkdir()
    return cwd


def put(shape: str, cwd: Path) -> str:
    if shape == "wrong-owner" and os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    path = journal_path(str(cwd))
    SHAPES[shape][0](cwd, path)
    return path


def refusals(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "transaction_journal_refused"]


def moved_aside(path: str) -> str:
    (name,) = [
        n
        for n in os.listdir(os.path.dirname(path))
        if n.startswith(os.path.basename(path) + ".refused-")
    ]
    return os.path.join(os.path.dirname(path), name)


def check_refusal(reason: str, shape: str, cwd: Path) -> None:
    expected = SHAPES[shape][1]
    if shape == "another-directory":
        expected += str(cwd)
    assert reason.startswith(expected) or expected in reason, (shape, reason)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_recover_names_the_file_and_what_is_wrong(shape: str, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    path = put(shape, cwd)
    done = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "recover", "--cwd", str(cwd)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    first, second, *rest = done.stderr.splitlines()
    prefix = f"refused the journal {path} found for {cwd}: "
    assert first.startswith(prefix), done.stderr
    check_refusal(first.removeprefix(prefix), shape, cwd)
    assert second == (
        "nothing was restored from it and it will not be used; it was moved aside to "
        f"{moved_aside(path)}"
    )
    assert rest == []
    assert not os.path.lexists(path)
    assert sorted(p.name for p in cwd.iterdir()) == []
    FIGURES["bad journals refused by recover"] += 1


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_next_turn_call_says_so_and_goes_on(shape: str, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    path = put(shape, cwd)
    first, second = tmp_path / "first.patch", tmp_path / "second.patch"
    first.write_text(NEXT)
    second.write_text(NEXT.replace("next.txt", "second.txt"))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "applypatch_ext",
            "turn",
            "--cwd",
            str(cwd),
            str(first),
            str(second),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    (refused,) = refusals(events)  # the first call; the second finds nothing any more
    assert refused["call_id"] == "call-1" and refused["journal"] == path
    check_refusal(refused["reason"], shape, cwd)
    assert refused["moved_to"] == moved_aside(path)
    results = [e for e in events if e["type"] == "call_result"]
    assert [r["status"] for r in results] == ["completed", "completed"]
    assert proc.returncode == 0
    assert sorted(p.name for p in cwd.iterdir()) == ["next.txt", "second.txt"]
    FIGURES["bad journals refused by turn"] += 1


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_later_magic_call_goes_on(
    shape: str,
    tmp_path: Path,
    ipython: InteractiveShell,  # noqa: F811
) -> None:
    cwd = project(tmp_path)
    path = put(shape, cwd)
    events = []
    for name in ("first", "second"):
        cell = NEXT.replace("next.txt", f"{name}.txt")
        with capture_output() as captured:
            ipython.run_cell_magic("apply_patch", f"bad_{name} --cwd {cwd} --no-widget", cell)
        assert "Traceback" not in captured.stdout + captured.stderr
        result = ipython.user_ns.pop(f"bad_{name}")
        assert str(result.status) == "completed", result.raw.output
        events.append([e.to_json() for e in result.raw.events])
    (refused,) = refusals(events[0])
    check_refusal(refused["reason"], shape, cwd)
    assert refused["moved_to"] == moved_aside(path)
    assert refusals(events[1]) == []
    assert sorted(p.name for p in cwd.iterdir()) == ["first.txt", "second.txt"]
    FIGURES["bad journals refused by the magic"] += 1
