"""Every fast path of the core gives what the straightforward path gives (issue 6).

Each test compares an optimised routine with a plain reference: the line-by-line form kept in
the package (``canonical_patch_lines``, the lone-CR splitter, the full rules of the streaming
parser with its shortcuts switched off) or one written here (the seek cascade, the rebuilding
of a file, ``str.translate``). Inputs are generated: CR, CRLF and lone CR, BOM, no final
newline, huge lines, stars and blank lines inside Add hunks, typographic punctuation.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from applypatch_ext.core.apply.contents import compute_replacements, derive_new_contents
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.seek import (
    PUNCTUATION_TABLE,
    Haystack,
    PatternBatch,
    _map_punctuation,
    _punctuation_lines,
    seek_sequence,
)
from applypatch_ext.core.apply.standalone import apply_patch
from applypatch_ext.core.errors import ApplyPatchError, ParseError
from applypatch_ext.core.parse import streaming
from applypatch_ext.core.parse.model import AddFile, UpdateFileChunk
from applypatch_ext.core.parse.parser import canonical_patch_lines, canonical_patch_text
from applypatch_ext.core.parse.streaming import StreamingPatchParser
from applypatch_ext.core.text import RUST_WHITESPACE, LineEndings, split_terminated_lines
from applypatch_ext.core.text import _split_with_lone_cr as reference_split
from applypatch_ext.core.turn.preview import ApplyPatchArgumentDiffConsumer

from .parse.test_streaming import patch_texts

FAST = settings(
    derandomize=True,
    max_examples=300,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Small alphabets make matches, near-matches and the special characters frequent.
_LINE_CHARS = st.sampled_from([*"ab *+-@\t\r\ufeff\u2019\u2014\u00a0'\"", "x" * 5000])
_LINE = st.lists(_LINE_CHARS, max_size=6).map("".join)


# --------------------------------------------------------------------------------------------
# parser: the canonical text


def _outcome(fn: Callable[[], object]) -> tuple[str, object]:
    try:
        return ("ok", fn())
    except ParseError as exc:
        return ("error", (type(exc), str(exc)))


@st.composite
def _outer_texts(draw: st.DrawFn) -> str:
    lines = draw(
        st.lists(
            st.sampled_from(
                [
                    "*** Begin Patch",
                    "*** End Patch",
                    " x\r",
                    "",
                    "\r",
                    "<<EOF",
                    "<<'EOF'",
                    "EOF",
                    " *** End Patch\r",
                    "\ufeff*** Begin Patch",
                ]
            )
            | _LINE,
            max_size=7,
        )
    )
    separator = draw(st.sampled_from(["\n", "\r\n"]))
    return (
        draw(st.sampled_from(["", " \n", "\r\n"]))
        + separator.join(lines)
        + draw(st.sampled_from(["", "\n", "\r\n \t"]))
    )


@FAST
@given(text=st.one_of(_outer_texts(), patch_texts()))
def test_canonical_text_is_the_joined_canonical_lines(text: str) -> None:
    assert _outcome(lambda: canonical_patch_text(text)) == _outcome(
        lambda: "\n".join(canonical_patch_lines(text))
    )


# --------------------------------------------------------------------------------------------
# streaming parser: windows, bulk Add runs, inline diff lines


@contextlib.contextmanager
def _without_fast_paths(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The parser with every shortcut off: each line through the full rules of docs/behaviour.md
    §1.5."""
    with monkeypatch.context() as patched:
        patched.setattr(StreamingPatchParser, "_fast_targets", lambda self: (None, None))
        patched.setattr(
            StreamingPatchParser,
            "_process_text",
            lambda self, text, pos, end: self._process_lines(text[pos : end - 1].split("\n")),
        )
        yield


def _stream(deltas: Sequence[str]) -> tuple[object, ...]:
    parser = StreamingPatchParser()
    snapshots: list[object] = []
    try:
        for delta in deltas:
            snapshots.append(tuple(parser.push_delta(delta)))
        final: object = tuple(parser.finish())
    except ParseError as exc:
        final = (type(exc), str(exc))
    return (final, parser.environment_id, parser.line_number, snapshots)


