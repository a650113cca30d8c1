"""How an agent attaches to the desk: ready-to-paste configuration for Codex, Claude Code and
Jupyter AI, and, for the tests and notebook 11, a real Codex CLI run against the desk (the
binary from PyPI's ``openai-codex-cli-bin``, installed into a cache folder, never into the
environment) with a stand-in or a real model (standard library only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: The environment variable the configurations read the desk's token from.
TOKEN_ENV: Final = "APPLYPATCH_DESK_TOKEN"
#: Seconds Codex lets an MCP tool call run (its default, 60, is shorter than a person's review).
TOOL_TIMEOUT: Final = 3600
CODEX_PACKAGE: Final = "openai-codex-cli-bin"
#: Where notebook 11 and the tests keep the Codex binary (default: ~/.cache/applypatch_ext).
CACHE_ENV: Final = "APPLYPATCH_CACHE"
CODEX_VERSION: Final = "0.163.0"


def codex_toml(name: str, url: str) -> str:
    """Codex's ``config.toml`` table for the desk at ``url``."""
    return (
        f"[mcp_servers.{name}]\n"
        f'url = "{url}"\n'
        f'bearer_token_env_var = "{TOKEN_ENV}"\n'
        f"tool_timeout_sec = {TOOL_TIMEOUT}\n"
        "# the person at the desk reviews each patch: Codex need not ask again\n"
        'default_tools_approval_mode = "approve"\n'
    )


def claude_code_command(name: str, url: str) -> str:
    """The ``claude mcp add`` command for the desk."""
    return (
        f"claude mcp add --transport http {name} {url} "
        f'--header "Authorization: Bearer ${TOKEN_ENV}"'
    )


#: Where Jupyter AI (3.x) reads the MCP servers it hands to its agents: at the workspace's root.
JUPYTER_AI_SETTINGS: Final = ".jupyter/mcp_settings.json"


def jupyter_ai_json(name: str, url: str, token: str) -> str:
    """Jupyter AI's :data:`JUPYTER_AI_SETTINGS` with the desk in it: an ``mcp_servers`` list
    whose HTTP entry has a ``type``, a ``name``, the ``url`` and its ``headers`` as a list of
    ``name``/``value`` pairs (the schema of Jupyter AI's persona manager, the Agent Client
    Protocol's). The token is written out: the file takes no environment variable."""
    header = {"name": "Authorization", "value": f"Bearer {token}"}
    entry = {"type": "http", "name": name, "url": url, "headers": [header]}
    return json.dumps({"mcp_servers": [entry]}, indent=2)


def default_cache() -> Path:
    """``$APPLYPATCH_CACHE``, else ``~/.cache/applypatch_ext``."""
    given = os.environ.get(CACHE_ENV)
    return Path(given) if given else Path.home() / ".cache" / "applypatch_ext"


def codex_binary(cache: Path, version: str = CODEX_VERSION) -> Path:
    """The Codex binary of ``version``, installed from PyPI into ``cache`` on first use (the
    one ``make conformance`` caches in ``codex-ref`` is taken when it is that version)."""
    for folder in (cache / f"codex-{version}", cache / "codex-ref"):
        found = folder / "codex_cli_bin" / "bin" / "codex"
        if found.is_file() and (folder / f"openai_codex_cli_bin-{version}.dist-info").is_dir():
            return found
    target = cache / f"codex-{version}"
    binary = target / "codex_cli_bin" / "bin" / "codex"
    if not binary.is_file():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--target",
                str(target),
                f"{CODEX_PACKAGE}=={version}",
            ],
            check=True,
        )
    if not binary.is_file():
        raise FileNotFoundError(f"no codex binary in {target}")
    return binary


@dataclass(frozen=True)
class CodexRun:
    """One ``codex exec`` and what it left: its exit code, output and rollout file."""

    returncode: int
    stdout: str
    stderr: str
    rollout: Path | None

    def rollout_items(self) -> list[dict[str, object]]:
        """The rollout file's ``response_item`` payloads, in order."""
        if self.rollout is None:
            return []
        items = []
        for line in self.rollout.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("type") == "response_item":
                items.append(record["payload"])
        return items


def codex_home(home: Path, *, desk_name: str, desk_url: str, model_url: str | None) -> Path:
    """Write a ``CODEX_HOME`` whose config attaches the desk and, with ``model_url``, uses the
    stand-in model (otherwise Codex's own provider and the user's API key)."""
    home.mkdir(parents=True, exist_ok=True)
    lines = ['approval_policy = "never"', 'sandbox_mode = "read-only"']
    if model_url is not None:
        lines = [
            'model = "gpt-5.5"',
            'model_provider = "standin"',
            *lines,
            "",
            "[model_providers.standin]",
            'name = "stand-in Responses API"',
            f'base_url = "{model_url}"',
            'wire_api = "responses"',
            'env_key = "STANDIN_API_KEY"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
        ]
    config = "\n".join(lines) + "\n\n" + codex_toml(desk_name, desk_url)
    (home / "config.toml").write_text(config, encoding="utf-8")
    return home


def run_codex(
    binary: Path,
    home: Path,
    workdir: Path,
    prompt: str,
    token: str,
    *,
    api_key: str | None = None,
    timeout: float = 600,
) -> CodexRun:
    """``codex exec PROMPT`` in ``workdir`` with ``home`` as its ``CODEX_HOME``."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home.parent),
        "CODEX_HOME": str(home),
        TOKEN_ENV: token,
        "STANDIN_API_KEY": "dummy",
        "RUST_LOG": "error",
    }
    if api_key is not None:
        env["OPENAI_API_KEY"] = api_key
    done = subprocess.run(
        [str(binary), "exec", "--skip-git-repo-check", prompt],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    rollouts = sorted(home.glob("sessions/*/*/*/rollout-*.jsonl"))
    return CodexRun(done.returncode, done.stdout, done.stderr, rollouts[-1] if rollouts else None)
