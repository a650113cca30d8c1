"""Make the rollout fixtures of tests/data/rollouts/ with the real Codex binary.

The Codex CLI (``codex exec``) is pointed at a stand-in Responses API server of ours on
127.0.0.1 (``applypatch_ext.desk.standin``: a standard-library ``http.server`` that streams SSE
events: ``response.created``, ``response.output_item.done`` for each scripted output item,
``response.completed``). Each
scenario scripts the model's side of a session: tool calls in the forms Codex accepts for
apply_patch (a ``custom_tool_call`` named ``apply_patch``; a ``function_call`` running a shell
with ``bash -lc "cd sub && apply_patch <<'EOF' ..."``), a context mismatch, and two turns (the
second one through ``codex exec resume --last``). Codex runs the calls for real in a scratch
project, writes its rollout file under ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``, and
this script copies that file to ``tests/data/rollouts/<version>/<scenario>.jsonl`` together with
the project tree as it was before the session (``<scenario>.before/``), which the tests replay
against.

The binary comes from PyPI (``openai-codex-cli-bin``, installed with ``pip --target`` into
``<cache>/codex-<version>``, never into the virtual environment), the way tools/conformance.py
installs the reference. Usage::

    .venv/bin/python tools/make_rollouts.py --cache .cache [--version 0.163.0 ...]

No network is used beyond pip: the server listens on 127.0.0.1 only, the API key is a dummy.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from applypatch_ext.desk.clients import codex_binary
from applypatch_ext.desk.standin import Item, ScriptedModel, function_call, message

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "data" / "rollouts"
# notebooks/08_replay_a_codex_session.ipynb replays this one (its data/ folder must stay flat)
NOTEBOOK_SESSION = ("0.163.0", "session")
NOTEBOOK_COPY = REPO / "notebooks" / "data" / "codex_session.txt"
VERSIONS = ("0.163.0", "0.147.0", "0.47.0")
NPM_PACKAGE = "@openai/codex"
# Which model each version is told to use: one its bundled catalog knows with the freeform
# apply_patch tool, so the requests carry the tools that model gets from Codex.
MODELS = {"0.163.0": "gpt-5.5", "0.147.0": "gpt-5.5", "0.47.0": "gpt-5-codex"}
# The shell tool each version offers that model (read from the requests' `tools`): unified
# exec's `exec_command` (a `cmd` string) or the older `shell` (a `command` argv).
SHELL_TOOLS = {"0.163.0": "exec_command", "0.147.0": "exec_command", "0.47.0": "shell"}

# --- the scripted model ----------------------------------------------------------------------


def custom_call(call_id: str, patch: str) -> Item:
    return {
        "type": "custom_tool_call",
        "id": f"ctc_{call_id}",
        "status": "completed",
        "call_id": call_id,
        "name": "apply_patch",
        "input": patch,
    }


@dataclass
class Scenario:
    """The model's answers, one list of output items per request, turn after turn."""

    name: str
    before: dict[str, str]
    prompts: list[str]
    # responses[turn][request] -> output items
    responses: list[list[list[Item]]]


ADD_NOTES = """*** Begin Patch
*** Add File: notes.txt
+first note
+second note
*** End Patch"""

UPDATE_APP = """*** Begin Patch
*** Update File: app.cfg
@@ [server]
-debug = true
+debug = false
*** End Patch"""

MISMATCH = """*** Begin Patch
*** Update File: app.cfg
@@
-this line is not in the file
+replacement
*** End Patch"""

SUB_PATCH = """*** Begin Patch
*** Update File: lib.cfg
@@
-value = 1
+value = 2
*** Add File: extra.txt
+made from sub
*** End Patch"""

SECOND_TURN = """*** Begin Patch
*** Update File: notes.txt
@@
 first note
-second note
+second note, edited in turn two
*** Delete File: old.txt
*** End Patch"""

# No .py files: the trees live in the repository, where ruff would lint them.
BEFORE = {
    "app.cfg": "[server]\ndebug = true\n",
    "old.txt": "to be deleted\n",
    "sub/lib.cfg": "value = 1\n",
}


def shell_heredoc(workdir: str | None, patch: str) -> str:
    cd = f"cd {workdir} && " if workdir else ""
    return f"{cd}apply_patch <<'EOF'\n{patch}\nEOF\n"


