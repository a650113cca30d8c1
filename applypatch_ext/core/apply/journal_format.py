"""The format of an atomic transaction's journal (:mod:`.journal` keeps it on disk): its
records, the signature of each line, and the checks a journal's lines pass before any entry is
used.

A journal is lines of ``SIGNATURE JSON``. The signature is the hex HMAC-SHA256, under the state
folder's key (:func:`.state.journal_key`), of the previous line's signature (for the first
line, ``applypatch_ext-journal/2``), a newline and the line's JSON: a line can be neither forged,
changed, moved nor taken from another journal. Then, in order: a header (format, version,
working directory, call id, pid, uid, time, a random nonce, how many entries the first write
holds), the attempt's confinement (what it could write: recorded by the pipeline, read by
recovery; this module does not look into it), and one entry per path, bytes in base64.

:func:`read_checked` reads lines from an open journal and raises ``ValueError`` saying what is
wrong (the caller names the file): a line without a signature, a signature that does not match,
JSON that is not JSON or is nested too deeply, a field of the wrong type or range (a path not
absolute and normalised, a mode outside ``0..0o7777``), fewer entries than the first write held.
A last line cut short by a crash (no newline) after those is dropped: its change had not started.
The header line is read, bounded, before its signature is checked; every other line only after
the lines before it were found good.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import errno
import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any, Final, Literal

from .fs import MAX_READ_BYTES, normalize_path
from .state import journal_key

FORMAT: Final = "applypatch_ext-journal"
VERSION: Final = 2
#: The longest header line a reader takes (it is read before its signature is checked).
HEADER_MAX: Final = 64 * 1024
#: The longest other line: an entry with the base64 of the largest file a patch may read.
LINE_MAX: Final = 4 * (MAX_READ_BYTES // 3 + 1) + 64 * 1024
SIGNATURE_HEX: Final = 64  # hex digits of an HMAC-SHA256
#: A longer call id is cut in the header (it is only shown).
CALL_ID_MAX: Final = 4096
#: What the first signature chains from (so no other use of the key yields a journal line).
CHAIN_START: Final = f"{FORMAT}/{VERSION}".encode("ascii")

EntryKind = Literal["file", "symlink", "absent", "dir"]
ENTRY_KINDS: Final = ("file", "symlink", "absent", "dir")
_HEADER_FIELDS: Final = {
    "format": str,
    "version": int,
    "cwd": str,
    "call_id": str,
    "pid": int,
    "uid": int,
    "started": str,
    "nonce": str,
    "entries": int,
}
_TYPE_NAMES: Final = {str: "a string", int: "an integer"}


class JournalError(OSError):
    """The journal could not be written or read; the message says which file and why."""


class JournalBusy(JournalError):
    """Another call, still running, holds the journal of this working directory."""


class JournalRefused(JournalError):
    """The journal at ``path`` fails a check (``reason``): it is never used."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(errno.EINVAL, f"the journal {path} is not used: {reason}", path)
        self.path = path
        self.reason = reason


def _ensure(condition: bool, problem: str) -> None:
    if not condition:
        raise ValueError(problem)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_path(value: object, what: str) -> str:
    _ensure(isinstance(value, str), f"its {what} is not a string")
    assert isinstance(value, str)
    _ensure(value.startswith("/") and "\0" not in value, f"its {what} {value!r} is not absolute")
    _ensure(normalize_path(value) == value, f"its {what} {value!r} is not normalised")
    return value


