"""What the harness adds to a trial beyond the model's own time and the device's own time. Prints medians.

How it measures. Whole agent trials of t01 (sign-in) run through the harness's own trial function (`trial.run_trial`:
reset, settings before, the agent driver with a fresh tool server, screenshot, settings after, outcome, grade,
verdict.json and transcript.jsonl written) on the virtual device with the built-in Mobium server, the model being
a scripted endpoint that replays the right trajectory (7 turns, 6 tool calls). Per trial:

    model time  = the time the endpoint spent on each request, from its arrival to the reply's last byte, summed
                  (about a millisecond a turn here: a real model's time would replace it, not add to it)
    device time = each tool call's time, from the driver's tool_call event to its tool_result, summed: the
                  tool server doing the work on the device, waits included (t01's sign-in waits 1 s in the app)
    overhead    = the trial's wall time − model time − device time

and the overhead split into: reset (settings restored, app cleared and launched to its menu, settings read), the
driver's start-up (to the first model request: the Claude CLI or the MCP client, and the tool server's start),
the agent's turns (driver and transport work between model and tools, and shutting down), and after (screenshot,
settings after, outcome read, grading, records). Target: overhead under 0.35 s (Ollama, OpenAI-compatible) and
0.7 s (Claude, whose CLI's own start is the rest) on the virtual device; the tool server's start under 0.1 s.

Each figure is printed as the median and, in brackets, the minimum over the trials: on a shared machine the
minimum is the better estimate of what the work itself costs. The load average is printed beside them.

    python probes/bench_overhead.py [--rounds 5] [--providers claude,ollama,openai] [--checkout DIR]

With --checkout, the same bench is first run in that checkout (its own probes/bench_overhead.py and .venv, e.g. an
export of main) and its table printed above this one's, so old and new figures come from one run under the same
load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "agents"))  # the scripted model endpoints

from standins import AnthropicStandin, OllamaStandin, OpenAIStandin, solve_t01  # noqa: E402

from pytest_mobium_evals import sim  # noqa: E402
from pytest_mobium_evals.core.transcript import event_kind  # noqa: E402
from pytest_mobium_evals.drivers import controls as drivers  # noqa: E402
from pytest_mobium_evals.drivers.agents import Limits, parse_models  # noqa: E402
from pytest_mobium_evals.reach.device import Device  # noqa: E402
from pytest_mobium_evals.reach.toolserver import PreparedServer, ToolServerSpec  # noqa: E402
from pytest_mobium_evals.run.trial import TrialEnv, TrialSpec, run_trial  # noqa: E402
from pytest_mobium_evals.runfolder.layout import RunDir  # noqa: E402
from pytest_mobium_evals.suites.catalog import load_task_definitions  # noqa: E402

MODELS = {"claude": "sonnet:low", "ollama": "ollama/qwen2.5:7b", "openai": "openai/local-model"}
# What the harness may add to a trial: the Claude CLI's own start is the difference.
TARGET_S = {"claude": 0.7, "ollama": 0.35, "openai": 0.35}
SERVER_TARGET_S = 0.1
ROWS = ("wall", "model", "device", "overhead", "  reset", "  driver start-up", "  agent turns", "  after")


class TimedRunner:
    """The harness's agent runner, with the driver's start and end and each event stamped on the same clock as the
    endpoint's request times."""

    def __init__(self):
        self.events: list[tuple[float, dict]] = []
        self.span = (0.0, 0.0)

    def __call__(self, setting, prompt, server, limits, on_event, workdir, base_url=None):
        def stamped(event: dict) -> None:
            self.events.append((time.monotonic(), event))
            on_event(event)

        started = time.monotonic()
        try:
            return drivers.run_agent_driver(setting, prompt, server, limits, stamped, workdir, base_url)
        finally:
            self.span = (started, time.monotonic())

    def device_time(self) -> float:
        calls, total = {}, 0.0
        for at, event in self.events:
            if event_kind(event) == "tool_call":
                calls[event.get("id")] = at
            elif event_kind(event) == "tool_result" and event.get("id") in calls:
                total += at - calls.pop(event["id"])
        return total


def one_trial(provider: str, endpoint, base_url, server, device, t01, run_dir: RunDir, repeat: int,
              prepared: PreparedServer) -> dict:
    endpoint.script(solve_t01())
    runner = TimedRunner()
    env = TrialEnv(seed=1, run_dir=run_dir, base_url=base_url, limits=Limits(), agent_runner=runner,
                   server_spec=lambda _device: ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port,
                                                                      prepared=prepared))
    spec = TrialSpec(task=t01, driver="agent", repeat=repeat, model_setting=parse_models(MODELS[provider])[0])
    started = time.monotonic()
    result = run_trial(spec, env, device, t01.outcome)
    wall = time.monotonic() - started
    if result.error is not None or result.verdict != "pass":
        raise SystemExit(f"bench_overhead: {provider} trial {repeat} did not pass "
                         f"({result.verdict}: {result.record.infra_error}): the figures would mean nothing")
    model = sum(end - start for start, end in endpoint.busy)
    device_s = runner.device_time()
    driver_start, driver_end = runner.span
    first_request = min(start for start, _ in endpoint.busy)
    timings = result.record.timings
    return {
        "wall": wall, "model": model, "device": device_s, "overhead": wall - model - device_s,
        "  reset": timings.reset_s,
        "  driver start-up": first_request - driver_start,
        "  agent turns": (driver_end - first_request) - model - device_s,
        "  after": wall - timings.reset_s - (driver_end - driver_start),
    }