@st.composite
def _add_heavy_texts(draw: st.DrawFn) -> str:
    lines = ["*** Begin Patch"]
    for _ in range(draw(st.integers(1, 3))):
        lines.append(
            draw(st.sampled_from(["*** Add File: a", "  *** Add File: b ", "*** Add File: c"]))
        )
        body = st.one_of(
            st.tuples(st.just("+"), _LINE).map("".join),
            st.sampled_from(
                [
                    "+",
                    "+*",
                    "+ * *",
                    "+\r",
                    "+x\r\r",
                    "",
                    " +x",
                    "*** End of File",
                    "*x",
                    "-y",
                    "+" + "*" * 40,
                ]
            ),
        )
        lines += draw(st.lists(body, max_size=40))
        if draw(st.booleans()):
            lines += ["*** Update File: u", "@@", " ctx", "-old", "+new"]
    lines.append(draw(st.sampled_from(["*** End Patch", " *** End Patch", "*** End Patch\r"])))
    separator = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return separator.join(lines) + draw(st.sampled_from(["", "\n"]))


@FAST
@given(text=st.one_of(patch_texts(), _add_heavy_texts()), window=st.sampled_from([7, 64, 1 << 16]))
def test_fast_parser_matches_the_line_rules(text: str, window: int) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(streaming, "_WINDOW", window)
        fast_whole = _stream([text])
        fast_lines = _stream(text.splitlines(keepends=True))
        with _without_fast_paths(monkeypatch):
            slow_whole = _stream([text])
            slow_lines = _stream(text.splitlines(keepends=True))
    assert fast_whole == slow_whole
    assert fast_lines == slow_lines


@FAST
@given(text=_add_heavy_texts(), cuts=st.lists(st.integers(0, 400), max_size=8))
def test_fast_parser_matches_the_line_rules_for_any_cuts(text: str, cuts: list[int]) -> None:
    points = sorted({c for c in cuts if c <= len(text)} | {0, len(text)})
    deltas = [text[a:b] for a, b in itertools.pairwise(points)]
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast = _stream(deltas)
        with _without_fast_paths(monkeypatch):
            slow = _stream(deltas)
    assert fast == slow


def test_a_huge_add_is_taken_as_one_piece() -> None:
    body = "".join(f"+line {i} * {'x' * (i % 300)}\r\n" for i in range(5000))
    parser = StreamingPatchParser()
    parser.push_delta(f"*** Begin Patch\n*** Add File: big\n{body}*** End Patch")
    (hunk,) = parser.finish()
    assert isinstance(hunk, AddFile)
    assert hunk.contents == body.replace("\r\n", "\n").replace("\n+", "\n")[1:]
    assert parser.line_number == 5003


def test_an_unchanged_snapshot_is_reused_and_equal_to_a_fresh_one() -> None:
    parser = StreamingPatchParser()
    first = parser.push_delta("*** Begin Patch\n*** Add File: a\n+x")
    assert parser.push_delta("yz") is first
    assert list(parser.push_delta("\n")) != list(first)
    assert isinstance(first[0], AddFile)
    assert first[0].contents == ""


def test_preview_still_waits_for_the_first_hunk() -> None:
    consumer = ApplyPatchArgumentDiffConsumer("c", clock=lambda: 0.0)
    assert consumer.push_delta("*** Begin Patch\n") is None
    assert consumer.push_delta("*** Delete File: a\n") is not None


# --------------------------------------------------------------------------------------------
# text: splitting with terminators


_TEXTS = st.lists(
    st.sampled_from(["a", "bc", "\r", "\n", "\r\n", "\ufeff", "\u2028", "x" * 3000, " "]),
    max_size=30,
).map("".join)


@FAST
@given(text=_TEXTS)
def test_split_terminated_lines_matches_the_line_by_line_split(text: str) -> None:
    assert split_terminated_lines(text) == reference_split(text)


