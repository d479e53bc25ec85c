"""A prepared Python for the pytest processes a run starts: one process that has imported pytest, its plugins, the
plugin's trial machinery and the MCP SDK once, and forks, for each process asked of it, the interpreter that command
line would have started, in the asker's folder and environment and on its standard streams.

A pytest process from nothing spends most of its start importing: an xdist worker of the main job about 1.2 CPU
seconds before it collects, and four of them start at once on two cores, or thirty-two beside thirty-two emulators.
The plugin's own tests start about 150 inner runs, each as much again. A fork of this process starts with all of that
in memory. It is still a process of its own that runs its command line as a fresh interpreter would: its own
sys.argv, working folder, environment and import path (the asker's PYTHONPATH before the installed packages), its
own pytest config, session and plugins, its own exit (threads joined, atexit run) and exit status. What it changes in
its memory, its environment or its signal handlers goes with it.

The imports happen inside a `pytest --version --version` run, under pytest's assertion rewriting as in any run, so a
fork's pytest finds its plugins' modules already rewritten and warns of nothing. What a fork cannot see is what a
fresh interpreter does at import time under the asker's environment (PYTHONDONTWRITEBYTECODE, a PYTHONPATH that would
shadow an installed package): the plugin's tests of that start their runs from nothing.

Two command lines are served, the two the harness starts: `-m MODULE ARGS` (`python -mpytest`, the tests' inner runs)
and `-c CODE ARGS` (the bootstrap execnet gives each xdist worker), after `-u` and `-B` if given. The client
(`prepared_python_attach.py`, run in place of the interpreter: `attach_command()`) starts any other command line
itself, and so it does when this process is not there.

    python prepared_python.py LISTEN_FD [--origin DIR] [MODULE ...]

imports MODULE…, prints `{"ready": true}`, and serves the listening socket LISTEN_FD until its stdin closes. The
socket is bound by the process that starts this one, so a client may connect at once: it waits in the backlog while
the imports are made. A client sends its command line, working folder, umask and environment with its stdin, stdout
and stderr; the server forks the process onto them, tells the client the fork's pid (the client forwards the signals
it gets), and when the fork ends sends its exit status. A client killed before that takes its fork with it, and so
does this process when it ends. With --origin, the imports are made with DIR first on the import path, where a fresh
`python -c` started there would look first (a checkout's own package)."""

from __future__ import annotations

import ctypes
import gc
import importlib
import io
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
import types

import pytest

#: What a worker of a control run imports after its plugins are loaded: a trial's driver, device, tool server
#: client, run folder and report parts (and what pytest's own plugins and Pillow's first open import then). A module
#: missing from the list only costs each fork its import: `sys.modules` at a worker's first trial's end, less what it
#: held at its configure, is the list to check it against.
CONTROL_TRIALS = (
    "mcp", "mcp.client.session", "mcp.client.stdio", "mcp.shared.exceptions", "anyio._backends._asyncio",
    "anyio.to_thread", "adbutils", "PIL.Image", "PIL.ImageDraw", "PIL.ImageFont", "PIL.PngImagePlugin",
    "PIL.BmpImagePlugin", "PIL.GifImagePlugin", "PIL.JpegImagePlugin", "PIL.PpmImagePlugin", "pdb", "faulthandler",
    "pytest_mobium_evals.plugin.json_suites", "pytest_mobium_evals.reach.devices",
    "pytest_mobium_evals.reach.forked_server", "pytest_mobium_evals.reach.toolserver_faults",
    "pytest_mobium_evals.commands.testfile.command",
    "pytest_mobium_evals.run.trial", "pytest_mobium_evals.drivers.controls", "pytest_mobium_evals.drivers.scripting",
    "pytest_mobium_evals.reach.toolserver", "pytest_mobium_evals.reach.device", "pytest_mobium_evals.reach.stdio_proxy",
    "pytest_mobium_evals.sim", "pytest_mobium_evals.sim.device", "pytest_mobium_evals.sim.adb_server",
    "pytest_mobium_evals.sim.apps.mobiumapp", "pytest_mobium_evals.sim.commands", "pytest_mobium_evals.sim.dumpsys",
    "pytest_mobium_evals.sim.render", "pytest_mobium_evals.sim.uia2", "pytest_mobium_evals.runfolder.writing",
    "pytest_mobium_evals.runfolder.shipping", "pytest_mobium_evals.runfolder.reading",
    "pytest_mobium_evals.surface.proxy", "pytest_mobium_evals.report.surfaces",
    "pytest_mobium_evals.suites.ghost_bench.adapter", "pytest_mobium_evals.suites.androidworld.adapter",
)
#: What a worker of an agent run imports besides: the model clients.
AGENT_TRIALS = CONTROL_TRIALS + (
    "pytest_mobium_evals.drivers.agents.loop", "pytest_mobium_evals.drivers.agents.claude",
    "pytest_mobium_evals.drivers.agents.openai_compat", "pytest_mobium_evals.drivers.agents.ollama",
    "claude_agent_sdk", "jsonschema", "anyio._core._subprocesses",
)

