"""The harness side of MCP: starting a trial's tool server and talking to it synchronously.

Every driver (agent, reference, null, wrong) reaches the device through one tool server started per trial, either
the real `mobium mcp --device SERIAL` or the built-in `mobium-evals mcp --device SERIAL --adb HOST:PORT`.
`Tools` is a synchronous client over the SDK's async stdio client: the client lives in a dedicated event-loop thread
and each call is handed to it, so reference solutions and graders read as plain sequential code.

    with Tools(ToolServerSpec.builtin("emulator-5554", "127.0.0.1", port)) as tools:
        tools.call("app_launch", app="dev.mobium.mobiumapp")
        tools.tap(target="label=Login Demo")          # sugar for call("app_tap", target=...)
        res = tools.call("app_text", target="testid=welcomeText", check=False)

A tool's failure (isError) raises `ToolError` unless check=False; a dead or silent server raises `InfraError`.
Every call and answer goes into `tools.transcript` (and to `on_event`) with wall-clock timestamps.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import select
import shlex
import string
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Callable, Optional

from pytest_mobium_evals.core.errors import InfraError, MobiumEvalsError
from pytest_mobium_evals.core.transcript import EventKind

from .prepared_processes import end_prepared
from .private_state import private_state


class ToolError(MobiumEvalsError):
    """A tool answered with isError: Mobium's {code, message, remedy, retryable, details}."""

    def __init__(self, name: str, result: "ToolResult"):
        data = result.data or {}
        self.name = name
        self.result = result
        self.code: str = data.get("code", "error")
        self.message: str = data.get("message", result.text)
        self.remedy: str = data.get("remedy", "")
        self.details: dict = data.get("details", {}) or {}
        self.retryable: bool = bool(data.get("retryable", False))
        super().__init__(f"{name}: [{self.code}] {self.message}")


@dataclass
class ToolResult:
    text: str
    data: Optional[dict]
    is_error: bool = False
    image: Optional[bytes] = None


@dataclass
class ToolServerSpec:
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    # The server's name as an agent's MCP client registers it: Claude's tool names are mcp__<name>__<tool>.
    name: str = "mobium"
    # Variables naming machine-wide state the server would share with every other run (mobilecli's daemon home):
    # each trial gives them a fresh folder and ends what was left running there (reach/private_state.py).
    private_state: tuple[str, ...] = ()

    @classmethod
    def builtin(cls, serial: str, adb_host: str = "127.0.0.1", adb_port: int = 5037,
                prepared: Optional["PreparedServer"] = None) -> "ToolServerSpec":
        """The Mobium-compatible server this package ships, reaching the device over the given ADB server; forked
        from `prepared` when there is one, or from the one a process above this one offers (a fresh server all the
        same), else started from scratch."""
        start = prepared.attach_command() if prepared is not None else offered_attach_command()
        if start is None:
            start = [sys.executable, "-m", "pytest_mobium_evals.commands.cli"]
        return cls([*start, "mcp", "--device", serial, "--adb", f"{adb_host}:{adb_port}"],
                   adb_server_env(adb_host, adb_port))

    @classmethod
    def mobium(cls, binary: str, serial: str, adb_host: str = "127.0.0.1", adb_port: int = 5037,
               driver: Optional[str] = None, env: Optional[dict] = None) -> "ToolServerSpec":
        """The real Mobium: `mobium mcp --device SERIAL [--driver NAME]`, told which ADB server holds SERIAL the way
        adb itself is told (it has no option for it; without these it would look on the local default server),
        with the user's own variables (`--mobium-env`) on top."""
        command = [binary, "mcp", "--device", serial] + (["--driver", driver] if driver else [])
        return cls(command, {**adb_server_env(adb_host, adb_port), **dict(env or {})})

    @classmethod
    def external(cls, template: str, serial: str, adb_host: str = "127.0.0.1", adb_port: int = 5037) \
            -> "ToolServerSpec":
        """Any stdio MCP server in place of Mobium (`--tool-server`): its command line with the device filled in
        where it asks for it ({serial}, {adb_host}, {adb_port}, {adb}), and the device in adb's standard variables
        besides (ANDROID_SERIAL, the ADB server's), as a user's shell would hand them to it. mobilecli's daemon
        home (mobile-mcp's) is the trial's own: a daemon of an earlier run keeps that run's ADB server."""
        values = {"serial": serial, "adb_host": adb_host, "adb_port": str(adb_port), "adb": f"{adb_host}:{adb_port}"}
        words = tool_server_words(template)
        return cls([word.format_map(values) for word in words],
                   {**adb_server_env(adb_host, adb_port), "ANDROID_SERIAL": serial}, name=server_name(words),
                   private_state=EXTERNAL_PRIVATE_STATE)


