"""The benchmark's workloads, generated from a fixed seed (issue 6, workloads a-g).

Every workload is an input tree, a patch, and the tree the patch must leave behind, computed
here from the generated edits (not by running any implementation), so that every tool timed on
it can also be checked against it. Lines look like code: about 50 characters, each with ASCII
quotes and a dash, so that the punctuation variant of (g) can replace them in every line.

Nothing here times anything or imports the package under test.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

SEED = 20261129

#: The typographic forms that the punctuation variant of (g) puts in the patch (pass 4 maps them
#: back to ASCII).
TYPOGRAPHIC = str.maketrans({"'": "\u2019", '"': "\u201d", "-": "\u2013"})

_WORDS = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma",
    "omega", "buffer", "cursor", "index", "offset", "length", "parser", "reader", "writer",
    "handler", "config", "result", "value", "status", "record", "stream", "chunk", "token",
    "marker", "header", "context", "target", "source", "branch", "commit",
]  # fmt: skip

Tree = dict[str, bytes]


@dataclass
class Workload:
    """One benchmark input: the tree before, the patch, and the tree it must produce."""

    name: str
    title: str
    before: Tree
    patch: str
    after: Tree
    notes: list[str] = field(default_factory=list)

    def involved_bytes(self) -> int:
        """Patch plus every file the patch touches, before and after (the memory yardstick)."""
        touched = {
            p for p in set(self.before) | set(self.after) if self.before.get(p) != self.after.get(p)
        }
        return len(self.patch.encode()) + sum(
            len(self.before.get(p, b"")) + len(self.after.get(p, b"")) for p in touched
        )


class LineMaker:
    """Code-like lines, unique except for a few common ones, all with quotes and a dash."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.counter = 0

    def line(self) -> str:
        rng = self.rng
        self.counter += 1
        if rng.random() < 0.04:
            return rng.choice(("    return result - 1  # 'done'", '    log("step") - 0'))
        a, b, c = rng.sample(_WORDS, 3)
        indent = " " * rng.choice((0, 4, 4, 8, 8, 12))
        return f"{indent}{a}_{self.counter} = {b}('{c}', \"{rng.randrange(1000)}\") - {b}_{c}"

    def lines(self, n: int) -> list[str]:
        return [self.line() for _ in range(n)]


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


@dataclass
class _Chunk:
    at: int  # index of the first removed line (or of the insertion point)
    removed: int
    added: list[str]


def _plan_chunks(rng: random.Random, maker: LineMaker, n_lines: int, n_chunks: int) -> list[_Chunk]:
    """``n_chunks`` edits, one in each equal slice of the file, at least 3 lines from its ends."""
    size = n_lines // n_chunks
    chunks = []
    for k in range(n_chunks):
        lo = k * size + 3
        hi = (k + 1) * size - 7
        at = rng.randrange(lo, max(hi, lo + 1))
        chunks.append(_Chunk(at, rng.randint(1, 3), maker.lines(rng.randint(1, 3))))
    return chunks


def _apply_chunks(lines: list[str], chunks: list[_Chunk]) -> list[str]:
    out: list[str] = []
    pos = 0
    for chunk in chunks:
        out.extend(lines[pos : chunk.at])
        out.extend(chunk.added)
        pos = chunk.at + chunk.removed
    out.extend(lines[pos:])
    return out


def _update_body(
    file_lines: list[str],
    chunks: list[_Chunk],
    *,
    context: int = 3,
    context_form: str = "exact",
) -> list[str]:
    """The ``@@`` chunks of an Update; ``context_form`` rewrites the patch's context lines.

    ``exact`` copies the file; ``whitespace`` adds trailing blanks to every context line;
    ``typographic`` writes context and removed lines with typographic quotes and dashes where
    the file has ASCII ones.
    """
    out: list[str] = []
    for chunk in chunks:
        out.append("@@")
        before = file_lines[chunk.at - context : chunk.at]
        removed = file_lines[chunk.at : chunk.at + chunk.removed]
        after = file_lines[chunk.at + chunk.removed : chunk.at + chunk.removed + context]
        for group, prefix in ((before, " "), (removed, "-"), (chunk.added, "+"), (after, " ")):
            for line in group:
                text = line
                if prefix != "+" and context_form == "typographic":
                    text = text.translate(TYPOGRAPHIC)
                if prefix == " " and context_form == "whitespace":
                    text = text + (" \t" if len(text) % 2 else "   ")
                out.append(prefix + text)
    return out


def _patch(body: list[str]) -> str:
    return "*** Begin Patch\n" + "".join(line + "\n" for line in body) + "*** End Patch\n"


def big_update(seed: int = SEED, *, context_form: str = "exact") -> Workload:
    """(a) one 20,000-line file, one Update with 200 chunks of 3 context lines each side.

    ``context_form`` gives the fuzzy variants of (g), on the same file: ``whitespace`` or
    ``typographic`` (the patch's context and removed lines use typographic quotes and dashes).
    """
    rng = random.Random(seed)
    maker = LineMaker(rng)
    lines = maker.lines(20_000)
    chunks = _plan_chunks(rng, maker, len(lines), 200)
    file_lines = lines
    body = ["*** Update File: src/big_module.py"]
    body += _update_body(file_lines, chunks, context_form=context_form)
    name = {"exact": "a", "whitespace": "g-ws", "typographic": "g-punct"}[context_form]
    title = {
        "exact": "(a) 20,000 lines, 200 chunks",
        "whitespace": "(g) as (a), context differs by trailing whitespace",
        "typographic": "(g) as (a), context differs by Unicode punctuation",
    }[context_form]
    return Workload(
        name,
        title,
        {"src/big_module.py": _text(file_lines).encode()},
        _patch(body),
        {"src/big_module.py": _text(_apply_chunks(file_lines, chunks)).encode()},
    )


