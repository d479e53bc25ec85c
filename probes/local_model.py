"""A small local model through the OpenAI-compatible path, end to end, and what it costs a turn.

    python probes/local_model.py --base-url http://127.0.0.1:8080/v1 [--model NAME] [--tasks t22,t21,t01]
                                 [--record FILE] [-- --tools=app_map,app_tap --surface=small-model-prompt]
    python probes/local_model.py --replay tests/agents/recorded/llama-server-small-default.jsonl

It checks that the server is up (llama.cpp's /health, the models it lists, its context from /props), runs MobiumApp
tasks as the plugin runs them (pytest on the virtual device, one agent trial each, in one process), and prints for
each trial its verdict, why the agent stopped, the first request's size, what the server's prompt cache held across
the trial (tokens reused and read again) and the model's time per turn; then each turn (its prompt tokens, those
the cache held and those read again, the tokens written, the seconds, what the reply did); then how many trials
contradict themselves: the text the model wrote when it stopped calling tools states one status ("cannot") and the
forced final answer another ("done"). The run folder stays (--run-dir) for `mobium-evals report`.

--record FILE puts a recording proxy between the harness and the server: every request and the server's answer go to
FILE, one JSON line each, in order. A request the harness gives up on (its timeout, the trial's time limit) is
dropped on the server's side too, so the server stops generating it, and is recorded with status 499. --replay FILE
serves such a recording in the server's place (the harness's requests are matched to the recorded ones; a request
that was not recorded is said, and answered with the next recorded answer): the same run, without the model, in
seconds. The tests replay the recordings kept in tests/agents/recorded/ this way.

Not in CI against a real model: a model on a CPU takes minutes a turn, and building llama.cpp's server longer still
(probes/serve_local_model.py does both).

Exit status: 0 when every trial has a verdict (whatever it is), 1 when one has none, 2 when the server is not up."""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from statistics import mean
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from pytest_mobium_evals.core.stated_claims import stated_status  # noqa: E402  (the harness's own reading)

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
            + (f"; context {n_ctx:,} tokens (/props)" if isinstance(n_ctx, int) else "; context not said")
            + (f"; build {props['build_info']}" if props.get("build_info") else ""))
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


def read_events(folder: Path) -> list[dict]:
    path = folder / "transcript.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def trial_figures(folder: Path) -> dict:
    """One trial's verdict and what its model steps say: the first request's tokens, the tokens the server's cache
    held and those it read again, the turns and their times."""
    record = json.loads((folder / "verdict.json").read_text())
    steps = [e for e in read_events(folder) if e.get("kind") == "model"]
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


def turns(folder: Path) -> list[dict]:
    """Each model step of a trial: its tokens (prompt, held by the cache, read again, written), its seconds, and
    what the reply did (the tools it called, text, or the final answer's JSON)."""
    out: list[dict] = []
    for event in read_events(folder):
        kind = event.get("kind")
        if kind == "model":
            tokens = event.get("tokens") or {}
            cached = tokens.get("cached")
            out.append({"input": tokens.get("input"), "cached": cached, "output": tokens.get("output"),
                        "reread": None if cached is None else (tokens.get("input") or 0) - cached,
                        "seconds": event.get("seconds"), "did": []})
        elif out and kind == "tool_call":
            out[-1]["did"].append(str(event.get("tool")))
        elif out and kind == "assistant" and "structured_output" in event:
            out[-1]["did"].append("final " + one_line(event.get("structured_output"), 70))
        elif out and kind == "assistant" and event.get("text"):
            out[-1]["did"].append("text " + one_line(event["text"], 70))
        elif out and kind == "output_limit":
            out[-1]["did"].append(f"cut at {event.get('bound') or 'the server’s bound'} tokens")
        elif out and kind == "nudge":
            out[-1]["did"].append("nudged")
    return out


def one_line(text: Any, width: int) -> str:
    flat = " ".join(str(text or "").split())
    return json.dumps(flat if len(flat) <= width else flat[:width - 1] + "…", ensure_ascii=False)


