"""pytest-mobium-evals: tasks are tests.

A task is a test function carrying a `Task` (`@task(...)`, tasks.py) whose body reads the outcome from the device.
This plugin parametrizes each over driver × model setting × repeat (ids such as `reference-r0`,
`agent-opus-medium-r1`), runs the trial protocol (trial.py) in place of the plain call, and turns the verdict into
the test report: the outcome stays passed/failed (so junitxml, pytest-html and xdist work unchanged) and the verdict
travels as report attributes, a terminal word and letter, user_properties, html columns and a summary per setting.

This module is the pytest11 entry point, so it is imported by *every* pytest run where the package is installed
(the project's own tests included). It therefore imports nothing heavy at module level and touches no device
until a trial actually runs."""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest

from . import __version__
from .tasks import CONTROL_DRIVERS, VERDICTS, task_of

GROUP = "mobium-evals"
INFRA = "infra_error"

# verdict -> (terminal category, letter, word, colour). The letters avoid core's and rerunfailures'
# (. F E s x X R) and each other's. `pass` keeps pytest's own category, so "passed" counts stay familiar.
VERDICT_STATUS = {
    "pass": ("passed", ".", "PASS", "green"),
    "false_success": ("false_success", "!", "FALSE_SUCCESS", "red"),
    "false_refusal": ("false_refusal", "?", "FALSE_REFUSAL", "red"),
    "touched": ("touched", "T", "TOUCHED", "red"),
    "honest_failure": ("honest_failure", "h", "HONEST_FAILURE", "yellow"),
    "unreported": ("unreported", "u", "UNREPORTED", "yellow"),
    "wrong_reason": ("wrong_reason", "W", "WRONG_REASON", "yellow"),
    INFRA: ("infra_error", "I", "INFRA_ERROR", "purple"),
}

ONLY_RERUN = "TrialInfraError"  # the class name --reruns is narrowed to (trial.TrialInfraError)


# ---- options and configuration ----------------------------------------------------------------------------------

def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup(GROUP, "mobium-evals: agents driving Android apps through Mobium's MCP tools, graded on "
                               "the device's own state")
    g.addoption("--driver", dest="mobium_driver", default="agent",
                choices=("agent", "reference", "null", "wrong", "controls"),
                help="who drives each task: the agent (a model), or a control: reference (the scripted solution, "
                     "must pass), null (claims done, does nothing), wrong (the plausible wrong action); controls = "
                     "all three on every task. Default: agent.")
    g.addoption("--model", dest="mobium_model", default=None, metavar="NAME[:EFFORT],…",
                help="model settings for --driver agent, comma separated; haiku, sonnet, opus stand for "
                     "claude-<name>-5-5; also ollama/NAME and openai/NAME. Default: opus:medium.")
    g.addoption("--repeats", dest="mobium_repeats", type=int, default=1, metavar="N",
                help="trials per task and setting, each with its own seeded parameters. Default: 1.")
    g.addoption("--seed", dest="mobium_seed", type=int, default=None, metavar="N",
                help="the run seed: a trial's parameters come from sha256(seed:task:repeat). Default: a fresh one, "
                     "printed in the header and stored in the record.")
    g.addoption("--device", dest="mobium_device", default="sim", metavar="sim[:N]|SERIAL[,SERIAL…]",
                help="sim: a virtual device started by the plugin, one per xdist worker; sim:N: one virtual ADB "
                     "server with N devices, one per worker; SERIAL[,…]: devices behind --adb, one per worker. "
                     "Default: sim.")
    g.addoption("--adb", dest="mobium_adb", default="127.0.0.1:5037", metavar="HOST:PORT",
                help="the ADB server serving the listed serials (a remote one works). Default: 127.0.0.1:5037.")
    g.addoption("--mobium", dest="mobium_bin", default=None, metavar="PATH",
                help="the Mobium binary whose `mobium mcp` is the tool server; default $MOBIUM_BIN, else the "
                     "built-in Mobium-compatible server.")
    g.addoption("--run-dir", dest="mobium_run_dir", default=None, metavar="DIR",
                help="where record.json and the trials go. Default: runs/<UTC time>-<driver>.")
    g.addoption("--resume", dest="mobium_resume", default=None, metavar="RUN_DIR",
                help="continue a run: its seed and options, skipping trials that already have a verdict "
                     "(they are reported from the stored verdict, marked resumed).")
    g.addoption("--clock-speed", dest="mobium_clock_speed", type=float, default=1.0, metavar="X",
                help="the virtual device's clock speed (time-based app behaviour runs X times faster). Default: 1.")
    g.addoption("--tool-timeout", dest="mobium_tool_timeout", type=float, default=60.0, metavar="S",
                help="seconds one MCP tool call may take before the tool server counts as dead. Default: 60.")
    g.addoption("--max-tool-calls", dest="mobium_max_tool_calls", type=int, default=40, metavar="N",
                help="an agent's tool-call budget per trial. Default: 40.")
    g.addoption("--trial-timeout", dest="mobium_trial_timeout", type=float, default=300.0, metavar="S",
                help="an agent's time budget per trial, in seconds. Default: 300.")
    g.addoption("--enforce-max-steps", dest="mobium_enforce_max_steps", action="store_true", default=False,
                help="cap an agent's tool calls at a Ghost Bench task's own step budget (complexity × 10).")
    g.addoption("--base-url", dest="mobium_base_url", default=None, metavar="URL",
                help="the endpoint of an OpenAI-compatible server for openai/NAME models.")


