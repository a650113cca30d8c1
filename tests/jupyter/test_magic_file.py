"""``%apply_patch FILE`` and ``%apply_patch - NAME`` through a real IPython shell: the patch of a
file or of a str variable runs as the same call as ``%%apply_patch``, with the same options and
result; bad input is exactly ``UsageError``, naming the file or the variable."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from applypatch_ext.jupyter.live.result import PatchCallResult
from applypatch_ext.jupyter.magics.magic import ApplyPatchMagics

from ..trees import snapshot_dir
from .conftest import Magic, RecordingWidget


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch", ""])


ADD_A = patch("*** Add File: a.txt", "+alpha")


def file_error(run_magic: Magic, line: str) -> str:
    with pytest.raises(UsageError) as info:
        run_magic.line("apply_patch", line)
    assert type(info.value) is UsageError  # a subclass would print a whole traceback
    return str(info.value)


def test_a_patch_file_runs_as_the_cell_would(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "old.txt").write_text("x\n")
    (tmp_path / "change.patch").write_text(
        patch("*** Add File: a.txt", "+alpha", "*** Delete File: old.txt")
    )
    before = len(RecordingWidget.instances)
    run_magic.line("apply_patch", "change.patch res")
    widget = RecordingWidget.instances[before]
    assert widget.status == "completed"
    res = ip.user_ns["res"]
    assert isinstance(res, PatchCallResult)
    assert res.stdout == "Success. Updated the following files:\nA a.txt\nD old.txt\n"
    assert (tmp_path / "a.txt").read_text() == "alpha\n"
    assert not (tmp_path / "old.txt").exists()


def test_options_after_the_file_are_the_cell_magics(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "change.patch").write_text(ADD_A)
    # --dry-run: nothing written
    before = snapshot_dir(tmp_path)
    run_magic.line("apply_patch", "change.patch planned --dry-run --stream-chunk 0 --no-widget")
    assert ip.user_ns["planned"].status == "dry-run"
    assert snapshot_dir(tmp_path) == before
    # --cwd: the patch applies there; the file itself is found from the kernel's directory
    run_magic.line("apply_patch", "change.patch done --cwd sub --new-turn --no-widget")
    assert ip.user_ns["done"].status == "completed"
    assert (tmp_path / "sub" / "a.txt").read_text() == "alpha\n"
    assert not (tmp_path / "a.txt").exists()


def test_a_quoted_path_and_an_absolute_one(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "my change.patch").write_text(ADD_A)
    run_magic.line("apply_patch", '"my change.patch" first --no-widget')
    assert ip.user_ns["first"].status == "completed"
    (tmp_path / "b.patch").write_text(patch("*** Add File: b.txt", "+beta"))
    run_magic.line("apply_patch", f"{tmp_path / 'b.patch'} second --no-widget")
    assert ip.user_ns["second"].status == "completed"
    assert (tmp_path / "b.txt").read_text() == "beta\n"


def test_a_path_held_in_a_variable_expands(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    """IPython expands ``{name}`` in a line magic: the path itself can come from a variable."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "change.patch").write_text(ADD_A)
    ip.user_ns["where"] = "sub/change.patch"
    run_magic.line("apply_patch", "{where} res --no-widget")
    assert ip.user_ns["res"].status == "completed"
    assert (tmp_path / "a.txt").read_text() == "alpha\n"


def test_a_large_patch_file(run_magic: Magic, ip: InteractiveShell, tmp_path: Path) -> None:
    """What the line magic is for: a patch too large to paste into a cell (~300 KB)."""
    lines = [f"line {i:06d} " + "x" * 30 for i in range(7_000)]
    (tmp_path / "big.patch").write_text(patch("*** Add File: big.txt", *[f"+{t}" for t in lines]))
    assert (tmp_path / "big.patch").stat().st_size > 290_000
    run_magic.line("apply_patch", "big.patch big --stream-chunk 0 --no-widget")
    assert ip.user_ns["big"].status == "completed"
    assert (tmp_path / "big.txt").read_text() == "".join(f"{t}\n" for t in lines)


def test_a_patch_in_a_variable(run_magic: Magic, ip: InteractiveShell, tmp_path: Path) -> None:
    ip.user_ns["change"] = ADD_A
    run_magic.line("apply_patch", "- change res --stream-chunk 0 --no-widget")
    assert ip.user_ns["res"].status == "completed"
    assert (tmp_path / "a.txt").read_text() == "alpha\n"


@pytest.mark.parametrize(
    ("setup", "line", "expected"),
    [
        (None, "missing.patch", "%apply_patch missing.patch: no such file: {tmp}/missing.patch"),
        (
            "dir",
            "somedir",
            "%apply_patch somedir: {tmp}/somedir is a directory; give the patch file itself",
        ),
        (
            "latin1",
            "latin1.patch",
            "%apply_patch latin1.patch: {tmp}/latin1.patch is not UTF-8 text: byte 0xe9 at "
            "line 3, column 5 (offset 40); a patch file must be UTF-8",
        ),
        ("empty", "empty.patch", "%apply_patch empty.patch: the patch is empty; a patch starts "),
        (None, "- nothing", "%apply_patch - nothing: no variable 'nothing' is defined"),
        ("var", "- raw", "%apply_patch - raw: raw holds a bytes, not a str; the patch must be "),
        (None, "-", "%apply_patch -: give the name of the variable holding the patch: "),
        (None, "", "%apply_patch: the patch comes first: %apply_patch FILE [result] [options]"),
        (None, "--dry-run x.patch", "%apply_patch: the patch comes first: "),
        ("ok", "ok.patch --approve maybe", "%apply_patch ok.patch: --approve must be one of "),
        ("ok", "ok.patch res extra", "%apply_patch ok.patch: unrecognized arguments: extra"),
        (
            "unparsable",
            "bad.patch --dry-run",
            "%apply_patch bad.patch: --dry-run: ",
        ),
    ],
)
def test_bad_input_is_a_usage_error_naming_the_file(
    run_magic: Magic,
    ip: InteractiveShell,
    tmp_path: Path,
    setup: str | None,
    line: str,
    expected: str,
) -> None:
    if setup == "dir":
        (tmp_path / "somedir").mkdir()
    elif setup == "latin1":
        (tmp_path / "latin1.patch").write_bytes(
            ADD_A.replace("alpha", "caf\u00e9").encode("latin-1")
        )
    elif setup == "empty":
        (tmp_path / "empty.patch").write_text("\n  \n")
    elif setup == "var":
        ip.user_ns["raw"] = ADD_A.encode()
    elif setup == "ok":
        (tmp_path / "ok.patch").write_text(ADD_A)
    elif setup == "unparsable":
        (tmp_path / "bad.patch").write_text("*** Begin Patch\n*** Frobnicate: x\n")
    before = snapshot_dir(tmp_path)
    message = file_error(run_magic, line)
    assert message.startswith(expected.format(tmp=tmp_path)), message
    assert snapshot_dir(tmp_path) == before


def test_help_lists_the_forms_and_every_option_of_the_cell_magic(ip: InteractiveShell) -> None:
    line = ip.find_line_magic("apply_patch")
    cell = ip.find_cell_magic("apply_patch")
    assert line.__doc__ is not None
    assert "%apply_patch FILE [result] [options]" in line.__doc__
    assert "%apply_patch - NAME [result] [options]" in line.__doc__

    def options(parser: argparse.ArgumentParser) -> set[str]:
        return {s for a in parser._actions for s in a.option_strings}

    assert options(ApplyPatchMagics.apply_patch_file.parser) == options(cell.parser)
    assert "--dry-run" in options(cell.parser)
