"""`am instrument -w io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner`: the UiAutomator2
server's one test, `startServer`, which listens on the device's tcp:6790 until it is told to stop.

It runs in the server package's process (the instrumentation's target), so `pidof`/`ps` see
`io.appium.uiautomator2.server` while it runs. It ends, and `am instrument -w` prints the end of its report and exits,
when a client deletes its session (the server stops itself after the answer), when either of its packages is
force-stopped (the process dies: "Process crashed."), or when the `adb shell` that started it closes.

The report is AndroidJUnitRunner's over `am instrument`: the test's start status block (INSTRUMENTATION_STATUS_CODE:
1) as soon as it runs, then its end block and INSTRUMENTATION_RESULT/INSTRUMENTATION_CODE.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

from .server import PORT, UiAutomator2Server

if TYPE_CHECKING:  # pragma: no cover
    from ..device import VirtualDevice

SERVER_PACKAGE = "io.appium.uiautomator2.server"
TEST_PACKAGE = "io.appium.uiautomator2.server.test"
RUNNER = "androidx.test.runner.AndroidJUnitRunner"
COMPONENT = f"{TEST_PACKAGE}/{RUNNER}"
TEST_CLASS = "io.appium.uiautomator2.server.test.AppiumUiAutomator2Server"
SPEC = f"tcp:{PORT}"


def _status_block(code: int, stream: str) -> str:
    return (f"INSTRUMENTATION_STATUS: class={TEST_CLASS}\n"
            "INSTRUMENTATION_STATUS: current=1\n"
            f"INSTRUMENTATION_STATUS: id=AndroidJUnitRunner\n"
            "INSTRUMENTATION_STATUS: numtests=1\n"
            f"INSTRUMENTATION_STATUS: stream={stream}\n"
            "INSTRUMENTATION_STATUS: test=startServer\n"
            f"INSTRUMENTATION_STATUS_CODE: {code}\n")


class Instrumentation:
    """The running server's instrumentation on one device (at most one: a second start replaces the first, as
    starting an instrumentation again restarts its target process)."""

    def __init__(self, device: "VirtualDevice"):
        self.device = device
        self.server = UiAutomator2Server(device, on_session_deleted=self._session_deleted)
        self.done = threading.Event()
        self.ending = ""  # what `am instrument` prints when the run ends
        self.started_at = 0.0

    def start(self) -> str:
        """Starts the server (the caller holds the device lock); returns the report's opening block."""
        d = self.device
        previous = d.running_instrumentations.get(SERVER_PACKAGE)
        if previous is not None:
            previous.end("crashed")
        d.kill_process(SERVER_PACKAGE, reason="start instr")
        d._ensure_process(SERVER_PACKAGE)
        d.running_instrumentations[SERVER_PACKAGE] = self
        d.running_instrumentations[TEST_PACKAGE] = self
        self.started_at = d.now()
        d.listeners.listen(SPEC, self.server.serve)
        d.log("AppiumUiAutomator2Server", f"Starting UiAutomator2 server at port {PORT}", pid=self._pid())
        return _status_block(1, f"\n{TEST_CLASS}:")

    def _pid(self) -> int | None:
        proc = self.device.processes.get(SERVER_PACKAGE)
        return proc.pid if proc is not None else None

    def end(self, how: str) -> None:
        """Ends the run: "finished" (the session was deleted), "crashed" (its process was killed), "hangup" (the
        shell that waited on it closed). Safe to call more than once."""
        d = self.device
        with d.lock:
            if self.done.is_set():
                return
            if d.running_instrumentations.get(SERVER_PACKAGE) is self:
                d.running_instrumentations.pop(SERVER_PACKAGE, None)
                d.running_instrumentations.pop(TEST_PACKAGE, None)
            d.listeners.close(SPEC)
            if how == "finished":
                seconds = max(0.0, d.now() - self.started_at)
                self.ending = (_status_block(0, ".") + "INSTRUMENTATION_RESULT: stream=\n\n"
                               f"Time: {seconds:.3f}\n\nOK (1 test)\n\n\nINSTRUMENTATION_CODE: -1\n")
            else:
                self.ending = "INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n"
            if SERVER_PACKAGE in d.processes:  # the test package's instrumentation runs in the server's process
                d.kill_process(SERVER_PACKAGE, reason="finished instr" if how == "finished" else "crashed instr")
            self.done.set()
        self.server.stop()

    def _session_deleted(self) -> None:
        # The server stops itself a moment after it answered the delete (so the answer reaches the client first).
        threading.Timer(0.015, self.end, args=("finished",)).start()

    def wait(self, hung_up: Callable[[float], bool]) -> str:
        """Blocks until the run ends or the client hangs up (`hung_up(timeout)` waits up to `timeout` seconds for
        that); returns what `am instrument` prints last."""
        while not self.done.is_set():
            if hung_up(0.05):
                self.end("hangup")
        return self.ending


def instrument(ctx, args: list[str]) -> int:
    """`am instrument [-w] [-r] [-e KEY VALUE]… [--no-window-animation] COMPONENT`."""
    d = ctx.device
    wait = False
    component = ""
    it = iter(args)
    for a in it:
        if a == "-w":
            wait = True
        elif a in ("-e", "--user", "-p", "--abi"):
            next(it, None)
            if a == "-e":
                next(it, None)
        elif a.startswith("-"):
            continue
        else:
            component = a
    if not component:
        ctx.errln("Error: Bad component name: ")
        return 1
    pkg, _, runner = component.partition("/")
    declared = d.instrumentation(component)
    if declared is None or declared.target_package not in d.packages:
        why = (f"Unable to find instrumentation info for: ComponentInfo{{{pkg}/{runner}}}" if declared is None
               else f"Unable to find instrumentation target package: {declared.target_package}")
        ctx.outln("INSTRUMENTATION_STATUS: id=ActivityManagerService")
        ctx.outln(f"INSTRUMENTATION_STATUS: Error={why}")
        ctx.outln("INSTRUMENTATION_STATUS_CODE: -1")
        ctx.errln(f"android.util.AndroidException: INSTRUMENTATION_FAILED: {component}\n"
                  "\tat com.android.commands.am.Instrument.run(Instrument.java:589)\n"
                  "\tat com.android.server.am.ActivityManagerShellCommand.runInstrument("
                  "ActivityManagerShellCommand.java:1443)")
        return 1
    if (declared.package, declared.name, declared.target_package) != (TEST_PACKAGE, RUNNER, SERVER_PACKAGE):
        # An installed APK's code does not run on the virtual device: its runner finds no tests to run.
        ctx.out("INSTRUMENTATION_RESULT: stream=\n\nTime: 0.001\n\nOK (0 tests)\n\n\nINSTRUMENTATION_CODE: -1\n")
        return 0
    run = Instrumentation(d)
    ctx.out(run.start())
    if wait:
        ctx.shell.hold = run  # the ADB server keeps the shell open until the run ends or the client hangs up
    return 0