def pytest_addhooks(pluginmanager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "regression: a task whose failure once found a Mobium defect (its found= "
                                       "names the CHALLENGES entries); `mobium-evals verify` runs these")
    config.addinivalue_line("markers", "mobiumapp: a task of the MobiumApp suite (t01–t23)")
    config.addinivalue_line("markers", "ghost_bench: a task of the Ghost Bench suite (tasks/ghost_bench/*.json)")
    config.addinivalue_line("markers", "mobium_trial: internal; the trial fixture each task is parametrized over")
    state = State.from_config(config)
    config.stash[STATE] = state
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(), "mobium-evals-xdist")
    if config.pluginmanager.hasplugin("html"):
        config.pluginmanager.register(HtmlHooks(), "mobium-evals-html")
    config.pluginmanager.register(ReportCollector(state, config), "mobium-evals-reports")
    _register_ghost_bench(config)


def _register_ghost_bench(config: pytest.Config) -> None:
    """Ghost Bench's JSON tasks are collected by ghost_bench.py's own hooks (that module owns them); it is registered
    here so one entry point loads both. Its imports are light, like this module's."""
    from . import ghost_bench

    if not config.pluginmanager.is_registered(ghost_bench):
        config.pluginmanager.register(ghost_bench, "mobium-evals-ghost-bench")


class XdistHooks:
    """Registered only when xdist is loaded: hands the controller's run-wide choices to every worker, and checks
    the agent's readiness on the controller once a worker has collected agent trials (a worker raising would
    crash itself instead of printing one line)."""

    checked = False

    @pytest.hookimpl
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        state: State = node.config.stash[STATE]
        if self.checked or "agent" not in state.drivers or not any("[agent-" in i for i in ids):
            return
        self.checked = True
        problem = _agent_not_ready(state)
        if problem:
            pytest.exit(f"mobium-evals: {problem}", returncode=pytest.ExitCode.USAGE_ERROR)

    @pytest.hookimpl
    def pytest_configure_node(self, node) -> None:
        state: State = node.config.stash[STATE]
        node.workerinput["mobium_state"] = state.to_workerinput()
        if state._sim is not None:  # sim:N: the controller's virtual devices, leased by worker index
            node.workerinput["mobium_sim_serials"] = list(state._sim.serials)


STATE = pytest.StashKey["State"]()
RESULT = pytest.StashKey[dict]()


