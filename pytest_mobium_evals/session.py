"""The run's state, as one object: the choices made once on the controller (seed, drivers, models, device, run
folder) and handed to every xdist worker unchanged, the device this process leased, and the trials' results as they
come in. It is registered as a plugin (as pytest-xdist's DSession is), so the hooks that keep the run's books are
its methods: checking the devices before any trial, collecting each trial's final report, writing record.json, and
telling listeners (hookspecs.py) how the run is going."""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest

from . import __version__
from .verdicts import ALL_CONTROL_DRIVERS, DRIVERS

SESSION = pytest.StashKey["EvalSession"]()
APP_PACKAGE_PROPERTY = "dev.mobium.mobiumapp"  # the package whose version the device record carries


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


def eval_session(config: pytest.Config) -> "EvalSession":
    return config.stash[SESSION]


@dataclass(eq=False)  # a plugin object: hashed by identity, as pluggy needs
class EvalSession:
    """Run-wide choices, made once on the controller and handed to workers unchanged, and the run's books."""

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
    device_pace: Optional[str]
    tool_timeout: float
    max_tool_calls: int
    trial_timeout: float
    enforce_max_steps: bool
    base_url: Optional[str]
    surface: Optional[str] = None  # --surface: variant names, comma separated (surfaces.py)
    sim_port: Optional[int] = None  # sim:N: the controller's shared virtual ADB server
    is_worker: bool = False
    workerinput: dict = field(default_factory=dict)
    config: Any = None
    # controller-side collections
    reports: dict = field(default_factory=dict)
    record_started: bool = False
    record_written: bool = False
    _sim: Any = None
    _device: Any = None
    _prepared: Any = None  # toolserver.PreparedServer: the built-in tool server, imported once, forked per trial
    _device_info: dict = field(default_factory=dict)
    _surfaces: Optional[dict] = None

    OPTION_KEYS = ("driver", "models", "repeats", "device", "adb", "mobium_bin", "clock_speed", "device_pace",
                   "tool_timeout", "max_tool_calls", "trial_timeout", "enforce_max_steps", "base_url", "surface")

    @classmethod
    def from_config(cls, config: pytest.Config) -> "EvalSession":
        workerinput = getattr(config, "workerinput", None)
        if workerinput is not None and "mobium_state" in workerinput:
            data = dict(workerinput["mobium_state"])
            return cls(**data, is_worker=True, workerinput=workerinput, config=config)
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
        if options["device_pace"] is None:
            # An agent meets the device at an emulator's pace; the controls check the graders, which holds at
            # either pace (CI runs them at both), so they run at the device's own.
            options["device_pace"] = "emulator" if "agent" in parse_drivers(options["driver"]) else "fast"
        if not run_dir:
            from .records import default_run_dir

            run_dir = str(default_run_dir(options["driver"]))
        from .devices import DeviceUnavailable, parse_adb, parse_device

        try:
            parse_device(options["device"])
            parse_adb(options["adb"])
        except DeviceUnavailable as exc:
            raise pytest.UsageError(str(exc)) from None
        session = cls(seed=seed, run_dir=str(run_dir), resumed=resumed, config=config, **options)
        if "agent" in session.drivers:
            session.model_settings()  # a bad --model is a usage error now, not a collection error per file
        session.surface_variants()  # so is a bad --surface
        return session

    def to_workerinput(self) -> dict:
        keys = ("seed", "run_dir", "resumed", "sim_port") + self.OPTION_KEYS
        return {k: getattr(self, k) for k in keys}

    def options(self) -> dict:
        return {k: getattr(self, k) for k in self.OPTION_KEYS}

    @property
    def drivers(self) -> tuple[str, ...]:
        return parse_drivers(self.driver)

    def model_settings(self) -> list:
        from . import agents

        try:
            return agents.parse_models(self.models)
        except agents.AgentConfigError as exc:
            raise pytest.UsageError(str(exc)) from None

    def surface_variants(self) -> dict:
        """--surface's variants, name → the plain JSON the proxy applies; {} without --surface."""
        if not self.surface:
            return {}
        if self._surfaces is None:
            from .surfaces import SurfaceError, load_all

            root = Path(self.config.rootpath) if self.config is not None else Path.cwd()
            try:
                self._surfaces = {v.name: v.plain() for v in load_all(self.surface, root)}
            except SurfaceError as exc:
                raise pytest.UsageError(str(exc)) from None
        return self._surfaces

    def agent_problem(self) -> Optional[str]:
        """Before any trial: a model setting that cannot run (no credential, endpoint down), in one line."""
        from . import agents

        for setting in self.model_settings():
            try:
                agents.check_ready(setting, self.base_url)
            except agents.AgentConfigError as exc:
                return str(exc)
        return None

    def trial_specs(self, task) -> list:
        from .trial import TrialSpec

        specs = []
        controls = task.control_drivers()
        for driver in self.drivers:
            if driver != "agent":
                for control, variant in controls:
                    if control == driver:
                        specs += [TrialSpec(task=task, driver=driver, repeat=repeat, variant=variant)
                                  for repeat in range(self.repeats)]
                continue
            settings = self.model_settings()
            names = Counter(s.name for s in settings if s is not None)
            for setting in settings:
                qualify = setting is not None and names[setting.name] > 1
                for repeat in range(self.repeats):
                    # Each repeat runs every variant in turn: the same task and seed, interleaved in time.
                    for surface in list(self.surface_variants()) or [None]:
                        specs.append(TrialSpec(task=task, driver=driver, repeat=repeat, setting=setting,
                                               qualify_effort=qualify, surface=surface))
        return specs

    # ---- the device this process drives ----

    def lease_device(self):
        if self._device is not None:
            return self._device
        from .device import Device, DeviceError
        from .devices import DeviceUnavailable, lease, parse_adb, parse_device, start_sim, worker_count, worker_index

        spec = parse_device(self.device)
        index, workers = worker_index(self.workerinput), worker_count(self.workerinput)
        try:
            if spec.kind == "sim" and not spec.shared_sim:
                self._sim = start_sim(1, self.clock_speed, self.device_pace)
                serial, host, port = self._sim.serials[0], "127.0.0.1", self._sim.port
            elif spec.kind == "sim":
                if self.sim_port is None:  # no xdist: this process is the controller
                    self._sim = start_sim(spec.count, self.clock_speed, self.device_pace)
                    self.sim_port = self._sim.port
                    serials = tuple(self._sim.serials)
                else:
                    serials = tuple(self.workerinput.get("mobium_sim_serials") or ())
                serial = lease(serials, index, workers)
                host, port = "127.0.0.1", self.sim_port
            else:
                target = lease(spec.targets, index, workers).on(parse_adb(self.adb))
                serial, host, port = target.serial, target.host, target.port
            if not self.mobium_bin and self._prepared is None:
                from .toolserver import PreparedServer

                # Started now, it imports while the device is checked and the first trial resets.
                self._prepared = PreparedServer()
            # No single device command outlasts the tool timeout: a device that hangs ends the trial in time.
            bound = min(30.0, self.tool_timeout)
            device = Device.connect(serial, host, port, shell_timeout=bound, socket_timeout=bound)
            device.take_baseline()
            self._device_info = device.properties(APP_PACKAGE_PROPERTY)
        except DeviceUnavailable as exc:
            # The controller checked what it could before any worker started; what is left (a virtual device
            # that would not start) fails this process's trials as infrastructure errors, each saying why.
            raise DeviceError(str(exc)) from None
        self._device = device
        return device

    def write_device_info(self) -> None:
        from .devices import worker_index
        from .records import RunDir, atomic_write_json

        name = f"device-{worker_index(self.workerinput)}.json"
        atomic_write_json(RunDir(self.run_dir).path / ".session" / name, self._device_info)

    def close(self) -> None:
        if self._prepared is not None:
            self._prepared.close()
            self._prepared = None
        if self._sim is not None:
            try:
                self._sim.close()
            finally:
                self._sim = None

    def server_spec(self, device):
        from .toolserver import ToolServerSpec
        from .toolserver_faults import wrap_if_asked

        if self.mobium_bin:
            spec = ToolServerSpec.mobium(self.mobium_bin, device.serial, device.adb_host, device.adb_port)
        else:
            spec = ToolServerSpec.builtin(device.serial, device.adb_host, device.adb_port, prepared=self._prepared)
        return wrap_if_asked(spec)

    def enter_phase(self, phase: str) -> None:
        """A trial of this process entered `phase`: a virtual device this process serves hears of it, so a fault
        planned for that phase fires there (sim/faults.py)."""
        if self._sim is not None:
            self._sim.faults.enter_phase(phase)

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

    # ---- hooks: the run's books ----

    @pytest.hookimpl
    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        from .devices import parse_device

        pace = f" --device-pace={self.device_pace}" if parse_device(self.device).kind == "sim" else ""
        return [f"mobium-evals: --seed={self.seed} --driver={self.driver} --device={self.device}{pace} "
                f"run dir {self.run_dir}" + (" (resumed)" if self.resumed else "")]

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.is_worker:
            return
        from .devices import DeviceUnavailable, check_devices, lease, parse_adb, parse_device, start_sim

        if self.resumed:
            from .records import RunDir

            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            for problem in RunDir(self.run_dir).half_written_trials():
                line = f"mobium-evals: --resume: {problem}; that trial runs again"
                if reporter is not None:
                    reporter.write_line(line)
                else:
                    print(line)
        spec = parse_device(self.device)
        workers = xdist_workers(session.config)
        try:
            if workers and (spec.kind == "serials" or spec.shared_sim):
                lease(spec.targets or tuple(f"sim {i}" for i in range(spec.count)), 0, workers)
            if spec.kind == "serials":
                check_devices(spec, parse_adb(self.adb))
            if spec.shared_sim and workers:
                # sim:N under xdist: the controller serves the N devices; workers lease them by index.
                self._sim = start_sim(spec.count, self.clock_speed, self.device_pace)
                self.sim_port = self._sim.port
        except DeviceUnavailable as exc:
            raise pytest.UsageError(str(exc)) from None

    def begin_record(self) -> None:
        """record.json as soon as the controller knows trials are scheduled, before any of them ends: a run killed
        (SIGKILL, no cleanup) after its first verdict.json but before its first report must still be resumable."""
        if self.is_worker or self.record_written:
            return
        self.record_written = True
        self.write_record(finished=False)

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report) -> None:
        """Keeps each trial's final report data (after reruns) where the summary and the record are made: the
        controller under xdist, the only process otherwise."""
        data = getattr(report, "mobium", None)
        if data is None or report.outcome == "rerun" or self.is_worker:
            return
        if report.when == "call" or (report.when == "setup" and report.failed):
            self.reports[report.nodeid] = data
            run_dir = Path(self.run_dir)
            if not self.record_started:
                self.record_started = True
                self.write_record(finished=False)
                self.config.hook.pytest_mobium_run_started(config=self.config, run_dir=run_dir)
            self.config.hook.pytest_mobium_trial_recorded(config=self.config, run_dir=run_dir, result=data)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus) -> None:
        if self.is_worker:
            return
        # A run stopped between a trial's verdict.json and its report still gets its record: without one, the
        # folder could not be resumed.
        if self.reports or self._has_trials():
            finished = self.write_record(finished=session.exitstatus != pytest.ExitCode.INTERRUPTED)
            session.config.hook.pytest_mobium_run_finished(config=session.config, run_dir=Path(self.run_dir),
                                                           status="completed" if finished else "stopped")
        gating = [b for d in self.reports.values() for b in d.get("gating_blockers", [])]
        if gating and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.close()

    def _has_trials(self) -> bool:
        return any((Path(self.run_dir) / "trials").glob("*/verdict.json"))

    def write_record(self, finished: bool) -> bool:
        """record.json: what the run is (seed, options, device, tool server, tasks) and how far it got. Returns
        whether every scheduled trial has its verdict."""
        from .records import RunDir, utc_now

        run = RunDir(self.run_dir)
        session_dir = run.path / ".session"
        collection = read_json(session_dir / "collection.json") or {}
        devices = [d for p in sorted(session_dir.glob("device-*.json")) if (d := read_json(p))]
        previous = read_json(run.record_path) or {}
        settings = [] if self.drivers != ("agent",) else [s.label for s in self.model_settings()]
        # A resumed run may select fewer trials than it first scheduled: the record keeps the union, and "finished"
        # means every one of them has its verdict.json (an interrupted or partial run says so; --resume completes
        # it).
        scheduled = list(dict.fromkeys(list(previous.get("scheduled") or [])
                                       + list(collection.get("scheduled") or [])))
        finished = finished and all(run.graded(name) is not None for name in scheduled)
        record = {
            "run": run.path.name,
            "plugin": "pytest-mobium-evals",
            "plugin_version": __version__,
            "started": previous.get("started") or utc_now(),
            "finished": finished,
            "ended": utc_now() if finished else None,
            "seed": self.seed,
            "driver": self.driver,
            "drivers": list(self.drivers),
            "models": settings,
            "efforts": {s.label: s.effort for s in self.model_settings()} if settings else {},
            "repeats": self.repeats,
            "tasks": list(dict.fromkeys(list(previous.get("tasks") or []) + list(collection.get("tasks") or [])))
            or sorted({d["task"] for d in self.reports.values()}),
            "suites": collection.get("suites") or [],
            "scheduled": scheduled,
            "device": devices[0] if devices else previous.get("device"),
            "devices": devices or previous.get("devices") or [],
            "mobium": self.mobium_info(),
            "tool_server": "mobium mcp" if self.mobium_bin else "mobium-evals mcp (built-in)",
            "surfaces": list(self.surface_variants()),
            "options": self.options(),
            "resumed": self.resumed,
            "counts": dict(Counter(d["verdict"] for d in self.reports.values())),
        }
        try:
            run.write_record(record)
        except OSError as exc:
            message = (f"mobium-evals: cannot write {exc.filename or run.record_path}: {exc.strerror or exc}; "
                       f"the run stopped, and what it wrote before is intact")
            pytest.exit(message, returncode=pytest.ExitCode.INTERNAL_ERROR)
        return finished


