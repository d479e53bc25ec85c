"""The run's options, frozen: made once on the controller from the command line (with the rules that decide them:
the seed from --seed, from the run --resume continues, or from --baseline's run so the two compare; --resume
restoring the stored options; a --run-dir that already holds a run refused), stored in record.json, and handed to
every xdist worker unchanged. A bad value is a usage error in one line, before any trial."""

from __future__ import annotations

import dataclasses
import os
import random
from dataclasses import dataclass
from typing import Optional, Union

import pytest

from pytest_mobium_evals.core.errors import RecordError
from pytest_mobium_evals.core.setting import includes_agent
from pytest_mobium_evals.core.verdicts import ALL_CONTROL_DRIVERS, DRIVERS
from pytest_mobium_evals.runfolder.layout import RECORD, default_run_dir
from pytest_mobium_evals.runfolder.reading import is_run, read_record

#: The options record.json keeps and --resume restores (the seed, run folder and resumed flag are the run's own).
STORED = ("driver", "models", "repeats", "device", "adb", "mobium_bin", "clock_speed", "device_pace", "tool_timeout",
          "max_tool_calls", "trial_timeout", "enforce_max_steps", "base_url", "surface", "tool_server",
          "mobium_driver", "mobium_env", "request_timeout", "nudge_text_calls", "tools", "max_output_tokens",
          "require_first_call")


