"""What a process that runs trials keeps to its end is moved out of reach of Python's cyclic garbage collector.

A worker holds what it imported and collected to its end: pytest and the plugin, the tasks and their items, and from
its first trial on the MCP SDK's client (about 560 pydantic models), the virtual device and the record's models. Each
full collection the interpreter runs walks all of it again: a worker of the main job spent about 0.85 CPU seconds in
full collections, of 1.9 in the collector and about 18 in all (issue 45; the young generations' share is the trials'
own garbage, which this does not change). `gc.freeze()` puts what exists at that moment where the collector never
walks, as the prepared tool server does before it forks; a full collection then walks only what came since. It is done
after one full collection, so that the garbage of the moment is freed rather than kept: once the trials are collected,
and once the first trial has ended (its imports are the big ones). A frozen object is still freed when its last
reference goes; only a reference cycle among frozen objects stays to the process's end.

Only a process that runs trials does this: `--collect-only` and a pytest run with no trial in it (the plugin's own
tests) keep the collector as it was. xdist's controller collects nothing; it freezes once, when its first trial has
ended, having imported by then what it reads reports with."""

from __future__ import annotations

import gc
from typing import Optional

import pytest

from .collection import spec_of


class LongLived:
    """Registered on every process of a run; freezes at most twice (`freezes` counts)."""

    def __init__(self) -> None:
        self.freezes = 0
        self._first_trial: Optional[str] = None  # the nodeid whose end is the second (the controller's only) freeze
        self._done = False

    def freeze(self) -> None:
        gc.collect()
        gc.freeze()
        self.freezes += 1

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not session.config.option.collectonly and any(spec_of(item) is not None for item in session.items):
            self.freeze()

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self._first_trial is None and getattr(report, "mobium", None) is not None:
            self._first_trial = report.nodeid

    @pytest.hookimpl
    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        if not self._done and nodeid == self._first_trial:
            self._done = True
            self.freeze()
