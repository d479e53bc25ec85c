"""The prepared tool server (`mcp --prefork`, toolserver.PreparedServer): each client gets a fresh server forked
from it, on the client's own pipes; it ends with the process that started it; a client that ends its attach
process ends its server; with no prepared server the attach command starts a server itself."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys

import pytest
from polling import wait_for

from pytest_mobium_evals.reach.toolserver import (
    PREPARED_SERVER_ENV,
    InfraError,
    PreparedServer,
    ToolError,
    Tools,
    ToolServerSpec,
)

APP = "dev.mobium.mobiumapp"


@pytest.fixture(scope="module")
def prepared():
    server = PreparedServer()
    yield server
    server.close()


def spec(sim_server, prepared) -> ToolServerSpec:
    return ToolServerSpec.builtin(sim_server.serials[0], "127.0.0.1", sim_server.port, prepared=prepared)


def test_each_client_gets_a_fresh_server(sim_server, prepared):
    command = prepared.attach_command()
    assert command is not None and "attach.py" in command[3], prepared.problem
    with Tools(spec(sim_server, prepared)) as first:
        assert "app_map" in first.tool_names
        first.call("app_launch", app=APP)
        assert "@e1" in first.call("app_map").text
        first.call("app_tap", target="@e1", check=False)  # a ref of this server's map: known here
        seen = {first.call("app_devices").text}
    with Tools(spec(sim_server, prepared)) as second:
        with pytest.raises(ToolError, match="no map for emulator-5554 yet"):
            second.call("app_tap", target="@e1")  # the ref table started empty: not the first server's
        seen.add(second.call("app_devices").text)
    assert len(seen) == 1  # the same device, seen by two servers


def _children(pid: int) -> set[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return {int(p) for p in f.read().split()}
    except FileNotFoundError:
        return set()


def _wait_gone(pid: int, timeout: float = 10.0) -> bool:
    """Whether the process ends within `timeout`: its pidfd turns readable when it exits, reaped or not."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test_prefork", "version": "0"}}}


def test_ending_the_attach_process_ends_its_server(sim_server, prepared):
    command = [*prepared.attach_command(), "mcp", "--device", sim_server.serials[0], "--adb",
               f"127.0.0.1:{sim_server.port}"]
    zygote = prepared._proc.pid
    before = _children(zygote)
    attach = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    # The server's answer to initialize is the sign its fork is up.
    attach.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    attach.stdin.flush()
    assert select.select([attach.stdout], [], [], 20)[0], "the forked server never answered initialize"
    assert b'"result"' in attach.stdout.readline()
    (fork,) = _children(zygote) - before
    attach.send_signal(signal.SIGKILL)
    attach.wait()
    assert _wait_gone(fork), "the forked server outlived its attach process"
    attach.stdin.close()
    attach.stdout.close()


def test_a_server_whose_client_detaches_puts_back_what_its_session_changed(sim_server, prepared):
    """A client that ends the attach process, its stdin still open (as an agent's CLI that kills its servers on
    the way out does), ends the session as `mobium mcp` ends one when its stdin closes: the font scale set for the
    session is put back before the attach process goes."""
    settings = sim_server.device().settings("system")
    before = settings.get("font_scale", "")
    command = [*prepared.attach_command(), "mcp", "--device", sim_server.serials[0], "--adb",
               f"127.0.0.1:{sim_server.port}"]
    zygote = prepared._proc.pid
    known = _children(zygote)
    attach = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "app_accessibility", "arguments": {"setting": "text_scale", "value": "1.3"}}}
    for message in (INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}, call):
        attach.stdin.write((json.dumps(message) + "\n").encode())
    attach.stdin.flush()
    answers = []
    while len(answers) < 2:
        assert select.select([attach.stdout], [], [], 30)[0], f"the forked server stopped answering: {answers}"
        answers.append(json.loads(attach.stdout.readline()))
    assert not answers[1]["result"].get("isError") and settings.get("font_scale") == "1.3", answers[1]
    (fork,) = _children(zygote) - known
    attach.send_signal(signal.SIGTERM)
    assert attach.wait(timeout=30) == 143
    # The attach process goes once its server has ended the session, so a client that waits for it (as a trial's
    # driver does before the grader reads the device) finds the font scale already put back.
    assert settings.get("font_scale", "") == before
    assert _wait_gone(fork, timeout=30), "the forked server outlived its attach process"
    attach.stdin.close()
    attach.stdout.close()