# --------------------------------------------------------------------------------------------
# contents: copying untouched lines


def _reference_new_contents(original: str, chunks: Sequence[UpdateFileChunk]) -> str:
    lines, terminators = reference_split(original)
    preferred = next((t for t in terminators if t), "\n")
    if terminators and not terminators[-1]:
        terminators[-1] = preferred
    out: list[str] = []
    pos = 0
    for start, old_len, new in compute_replacements(lines, "f", chunks, legacy=False):
        while pos < start:
            out += [lines[pos], terminators[pos]]
            pos += 1
        for line in new:
            out += [line, preferred]
        pos = max(pos, start + old_len)
    while pos < len(lines):
        out += [lines[pos], terminators[pos]]
        pos += 1
    return "".join(out)


@FAST
@given(
    lines=st.lists(st.sampled_from(["a", "b", "c", "d", "", "x" * 2000]), min_size=1, max_size=25),
    terminators=st.sampled_from(["\n", "\r\n", "mixed", "lone-cr"]),
    final=st.booleans(),
    data=st.data(),
)
def test_rebuilt_file_matches_the_line_by_line_rebuild(
    lines: list[str], terminators: str, final: bool, data: st.DataObject
) -> None:
    cycle = {"mixed": ["\n", "\r\n"], "lone-cr": ["\n", "\r", "\r\n"]}.get(
        terminators, [terminators]
    )
    original = "".join(line + cycle[i % len(cycle)] for i, line in enumerate(lines))
    if not final:
        original = original.rstrip("\r\n")
    file_lines, _ = reference_split(original)
    chunks = []
    start = 0
    while start < len(file_lines) and data.draw(st.booleans()):
        at = data.draw(st.integers(start, len(file_lines) - 1))
        size = data.draw(st.integers(1, min(3, len(file_lines) - at)))
        old = file_lines[at : at + size]
        new = data.draw(st.lists(st.sampled_from(["N", "M", ""]), max_size=3))
        context = [(0, 0)] if data.draw(st.booleans()) else []
        new_lines = (old[:1] + new) if context else new
        chunks.append(UpdateFileChunk(None, tuple(old), tuple(new_lines), tuple(context)))
        start = at + size
    try:
        expected: object = _reference_new_contents(original, chunks)
    except ApplyPatchError as exc:
        expected = str(exc)
    try:
        actual: object = derive_new_contents(original, "f", chunks, LineEndings.PRESERVE)
    except ApplyPatchError as exc:
        actual = str(exc)
    assert actual == expected


# --------------------------------------------------------------------------------------------
# seek: lazy passes, rejection sets, ASCII rejection, punctuation by replace


def _reference_seek(
    lines: Sequence[str], pattern: Sequence[str], start: int, eof: bool
) -> tuple[int, int] | None:
    normalisers: list[Callable[[str], str]] = [
        lambda s: s,
        lambda s: s.rstrip(RUST_WHITESPACE),
        lambda s: s.strip(RUST_WHITESPACE),
        lambda s: s.strip(RUST_WHITESPACE).translate(PUNCTUATION_TABLE),
    ]
    if not pattern:
        return (start, 0)
    if len(pattern) > len(lines):
        return None
    last = len(lines) - len(pattern)
    first = max(last, start) if eof else start
    for index, norm in enumerate(normalisers):
        want = [norm(p) for p in pattern]
        for i in range(first, last + 1):
            if [norm(x) for x in lines[i : i + len(pattern)]] == want:
                return (i, index)
    return None


_SEEK_LINE = st.lists(
    st.sampled_from(
        ["a", "b", " ", "\t", "\x1c", "'", "\u2019", "-", "\u2014", "\u00a0", "\u3000"]
    ),
    max_size=4,
).map("".join)


