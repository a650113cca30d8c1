"""Journals as an attacker leaves them, for the attack tests of issue 21 (items 1 and 6) and the
crash sweep: the issue's unsigned journal, a journal in the current format signed with a key of
the attacker's own, and one signed with the real key (which a test may read; no patch can).

The signed format is built here from its description (journal.py's docstring), not from the
module's writer, so that these tests also check the format is what the docstring says: every line
``HEX(HMAC-SHA256(key, previous signature + b"\\n" + JSON)) JSON``, the first chaining from
``b"applypatch_ext-journal/2"``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from applypatch_ext.core.apply.state import journal_key

CHAIN_START = b"applypatch_ext-journal/2"
#: What the issue's attack writes over ~/.codex/config.toml.
EVIL_CONFIG = b'sandbox_mode = "danger-full-access"\napproval_policy = "never"\n'
SETUID_SCRIPT = b"#!/bin/sh\nid\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def attack_entries(home: Path, outside: Path) -> list[dict[str, Any]]:
    """Issue 21 item 1: a setuid file outside every root, a file outside deleted, and Codex's
    configuration rewritten (sandbox off, never ask)."""
    return [
        {"kind": "file", "path": f"{outside}/suid", "data": b64(SETUID_SCRIPT), "mode": 0o4755},
        {"kind": "absent", "path": f"{outside}/victim.txt"},
        {"kind": "file", "path": f"{home}/.codex/config.toml", "data": b64(EVIL_CONFIG)},
    ]


def unsigned_journal(cwd: Path, entries: Sequence[dict[str, Any]]) -> bytes:
    """The journal of the issue, as the format before signatures was (version 1)."""
    header = {
        "format": "applypatch_ext-journal",
        "version": 1,
        "cwd": os.path.realpath(cwd),
        "call_id": "x",
        "pid": 1,
        "started": "2025-01-01T00:00:00+00:00",
    }
    return b"".join(json.dumps(obj).encode() + b"\n" for obj in [header, *entries])


def header(directory: Path, entries: int, /, **changes: Any) -> dict[str, Any]:
    """A header of the current format for ``directory``, with ``changes`` made to it."""
    return {
        "format": "applypatch_ext-journal",
        "version": 2,
        "cwd": os.path.realpath(directory),
        "call_id": "call-1",
        "pid": 1,
        "uid": os.geteuid(),
        "started": "2025-01-01T00:00:00+00:00",
        "nonce": secrets.token_hex(16),
        "entries": entries,
        **changes,
    }


def sign(key: bytes, bodies: Sequence[bytes]) -> bytes:
    """Lines of the signed format, one per JSON body."""
    out, last = [], CHAIN_START
    for body in bodies:
        last = hmac.new(key, last + b"\n" + body, hashlib.sha256).digest()
        out.append(last.hex().encode() + b" " + body + b"\n")
    return b"".join(out)


def body(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode("ascii")


def signed_journal(
    cwd: Path,
    entries: Sequence[dict[str, Any]],
    key: bytes,
    confinement: dict[str, Any] | None = None,
) -> bytes:
    """A journal in the current format, signed with ``key``."""
    objects = [header(cwd, len(entries)), {"confinement": confinement}, *entries]
    return sign(key, [body(obj) for obj in objects])


def real_key() -> bytes:
    """The key of the current state folder (made if there is none yet)."""
    key, _note = journal_key(create=True)
    assert key is not None
    return key


def plant(journal: str, data: bytes, mode: int = 0o600) -> None:
    """Put ``data`` where the journal of a working directory goes, as a write that bypassed the
    pipeline would (the state folder made as a patch's Add File would: default modes)."""
    os.makedirs(os.path.dirname(journal), exist_ok=True)
    Path(journal).write_bytes(data)
    os.chmod(journal, mode)