def test_the_harness_asks_for_its_fork_itself_and_finds_the_session_put_back_once_closed(sim_server, prepared):
    """`Tools` makes the attach request in its own process (reach/forked_server.py): no attach process between
    it and its fork, the fork gone once the client has closed, and what the session changed put back by then, as
    when an attach process is waited for."""
    settings = sim_server.device().settings("system")
    before = settings.get("font_scale", "")
    zygote, mine = prepared._proc.pid, _children(os.getpid())
    known = _children(zygote)
    tools = Tools(spec(sim_server, prepared))
    try:
        assert _children(os.getpid()) == mine, "an attach process was started"
        (fork,) = _children(zygote) - known
        assert not tools.call("app_accessibility", setting="text_scale", value="1.3").is_error
        assert settings.get("font_scale") == "1.3"
    finally:
        tools.close()
    assert settings.get("font_scale", "") == before
    assert _wait_gone(fork, timeout=5), "the fork outlived its client's close"


def test_a_fork_that_dies_mid_session_is_an_infra_error(sim_server, prepared):
    known = _children(prepared._proc.pid)
    with Tools(spec(sim_server, prepared), timeout=30) as tools:
        tools.call("app_devices")
        (fork,) = _children(prepared._proc.pid) - known
        os.kill(fork, signal.SIGKILL)
        with pytest.raises(InfraError):
            tools.call("app_devices")
    assert tools.transcript[-1]["kind"] == "infra_error"


def test_the_prepared_server_ends_with_its_starter_and_the_attach_command_then_starts_its_own(sim_server):
    server = PreparedServer()
    command = server.attach_command()
    pid = server._proc.pid
    server._proc.stdin.close()  # what the starter's exit does
    assert _wait_gone(pid)
    server._proc.wait()
    assert not os.path.exists(command[-1])  # its socket is removed
    with Tools(ToolServerSpec([*command, "mcp", "--device", sim_server.serials[0], "--adb",
                               f"127.0.0.1:{sim_server.port}"])) as tools:
        assert "emulator-5554" in tools.call("app_devices").text
        assert "is not there" in tools._stderr_tail()
    server.close()


def test_a_prepared_server_that_died_still_gives_a_working_server(sim_server):
    server = PreparedServer()
    server._proc.kill()
    server._proc.wait()
    built = ToolServerSpec.builtin(sim_server.serials[0], "127.0.0.1", sim_server.port, prepared=server)
    with Tools(built) as tools:
        assert "app_map" in tools.tool_names
    server.close()


