"""A scripted Claude model behind the real Claude CLI, for a hillclimb with the CLI in the loop: `-p cli_agent` (with
tests/agents on PYTHONPATH) starts it as the run's Messages API endpoint, and every agent trial's CLI talks to it.
It decides only from what the CLI sends it, which is what a Claude model reads.

Its play, for a sign-in task (tests/surfaces/cli_suite): its first move misses on purpose (a tap on a ref before any
map); it goes on only if the error it got carries a remedy naming app_map ("(remedy: ...)", which the CLI passes on
only in the error's text), and then signs in as the prompt says; else it says it cannot. It is noisy: a trial it
could win it gives up at random, NOISE of the time, so a variant's effect has to be told from chance.

A task whose prompt says "from a fresh start" (the held-out tasks of the dev-only arm, MOBIUM_CLI_SUITE=dev-only) is
another kind: it looks for how to recover in app_map's description instead, and goes on only if that says REF_FACT.
A remedy tuned on the dev tasks' errors does nothing for it."""

from __future__ import annotations

import json
import random
import re
import uuid

from standins import AnthropicStandin, endpoint_per_process

NOISE = 0.2
MISS = "@e999"
FRESH = "from a fresh start"
REF_FACT = "a ref is valid only until the screen changes"


def _user_texts(messages: list[dict]) -> list[str]:
    out = []
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            out.append(content)
        elif message.get("role") == "user" and isinstance(content, list):
            out += [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return out


def _tool_results(messages: list[dict]) -> list[str]:
    out = []
    for message in messages:
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                out.append(inner if isinstance(inner, str) else
                           "".join(b.get("text", "") for b in inner or [] if isinstance(b, dict)))
    return out


class ReadingModel(AnthropicStandin):
    def __init__(self, noise: float = NOISE, seed: int | None = None):
        super().__init__()
        self.noise = noise
        self.rng = random.Random(seed)

    def plan(self, body: dict) -> list:
        """The whole conversation's moves, from its prompt and what the tools answered so far."""
        messages = body.get("messages", [])
        prompt = next((t for t in _user_texts(messages) if "sign in" in t), "")
        found = re.search(r"username (\S+?),? password (\S+?)[,.]", prompt)
        username, password = found.groups() if found else ("mobium", "hunter2")
        results = _tool_results(messages)
        moves: list = [("app_tap", {"target": MISS})]
        if not results:
            return moves
        if FRESH in prompt:  # the other kind: it reads how to recover from app_map's description
            described = next((t.get("description") or "" for t in body.get("tools", [])
                              if t.get("name", "").endswith("__app_map")), "")
            if REF_FACT not in described:
                return moves + [("cannot", "the tap was refused and app_map's description did not say why")]
        else:
            shown = re.search(r"\(remedy: ([^)]*)\)", results[0])
            if not shown or "app_map" not in shown.group(1):  # the miss's error gave no remedy saying how to recover
                return moves + [("cannot", "the tap was refused and nothing said what to do")]
        # Drawn once a conversation, as the miss's answer comes back: a conversation that goes on past it has
        # already drawn to go on.
        if len(results) == 1 and self.rng.random() < self.noise:
            return moves + [("cannot", "gave up")]
        return moves + [("app_map", {}), ("app_tap", {"target": "label=Login Demo"}),
                        ("app_fill", {"target": "testid=username", "text": username}),
                        ("app_fill", {"target": "testid=password", "text": password}),
                        ("app_tap", {"target": "testid=loginBtn"}),
                        ("app_wait_for", {"target": "testid=welcomeText", "timeout_ms": 5000}),
                        ("done", "signed in")]

    def _post(self, handler, body):
        if not handler.path.startswith("/v1/messages"):
            return self._send_json(handler, 404, {"type": "error", "error": {"type": "not_found_error"}})
        with self._lock:
            self.requests.append(body)
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        answered = any(isinstance(b, dict) and b.get("name") == "StructuredOutput"
                       for m in body.get("messages", []) if m.get("role") == "assistant"
                       for b in (m.get("content") if isinstance(m.get("content"), list) else []))
        if answered:  # the claim was given: whatever the CLI asks after it
            return self._stream(handler, body.get("model", "claude"), {"type": "text", "text": "Finished."})
        moves = self.plan(body)
        tool_names = [t.get("name", "") for t in body.get("tools", [])]
        move = moves[min(turn, len(moves) - 1)]
        if move[0] in ("done", "cannot"):
            answer = {"status": move[0], "answer": None, "reason": move[1]}
            if "StructuredOutput" in tool_names:
                block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": "StructuredOutput",
                         "input": answer}
            else:
                block = {"type": "text", "text": json.dumps(answer)}
        else:
            name = next((n for n in tool_names if n.endswith("__" + move[0])), "mcp__mobium__" + move[0])
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": name, "input": move[1]}
        self._stream(handler, body.get("model", "claude"), block)


pytest_configure, pytest_unconfigure = endpoint_per_process(ReadingModel)
