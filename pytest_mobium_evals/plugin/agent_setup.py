"""The agent trials' settings, as one object: the --model settings, the surface variants they run under, each
setting's first request as counted before any trial, and the limits a trial is given. Made from the run's options
(options.RunOptions) in every process; a bad --model, --trial-timeout or --surface is a usage error on the
controller, before collection."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

import pytest

from pytest_mobium_evals.core.setting import includes_agent

from .options import RunOptions, parse_trial_timeout

if TYPE_CHECKING:
    from pytest_mobium_evals.drivers.agents import Limits, ModelSetting
    from pytest_mobium_evals.drivers.agents.context import PromptSize

# The agents and what their settings read (the providers' clients, the prompt's counting) load only where a run has
# agent trials; the surface variants only with --surface: this module loads in every pytest run with the plugin.


@dataclass(eq=False)
class AgentSetup:
    options: RunOptions
    root: Path  # where --surface's variant files are found: the rootdir
    # How the run's agent passes a tool's answer to its model, when a plugin replaced the model's client
    # (session.SURFACE_READER, read when asked: a plugin may set it after this object is made)
    reader_override: Callable[[], Optional[str]] = lambda: None
    prompt_lines: list[str] = field(default_factory=list)  # the header's lines on the first requests (`problem`)
    _settings: Optional[list[ModelSetting]] = None
    _surfaces: Optional[dict[str, dict]] = None
    # each setting's first request, counted once (prompt_sizes): (setting label, surface variant) -> its size
    _prompt_sizes: Optional[dict[tuple[str, Optional[str]], PromptSize]] = None

    def check(self) -> None:
        """On the controller, before collection: every --model setting parses, every --trial-timeout SETTING=S names
        one of them (a typo would silently leave that setting at the default), every --surface variant loads."""
        if includes_agent(self.options.drivers):
            labels = [s.label for s in self.settings()]
            trial_timeout = self.options.trial_timeout
            for label in parse_trial_timeout(trial_timeout)[1]:
                if label not in labels:
                    raise pytest.UsageError(f"--trial-timeout {trial_timeout}: {label!r} is not one of the --model "
                                            f"settings ({', '.join(labels)})")
        self.surface_variants()

    def settings(self) -> list[ModelSetting]:
        """--model's settings, parsed once."""
        if self._settings is None:
            from pytest_mobium_evals.drivers import agents  # noqa: PLC0415  only where a run has agent trials

            try:
                self._settings = agents.parse_models(self.options.models)
            except agents.AgentConfigError as exc:
                raise pytest.UsageError(str(exc)) from None
        return self._settings

    def surface_variants(self) -> dict[str, dict]:
        """--surface's variants, name → the plain JSON the proxy applies, each with --tools' selection; {} with
        neither option."""
        if not self.options.surface and not self.options.tools:
            return {}
        if self._surfaces is None:
            from pytest_mobium_evals.surface.variants import SurfaceError, load_all, only_tools  # noqa: PLC0415  only with --surface

            surface, tools = self.options.surface, self.options.tools
            try:
                variants = {v.name: v.plain() for v in load_all(surface, self.root)} if surface else {}
                self._surfaces = only_tools(variants, tools) if tools else variants
            except SurfaceError as exc:
                raise pytest.UsageError(str(exc)) from None
        return self._surfaces

    def limits_for(self, setting: ModelSetting, surface: Optional[str] = None) -> Limits:
        """An agent trial's limits under this model setting (agents.Limits): its own time limit when
        --trial-timeout gives it one, its first request as counted before the run, and the system prompt its
        surface variant tells the model (None: the default)."""
        from pytest_mobium_evals.drivers.agents import Limits  # noqa: PLC0415  only where a run has agent trials
        from pytest_mobium_evals.drivers.agents.prompt import SYSTEM_PROMPT, system_prompt_of  # noqa: PLC0415  only where a run has agent trials

        options = self.options
        seconds, own = options.trial_timeout_for(setting.label)
        system = system_prompt_of(self.surface_variants().get(surface))
        return Limits(max_tool_calls=options.max_tool_calls, max_seconds=seconds, tool_timeout=options.tool_timeout,
                      request_timeout=options.request_timeout, max_seconds_for=own,
                      nudge_text_calls=options.nudge_text_calls,
                      # The tool loop's bounds: the Claude CLI sets its own, so its records say none was sent.
                      max_output_tokens=None if setting.provider == "claude" else options.max_output_tokens or None,
                      require_first_call=options.require_first_call and setting.provider == "openai",
                      prompt_size=self.prompt_sizes().get((setting.label, surface)),
                      system_prompt=None if system == SYSTEM_PROMPT else system)

    def prompt_sizes(self, task_prompt: Optional[str] = None) -> dict[tuple[str, Optional[str]], PromptSize]:
        """Each tool-loop model setting's first request, counted once per process ((label, surface variant) →
        agents.context.PromptSize): the built-in server's tools/list as the variant shows it, the system prompt,
        and the longest task prompt this run schedules (`task_prompt`, given once it is known)."""
        if self._prompt_sizes is None or task_prompt is not None:
            self._prompt_sizes = {}
            if not includes_agent(self.options.drivers):
                return self._prompt_sizes
            from pytest_mobium_evals.drivers.agents.context import measure  # noqa: PLC0415  only where a run has agent trials
            from pytest_mobium_evals.drivers.agents.prompt import system_prompt_of  # noqa: PLC0415  only where a run has agent trials

            for setting in self.settings():
                if setting.provider not in ("ollama", "openai"):
                    continue  # the Claude CLI builds its own requests
                for surface in list(self.surface_variants()) or [None]:
                    functions = offered_functions(self.surface_variants().get(surface))
                    self._prompt_sizes[(setting.label, surface)] = measure(
                        setting, functions, system_prompt_of(self.surface_variants().get(surface)),
                        task_prompt or "", self.options.base_url)
        return self._prompt_sizes

    def problem(self, task_prompt: str) -> tuple[list[str], Optional[str]]:
        """Before any trial: the header's lines on each setting's first request (counted with the longest
        `task_prompt`), and in one line the first reason a setting cannot run, or None: a surface variant none of
        whose edits can reach a model's client, a model setting that cannot run (no credential, endpoint down; no
        lines then, nothing was counted), or a first request that cannot fit its model's context."""
        from pytest_mobium_evals.drivers import agents  # noqa: PLC0415  only where a run has agent trials
        from pytest_mobium_evals.surface.rewrite import reader_of, refusal  # noqa: PLC0415  only with --surface

        for setting in self.settings():
            reader = self.reader_override() or reader_of(setting.provider)
            for variant in self.surface_variants().values():
                problem = refusal(variant, reader)
                if problem:
                    return [], f"--surface: {problem}, so under --model {setting.label} it would only measure noise"
        for setting in self.settings():
            try:
                agents.check_ready(setting, self.options.base_url)
            except agents.AgentConfigError as exc:
                return [], str(exc)
        lines, problem = [], None
        for (_, surface), size in self.prompt_sizes(task_prompt).items():
            lines.append(size.line() + (f" [surface {surface}]" if surface else ""))
            if problem is None and not size.fits():
                problem = size.refusal()
        return lines, problem


def offered_functions(variant: Optional[dict]) -> list[dict]:
    """The functions a tool-loop model is offered (agents.loop.function_schema), from the built-in server's
    tools/list as the surface variant shows it (its hidden tools left out, its descriptions edited)."""
    from pytest_mobium_evals.drivers.agents.loop import function_schema  # noqa: PLC0415  mcp and the tool loop: only for a tool-loop model's offered functions
    from pytest_mobium_evals.mobium_server.server import tool_list  # noqa: PLC0415  mcp and the tool loop: only for a tool-loop model's offered functions
    from pytest_mobium_evals.surface.rewrite import apply_tools  # noqa: PLC0415  mcp and the tool loop: only for a tool-loop model's offered functions

    listed = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tool_list()]
    if variant:
        listed = apply_tools(variant, listed)
    return [function_schema(_Listed(t)) for t in listed]


class _Listed:
    """A tools/list entry read as the MCP client's Tool is (function_schema reads attributes)."""

    def __init__(self, entry: dict):
        self.name = entry["name"]
        self.description = entry.get("description")
        self.input_schema = entry.get("inputSchema")