def test_an_offered_prepared_server_serves_the_processes_below_until_it_closes(sim_server, tmp_path, monkeypatch):
    """A session's server is offered to the processes it starts: t25's `mobium-evals test` runs get a fork of it,
    not an interpreter importing the server from nothing."""
    monkeypatch.delenv(PREPARED_SERVER_ENV, raising=False)
    serial, adb = sim_server.serials[0], f"127.0.0.1:{sim_server.port}"
    server = PreparedServer(offer=True)
    try:
        command = server.attach_command()
        assert ToolServerSpec.builtin(serial, "127.0.0.1", sim_server.port).command[:len(command)] == command
        test_file = tmp_path / "home.test.json"
        test_file.write_text(json.dumps({"app": APP, "tests": [
            {"name": "the menu shows", "steps": [{"wait_for": "label=Login Demo"}]}]}))
        run = subprocess.Popen([sys.executable, "-m", "pytest_mobium_evals.commands.cli", "test", str(test_file),
                                "--device", serial, "--adb", adb], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        try:
            wait_for(lambda: _children(server._proc.pid) or run.poll() is not None, timeout=60,
                     what="the run's tool server, forked from the prepared one")
            assert _children(server._proc.pid), "the run started a tool server of its own"
        finally:
            out, err = run.communicate(timeout=120)
        assert run.returncode == 0, out + err
    finally:
        server.close()
    assert PREPARED_SERVER_ENV not in os.environ
    assert "attach.py" not in " ".join(ToolServerSpec.builtin(serial, "127.0.0.1", sim_server.port).command)


def test_a_test_run_asked_of_the_prepared_server_is_a_fork_whose_tool_servers_are_forks_too(sim_server, tmp_path,
                                                                                            prepared):
    """t25's runs go through the offered attach command: the prepared server forks the `mobium-evals test` run
    itself (the MCP SDK its client needs is imported there already), and that run's tool server is another fork
    of it, so the run imports nothing heavy; it still ends with the runner's own status and result."""
    serial, adb = sim_server.serials[0], f"127.0.0.1:{sim_server.port}"
    test_file, result = tmp_path / "home.test.json", tmp_path / "result.json"
    test_file.write_text(json.dumps({"app": APP, "tests": [
        {"name": "the menu shows", "steps": [{"wait_for": "label=Login Demo"}]}]}))
    command = prepared.attach_command()
    assert command is not None, prepared.problem
    run = subprocess.Popen([*command, "test", str(test_file), "--device", serial, "--adb", adb, "--json", str(result)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    forks: set[int] = set()
    try:
        def both_forked() -> bool:
            forks.update(_children(prepared._proc.pid))
            return len(forks) >= 2 or run.poll() is not None
        wait_for(both_forked, timeout=60, what="the run and its tool server, both forked from the prepared server")
    finally:
        out, err = run.communicate(timeout=120)
    assert run.returncode == 0, out + err
    assert len(forks) >= 2, f"forks of the prepared server seen: {forks}"
    assert json.loads(result.read_text())["exit_code"] == 0

    refused = subprocess.run([*command, "report", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "not mcp" in refused.stderr


def test_the_tool_list_is_made_plain_json_only_when_asked(sim_server, prepared):
    """A control's script only calls tools: the 60 tools' JSON, which t25's runner and the surface command read, is
    made on the first ask (it cost every trial 2 ms), and then is the tools/list answer, in its order."""
    with Tools(spec(sim_server, prepared)) as tools:
        tools.call("app_map")
        assert vars(tools)["_tool_defs"] is None
        defs = tools.tool_defs
        assert [d["name"] for d in defs] == tools.tool_names and "app_map" in tools.tool_names
        assert all("inputSchema" in d and "annotations" in d for d in defs)
        assert tools.tool_defs is defs


@pytest.mark.parametrize("attach_ended", [True, False])
def test_a_fork_checks_its_attach_process_before_each_call(tmp_path, attach_ended):
    """`end_if_detached`, which the server runs before each tool call: once the attach process's end of the socket is
    closed the fork ends at once, with the session's endings, whether or not its watcher thread has run yet; while the
    attach process lives it returns. Run in a fork of this process, with a socket pair as the attach socket."""
    from pytest_mobium_evals.mobium_server import prefork

    ours, attach_end = socket.socketpair()
    if attach_ended:
        attach_end.close()  # before the fork, so that the fork's check finds the end already there
    ended = tmp_path / "session-ended"
    pid = os.fork()
    if pid == 0:  # the fork: no watcher thread, so only the check can see the end
        status = 3
        try:
            attach_end.close()
            prefork._attach_socket[:] = [ours]
            prefork.on_detach(lambda: ended.write_text("put back"))
            prefork.end_if_detached()
            status = 4  # it returned: the attach process is there
        finally:
            os._exit(status)
    ours.close()
    _, status = os.waitpid(pid, 0)
    if attach_ended:
        assert (os.waitstatus_to_exitcode(status), ended.read_text()) == (0, "put back")
    else:
        attach_end.close()
        assert (os.waitstatus_to_exitcode(status), ended.exists()) == (4, False)