def session_scenario(tool: str) -> Scenario:
    return Scenario(
        name="session",
        before=BEFORE,
        prompts=["Add notes, fix app.cfg and bump lib.cfg", "Edit the notes, drop old.txt"],
        responses=[
            [
                [custom_call("call_add", ADD_NOTES)],
                [custom_call("call_mismatch", MISMATCH)],
                [custom_call("call_update", UPDATE_APP)],
                [shell_call(tool, "call_shell", shell_heredoc("sub", SUB_PATCH))],
                [message("Done: notes added, app.cfg fixed, lib.cfg bumped.")],
            ],
            [
                [custom_call("call_turn2", SECOND_TURN)],
                [message("Edited the notes and removed old.txt.")],
            ],
        ],
    )


def shell_argv(script: str) -> list[str]:
    return ["bash", "-lc", script]


def shell_call(tool: str, call_id: str, script: str, workdir: str | None = None) -> Item:
    """A shell tool call running ``script`` in the form ``tool`` takes."""
    args: dict[str, Any]
    if tool == "shell":
        args = {"command": shell_argv(script)}
    elif tool == "shell_command":
        args = {"command": script}
    else:
        args = {"cmd": script}
    if workdir is not None:
        args["workdir"] = workdir
    return function_call(call_id, tool, args)


def shell_forms_scenario(tool: str) -> Scenario:
    """Every shell shape the tool takes: heredoc without cd, with cd, with a workdir argument,
    and (for the argv ``shell`` tool) ``["apply_patch", patch]``."""
    add_a = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch"
    add_b = "*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch"
    add_c = "*** Begin Patch\n*** Add File: c.txt\n+c\n*** End Patch"
    add_d = "*** Begin Patch\n*** Add File: d.txt\n+d\n*** End Patch"
    requests = [
        [shell_call(tool, "call_heredoc", shell_heredoc(None, add_a))],
        [shell_call(tool, "call_cd", shell_heredoc("sub", add_b))],
        [shell_call(tool, "call_workdir", shell_heredoc(None, add_c), workdir="sub")],
    ]
    if tool == "shell":
        requests.append([function_call("call_argv", "shell", {"command": ["apply_patch", add_d]})])
    return Scenario(
        name="shell_forms",
        before={"sub/keep.txt": "keep\n"},
        prompts=["Make a.txt and files in sub"],
        responses=[[*requests, [message("Made a.txt and the files in sub.")]]],
    )


# --- running Codex ---------------------------------------------------------------------------


def install(cache: Path, version: str) -> Path:
    """The codex binary of ``version``: PyPI's wheel, or npm's package for older versions."""
    if version.startswith("0.4"):
        return install_npm(cache, version)
    return codex_binary(cache, version)


def install_npm(cache: Path, version: str) -> Path:
    """``npm pack @openai/codex@VERSION`` into the cache, unpacked; its vendored Linux binary."""
    target = cache / "npm" / f"codex-{version}"
    binary = target / "package" / "vendor" / "x86_64-unknown-linux-musl" / "codex" / "codex"
    if not binary.is_file():
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "pack", "--silent", f"{NPM_PACKAGE}@{version}"], cwd=target, check=True
        )
        tarball = next(target.glob("openai-codex-*.tgz"))
        subprocess.run(["tar", "xzf", tarball.name], cwd=target, check=True)
        tarball.unlink()
    return binary


def config_toml(base_url: str, model: str) -> str:
    return f"""model = "{model}"
model_provider = "standin"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.standin]
name = "stand-in Responses API"
base_url = "{base_url}"
wire_api = "responses"
env_key = "STANDIN_API_KEY"
request_max_retries = 0
stream_max_retries = 0
"""


def session_id(home: Path) -> str:
    """The id in the ``session_meta`` line of the session's (single) rollout file."""
    (rollout,) = home.glob("sessions/*/*/*/rollout-*.jsonl")
    with rollout.open(encoding="utf-8") as handle:
        first = json.loads(handle.readline())
    return str(first["payload"]["id"])


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")


