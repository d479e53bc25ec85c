"""The run's books, as one object, kept on the controller (the only process without xdist): what the run scheduled
(runfolder.collection.Collection), each trial's final record as its report comes in, and record.json, the one place
the run's record (core.run_record.RunRecord) is built and written. On a worker on another host than the
controller's, the books are also what of the run folder it has sent with its reports (runfolder/shipping.py), so
that the controller's run folder is whole with no folder the hosts share."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

import pytest

from pytest_mobium_evals import __version__, source_commit
from pytest_mobium_evals.core.setting import agent_only
from pytest_mobium_evals.runfolder import reading, shipping
from pytest_mobium_evals.runfolder.collection import Collection
from pytest_mobium_evals.runfolder.layout import RunDir
from pytest_mobium_evals.runfolder.writing import utc_now, write_record

from .agent_setup import AgentSetup
from .options import RunOptions

if TYPE_CHECKING:
    from pytest_mobium_evals.core.run_record import RunRecord
    from pytest_mobium_evals.core.trial_record import TrialRecord


@dataclass(eq=False)
class RunBooks:
    options: RunOptions
    agents: AgentSetup
    # the agent's tool server as records name it (devices.DeviceLease.agent_server_label), asked when the record is
    # built: the lease is made only when first needed
    agent_server_label: Callable[[], Optional[str]] = lambda: None
    reports: dict[str, TrialRecord] = field(default_factory=dict)  # nodeid -> each trial's final record
    record_started: bool = False  # the first trial's report came in (pytest_mobium_run_started was told)
    record_begun: bool = False  # record.json was written once trials were known to be scheduled
    _collection: Optional[Collection] = None  # what this process scheduled, when it collected (`collection()`)
    # A worker on another host (xdist's ssh or socket gateways) sends its run folder's files with its reports
    # (runfolder/shipping.py); what of `.session/` it has sent, as it was then.
    ships_files: bool = False
    _shipped: dict[str, tuple[int, int]] = field(default_factory=dict)

    def files_to_send(self, trial: Optional[str]) -> Optional[dict[str, str]]:
        """On a worker on another host: what goes with a report (the trial's folder, and what changed in
        `.session/`); None on one that shares the controller's folder."""
        if not self.ships_files:
            return None
        return shipping.packed(self.options.run_dir, trial, self._shipped)

    def files_received(self, files: dict[str, str]) -> None:
        """On the controller: a remote worker's files written into the run folder, before its report is read (a
        `RecordError` for a path outside a trial's folder or `.session/`)."""
        shipping.unpack(self.options.run_dir, files)

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

    def begin(self) -> None:
        """record.json as soon as the controller knows trials are scheduled, before any of them ends: a run killed
        (SIGKILL, no cleanup) after its first verdict.json but before its first report must still be resumable."""
        if self.record_begun:
            return
        self.record_begun = True
        self.write(finished=False)

    def trial_recorded(self, nodeid: str, record: TrialRecord) -> bool:
        """Keeps a trial's final record; True for the run's first, when record.json is written again."""
        self.reports[nodeid] = record
        if self.record_started:
            return False
        self.record_started = True
        self.write(finished=False)
        return True

    def run_record(self, finished: bool, graded: Optional[set[str]] = None) -> RunRecord:
        """The run's record (record.json, core.run_record.RunRecord) as it stands now: what the run is (seed,
        options, device, tool server, tasks) and how far it got, `finished` when asked and every scheduled trial has
        its verdict (`graded`: the trials a caller has already loaded, else each verdict.json is checked). The one place
        it is built: `write` writes it, and the HTML report shows its facts while the session ends."""
        from pytest_mobium_evals.core.run_record import SCHEMA, RunRecord  # noqa: PLC0415  pydantic, left to the first trial's record: this module loads in every pytest run

        options = self.options
        run = RunDir(options.run_dir)
        collection = self.collection()
        devices = reading.session_devices(run)
        previous = reading.read_run_record(run.record_path, default=None) or RunRecord()
        settings = [s.label for s in self.agents.settings()] if agent_only(options.drivers) else []
        # A resumed run may select fewer trials than it first scheduled: the record keeps the union, and "finished"
        # means every one of them has its verdict.json (an interrupted or partial run says so; --resume completes
        # it).
        scheduled = list(dict.fromkeys(list(previous.scheduled or []) + collection.scheduled))
        finished = finished and (set(scheduled) <= graded if graded is not None
                                 else all(reading.graded(run, name) is not None for name in scheduled))
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
            seed=options.seed,
            driver=options.driver,
            drivers=list(options.drivers),
            models=settings,
            efforts={s.label: s.effort for s in self.agents.settings()} if settings else {},
            repeats=options.repeats,
            tasks=list(dict.fromkeys(list(previous.tasks or []) + collection.tasks))
            or sorted({r.task for r in self.reports.values()}),
            suites=collection.suites,
            scheduled=scheduled,
            device=devices[0] if devices else previous.device,
            devices=devices or previous.devices or [],
            mobium=mobium_info(options.mobium_bin),
            tool_server="mobium mcp" if options.mobium_bin else "mobium-evals mcp (built-in)",
            # --tool-server: the agents' own server (the controls keep the one above)
            agent_tool_server=self.agent_server_label(),
            surfaces=list(self.agents.surface_variants()),
            options=options.stored(),
            resumed=options.resumed,
            counts=dict(Counter(r.verdict for r in self.reports.values())),
        )

    def write(self, finished: bool) -> bool:
        """record.json, as `run_record` builds it. Returns whether every scheduled trial has its verdict."""
        run = RunDir(self.options.run_dir)
        record = self.run_record(finished)
        try:
            write_record(run, record)
        except OSError as exc:
            message = (f"mobium-evals: cannot write {exc.filename or run.record_path}: {exc.strerror or exc}; "
                       f"the run stopped, and what it wrote before is intact")
            pytest.exit(message, returncode=pytest.ExitCode.INTERNAL_ERROR)
        return bool(record.finished)


def mobium_info(mobium_bin: Optional[str]) -> Union[str, dict[str, Any]]:
    """The Mobium the run's tool server is: "built-in", or the binary with its checkout's commit and whether the
    tree differs from it (None: unknown)."""
    if not mobium_bin:
        return "built-in"
    info: dict[str, Any] = {"binary": mobium_bin, "commit": None, "dirty": None}
    repo = os.environ.get("MOBIUM_REPO") or str(Path(mobium_bin).resolve().parent.parent)
    try:
        head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        info["commit"] = head.stdout.strip() if head.returncode == 0 and head.stdout.strip() else None
        if info["commit"]:
            # Without a commit there is no tree to differ from: "dirty" stays None (unknown), never False.
            status = subprocess.run(["git", "-C", repo, "status", "--porcelain"], capture_output=True, text=True,
                                    timeout=10)
            info["dirty"] = bool(status.stdout.strip()) if status.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        pass
    return info
