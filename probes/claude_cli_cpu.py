"""The Claude CLI's own CPU in an agent trial, exactly, and whether a change to how it is started changes what the
model is sent. Offline: the harness's Claude driver (claude-agent-sdk and its bundled CLI, the options the harness
builds), the built-in Mobium server on a virtual device, and the scripted Messages API stand-in.

bench_scale.py --agent samples every process twice a second, so a CLI loses its last half second (its answer and
its exit) and the figure is a lower bound. Here the CLI is started through a launcher that waits for it to exit
without reaping it (waitid with WNOWAIT) and reads its user and system time from /proc then: its own threads, all of
them, and not its children (the tool server it starts). Each trial is t01 solved in six tool calls and an answer
(seven requests), or with --answer-at-once one request answered at once: the CLI's start with the tool server
connected and its tools listed, and nothing else.

--with NAME=VALUE (environment variables) and --with-flag FLAG (CLI flags) make a second arm, run trial by trial in
turn with the first (so both share the machine's load). For each trial the first request the model gets is kept,
and the second arm's are compared with the first's: system prompt, tools and messages (the trial's own scratch path
and the date read alike; the metadata's ids and the headers aside). A knob that changes what the model reads is
reported as such, whatever it saves.

    python probes/claude_cli_cpu.py [--trials 4] [--turn-seconds 2-4] [--answer-at-once]
                                    [--with NAME=VALUE ...] [--with-flag FLAG ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import stat
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "agents"))  # the scripted Messages API endpoint

from standins import Answer, AnthropicStandin, solve_t01  # noqa: E402

from pytest_mobium_evals.drivers.agents import Limits, claude, parse_models, run_agent  # noqa: E402

PROMPT = ("In MobiumApp, open the Login Demo and sign in with the demo account: username mobium, "
          "password hunter2.")
MODEL = "haiku:low"
APP = "dev.mobium.mobiumapp"

# The launcher the SDK starts in place of the CLI: it runs the real CLI with the arm's flags and variables, passes
# on the signals the SDK sends to stop it, and at the CLI's exit, before reaping it, appends its CPU seconds.
LAUNCHER = '''#!{python}
import json, os, signal, subprocess, sys
cli = subprocess.Popen([{cli!r}, *sys.argv[1:], *{flags!r}], env={{**os.environ, **{env!r}}})
for number in (signal.SIGTERM, signal.SIGINT):
    signal.signal(number, lambda signum, frame: cli.send_signal(signum))
os.waitid(os.P_PID, cli.pid, os.WEXITED | os.WNOWAIT)
fields = open(f"/proc/{{cli.pid}}/stat").read().rsplit(")", 1)[1].split()
tick = os.sysconf("SC_CLK_TCK")
with open({out!r}, "a") as out:
    out.write(json.dumps({{"user": int(fields[11]) / tick, "sys": int(fields[12]) / tick}}) + "\\n")
sys.exit(cli.wait())
'''


def bundled_cli() -> tuple[str, str]:
    """The bundled CLI's path and version, as the SDK finds them."""
    import claude_agent_sdk
    from claude_agent_sdk._cli_version import __cli_version__

    return str(Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"), __cli_version__


def write_launcher(folder: Path, name: str, cli: str, flags: list[str], env: dict[str, str]) -> tuple[Path, Path]:
    launcher, out = folder / f"launch-{name}", folder / f"cpu-{name}.jsonl"
    launcher.write_text(LAUNCHER.format(python=sys.executable, cli=cli, flags=flags, env=env, out=str(out)))
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    return launcher, out


class Paced(AnthropicStandin):
    """The stand-in, each reply after a seeded wait drawn from [low, high] seconds (none by default)."""

    def __init__(self, low: float, high: float, seed: int):
        self.low, self.high, self.rng = low, high, random.Random(seed)
        self.draw = threading.Lock()
        super().__init__()

    def _post(self, handler, body):
        with self.draw:
            wait = self.rng.uniform(self.low, self.high)
        time.sleep(wait)
        super()._post(handler, body)


SCRATCH = re.compile(r"/[^\s\"']*/claude-[a-z0-9_]+/cwd")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def what_the_model_reads(request: dict) -> dict:
    """The parts of a request the model reads: system prompt, tools, messages. The trial's scratch folder (a new
    temporary name each trial) and the date are read alike."""
    text = json.dumps({part: request.get(part) for part in ("system", "tools", "messages")}, sort_keys=True)
    return json.loads(DATE.sub("DATE", SCRATCH.sub("SCRATCH/cwd", text)))


def differences(base: dict, other: dict) -> list[str]:
    """Which parts of what the model reads differ between two first requests."""
    a, b = what_the_model_reads(base), what_the_model_reads(other)
    return [part for part in ("system", "tools", "messages") if a[part] != b[part]]


def parse_env(items: list[str]) -> dict[str, str]:
    env = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--with {item}: expected NAME=VALUE")
        env[name] = value
    return env


def parse_span(text: str) -> tuple[float, float]:
    try:
        low, _, high = text.partition("-")
        span = float(low), float(high or low)
    except ValueError:
        raise ValueError(f"--turn-seconds {text}: expected seconds, or LOW-HIGH") from None
    if span[0] < 0 or span[1] < span[0]:
        raise ValueError(f"--turn-seconds {text}: expected 0 <= LOW <= HIGH")
    return span


def run(trials: int, span: tuple[float, float], answer_at_once: bool, arms: dict[str, tuple[list, dict]],
        seed: int = 7) -> dict:
    """Each arm's CPU figures and first requests, the arms run trial by trial in turn."""
    from pytest_mobium_evals import sim
    from pytest_mobium_evals.reach.device import Device
    from pytest_mobium_evals.reach.toolserver import ToolServerSpec

    cli, _ = bundled_cli()
    trajectory = [Answer("done", None, "Nothing to do.")] if answer_at_once else solve_t01()
    setting = parse_models(MODEL)[0]
    results = {name: {"first": [], "requests": []} for name in arms}
    build_options = claude.build_options
    saved = {name: os.environ.get(name) for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                                                    "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN")}
    with tempfile.TemporaryDirectory(prefix="claude-cli-cpu-") as tmp, Paced(*span, seed) as api, \
            sim.start(devices=1, clock_speed=4.0) as server:
        folder = Path(tmp)
        launchers = {name: write_launcher(folder, f"arm{i}", cli, flags, env)
                     for i, (name, (flags, env)) in enumerate(arms.items())}
        device = Device.connect(server.serials[0], port=server.port)
        builtin = ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port)
        spec = SimpleNamespace(command=builtin.command, env=builtin.env)
        os.environ.update(ANTHROPIC_API_KEY="sk-ant-standin", ANTHROPIC_BASE_URL=api.url)
        os.environ.pop("CLAUDE_CODE_OAUTH_TOKEN", None)
        os.environ.pop("ANTHROPIC_AUTH_TOKEN", None)
        try:
            for _ in range(trials):
                for name, (launcher, _) in launchers.items():
                    # The harness's own options, with the CLI started through this arm's launcher.
                    claude.build_options = lambda *a, _launcher=launcher, **k: _with_cli(build_options(*a, **k),
                                                                                           _launcher)
                    device.reset_app(APP, ready_testid="homeList")
                    api.script(trajectory)
                    outcome = run_agent(setting, PROMPT, spec, Limits(), lambda event: None, folder / "work")
                    if outcome.claim.status != "done" or not api.requests:
                        raise SystemExit(f"claude_cli_cpu: a trial of arm {name} did not finish as scripted: "
                                         f"{outcome.claim.status}, {len(api.requests)} request(s)")
                    results[name]["first"].append(api.requests[0])
                    results[name]["requests"].append(len(api.requests))
        finally:
            claude.build_options = build_options
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        for name, (_, out) in launchers.items():
            results[name]["cpu"] = [json.loads(line) for line in out.read_text().splitlines()]
    return results


