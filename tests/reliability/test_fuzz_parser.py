"""Parser fuzzing (issue 7, item 1): hostile text never raises anything but ``ParseError``, and
the batch parser and the streaming parser agree on every input.

"Agree" means: the streaming parser fed the canonical text (docs/behaviour.md §1.2 step 4) in any
cuts gives exactly what ``parse_patch`` gives (the same hunks and environment id, or the same error
kind, text and line number); fed the raw text, its result does not depend on the cuts; and where the
raw text already is canonical the two agree directly (not merely up to a final newline: a final line
``*** End Patch`` without newline ends the patch in any mode, docs/behaviour.md §2.3, so ``...End
Patch\n*** End Patch`` parses while the same with a newline after it does not).

Two sources of inputs:

* a hypothesis property over an adversarial alphabet (markers, misspelt markers, NUL, lone
  surrogates, Unicode whitespace, CR, heredoc wrappers, random text);
* a corpus-driven run over every conformance patch (the reference's and ours) with seeded
  mutations: truncation, duplicated / swapped / dropped lines, random bytes, huge lines, NUL, lone
  surrogates, CR, and every marker misspelt in every way of :func:`misspellings`.

The corpus mutants also go through the preview consumer, the standalone ``apply_patch`` and the
whole pipeline (in memory on the scenario's input tree, and for a quarter of them also on the
real disk): none of them may raise.
"""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Callable, Iterator, Sequence
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.apply.standalone import apply_patch
from applypatch_ext.core.errors import ParseError
from applypatch_ext.core.parse.model import (
    ADD_FILE_MARKER,
    BEGIN_PATCH_MARKER,
    DELETE_FILE_MARKER,
    END_PATCH_MARKER,
    ENVIRONMENT_ID_MARKER,
    EOF_MARKER,
    MOVE_TO_MARKER,
    UPDATE_FILE_MARKER,
    Hunk,
    render_patch,
)
from applypatch_ext.core.parse.parser import canonical_patch_lines, parse_patch
from applypatch_ext.core.parse.streaming import StreamingPatchParser
from applypatch_ext.core.turn.events import ApplyPatchApprovalRequest
from applypatch_ext.core.turn.options import CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.policy import PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.preview import ApplyPatchArgumentDiffConsumer
from applypatch_ext.core.turn.turn import Turn

from ..scenarios import Scenario, find_scenarios
from ..trees import copy_tree, load_memory
from ._support import FIGURES, SCALE, scaled

ROOT = "/work"
SEED = 20260707

Outcome = tuple[object, ...]


def _outcome(run: Callable[[], tuple[Sequence[Hunk], str | None]]) -> Outcome:
    """Hunks and environment id, or the error's kind, text and line. Only ParseError is caught:
    any other exception fails the test where it happens."""
    try:
        hunks, environment_id = run()
    except ParseError as error:
        return ("error", type(error).__name__, str(error), error.line_number)
    return ("ok", tuple(hunks), environment_id)


def batch(text: str) -> Outcome:
    def run() -> tuple[Sequence[Hunk], str | None]:
        parsed = parse_patch(text)
        return parsed.hunks, parsed.environment_id

    return _outcome(run)


def streamed(deltas: Sequence[str]) -> Outcome:
    def run() -> tuple[Sequence[Hunk], str | None]:
        parser = StreamingPatchParser()
        for delta in deltas:
            parser.push_delta(delta)
        return tuple(parser.finish()), parser.environment_id

    return _outcome(run)


def cut(text: str, rng: random.Random, pieces: int) -> list[str]:
    bounds = sorted(rng.randrange(len(text) + 1) for _ in range(pieces))
    return [text[a:b] for a, b in pairwise([0, *bounds, len(text)])]


def splits(text: str, rng: random.Random) -> Iterator[list[str]]:
    """Whole, a few random cuts, every line alone, and (if short) character by character."""
    yield [text]
    for pieces in (1, 3, 17):
        yield cut(text, rng, pieces)
    yield text.splitlines(keepends=True)
    if len(text) <= 2_000:
        yield list(text)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.2
        return self.now


def check_parsers_agree(text: str, rng: random.Random) -> Outcome:
    """The properties of the module docstring for one input; returns the batch outcome."""
    FIGURES["parser inputs tried"] += 1
    expected = batch(text)
    try:
        canonical: str | None = "\n".join(canonical_patch_lines(text))
    except ParseError as error:
        assert expected == ("error", type(error).__name__, str(error), error.line_number)
        canonical = None
    if canonical is not None:
        for deltas in splits(canonical, rng):
            assert streamed(deltas) == expected, deltas
    raw = streamed([text])
    for deltas in splits(text, rng):
        assert streamed(deltas) == raw, deltas
    if text == canonical:
        assert raw == expected
    # The preview consumer swallows parse errors and never raises.
    consumer = ApplyPatchArgumentDiffConsumer("fuzz", throttle=0.5, clock=Clock())
    for delta in cut(text, rng, 5):
        consumer.push_delta(delta)
    consumer.finish()
    if expected[0] == "ok":
        hunks, environment_id = expected[1], expected[2]
        assert isinstance(hunks, tuple)
        assert isinstance(environment_id, str | None)
        FIGURES["parser inputs that parsed"] += 1
        again = parse_patch(render_patch(hunks, environment_id))
        assert (again.hunks, again.environment_id) == (hunks, environment_id)
    return expected


