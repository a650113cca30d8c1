"""Tests of :mod:`applypatch_ext.core.parse.invocation` against docs/behaviour.md §1.3 and the
``invocation.rs`` list of docs/behaviour.md §9.2, plus the decisions written in the module
docstring.

Expected texts are written out here rather than imported, so that a wrong constant shows up.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from applypatch_ext.core.errors import InvalidHunkError, InvalidPatchError, ParseError
from applypatch_ext.core.parse import invocation
from applypatch_ext.core.parse.invocation import (
    ApplyPatchInvocation,
    ImplicitInvocation,
    ImplicitInvocationError,
    Invocation,
    InvocationParseError,
    NotApplyPatch,
    maybe_parse_apply_patch,
    parse_command_line,
)
from applypatch_ext.core.parse.model import AddFile, ParsedPatch, UpdateFile
from applypatch_ext.core.parse.parser import parse_patch

IMPLICIT = (
    'patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]'
)
PATCH = "*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch"
SINGLE_ADD = (AddFile("foo", "hi\n"),)


def heredoc_script(prefix: str = "", suffix: str = "") -> str:
    return f"{prefix}apply_patch <<'PATCH'\n{PATCH}\nPATCH{suffix}"


def assert_applies(result: Invocation, workdir: str | None = None) -> ApplyPatchInvocation:
    assert isinstance(result, ApplyPatchInvocation), result.describe()
    assert result.parsed.hunks == SINGLE_ADD
    assert result.parsed.patch == PATCH
    assert result.workdir == workdir
    assert result.parsed.workdir == workdir
    assert result.kind == "apply_patch"
    assert not result.is_error
    assert result.message is None
    return result


def assert_not_apply_patch(result: Invocation) -> NotApplyPatch:
    assert isinstance(result, NotApplyPatch), result.describe()
    assert result == NotApplyPatch()
    assert result.reason, "every refusal says why"
    assert result.describe() == f"not an apply_patch invocation: {result.reason}"
    return result


# --- implicit invocation guard ---------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([PATCH], id="bare-patch-argv"),
        pytest.param([f"\n{PATCH}\n"], id="bare-patch-with-blank-lines"),
        pytest.param([f"<<'EOF'\n{PATCH}\nEOF\n"], id="bare-lenient-heredoc"),
        pytest.param(["bash", "-lc", PATCH], id="bash-lc-patch"),
        pytest.param(["bash", "-c", PATCH], id="bash-c-patch"),
        pytest.param(["zsh", "-lc", f"<<EOF\n{PATCH}\nEOF"], id="zsh-lenient-heredoc"),
        pytest.param(["pwsh", "-NoProfile", "-Command", PATCH], id="pwsh-noprofile-patch"),
        pytest.param(["cmd.exe", "/c", PATCH], id="cmd-patch"),
    ],
)
def test_implicit_invocation_is_an_error(argv: list[str]) -> None:
    result = maybe_parse_apply_patch(argv)
    assert result == ImplicitInvocation()
    assert isinstance(result, ImplicitInvocation)
    assert result.kind == "implicit_invocation"
    assert result.is_error
    assert result.message == IMPLICIT
    assert result.describe() == IMPLICIT
    assert isinstance(result.error, ImplicitInvocationError)
    assert str(result.error) == IMPLICIT


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["*** Begin Patch"], id="single-non-patch"),
        pytest.param(["bash", "-lc", "*** Begin Patch\nbad\n*** End Patch"], id="bad-patch-script"),
        pytest.param(["fish", "-c", PATCH], id="unknown-shell"),
    ],
)
def test_only_patches_that_parse_trigger_the_guard(argv: list[str]) -> None:
    assert_not_apply_patch(maybe_parse_apply_patch(argv))


# --- direct form -----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["apply_patch", "applypatch"])
@pytest.mark.parametrize(
    "body",
    [
        pytest.param(PATCH + "\n", id="trailing-newline"),
        pytest.param(PATCH, id="exact"),
        pytest.param(f"<<'EOF'\n{PATCH}\nEOF\n", id="lenient-heredoc"),
        pytest.param(PATCH.replace("\n", "\r\n"), id="crlf"),
    ],
)
def test_literal_invocation(command: str, body: str) -> None:
    result = assert_applies(maybe_parse_apply_patch([command, body]))
    assert result.script is None
    assert result.describe() == "apply_patch with 1 hunk (add foo)"


def test_literal_invocation_accepts_any_sequence() -> None:
    assert_applies(maybe_parse_apply_patch(("apply_patch", PATCH)))


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["Apply_Patch", PATCH], id="case-sensitive"),
        pytest.param(["/usr/bin/apply_patch", PATCH], id="path-not-accepted"),
        pytest.param(["apply_patch"], id="no-argument"),
        pytest.param(["apply_patch", PATCH, "extra"], id="two-arguments"),
        pytest.param([], id="empty-argv"),
        pytest.param(["ls", "-la"], id="other-command"),
    ],
)
def test_literal_invocation_shapes_rejected(argv: list[str]) -> None:
    assert_not_apply_patch(maybe_parse_apply_patch(argv))


def test_literal_invocation_with_invalid_patch() -> None:
    result = maybe_parse_apply_patch(["apply_patch", "bad"])
    assert isinstance(result, InvocationParseError)
    assert isinstance(result.error, InvalidPatchError)
    assert result.kind == "parse_error"
    assert result.is_error
    assert result.message == "invalid patch: The first line of the patch must be '*** Begin Patch'"
    assert result.describe() == (
        "apply_patch invocation whose patch does not parse: "
        "invalid patch: The first line of the patch must be '*** Begin Patch'"
    )


def test_a_string_is_not_an_argv() -> None:
    with pytest.raises(TypeError, match="parse_command_line"):
        maybe_parse_apply_patch("apply_patch")


# --- shells ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prefix",
    [
        pytest.param(["bash", "-lc"], id="bash-lc"),
        pytest.param(["bash", "-c"], id="bash-c"),
        pytest.param(["zsh", "-lc"], id="zsh-lc"),
        pytest.param(["zsh", "-c"], id="zsh-c"),
        pytest.param(["sh", "-c"], id="sh-c"),
        pytest.param(["sh", "-lc"], id="sh-lc"),
        pytest.param(["/usr/bin/bash", "-lc"], id="bash-absolute-path"),
        pytest.param(["bash.exe", "-lc"], id="bash-exe"),
        pytest.param(["BASH.EXE", "-c"], id="bash-upper-case"),
        pytest.param(["/bin/zsh", "-lc"], id="zsh-absolute-path"),
        pytest.param(["powershell.exe", "-Command"], id="powershell-exe"),
        pytest.param(["powershell", "-command"], id="powershell-lower-flag"),
        pytest.param(["powershell.exe", "-NoProfile", "-Command"], id="powershell-noprofile"),
        pytest.param(["pwsh", "-NoProfile", "-Command"], id="pwsh-noprofile"),
        pytest.param(["pwsh", "-Command"], id="pwsh"),
        pytest.param(["PWSH.EXE", "-noprofile", "-COMMAND"], id="pwsh-any-case"),
        pytest.param(["cmd", "/c"], id="cmd"),
        pytest.param(["cmd.exe", "/C"], id="cmd-exe-upper-flag"),
        pytest.param(["C:\\Windows\\System32\\cmd.exe", "/c"], id="cmd-windows-path"),
        pytest.param(["C:/Program Files/PowerShell/7/pwsh.exe", "-Command"], id="pwsh-path"),
    ],
)
def test_heredoc_through_each_shell(prefix: list[str]) -> None:
    script = heredoc_script()
    result = assert_applies(maybe_parse_apply_patch([*prefix, script]))
    assert result.script == script
    assert result.describe() == "apply_patch with 1 hunk (add foo), from a shell heredoc"


@pytest.mark.parametrize(
    "prefix",
    [
        pytest.param(["bash", "-x"], id="bash-other-flag"),
        pytest.param(["bash", "-LC"], id="bash-flag-is-case-sensitive"),
        pytest.param(["bash", "-NoProfile", "-lc"], id="noprofile-only-for-powershell"),
        pytest.param(["cmd", "-c"], id="cmd-dash-c"),
        pytest.param(["pwsh", "-c"], id="pwsh-dash-c"),
        pytest.param(["pwsh", "-NoProfile", "-NoProfile", "-Command"], id="noprofile-twice"),
        pytest.param(["pwsh", "-NoLogo", "-Command"], id="pwsh-other-skip-flag"),
        pytest.param(["fish", "-c"], id="fish"),
        pytest.param(["bashx", "-lc"], id="bash-prefix-name"),
        pytest.param(["bash"], id="no-flag"),
        pytest.param(["env", "bash", "-lc"], id="env-wrapper"),
    ],
)
def test_shell_shapes_rejected(prefix: list[str]) -> None:
    assert_not_apply_patch(maybe_parse_apply_patch([*prefix, heredoc_script()]))


def test_applypatch_alias_in_heredoc() -> None:
    script = heredoc_script().replace("apply_patch", "applypatch", 1)
    assert_applies(maybe_parse_apply_patch(["bash", "-lc", script]))


# --- cd --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "workdir"),
    [
        pytest.param("cd foo && ", "foo", id="bare"),
        pytest.param("cd 'foo bar' && ", "foo bar", id="single-quoted-spaces"),
        pytest.param('cd "foo bar" && ', "foo bar", id="double-quoted-spaces"),
        pytest.param('cd "it\'s" && ', "it's", id="double-quoted-apostrophe"),
        pytest.param("cd 'say \"hi\"' && ", 'say "hi"', id="single-quoted-double-quotes"),
        pytest.param("cd ../x/y && ", "../x/y", id="relative-path"),
        pytest.param("cd /tmp/work && ", "/tmp/work", id="absolute-path"),
        pytest.param('cd "C:\\work dir" && ', "C:\\work dir", id="windows-path-double-quoted"),
        pytest.param("cd 'a$b' && ", "a$b", id="dollar-in-single-quotes"),
        pytest.param("cd é && ", "é", id="non-ascii"),
        pytest.param("cd a=b && ", "a=b", id="equals-sign"),
        pytest.param("cd foo&&", "foo", id="no-blanks"),
        pytest.param("cd foo &&\n", "foo", id="newline-after-and"),
        pytest.param("\n  \n\tcd foo  &&   ", "foo", id="leading-blank-lines"),
    ],
)
def test_cd_sets_workdir(prefix: str, workdir: str) -> None:
    result = maybe_parse_apply_patch(["bash", "-lc", heredoc_script(prefix)])
    assert_applies(result, workdir=workdir)
    assert isinstance(result, ApplyPatchInvocation)
    assert result.describe() == (
        f"apply_patch with 1 hunk (add foo) in directory {workdir!r}, from a shell heredoc"
    )


def test_cd_through_cmd() -> None:
    assert_applies(maybe_parse_apply_patch(["cmd.exe", "/c", heredoc_script("cd foo && ")]), "foo")


def test_workdir_is_kept_unresolved_with_a_move() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: old.txt\n*** Move to: renamed.txt\n@@\n-before\n+after"
    )
    script = f"cd alt && apply_patch <<'PATCH'\n{patch}\n*** End Patch\nPATCH"
    result = maybe_parse_apply_patch(["bash", "-lc", script])
    assert isinstance(result, ApplyPatchInvocation)
    assert result.workdir == "alt"
    assert result.parsed.workdir == "alt"
    [hunk] = result.parsed.hunks
    assert isinstance(hunk, UpdateFile)
    assert (hunk.path, hunk.move_path) == ("old.txt", "renamed.txt")
    assert "update old.txt -> renamed.txt" in result.describe()


# --- refused scripts -------------------------------------------------------------------------

REJECTED_SCRIPTS = [
    pytest.param(heredoc_script("cd foo; "), id="semicolon"),
    pytest.param(heredoc_script("cd bar || "), id="or"),
    pytest.param(heredoc_script("cd bar | "), id="pipe"),
    pytest.param(heredoc_script("cd bar & "), id="background"),
    pytest.param(heredoc_script("echo foo && "), id="echo-and"),
    pytest.param(heredoc_script("echo foo; cd bar && "), id="echo-then-cd"),
    pytest.param(heredoc_script("cd foo && cd bar && "), id="double-cd"),
    pytest.param(heredoc_script("cd foo bar && "), id="cd-two-args"),
    pytest.param(heredoc_script("cd && "), id="cd-no-arg"),
    pytest.param(heredoc_script("cd bar && ", " && echo done"), id="trailing-and-echo"),
    pytest.param(heredoc_script("", "\necho done"), id="command-after-heredoc"),
    pytest.param(heredoc_script("", "\n# done"), id="comment-after-heredoc"),
    pytest.param(heredoc_script("# edit\n"), id="comment-before"),
    pytest.param(heredoc_script("cd foo\n"), id="cd-on-its-own-line"),
    pytest.param(heredoc_script("(cd foo) && "), id="subshell"),
    pytest.param(heredoc_script("FOO=1 "), id="assignment-prefix"),
    pytest.param(heredoc_script('cd "a$b" && '), id="dollar-in-double-quoted-cd"),
    pytest.param(heredoc_script('cd "`pwd`" && '), id="backquote-in-double-quoted-cd"),
    pytest.param(heredoc_script("cd $HOME && "), id="variable-cd"),
    pytest.param(heredoc_script("cd ~/x && "), id="tilde-cd"),
    pytest.param(heredoc_script("cd src/* && "), id="glob-cd"),
    pytest.param(heredoc_script("cd {a,b} && "), id="brace-cd"),
    pytest.param(heredoc_script("cd - && "), id="cd-dash"),
    pytest.param(heredoc_script("cd -P foo && "), id="cd-option"),
    pytest.param(heredoc_script("cd '' && "), id="cd-empty-single-quoted"),
    pytest.param(heredoc_script('cd "" && '), id="cd-empty-double-quoted"),
    pytest.param(heredoc_script("cd 'a'b && "), id="cd-concatenated"),
    pytest.param(heredoc_script("cd a\\ b && "), id="cd-backslash"),
    pytest.param(heredoc_script('cd "a\\"b" && '), id="cd-escape-in-double-quotes"),
    pytest.param(heredoc_script("cd 'foo && "), id="unterminated-quote"),
    pytest.param(heredoc_script("'cd' foo && "), id="quoted-cd"),
    pytest.param(f"apply_patch foo <<'PATCH'\n{PATCH}\nPATCH", id="apply-patch-argument"),
    pytest.param(f"cd x && apply_patch foo <<'PATCH'\n{PATCH}\nPATCH", id="cd-then-argument"),
    pytest.param(f"'apply_patch' <<'PATCH'\n{PATCH}\nPATCH", id="quoted-command"),
    pytest.param(f"apply_patch <<'PATCH'\n{PATCH}\n", id="missing-closing-delimiter"),
    pytest.param(f"apply_patch <<'PATCH'\n{PATCH}\nPATCH ", id="closing-line-trailing-blank"),
    pytest.param(f"apply_patch <<'PATCH'\n{PATCH}\n\tPATCH", id="indented-closing-line"),
    pytest.param(f"apply_patch <<'PATCH'\n{PATCH}\nPATCHX", id="closing-line-longer"),
    pytest.param("apply_patch <<'PATCH'", id="no-body-line"),
    pytest.param(f"apply_patch <<'PATCH' > out\n{PATCH}\nPATCH", id="other-redirection"),
    pytest.param(f"apply_patch <<'A' <<'B'\n{PATCH}\nA\nB", id="two-heredocs"),
    pytest.param(f"apply_patch <<<'{PATCH}'", id="here-string"),
    pytest.param(f'apply_patch <<P"ATC"H\n{PATCH}\nPATCH', id="partly-quoted-delimiter"),
    pytest.param(f"apply_patch <<''\n{PATCH}\n\n", id="empty-delimiter"),
    pytest.param(f"apply_patch <<\n{PATCH}\n", id="no-delimiter"),
    pytest.param(f"apply_patch\n<<'PATCH'\n{PATCH}\nPATCH", id="heredoc-on-next-line"),
    pytest.param(
        heredoc_script().replace("\n", "\r\n"),
        id="crlf-script",
    ),
    pytest.param("", id="empty-script"),
    pytest.param("echo hi", id="other-command"),
]


@pytest.mark.parametrize("script", REJECTED_SCRIPTS)
def test_rejected_scripts(script: str) -> None:
    assert_not_apply_patch(maybe_parse_apply_patch(["bash", "-lc", script]))


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        pytest.param(
            heredoc_script("cd foo; "),
            "the script is not `[cd DIR &&] apply_patch <<DELIM`: "
            "the operator ';' at line 1, column 7",
            id="operator",
        ),
        pytest.param(
            heredoc_script("cd foo && cd bar && "),
            "the script is not `[cd DIR &&] apply_patch <<DELIM`: "
            "'cd' where apply_patch was expected at line 1, column 11",
            id="second-cd",
        ),
        pytest.param(
            f"apply_patch <<'PATCH'\n{PATCH}\n",
            "the script is not `[cd DIR &&] apply_patch <<DELIM`: "
            "a heredoc never closed by a line 'PATCH' at line 1, column 13",
            id="unclosed",
        ),
    ],
)
def test_refusals_say_where(script: str, reason: str) -> None:
    result = maybe_parse_apply_patch(["bash", "-lc", script])
    assert isinstance(result, NotApplyPatch)
    assert result.reason == reason


# --- heredoc bodies and delimiters -----------------------------------------------------------


@pytest.mark.parametrize(
    ("opener", "closer"),
    [
        pytest.param("<<'PATCH'", "PATCH", id="single-quoted"),
        pytest.param('<<"PATCH"', "PATCH", id="double-quoted"),
        pytest.param("<<PATCH", "PATCH", id="bare"),
        pytest.param("<<'EOF'", "EOF", id="eof"),
        pytest.param("<< 'EOF'", "EOF", id="blank-after-operator"),
        pytest.param("<<END_OF_PATCH", "END_OF_PATCH", id="long-word"),
        pytest.param("<<'two words'", "two words", id="quoted-with-space"),
        pytest.param("<<-EOF", "EOF", id="dash-unindented"),
        pytest.param("<<-EOF", "\t\tEOF", id="dash-tab-indented-closer"),
    ],
)
def test_delimiters(opener: str, closer: str) -> None:
    script = f"apply_patch {opener}\n{PATCH}\n{closer}\n"
    assert_applies(maybe_parse_apply_patch(["bash", "-lc", script]))


def test_heredoc_glued_to_command() -> None:
    assert_applies(maybe_parse_apply_patch(["bash", "-lc", f"apply_patch<<EOF\n{PATCH}\nEOF"]))


def test_dash_heredoc_strips_leading_tabs_like_bash() -> None:
    indented = "\n".join("\t" + line for line in PATCH.split("\n"))
    script = f"apply_patch <<-'EOF'\n{indented}\n\tEOF"
    assert_applies(maybe_parse_apply_patch(["bash", "-lc", script]))


def test_plain_heredoc_keeps_tabs() -> None:
    patch = "*** Begin Patch\n*** Add File: t\n+\tindented\n*** End Patch"
    result = maybe_parse_apply_patch(["bash", "-lc", f"apply_patch <<EOF\n{patch}\nEOF"])
    assert isinstance(result, ApplyPatchInvocation)
    assert result.parsed.hunks == (AddFile("t", "\tindented\n"),)


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("+EOF", id="added-delimiter"),
        pytest.param("+EOFX", id="added-longer"),
        pytest.param("+ EOF", id="added-indented"),
        pytest.param("+cat <<EOF", id="added-nested-heredoc"),
        pytest.param("+$HOME `pwd` \\n", id="expansions-kept-verbatim"),
    ],
)
def test_body_lines_that_resemble_the_delimiter_or_expand(line: str) -> None:
    patch = f"*** Begin Patch\n*** Add File: s.sh\n{line}\n*** End Patch"
    result = maybe_parse_apply_patch(["bash", "-lc", f"apply_patch <<EOF\n{patch}\nEOF"])
    assert isinstance(result, ApplyPatchInvocation)
    assert result.parsed.hunks == (AddFile("s.sh", line[1:] + "\n"),)


def spy_on_parse_patch(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []

    def spy(text: str) -> ParsedPatch:
        seen.append(text)
        return parse_patch(text)

    monkeypatch.setattr(invocation, "parse_patch", spy)
    return seen


@pytest.mark.parametrize(
    "script",
    [
        pytest.param(
            f"apply_patch <<'PATCH'\n{PATCH}\n\n\n\nPATCH", id="blank-lines-before-closer"
        ),
        pytest.param(f"apply_patch <<'PATCH'\n{PATCH}\nPATCH\n\n  \n", id="blank-lines-after"),
        pytest.param(f"apply_patch <<'PATCH'\n{PATCH}\nPATCH", id="closer-at-end"),
    ],
)
def test_trailing_newlines_of_the_body_are_removed(
    monkeypatch: pytest.MonkeyPatch, script: str
) -> None:
    seen = spy_on_parse_patch(monkeypatch)
    assert_applies(maybe_parse_apply_patch(["bash", "-lc", script]))
    # The first call is the implicit-invocation guard on the whole script.
    assert seen[-1] == PATCH


def test_body_keeps_leading_and_inner_blank_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = spy_on_parse_patch(monkeypatch)
    body = "\n  \n*** Begin Patch\n\n*** Add File: foo\n+hi\n*** End Patch  "
    maybe_parse_apply_patch(["bash", "-lc", f"apply_patch <<'X'\n{body}\n\nX"])
    assert seen[-1] == body


@pytest.mark.parametrize(
    ("body", "message", "line"),
    [
        pytest.param(
            "*** Begin Patch\n*** Update File: a\n*** End Patch",
            "invalid hunk at line 2, Update file hunk for path 'a' is empty",
            2,
            id="empty-update",
        ),
        pytest.param(
            "*** Begin Patch\nbad\n*** End Patch",
            "invalid hunk at line 2, 'bad' is not a valid hunk header. Valid hunk headers: "
            "'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
            2,
            id="bad-header",
        ),
        pytest.param(
            "*** Begin Patch\n*** Add File: foo\n+hi",
            "invalid patch: The last line of the patch must be '*** End Patch'",
            None,
            id="no-end-marker",
        ),
        pytest.param(
            "",
            "invalid patch: The last line of the patch must be '*** End Patch'",
            None,
            id="empty-body",
        ),
    ],
)
def test_invalid_patch_in_heredoc(body: str, message: str, line: int | None) -> None:
    script = f"cd foo && apply_patch <<'PATCH'\n{body}\nPATCH"
    result = maybe_parse_apply_patch(["bash", "-lc", script])
    assert isinstance(result, InvocationParseError)
    assert isinstance(result.error, ParseError)
    assert result.message == message == str(result.error)
    assert result.error.line_number == line
    if line is not None:
        assert isinstance(result.error, InvalidHunkError)


def test_describe_lists_hunks_and_environment() -> None:
    patch = (
        "*** Begin Patch\n*** Environment ID: remote\n*** Add File: a\n+x\n"
        "*** Delete File: b\n*** Update File: c\n@@\n-y\n+z\n*** End Patch"
    )
    result = maybe_parse_apply_patch(["apply_patch", patch])
    assert result.describe() == (
        "apply_patch with 3 hunks (add a, delete b, update c) for environment 'remote'"
    )
    empty = maybe_parse_apply_patch(["apply_patch", "*** Begin Patch\n*** End Patch"])
    assert empty.describe() == "apply_patch with 0 hunks"


# --- parse_command_line ----------------------------------------------------------------------

HEREDOC = f"apply_patch <<'EOF'\n{PATCH}\nEOF"
BARE_HEREDOC = f"apply_patch <<EOF\n{PATCH}\nEOF"  # fits in single quotes
ESCAPED_HEREDOC = HEREDOC.replace("'", "'\\''")  # the usual way to quote ' inside '...'


@pytest.mark.parametrize(
    ("text", "workdir"),
    [
        pytest.param(HEREDOC, None, id="heredoc"),
        pytest.param(HEREDOC.replace("apply_patch", "applypatch"), None, id="applypatch"),
        pytest.param(f"\n  {HEREDOC}\n\n", None, id="surrounding-blank-lines"),
        pytest.param(f"cd foo && {HEREDOC}", "foo", id="cd"),
        pytest.param(f"cd 'my dir' && {HEREDOC}", "my dir", id="cd-quoted"),
        pytest.param(f"bash -lc '{BARE_HEREDOC}'", None, id="bash-lc-single"),
        pytest.param(f"bash -lc '{ESCAPED_HEREDOC}'", None, id="bash-lc-escaped-single-quotes"),
        pytest.param(f'bash -c "{HEREDOC}"', None, id="bash-c-double"),
        pytest.param(f'sh -c "cd \\"a b\\" && {HEREDOC}"', "a b", id="sh-escaped-double-quotes"),
        pytest.param(f"/bin/zsh -lc '{BARE_HEREDOC}'", None, id="zsh-path"),
        pytest.param(f'pwsh -NoProfile -Command "{HEREDOC}"', None, id="pwsh-noprofile"),
        pytest.param(f'cmd /c "cd foo && {HEREDOC}"', "foo", id="cmd"),
    ],
)
def test_parse_command_line_recognises(text: str, workdir: str | None) -> None:
    assert_applies(parse_command_line(text), workdir=workdir)


def test_parse_command_line_keeps_the_script() -> None:
    result = parse_command_line(f"cd foo && {HEREDOC}\n")
    assert isinstance(result, ApplyPatchInvocation)
    assert result.script == f"cd foo && {HEREDOC}\n"
    nested = parse_command_line(f'bash -lc "{HEREDOC}"')
    assert isinstance(nested, ApplyPatchInvocation)
    assert nested.script == HEREDOC


def test_parse_command_line_errors() -> None:
    broken = parse_command_line("apply_patch <<'EOF'\n*** Begin Patch\nbad\n*** End Patch\nEOF")
    assert isinstance(broken, InvocationParseError)
    assert broken.error.line_number == 2
    assert parse_command_line(f"bash -lc '{PATCH}'") == ImplicitInvocation()


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(PATCH, id="raw-patch"),
        pytest.param(f"  \n{PATCH}\n", id="raw-patch-padded"),
        pytest.param(f"<<'EOF'\n{PATCH}\nEOF", id="lenient-heredoc"),
        pytest.param(f"<<EOF\n{PATCH}\nEOF", id="lenient-heredoc-bare"),
        pytest.param("", id="empty"),
        pytest.param("   \n", id="blank"),
        pytest.param("ls -la", id="other-command"),
        pytest.param(f"apply_patch '{PATCH}'", id="apply-patch-quoted-argument"),
        pytest.param(f"apply_patch\n{PATCH}", id="apply-patch-then-patch"),
        pytest.param("cd", id="cd-alone"),
        pytest.param(f"cd foo; {HEREDOC}", id="cd-semicolon"),
        pytest.param(f"bash -lc '{BARE_HEREDOC}'; rm x", id="command-after"),
        pytest.param(f"bash -lc '{BARE_HEREDOC}';rm x", id="glued-command-after"),
        pytest.param(f"bash -lc '{BARE_HEREDOC}' extra", id="extra-word"),
        pytest.param(f'bash -lc "cd $HOME && {HEREDOC}"', id="expansion-in-double-quotes"),
        pytest.param("bash -lc apply_patch", id="unquoted-script"),
        pytest.param(f"bash -lc\n'{BARE_HEREDOC}'", id="newline-before-script"),
        pytest.param(f"bash -x '{BARE_HEREDOC}'", id="wrong-flag"),
        pytest.param(f"fish -c '{BARE_HEREDOC}'", id="unknown-shell"),
        pytest.param(f"bash -lc 'echo hi && {BARE_HEREDOC}'", id="echo-first"),
        pytest.param("bash -lc 'unterminated", id="unterminated-quote"),
    ],
)
def test_parse_command_line_not_apply_patch(text: str) -> None:
    assert_not_apply_patch(parse_command_line(text))


def test_parse_command_line_raw_patch_reason() -> None:
    result = parse_command_line(PATCH)
    assert isinstance(result, NotApplyPatch)
    assert result.reason == "a raw patch, not a shell command; parse it with parse_patch"


# --- properties ------------------------------------------------------------------------------

LINE_TEXT = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\r"))


@settings(derandomize=True, max_examples=200, deadline=None, database=None)
@given(
    lines=st.lists(LINE_TEXT, max_size=6),
    delimiter=st.from_regex(r"[A-Z_]{1,8}", fullmatch=True),
    quote=st.sampled_from(["", "'", '"']),
)
def test_heredoc_body_round_trips(lines: list[str], delimiter: str, quote: str) -> None:
    patch = "\n".join(["*** Begin Patch", "*** Add File: f", *("+" + x for x in lines)])
    patch += "\n*** End Patch"
    script = f"apply_patch <<{quote}{delimiter}{quote}\n{patch}\n{delimiter}\n"
    result = maybe_parse_apply_patch(["bash", "-lc", script])
    assert isinstance(result, ApplyPatchInvocation)
    assert result.parsed == parse_patch(patch)


DIRECTORY = st.text(
    st.characters(blacklist_categories=["Cs", "Cc"], blacklist_characters="'\""), min_size=1
).filter(lambda d: not d.startswith("-"))


@settings(derandomize=True, max_examples=200, deadline=None, database=None)
@given(directory=DIRECTORY)
def test_single_quoted_cd_round_trips(directory: str) -> None:
    result = maybe_parse_apply_patch(["bash", "-lc", heredoc_script(f"cd '{directory}' && ")])
    assert_applies(result, workdir=directory)


@settings(derandomize=True, max_examples=300, deadline=None, database=None)
@given(script=st.text(st.sampled_from(list("ab cd&|;<>'\"\\$`#\n\t-EOF_*{~"))) | st.text())
def test_arbitrary_text_never_raises(script: str) -> None:
    for result in (
        maybe_parse_apply_patch(["bash", "-lc", script]),
        maybe_parse_apply_patch([script]),
        parse_command_line(script),
        parse_command_line(f"bash -lc {script}"),
    ):
        assert result.kind in {
            "not_apply_patch",
            "apply_patch",
            "parse_error",
            "implicit_invocation",
        }
        assert isinstance(result.describe(), str)