def parse_trial_timeout(value) -> tuple[float, dict[str, float]]:
    """`--trial-timeout`: (the seconds for every model setting, {setting label: its own seconds}). The value is a
    number, or comma-separated `LABEL=S` entries with at most one bare number for the settings not named (300 when
    there is none). Raises ValueError naming the bad entry."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _seconds(value, str(value)), {}
    default, own = 300.0, {}
    bare = 0
    for entry in (e.strip() for e in str(value).split(",")):
        if not entry:
            raise ValueError("an empty entry")
        label, equals, seconds = entry.rpartition("=")
        if not equals:
            bare += 1
            if bare > 1:
                raise ValueError(f"two values for every setting ({entry!r}); name a setting as SETTING=S")
            default = _seconds(entry, entry)
        elif not label.strip():
            raise ValueError(f"{entry!r} names no model setting before '='")
        elif label.strip() in own:
            raise ValueError(f"{label.strip()!r} is given twice")
        else:
            own[label.strip()] = _seconds(seconds, entry)
    return default, own


def _seconds(text, entry: str) -> float:
    try:
        seconds = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"{entry!r} is not a number of seconds") from None
    if not seconds > 0:
        raise ValueError(f"{entry!r}: seconds must be positive")
    return seconds


def parse_drivers(text: str) -> tuple[str, ...]:
    """`--driver`'s drivers: one, or several comma separated; `controls` is every control. Raises ValueError."""
    out: list[str] = []
    for word in (w.strip() for w in str(text).split(",")):
        if word == "controls":
            out += ALL_CONTROL_DRIVERS
        elif word in DRIVERS:
            out.append(word)
        else:
            raise ValueError(f"{word!r} is not a driver (one of {', '.join(DRIVERS)}, or controls)")
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class RunOptions:
    seed: int
    run_dir: str
    resumed: bool
    driver: str
    models: str
    repeats: int
    device: str
    adb: str
    mobium_bin: Optional[str]
    clock_speed: float
    device_pace: Optional[str]  # the virtual device's pace, fast or emulator (sim/pace.py)
    tool_timeout: float
    max_tool_calls: int
    trial_timeout: Union[float, str]  # seconds, or SETTING=S entries (parse_trial_timeout)
    enforce_max_steps: bool
    base_url: Optional[str]
    surface: Optional[str] = None  # --surface: variant names, comma separated (surface/variants.py)
    tool_server: Optional[str] = None  # --tool-server: the agent's stdio MCP server in place of Mobium, as typed
    mobium_driver: Optional[str] = None  # --mobium-driver: `mobium mcp --driver NAME`
    mobium_env: Optional[dict] = None  # --mobium-env NAME=VALUE…: added to the Mobium server's environment
    request_timeout: float = 300.0  # one model request (older records: the fixed 300 s it was)
    nudge_text_calls: bool = False  # --nudge-text-calls
    tools: Optional[str] = None  # --tools: the only tools offered, comma separated (AgentSetup.surface_variants)
    # --max-output-tokens (0: none sent); older records: None, no bound was sent then
    max_output_tokens: Optional[int] = None
    require_first_call: bool = False  # --require-first-call

    @classmethod
    def from_config(cls, config: pytest.Config) -> "RunOptions":
        opt = config.option
        options = {
            "driver": opt.mobium_driver, "models": opt.mobium_model, "repeats": opt.mobium_repeats,
            "device": opt.mobium_device, "adb": opt.mobium_adb,
            "mobium_bin": opt.mobium_bin or os.environ.get("MOBIUM_BIN") or None,
            "clock_speed": opt.mobium_clock_speed, "device_pace": opt.mobium_device_pace,
            "tool_timeout": opt.mobium_tool_timeout,
            "max_tool_calls": opt.mobium_max_tool_calls, "trial_timeout": opt.mobium_trial_timeout,
            "enforce_max_steps": opt.mobium_enforce_max_steps, "base_url": opt.mobium_base_url,
            "surface": getattr(opt, "mobium_surface", None),
            "tool_server": getattr(opt, "mobium_tool_server", None) or None,
            "mobium_driver": getattr(opt, "mobium_mobium_driver", None) or None,
            "mobium_env": _env_pairs(getattr(opt, "mobium_mobium_env", None) or ()) or None,
            "request_timeout": getattr(opt, "mobium_request_timeout", 300.0),
            "nudge_text_calls": getattr(opt, "mobium_nudge_text_calls", False),
            "tools": getattr(opt, "mobium_tools", None),
            "max_output_tokens": getattr(opt, "mobium_max_output_tokens", 4096),
            "require_first_call": getattr(opt, "mobium_require_first_call", False),
        }
        seed = opt.mobium_seed
        resumed = False
        if opt.mobium_resume:
            try:
                record = read_record(opt.mobium_resume)
            except RecordError as exc:
                raise pytest.UsageError(f"--resume: {exc}") from None
            if not isinstance(record.seed, int):
                raise pytest.UsageError(f"--resume {opt.mobium_resume}: its {RECORD} has no seed")
            seed = record.seed
            stored = record.options or {}
            options.update({k: v for k, v in stored.items() if k in STORED})
            run_dir, resumed = opt.mobium_resume, True
        else:
            run_dir = opt.mobium_run_dir
            if run_dir and is_run(run_dir):
                # Trials of two runs in one folder would be graded as one run with one seed: refuse.
                raise pytest.UsageError(f"--run-dir {run_dir}: already holds a run ({RECORD}); continue it "
                                        f"with --resume {run_dir}, or choose another folder")
        if seed is None and getattr(opt, "mobium_baseline", None):
            seed = _baseline_seed(opt.mobium_baseline)  # a comparison needs the same seed on both sides
        if seed is None:
            seed = random.SystemRandom().randrange(1, 2**31)
        try:
            parse_drivers(options["driver"])
        except ValueError as exc:
            raise pytest.UsageError(f"--driver {options['driver']}: {exc}") from None
        if options["repeats"] < 1:
            raise pytest.UsageError(f"--repeats {options['repeats']}: must be at least 1")
        if options["clock_speed"] <= 0:
            raise pytest.UsageError(f"--clock-speed {options['clock_speed']}: must be positive")
        _check_servers(options)
        try:
            default, own = parse_trial_timeout(options["trial_timeout"])
        except ValueError as exc:
            raise pytest.UsageError(f"--trial-timeout {options['trial_timeout']}: {exc}") from None
        # A plain number is kept as one (record.json's options read as before); entries per setting as written.
        options["trial_timeout"] = default if not own else options["trial_timeout"]
        if not options["request_timeout"] > 0:
            raise pytest.UsageError(f"--request-timeout {options['request_timeout']}: must be positive")
        if options["max_output_tokens"] is not None and options["max_output_tokens"] < 0:
            raise pytest.UsageError(f"--max-output-tokens {options['max_output_tokens']}: must be a number of "
                                    f"tokens, or 0 for no bound")
        if (options["require_first_call"] and includes_agent(parse_drivers(options["driver"]))
                and not any(m.strip().startswith("openai/") for m in str(options["models"] or "").split(","))):
            # tool_choice is OpenAI's: Ollama's chat API has none, and the Claude CLI chooses for itself.
            raise pytest.UsageError(f"--require-first-call: sends tool_choice \"required\", which only an "
                                    f"OpenAI-compatible model takes, and --model {options['models'] or 'opus:medium'} "
                                    f"has no openai/ setting")
        if options["device_pace"] is None:
            # An agent meets the device at an emulator's pace; the controls check the graders, which holds at
            # either pace (CI runs them at both), so they run at the device's own.
            options["device_pace"] = "emulator" if includes_agent(parse_drivers(options["driver"])) else "fast"
        if not run_dir:
            run_dir = str(default_run_dir(options["driver"]))
        from pytest_mobium_evals.reach.devices import DeviceUnavailable, parse_adb, parse_device  # noqa: PLC0415  reach/ loads asyncio and ssl: not in the entry point's import

        try:
            parse_device(options["device"])
            parse_adb(options["adb"])
        except DeviceUnavailable as exc:
            raise pytest.UsageError(str(exc)) from None
        return cls(seed=seed, run_dir=str(run_dir), resumed=resumed, **options)

    @classmethod
    def from_json(cls, data: dict) -> "RunOptions":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def stored(self) -> dict:
        """What record.json's `options` holds."""
        return {k: getattr(self, k) for k in STORED}

    @property
    def drivers(self) -> tuple[str, ...]:
        return parse_drivers(self.driver)

    def trial_timeout_for(self, label: str) -> tuple[float, Optional[str]]:
        """A model setting's time limit per trial, and the setting's label when it has its own (else None)."""
        default, own = parse_trial_timeout(self.trial_timeout)
        return (own[label], label) if label in own else (default, None)