_FLAGS = ("-u", "-B")


def split_command_line(args: list[str]) -> tuple[set[str], str, str, list[str]] | None:
    """A command line this server forks (its flags, `-m` or `-c`, the module or code, the arguments after it), or
    None for any other. The client asks the same question before it connects."""
    flags = set()
    i = 0
    while i < len(args) and args[i] in _FLAGS:
        flags.add(args[i])
        i += 1
    if i >= len(args):
        return None
    head = args[i]
    if head in ("-m", "-c"):
        if i + 1 >= len(args):
            return None
        return flags, head, args[i + 1], args[i + 2:]
    if head.startswith("-m") and len(head) > 2:
        return flags, "-m", head[2:], args[i + 1:]
    return None


class _Preload:
    """A plugin of the `pytest --version` run: imports the modules asked while that run's assertion rewriting is
    installed."""

    def __init__(self, modules):
        self.modules = modules
        self.failed: list[str] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config):
        for name in self.modules:
            try:
                importlib.import_module(name)
            except Exception as exc:  # noqa: BLE001  a module that will not import here is imported by the fork
                self.failed.append(f"{name}: {type(exc).__name__}: {exc}")


def _preload(modules) -> list[str]:
    preload = _Preload(modules)
    quiet = os.open(os.devnull, os.O_WRONLY)
    saved = [os.dup(1), os.dup(2)]
    for fd in (1, 2):
        os.dup2(quiet, fd)  # the versions it prints
    try:
        # `--version` twice: a single one is answered before any plugin is loaded
        pytest.main(["--version", "--version", "-p", "no:cacheprovider"], plugins=[preload])
    except BaseException as exc:  # noqa: BLE001  what was imported before it stays; a fork imports the rest
        preload.failed.append(f"pytest --version: {type(exc).__name__}: {exc}")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(quiet)
    return preload.failed


def serve(listener: socket.socket, modules, origin: str | None):
    """Serves until stdin closes (returns None); in a fork, returns its command line with its request applied."""
    del sys.path[0]  # this script's folder: nothing is imported from it, as nothing would be in a fresh interpreter
    # The import path a fork starts from: this one without this process's PYTHONPATH, which the fork replaces with
    # its asker's (a fresh interpreter puts its first entry, then PYTHONPATH, before the installed packages).
    own = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    base = [p for p in sys.path if os.path.abspath(p) not in own]
    if origin:
        sys.path.insert(0, origin)
    failed = _preload(modules)
    if origin:
        sys.path.remove(origin)
    for line in failed:
        print(f"prepared python: not preloaded: {line}", file=sys.stderr, flush=True)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the select below; the forks are reaped there
    forks: dict[int, socket.socket] = {}
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
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
            if conn in forks.values() and not conn.recv(16):  # the client went before its fork: so does the fork
                pid = next(p for p, c in forks.items() if c is conn)
                _kill(pid)
        if stdin in ready and not os.read(stdin, 4096):
            break
        if listener in ready:
            conn, _ = listener.accept()
            try:
                request, fds = _receive(conn)
                command = split_command_line(list(request["argv"]))
                if command is None:
                    raise ValueError(f"not a command line this server forks: {request['argv'][:3]}")
            except (OSError, ValueError, KeyError, TypeError) as exc:
                print(f"prepared python: a bad request: {exc}", file=sys.stderr, flush=True)
                conn.close()
                continue
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for sock in (listener, *forks.values(), conn):
                    sock.close()
                for fd in (wake_r, wake_w):
                    os.close(fd)
                _become(request, fds, base, command)
                return command
            for fd in fds:
                os.close(fd)
            forks[pid] = conn
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    for pid in forks:  # their clients are going with this process's own
        _kill(pid)
    listener.close()
    return None


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


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


def _become(request: dict, fds: list[int], base: list[str], command) -> None:
    """In the fork: the asker's standard streams, signals, folder, umask, environment and import path."""
    flags, kind, _, _ = command
    _end_with_the_server()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.umask(int(request["umask"]))
    os.environ.clear()
    os.environ.update(request["env"])
    _reopen_standard_streams(unbuffered="-u" in flags)
    if "-B" in flags:
        sys.dont_write_bytecode = True
    pythonpath = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    # What a fresh interpreter puts first: the working folder for -m, an empty entry (the folder, as it will be)
    # for -c.
    sys.path[:] = [os.getcwd() if kind == "-m" else "", *pythonpath, *base]
    importlib.invalidate_caches()