def contradiction(folder: Path) -> Optional[dict]:
    """The trial's text and final answer when they state different statuses: the last text the model wrote before
    the final answer was asked for, against the final answer's JSON. A record that keeps the text's claim
    (`stated_status`, beside `stop_text`) is read; an older one keeps only the JSON's claim, and then the text is
    read from the transcript."""
    record = json.loads((folder / "verdict.json").read_text())
    if "stated_status" in record:
        said, final = record.get("stated_status"), (record.get("claim") or {}).get("status")
        if said is None or final is None or said == final:
            return None
        return {"text_status": said, "final_status": final, "text": record.get("stop_text") or "", "from": "record"}
    events = read_events(folder)
    final_at = next((i for i, e in enumerate(events) if e.get("kind") == "assistant" and "structured_output" in e),
                    None)
    if final_at is None:
        return None
    text = next((e["text"] for e in reversed(events[:final_at]) if e.get("kind") == "assistant" and e.get("text")),
                None)
    said = stated_status(text)  # the reading the harness records as stated_status
    try:
        answered = json.loads(events[final_at].get("structured_output") or "null")
    except ValueError:
        answered = None
    final = answered.get("status") if isinstance(answered, dict) else None
    if said is None or final is None or said == final:
        return None
    return {"text_status": said, "final_status": final, "text": text, "from": "transcript"}


def table(rows: list[dict]) -> list[str]:
    head = ("task", "verdict", "stopped", "calls", "turns", "first req", "reused", "re-read", "s/turn", "trial s")
    widths = (5, 15, 16, 5, 5, 9, 9, 9, 6, 7)
    lines = ["  ".join(f"{h:>{w}}" for h, w in zip(head, widths))]
    for r in rows:
        cells = (r["task"], r["verdict"], r["stop"] or "-", n(r["tool_calls"]), n(r["turns"]), n(r["first"]),
                 n(r["reused"]), n(r["reread"]), n(r["per_turn_s"], "{:.2f}"), n(r["trial_s"], "{:.1f}"))
        lines.append("  ".join(f"{str(c):>{w}}" for c, w in zip(cells, widths)))
    return lines


def n(value, fmt="{:,}"):
    return "-" if value is None else fmt.format(value)


def turn_table(task: str, steps: list[dict]) -> list[str]:
    lines = []
    for i, s in enumerate(steps, 1):
        held = "-" if s["cached"] is None or not s["input"] else f"{100 * s['cached'] / s['input']:.0f}%"
        lines.append(f"{task:>5}  {i:>4}  {n(s['input']):>7}  {n(s['cached']):>7}  {held:>5}  {n(s['reread']):>7}  "
                     f"{n(s['output']):>5}  {n(s['seconds'], '{:.1f}'):>7}  {'; '.join(s['did']) or '-'}")
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
    print("\nper turn (prompt tokens, held by the server's cache, read again, written; the model's seconds):")
    print(f"{'task':>5}  {'turn':>4}  {'prompt':>7}  {'cached':>7}  {'held':>5}  {'re-read':>7}  {'out':>5}  "
          f"{'seconds':>7}  reply")
    for folder, r in zip(folders, rows):
        for line in turn_table(r["task"], turns(folder)):  # a trial stopped before its first reply has none
            print(line)
    contradictions = [(r["task"], c) for folder, r in zip(folders, rows) if (c := contradiction(folder))]
    print(f"\nself-contradictions: {len(contradictions)} of {len(rows)} trial(s) stated one status in text when they "
          f"stopped calling tools and another in the final answer")
    for task, c in contradictions:
        print(f"{task}: text says {c['text_status']!r}, final answer {c['final_status']!r} (from the {c['from']}): "
              f"{one_line(c['text'], 100)}")
    print(f"run folder: {run_dir} (mobium-evals report {run_dir})")
    return 0


# --- recording and replaying the server -------------------------------------------------------------------------