def many_files(seed: int = SEED + 1) -> Workload:
    """(b) 500 files of 20 lines in one patch: 167 Add, 167 Update (one chunk), 166 Delete."""
    rng = random.Random(seed)
    maker = LineMaker(rng)
    before: Tree = {}
    after: Tree = {}
    body: list[str] = []
    kinds = ["add"] * 167 + ["update"] * 167 + ["delete"] * 166
    rng.shuffle(kinds)
    for i, kind in enumerate(kinds):
        path = f"pkg{i % 10}/module_{i:03d}.py"
        lines = maker.lines(20)
        if kind == "add":
            body.append(f"*** Add File: {path}")
            body.extend("+" + line for line in lines)
            after[path] = _text(lines).encode()
        elif kind == "delete":
            before[path] = _text(lines).encode()
            body.append(f"*** Delete File: {path}")
        else:
            before[path] = _text(lines).encode()
            chunk = _Chunk(rng.randrange(3, 14), rng.randint(1, 3), maker.lines(rng.randint(1, 3)))
            body.append(f"*** Update File: {path}")
            body += _update_body(lines, [chunk])
            after[path] = _text(_apply_chunks(lines, [chunk])).encode()
    return Workload("b", "(b) 500 files: 167 A, 167 M, 166 D", before, _patch(body), after)


def big_add(seed: int = SEED + 2) -> Workload:
    """(c) one Add File of about 2 MB (40,000 lines)."""
    maker = LineMaker(random.Random(seed))
    lines = maker.lines(40_000)
    body = ["*** Add File: data/generated.py", *("+" + line for line in lines)]
    return Workload(
        "c",
        "(c) Add File, 40,000 lines",
        {},
        _patch(body),
        {"data/generated.py": _text(lines).encode()},
    )


def typical_edit(seed: int = SEED + 3) -> Workload:
    """(d) a typical edit: a 400-line file, 3 chunks."""
    rng = random.Random(seed)
    maker = LineMaker(rng)
    lines = maker.lines(400)
    chunks = _plan_chunks(rng, maker, len(lines), 3)
    body = ["*** Update File: app/views.py", *_update_body(lines, chunks)]
    return Workload(
        "d",
        "(d) 400-line file, 3 chunks",
        {"app/views.py": _text(lines).encode()},
        _patch(body),
        {"app/views.py": _text(_apply_chunks(lines, chunks)).encode()},
    )


def multi_file_stream(seed: int = SEED + 4, target_bytes: int = 1 << 20) -> str:
    """(e) a patch of about 1 MB over many files: Adds of 200 lines and Updates of 10 chunks."""
    rng = random.Random(seed)
    maker = LineMaker(rng)
    body: list[str] = []
    size = 0
    i = 0
    while size < target_bytes:
        if i % 2 == 0:
            new = [f"*** Add File: gen/file_{i}.py", *("+" + line for line in maker.lines(200))]
        else:
            lines = maker.lines(400)
            new = [f"*** Update File: src/file_{i}.py"]
            new += _update_body(lines, _plan_chunks(rng, maker, len(lines), 10))
        body += new
        size += sum(len(line) + 1 for line in new)
        i += 1
    return _patch(body)


def rewrite_pair(seed: int = SEED + 5, n_lines: int = 48_000) -> tuple[str, str]:
    """(f) a 48,000-line file and a complete rewrite of it (no line in common)."""
    maker = LineMaker(random.Random(seed))
    old = maker.lines(n_lines)
    new = [line + " + 1" for line in maker.lines(n_lines)]
    return _text(old), _text(new)


def slow_verification(n_lines: int = 200_000, n_context: int = 2_000) -> Workload:
    """(h) a context that does not match a large file: every seek pass fails everywhere.

    A generated table of 400 kB, one value per line and nearly all of them 0 (a sparse
    vector, a fixture, a counter dump), and a 6 kB patch whose one chunk carries 2,000 context
    lines of ``0`` copied from it and one removed line that is not in the file. Every position
    of the file matches the context up to that line, in each of the four passes: the
    reference compares about 400 million line pairs per pass, and the explanation of the
    failure used to weigh every (chunk line, file line) pair. The patch fails; nothing changes.
    """
    values = ["0"] * n_lines
    for k in range(1, n_lines, 9_973):  # a few non-zero values, as a real table has
        values[k] = str(k % 7 + 1)
    chunk = ["@@", *(" 0" for _ in range(n_context)), "-9", "+1"]
    body = ["*** Update File: data/table.txt", *chunk]
    tree = {"data/table.txt": _text(values).encode()}
    return Workload(
        "h",
        "(h) 400 kB table, context not in it (every pass fails)",
        tree,
        _patch(body),
        dict(tree),
    )


def all_apply_workloads() -> list[Workload]:
    """(a)-(d), the workloads timed against the peers."""
    return [big_update(), many_files(), big_add(), typical_edit()]