#: The machine-wide state of a `--tool-server` made the trial's own (reach/private_state.py).
EXTERNAL_PRIVATE_STATE = ("MOBILECLI_HOME",)
#: What `--tool-server`'s command may ask to be filled in.
TOOL_SERVER_PLACEHOLDERS = ("serial", "adb_host", "adb_port", "adb")
# Programs that run another one named by an argument: a server's name is that argument's, not theirs.
_LAUNCHERS = {"node", "nodejs", "npx", "npm", "bunx", "bun", "deno", "uvx", "uv", "pipx", "python", "python3",
              "env", "sh", "bash", "exec", "run", "go", "java", "docker", "podman"}
_ENTRY_FILES = {"index", "main", "cli", "server", "__main__", "run"}
_CODE_DIRS = {"lib", "dist", "bin", "build", "out", "src"}


def tool_server_words(template: str) -> list[str]:
    """`--tool-server`'s text as a command's words (shell quoting), each placeholder checked. Raises ValueError
    with what is wrong."""
    try:
        words = shlex.split(template)
    except ValueError as exc:
        raise ValueError(f"cannot split it into words: {exc}") from None
    if not words:
        raise ValueError("no command")
    for word in words:
        try:
            fields = [name for _, name, _, _ in string.Formatter().parse(word) if name is not None]
        except ValueError as exc:
            raise ValueError(f"{word!r}: {exc} (a literal brace is written {{{{ or }}}})") from None
        for name in fields:
            if name not in TOOL_SERVER_PLACEHOLDERS:
                raise ValueError(f"{word!r}: unknown placeholder {{{name}}} (known: "
                                 f"{', '.join('{' + p + '}' for p in TOOL_SERVER_PLACEHOLDERS)})")
    return words


def server_name(words: list[str]) -> str:
    """A short name for the server a command starts: its program's, or, behind a launcher (node, npx, python -m,
    uvx), the package or script it launches, without its scope, version and file extension
    (`npx -y @mobilenext/mobile-mcp@1.0.4` and `node …/@mobilenext/mobile-mcp/lib/index.js` are both mobile-mcp)."""
    rest = list(words)
    while len(rest) > 1 and PurePosixPath(rest[0]).name in _LAUNCHERS:
        rest.pop(0)
        # The launcher's own options (and env's NAME=VALUE); `-m MODULE` names what it runs.
        while rest and (rest[0].startswith("-") or "=" in rest[0]):
            if rest[0] == "-m" and len(rest) > 1:
                rest = [rest[1]]
                break
            rest.pop(0)
    target = rest[0] if rest else words[0]
    if re.match(r"^@?[\w.-]+(/[\w.-]+)?@[\w.^~-]+$", target):  # a package pinned to a version: pkg@1.2.3
        target = target.rsplit("@", 1)[0]
    path = PurePosixPath(target)
    parts = list(path.parts)
    stem = path.stem if path.suffix in (".js", ".mjs", ".cjs", ".ts", ".py", ".sh", ".exe") else path.name
    if stem in _ENTRY_FILES:
        # An entry script: named for its package, above the code folders (…/mobile-mcp/lib/index.js).
        for part in reversed(parts[:-1]):
            if part not in _CODE_DIRS:
                stem = part
                break
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", stem).strip("-")
    return name or "tools"


