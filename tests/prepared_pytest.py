"""A prepared pytest for the inner runs the plugin's tests start (`pytester.runpytest_subprocess`): one process per
test process that has imported pytest, its plugins, the plugin's trial machinery and the MCP SDK once, and forks a
run for each test that asks, in the test's own folder, environment and standard streams.

An inner run from nothing spends most of its CPU importing before its first trial (the MCP SDK alone 0.85 CPU seconds):
six control trials took 2.2 CPU seconds in the run's own process from nothing and 0.65 as a fork of this one, its
trials' tool servers aside. The suite starts about 150 such runs. A fork of this process starts with all of that in
memory and then runs `python -mpytest ARGS` as a fresh interpreter would: its own sys.argv, working folder, environment
and import path (the test's PYTHONPATH before the installed packages), its own pytest config, session and plugins, its
own exit (threads joined, atexit run) and exit status. It is still a process of its own: what the run changes in its
memory, its environment or its signal handlers goes with it.

The imports happen inside a `pytest --version --version` run, under pytest's assertion rewriting as in any run, so a
fork's pytest finds its plugins' modules already rewritten and warns of nothing. What a fork cannot see is what a fresh
interpreter does at import time under the run's environment (PYTHONDONTWRITEBYTECODE, a PYTHONPATH that would shadow
an installed package): a test about that is marked `fresh_interpreter`, and its inner pytest starts from nothing
(tests/conftest.py).

    python prepared_pytest.py SOCKET

imports, binds SOCKET, prints `{"ready": SOCKET}` and serves until its stdin closes. A client
(`prepared_pytest_attach.py`, run in place of the interpreter) sends its command line, working folder and
environment with its stdin, stdout and stderr; the server forks the run onto them, tells the client the fork's pid
(the client forwards the signals it gets), and when the fork ends sends its exit status: a client killed before
that takes its fork with it, as killing `python -mpytest` ends that run."""

from __future__ import annotations

import array
import gc
import json
import os
import select
import signal
import socket
import sys

HEADER = 4  # the request's length, big-endian, before its JSON

# What an inner run imports after its plugins are loaded (a trial's driver, device, tool server client, run folder):
# imported here once. A module missing from the list only costs each fork its import.
PRELOAD = (
    "mcp", "mcp.client.session", "mcp.client.stdio", "mcp.shared.exceptions", "anyio._backends._asyncio",
    "anyio.to_thread", "adbutils", "PIL.Image", "PIL.ImageDraw", "PIL.ImageFont", "PIL.PngImagePlugin",
    "pytest_mobium_evals.run.trial", "pytest_mobium_evals.drivers.controls", "pytest_mobium_evals.drivers.scripting",
    "pytest_mobium_evals.drivers.agents.loop", "pytest_mobium_evals.drivers.agents.claude",
    "pytest_mobium_evals.drivers.agents.openai_compat", "pytest_mobium_evals.drivers.agents.ollama",
    "pytest_mobium_evals.reach.toolserver", "pytest_mobium_evals.reach.device", "pytest_mobium_evals.reach.stdio_proxy",
    "pytest_mobium_evals.sim", "pytest_mobium_evals.sim.device", "pytest_mobium_evals.sim.adb_server",
    "pytest_mobium_evals.sim.apps.mobiumapp", "pytest_mobium_evals.sim.commands", "pytest_mobium_evals.sim.dumpsys",
    "pytest_mobium_evals.sim.render", "pytest_mobium_evals.sim.uia2", "pytest_mobium_evals.runfolder.writing",
    "pytest_mobium_evals.runfolder.shipping", "pytest_mobium_evals.runfolder.reading",
    "pytest_mobium_evals.surface.proxy", "pytest_mobium_evals.report.surfaces",
    "pytest_mobium_evals.suites.ghost_bench.adapter", "pytest_mobium_evals.suites.androidworld.adapter",
)


class _Preload:
    """A plugin of the `pytest --version` run: imports PRELOAD while that run's assertion rewriting is installed."""

    def __init__(self):
        self.failed: list[str] = []

    def pytest_cmdline_main(self, config):  # made a tryfirst hook below, where pytest is imported
        import importlib

        for name in PRELOAD:
            try:
                importlib.import_module(name)
            except Exception as exc:  # noqa: BLE001  a module that will not import here is imported by the fork
                self.failed.append(f"{name}: {type(exc).__name__}: {exc}")


def _preload() -> list[str]:
    import pytest

    _Preload.pytest_cmdline_main = pytest.hookimpl(tryfirst=True)(_Preload.pytest_cmdline_main)
    preload = _Preload()
    quiet = os.open(os.devnull, os.O_WRONLY)
    saved = [os.dup(1), os.dup(2)]
    for fd in (1, 2):
        os.dup2(quiet, fd)  # the versions it prints
    try:
        # `--version` twice: a single one is answered before any plugin is loaded
        pytest.main(["--version", "--version", "-p", "no:cacheprovider"], plugins=[preload])
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(quiet)
    return preload.failed


