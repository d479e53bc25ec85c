"""The run's state, as one object: its options (options.RunOptions, frozen, made once on the controller and handed
to every xdist worker unchanged), the device this process leased (devices.DeviceLease), and the trials' results as
they come in. It is registered as a plugin (as pytest-xdist's DSession is), so the hooks that keep the run's books are
its methods: checking the devices before any trial, collecting each trial's final report, writing record.json, and
telling listeners (hookspecs.py) how the run is going."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import pytest

from pytest_mobium_evals import __version__, source_commit
from pytest_mobium_evals.runfolder.collection import Collection
from pytest_mobium_evals.runfolder.writing import RunDir, read_run_record, utc_now

from .options import RunOptions, parse_trial_timeout

if TYPE_CHECKING:
    from pytest_mobium_evals.core.run_record import RunRecord
    from pytest_mobium_evals.core.tasks import Task
    from pytest_mobium_evals.core.trial_record import TrialRecord
    from pytest_mobium_evals.drivers.agents import Limits, ModelSetting
    from pytest_mobium_evals.drivers.agents.context import PromptSize
    from pytest_mobium_evals.reach.devices import DeviceLease
    from pytest_mobium_evals.run.trial import TrialSpec

SESSION = pytest.StashKey["EvalSession"]()
# How the run's agent passes a tool's answer to its model, when a plugin replaces the model's client with something
# else (surface_proxy.READERS; the offline stand-in agent reads the raw MCP result): what a variant must change.
SURFACE_READER = pytest.StashKey[str]()


def eval_session(config: pytest.Config) -> "EvalSession":
    return config.stash[SESSION]


@dataclass(eq=False)  # a plugin object: hashed by identity, as pluggy needs
class EvalSession:
    """Run-wide choices, made once on the controller and handed to workers unchanged (`options`: every option is
    read there), and the run's books."""

    options: RunOptions
    config: Optional[pytest.Config] = None
    sim_port: Optional[int] = None  # sim:N: the controller's shared virtual ADB server
    is_worker: bool = False
    workerinput: dict[str, Any] = field(default_factory=dict)  # xdist's, on a worker
    # A worker on another host than the controller's (xdist's ssh or socket gateways) sends its run folder's files
    # with its reports (runfolder/shipping.py); what of `.session/` it has sent, as it was then.
    sends_run_files: bool = False
    sent_run_files: dict[str, tuple[int, int]] = field(default_factory=dict)
    # controller-side collections
    reports: dict[str, TrialRecord] = field(default_factory=dict)  # nodeid -> each trial's final record
    record_started: bool = False
    record_written: bool = False
    prompt_lines: list[str] = field(default_factory=list)  # the header's lines on them, once collection is done
    _lease: Optional[DeviceLease] = None  # the device this process drives, and what serves it (`devices`)
    _collection: Optional[Collection] = None  # what this process scheduled, when it collected (`collection()`)
    _surfaces: Optional[dict[str, dict]] = None  # --surface's variants, loaded once (surface_variants)
    # each setting's first request, counted once (prompt_sizes): (setting label, surface variant) -> its size
    _prompt_sizes: Optional[dict[tuple[str, Optional[str]], PromptSize]] = None

    @classmethod
    def from_config(cls, config: pytest.Config) -> "EvalSession":
        workerinput = getattr(config, "workerinput", None)
        if workerinput is not None and "mobium_state" in workerinput:
            data = dict(workerinput["mobium_state"])
            return cls(RunOptions.from_json(data), sim_port=data.get("sim_port"), is_worker=True,
                       workerinput=workerinput, config=config,
                       sends_run_files=bool(workerinput.get("mobium_remote")))
        evals = cls(RunOptions.from_config(config), config=config)
        if "agent" in evals.options.drivers:
            evals.model_settings()  # a bad --model is a usage error now, not a collection error per file
            evals.check_trial_timeouts()
        evals.surface_variants()  # so is a bad --surface
        return evals

    def to_workerinput(self) -> dict:
        return self.options.to_json() | {"sim_port": self.devices.sim_port}

    def model_settings(self) -> list[ModelSetting]:
        from pytest_mobium_evals.drivers import agents  # noqa: PLC0415  the agents and what their settings read: only where a run has agent trials

        try:
            return agents.parse_models(self.options.models)
        except agents.AgentConfigError as exc:
            raise pytest.UsageError(str(exc)) from None

    def check_trial_timeouts(self) -> None:
        """--trial-timeout's SETTING=S entries each name a --model setting: a typo would silently leave that
        setting at the default."""
        labels = [s.label for s in self.model_settings()]
        trial_timeout = self.options.trial_timeout
        for label in parse_trial_timeout(trial_timeout)[1]:
            if label not in labels:
                raise pytest.UsageError(f"--trial-timeout {trial_timeout}: {label!r} is not one of the --model "
                                        f"settings ({', '.join(labels)})")

    def limits_for(self, setting: ModelSetting, surface: Optional[str] = None) -> Limits:
        """An agent trial's limits under this model setting (agents.Limits): its own time limit when
        --trial-timeout gives it one, and its first request as counted before the run."""
        from pytest_mobium_evals.drivers.agents import Limits  # noqa: PLC0415  the agents and what their settings read: only where a run has agent trials

        options = self.options
        seconds, own = options.trial_timeout_for(setting.label)
        return Limits(max_tool_calls=options.max_tool_calls, max_seconds=seconds, tool_timeout=options.tool_timeout,
                      request_timeout=options.request_timeout, max_seconds_for=own,
                      nudge_text_calls=options.nudge_text_calls,
                      # The tool loop's bounds: the Claude CLI sets its own, so its records say none was sent.
                      max_output_tokens=None if setting.provider == "claude" else options.max_output_tokens or None,
                      require_first_call=options.require_first_call and setting.provider == "openai",
                      prompt_size=self.prompt_sizes().get((setting.label, surface)),
                      system_prompt=self.system_prompt(surface))

    def system_prompt(self, surface: Optional[str]) -> Optional[str]:
        """The system prompt a surface variant's `[prompt] system` tells the model instead of the default, or None
        (the default)."""
        from pytest_mobium_evals.drivers.agents.prompt import SYSTEM_PROMPT, system_prompt_of  # noqa: PLC0415  the agents and what their settings read: only where a run has agent trials

        text = system_prompt_of(self.surface_variants().get(surface))
        return None if text == SYSTEM_PROMPT else text

    def prompt_sizes(self, task_prompt: Optional[str] = None) -> dict[tuple[str, Optional[str]], PromptSize]:
        """Each tool-loop model setting's first request, counted once per process ((label, surface variant) →
        agents.context.PromptSize): the built-in server's tools/list as the variant shows it, the system prompt,
        and the longest task prompt this run schedules (`task_prompt`, given once it is known)."""
        if self._prompt_sizes is None or task_prompt is not None:
            self._prompt_sizes = {}
            if "agent" not in self.options.drivers:
                return self._prompt_sizes
            from pytest_mobium_evals.drivers.agents.context import measure  # noqa: PLC0415  the agents and what their settings read: only where a run has agent trials
            from pytest_mobium_evals.drivers.agents.prompt import system_prompt_of  # noqa: PLC0415  the agents and what their settings read: only where a run has agent trials

            for setting in self.model_settings():
                if setting.provider not in ("ollama", "openai"):
                    continue  # the Claude CLI builds its own requests
                for surface in list(self.surface_variants()) or [None]:
                    functions = offered_functions(self.surface_variants().get(surface))
                    self._prompt_sizes[(setting.label, surface)] = measure(
                        setting, functions, system_prompt_of(self.surface_variants().get(surface)),
                        task_prompt or "", self.options.base_url)
        return self._prompt_sizes

    def prompt_problem(self, task_prompt: str) -> tuple[list[str], Optional[str]]:
        """Before any trial: the header's lines on each setting's first request, and the first setting whose
        prompt cannot fit its model's context (one line), or None."""
        sizes = self.prompt_sizes(task_prompt)
        lines, problem = [], None
        for (_, surface), size in sizes.items():
            lines.append(size.line() + (f" [surface {surface}]" if surface else ""))
            if problem is None and not size.fits():
                problem = size.refusal()
        return lines, problem

    def surface_variants(self) -> dict[str, dict]:
        """--surface's variants, name → the plain JSON the proxy applies, each with --tools' selection; {} with
        neither option."""
        if not self.options.surface and not self.options.tools:
            return {}
        if self._surfaces is None:
            from pytest_mobium_evals.surface.variants import SurfaceError, load_all, only_tools  # noqa: PLC0415  the surface variants: only with --surface

            root = Path(self.config.rootpath) if self.config is not None else Path.cwd()
            surface, tools = self.options.surface, self.options.tools
            try:
                variants = {v.name: v.plain() for v in load_all(surface, root)} if surface else {}
                self._surfaces = only_tools(variants, tools) if tools else variants
            except SurfaceError as exc:
                raise pytest.UsageError(str(exc)) from None
        return self._surfaces

    def surface_reader(self, setting: ModelSetting) -> str:
        from pytest_mobium_evals.surface.proxy import reader_of  # noqa: PLC0415  the surface variants: only with --surface

        override = self.config.stash.get(SURFACE_READER, None) if self.config is not None else None
        return override or reader_of(setting.provider)

    def agent_problem(self) -> Optional[str]:
        """Before any trial: a surface variant none of whose edits can reach a model's client, or a model setting
        that cannot run (no credential, endpoint down), in one line."""
        from pytest_mobium_evals.drivers import agents  # noqa: PLC0415  the agents and what their settings read: only where a run has agent trials
        from pytest_mobium_evals.surface.proxy import refusal  # noqa: PLC0415  the surface variants: only with --surface

        for setting in self.model_settings():
            for variant in self.surface_variants().values():
                problem = refusal(variant, self.surface_reader(setting))
                if problem:
                    return f"--surface: {problem}, so under --model {setting.label} it would only measure noise"
        for setting in self.model_settings():
            try:
                agents.check_ready(setting, self.options.base_url)
            except agents.AgentConfigError as exc:
                return str(exc)
        return None

    def trial_specs(self, task: Task) -> list[TrialSpec]:
        from pytest_mobium_evals.run.trial import TrialSpec  # noqa: PLC0415  a trial's machinery (asyncio, the MCP client, the drivers): only in a process that runs trials

        specs = []
        controls = task.control_drivers()
        for driver in self.options.drivers:
            if driver != "agent":
                for control, variant in controls:
                    if control == driver:
                        specs += [TrialSpec(task=task, driver=driver, repeat=repeat, variant=variant)
                                  for repeat in range(self.options.repeats)]
                continue
            settings = self.model_settings()
            names = Counter(s.name for s in settings if s is not None)
            for setting in settings:
                qualify = setting is not None and names[setting.name] > 1
                for repeat in range(self.options.repeats):
                    # Each repeat runs every variant in turn: the same task and seed, interleaved in time.
                    for surface in list(self.surface_variants()) or [None]:
                        specs.append(TrialSpec(task=task, driver=driver, repeat=repeat, setting=setting,
                                               qualify_effort=qualify, surface=surface))
        return specs

    # ---- what the run scheduled (runfolder.collection.Collection) ----

    def collected(self, collection: Collection) -> None:
        """What this process scheduled: kept here for this process, and written to `.session/collection.json` for
        the processes that did not collect it (xdist's controller)."""
        self._collection = collection
        collection.write(self.options.run_dir)

    def collection(self) -> Collection:
        """What the run scheduled: the object this process made when it collected; otherwise (xdist's controller,
        whose workers collect) the file a worker wrote, or an empty one before any has."""
        if self._collection is not None:
            return self._collection
        return Collection.read(self.options.run_dir)

    # ---- the device this process drives (devices.DeviceLease) ----

    @property
    def devices(self) -> DeviceLease:
        if self._lease is None:
            from pytest_mobium_evals.reach.devices import DeviceLease  # noqa: PLC0415  asyncio and ssl: only where a device is checked or leased

            options = self.options
            self._lease = DeviceLease(options.device, options.adb, options.clock_speed, options.device_pace,
                                      options.tool_timeout, options.mobium_bin, self.workerinput, self.sim_port,
                                      mobium_driver=options.mobium_driver, mobium_env=options.mobium_env,
                                      tool_server=options.tool_server, run_dir=options.run_dir)
        return self._lease

    def close(self) -> None:
        if self._lease is not None:
            self._lease.close()

    def mobium_info(self) -> Union[str, dict[str, Any]]:
        if not self.options.mobium_bin:
            return "built-in"
        info = {"binary": self.options.mobium_bin, "commit": None, "dirty": None}
        repo = os.environ.get("MOBIUM_REPO") or str(Path(self.options.mobium_bin).resolve().parent.parent)
        try:
            head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True,
                                  timeout=10)
            info["commit"] = head.stdout.strip() if head.returncode == 0 and head.stdout.strip() else None
            if info["commit"]:
                # Without a commit there is no tree to differ from: "dirty" stays None (unknown), never False.
                status = subprocess.run(["git", "-C", repo, "status", "--porcelain"], capture_output=True,
                                        text=True, timeout=10)
                info["dirty"] = bool(status.stdout.strip()) if status.returncode == 0 else None
        except (OSError, subprocess.SubprocessError):
            pass
        return info

    # ---- hooks: the run's books ----

    @pytest.hookimpl
    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        from pytest_mobium_evals.reach.devices import parse_device  # noqa: PLC0415  asyncio and ssl: only where a device is checked or leased

        options = self.options
        pace = f" --device-pace={options.device_pace}" if parse_device(options.device).kind == "sim" else ""
        # The run folder is named only once it exists (a resumed one; otherwise the summary names it): a run
        # refused before its first trial (no credential, no device) never creates it.
        return [f"mobium-evals: --seed={options.seed} --driver={options.driver} --device={options.device}{pace}"
                + (f", resuming {options.run_dir}" if options.resumed else "")]

    @pytest.hookimpl
    def pytest_report_collectionfinish(self, config: pytest.Config, items) -> list[str]:
        """The header's second half, once the trials are known: each model setting's first request, counted."""
        return list(self.prompt_lines)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.is_worker:
            return
        from pytest_mobium_evals.reach.devices import DeviceUnavailable, check_devices, lease, parse_adb, parse_device  # noqa: PLC0415  asyncio and ssl: only where a device is checked or leased

        if self.options.resumed:
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            for problem in RunDir(self.options.run_dir).half_written_trials():
                line = f"mobium-evals: --resume: {problem}; that trial runs again"
                if reporter is not None:
                    reporter.write_line(line)
                else:
                    print(line)
        spec = parse_device(self.options.device)
        workers = xdist_workers(session.config)
        try:
            if workers and (spec.kind == "serials" or spec.shared_sim):
                lease(spec.targets or tuple(f"sim {i}" for i in range(spec.count)), 0, workers)
            if spec.kind == "serials":
                check_devices(spec, parse_adb(self.options.adb))
            if spec.shared_sim and workers:
                # sim:N under xdist: the controller serves the N devices; workers lease them by index.
                self.devices.start_shared_sim(spec.count)
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
        record: Optional[TrialRecord] = getattr(report, "mobium", None)  # protocol.py's; rebuilt under xdist
        if record is None or report.outcome == "rerun" or self.is_worker:
            return
        if report.when == "call" or (report.when == "setup" and report.failed):
            self.reports[report.nodeid] = record
            run_dir = Path(self.options.run_dir)
            if not self.record_started:
                self.record_started = True
                self.write_record(finished=False)
                self.config.hook.pytest_mobium_run_started(config=self.config, run_dir=run_dir)
            self.config.hook.pytest_mobium_trial_recorded(config=self.config, run_dir=run_dir, record=record)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus) -> None:
        if self.is_worker:
            return
        # A run stopped between a trial's verdict.json and its report still gets its record: without one, the
        # folder could not be resumed.
        if self.reports or self._has_trials():
            finished = self.write_record(finished=session.exitstatus != pytest.ExitCode.INTERRUPTED)
            session.config.hook.pytest_mobium_run_finished(config=session.config, run_dir=Path(self.options.run_dir),
                                                           status="completed" if finished else "stopped")
        gating = [b for record in self.reports.values() for b in record.gating_blockers]
        if gating and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.close()

    def _has_trials(self) -> bool:
        return any((Path(self.options.run_dir) / "trials").glob("*/verdict.json"))

    def run_record(self, finished: bool, graded: Optional[set[str]] = None) -> RunRecord:
        """The run's record (record.json, core.run_record.RunRecord) as it stands now: what the run is (seed,
        options, device, tool server, tasks) and how far it got, `finished` when asked and every scheduled trial has
        its verdict (`graded`: the trials a caller has already loaded, else each verdict.json is checked). The one place
        it is built: `write_record` writes it, and the HTML report shows its facts while the session ends."""
        from pytest_mobium_evals.core.run_record import SCHEMA, RunRecord  # noqa: PLC0415  pydantic, left to the first trial's record: this module loads in every pytest run

        run = RunDir(self.options.run_dir)
        collection = self.collection()
        devices = run.session_devices()
        previous = read_run_record(run.record_path, default=None) or RunRecord()
        settings = [] if self.options.drivers != ("agent",) else [s.label for s in self.model_settings()]
        # A resumed run may select fewer trials than it first scheduled: the record keeps the union, and "finished"
        # means every one of them has its verdict.json (an interrupted or partial run says so; --resume completes
        # it).
        scheduled = list(dict.fromkeys(list(previous.scheduled or []) + collection.scheduled))
        finished = finished and (set(scheduled) <= graded if graded is not None
                                 else all(run.graded(name) is not None for name in scheduled))
        commit, dirty = source_commit()
        return RunRecord(
            schema_version=SCHEMA,
            run=run.path.name,
            plugin="pytest-mobium-evals",
            plugin_version=__version__,
            plugin_commit=commit,
            plugin_dirty=dirty,
            started=previous.started or utc_now(),
            finished=finished,
            ended=utc_now() if finished else None,
            seed=self.options.seed,
            driver=self.options.driver,
            drivers=list(self.options.drivers),
            models=settings,
            efforts={s.label: s.effort for s in self.model_settings()} if settings else {},
            repeats=self.options.repeats,
            tasks=list(dict.fromkeys(list(previous.tasks or []) + collection.tasks))
            or sorted({r.task for r in self.reports.values()}),
            suites=collection.suites,
            scheduled=scheduled,
            device=devices[0] if devices else previous.device,
            devices=devices or previous.devices or [],
            mobium=self.mobium_info(),
            tool_server="mobium mcp" if self.options.mobium_bin else "mobium-evals mcp (built-in)",
            # --tool-server: the agents' own server (the controls keep the one above)
            agent_tool_server=self.devices.agent_server_label(),
            surfaces=list(self.surface_variants()),
            options=self.options.stored(),
            resumed=self.options.resumed,
            counts=dict(Counter(r.verdict for r in self.reports.values())),
        )

    def write_record(self, finished: bool) -> bool:
        """record.json, as `run_record` builds it. Returns whether every scheduled trial has its verdict."""
        run = RunDir(self.options.run_dir)
        record = self.run_record(finished)
        try:
            run.write_record(record)
        except OSError as exc:
            message = (f"mobium-evals: cannot write {exc.filename or run.record_path}: {exc.strerror or exc}; "
                       f"the run stopped, and what it wrote before is intact")
            pytest.exit(message, returncode=pytest.ExitCode.INTERNAL_ERROR)
        return bool(record.finished)