def run_scenario(
    binary: Path, model: str, scenario: Scenario, out_dir: Path, *, probe: bool
) -> None:
    script = ScriptedModel().start()
    with tempfile.TemporaryDirectory(prefix="rollout-") as scratch:
        home = Path(scratch) / "codex-home"
        project = Path(scratch) / "project"
        home.mkdir()
        project.mkdir()
        (home / "config.toml").write_text(config_toml(script.base_url, model), encoding="utf-8")
        write_tree(project, scenario.before)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(Path(scratch)),
            "CODEX_HOME": str(home),
            "STANDIN_API_KEY": "dummy",
            "RUST_LOG": "error",
        }
        for turn, prompt in enumerate(scenario.prompts):
            script.play(scenario.responses[turn])
            cmd = [str(binary), "exec", "--skip-git-repo-check"]
            if turn > 0:
                # resume by id (0.47 reads `--last PROMPT` as a session id)
                cmd += ["resume", session_id(home)]
            cmd += [prompt]
            result = subprocess.run(
                cmd, cwd=project, env=env, capture_output=True, text=True, timeout=120
            )
            print(f"  turn {turn + 1}: exit {result.returncode}")
            if result.returncode != 0 or probe:
                print(result.stdout[-3000:])
                print(result.stderr[-3000:])
        script.stop()
        if probe:
            for request in script.requests:
                tools = [t.get("name") or t.get("type") for t in request.get("tools", [])]
                print("  request tools:", tools)
        rollouts = sorted(home.glob("sessions/*/*/*/rollout-*.jsonl"))
        if len(rollouts) != 1:
            raise SystemExit(f"expected one rollout file, found {rollouts}")
        out_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(rollouts[0], out_dir / f"{scenario.name}.jsonl")
        before = out_dir / f"{scenario.name}.before"
        if before.exists():
            shutil.rmtree(before)
        write_tree(before, scenario.before)
        after = out_dir / f"{scenario.name}.after"
        if after.exists():
            shutil.rmtree(after)
        shutil.copytree(project, after)
        # What Codex sent back: the tools offered (names) and the input items other than
        # messages (the calls and their outputs, in the Responses API's own shapes).
        requests = [
            {
                "tools": [t.get("name") or t.get("type") for t in r.get("tools", [])],
                "input": [i for i in r.get("input", []) if i.get("type") != "message"],
            }
            for r in script.requests
        ]
        (out_dir / f"{scenario.name}.requests.json").write_text(
            json.dumps(requests, indent=1) + "\n", encoding="utf-8"
        )


def freeform_commands_scenario() -> Scenario:
    """The freeform apply_patch tool given a shell command instead of a patch (with and
    without ``cd``, inside ``bash -lc``), and a bare heredoc, which the parser's lenient mode
    takes: what Codex answers to each (the desk's tool must answer the same)."""
    add = "*** Begin Patch\n*** Add File: {}\n+x\n*** End Patch"
    return Scenario(
        name="freeform_commands",
        before={"sub/keep.txt": "keep\n"},
        prompts=["Add files with the freeform tool"],
        responses=[
            [
                [custom_call("call_heredoc", shell_heredoc(None, add.format("h.txt")))],
                [custom_call("call_cd", shell_heredoc("sub", add.format("c.txt")))],
                [
                    custom_call(
                        "call_bash",
                        shlex.join(shell_argv(shell_heredoc("sub", add.format("b.txt")))),
                    )
                ],
                [custom_call("call_bare", f"<<'EOF'\n{add.format('bare.txt')}\nEOF\n")],
                [message("Tried four inputs.")],
            ]
        ],
    )


def scenarios_for(version: str) -> list[Scenario]:
    tool = SHELL_TOOLS[version]
    return [session_scenario(tool), shell_forms_scenario(tool), freeform_commands_scenario()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=REPO / ".cache")
    parser.add_argument("--version", action="append", default=[])
    parser.add_argument("--scenario", action="append", default=[], help="only these (names)")
    parser.add_argument("--probe", action="store_true", help="print Codex's output and tools")
    args = parser.parse_args()
    for version in args.version or VERSIONS:
        binary = install(args.cache.resolve(), version)
        print(f"codex {version}: {binary}")
        for scenario in scenarios_for(version):
            if args.scenario and scenario.name not in args.scenario:
                continue
            print(f" scenario {scenario.name}")
            run_scenario(binary, MODELS[version], scenario, OUT / version, probe=args.probe)
        if version == NOTEBOOK_SESSION[0] and (
            not args.scenario or NOTEBOOK_SESSION[1] in args.scenario
        ):
            shutil.copyfile(OUT / version / f"{NOTEBOOK_SESSION[1]}.jsonl", NOTEBOOK_COPY)
            print(f" copied to {NOTEBOOK_COPY.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