@dataclass
class State:
    """Run-wide choices, made once on the controller and handed to workers unchanged."""

    seed: int
    driver: str
    models: str
    repeats: int
    device: str
    adb: str
    mobium_bin: Optional[str]
    run_dir: str
    resumed: bool
    clock_speed: float
    tool_timeout: float
    max_tool_calls: int
    trial_timeout: float
    enforce_max_steps: bool
    base_url: Optional[str]
    sim_port: Optional[int] = None  # sim:N: the controller's shared virtual ADB server
    is_worker: bool = False
    workerinput: dict = field(default_factory=dict)
    # controller-side collections
    reports: dict = field(default_factory=dict)
    record_started: bool = False
    _sim: Any = None
    _device: Any = None
    _device_info: dict = field(default_factory=dict)

    OPTION_KEYS = ("driver", "models", "repeats", "device", "adb", "mobium_bin", "clock_speed", "tool_timeout",
                   "max_tool_calls", "trial_timeout", "enforce_max_steps", "base_url")

    @classmethod
    def from_config(cls, config: pytest.Config) -> "State":
        workerinput = getattr(config, "workerinput", None)
        if workerinput is not None and "mobium_state" in workerinput:
            data = dict(workerinput["mobium_state"])
            return cls(**data, is_worker=True, workerinput=workerinput)
        opt = config.option
        options = {
            "driver": opt.mobium_driver, "models": opt.mobium_model, "repeats": opt.mobium_repeats,
            "device": opt.mobium_device, "adb": opt.mobium_adb,
            "mobium_bin": opt.mobium_bin or os.environ.get("MOBIUM_BIN") or None,
            "clock_speed": opt.mobium_clock_speed, "tool_timeout": opt.mobium_tool_timeout,
            "max_tool_calls": opt.mobium_max_tool_calls, "trial_timeout": opt.mobium_trial_timeout,
            "enforce_max_steps": opt.mobium_enforce_max_steps, "base_url": opt.mobium_base_url,
        }
        seed = opt.mobium_seed
        resumed = False
        if opt.mobium_resume:
            from .records import RecordError, RunDir

            try:
                record = RunDir(opt.mobium_resume).read_record()
            except RecordError as exc:
                raise pytest.UsageError(f"--resume: {exc}") from None
            if not isinstance(record.get("seed"), int):
                raise pytest.UsageError(f"--resume {opt.mobium_resume}: its record.json has no seed")
            seed = record["seed"]
            stored = record.get("options") or {}
            options.update({k: v for k, v in stored.items() if k in cls.OPTION_KEYS})
            run_dir, resumed = opt.mobium_resume, True
        else:
            run_dir = opt.mobium_run_dir
            if run_dir and (Path(run_dir) / "record.json").exists():
                # Trials of two runs in one folder would be graded as one run with one seed: refuse.
                raise pytest.UsageError(f"--run-dir {run_dir}: already holds a run (record.json); continue it "
                                        f"with --resume {run_dir}, or choose another folder")
        if seed is None:
            seed = random.SystemRandom().randrange(1, 2**31)
        if options["repeats"] < 1:
            raise pytest.UsageError(f"--repeats {options['repeats']}: must be at least 1")
        if options["clock_speed"] <= 0:
            raise pytest.UsageError(f"--clock-speed {options['clock_speed']}: must be positive")
        if not run_dir:
            from .records import default_run_dir

            run_dir = str(default_run_dir(options["driver"]))
        from .devices import DeviceUnavailable, parse_adb, parse_device

        try:
            parse_device(options["device"])
            parse_adb(options["adb"])
        except DeviceUnavailable as exc:
            raise pytest.UsageError(str(exc)) from None
        state = cls(seed=seed, run_dir=str(run_dir), resumed=resumed, **options)
        if "agent" in state.drivers:
            state.model_settings()  # a bad --model is a usage error now, not a collection error per file
        return state

    def to_workerinput(self) -> dict:
        keys = ("seed", "run_dir", "resumed", "sim_port") + self.OPTION_KEYS
        return {k: getattr(self, k) for k in keys}

    def options(self) -> dict:
        return {k: getattr(self, k) for k in self.OPTION_KEYS}

    @property
    def drivers(self) -> tuple[str, ...]:
        return CONTROL_DRIVERS if self.driver == "controls" else (self.driver,)

    def model_settings(self) -> list:
        from . import agents

        try:
            return agents.parse_models(self.models)
        except agents.AgentConfigError as exc:
            raise pytest.UsageError(str(exc)) from None

    def trial_specs(self, task) -> list:
        from .trial import TrialSpec

        specs = []
        for driver in self.drivers:
            settings = self.model_settings() if driver == "agent" else [None]
            names = Counter(s.name for s in settings if s is not None)
            for setting in settings:
                qualify = setting is not None and names[setting.name] > 1
                for repeat in range(self.repeats):
                    specs.append(TrialSpec(task=task, driver=driver, repeat=repeat, setting=setting,
                                           qualify_effort=qualify))
        return specs

    # ---- the device this process drives ----

    def lease_device(self):
        if self._device is not None:
            return self._device
        from .device import Device
        from .devices import DeviceUnavailable, lease, parse_adb, parse_device, start_sim, worker_count, worker_index

        spec = parse_device(self.device)
        index, workers = worker_index(self.workerinput), worker_count(self.workerinput)
        try:
            if spec.kind == "sim" and not spec.shared_sim:
                self._sim = start_sim(1, self.clock_speed)
                serial, host, port = self._sim.serials[0], "127.0.0.1", self._sim.port
            elif spec.kind == "sim":
                if self.sim_port is None:  # no xdist: this process is the controller
                    self._sim = start_sim(spec.count, self.clock_speed)
                    self.sim_port = self._sim.port
                    serials = tuple(self._sim.serials)
                else:
                    serials = tuple(self.workerinput.get("mobium_sim_serials") or ())
                serial = lease(serials, index, workers)
                host, port = "127.0.0.1", self.sim_port
            else:
                host, port = parse_adb(self.adb)
                serial = lease(spec.serials, index, workers)
            device = Device.connect(serial, host, port)
            device.take_baseline()
            self._device_info = device.properties("dev.mobium.mobiumapp")
        except DeviceUnavailable as exc:
            # The controller checked what it could before any worker started; what is left (a virtual device
            # that would not start) fails this process's trials as infrastructure errors, each saying why.
            from .device import DeviceError

            raise DeviceError(str(exc)) from None
        self._device = device
        return device

    def close(self) -> None:
        if self._sim is not None:
            try:
                self._sim.close()
            finally:
                self._sim = None

    def server_spec(self, device):
        from .toolserver import ToolServerSpec

        if self.mobium_bin:
            spec = ToolServerSpec.mobium(self.mobium_bin, device.serial)
        else:
            spec = ToolServerSpec.builtin(device.serial, device.adb_host, device.adb_port)
        return spec

    def mobium_info(self):
        if not self.mobium_bin:
            return "built-in"
        info = {"binary": self.mobium_bin, "commit": None, "dirty": None}
        repo = os.environ.get("MOBIUM_REPO") or str(Path(self.mobium_bin).resolve().parent.parent)
        try:
            info["commit"] = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                                            text=True, timeout=10).stdout.strip() or None
            info["dirty"] = bool(subprocess.run(["git", "-C", repo, "status", "--porcelain"], capture_output=True,
                                                text=True, timeout=10).stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass
        return info


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is not None:
        state.close()


def pytest_report_header(config: pytest.Config) -> list[str]:
    state: State = config.stash[STATE]
    return [f"mobium-evals: --seed={state.seed} --driver={state.driver} --device={state.device} "
            f"run dir {state.run_dir}" + (" (resumed)" if state.resumed else "")]


# ---- collection ----------------------------------------------------------------------------------------------------

def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    task = task_of(metafunc.function)
    if task is None or "mobium_trial" not in metafunc.fixturenames:
        return
    state: State = metafunc.config.stash[STATE]
    specs = state.trial_specs(task)
    metafunc.parametrize("mobium_trial", specs, ids=[s.param_id for s in specs], indirect=True)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    trials = [item for item in items if _spec_of(item) is not None]
    if not trials or config.option.collectonly:
        return  # nothing will run: no readiness check, no run folder
    state: State = config.stash[STATE]
    reruns = getattr(config.option, "reruns", None)
    if reruns and not getattr(config.option, "only_rerun", None):
        # --reruns alone: retry only infrastructure errors, never a verdict (a flaky agent is a result).
        for item in trials:
            item.add_marker(pytest.mark.flaky(reruns=reruns, only_rerun=[ONLY_RERUN]))
    if "agent" in state.drivers and not state.is_worker:  # under xdist the controller checks (XdistHooks)
        problem = _agent_not_ready(state)
        if problem:
            raise pytest.UsageError(problem)
    _write_collection(state, trials)


def _agent_not_ready(state: State) -> Optional[str]:
    """Before any trial: a model setting that cannot run (no credential, endpoint down) is one line."""
    from . import agents

    for setting in state.model_settings():
        try:
            agents.check_ready(setting, state.base_url)
        except agents.AgentConfigError as exc:
            return str(exc)
    return None


def _write_collection(state: State, items: list) -> None:
    """What this session scheduled, for the record and the summary (under xdist every worker collects the same
    items, so they all write the same file)."""
    from .records import RunDir, atomic_write_json

    specs = [_spec_of(item) for item in items]
    tasks = list(dict.fromkeys(s.task.id for s in specs))
    data = {"tasks": tasks, "scheduled": [s.name for s in specs],
            "groups": dict(Counter(s.group for s in specs)),
            "suites": sorted({s.task.suite for s in specs})}
    atomic_write_json(RunDir(state.run_dir).path / ".session" / "collection.json", data)


def _spec_of(item):
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    return callspec.params.get("mobium_trial")


# ---- fixtures --------------------------------------------------------------------------------------------------

@pytest.fixture
def mobium_trial(request: pytest.FixtureRequest):
    """The trial this test is (driver, model setting, repeat); parametrized by the plugin."""
    return getattr(request, "param", None)


@pytest.fixture
def mobium_trial_env():
    """None by default. Override it in a conftest with `lambda env: ...` to edit each trial's TrialEnv."""
    return None


@pytest.fixture(scope="session")
def mobium_device(request: pytest.FixtureRequest):
    """The device this process leased for the session (see devices.py)."""
    state: State = request.config.stash[STATE]
    device = state.lease_device()
    _write_device_info(state)
    return device


@pytest.fixture
def device(mobium_device):
    """The harness's `Device` (over ADB): what a task's outcome check reads."""
    return mobium_device


@pytest.fixture
def params(request: pytest.FixtureRequest, mobium_trial) -> dict:
    """The trial's parameters, from the task's generator seeded by (run seed, task, repeat)."""
    if mobium_trial is None:
        return {}
    state: State = request.config.stash[STATE]
    return mobium_trial.task.seeded_params(state.seed, mobium_trial.repeat)


def _write_device_info(state: State) -> None:
    from .devices import worker_index
    from .records import RunDir, atomic_write_json

    name = f"device-{worker_index(state.workerinput)}.json"
    atomic_write_json(RunDir(state.run_dir).path / ".session" / name, state._device_info)


# ---- the trial ---------------------------------------------------------------------------------------------------

class VerdictFailed(AssertionError):
    """The trial's verdict is not the one this driver must get."""


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    spec = _spec_of(pyfuncitem)
    if spec is None:
        return None
    from .records import RunDir
    from .trial import TrialEnv, TrialInfraError, run_trial

    state: State = pyfuncitem.config.stash[STATE]
    run_dir = RunDir(state.run_dir)
    if state.resumed:
        stored = run_dir.graded(spec.name)
        if stored is not None and stored.get("verdict") != INFRA:
            stored = dict(stored, resumed=True)
            pyfuncitem.stash[RESULT] = stored
            _raise_unless_ok(spec, stored)
            return True

    device = pyfuncitem.funcargs["device"]
    limits = None
    if spec.driver == "agent":
        from .agents import Limits

        limits = Limits(max_tool_calls=state.max_tool_calls, max_seconds=state.trial_timeout)
    env = TrialEnv(seed=state.seed, run_dir=run_dir, server_spec=state.server_spec, limits=limits,
                   base_url=state.base_url, device_info=state._device_info,
                   enforce_max_steps=state.enforce_max_steps, tool_timeout=state.tool_timeout)
    _customize_env(pyfuncitem, env)
    argnames = pyfuncitem._fixtureinfo.argnames

    def outcome_check(dev, params, claim=None):
        kwargs = {name: pyfuncitem.funcargs[name] for name in argnames}
        kwargs.update({k: v for k, v in (("device", dev), ("params", params), ("claim", claim)) if k in argnames})
        return pyfuncitem.obj(**kwargs)

    result = run_trial(spec, env, device, outcome_check)
    record = dict(result.record)
    if result.screen:
        record["_screen_b64"] = base64.b64encode(result.screen).decode("ascii")
    pyfuncitem.stash[RESULT] = record
    if result.error is not None:
        raise TrialInfraError(record["infra_error"]) from result.error
    _raise_unless_ok(spec, record)
    return True


def _customize_env(item: pytest.Function, env) -> None:
    """The seam for the plugin's own tests: a conftest that overrides the `mobium_trial_env` fixture with a
    callable gets to edit each trial's env (a fake MCP client, a fake agent) before the trial runs."""
    hook = item._request.getfixturevalue("mobium_trial_env")
    if callable(hook):
        hook(env)


def _raise_unless_ok(spec, record: dict) -> None:
    if record.get("ok"):
        return
    verdict, expected = record["verdict"], record["expected"]
    claim = record.get("claim") or {}
    lines = [f"{spec.task.id} {spec.task.slug}, {spec.driver}"
             + (f" {spec.model_label}" if spec.setting is not None else "")
             + f": got {verdict} (expected {expected})"]
    lines.append(f"outcome reached: {record.get('outcome_reached')}; the device read "
                 f"{record.get('outcome_observed')!r}")
    lines.append(f"claim: {claim.get('status')}; answer: {claim.get('answer')!r}; reason: {claim.get('reason')!r}")
    if record.get("answer_ok") is not None:
        lines.append(f"answer accepted: {record['answer_ok']}")
    for effect in record.get("side_effects") or []:
        lines.append(f"side effect: {effect['namespace']}/{effect['key']}: {effect['before']} -> {effect['after']}")
    for blocker in record.get("blockers") or []:
        lines.append(f"BLOCKER: {blocker}")
    raise VerdictFailed("\n".join(lines))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    spec = _spec_of(item)
    if spec is None:
        return report
    report.mobium_trial = spec.name
    if report.when != "call":
        if report.failed and report.when == "setup":
            # a setup failure of a trial (the device could not be leased) is an infrastructure error too
            _attach(report, item, spec, {"verdict": INFRA, "expected": spec.expected, "ok": False,
                                         "infra_error": str(call.excinfo.value) if call.excinfo else "setup"})
        return report
    record = item.stash.get(RESULT, None)
    if record is None:
        return report  # the trial broke in harness or task code: an ordinary test failure with its traceback
    if call.excinfo is not None and call.excinfo.errisinstance((VerdictFailed,)):
        # The verdict is the story, not the plugin's stack: show what the device read and what was claimed.
        report.longrepr = str(call.excinfo.value)
    _attach(report, item, spec, record)
    screen = record.get("_screen_b64")
    if screen and item.config.pluginmanager.hasplugin("html"):
        from pytest_html import extras

        report.extras = list(getattr(report, "extras", []) or []) + [extras.png(screen, name="final screen")]
    return report


def _attach(report, item, spec, record: dict) -> None:
    from .grading import is_blocking

    claim = record.get("claim") or {}
    seconds = (record.get("timings") or {}).get("total_s")
    blockers = list(record.get("blockers") or [])
    data = {
        "task": spec.task.id, "slug": spec.task.slug, "suite": spec.task.suite, "driver": spec.driver,
        "model": spec.model_label, "group": spec.group, "repeat": spec.repeat, "trial": spec.name,
        "verdict": record.get("verdict"), "expected": record.get("expected"), "ok": bool(record.get("ok")),
        "severity": record.get("severity"), "blockers": blockers,
        "gating_blockers": is_blocking(blockers, driver=spec.driver, verdict=record.get("verdict"),
                                       expected=record.get("expected")),
        "claim": claim.get("status"), "answer": claim.get("answer"), "reason": claim.get("reason"),
        "tool_calls": record.get("tool_calls"), "seconds": seconds, "infra_error": record.get("infra_error"),
        "resumed": bool(record.get("resumed")), "device": (record.get("device") or {}).get("serial"),
        "observed": record.get("outcome_observed"),
    }
    report.mobium = data
    for key in ("verdict", "severity", "claim", "answer", "tool_calls", "seconds", "model", "driver"):
        setattr(report, key, data[key])
    # junitxml writes properties from the teardown report, which copies item.user_properties: set both.
    for key in ("verdict", "expected", "severity", "driver", "model", "claim", "answer", "tool_calls", "seconds"):
        if data[key] is not None:
            prop = (f"mobium_{key}", data[key])
            if prop not in item.user_properties:
                item.user_properties.append(prop)
            if prop not in report.user_properties:
                report.user_properties.append(prop)


# ---- terminal -----------------------------------------------------------------------------------------------------

@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report, config):
    data = getattr(report, "mobium", None)
    if data is None or report.when != "call" and not (report.when == "setup" and report.failed):
        return None
    if report.outcome == "rerun" or hasattr(report, "wasxfail"):
        return None
    verdict = data["verdict"]
    category, letter, word, colour = VERDICT_STATUS.get(verdict, ("failed", "F", str(verdict).upper(), "red"))
    if data["driver"] != "agent" and verdict != INFRA:
        # A control passes when it gets its declared verdict: counted as passed, shown with the verdict's letter.
        if data["ok"]:
            return "passed", letter, (f"{word} (as declared)", {"green": True})
        return "failed", "F", (f"{word}, expected {str(data['expected']).upper()}", {"red": True, "bold": True})
    return category, letter, (word, {colour: True})


