"""The reflection model gepa asks for each proposal, as gepa's `reflection_lm` callable (prompt -> text).

`--reflect` takes `--model`'s names (haiku, sonnet, opus or claude-<id>, ollama/<name>, openai/<name>, each with
an optional :effort), answered through `agents.text`, or `python:MODULE`: a module of one's own whose
`reflect(prompt) -> str | (text, tokens_in, tokens_out)` answers (how the offline tests run a scripted reflector
through this same path).

Every answer is written, atomically, to `reflections/NNNN.json` in the hillclimb's folder, with the prompt's hash,
the tokens and the cost. A resumed hillclimb asked the same prompt again gets the recorded answer back and spends
nothing: the search replays to where it stopped, then goes on. The tokens of every answer, recorded or new, count
toward the budget."""

from __future__ import annotations

import hashlib
import importlib
import json
from pathlib import Path
from typing import Any, Callable, Optional

from pytest_mobium_evals.core.errors import MobiumEvalsError, UsageError
from pytest_mobium_evals.drivers.agents import check_ready, parse_models
from pytest_mobium_evals.drivers.agents.base import AgentConfigError
from pytest_mobium_evals.drivers.agents.text import complete
from pytest_mobium_evals.runfolder.files import atomic_write_json, read_json

PYTHON_PREFIX = "python:"


class ReflectionError(MobiumEvalsError, ValueError):
    """A reflection model that cannot be used, in one line."""


def _estimated_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def resolve(name: str, base_url: Optional[str] = None) -> tuple[str, Callable[[str], tuple]]:
    """(label, answer(prompt) -> (text, tokens_in, tokens_out, cost_usd or None)), or ReflectionError."""
    if name.startswith(PYTHON_PREFIX):
        module_name = name[len(PYTHON_PREFIX):]
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ReflectionError(f"--reflect {name}: cannot import {module_name} ({exc}); is its folder on "
                                  f"PYTHONPATH?") from None
        reflect = getattr(module, "reflect", None)
        if not callable(reflect):
            raise ReflectionError(f"--reflect {name}: {module_name} has no reflect(prompt) function")

        def answer_python(prompt: str) -> tuple:
            out = reflect(prompt)
            if isinstance(out, str):
                return out, _estimated_tokens(prompt), _estimated_tokens(out), 0.0
            text, tokens_in, tokens_out = out
            return text, int(tokens_in), int(tokens_out), 0.0
        return name, answer_python

    try:
        settings = parse_models(name)
        if len(settings) != 1:
            raise ReflectionError(f"--reflect {name}: name one model")
        check_ready(settings[0], base_url)
    except AgentConfigError as exc:
        raise ReflectionError(f"--reflect: {exc}") from None
    setting = settings[0]

    def answer_provider(prompt: str) -> tuple:
        reply = complete(setting, prompt, base_url)
        return reply.text, reply.tokens_in, reply.tokens_out, reply.cost_usd
    return setting.label, answer_provider


class ReflectionModel:
    """gepa's reflection_lm: called with the proposal prompt, answers text; keeps count of tokens and cost (it has
    `total_cost`, so gepa uses these counts rather than wrapping it in its own estimate)."""

    def __init__(self, label: str, answer: Callable[[str], tuple], folder: Path):
        self.label = label
        self._answer = answer
        self.folder = folder
        self.calls: list[dict] = []  # this invocation's, replayed ones included
        self.entries: list[dict] = []  # every answer recorded in the folder, by earlier invocations too
        self._recorded: dict[str, dict] = {}
        for path in sorted(folder.glob("*.json")):
            try:
                entry = read_json(path)
                self._recorded.setdefault(entry["prompt_sha"], entry)
                self.entries.append(entry)
            except (UsageError, KeyError, TypeError):
                raise ReflectionError(f"{path}: not a recorded reflection (remove it to ask again)") from None
        self.replayed = 0
        self._written = len(list(folder.glob("*.json")))

    # The totals are over every recorded answer, so a resumed hillclimb's budget goes on from where it stopped.
    @property
    def total_tokens_in(self) -> int:
        return sum(c["tokens_in"] for c in self.entries)

    @property
    def total_tokens_out(self) -> int:
        return sum(c["tokens_out"] for c in self.entries)

    @property
    def total_tokens(self) -> int:
        return self.total_tokens_in + self.total_tokens_out

    @property
    def total_cost(self) -> float:
        return sum(c.get("cost_usd") or 0.0 for c in self.entries)

    @property
    def cost_known(self) -> bool:
        return all(c.get("cost_usd") is not None for c in self.entries)

    def __call__(self, prompt: Any) -> str:
        text_prompt = prompt if isinstance(prompt, str) else json.dumps(prompt, ensure_ascii=False, default=str)
        sha = hashlib.sha256(text_prompt.encode("utf-8")).hexdigest()
        entry = self._recorded.pop(sha, None)
        if entry is not None:
            self.replayed += 1
        else:
            text, tokens_in, tokens_out, cost = self._answer(text_prompt)
            entry = {"prompt_sha": sha, "model": self.label, "prompt": text_prompt, "answer": text,
                     "tokens_in": tokens_in, "tokens_out": tokens_out, "cost_usd": cost}
            self._written += 1
            atomic_write_json(self.folder / f"{self._written:04d}.json", entry)
            self.entries.append(entry)
        self.calls.append(entry)
        return entry["answer"]
