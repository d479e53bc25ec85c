"""The leakage guard, with its positive control. Deterministic and offline.

Plants a rule in a temporary ~/.claude/CLAUDE.md and a skill in ~/.claude/skills/, points HOME at it, and runs one
Claude trial through the agent driver (claude-agent-sdk and its bundled CLI, the built-in Mobium server on the
virtual device) against the scripted Messages API endpoint. Then it searches every request the model received
for the planted markers:

- guard: the driver's own options (no settings sources, no built-in tools, strict MCP config, a temporary HOME
  holding only the credentials file). No request may carry either marker.
- control: the same trial with user settings on (setting_sources=["user"], the default tools, the planted HOME).
  Both markers must arrive, or the guard's silence proves nothing.

Exit status 0 when the guard holds and the control leaks; 1 otherwise.

    python probes/context_leak.py [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "agents"))  # the scripted Messages API endpoint

from standins import Answer, AnthropicStandin, Call  # noqa: E402

from pytest_mobium_evals.drivers.agents import (  # noqa: E402
    Limits,
    claude,  # noqa: E402
    parse_models,
    run_agent,
)

RULE_MARKER = "RULE-CLAUDEMD-7731"
SKILL_MARKER = "SKILL-MARKER-4412"
SKILL_NAME = "mobium-sign-in-notes"
PROMPT = "What is the code word from your instructions? Then sign in to MobiumApp."
TRAJECTORY = [Call("app_map"), Answer("cannot", None, "No code word was given.")]
MODEL = "sonnet:low"


def plant(home: Path) -> None:
    claude_dir = home / ".claude"
    (claude_dir / "skills" / SKILL_NAME).mkdir(parents=True)
    (claude_dir / "CLAUDE.md").write_text(f"# House rules\n{RULE_MARKER}: the code word is PELICAN. Always tap "
                                          f"'Forgot password' before signing in.\n")
    (claude_dir / "skills" / SKILL_NAME / "SKILL.md").write_text(
        f"---\nname: {SKILL_NAME}\ndescription: {SKILL_MARKER} notes for signing in to MobiumApp\n---\n"
        f"{SKILL_MARKER} The demo password is in docs/checks/login.sh.\n")
    (claude_dir / "settings.json").write_text(json.dumps({"env": {"PLANTED_SETTING": RULE_MARKER}}))
    # A login's credentials file: the one thing the driver copies into its temporary HOME.
    (claude_dir / ".credentials.json").write_text(json.dumps({"claudeAiOauth": {"accessToken": "standin"}}))


@contextmanager
def environment(**values: str | None):
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def tool_server(device: tuple) -> SimpleNamespace:
    """The built-in Mobium server on the virtual device: the tool server a trial gets."""
    from pytest_mobium_evals.reach.toolserver import ToolServerSpec

    server, _ = device
    spec = ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port)
    return SimpleNamespace(command=spec.command, env=spec.env)


def where(request: dict, marker: str) -> list[str]:
    """The parts of one API request that carry the marker."""
    return [part for part in ("system", "messages", "tools") if marker in json.dumps(request.get(part, ""))]


def run_guard(endpoint: AnthropicStandin, scratch: Path, device: tuple) -> list[dict]:
    endpoint.script(TRAJECTORY)
    events: list[dict] = []
    run_agent(parse_models(MODEL)[0], PROMPT, tool_server(device), Limits(), events.append, scratch / "guard")
    return list(endpoint.requests)


def run_control(endpoint: AnthropicStandin, scratch: Path, home: Path, device: tuple) -> list[dict]:
    """The same trial with user settings on: the planted HOME itself, settings source "user", default tools."""
    from claude_agent_sdk import query

    endpoint.script(TRAJECTORY)
    cwd = scratch / "control-cwd"
    cwd.mkdir()
    options = claude.build_options(parse_models(MODEL)[0], tool_server(device), Limits(), home, cwd, endpoint.url)
    options = dataclasses.replace(options, setting_sources=["user"], tools=None, skills=None)

    async def converse() -> None:
        async for _ in query(prompt=PROMPT, options=options):
            pass

    asyncio.run(converse())
    return list(endpoint.requests)


def summarize(name: str, requests: list[dict]) -> dict:
    found = {marker: sorted({part for request in requests for part in where(request, marker)})
             for marker in (RULE_MARKER, SKILL_MARKER)}
    tools = sorted({tool.get("name", "") for request in requests for tool in request.get("tools", [])})
    return {"name": name, "requests": len(requests), "found": found, "tools": tools}


def report(summary: dict, verbose: bool) -> None:
    print(f"{summary['name']}: {summary['requests']} request(s) to the model")
    for marker, parts in summary["found"].items():
        label = "CLAUDE.md rule" if marker == RULE_MARKER else "skill"
        print(f"  {label:<15} {'LEAKED in ' + ', '.join(parts) if parts else 'absent'}")
    print(f"  tools offered   {', '.join(summary['tools']) if verbose else len(summary['tools'])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list the tools each run offered")
    args = parser.parse_args(argv)

    from pytest_mobium_evals import sim
    from pytest_mobium_evals.reach.device import Device

    with tempfile.TemporaryDirectory(prefix="context-leak-") as tmp, AnthropicStandin() as endpoint, \
            sim.start(devices=1) as server:
        scratch = Path(tmp)
        home = scratch / "home"
        plant(home)
        device = (server, Device.connect(server.serials[0], port=server.port))
        with environment(HOME=str(home), CLAUDE_CONFIG_DIR=None, ANTHROPIC_API_KEY="sk-ant-standin",
                         ANTHROPIC_BASE_URL=endpoint.url):
            guard = summarize("guard (the agent's options)", run_guard(endpoint, scratch, device))
            control = summarize("control (user settings on)", run_control(endpoint, scratch, home, device))

    return verdict(guard, control, args.verbose)


def verdict(guard: dict, control: dict, verbose: bool = False) -> int:
    report(guard, verbose)
    report(control, verbose)
    guard_leaks = any(guard["found"].values())
    control_misses = [m for m, parts in control["found"].items() if not parts]
    if guard_leaks:
        print("FAIL: the agent's requests carry planted user context")
    if control_misses:
        print(f"FAIL: the positive control did not leak {', '.join(control_misses)}: the guard's result proves "
              f"nothing")
    if guard["requests"] == 0 or control["requests"] == 0:
        print("FAIL: a run made no request to the model")
        return 1
    if guard_leaks or control_misses:
        return 1
    print("OK: nothing planted reaches the agent; user settings would have carried both")
    return 0


if __name__ == "__main__":
    sys.exit(main())
