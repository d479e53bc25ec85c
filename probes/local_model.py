"""A small local model through the OpenAI-compatible path, end to end, and what it costs a turn.

    python probes/local_model.py --base-url http://127.0.0.1:8080/v1 [--model NAME] [--tasks t22,t21,t01]
    python probes/local_model.py --standin      # llama.cpp's stand-in (tests/agents/standins.py) as the server

It checks that the server is up (llama.cpp's /health, the models it lists, its context from /props), runs three
MobiumApp tasks as the plugin runs them (pytest on the virtual device, one agent trial each, in one process), and
prints for each trial: its verdict, why the agent stopped, the first request's size, what the server's prompt
cache held across the trial (tokens reused and read again), and the model's time per turn. The run folder stays
(--run-dir) for `mobium-evals report`.

Not in CI: a model on a CPU takes minutes a turn, and building llama.cpp's server takes longer still. `--standin`
runs the same path against the stand-in, whose answers are scripted per task in llama-server's shapes (a read, a
call written as text, a sign-in): it shows the probe's output and checks its arithmetic, not a model.

Exit status: 0 when every trial has a verdict (whatever it is), 1 when one has none, 2 when the server is not up."""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from statistics import mean
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TASKS = ("t22", "t21", "t01")


def get_json(url: str, timeout: float = 10.0) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError):
        return None


def up_check(base_url: str) -> tuple[Optional[str], list[str], str]:
    """(why the server is not usable, or None; the models it lists; one line on what it said)."""
    root = base_url.rstrip("/").removesuffix("/v1")
    health = get_json(f"{root}/health")
    listed = get_json(f"{base_url.rstrip('/')}/models")
    models = [str(m.get("id")) for m in (listed or {}).get("data", []) if isinstance(m, dict)]
    props = get_json(f"{root}/props") or {}
    n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
    said = (f"{base_url}: health {(health or {}).get('status', 'not answered')}; models {', '.join(models) or 'none'}"
            + (f"; context {n_ctx:,} tokens (/props)" if isinstance(n_ctx, int) else "; context not said"))
    if health is None and listed is None:
        return (f"{base_url} does not answer (/health, /v1/models): start the server first "
                "(docs/tutorials/local-model.md)"), [], said
    if health is not None and health.get("status") != "ok":
        return f"{base_url} is not ready: /health says {health}", models, said
    return None, models, said


def run_tasks(base_url: str, model: str, tasks: list[str], run_dir: Path, seed: int, trial_timeout: float,
              request_timeout: float, extra: list[str]) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "tasks/mobiumapp_tasks",
               "-k", " or ".join(tasks), "--driver=agent", f"--model=openai/{model}", f"--base-url={base_url}",
               f"--run-dir={run_dir}", f"--seed={seed}", f"--trial-timeout={trial_timeout:g}",
               f"--request-timeout={request_timeout:g}", *extra]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)


def trial_figures(folder: Path) -> dict:
    """One trial's verdict and what its model steps say: the first request's tokens, the tokens the server's cache
    held and those it read again, the turns and their times."""
    record = json.loads((folder / "verdict.json").read_text())
    events = [json.loads(line) for line in (folder / "transcript.jsonl").read_text().splitlines() if line.strip()]
    steps = [e for e in events if e.get("kind") == "model"]
    inputs = [int((s.get("tokens") or {}).get("input") or 0) for s in steps]
    cached = [(s.get("tokens") or {}).get("cached") for s in steps]
    known = [c for c in cached if isinstance(c, int)]
    seconds = [float(s.get("seconds") or 0.0) for s in steps]
    return {
        "task": record.get("task"), "verdict": record.get("verdict"), "stop": record.get("stop_reason"),
        "tool_calls": record.get("tool_calls"), "turns": len(steps), "first": inputs[0] if inputs else None,
        "reused": sum(known) if known else None,
        "reread": sum(i - (c or 0) for i, c in zip(inputs, cached)) if known else None,
        "read": sum(inputs), "per_turn_s": mean(seconds) if seconds else None, "model_s": sum(seconds),
        "trial_s": (record.get("timings") or {}).get("total_s"), "infra": record.get("infra_error"),
        "stop_text": record.get("stop_text"),
    }


def table(rows: list[dict]) -> list[str]:
    head = ("task", "verdict", "stopped", "calls", "turns", "first req", "reused", "re-read", "s/turn", "trial s")
    widths = (5, 15, 16, 5, 5, 9, 9, 9, 6, 7)
    lines = ["  ".join(f"{h:>{w}}" for h, w in zip(head, widths))]

    def n(value, fmt="{:,}"):
        return "-" if value is None else fmt.format(value)

    for r in rows:
        cells = (r["task"], r["verdict"], r["stop"] or "-", n(r["tool_calls"]), n(r["turns"]), n(r["first"]),
                 n(r["reused"]), n(r["reread"]), n(r["per_turn_s"], "{:.2f}"), n(r["trial_s"], "{:.1f}"))
        lines.append("  ".join(f"{str(c):>{w}}" for c, w in zip(cells, widths)))
    return lines