# -- the hypothesis property ------------------------------------------------------------------

MARKERS = (
    BEGIN_PATCH_MARKER,
    END_PATCH_MARKER,
    ADD_FILE_MARKER,
    DELETE_FILE_MARKER,
    UPDATE_FILE_MARKER,
    MOVE_TO_MARKER,
    EOF_MARKER,
    ENVIRONMENT_ID_MARKER,
    "@@",
    "@@ ",
)


def misspellings(marker: str) -> list[str]:
    """Every deletion, doubling and case flip of one character, and a few typical slips."""
    out: set[str] = set()
    for i, char in enumerate(marker):
        out.add(marker[:i] + marker[i + 1 :])
        out.add(marker[:i] + char + marker[i:])
        if char.swapcase() != char:
            out.add(marker[:i] + char.swapcase() + marker[i + 1 :])
    for a, b in pairwise(range(len(marker))):
        out.add(marker[:a] + marker[b] + marker[a] + marker[b + 1 :])
    out.update(
        {
            marker.upper(),
            marker.lower(),
            marker.replace(":", ";"),
            marker.replace(" ", "  "),
            marker.replace(" ", "\t"),
            marker.replace("*", "\u2217"),
            "\u3000" + marker,
            marker + "\x00",
        }
    )
    out.discard(marker)
    return sorted(out)


_SURROGATES = ("\ud800", "\udfff", "\udc80")
_ODD = ("\x00", "\r", "\x0b", "\x85", "\u2028", "\u3000", "\ufeff", "\u00a0", "\t", *_SURROGATES)

_ATOMS = st.sampled_from(
    [
        *MARKERS,
        *[m + "a.txt" for m in (ADD_FILE_MARKER, DELETE_FILE_MARKER, UPDATE_FILE_MARKER)],
        MOVE_TO_MARKER + "b.txt",
        ENVIRONMENT_ID_MARKER + " env",
        "@@ ctx",
        "",
        " ",
        "+",
        "-",
        "+x",
        "-x",
        " x",
        "<<EOF",
        "<<'EOF'",
        'EOF"',
        "EOF",
        " *** End Patch",
        "\t*** Update File: c",
        "*** Add File:  spaced",
        "+\x00nul",
        "*** Add File: a\x00b",
    ]
)
_MISSPELT = st.sampled_from([bad for marker in MARKERS for bad in misspellings(marker)])
_RANDOM_LINE = st.text(
    alphabet=st.one_of(
        st.sampled_from(" +-*@:<>'\"EOFabc"), st.sampled_from(_ODD), st.characters()
    ),
    max_size=12,
)
_LINE = st.one_of(_ATOMS, _ATOMS, _MISSPELT, _RANDOM_LINE)


@st.composite
def hostile_texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(_LINE, max_size=14))
    if draw(st.booleans()):
        lines = [BEGIN_PATCH_MARKER, *lines, END_PATCH_MARKER]
    separator = draw(st.sampled_from(["\n", "\n", "\r\n", "\r\r\n", "\r"]))
    text = separator.join(lines)
    wrapper = draw(st.sampled_from(["none", "none", "newline", "blank", "heredoc"]))
    if wrapper == "newline":
        text += separator
    elif wrapper == "blank":
        text = f" \n{text}\n\u3000"
    elif wrapper == "heredoc":
        text = f"<<'EOF'\n{text}\nEOF"
    return text


