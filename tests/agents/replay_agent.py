"""A noisy scripted Claude model behind the real Claude CLI that does MobiumApp's own tasks: `-p replay_agent` (with
tests/agents on PYTHONPATH) starts it as the run's Messages API endpoint, and every agent trial's CLI talks to it.
The recall probe of the hillclimb (probes/hillclimb_recall.py) runs whole hillclimbs with it.

What it knows is what a model would: the task's prompt (it finds the task whose prompt template it is, and reads
the parameters back out of it) and the tool answers the CLI passes on (a success's structured content as JSON, an
error's text). Its skill is the task's own reference script, played move by move through the CLI: each of the
script's tool calls is one tool_use this endpoint answers with, and the script's next step waits for the CLI's
tool_result (the script runs in a thread of its own, so its waits and polls take the time they take on a device).

Its play, on every trial:

1. It maps the screen (app_map).
2. With probability MISS it then taps a ref the map never had (a made-up ref): refused with `invalid_argument`,
   "unknown ref @eN — the last map has …". It goes on only when the refusal's text, as the CLI passed it, names
   app_map (a remedy shown in the message); then it maps again. Else it says it cannot. Mobium's remedy for this
   refusal ("run app_map again and use one of its refs") is in the error's structured payload, which the CLI never
   passes on: under `baseline` the agent never sees it, so the fix the hillclimb exists to find is that remedy
   shown in the text.
3. With probability SLIP it gives up anyway ("cannot"): a slip on any task, whatever the surface says.
4. Else it plays the task's reference script to its end and claims what the script claims.

MISS and SLIP come from MOBIUM_REPLAY_MISS and MOBIUM_REPLAY_SLIP (default 0.45 and 0.2: about 44% of trials pass
under baseline and 80% with the fix, the +36-point fix of issue 40's external check). The draws take fresh entropy in
each pytest process (an xdist worker too), as tests/agents/cli_agent.py's do: a hillclimb's seed fixes its own
choices, not every slip. MOBIUM_REPLAY_MISS=0 MOBIUM_REPLAY_SLIP=0 is the agent's own control: every task it is
used on must then pass (probes/hillclimb_recall.py --calibrate)."""

from __future__ import annotations

import collections
import json
import os
import queue
import random
import re
import threading
import uuid
from pathlib import Path
from typing import Any, Optional

from standins import AnthropicStandin, endpoint_per_process

from pytest_mobium_evals.core.tasks import Claim
from pytest_mobium_evals.reach.toolserver import ToolError, ToolResult

MISS = float(os.environ.get("MOBIUM_REPLAY_MISS", "0.45"))
SLIP = float(os.environ.get("MOBIUM_REPLAY_SLIP", "0.2"))
TASK_PATHS = os.environ.get("MOBIUM_REPLAY_TASKS", "tasks/mobiumapp_tasks")
WAIT_S = 180.0  # the longest the endpoint waits for the script's next move (its own waits are far shorter)


class _Ended(Exception):
    """The conversation was given up by the CLI (a new trial began): the script's thread ends here."""


def _prompt_pattern(template: str) -> re.Pattern:
    """A task's prompt template as a regex whose named groups are its parameters."""
    out, seen = [], set()
    for literal, field, _, _ in __import__("string").Formatter().parse(template):
        out.append(re.escape(literal))
        if field is None:
            continue
        out.append(f"(?P={field})" if field in seen else f"(?P<{field}>.+?)")
        seen.add(field)
    return re.compile("".join(out), re.S)