def _baseline_seed(path: str) -> int:
    from .records import RecordError, RunDir

    try:
        record = RunDir(path).read_record()
    except RecordError as exc:
        raise pytest.UsageError(f"--baseline: {exc}") from None
    if not isinstance(record.get("seed"), int):
        raise pytest.UsageError(f"--baseline {path}: its record.json has no seed")
    return record["seed"]


def xdist_workers(config: pytest.Config) -> int:
    """How many workers xdist will start: -n N, or the gateways of --tx (`2*ssh=host` counts two)."""
    if getattr(config.option, "dist", "no") == "no":
        return 0
    n = getattr(config.option, "numprocesses", None)
    if n:
        return int(n)
    count = 0
    for spec in getattr(config.option, "tx", None) or ():
        times, star, _ = str(spec).partition("*")
        count += int(times) if star and times.isdigit() else 1
    return count


def read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


class XdistHooks:
    """Registered only when xdist is loaded: hands the controller's run-wide choices to every worker, and checks
    the agent's readiness on the controller once a worker has collected agent trials (a worker raising would
    crash itself instead of printing one line)."""

    checked = False

    @pytest.hookimpl
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        session = eval_session(node.config)
        if (Path(session.run_dir) / ".session" / "collection.json").exists():  # the workers scheduled trials
            session.begin_record()
        if self.checked or "agent" not in session.drivers or not any("[agent-" in i for i in ids):
            return
        self.checked = True
        problem = session.agent_problem()
        if problem:
            pytest.exit(f"mobium-evals: {problem}", returncode=pytest.ExitCode.USAGE_ERROR)

    @pytest.hookimpl
    def pytest_configure_node(self, node) -> None:
        session = eval_session(node.config)
        node.workerinput["mobium_state"] = session.to_workerinput()
        if session._sim is not None:  # sim:N: the controller's virtual devices, leased by worker index
            node.workerinput["mobium_sim_serials"] = list(session._sim.serials)
