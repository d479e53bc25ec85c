"""Offline stand-ins for the model APIs: a scripted Anthropic Messages API (SSE streaming, what the bundled Claude
CLI speaks), a scripted Ollama `/api/chat`, and a scripted OpenAI-compatible `/v1/chat/completions`. Each replays a
trajectory, a list of steps:

    Call("app_tap", {"target": "label=Login Demo"})  # the model calls a tool
    Answer("done", None, "The welcome text shows")    # the model stops and gives its final answer
    Fail(529, times=2)                                # the next request(s) at this point get an HTTP error
    Fail(200, body=b"{not json")                      # ... or a malformed answer; stall_s=: after a silence
    Do(callable)                                      # run something (kill the tool server) before the next reply
    Text("```json {...} ```")                         # the model writes text and calls nothing (a call as prose)

A request's place in the trajectory is the number of assistant turns already in its messages, so a retried request
(same messages) gets the same step, and the reply never depends on timing. Every request body is kept in
`.requests` for the tests and the leakage probe to read.

Structured answers follow each provider's channel: Claude calls the CLI's StructuredOutput tool; Ollama and OpenAI
first stop calling tools (a plain text reply), then answer the driver's constrained request (`format` /
`response_format`) with the JSON."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional, Union

TOKENS_IN, TOKENS_OUT = 100, 20  # usage reported per reply, so tests can check the sums


@dataclass
class Call:
    tool: str
    arguments: dict = field(default_factory=dict)


@dataclass
class Answer:
    status: str
    answer: Optional[str] = None
    reason: str = ""

    def to_json(self) -> dict:
        return {"status": self.status, "answer": self.answer, "reason": self.reason}


@dataclass
class Fail:
    status: int = 529
    times: Optional[int] = 1  # None: every request at this point fails
    body: Optional[bytes] = None  # sent as it is instead of the provider's error JSON: a malformed answer
    stall_s: float = 0.0  # the endpoint says nothing this long first (until it closes): a model API that hangs


@dataclass
class Do:
    action: Callable[[], None]


@dataclass
class Text:
    """A reply of text alone, finish_reason "stop": what a small model does when it writes a tool call as prose."""

    content: str


Step = Union[Call, Answer, Fail, Do, Text]


@dataclass
class _Turn:
    reply: Union[Call, Answer, Text, None]
    fails: list = field(default_factory=list)
    actions: list = field(default_factory=list)
    failed: int = 0  # how many requests at this turn got an error so far
    acted: bool = False


def _turns(trajectory: list[Step]) -> list[_Turn]:
    turns, pending = [], _Turn(None)
    for step in trajectory:
        if isinstance(step, Fail):
            pending.fails.append(step)
        elif isinstance(step, Do):
            pending.actions.append(step.action)
        else:
            pending.reply = step
            turns.append(pending)
            pending = _Turn(None)
    if pending.fails or pending.actions:
        turns.append(pending)
    return turns


def solve_t01(username: str = "mobium", password: str = "hunter2") -> list[Step]:
    """MobiumApp's sign-in (t01) done right, with Mobium's tools: open the Login Demo, fill both fields, log in,
    wait for the welcome text, answer done."""
    return [
        Call("app_map"),
        Call("app_tap", {"target": "label=Login Demo"}),
        Call("app_fill", {"target": "testid=username", "text": username}),
        Call("app_fill", {"target": "testid=password", "text": password}),
        Call("app_tap", {"target": "testid=loginBtn"}),
        Call("app_wait_for", {"target": "testid=welcomeText", "timeout_ms": 5000}),
        Answer("done", None, "The app shows 'Welcome, mobium!'."),
    ]


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A client that gave up (a driver cancelled at its time limit) is expected here, not a failure.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class ScriptedEndpoint:
    """A local HTTP server replaying one trajectory (replace it with `.script(...)` between runs)."""

    def __init__(self, trajectory: list[Step] = ()):
        self._lock = threading.Lock()
        self.script(list(trajectory))
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                # Headers and body go out in separate writes: without this, Nagle's algorithm meets the client's
                # delayed ACK and every reply waits 40 ms.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                endpoint._get(self)

            def do_POST(self):
                started = time.monotonic()
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                with endpoint._lock:
                    endpoint.requests.append(body)
                    endpoint.paths.append(self.path)
                endpoint._post(self, body)
                with endpoint._lock:
                    endpoint.busy.append((started, time.monotonic()))

        self._closing = threading.Event()
        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, trajectory: list[Step]) -> "ScriptedEndpoint":
        with self._lock:
            self._turns = _turns(list(trajectory))
            self.trajectory = list(trajectory)
            self.requests: list[dict] = []
            self.paths: list[str] = []
            # (arrival, reply sent) per request, in time.monotonic(): how long "the model" took, for benchmarks.
            self.busy: list[tuple[float, float]] = []
        return self

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- what each provider overrides
    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        self._send_json(handler, 404, {"error": "not found"})

    def _post(self, handler: BaseHTTPRequestHandler, body: dict) -> None:
        raise NotImplementedError

    # -- shared machinery
    def _next(self, assistant_turns: int) -> tuple[Optional[Fail], Union[Call, Answer, Text, None]]:
        """The step for a request that already has `assistant_turns` assistant messages: an error to return
        instead, or the reply (None once the trajectory is over)."""
        with self._lock:
            if assistant_turns >= len(self._turns):
                return None, None
            turn = self._turns[assistant_turns]
            if turn.fails and (any(f.times is None for f in turn.fails)
                               or turn.failed < sum(f.times for f in turn.fails)):
                turn.failed += 1
                fail = turn.fails[0]
            else:
                fail = None
        if fail is not None:
            if fail.stall_s:
                self._closing.wait(fail.stall_s)
            return fail, None
        with self._lock:
            actions = [] if turn.acted else turn.actions
            turn.acted = True
        for action in actions:
            action()
        return None, turn.reply

    def final_answer(self) -> Optional[Answer]:
        return next((s for s in self.trajectory if isinstance(s, Answer)), None)

    @classmethod
    def _send_fail(cls, handler: BaseHTTPRequestHandler, fail: Fail, payload: Any) -> None:
        if fail.body is None:
            return cls._send_json(handler, fail.status, payload)
        handler.send_response(fail.status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(fail.body)))
        handler.end_headers()
        handler.wfile.write(fail.body)

    @staticmethod
    def _send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


def _count_role(messages: list, role: str) -> int:
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == role)


def endpoint_per_process(make: Callable[[], "AnthropicStandin"]):
    """A stand-in plugin's pytest_configure and pytest_unconfigure (`-p replay_agent`, `-p cli_agent`): each pytest
    process, an xdist worker too, serves its own endpoint and points the Claude CLI at it, and closes it at the end."""
    endpoints: list[AnthropicStandin] = []

    def pytest_configure(config):
        endpoints.append(make().__enter__())
        os.environ["ANTHROPIC_BASE_URL"] = endpoints[-1].url
        os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-standin")

    def pytest_unconfigure(config):
        while endpoints:
            endpoints.pop().__exit__(None, None, None)

    return pytest_configure, pytest_unconfigure


class AnthropicStandin(ScriptedEndpoint):
    """POST /v1/messages (with `?beta=true`) answered as an SSE stream, as the Claude CLI expects."""

    def _post(self, handler, body):
        if not handler.path.startswith("/v1/messages"):
            return self._send_json(handler, 404, {"type": "error", "error": {"type": "not_found_error"}})
        fail, reply = self._next(_count_role(body.get("messages", []), "assistant"))
        if fail is not None:
            return self._send_fail(handler, fail, {"type": "error", "error": {
                "type": "overloaded_error" if fail.status == 529 else "api_error",
                "message": f"scripted failure {fail.status}"}})
        tool_names = [t.get("name", "") for t in body.get("tools", [])]
        if isinstance(reply, Call):
            name = next((n for n in tool_names if n.endswith("__" + reply.tool)), "mcp__mobium__" + reply.tool)
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": name,
                     "input": reply.arguments}
        elif isinstance(reply, Answer) and "StructuredOutput" in tool_names:
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": "StructuredOutput",
                     "input": reply.to_json()}
        elif isinstance(reply, Answer):
            block = {"type": "text", "text": json.dumps(reply.to_json())}
        elif isinstance(reply, Text):
            block = {"type": "text", "text": reply.content}
        else:
            block = {"type": "text", "text": "Finished."}
        self._stream(handler, body.get("model", "claude"), block)

    def _stream(self, handler, model: str, block: dict) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()
        message_id = "msg_" + uuid.uuid4().hex[:20]

        def event(kind: str, data: dict) -> None:
            handler.wfile.write(f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode())

        event("message_start", {"message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": TOKENS_IN, "output_tokens": 1}}})
        if block["type"] == "tool_use":
            event("content_block_start", {"index": 0, "content_block": {
                "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}})
            event("content_block_delta", {"index": 0, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
            stop = "tool_use"
        else:
            event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
            event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": block["text"]}})
            stop = "end_turn"
        event("content_block_stop", {"index": 0})
        event("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": TOKENS_OUT}})
        event("message_stop", {})
        handler.wfile.flush()
        handler.close_connection = True


class OllamaStandin(ScriptedEndpoint):
    """POST /api/chat (non-streaming), GET /api/version and /api/tags (the pulled models: `.models`), POST
    /api/show (the model's own context length: `.context_length`, in model_info as Ollama gives it)."""

    models = ["qwen2.5:7b", "llama3.2:latest"]
    context_length = 32768

    def _get(self, handler):
        if handler.path.startswith("/api/version"):
            return self._send_json(handler, 200, {"version": "0.0.0-standin"})
        if handler.path.startswith("/api/tags"):
            return self._send_json(handler, 200, {"models": [{"name": m, "model": m} for m in self.models]})
        return self._send_json(handler, 404, {"error": "not found"})

    def _post(self, handler, body):
        if handler.path == "/api/show":
            # The shape of Ollama's answer for a qwen2 model (model_info keys are `<architecture>.<key>`).
            return self._send_json(handler, 200, {
                "modelfile": "", "parameters": "", "template": "{{ .System }}",
                "details": {"family": "qwen2", "parameter_size": "7.6B", "quantization_level": "Q4_K_M"},
                "model_info": {"general.architecture": "qwen2", "qwen2.block_count": 28,
                               "qwen2.context_length": self.context_length},
                "capabilities": ["completion", "tools"]})
        if handler.path != "/api/chat":
            return self._send_json(handler, 404, {"error": "not found"})
        messages = body.get("messages", [])
        if body.get("format"):
            answer = self.final_answer()
            message = {"role": "assistant", "content": json.dumps(answer.to_json() if answer else {})}
        else:
            fail, reply = self._next(_count_role(messages, "assistant"))
            if fail is not None:
                return self._send_fail(handler, fail, {"error": f"scripted failure {fail.status}"})
            if isinstance(reply, Call):
                message = {"role": "assistant", "content": "",
                           "tool_calls": [{"function": {"name": reply.tool, "arguments": reply.arguments}}]}
            elif isinstance(reply, Text):
                message = {"role": "assistant", "content": reply.content}
            else:
                message = {"role": "assistant", "content": "I have finished."}
        message, reason, written = bounded(message, "stop", (body.get("options") or {}).get("num_predict"))
        self._send_json(handler, 200, {
            "model": body.get("model", ""), "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "message": message, "done": True, "done_reason": reason,
            "prompt_eval_count": TOKENS_IN, "eval_count": written})


CHARS_PER_TOKEN = 4  # the stand-ins' tokenizer: a token per 4 characters


def bounded(message: dict, finish: str, limit: Optional[int]) -> tuple[dict, str, int]:
    """A reply under the request's output bound (OpenAI's max_tokens, Ollama's num_predict), as a server writes
    it: a text longer than the bound is cut there, its finish reason "length" and its tokens the bound; anything
    else as it is, with the usual TOKENS_OUT."""
    text = message.get("content") or ""
    if limit and finish == "stop" and -(-len(text) // CHARS_PER_TOKEN) > limit:
        return {**message, "content": text[:limit * CHARS_PER_TOKEN]}, "length", limit
    return message, finish, TOKENS_OUT


class OpenAIStandin(ScriptedEndpoint):
    """POST /v1/chat/completions (non-streaming), GET /v1/models (`.models`). Its base URL is `.url + "/v1"`."""

    models = ["local-model", "other-model"]

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def _get(self, handler):
        if handler.path.startswith("/v1/models"):
            return self._send_json(handler, 200, {"object": "list",
                                                  "data": [{"id": m, "object": "model"} for m in self.models]})
        return self._send_json(handler, 404, {"error": {"message": "not found"}})

    def _chat_turn(self, handler, body: dict, messages: list) -> Optional[tuple[dict, str]]:
        """The script's next turn as a chat completion's message and finish reason; None once a scripted failure
        has been sent in its place."""
        if body.get("response_format"):
            answer = self.final_answer()
            return {"role": "assistant", "content": json.dumps(answer.to_json() if answer else {})}, "stop"
        fail, reply = self._next(_count_role(messages, "assistant"))
        if fail is not None:
            self._send_fail(handler, fail, {"error": {"message": f"scripted failure {fail.status}",
                                                      "type": "server_error"}})
            return None
        if isinstance(reply, Call):
            return {"role": "assistant", "content": None, "tool_calls": [{
                "id": "call_" + uuid.uuid4().hex[:12], "type": "function",
                "function": {"name": reply.tool, "arguments": json.dumps(reply.arguments)}}]}, "tool_calls"
        if isinstance(reply, Text):
            return {"role": "assistant", "content": reply.content}, "stop"
        return {"role": "assistant", "content": "I have finished."}, "stop"

    def _post(self, handler, body):
        if handler.path != "/v1/chat/completions":
            return self._send_json(handler, 404, {"error": {"message": "not found"}})
        messages = body.get("messages", [])
        turn = self._chat_turn(handler, body, messages)
        if turn is None:
            return None
        message, finish, written = bounded(*turn, body.get("max_tokens"))
        self._send_json(handler, 200, {
            "id": "chatcmpl-" + uuid.uuid4().hex[:12], "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": TOKENS_IN, "completion_tokens": written,
                      "total_tokens": TOKENS_IN + written}})


class LlamaCppStandin(OpenAIStandin):
    """llama.cpp's `llama-server` as an OpenAI-compatible server, its answers shaped as the real server answered in
    the runs recorded in tests/agents/recorded/ (test_recorded_llama_server holds it to them; the content is
    scripted): POST /v1/chat/completions (non-streaming,
    with llama.cpp's `timings` and usage.prompt_tokens_details), GET /v1/models (`.models`), and the server's own
    endpoints beside /v1: GET /health, POST /apply-template (the request rendered with a Qwen-style ChatML
    template, the tools in the system block), POST /tokenize, GET /props (`default_generation_settings.n_ctx`).

    Its tokenizer is a stand-in's: a token per 4 characters of the rendered prompt. One slot with a prompt cache, as
    llama-server's: the tokens a request shares with the previous one from the start are `cache_n`, the rest
    `prompt_n` (read again). `.n_ctx` is the slot's context; a prompt over it is refused with llama.cpp's 400
    (`.overflow = "refuse"`) or cut as older servers did, the prompt read as half the context ("truncate").
    `.tokenizer = False` leaves out /tokenize, /apply-template and /props (a server with no such endpoints).
    Its base URL is `.url + "/v1"`; the scripted trajectory is replayed as OpenAIStandin's."""

    CHARS_PER_TOKEN = CHARS_PER_TOKEN
    n_ctx = 65536
    overflow = "refuse"
    tokenizer = True

    def __init__(self, trajectory: list[Step] = ()):
        self._slot = ""  # the last prompt the slot evaluated (its cache)
        super().__init__(trajectory)

    def _get(self, handler):
        if handler.path.startswith("/v1/models"):
            # Both lists, as llama-server answers: Ollama's `models` and OpenAI's `data`, each model's context in
            # its `meta`.
            return self._send_json(handler, 200, {
                "models": [{"name": m, "model": m, "type": "model", "capabilities": ["completion"]}
                           for m in self.models],
                "object": "list",
                "data": [{"id": m, "aliases": [m], "tags": [], "object": "model", "created": int(time.time()),
                          "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
                          "owned_by": "llamacpp", "meta": {"n_ctx": self.n_ctx, "n_ctx_train": self.n_ctx}}
                         for m in self.models]})
        if handler.path == "/health":
            return self._send_json(handler, 200, {"status": "ok"})
        if handler.path == "/props" and self.tokenizer:
            return self._send_json(handler, 200, {
                "default_generation_settings": {"id": 0, "n_ctx": self.n_ctx, "params": {"n_predict": -1}},
                "total_slots": 1, "model_path": "/models/standin.gguf", "build_info": "b0-standin"})
        return self._send_json(handler, 404, {"error": {"code": 404, "message": "File Not Found",
                                                        "type": "not_found_error"}})

    @classmethod
    def render(cls, messages: list, tools: Optional[list] = None) -> str:
        """The prompt as a Qwen2.5-style template renders it: the tools inside the system block, then the turns."""
        out = []
        system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
        if tools:
            system += "\n\n# Tools\n\n<tools>\n" + "\n".join(json.dumps(t) for t in tools) + "\n</tools>"
        out.append(f"<|im_start|>system\n{system}<|im_end|>\n")
        for m in messages:
            role = m.get("role")
            if role == "system":
                continue
            if role == "tool":
                out.append(f"<|im_start|>user\n<tool_response>\n{m.get('content')}\n</tool_response><|im_end|>\n")
                continue
            text = m.get("content") or ""
            for call in m.get("tool_calls") or []:
                text += "\n<tool_call>\n" + json.dumps(call.get("function")) + "\n</tool_call>"
            out.append(f"<|im_start|>{role}\n{text}<|im_end|>\n")
        return "".join(out) + "<|im_start|>assistant\n"

    @classmethod
    def count(cls, text: str) -> int:
        return -(-len(text) // cls.CHARS_PER_TOKEN)

    def _post(self, handler, body):
        if handler.path == "/tokenize" and self.tokenizer:
            return self._send_json(handler, 200, {"tokens": list(range(self.count(body.get("content") or "")))})
        if handler.path == "/apply-template" and self.tokenizer:
            return self._send_json(handler, 200, {"prompt": self.render(body.get("messages") or [],
                                                                        body.get("tools"))})
        if handler.path != "/v1/chat/completions":
            return self._send_json(handler, 404, {"error": {"code": 404, "message": "File Not Found",
                                                            "type": "not_found_error"}})
        messages = body.get("messages", [])
        prompt = self.render(messages, body.get("tools"))
        total = self.count(prompt)
        if total > self.n_ctx and self.overflow == "refuse":
            return self._send_json(handler, 400, {"error": {
                "code": 400, "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error", "n_prompt_tokens": total, "n_ctx": self.n_ctx}})
        turn = self._chat_turn(handler, body, messages)
        if turn is None:
            return None
        message, finish, written = bounded(*turn, body.get("max_tokens"))
        with self._lock:
            shared = len(os.path.commonprefix([self._slot, prompt])) // self.CHARS_PER_TOKEN
            self._slot = prompt
        read = total if total <= self.n_ctx else self.n_ctx // 2  # an older server's cut: half the context kept
        cached = min(shared, read - 1)  # the slot evaluates at least the last token again
        self._send_json(handler, 200, {
            "choices": [{"finish_reason": finish, "index": 0, "message": message}],
            "created": int(time.time()), "model": body.get("model", ""), "system_fingerprint": "b0-standin",
            "object": "chat.completion", "id": "chatcmpl-" + uuid.uuid4().hex[:12],
            "usage": {"completion_tokens": written, "prompt_tokens": read, "total_tokens": read + written,
                      "prompt_tokens_details": {"cached_tokens": cached}},
            "timings": {"cache_n": cached, "prompt_n": read - cached, "prompt_ms": 1.0,
                        "prompt_per_token_ms": 1.0 / max(read - cached, 1),
                        "prompt_per_second": 1000.0 * (read - cached), "predicted_n": written,
                        "predicted_ms": 1.0, "predicted_per_token_ms": 1.0 / written,
                        "predicted_per_second": 1000.0 * written}})


class RecordedLlamaServer(ScriptedEndpoint):
    """llama-server as a real run recorded it (`probes/local_model.py --record FILE`: one JSON line per request,
    {"method", "path", "request", "status", "response", "seconds"}), replayed: each request is answered with what the
    real server answered to the same request, its status and body as they were (llama.cpp's usage, timings, tool
    calls and finish reasons, unedited). GET endpoints answer as recorded, by path.

    A chat request that matches no recorded one (the harness now asks differently: another system prompt, tool
    list or tool result) gets the next unused recorded answer in order and is listed in `.unmatched` with where it
    first differs, so a test can demand that the harness still sends what was recorded. One difference is let
    pass, and counted in `.unbound`: a recording made before the harness sent max_tokens answers a request that
    adds only that bound, when the recorded answer stayed under it (unbound_answer_fits). Any other POST that was
    not recorded is answered 404, as a server without that endpoint would."""

    CHAT = "/v1/chat/completions"

    def __init__(self, recording):
        from pathlib import Path  # noqa: PLC0415  only the replay reads files

        path = Path(recording)
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        try:
            self.exchanges = [json.loads(line) for line in lines]
        except ValueError as exc:
            raise ValueError(f"{path}: not a recording (one JSON object a line): {exc}") from None
        if not self.exchanges or not all(isinstance(e, dict) and {"method", "path", "status", "response"} <= set(e)
                                         for e in self.exchanges):
            raise ValueError(f"{path}: not a recording (each line needs method, path, status and response)")
        self.recording = path
        self._gets = {e["path"]: e for e in self.exchanges if e["method"] == "GET"}
        self._chats = [e for e in self.exchanges if e["method"] == "POST" and e["path"] == self.CHAT]
        self._posts = [e for e in self.exchanges if e["method"] == "POST" and e["path"] != self.CHAT]
        self._used: set[int] = set()
        self.unmatched: list[str] = []
        self.unbound: list[int] = []  # the chat requests answered by a recorded one that had no max_tokens
        super().__init__()

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    @staticmethod
    def canonical(body: Any) -> str:
        return json.dumps(body, sort_keys=True, ensure_ascii=False)

    @classmethod
    def unbound_answer_fits(cls, exchange: dict, asked: dict) -> bool:
        """A recording made before the harness bounded a reply (its requests have no max_tokens) still answers a
        request that differs from the recorded one by that bound alone, when the recorded answer ended on its own
        and wrote fewer tokens than the bound: the bound could not have changed it. An answer the bound would
        have cut does not fit, and the request is said as not recorded."""
        recorded = exchange.get("request")
        if not isinstance(recorded, dict) or "max_tokens" in recorded or not isinstance(asked, dict):
            return False
        bound = asked.get("max_tokens")
        if not isinstance(bound, int) or cls.canonical(recorded) != cls.canonical(
                {k: v for k, v in asked.items() if k != "max_tokens"}):
            return False
        answer = exchange.get("response") if exchange.get("status") == 200 else None
        if not isinstance(answer, dict):
            return False
        written = (answer.get("usage") or {}).get("completion_tokens")
        ended = all(c.get("finish_reason") != "length" for c in answer.get("choices") or [])
        return isinstance(written, int) and written < bound and ended

    def _answer(self, handler, exchange: Optional[dict]) -> None:
        if exchange is None:
            return self._send_json(handler, 404, {"error": {"code": 404, "message": "not recorded",
                                                            "type": "not_found_error"}})
        return self._send_json(handler, exchange["status"], exchange["response"])

    def _get(self, handler):
        self._answer(handler, self._gets.get(handler.path))

    def _post(self, handler, body):
        key = self.canonical(body)
        if handler.path != self.CHAT:
            return self._answer(handler, next((e for e in self._posts
                                               if e["path"] == handler.path and self.canonical(e["request"]) == key),
                                              None))
        with self._lock:
            unused = [i for i in range(len(self._chats)) if i not in self._used]
            same = next((i for i in unused if self.canonical(self._chats[i]["request"]) == key), None)
            if same is None:
                same = next((i for i in unused if self.unbound_answer_fits(self._chats[i], body)), None)
                if same is not None:
                    self.unbound.append(len(self._used) + 1)
            chosen = same if same is not None else (unused[0] if unused else None)
            if chosen is not None:
                self._used.add(chosen)
            if same is None:
                ordinal = len(self._used) if chosen is not None else len(self._chats) + 1
                recorded = self._chats[chosen]["request"] if chosen is not None else None
                self.unmatched.append(f"chat request {ordinal}: {first_difference(recorded, body)}")
        self._answer(handler, None if chosen is None else self._chats[chosen])


def first_difference(recorded: Any, asked: Any) -> str:
    """Where a request first differs from the recorded one, in a few words."""
    if not isinstance(recorded, dict):
        return "more requests than were recorded"
    for key in sorted(set(recorded) | set(asked)):
        if key == "messages":
            continue
        if recorded.get(key) != asked.get(key):
            return f"{key} differs"
    old, new = recorded.get("messages") or [], asked.get("messages") or []
    for i, (a, b) in enumerate(zip(old, new)):
        if a != b:
            return (f"message {i} ({b.get('role') if isinstance(b, dict) else '?'}) differs: recorded "
                    f"{json.dumps(a)[:120]}, asked {json.dumps(b)[:120]}")
    return f"{len(new)} messages where {len(old)} were recorded"