def adb_server_env(host: str, port: int) -> dict[str, str]:
    """The standard variables naming an ADB server: adb's own (ANDROID_ADB_SERVER_ADDRESS, ADB_SERVER_SOCKET), the
    one adbutils and older tools read (ANDROID_ADB_SERVER_HOST), and the port all of them read."""
    return {"ANDROID_ADB_SERVER_ADDRESS": host, "ANDROID_ADB_SERVER_HOST": host,
            "ANDROID_ADB_SERVER_PORT": str(port), "ADB_SERVER_SOCKET": f"tcp:{host}:{port}"}


#: The attach command of a prepared server (JSON), offered to the processes a session starts: t25's grader runs each
#: answer in a `mobium-evals test` process of its own, whose fresh tool server is then forked in milliseconds rather
#: than imported from nothing (about 0.8 CPU seconds a run).
PREPARED_SERVER_ENV = "MOBIUM_EVALS_PREPARED_SERVER"


def offered_attach_command() -> Optional[list[str]]:
    """The attach command a process above this one offers (`PreparedServer(offer=True)`), or None. attach.py
    starts a server of its own if the prepared one has gone meanwhile."""
    try:
        command = json.loads(os.environ.get(PREPARED_SERVER_ENV) or "null")
    except ValueError:
        return None
    if isinstance(command, list) and command and all(isinstance(part, str) for part in command):
        return command
    return None


def offered_from_above() -> bool:
    """Whether a process above this one offers a prepared server this process can fork its trials' servers from:
    one of this interpreter (the same package), whose socket is there. A pytest run started under a session (the
    plugin's own tests start hundreds) then prepares none of its own, about 0.65 CPU seconds a run; each trial's
    server is a fresh fork all the same, started from the same code and told its device and ADB server by its own
    command line (the server reads nothing else of its environment)."""
    command = offered_attach_command()
    return bool(command and len(command) >= 2 and command[0] == sys.executable and os.path.exists(command[-1]))


class PreparedServer:
    """The built-in server made ready before any trial asks for it: one process per session that has imported the
    server once and forks a fresh one (its own ref tables and dialog rules) for each trial's client, which spawns
    a small attach command in place of the server (`mobium-evals mcp --prefork`). The process ends with its stdin,
    that is with this process, even if nobody calls close(). With `offer`, once it is up the processes this one
    starts are told its attach command (`PREPARED_SERVER_ENV`), until it closes."""

    READY_TIMEOUT = 30.0

    def __init__(self, offer: bool = False):
        self._offer = offer
        self._dir = tempfile.mkdtemp(prefix="mobium-mcp-")
        self._log = open(os.path.join(self._dir, "prefork.log"), "w+", encoding="utf-8", errors="replace")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "pytest_mobium_evals.commands.cli", "mcp", "--prefork", os.path.join(self._dir,
                                                                                                        "s")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, start_new_session=True)
        self._attach: Optional[list[str]] = None
        self.problem: Optional[str] = None

    def attach_command(self) -> Optional[list[str]]:
        """The command that attaches to a fresh fork; None when the prepared server did not come up (then the
        caller starts a server of its own; `problem` says why)."""
        if self._attach is None and self.problem is None:
            self._attach = self._read_ready()
            if self._attach is not None and self._offer:
                os.environ[PREPARED_SERVER_ENV] = json.dumps(self._attach)
        return self._attach

    def _read_ready(self) -> Optional[list[str]]:
        ready, _, _ = select.select([self._proc.stdout], [], [], self.READY_TIMEOUT)
        line = self._proc.stdout.readline() if ready else b""
        try:
            command = json.loads(line)["attach"]
        except (ValueError, KeyError, TypeError):
            self._log.flush()
            self._log.seek(0)
            self.problem = (f"the prepared tool server did not come up: {line[:200]!r} "
                            f"{self._log.read()[-400:].strip()}").strip()
            return None
        return [str(part) for part in command]

    def close(self) -> None:
        if self._offer and self._attach is not None and os.environ.get(PREPARED_SERVER_ENV) == json.dumps(self._attach):
            del os.environ[PREPARED_SERVER_ENV]
        end_prepared(self._proc, (self._proc.stdin, self._proc.stdout, self._log), self._dir, timeout=5)