class Tasks:
    """The tasks this agent can do, found by their prompt. A task with a parameter its prompt does not say, or that is
    not a plain string, number or boolean, or with an injection twin, is not one it plays."""

    def __init__(self, paths: str = TASK_PATHS):
        from pytest_mobium_evals.suites.catalog import load_task_definitions

        self.tasks = []
        for task in load_task_definitions([Path(p) for p in paths.split(",")]).values():
            if task.reference is None or task.injection is not None or task.clean_of is not None:
                continue
            sample = task.seeded_params(0, 0)
            pattern = _prompt_pattern(task.prompt)
            # every parameter read back from the prompt (one the prompt does not say, the agent cannot know)
            if set(sample) - set(pattern.groupindex) or not all(
                    isinstance(v, (str, int, float, bool)) for v in sample.values()):
                continue
            self.tasks.append((task, pattern, {k: type(v) for k, v in sample.items()}))
        # the longest template first: a prompt that fits two is the more specific one's
        self.tasks.sort(key=lambda entry: -len(entry[0].prompt))

    def find(self, texts: list[str]) -> Optional[tuple[Any, dict]]:
        for text in texts:
            for task, pattern, types in self.tasks:
                found = pattern.fullmatch(text.strip())
                if found:
                    params = {}
                    for key, kind in types.items():
                        value = found.group(key)
                        params[key] = (value == "True") if kind is bool else kind(value)
                    return task, params
        return None


def answer_of(content: Any, is_error: bool) -> ToolResult:
    """A tool_result as the CLI passed it, as the script's `ToolResult`: an error is its text (the payload never
    reaches the model); a success is the structured content's JSON, whose "text" (app_text) or map lines (app_map,
    as the server prints each element) stand for the text block the model never reads."""
    text = content if isinstance(content, str) else "".join(
        b.get("text", "") for b in content or [] if isinstance(b, dict))
    if is_error:
        return ToolResult(text, None, True)
    try:
        data = json.loads(text)
    except ValueError:
        return ToolResult(text, None, False)
    if not isinstance(data, dict):
        return ToolResult(text, None, False)
    if isinstance(data.get("text"), str):
        return ToolResult(data["text"], data, False)
    if isinstance(data.get("elements"), list):
        from pytest_mobium_evals.surface.rewrite import element_line

        lines = [element_line(e, {}) for e in data["elements"] if isinstance(e, dict) and "label" in e]
        return ToolResult("\n".join(lines), data, False)
    return ToolResult(text, data, False)


class ScriptTools:
    """What a reference script calls (`reach.toolserver.Tools`' call and app_* sugar), each call one move of the
    conversation: handed to the endpoint, answered by the CLI's next tool_result."""

    def __init__(self, session: "Session"):
        self.session = session
        self.calls = 0

    def call(self, name: str, /, *, check: bool = True, timeout: Optional[float] = None, **arguments) -> ToolResult:
        self.calls += 1
        result = self.session.ask(name, arguments)
        if result.is_error and check:
            raise ToolError(name, result)
        return result

    def __getattr__(self, attr: str):
        if attr.startswith("_"):
            raise AttributeError(attr)

        def caller(check: bool = True, **arguments):
            return self.call("app_" + attr, check=check, **arguments)
        return caller


class Session:
    """One conversation: the agent's play in a thread, one move at a time."""

    def __init__(self, task, params: dict, rng: random.Random):
        self.task, self.params, self.rng = task, params, rng
        self.moves: queue.Queue = queue.Queue()  # ("call", name, arguments) or ("final", Claim)
        self.answers: queue.Queue = queue.Queue()  # ToolResult, or None: the conversation ended
        self.emitted: list[tuple] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def ask(self, name: str, arguments: dict) -> ToolResult:
        self.moves.put(("call", name, arguments))
        answer = self.answers.get()
        if answer is None:
            raise _Ended()
        return answer

    def next_move(self) -> tuple:
        move = self.moves.get(timeout=WAIT_S)
        self.emitted.append(move)
        return move

    def end(self) -> None:
        self.answers.put(None)

    def _run(self) -> None:
        try:
            claim = self.play(ScriptTools(self))
        except _Ended:
            return
        except ToolError as exc:  # a step of the script refused where the script did not expect it
            claim = Claim("cannot", None, f"a step was refused: {exc}")
        except Exception as exc:  # the script could not go on (DriverError: what the screen showed)
            claim = Claim("cannot", None, f"{type(exc).__name__}: {exc}"[:500])
        self.moves.put(("final", claim))

    def play(self, tools: ScriptTools) -> Claim:
        screen = tools.call("app_map")
        if self.rng.random() < MISS:
            refs = [int(e["ref"][2:]) for e in (screen.data or {}).get("elements", [])
                    if str(e.get("ref", "")).startswith("@e") and e["ref"][2:].isdigit()]
            refused = tools.call("app_tap", target=f"@e{max(refs, default=0) + 7}", check=False)
            if refused.is_error and "app_map" not in refused.text:
                return Claim("cannot", None, "the tap was refused and the refusal did not say how to go on")
            tools.call("app_map")
        if self.rng.random() < SLIP:
            return Claim("cannot", None, "gave up")
        claim = self.task.reference(tools, dict(self.params))
        return claim if isinstance(claim, Claim) else Claim("done")