def server_alone(spec: ToolServerSpec, rounds: int) -> tuple[float, float]:
    """The built-in tool server by itself, through the mcp SDK's stdio client: medians of its start (spawn to its
    tool list) and its stop (stdin closed to exit). Both are inside every trial's start-up and turns."""
    import asyncio

    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=spec.command[0], args=spec.command[1:], env=spec.env)

    async def once() -> tuple[float, float]:
        with open(os.devnull, "w") as errlog:
            started = time.monotonic()
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await client.list_tools()
                ready = time.monotonic()
            return ready - started, time.monotonic() - ready

    runs = [asyncio.run(once()) for _ in range(rounds)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def endpoint_for(provider: str):
    """The scripted endpoint and how the harness is pointed at it (base URL, or the environment)."""
    if provider == "claude":
        endpoint = AnthropicStandin()
        os.environ["ANTHROPIC_API_KEY"] = "sk-ant-standin"
        os.environ["ANTHROPIC_BASE_URL"] = endpoint.url
        return endpoint, None
    if provider == "ollama":
        endpoint = OllamaStandin()
        os.environ["OLLAMA_HOST"] = endpoint.url
        return endpoint, None
    endpoint = OpenAIStandin()
    return endpoint, endpoint.base_url


def compare_with(checkout: Path, rounds: int, providers: list[str]) -> bool:
    """The other checkout's own bench, run to its end before this one's; its table printed as it is."""
    python, script = checkout / ".venv" / "bin" / "python", checkout / "probes" / "bench_overhead.py"
    missing = [str(path) for path in (python, script) if not path.exists()]
    if missing:
        print(f"bench_overhead: --checkout {checkout}: no {' and no '.join(missing)}", file=sys.stderr)
        return False
    proc = subprocess.run([str(python), str(script), "--rounds", str(rounds), "--providers", ",".join(providers)],
                          cwd=checkout, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"bench_overhead: the bench in {checkout} failed (exit {proc.returncode}): "
              f"{(proc.stderr or proc.stdout).strip()[-600:]}", file=sys.stderr)
        return False
    print(f"--- {checkout} (for comparison) ---\n{proc.stdout.rstrip()}\n--- {ROOT} (this checkout) ---", flush=True)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="trials per provider (default 5)")
    parser.add_argument("--providers", default="claude,ollama,openai", help="comma list of claude, ollama, openai")
    parser.add_argument("--checkout", type=Path, default=None,
                        help="another checkout with its own .venv, measured first for comparison")
    args = parser.parse_args(argv)
    providers = [p.strip() for p in args.providers.split(",") if p.strip()]
    unknown = [p for p in providers if p not in MODELS]
    if unknown or args.rounds < 1:
        print(f"bench_overhead: unknown provider(s) {', '.join(unknown)} (use claude, ollama, openai)" if unknown
              else "bench_overhead: --rounds must be at least 1", file=sys.stderr)
        return 2
    if args.checkout is not None and not compare_with(args.checkout.resolve(), args.rounds, providers):
        return 2

    t01 = load_task_definitions([Path(__file__).resolve().parents[1] / "tasks" / "mobiumapp_tasks"])["t01"]
    results: dict[str, list[dict]] = {}
    load_before = os.getloadavg()[0]
    prepared = PreparedServer()  # as a session makes it, when it leases its device
    with sim.start(devices=1) as server, tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp:
        scratch = server_alone(ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port), args.rounds)
        forked = server_alone(ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port,
                                                     prepared=prepared), args.rounds)
        device = Device.connect(server.serials[0], port=server.port)
        for provider in providers:
            endpoint, base_url = endpoint_for(provider)
            with endpoint:
                results[provider] = [one_trial(provider, endpoint, base_url, server, device, t01,
                                               RunDir(Path(tmp) / provider), repeat, prepared)
                                     for repeat in range(args.rounds)]
    prepared.close()

    print(f"t01 through the harness on the virtual device, scripted model; {args.rounds} trial(s) each, seconds: "
          f"median (min)")
    print(f"{'':<20}" + "".join(f"{p:>18}" for p in providers))
    for row in ROWS:
        cells = []
        for p in providers:
            values = [r[row] for r in results[p]]
            cells.append(f"{statistics.median(values):>9.3f} ({min(values):5.3f})")
        print(f"{row:<20}" + "".join(f"{c:>18}" for c in cells))
    print(f"the built-in tool server alone, start (spawn to tools/list) and stop: forked from the prepared server "
          f"{forked[0]:.3f} s and {forked[1]:.3f} s (what trials use); started from scratch {scratch[0]:.3f} s and "
          f"{scratch[1]:.3f} s")
    load_after = os.getloadavg()[0]
    print(f"load average {load_before:.1f} before, {load_after:.1f} after, on {os.cpu_count()} cores"
          + ("  (a busy machine: the figures are inflated)" if max(load_before, load_after) > (os.cpu_count() or 1)
             else ""))
    over = [p for p in providers if statistics.median(r["overhead"] for r in results[p]) >= TARGET_S[p]]
    targets = ", ".join(f"{p} {TARGET_S[p]:g} s" for p in providers)
    print(f"target: overhead under {targets}; tool server start under {SERVER_TARGET_S:g} s: "
          + ("met" if not over else f"NOT met for {', '.join(over)}")
          + ("" if forked[0] < SERVER_TARGET_S else "; the tool server's start NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