@dataclass(frozen=True)
class JournalEntry:
    """How ``path`` was before the attempt.

    ``file``: a regular file with ``data`` and ``mode``; ``symlink``: a link to ``target``;
    ``absent``: nothing; ``dir``: nothing either, and the attempt may create a directory there.
    """

    kind: EntryKind
    path: str
    data: bytes | None = None
    mode: int | None = None
    target: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "path": self.path}
        if self.data is not None:
            out["data"] = base64.b64encode(self.data).decode("ascii")
        if self.mode is not None:
            out["mode"] = self.mode
        if self.target is not None:
            out["target"] = self.target
        return out

    @classmethod
    def from_json(cls, obj: object) -> JournalEntry:
        """The entry ``obj`` describes; ``ValueError`` saying what is wrong with it."""
        if not isinstance(obj, dict):
            raise ValueError(f"it is a JSON {type(obj).__name__}, not an entry")
        kind = obj.get("kind")
        if kind not in ENTRY_KINDS:
            raise ValueError(f"its kind {kind!r} is not one of {', '.join(ENTRY_KINDS)}")
        path = _check_path(obj.get("path"), "path")
        allowed = {"file": {"data", "mode"}, "symlink": {"target"}}.get(kind, set())
        extra = sorted(set(obj) - {"kind", "path"} - allowed)
        _ensure(not extra, f"an entry of kind {kind} has no field {', '.join(map(repr, extra))}")
        if kind == "file":
            raw, mode = obj.get("data"), obj.get("mode")
            if not isinstance(raw, str):
                raise ValueError("a file entry's data is missing or not a string")
            try:
                data = base64.b64decode(raw, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise ValueError(f"its data is not base64 ({exc})") from None
            if mode is not None and not (_is_int(mode) and 0 <= mode <= 0o7777):
                raise ValueError(f"its mode {mode!r} is not a file mode (0 to 0o7777)")
            return cls("file", path, data, mode)
        if kind == "symlink":
            target = obj.get("target")
            if not (isinstance(target, str) and target != "" and "\0" not in target):
                raise ValueError(f"a symlink entry's target {target!r} is not a symlink target")
            return cls("symlink", path, target=target)
        return cls("absent" if kind == "absent" else "dir", path)


@dataclass(frozen=True)
class Journal:
    """A journal read and checked: its header, the attempt's confinement record, its entries."""

    path: str
    header: Mapping[str, Any]
    confinement: Mapping[str, Any] | None
    entries: tuple[JournalEntry, ...]


class Signer:
    """Signs lines in order: each signature covers the previous one and the line's JSON."""

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.last = CHAIN_START

    def signature(self, body: bytes) -> bytes:
        return hmac.new(self.key, self.last + b"\n" + body, hashlib.sha256).digest()

    def line(self, obj: Mapping[str, Any]) -> bytes:
        # ensure_ascii keeps lone surrogates (undecodable file name bytes) as \udcXX escapes.
        body = json.dumps(obj, separators=(",", ":")).encode("ascii")
        self.last = self.signature(body)
        return self.last.hex().encode("ascii") + b" " + body + b"\n"

    def check(self, line: bytes) -> bytes | None:
        """The JSON of a signed ``line`` (its newline removed) if its signature is the next
        one of the chain, else None."""
        if len(line) <= SIGNATURE_HEX or line[SIGNATURE_HEX : SIGNATURE_HEX + 1] != b" ":
            return None
        try:
            given = bytes.fromhex(line[:SIGNATURE_HEX].decode("ascii"))
        except ValueError:
            return None
        body = line[SIGNATURE_HEX + 1 :]
        expected = self.signature(body)
        if not hmac.compare_digest(given, expected):
            return None
        self.last = expected
        return body


def _parse(body: bytes, number: int) -> Any:
    try:
        return json.loads(body)
    except RecursionError:
        raise ValueError(f"line {number} is JSON nested too deeply") from None
    except ValueError as exc:  # also UnicodeDecodeError
        raise ValueError(f"line {number} is not JSON ({exc})") from None


def _unsigned(line: bytes) -> str:
    """Why a first line without a signature is refused (a version 1 journal says so)."""
    if not line.strip():
        return "it does not start with a header"
    with contextlib.suppress(ValueError):
        header = _parse(line, 1)
        if isinstance(header, dict) and header.get("format") == FORMAT:
            return (
                f"it is not signed (a format version {header.get('version')!r} journal: an older "
                "applypatch_ext wrote it, or something else did; this one signs every journal)"
            )
    return "it is not a journal of this program: its first line has no signature"


def _check_header(header: object) -> dict[str, Any]:
    _ensure(isinstance(header, dict), f"its header is a JSON {type(header).__name__}")
    assert isinstance(header, dict)
    for name, kind in _HEADER_FIELDS.items():
        value = header.get(name)
        good = _is_int(value) if kind is int else isinstance(value, kind)
        _ensure(good, f"its header's {name} {value!r} is not {_TYPE_NAMES[kind]}")
    _ensure(header["format"] == FORMAT and header["version"] == VERSION, "an unknown format")
    _check_path(header["cwd"], "header's cwd")
    return header


def _read_line(handle: IO[bytes], limit: int, number: int) -> bytes | None:
    """The next complete line without its newline; None at the end (a last line cut short by a
    crash is dropped); ``ValueError`` for a line longer than ``limit``."""
    line = handle.readline(limit + 1)
    if line.endswith(b"\n"):
        return line[:-1]
    _ensure(len(line) <= limit, f"line {number} is longer than {limit} bytes")
    return None


def read_checked(handle: IO[bytes], path: str) -> Journal:
    first = _read_line(handle, HEADER_MAX, 1)
    if first is None:
        handle.seek(0)
        start = handle.read(1)
        raise ValueError("it is cut short: no complete header" if start else "it is empty")
    if len(first) <= SIGNATURE_HEX or first[SIGNATURE_HEX : SIGNATURE_HEX + 1] != b" ":
        raise ValueError(_unsigned(first))
    key, note = journal_key(create=False)
    if key is None:
        raise ValueError(note or "there is no key, so this program never signed a journal here")
    signer = Signer(key)
    body = signer.check(first)
    if body is None:
        if note is not None:
            raise ValueError(note)
        raise ValueError(
            "its signature does not match this user's key: this program did not write it for "
            "this user, or it was changed since"
        )
    header = _check_header(_parse(body, 1))
    confinement: Mapping[str, Any] | None = None
    entries: list[JournalEntry] = []
    number = 1
    while True:
        number += 1
        line = _read_line(handle, LINE_MAX, number)
        if line is None:
            break
        body = signer.check(line)
        _ensure(body is not None, f"line {number}'s signature does not match: changed since")
        assert body is not None
        obj = _parse(body, number)
        if number == 2:
            _ensure(
                isinstance(obj, dict) and set(obj) == {"confinement"},
                "its second line is not the attempt's confinement",
            )
            record = obj["confinement"]
            _ensure(record is None or isinstance(record, dict), "its confinement is not a record")
            confinement = record
            continue
        try:
            entries.append(JournalEntry.from_json(obj))
        except ValueError as exc:
            raise ValueError(f"line {number}: {exc}") from None
    _ensure(number > 2, "it is cut short: no confinement line")
    _ensure(
        len(entries) >= header["entries"],
        f"it is cut short: its first write held {header['entries']} entries, {len(entries)} remain",
    )
    return Journal(path, header, confinement, tuple(entries))