def _env_pairs(pairs) -> dict:
    """--mobium-env's NAME=VALUE words as a dict; a word without a name is a usage error."""
    out = {}
    for pair in pairs:
        name, sep, value = str(pair).partition("=")
        if not sep or not name.strip() or any(c.isspace() for c in name):
            raise pytest.UsageError(f"--mobium-env {pair}: want NAME=VALUE")
        out[name] = value
    return out


def _check_servers(options: dict) -> None:
    """--tool-server's command is checked before any trial (its quoting, its placeholders); what cannot go with
    what is refused: a surface variant rewrites Mobium's own surface, and Mobium's options need Mobium."""
    from pytest_mobium_evals.reach.toolserver import tool_server_words  # noqa: PLC0415  reach/ loads asyncio and ssl: not in the entry point's import

    if options["tool_server"]:
        try:
            tool_server_words(options["tool_server"])
        except ValueError as exc:
            raise pytest.UsageError(f"--tool-server {options['tool_server']!r}: {exc}") from None
        if options["surface"]:
            raise pytest.UsageError("--tool-server and --surface: a surface variant rewrites Mobium's tools, and "
                                    "the agent's tools come from another server; choose one")
        if options["tools"]:
            raise pytest.UsageError("--tool-server and --tools: --tools trims Mobium's tool list, and the agent's "
                                    "tools come from another server; choose one")
    if (options["mobium_driver"] or options["mobium_env"]) and not options["mobium_bin"]:
        raise pytest.UsageError("--mobium-driver and --mobium-env are passed to Mobium's binary: name it with "
                                "--mobium PATH (or $MOBIUM_BIN)")


def _baseline_seed(path: str) -> int:
    try:
        record = read_record(path)
    except RecordError as exc:
        raise pytest.UsageError(f"--baseline: {exc}") from None
    if not isinstance(record.seed, int):
        raise pytest.UsageError(f"--baseline {path}: its {RECORD} has no seed")
    return record.seed