def offered_functions(variant: Optional[dict]) -> list[dict]:
    """The functions a tool-loop model is offered (agents.loop.function_schema), from the built-in server's
    tools/list as the surface variant shows it (its hidden tools left out, its descriptions edited)."""
    from pytest_mobium_evals.drivers.agents.loop import function_schema  # noqa: PLC0415  mcp and the tool loop: only for a tool-loop model's offered functions
    from pytest_mobium_evals.mobium_server.server import tool_list  # noqa: PLC0415  mcp and the tool loop: only for a tool-loop model's offered functions
    from pytest_mobium_evals.surface.proxy import apply_tools  # noqa: PLC0415  mcp and the tool loop: only for a tool-loop model's offered functions

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


class XdistHooks:
    """Registered only when xdist is loaded: hands the controller's run-wide choices to every worker, and checks
    the agent's readiness on the controller once a worker has collected agent trials (a worker raising would
    crash itself instead of printing one line)."""

    checked = False

    @pytest.hookimpl
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        evals = eval_session(node.config)
        if Collection.exists(evals.options.run_dir):  # the workers scheduled trials
            evals.begin_record()
            if node.gateway.spec.popen:
                # Before any trial is handed out: one prepared tool server for the workers on this machine
                # (devices.DeviceLease.prepare_for_workers), named in the run folder where they look for it.
                evals.devices.prepare_for_workers(evals.options.run_dir)
        if self.checked or "agent" not in evals.options.drivers or not any("[agent-" in i for i in ids):
            return
        self.checked = True
        problem = evals.agent_problem()
        if problem:
            pytest.exit(f"mobium-evals: {problem}", returncode=pytest.ExitCode.USAGE_ERROR)
        lines, problem = evals.prompt_problem(evals.collection().longest_agent_prompt or "")
        reporter = node.config.pluginmanager.get_plugin("terminalreporter")
        for line in lines:
            if reporter is not None:
                reporter.write_line(line)
        if problem:
            pytest.exit(f"mobium-evals: {problem}", returncode=pytest.ExitCode.USAGE_ERROR)

    @pytest.hookimpl
    def pytest_configure_node(self, node) -> None:
        evals = eval_session(node.config)
        node.workerinput["mobium_state"] = evals.to_workerinput()
        # Not started by popen: on another host, whose disk the controller cannot read (runfolder/shipping.py).
        node.workerinput["mobium_remote"] = not node.gateway.spec.popen
        shared = evals.devices.sim
        if shared is not None:  # sim:N: the controller's virtual devices, leased by worker index
            node.workerinput["mobium_sim_serials"] = list(shared.serials)