def _end_with_the_server() -> None:
    """The fork is killed when this process ends, however it ends (Linux's parent-death signal)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # the client's end still ends it (the loop above)


def _reopen_standard_streams(unbuffered: bool) -> None:
    """sys.stdin, stdout and stderr over the asker's descriptors, as an interpreter makes them at its start:
    stdout line-buffered on a terminal, stderr always; with -u, neither buffered."""
    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    sys.stdin = sys.__stdin__ = open(0, "r", encoding=encoding, errors=errors, closefd=False)
    for name, fd in (("stdout", 1), ("stderr", 2)):
        line_buffering = fd == 2 or os.isatty(fd)
        stream_errors = "backslashreplace" if fd == 2 else errors
        raw = io.FileIO(fd, "w", closefd=False)
        stream = io.TextIOWrapper(raw if unbuffered else io.BufferedWriter(raw), encoding=encoding,
                                  errors=stream_errors, line_buffering=line_buffering, write_through=unbuffered)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    # Imported once the package is, under the preload's assertion rewriting: not at this script's top.
    from pytest_mobium_evals.reach.prepared_processes import receive_request  # noqa: PLC0415

    body, fds = receive_request(conn, 1 << 20)
    try:
        return json.loads(body), fds
    except ValueError:
        for fd in fds:
            os.close(fd)
        raise


def _run(command) -> None:
    """The command line, from here on as the interpreter runs it: the module as __main__ (pytest's raises SystemExit
    with the run's status), or the code in a fresh __main__; this process then ends as any interpreter does (its
    threads joined, atexit run)."""
    _, kind, target, args = command
    if kind == "-m":
        sys.argv = ["-m", *args]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
        return
    main = types.ModuleType("__main__")
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    sys.argv = ["-c", *args]
    exec(compile(target, "<string>", "exec"), main.__dict__)


class PreparedPython:
    """A prepared Python started by this process and ended with it (it ends with its stdin, so with this process
    even if nobody calls close()). Its attach command may be used at once: a client waits while it imports."""

    READY_TIMEOUT = 60.0

    def __init__(self, modules=CONTROL_TRIALS, origin: str | None = None):
        self._dir = tempfile.mkdtemp(prefix="prepared-python-")
        self._socket = os.path.join(self._dir, "s")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self._socket)
        listener.listen(128)
        self._log = open(os.path.join(self._dir, "log"), "w+", encoding="utf-8", errors="replace")
        command = [sys.executable, os.path.abspath(__file__), str(listener.fileno())]
        if origin:
            command += ["--origin", origin]
        # In a folder of its own, empty: its `pytest --version` reads no conftest or ini file.
        self._proc = subprocess.Popen([*command, *modules], cwd=self._dir, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=self._log, start_new_session=True,
                                      pass_fds=(listener.fileno(),))
        listener.close()
        self._ready: bool | None = None
        self.problem: str | None = None

    def attach_command(self) -> list[str]:
        """What runs `python ARGS` as a fork of this one: ARGS follow it. -I -S: the client imports only the
        standard library's C parts and json, a few milliseconds."""
        attach = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prepared_python_attach.py")
        return [sys.executable, "-I", "-S", attach, self._socket]

    def ready(self) -> bool:
        """Waits for the imports; False when it did not come up (`problem` says why)."""
        if self._ready is None:
            ready, _, _ = select.select([self._proc.stdout], [], [], self.READY_TIMEOUT)
            line = self._proc.stdout.readline() if ready else b""
            try:
                self._ready = json.loads(line)["ready"] is True
            except (ValueError, KeyError, TypeError):
                self._ready = False
            if not self._ready:
                self._log.flush()
                self._log.seek(0)
                self.problem = f"the prepared python did not come up: {line[:200]!r} {self._log.read()[-600:]}"
        return self._ready

    def close(self) -> None:
        from pytest_mobium_evals.reach.prepared_processes import end_prepared  # noqa: PLC0415  as _receive's

        end_prepared(self._proc, (self._proc.stdin, self._proc.stdout, self._log), self._dir, timeout=10)


def main(argv: list[str]) -> None:
    listen_fd = int(argv[0])
    origin = None
    modules = argv[1:]
    if modules[:1] == ["--origin"]:
        origin, modules = modules[1], modules[2:]
    listener = socket.socket(fileno=listen_fd)
    command = serve(listener, modules, origin)
    if command is None:
        sys.exit(0)
    _run(command)


if __name__ == "__main__":
    main(sys.argv[1:])
