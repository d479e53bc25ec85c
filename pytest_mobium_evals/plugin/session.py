"""The run's session, as the plugin object pytest calls (registered as pytest-xdist's DSession is): what the run was
asked (options.RunOptions, frozen, made once on the controller and handed to every xdist worker unchanged), the device
this process leases (devices.DeviceLease), the agent trials' settings (agent_setup.AgentSetup: models, surfaces,
prompt sizes, limits) and the run's books (run_books.RunBooks: what was scheduled, each trial's record, record.json),
each an object of its own. Its hooks are thin: they check the devices before any trial, hand each trial's final
report to the books, and tell listeners (hookspecs.py) how the run is going."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import pytest

from pytest_mobium_evals.runfolder import reading
from pytest_mobium_evals.runfolder.collection import Collection

from .agent_setup import AgentSetup
from .options import RunOptions
from .run_books import RunBooks

if TYPE_CHECKING:
    from pytest_mobium_evals.core.trial_record import TrialRecord
    from pytest_mobium_evals.reach.devices import DeviceLease

SESSION = pytest.StashKey["EvalSession"]()
# How the run's agent passes a tool's answer to its model, when a plugin replaces the model's client with something
# else (surface.rewrite.READERS; the offline stand-in agent reads the raw MCP result): what a variant must change.
SURFACE_READER = pytest.StashKey[str]()


def eval_session(config: pytest.Config) -> "EvalSession":
    return config.stash[SESSION]


@dataclass(eq=False)  # a plugin object: hashed by identity, as pluggy needs
class EvalSession:
    options: RunOptions
    config: Optional[pytest.Config] = None
    sim_port: Optional[int] = None  # sim:N: the controller's shared virtual ADB server
    is_worker: bool = False
    workerinput: dict[str, Any] = field(default_factory=dict)  # xdist's, on a worker
    agents: AgentSetup = field(init=False)
    books: RunBooks = field(init=False)
    _lease: Optional[DeviceLease] = None  # the device this process drives, and what serves it (`devices`)

    def __post_init__(self) -> None:
        config = self.config
        root = Path(config.rootpath) if config is not None else Path.cwd()
        self.agents = AgentSetup(self.options, root, lambda: config.stash.get(SURFACE_READER, None)
                                 if config is not None else None)
        self.books = RunBooks(self.options, self.agents, lambda: self.devices.agent_server_label(),
                              ships_files=bool(self.workerinput.get("mobium_remote")))

    @classmethod
    def from_config(cls, config: pytest.Config) -> "EvalSession":
        workerinput = getattr(config, "workerinput", None)
        if workerinput is not None and "mobium_state" in workerinput:
            data = dict(workerinput["mobium_state"])
            return cls(RunOptions.from_json(data), sim_port=data.get("sim_port"), is_worker=True,
                       workerinput=workerinput, config=config)
        evals = cls(RunOptions.from_config(config), config=config)
        evals.agents.check()  # a bad --model, --trial-timeout or --surface is a usage error now, not per file
        return evals

    def to_workerinput(self) -> dict:
        return self.options.to_json() | {"sim_port": self.devices.sim_port}

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

    # ---- hooks ----

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
        return list(self.agents.prompt_lines)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.is_worker:
            return
        from pytest_mobium_evals.reach.devices import DeviceUnavailable, check_devices, lease, parse_adb, parse_device  # noqa: PLC0415  asyncio and ssl: only where a device is checked or leased

        if self.options.resumed:
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            for problem in reading.half_written_trials(self.options.run_dir):
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

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report) -> None:
        """Hands each trial's final report data (after reruns) to the books, where the summary and the record are
        made: the controller under xdist, the only process otherwise."""
        record: Optional[TrialRecord] = getattr(report, "mobium", None)  # protocol.py's; rebuilt under xdist
        if record is None or report.outcome == "rerun" or self.is_worker:
            return
        if report.when == "call" or (report.when == "setup" and report.failed):
            run_dir = Path(self.options.run_dir)
            if self.books.trial_recorded(report.nodeid, record):
                self.config.hook.pytest_mobium_run_started(config=self.config, run_dir=run_dir)
            self.config.hook.pytest_mobium_trial_recorded(config=self.config, run_dir=run_dir, record=record)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus) -> None:
        if self.is_worker:
            return
        books = self.books
        # A run stopped between a trial's verdict.json and its report still gets its record: without one, the
        # folder could not be resumed.
        if books.reports or reading.has_verdicts(self.options.run_dir):
            finished = books.write(finished=session.exitstatus != pytest.ExitCode.INTERRUPTED)
            session.config.hook.pytest_mobium_run_finished(config=session.config, run_dir=Path(self.options.run_dir),
                                                           status="completed" if finished else "stopped")
        gating = [b for record in books.reports.values() for b in record.gating_blockers]
        if gating and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._lease is not None:
            self._lease.close()


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
            evals.books.begin()
            if node.gateway.spec.popen:
                # Before any trial is handed out: one prepared tool server for the workers on this machine
                # (devices.DeviceLease.prepare_for_workers), named in the run folder where they look for it.
                evals.devices.prepare_for_workers(evals.options.run_dir)
        # the collection a worker wrote before xdist heard it had collected: the longest prompt of its agent trials
        longest = evals.books.collection().longest_agent_prompt
        if self.checked or longest is None:
            return
        self.checked = True
        lines, problem = evals.agents.problem(longest)
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