@FAST
@given(
    lines=st.lists(_SEEK_LINE, max_size=14),
    searches=st.lists(
        st.tuples(st.lists(_SEEK_LINE, min_size=1, max_size=3), st.integers(0, 14), st.booleans()),
        min_size=1,
        max_size=6,
    ),
)
def test_seek_matches_the_plain_cascade_on_one_haystack(
    lines: list[str], searches: list[tuple[list[str], int, bool]]
) -> None:
    hay = Haystack(lines)  # shared, so that sets built by one search serve the next
    for pattern, start, eof in searches:
        assert seek_sequence(hay, pattern, start, eof) == _reference_seek(
            lines, pattern, start, eof
        )


_TYPOGRAPHIC = str.maketrans({"'": "\u2019", "-": "\u2014", '"': "\u201d", " ": "\u00a0"})
_CODE_LINE = st.tuples(
    st.sampled_from(["", " ", "  ", "\t"]),
    st.lists(st.sampled_from(["a", "b", "'", "-", '"', " ", "\u2019"]), max_size=4).map("".join),
    st.sampled_from(["", " "]),
).map("".join)


@FAST
@given(
    lines=st.lists(_CODE_LINE, min_size=1, max_size=14),
    give_joined=st.booleans(),
    picks=st.lists(
        st.tuples(
            st.integers(0, 13),  # where the pattern is taken from
            st.integers(1, 3),  # its length
            st.sampled_from(["typographic", "typographic, trimmed", "indented", "as is"]),
            st.integers(-1, 14),  # start: -1 for just after the previous match
            st.booleans(),  # batched
        ),
        min_size=1,
        max_size=5,
    ),
)
def test_pass_four_by_text_search_matches_the_plain_cascade(
    lines: list[str], give_joined: bool, picks: list[tuple[int, int, str, int, bool]]
) -> None:
    """Pass 4 first searches the file's text for the pattern's longest line."""
    patterns = []
    for at, length, how, _start, _batched in picks:
        pattern = lines[at % len(lines) :][:length]
        if how.startswith("typographic"):
            pattern = [line.translate(_TYPOGRAPHIC) for line in pattern]
        if how.endswith("trimmed"):
            pattern = [line.strip() for line in pattern]
        if how == "indented":
            pattern = [" " + line for line in pattern]
        patterns.append(pattern)
    hay = Haystack(lines, "\n".join(lines) if give_joined else None)
    batch = PatternBatch(patterns)
    after_previous = 0
    for index, (pattern, (_, _, _, start, batched)) in enumerate(zip(patterns, picks, strict=True)):
        first = after_previous if start < 0 else start
        found = seek_sequence(hay, batch.pattern(index) if batched else pattern, first, False)
        assert found == _reference_seek(lines, pattern, first, False)
        if found is not None:
            after_previous = found[0] + len(pattern)


@FAST
@given(text=st.lists(_SEEK_LINE | _LINE, max_size=10))
def test_punctuation_by_replace_is_translate(text: list[str]) -> None:
    stripped = [line.strip(RUST_WHITESPACE) for line in text] + ["a\nb\u2019"]
    assert list(_punctuation_lines(stripped)) == [s.translate(PUNCTUATION_TABLE) for s in stripped]
    assert list(_punctuation_lines(stripped[:-1])) == [
        s.translate(PUNCTUATION_TABLE) for s in stripped[:-1]
    ]
    for line in stripped:
        assert _map_punctuation(line) == line.translate(PUNCTUATION_TABLE)


# --------------------------------------------------------------------------------------------
# apply: the ASCII shortcut of the UTF-8 check


@pytest.mark.parametrize(
    ("patch", "exit_code"),
    [
        pytest.param("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch", 0, id="ascii"),
        pytest.param("*** Begin Patch\n*** Add File: a\n+\u00e9\n*** End Patch", 0, id="utf8"),
        pytest.param("*** Begin Patch\n*** Add File: a\n+\udcff\n*** End Patch", 1, id="surrogate"),
    ],
)
def test_utf8_check_of_the_patch(patch: str, exit_code: int) -> None:
    fs = MemoryFilesystem()
    fs.create_dirs("/w")
    assert apply_patch(patch, "/w", filesystem=fs).exit_code == exit_code