class ReportCollector:
    """Keeps each trial's final report data (after reruns) where the summary and the record are made: the
    controller under xdist, the only process otherwise."""

    def __init__(self, state: State, config: pytest.Config):
        self.state = state
        self.config = config

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report) -> None:
        data = getattr(report, "mobium", None)
        if data is None or report.outcome == "rerun" or self.state.is_worker:
            return
        if report.when == "call" or (report.when == "setup" and report.failed):
            self.state.reports[report.nodeid] = data
            run_dir = Path(self.state.run_dir)
            if not self.state.record_started:
                self.state.record_started = True
                _write_record(self.state, finished=False)
                self.config.hook.pytest_mobium_run_started(config=self.config, run_dir=run_dir)
            self.config.hook.pytest_mobium_trial_recorded(config=self.config, run_dir=run_dir, result=data)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    state: State = session.config.stash[STATE]
    if state.is_worker:
        return
    from .devices import DeviceUnavailable, check_serials, lease, parse_adb, parse_device, start_sim

    spec = parse_device(state.device)
    workers = _xdist_workers(session.config)
    try:
        if workers and (spec.kind == "serials" or spec.shared_sim):
            lease(spec.serials or tuple(f"sim {i}" for i in range(spec.count)), 0, workers)
        if spec.kind == "serials":
            check_serials(spec, *parse_adb(state.adb))
        if spec.shared_sim and workers:
            # sim:N under xdist: the controller serves the N devices; workers lease them by index.
            state._sim = start_sim(spec.count, state.clock_speed)
            state.sim_port = state._sim.port
    except DeviceUnavailable as exc:
        raise pytest.UsageError(str(exc)) from None