def _user_texts(messages: list[dict]) -> list[str]:
    out = []
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user":
            continue
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return out


def _tool_results(messages: list[dict]) -> list[dict]:
    return [block for message in messages if isinstance(message.get("content"), list)
            for block in message["content"] if isinstance(block, dict) and block.get("type") == "tool_result"]


class ReplayModel(AnthropicStandin):
    def __init__(self, seed: Optional[int] = None, tasks: Optional[Tasks] = None):
        super().__init__()
        self.requests = collections.deque(maxlen=20)  # the base class keeps every body; a long run needs few
        self.rng = random.Random(seed)
        self._tasks = tasks
        self._session: Optional[Session] = None
        self._turn = threading.Lock()

    def close(self) -> None:
        if self._session is not None:
            self._session.end()  # the last trial's script and its tools
        super().close()

    @property
    def tasks(self) -> Tasks:
        if self._tasks is None:
            self._tasks = Tasks()
        return self._tasks

    def reply(self, body: dict) -> dict:
        """The next content block for this request: a tool_use, the final answer, or text."""
        messages = body.get("messages", [])
        if any(isinstance(b, dict) and b.get("name") == "StructuredOutput"
               for m in messages if m.get("role") == "assistant"
               for b in (m.get("content") if isinstance(m.get("content"), list) else [])):
            return {"type": "text", "text": "Finished."}  # the claim was given: whatever the CLI asks after it
        results = _tool_results(messages)
        with self._turn:
            if not results:
                found = self.tasks.find(_user_texts(messages))
                if found is None:
                    return self._final(Claim("cannot", None, "no task of mine has this prompt"), body)
                if self._session is not None:
                    self._session.end()
                self._session = Session(*found, random.Random(self.rng.random()))
            session = self._session
            if session is None:
                return self._final(Claim("cannot", None, "lost the conversation"), body)
            if not results:
                move = session.next_move()
            elif len(results) == len(session.emitted):
                last = results[-1]
                session.answers.put(answer_of(last.get("content"), bool(last.get("is_error"))))
                move = session.next_move()
            elif len(results) == len(session.emitted) - 1 and session.emitted:
                move = session.emitted[-1]  # the CLI asked again (a retry): the same move
            else:
                return self._final(Claim("cannot", None, "lost the conversation"), body)
        if move[0] == "final":
            return self._final(move[1], body)
        _, name, arguments = move
        tools = [t.get("name", "") for t in body.get("tools", [])]
        full = next((n for n in tools if n.endswith("__" + name)), "mcp__mobium__" + name)
        return {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": full, "input": arguments}

    @staticmethod
    def _final(claim: Claim, body: dict) -> dict:
        answer = claim.to_json()
        answer = {"status": answer.get("status") or "cannot", "answer": answer.get("answer"),
                  "reason": answer.get("reason") or ""}
        if any(t.get("name") == "StructuredOutput" for t in body.get("tools", [])):
            return {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": "StructuredOutput",
                    "input": answer}
        return {"type": "text", "text": json.dumps(answer)}

    def _post(self, handler, body):
        if not handler.path.startswith("/v1/messages"):
            return self._send_json(handler, 404, {"type": "error", "error": {"type": "not_found_error"}})
        self._stream(handler, body.get("model", "claude"), self.reply(body))


pytest_configure, pytest_unconfigure = endpoint_per_process(ReplayModel)