@settings(
    derandomize=True,
    max_examples=scaled(500),
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(text=hostile_texts(), seed=st.integers(0, 2**32 - 1))
def test_hostile_text_only_raises_parse_errors_and_both_parsers_agree(text: str, seed: int) -> None:
    check_parsers_agree(text, random.Random(seed))


# -- the corpus-driven run ----------------------------------------------------------------------

SCENARIOS = find_scenarios()


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _join(lines: list[str]) -> str:
    return "\n".join(lines)


def mutate(text: str, rng: random.Random) -> tuple[str, str]:
    """One random mutation of a patch text: (name, mutant)."""
    lines = _lines(text)
    kind = rng.choice(MUTATIONS)
    if kind == "truncate":
        return kind, text[: rng.randrange(len(text) + 1)]
    if kind == "duplicate-line":
        i = rng.randrange(len(lines))
        return kind, _join(lines[: i + 1] + lines[i:])
    if kind == "swap-lines":
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return kind, _join(lines)
    if kind == "drop-line":
        del lines[rng.randrange(len(lines))]
        return kind, _join(lines)
    if kind == "random-bytes":
        pos = rng.randrange(len(text) + 1)
        noise = rng.randbytes(rng.randint(1, 16)).decode("utf-8", "surrogateescape")
        return kind, text[:pos] + noise + text[pos:]
    if kind == "huge-line":
        i = rng.randrange(len(lines) + 1)
        head = rng.choice(["+", "-", " ", "@@ ", "*** Add File: ", ""])
        lines.insert(i, head + rng.choice("xé \t*") * rng.randint(10_000, 10_000 * min(SCALE, 10)))
        return kind, _join(lines)
    if kind == "nul":
        pos = rng.randrange(len(text) + 1)
        return kind, text[:pos] + "\x00" + text[pos:]
    if kind == "lone-surrogate":
        pos = rng.randrange(len(text) + 1)
        return kind, text[:pos] + rng.choice(_SURROGATES) + text[pos:]
    if kind == "carriage-returns":
        return kind, text.replace("\n", rng.choice(["\r\n", "\r", "\r\r\n", "\n\r"]))
    raise AssertionError(kind)


MUTATIONS = (
    "truncate",
    "duplicate-line",
    "swap-lines",
    "drop-line",
    "random-bytes",
    "huge-line",
    "nul",
    "lone-surrogate",
    "carriage-returns",
)


def misspelt_mutants(text: str) -> Iterator[tuple[str, str]]:
    """For every marker line of the patch, that line with the marker misspelt every way."""
    lines = _lines(text)
    for i, line in enumerate(lines):
        stripped = line.strip()
        for marker in MARKERS:
            if marker == "@@ " or not stripped.startswith(marker):
                continue
            at = line.index(marker)
            for bad in misspellings(marker):
                yield (
                    f"misspelt {marker.strip()!r}",
                    _join(
                        [*lines[:i], line[:at] + bad + line[at + len(marker) :], *lines[i + 1 :]]
                    ),
                )
            break


def decline_escalation(request: ApplyPatchApprovalRequest) -> Decision:
    return Decision.DECLINE if request.retry else Decision.APPROVE


def run_everything(scenario: Scenario, text: str, *, on_disk: bool = False) -> None:
    """The standalone tool and the whole pipeline: results, never exceptions.

    In memory always; ``on_disk`` also runs the pipeline in a fresh temporary directory, in the
    workspace-write profile with every escalation declined, so that nothing can leave it.
    """
    fs = load_memory(scenario.input, ROOT)
    result = apply_patch(text, ROOT, filesystem=fs)
    if result.exit_code == 0:
        assert result.stdout.startswith("Success.") and result.stderr == ""
    else:
        assert result.exit_code == 1
        assert result.stdout == "" and result.stderr.endswith("\n")
    fs = load_memory(scenario.input, ROOT)
    options = PipelineOptions(
        sandbox=SandboxPolicy(
            PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
        )
    )
    call = Turn(ROOT, options=options, filesystem=fs, clock=Clock()).run(text, "approve")
    assert call.status in tuple(CallStatus)
    FIGURES["mutants run through apply_patch and the pipeline"] += 1
    if on_disk:
        with tempfile.TemporaryDirectory() as scratch:
            root = str(Path(scratch).resolve() / "root")
            copy_tree(scenario.input, Path(root))
            turn = Turn(root, options=options, filesystem=LocalFilesystem(), clock=Clock())
            call = turn.run(text, decline_escalation)
            assert call.status in tuple(CallStatus)
            assert sorted(os.listdir(scratch)) == ["root"]
        FIGURES["mutants run through the pipeline on disk"] += 1


# Hundreds of mutants per scenario (~4 s in all): make test and make fuzz run it, make check does
# not (the hostile-text property test above stays in make check).
@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_corpus_mutants(scenario: Scenario) -> None:
    rng = random.Random(f"{SEED}/{scenario.id}")
    original = scenario.patch
    check_parsers_agree(original, rng)
    run_everything(scenario, original)
    for _ in range(scaled(25)):
        name, mutant = mutate(original, rng)
        FIGURES[f"mutation {name}"] += 1
        check_parsers_agree(mutant, rng)
        run_everything(scenario, mutant, on_disk=rng.random() < 0.25)
    misspelt = list(misspelt_mutants(original))
    # Every misspelling of every marker of this patch under `make fuzz`; a seeded sample (each
    # marker still misspelt several ways) in the normal run.
    if SCALE == 1 and len(misspelt) > 60:
        misspelt = rng.sample(misspelt, 60)
    for _name, mutant in misspelt:
        FIGURES["mutation misspelt marker"] += 1
        check_parsers_agree(mutant, rng)
        if rng.random() < 0.1 * SCALE:
            run_everything(scenario, mutant)


def test_every_marker_has_misspellings_in_the_corpus() -> None:
    """The corpus contains every marker, so each is misspelt by ``test_corpus_mutants``."""
    seen = set()
    for scenario in SCENARIOS:
        for name, _ in misspelt_mutants(scenario.patch):
            seen.add(name)
    assert {f"misspelt {m.strip()!r}" for m in MARKERS if m != "@@ "} <= seen