def report(run_dir: Path, output: str) -> int:
    for line in output.splitlines():
        if line.startswith("mobium-evals:") or line.startswith("  stopped:"):
            print(line)
    folders = sorted(p.parent for p in run_dir.glob("trials/*/verdict.json"))
    if not folders:
        print(f"no trial has a verdict in {run_dir}; pytest said:\n" + "\n".join(output.splitlines()[-15:]))
        return 1
    rows = [trial_figures(folder) for folder in folders]
    print()
    print("\n".join(table(rows)))
    for r in rows:
        if r["infra"]:
            print(f"{r['task']}: infra_error: {r['infra']}")
        if r["stop"] == "text_tool_call":
            print(f"{r['task']}: the call written as text: {r['stop_text']!r}")
    reread = [r["reread"] for r in rows if r["reread"] is not None]
    if reread:
        read = sum(r["read"] for r in rows if r["reread"] is not None)
        print(f"\nprompt cache: {sum(reread):,} of {read:,} prompt tokens read again over {len(reread)} trial(s) "
              f"({100 * sum(reread) / read:.0f}%); the rest the server's cache held")
    print(f"run folder: {run_dir} (mobium-evals report {run_dir})")
    return 0


# --- the stand-in -----------------------------------------------------------------------------------------------

def standin_server():
    """llama.cpp's stand-in, answering each task with its own script, chosen by the task's prompt: t22 read from
    app_devices, t21's call written as prose (what the first real-model run met), t01's sign-in."""
    spec = importlib.util.spec_from_file_location("mobium_standins", ROOT / "tests" / "agents" / "standins.py")
    standins = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = standins  # its dataclasses look their module up while being defined
    spec.loader.exec_module(standins)
    scripts = {
        "Android version": [standins.Call("app_devices"),
                            standins.Answer("done", "15", "app_devices lists the device with Android 15")],
        "dark mode": [standins.Text('I will switch it.\n```json\n{"name": "app_appearance", "arguments": '
                                    '{"appearance": "dark"}}\n```'),
                      standins.Answer("done", None, "dark mode is on")],
        "sign in": standins.solve_t01(),
    }

    class PerTask(standins.LlamaCppStandin):
        models = ["standin-qwen2.5-coder-1.5b"]

        def _post(self, handler, body):
            messages = body.get("messages") or []
            task = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
            script = next((s for key, s in scripts.items() if key in task), None)
            if script is not None and script is not getattr(self, "_current", None):
                self._current = script
                self.script(script)
            return super()._post(handler, body)

    return PerTask()


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default=None, help="the server's OpenAI-compatible API (…/v1)")
    parser.add_argument("--model", default=None, help="the served model's name (default: the first it lists)")
    parser.add_argument("--tasks", default=",".join(DEFAULT_TASKS), help="MobiumApp task ids, comma separated")
    parser.add_argument("--run-dir", default=None, help="default: runs/local-<UTC time>")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--trial-timeout", type=float, default=3600.0,
                        help="seconds a trial may take (a CPU model: minutes a turn). Default: 3600")
    parser.add_argument("--request-timeout", type=float, default=1800.0,
                        help="seconds one request may take (the first reads the whole prompt). Default: 1800")
    parser.add_argument("--standin", action="store_true", help="serve llama.cpp's stand-in here instead")
    parser.add_argument("pytest_args", nargs="*", help="more pytest options, after --")
    args = parser.parse_args(argv)
    run_dir = Path(args.run_dir or ROOT / "runs" / time.strftime("local-%Y%m%dT%H%M%SZ", time.gmtime())).resolve()
    server = standin_server() if args.standin else None
    try:
        base_url = server.base_url if server is not None else args.base_url
        if not base_url:
            parser.error("give --base-url (the server's …/v1), or --standin")
        problem, models, said = up_check(base_url)
        print(f"server: {said}")
        if problem:
            print(problem)
            return 2
        model = args.model or (models[0] if models else "local-model")
        tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
        print(f"running {', '.join(tasks)} with openai/{model} (seed {args.seed}) into {run_dir}")
        started = time.monotonic()
        done = run_tasks(base_url, model, tasks, run_dir, args.seed, args.trial_timeout, args.request_timeout,
                         args.pytest_args)
        print(f"pytest exited {done.returncode} after {time.monotonic() - started:.0f} s")
        return report(run_dir, done.stdout + done.stderr)
    finally:
        if server is not None:
            server.close()


if __name__ == "__main__":
    sys.exit(main())