def _xdist_workers(config) -> int:
    n = getattr(config.option, "numprocesses", None)
    dist = getattr(config.option, "dist", "no")
    return int(n) if n and dist != "no" else 0


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus) -> None:
    state: State = session.config.stash[STATE]
    if state.is_worker:
        return
    if state.reports:
        finished = _write_record(state, finished=session.exitstatus != pytest.ExitCode.INTERRUPTED)
        session.config.hook.pytest_mobium_run_finished(config=session.config, run_dir=Path(state.run_dir),
                                                       status="completed" if finished else "stopped")
    gating = [b for d in state.reports.values() for b in d.get("gating_blockers", [])]
    if gating and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _write_record(state: State, finished: bool) -> bool:
    from .records import RunDir, utc_now

    run = RunDir(state.run_dir)
    session_dir = run.path / ".session"
    collection = _read_json(session_dir / "collection.json") or {}
    devices = [d for p in sorted(session_dir.glob("device-*.json")) if (d := _read_json(p))]
    previous = _read_json(run.record_path) or {}
    settings = [] if state.drivers != ("agent",) else [s.label for s in state.model_settings()]
    # A resumed run may select fewer trials than it first scheduled: the record keeps the union, and "finished"
    # means every one of them has its verdict.json (an interrupted or partial run says so; --resume completes it).
    scheduled = list(dict.fromkeys(list(previous.get("scheduled") or []) + list(collection.get("scheduled") or [])))
    finished = finished and all(run.graded(name) is not None for name in scheduled)
    record = {
        "run": run.path.name,
        "plugin": "pytest-mobium-evals",
        "plugin_version": __version__,
        "started": previous.get("started") or utc_now(),
        "finished": finished,
        "ended": utc_now() if finished else None,
        "seed": state.seed,
        "driver": state.driver,
        "drivers": list(state.drivers),
        "models": settings,
        "efforts": {s.label: s.effort for s in state.model_settings()} if settings else {},
        "repeats": state.repeats,
        "tasks": list(dict.fromkeys(list(previous.get("tasks") or []) + list(collection.get("tasks") or [])))
        or sorted({d["task"] for d in state.reports.values()}),
        "suites": collection.get("suites") or [],
        "scheduled": scheduled,
        "device": devices[0] if devices else previous.get("device"),
        "devices": devices or previous.get("devices") or [],
        "mobium": state.mobium_info(),
        "tool_server": "mobium mcp" if state.mobium_bin else "mobium-evals mcp (built-in)",
        "options": state.options(),
        "resumed": state.resumed,
        "counts": dict(Counter(d["verdict"] for d in state.reports.values())),
    }
    run.write_record(record)
    return finished


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    state: State = config.stash[STATE]
    if state.is_worker or not state.reports:
        return
    from .intervals import bootstrap_over_tasks

    tr = terminalreporter
    collection = _read_json(Path(state.run_dir) / ".session" / "collection.json") or {}
    scheduled = collection.get("groups") or {}
    by_group: dict[str, list[dict]] = defaultdict(list)
    for data in state.reports.values():
        by_group[data["group"]].append(data)
    tr.write_sep("=", "mobium-evals summary")
    tr.write_line(f"seed {state.seed}, run dir {state.run_dir}")
    for group in sorted(set(by_group) | set(scheduled)):
        rows = by_group.get(group, [])
        control = not group.startswith("agent")
        per_task: dict[str, list[bool]] = defaultdict(list)
        for d in rows:
            per_task[d["task"]].append(d["ok"] if control else d["verdict"] == "pass")
        rate = bootstrap_over_tasks(per_task)
        counts = Counter(d["verdict"] for d in rows)
        infra = counts.get(INFRA, 0)
        graded = len(rows) - infra
        what = "as declared" if control else "pass rate"
        tr.write_line(f"{group}: {what} {rate.percent()} over {rate.tasks} tasks; scheduled "
                      f"{scheduled.get(group, len(rows))}, graded {graded}, infra errors {infra}")
        tr.write_line("  " + ", ".join(f"{v} {counts[v]}" for v in (*VERDICTS, INFRA) if counts.get(v)))
    mismatched = [d for d in state.reports.values()
                  if d["driver"] != "agent" and not d["ok"] and d["verdict"] != INFRA]
    if mismatched:
        tr.write_sep("-", "controls that did not grade as declared")
        for d in sorted(mismatched, key=lambda d: (d["task"], d["driver"], d["repeat"])):
            tr.write_line(f"{d['task']} {d['slug']:<14} {d['driver']:<9} got {d['verdict']:<15} expected "
                          f"{d['expected']}  ({d.get('observed')!r})", red=True)
    failing = [d for d in state.reports.values() if d["driver"] == "agent" and d["verdict"] not in ("pass", INFRA)]
    if failing:
        # pytest's own "FAILED" lines do not list custom categories, so the agent's misses are listed here.
        tr.write_sep("-", "agent trials that did not pass")
        for d in sorted(failing, key=lambda d: (d["group"], d["task"], d["repeat"])):
            tr.write_line(f"{d['trial']}: {d['verdict']} ({d['severity']}); claimed {d['claim']}, device read "
                          f"{d.get('observed')!r}", red=d["verdict"] in ("false_success", "touched"))
    blockers = [(d, b) for d in state.reports.values() for b in d.get("gating_blockers", [])]
    if blockers:
        tr.write_sep("-", f"BLOCKERS ({len(blockers)}): the session fails whatever the pass rate", red=True)
        for d, b in blockers:
            tr.write_line(f"{d['trial']}: {b}", red=True)
    infra = [d for d in state.reports.values() if d["verdict"] == INFRA]
    if infra:
        tr.write_sep("-", "infrastructure errors (not charged to the driver; in the denominator)")
        for d in infra:
            tr.write_line(f"{d['trial']}: {d.get('infra_error')}")


# ---- pytest-html --------------------------------------------------------------------------------------------------

_HTML_COLUMNS = (("verdict", "Verdict"), ("severity", "Severity"), ("claim", "Claim"), ("answer", "Answer"),
                 ("tool_calls", "Tool calls"), ("seconds", "Seconds"))


def _html_header(cells) -> None:
    for i, (key, title) in enumerate(_HTML_COLUMNS):
        cells.insert(2 + i, f'<th class="sortable" data-column-type="{key}">{title}</th>')


def _html_row(report, cells) -> None:
    import html

    data = getattr(report, "mobium", None) or {}
    for i, (key, _) in enumerate(_HTML_COLUMNS):
        value = data.get(key)
        if key == "seconds" and isinstance(value, (int, float)):
            value = f"{value:.1f}"
        cells.insert(2 + i, f'<td class="col-{key}">{html.escape("" if value is None else str(value))}</td>')


class HtmlHooks:
    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells):
        _html_header(cells)

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report, cells):
        _html_row(report, cells)