def _with_cli(options, launcher: Path):
    options.cli_path = str(launcher)
    return options


def report(results: dict, span: tuple[float, float], answer_at_once: bool) -> int:
    _, version = bundled_cli()
    what = "one request answered at once" if answer_at_once else "t01, six tool calls and an answer"
    print(f"Claude CLI {version}: its own CPU seconds a trial (user + system, read at its exit), {what}, the model "
          f"stand-in answering after {span[0]:g}-{span[1]:g} s")
    print(f"{'arm':<40} {'trials':>6} {'requests':>8} {'CPU s':>6} {'min':>5} {'max':>5} {'user':>5} {'sys':>5}"
          f"  what the model reads")
    names = list(results)
    base = results[names[0]]
    status = 0
    for name in names:
        row = results[name]
        total = [c["user"] + c["sys"] for c in row["cpu"]]
        if len(total) != len(row["first"]):
            print(f"claude_cli_cpu: arm {name}: {len(total)} CPU reading(s) for {len(row['first'])} trial(s)")
            return 1
        if name == names[0]:
            same = "(the baseline)"
        else:
            differ = sorted({part for a, b in zip(base["first"], row["first"]) for part in differences(a, b)})
            same = "the same" if not differ else "DIFFERS in " + ", ".join(differ)
            status = status or (1 if differ else 0)
        print(f"{name:<40} {len(total):>6} {statistics.mean(row['requests']):>8.0f} {statistics.mean(total):>6.2f}"
              f" {min(total):>5.2f} {max(total):>5.2f} {statistics.mean(c['user'] for c in row['cpu']):>5.2f}"
              f" {statistics.mean(c['sys'] for c in row['cpu']):>5.2f}  {same}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=4, help="trials an arm (default 4)")
    parser.add_argument("--turn-seconds", default="0", help="the stand-in's wait before each reply, S or LOW-HIGH "
                                                            "(default 0; bench_scale.py --agent uses 2-4)")
    parser.add_argument("--answer-at-once", action="store_true",
                        help="one request, answered at once: the CLI's start with the tool server connected")
    parser.add_argument("--with", dest="env", action="append", default=[], metavar="NAME=VALUE",
                        help="a second arm, the CLI started with this variable too (repeatable)")
    parser.add_argument("--with-flag", action="append", default=[], metavar="FLAG",
                        help="a second arm, the CLI started with this flag too (repeatable)")
    args = parser.parse_args(argv)
    if args.trials < 1:
        print("claude_cli_cpu: --trials must be at least 1", file=sys.stderr)
        return 2
    if not sys.platform.startswith("linux"):
        print("claude_cli_cpu: reads the CLI's CPU from /proc: Linux only", file=sys.stderr)
        return 2
    try:
        span, env = parse_span(args.turn_seconds), parse_env(args.env)
    except ValueError as problem:
        print(f"claude_cli_cpu: {problem}", file=sys.stderr)
        return 2
    arms: dict[str, tuple[list, dict]] = {"the harness's options": ([], {})}
    if env or args.with_flag:
        label = " ".join([*args.with_flag, *(f"{k}={v}" for k, v in env.items())])
        arms[f"+ {label}"] = (list(args.with_flag), env)
    return report(run(args.trials, span, args.answer_at_once, arms), span, args.answer_at_once)


if __name__ == "__main__":
    sys.exit(main())