def serve(path: str):
    """Serves until stdin closes (returns None); in a fork, returns its command line with its request applied."""
    del sys.path[0]  # this script's folder (tests/): nothing is imported from it, as nothing would be in a run
    failed = _preload()
    for line in failed:
        print(f"prepared pytest: not preloaded: {line}", file=sys.stderr, flush=True)
    # The import path a fork starts from: this one without this process's PYTHONPATH, which the fork replaces with
    # the run's (`python -mpytest` puts its working folder first, then PYTHONPATH).
    own = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    base = [p for p in sys.path if os.path.abspath(p) not in own]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the select below; the forks are reaped there
    forks: dict[int, socket.socket] = {}
    sys.stdout.write(json.dumps({"ready": path}) + "\n")
    sys.stdout.flush()
    gc.freeze()  # what is imported now is shared with every fork, not copied on its first collection
    stdin = sys.stdin.fileno()
    while True:
        waiting = [listener, stdin, wake_r, *forks.values()]
        ready, _, _ = select.select(waiting, [], [])
        if wake_r in ready:
            os.read(wake_r, 4096)
            _reap(forks)
        for conn in [c for c in ready if isinstance(c, socket.socket) and c is not listener]:
            if not conn.recv(16):  # the client went before its fork: the run goes with it
                pid = next(p for p, c in forks.items() if c is conn)
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if stdin in ready and not os.read(stdin, 4096):
            break
        if listener in ready:
            conn, _ = listener.accept()
            try:
                request, fds = _receive(conn)
            except (OSError, ValueError) as exc:
                print(f"prepared pytest: a bad request: {exc}", file=sys.stderr, flush=True)
                conn.close()
                continue
            pid = os.fork()
            if pid == 0:
                for fd in (listener.fileno(), wake_r, wake_w, *(c.fileno() for c in (*forks.values(), conn))):
                    os.close(fd)
                return _become(request, fds, base)
            for fd in fds:
                os.close(fd)
            forks[pid] = conn
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    for pid in forks:  # their clients are going with this process's own
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    listener.close()
    os.unlink(path)
    return None


def _reap(forks: dict[int, socket.socket]) -> None:
    while forks:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = forks.pop(pid, None)
        if conn is not None:
            try:
                conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
            except OSError:
                pass
            conn.close()


def _become(request: dict, fds: list[int], base: list[str]) -> list[str]:
    """In the fork: the run's standard streams, signals, folder, environment and import path."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    pythonpath = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [os.getcwd(), *pythonpath, *base]
    import importlib

    importlib.invalidate_caches()
    return list(request["argv"])


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    fds = array.array("i")
    data, ancdata, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(3 * fds.itemsize))
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError(f"expected 3 descriptors (stdin, stdout, stderr), got {len(fds)}")
    size = int.from_bytes(data[:HEADER], "big")
    while len(data) < HEADER + size:
        more = conn.recv(1 << 20)
        if not more:
            for fd in fds:
                os.close(fd)
            raise ValueError("the request ended early")
        data += more
    return json.loads(data[HEADER:HEADER + size]), list(fds)


class PreparedPytest:
    """The prepared pytest of a test process, started with it and ended with it (it ends with its stdin)."""

    READY_TIMEOUT = 60.0

    def __init__(self):
        import subprocess
        import tempfile

        self._dir = tempfile.mkdtemp(prefix="prepared-pytest-")
        self._socket = os.path.join(self._dir, "s")
        self._log = open(os.path.join(self._dir, "log"), "w+", encoding="utf-8", errors="replace")
        # In a folder of its own, empty: its `pytest --version` reads no conftest or ini file.
        self._proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), self._socket], cwd=self._dir,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                      start_new_session=True)
        self._command: list[str] | None = None
        self.problem: str | None = None

    def command(self) -> list[str] | None:
        """What runs `python -mpytest` as a fork of this prepared pytest (the arguments follow it); None when it
        did not come up (`problem` says why)."""
        if self._command is None and self.problem is None:
            ready, _, _ = select.select([self._proc.stdout], [], [], self.READY_TIMEOUT)
            line = self._proc.stdout.readline() if ready else b""
            try:
                json.loads(line)["ready"]
            except (ValueError, KeyError, TypeError):
                self._log.flush()
                self._log.seek(0)
                self.problem = f"the prepared pytest did not come up: {line[:200]!r} {self._log.read()[-600:]}"
                return None
            attach = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prepared_pytest_attach.py")
            self._command = [sys.executable, "-I", "-S", attach, self._socket]
        return self._command

    def close(self) -> None:
        import shutil
        import subprocess

        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout, self._log):
            stream.close()
        shutil.rmtree(self._dir, ignore_errors=True)


if __name__ == "__main__":
    argv = serve(sys.argv[1])
    if argv is None:
        sys.exit(0)
    # `python -mpytest ARGV`, from here on as the interpreter runs it: pytest's __main__ raises SystemExit with the
    # run's status, and this process ends as any interpreter does (its threads joined, atexit run).
    import runpy

    sys.argv = ["pytest", *argv]
    del argv
    runpy.run_module("pytest", run_name="__main__", alter_sys=True)