class RecordingProxy:
    """A local HTTP proxy in front of the server: each request and the server's answer, in order, to a JSON-lines
    file ({"method", "path", "request", "status", "response", "seconds"}), the request's and the answer's bodies as
    JSON. The harness talks to `.base_url` instead of the server's."""

    POLL_S = 0.25  # how often a waiting request looks at the harness's connection

    def __init__(self, upstream_base_url: str, path: Path, timeout: float):
        self.upstream = upstream_base_url.rstrip("/").removesuffix("/v1")
        where = urllib.parse.urlsplit(self.upstream)
        self._host, self._port = where.hostname, where.port or 80
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("w")
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                proxy.forward(self, None)

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                proxy.forward(self, self.rfile.read(length) if length else b"")

        self._timeout = timeout
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def forward(self, handler: BaseHTTPRequestHandler, body: Optional[bytes]) -> None:
        """The request to the server, its answer back; if the harness closes its connection first (it gave the
        request up), the server's connection is closed too, which is how llama-server learns to cancel the task,
        and the exchange is recorded with status 499 (the client's close) and no answer sent."""
        started = time.monotonic()
        upstream = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
        try:
            upstream.request(handler.command, handler.path, body=body,
                             headers={"content-type": "application/json"})
            gone = self._wait(upstream, handler.connection, started)
            if gone:
                status, data = 499, json.dumps({"error": {"message": f"recording proxy: {gone}"}}).encode()
            else:
                answer = upstream.getresponse()
                status, data = answer.status, answer.read()
        except OSError as error:
            gone, status = None, 502
            data = json.dumps({"error": {"message": f"recording proxy: {error}"}}).encode()
        finally:
            upstream.close()
        seconds = time.monotonic() - started
        with self._lock:
            self._file.write(json.dumps({"method": handler.command, "path": handler.path,
                                         "request": _json_or_text(body), "status": status,
                                         "response": _json_or_text(data), "seconds": round(seconds, 3)},
                                        ensure_ascii=False) + "\n")
            self._file.flush()
        if gone:
            handler.close_connection = True
            return
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _wait(self, upstream: http.client.HTTPConnection, client: socket.socket, started: float) -> Optional[str]:
        """Waits for the server's answer to begin while watching the harness's connection: None when the answer
        is there to read, else why the request was dropped (the harness closed its connection)."""
        while True:
            ready, _, _ = select.select([upstream.sock, client], [], [], self.POLL_S)
            if upstream.sock in ready:
                return None
            if client in ready and _closed(client):
                return f"the client closed its connection after {time.monotonic() - started:.1f} s; dropped"
            if time.monotonic() - started > self._timeout:
                raise TimeoutError(f"no answer within {self._timeout:g} s")

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._file.close()


def _closed(sock: socket.socket) -> bool:
    """Whether the peer closed a connection that select() says is readable (an orderly close reads as no bytes;
    a reset raises)."""
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def _json_or_text(data: Optional[bytes]) -> Any:
    if data is None:
        return None
    try:
        return json.loads(data or b"null")
    except ValueError:
        return data.decode(errors="replace")


def load_standins():
    spec = importlib.util.spec_from_file_location("mobium_standins", ROOT / "tests" / "agents" / "standins.py")
    standins = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = standins  # its dataclasses look their module up while being defined
    spec.loader.exec_module(standins)
    return standins


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
    parser.add_argument("--record", type=Path, default=None, help="write every request and answer to this file")
    parser.add_argument("--replay", type=Path, default=None, help="serve this recording instead of a server")
    parser.add_argument("pytest_args", nargs="*", help="more pytest options, after --")
    args = parser.parse_args(argv)
    run_dir = Path(args.run_dir or ROOT / "runs" / time.strftime("local-%Y%m%dT%H%M%SZ", time.gmtime())).resolve()
    if args.replay is not None and (args.base_url or args.record):
        parser.error("--replay serves a recording: give no --base-url or --record with it")
    server = proxy = None
    try:
        if args.replay is not None:
            try:
                server = load_standins().RecordedLlamaServer(args.replay)
            except (OSError, ValueError) as problem:
                print(f"--replay {args.replay}: {problem}")
                return 2
        base_url = server.base_url if server is not None else args.base_url
        if not base_url:
            parser.error("give --base-url (the server's …/v1), or --replay FILE")
        problem, models, said = up_check(base_url)
        print(f"server: {said}" + (f" (replaying {args.replay})" if server is not None else ""))
        if problem:
            print(problem)
            return 2
        if args.record is not None:
            proxy = RecordingProxy(base_url, args.record, args.request_timeout + 60)
            base_url = proxy.base_url
            print(f"recording every request and answer to {args.record}")
        model = args.model or (models[0] if models else "local-model")
        tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
        print(f"running {', '.join(tasks)} with openai/{model} (seed {args.seed}) into {run_dir}")
        started = time.monotonic()
        done = run_tasks(base_url, model, tasks, run_dir, args.seed, args.trial_timeout, args.request_timeout,
                         args.pytest_args)
        print(f"pytest exited {done.returncode} after {time.monotonic() - started:.0f} s")
        status = report(run_dir, done.stdout + done.stderr)
        if server is not None and server.unbound:
            print(f"replay: {len(server.unbound)} request(s) asked with max_tokens answered from a recording made "
                  f"without it, each recorded answer under the bound")
        if server is not None and server.unmatched:
            print(f"replay: {len(server.unmatched)} request(s) not as recorded, answered in the recording's order: "
                  + "; ".join(server.unmatched[:3]))
        return status
    finally:
        if proxy is not None:
            proxy.close()
        if server is not None:
            server.close()


if __name__ == "__main__":
    sys.exit(main())
