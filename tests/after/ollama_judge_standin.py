"""A scripted Ollama endpoint (`POST /api/chat`) for the judge's tests: a policy decides each reply from the true
value and the answer in the prompt, so a test can play a good judge, a gullible one, or one that flips."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Union

# policy(truth, answer, request_number) -> True/False (a reply), or a str sent as the raw message content
Policy = Callable[[str, str, int], Union[bool, str]]


class OllamaJudgeStandin:
    def __init__(self, policy: Policy):
        self.policy = policy
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if self.path != "/api/chat":
                    return self._send(404, {"error": "not found"})
                if body.get("model") != "llama3.1:8b":
                    return self._send(404, {"error": f"model '{body.get('model')}' not found"})
                with standin._lock:
                    standin.requests.append(body)
                    number = len(standin.requests)
                prompt = body["messages"][-1]["content"]
                truth = re.search(r"^True value: (.*)$", prompt, re.M).group(1)
                answer = re.search(r"^Agent's answer: (.*)$", prompt, re.M).group(1)
                reply = standin.policy(truth, answer, number)
                content = reply if isinstance(reply, str) else json.dumps({"right": reply, "why": "scripted"})
                self._send(200, {"model": body["model"], "created_at": "2026-11-29T00:00:00Z",
                                 "message": {"role": "assistant", "content": content},
                                 "done": True, "done_reason": "stop"})

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