class Tools:
    def __init__(self, spec: ToolServerSpec, *, timeout: float = 240.0, start_timeout: float = 60.0,
                 on_event: Optional[Callable[[dict], None]] = None):
        # A spec still naming private state gets it for this launch (a trial's spec arrives with it made).
        self._state = ExitStack()
        self.spec = self._state.enter_context(private_state(spec))
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.on_event = on_event
        self.transcript: list[dict] = []
        self.calls = 0
        self.tool_names: list[str] = []
        self._listed: tuple = ()  # the tools/list answer's tools, as the SDK read them
        self._tool_defs: Optional[list[dict]] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._thread: Optional[threading.Thread] = None
        self._jobs: Optional[asyncio.Queue] = None
        self._ready: Future = Future()
        self._finished = threading.Event()
        self._fatal: Optional[BaseException] = None
        self._errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        self._closed = False
        self._stalled = False
        self._main_task: Optional[asyncio.Task] = None
        self.start()

    @property
    def tool_defs(self) -> list[dict]:
        """The server's tools/list answer as plain JSON (each tool's name, description, input schema, annotations),
        made when first asked: a control's script never asks, and dumping 60 tools cost every trial 2 ms."""
        if self._tool_defs is None:
            self._tool_defs = [t.model_dump(by_alias=True, exclude_none=True) for t in self._listed]
        return self._tool_defs

    # --- lifecycle ----------------------------------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run_loop, name="mcp-client", daemon=True)
        self._thread.start()
        try:
            self._ready.result(timeout=self.start_timeout)
        except FutureTimeout:
            self.close()
            raise InfraError(f"the tool server did not finish its handshake within {self.start_timeout:g}s: "
                             f"{' '.join(self.spec.command)}{self._stderr_tail()}") from None
        except InfraError:
            self.close()
            raise

    def _run_loop(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._main_task = loop.create_task(self._session_main())
            loop.run_until_complete(self._main_task)
        except BaseException as exc:  # the session's own failure is reported through _fatal / _ready
            self._fatal = self._fatal or exc
        finally:
            self._finished.set()
            if not self._ready.done():
                self._ready.set_exception(InfraError(f"the tool server could not be started: {self._fatal}"
                                                     f"{self._stderr_tail()}"))
            loop.close()

    async def _session_main(self) -> None:
        from mcp.client.session import ClientSession
        self._jobs = asyncio.Queue()
        try:
            async with self._transport() as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    # Listed at once, as an agent's client lists them: a proxy in front of the server (--surface)
                    # records what was seen, and checks its variant against the list, from this answer.
                    listed = await session.list_tools()
                    self._listed = tuple(listed.tools)
                    self.tool_names = [t.name for t in listed.tools]
                    self._ready.set_result(True)
                    while True:
                        job = await self._jobs.get()
                        if job is None:
                            break
                        coro_factory, fut = job
                        try:
                            res = await coro_factory(session)
                        except BaseException as exc:  # delivered to the waiting caller
                            if not fut.done():
                                fut.set_exception(exc)
                            if isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt)):
                                raise
                            continue
                        if not fut.done():
                            fut.set_result(res)
        except BaseException as exc:
            self._fatal = exc
            if not self._ready.done():
                self._ready.set_exception(InfraError(f"the tool server could not be started: "
                                                     f"{_describe(exc)}{self._stderr_tail()}"))
            # Fail whatever is still queued: nobody will answer it.
            while self._jobs is not None and not self._jobs.empty():
                job = self._jobs.get_nowait()
                if job is not None and not job[1].done():
                    job[1].set_exception(InfraError(f"the tool server died: {_describe(exc)}"))

    @asynccontextmanager
    async def _transport(self):
        """The server's stdio: a fork of a prepared server asked for in this process when the command attaches
        to one (reach/forked_server.py), else the command started as a process by the SDK's stdio client."""
        from .forked_server import connect, fork_request, fork_streams  # noqa: PLC0415  loads mcp: a session's own

        request = fork_request(self.spec.command)
        link = None
        if request is not None:
            try:
                link = await connect(*request, self._errlog)
            except OSError:
                link = None  # the prepared server went: its attach command starts a server of its own
        if link is not None:
            async with fork_streams(*link) as streams:
                yield streams
            return
        from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: PLC0415  as above
        params = StdioServerParameters(command=self.spec.command[0], args=self.spec.command[1:],
                                       env={**os.environ, **self.spec.env})
        async with stdio_client(params, errlog=self._errlog) as streams:
            yield streams

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._loop is not None and not self._finished.is_set() and self._jobs is not None:
            try:
                if self._stalled:
                    # A call is still outstanding on the server: stop waiting for it (this ends the process).
                    self._loop.call_soon_threadsafe(self._main_task.cancel)
                else:
                    self._loop.call_soon_threadsafe(self._jobs.put_nowait, None)
            except RuntimeError:
                pass
            if not self._finished.wait(timeout=5) and not self._stalled:
                try:
                    self._loop.call_soon_threadsafe(self._main_task.cancel)
                except RuntimeError:
                    pass
                self._finished.wait(timeout=5)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._errlog.close()
        self._state.close()

    def __enter__(self) -> "Tools":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- calls ------------------------------------------------------------------------------------------------------
    def _submit(self, factory, timeout: float):
        if self._closed:
            raise InfraError("the tool server was already closed")
        if self._finished.is_set() or self._loop is None or self._jobs is None:
            raise InfraError(f"the tool server is not running: {_describe(self._fatal)}{self._stderr_tail()}")
        fut: Future = Future()
        self._loop.call_soon_threadsafe(self._jobs.put_nowait, (factory, fut))
        deadline = time.monotonic() + timeout
        while True:
            try:
                return fut.result(timeout=0.2)
            except FutureTimeout:
                if self._finished.is_set() and not fut.done():
                    raise InfraError(f"the tool server died: {_describe(self._fatal)}{self._stderr_tail()}") from None
                if time.monotonic() >= deadline:
                    self._stalled = True
                    raise InfraError(f"the tool server did not answer within {timeout:g}s") from None
            except InfraError:
                raise
            except Exception as exc:
                raise InfraError(f"the tool server failed: {_describe(exc)}{self._stderr_tail()}") from exc

    def call(self, name: str, /, *, check: bool = True, timeout: Optional[float] = None,
             **arguments: Any) -> ToolResult:
        # name is positional-only: several Mobium tools take an argument called name (app_upload, app_download)
        self.calls += 1
        started = time.time()
        self._record({"t": started, "kind": EventKind.CALL, "name": name, "arguments": arguments})

        async def go(session):
            return await session.call_tool(name, arguments)

        try:
            raw = self._submit(go, timeout or self.timeout)
        except InfraError as exc:
            self._record({"t": time.time(), "kind": EventKind.INFRA_ERROR, "name": name, "error": str(exc)})
            raise
        res = _to_result(raw)
        entry: dict[str, Any] = {"t": time.time(), "kind": EventKind.ANSWER, "name": name, "text": res.text,
                                 "data": res.data, "is_error": res.is_error, "image": res.image is not None,
                                 "elapsed_ms": int((time.time() - started) * 1000)}
        self._record(entry)
        if res.is_error and check:
            raise ToolError(name, res)
        return res

    def _record(self, entry: dict) -> None:
        self.transcript.append(entry)
        if self.on_event is not None:
            self.on_event(entry)

    def __getattr__(self, attr: str):
        # tools.tap(target=...) is call("app_tap", target=...): sugar for every app_* tool.
        if attr.startswith("_"):
            raise AttributeError(attr)
        name = "app_" + attr

        def caller(check: bool = True, **arguments):
            return self.call(name, check=check, **arguments)

        caller.__name__ = name
        return caller

    def _stderr_tail(self) -> str:
        try:
            self._errlog.flush()
            self._errlog.seek(0)
            tail = self._errlog.read()[-800:].strip()
        except (ValueError, OSError):
            return ""
        return f"\n--- server stderr ---\n{tail}" if tail else ""


def _describe(exc: Optional[BaseException]) -> str:
    if exc is None:
        return "no reason given"
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _to_result(raw) -> ToolResult:
    texts, image = [], None
    for block in getattr(raw, "content", []) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind == "image" and image is None:
            image = base64.b64decode(block.data)
    data = getattr(raw, "structured_content", None)
    return ToolResult("\n".join(texts), data, bool(getattr(raw, "is_error", False)), image)
