"""`Tools`, the harness's synchronous MCP client, against a tiny stand-in server (no device needed)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from polling import wait_for

from pytest_mobium_evals.reach.toolserver import InfraError, ToolError, Tools, ToolServerSpec

STANDIN = textwrap.dedent('''
    import os, sys, time
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(name=n, input_schema={"type": "object"})
                                            for n in ("app_ok", "app_bad", "app_die", "app_slow")])

    async def call_tool(ctx, params):
        name = params.name
        if name == "app_ok":
            return types.CallToolResult(content=[types.TextContent(text="fine")],
                                        structured_content={"echo": params.arguments or {}})
        if name == "app_bad":
            return types.CallToolResult(content=[types.TextContent(text="no element matches testid=x")],
                                        structured_content={"code": "no_such_element",
                                                            "message": "no element matches testid=x",
                                                            "remedy": "run app_map again", "retryable": False},
                                        is_error=True)
        if name == "app_die":
            os._exit(3)
        await anyio.Event().wait()  # a stalled server: never answers

    async def main():
        server = Server("standin", on_list_tools=list_tools, on_call_tool=call_tool)
        async with stdio_server() as (r, w):
            await server.run(r, w, server.create_initialization_options())

    if "--daemon" in sys.argv:
        # As mobilecli's first command does: a detached daemon in $MOBILECLI_HOME (noted for the test).
        import subprocess
        home = os.environ["MOBILECLI_HOME"]
        noted, script = sys.argv[sys.argv.index("--daemon") + 1:sys.argv.index("--daemon") + 3]
        daemon = subprocess.Popen([sys.executable, script, home], start_new_session=True, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        daemon.stdout.readline()  # its socket is up
        with open(noted, "a") as fh:
            fh.write(f"{home} {daemon.pid}\\n")
    if "--broken" in sys.argv:
        print("cannot start: no device", file=sys.stderr)
        sys.exit(2)
    anyio.run(main)
''')


@pytest.fixture
def standin(tmp_path):
    path = tmp_path / "standin.py"
    path.write_text(STANDIN)
    return path


def test_calls_answers_transcript_and_sugar(standin):
    events = []
    with Tools(ToolServerSpec([sys.executable, str(standin)]), on_event=events.append) as tools:
        assert tools.tool_names == ["app_ok", "app_bad", "app_die", "app_slow"]
        res = tools.call("app_ok", target="x")
        assert (res.text, res.data, res.is_error) == ("fine", {"echo": {"target": "x"}}, False)
        assert tools.ok(n=1).data == {"echo": {"n": 1}}          # tools.ok(...) is call("app_ok", ...)
        with pytest.raises(ToolError) as e:
            tools.call("app_bad")
        assert (e.value.code, e.value.remedy) == ("no_such_element", "run app_map again")
        soft = tools.call("app_bad", check=False)
        assert soft.is_error and soft.data["code"] == "no_such_element"
        assert tools.calls == 4
    kinds = [(ev["kind"], ev["name"]) for ev in tools.transcript]
    assert kinds == [("call", "app_ok"), ("answer", "app_ok")] * 2 + [("call", "app_bad"), ("answer", "app_bad")] * 2
    assert events == tools.transcript and all(isinstance(ev["t"], float) for ev in events)


def test_a_server_that_dies_or_stalls_is_an_infra_error(standin):
    with Tools(ToolServerSpec([sys.executable, str(standin)]), timeout=2) as tools:
        with pytest.raises(InfraError, match="did not answer within 2s"):
            tools.call("app_slow")
    with Tools(ToolServerSpec([sys.executable, str(standin)])) as tools:
        with pytest.raises(InfraError):
            tools.call("app_die")
        with pytest.raises(InfraError):
            tools.call("app_ok")
    assert tools.transcript[-1]["kind"] == "infra_error"


def test_a_server_that_cannot_start_is_an_infra_error_with_its_stderr(standin):
    with pytest.raises(InfraError, match="cannot start: no device"):
        Tools(ToolServerSpec([sys.executable, str(standin), "--broken"]), start_timeout=20)


def test_spec_constructors():
    b = ToolServerSpec.builtin("emulator-5554", "127.0.0.1", 5037)
    assert b.command[-5:] == ["mcp", "--device", "emulator-5554", "--adb", "127.0.0.1:5037"]
    assert ToolServerSpec.mobium("/opt/mobium", "emulator-5556").command == ["/opt/mobium", "mcp", "--device",
                                                                              "emulator-5556"]


def test_mobium_passes_a_driver_and_the_users_variables():
    spec = ToolServerSpec.mobium("/opt/mobium", "emulator-5556", "10.0.0.2", 5099, driver="uiautomator",
                                 env={"MOBIUM_DRIVER_ADB": "/opt/drv", "ANDROID_ADB_SERVER_PORT": "6000"})
    assert spec.command == ["/opt/mobium", "mcp", "--device", "emulator-5556", "--driver", "uiautomator"]
    assert spec.env["MOBIUM_DRIVER_ADB"] == "/opt/drv" and spec.env["ANDROID_ADB_SERVER_ADDRESS"] == "10.0.0.2"
    # The user's own variable wins over the one the harness derives: they named it on purpose.
    assert spec.env["ANDROID_ADB_SERVER_PORT"] == "6000"


@pytest.mark.parametrize("command, name", [
    ("npx -y @mobilenext/mobile-mcp@1.0.4", "mobile-mcp"),
    ("node /repo/.clients/node_modules/@mobilenext/mobile-mcp/lib/index.js", "mobile-mcp"),
    ("/usr/local/bin/mobium mcp --device {serial}", "mobium"),
    ("python3 -m my_tools.server --adb {adb}", "my_tools-server"),
    ("env DEBUG=1 node ./srv.js", "srv"),
    ("uvx mcp-android", "mcp-android"),
])
def test_an_external_server_is_named_for_what_it_runs(command, name):
    assert ToolServerSpec.external(command, "emulator-5554").name == name


def test_an_external_server_gets_the_device_in_placeholders_and_adbs_variables():
    spec = ToolServerSpec.external("srv --serial {serial} --adb {adb} --host {adb_host} --port={adb_port} '{{x}}'",
                                   "emulator-5556", "10.0.0.2", 5099)
    assert spec.command == ["srv", "--serial", "emulator-5556", "--adb", "10.0.0.2:5099", "--host", "10.0.0.2",
                            "--port=5099", "{x}"]
    assert spec.env["ANDROID_SERIAL"] == "emulator-5556" and spec.env["ANDROID_ADB_SERVER_PORT"] == "5099"
    assert spec.env["ADB_SERVER_SOCKET"] == "tcp:10.0.0.2:5099"


@pytest.mark.parametrize("command, problem", [
    ("", "no command"),
    ("srv 'unclosed", "No closing quotation"),
    ("srv --device {device}", "unknown placeholder {device}"),
    ("srv {", "a literal brace"),
])
def test_a_bad_tool_server_command_says_what_is_wrong(command, problem):
    from pytest_mobium_evals.reach.toolserver import tool_server_words

    with pytest.raises(ValueError, match=re.escape(problem)):
        tool_server_words(command)


DAEMON = Path(__file__).with_name("mobilecli_daemon_standin.py")


def _running(pid: int) -> bool:
    """Alive and not a zombie (a stand-in daemon whose parent has gone is reaped by init; until then it reads Z)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_each_launch_of_an_external_server_has_its_own_mobilecli_home_and_its_daemon_is_ended(standin, tmp_path,
                                                                                               monkeypatch):
    shared = tmp_path / "shared-home"  # the user's ~/.mobilecli: no launch uses it
    shared.mkdir()
    monkeypatch.setenv("MOBILECLI_HOME", str(shared))
    noted = tmp_path / "daemons.txt"
    for _ in range(2):
        spec = ToolServerSpec.external(f"{sys.executable} {standin} --daemon {noted} {DAEMON}", "emulator-5554")
        with Tools(spec) as tools:
            assert tools.call("app_ok").text == "fine"
    (home1, pid1), (home2, pid2) = [line.split() for line in noted.read_text().splitlines()]
    assert home1 != home2 and str(shared) not in (home1, home2) and not list(shared.iterdir())
    assert not Path(home1).exists() and not Path(home2).exists()
    assert wait_for(lambda: not _running(int(pid1)) and not _running(int(pid2)), 10, "the daemons to go")


def _daemon(folder: Path, *flags: str) -> subprocess.Popen:
    daemon = subprocess.Popen([sys.executable, str(DAEMON), str(folder), *flags], stdout=subprocess.PIPE)
    assert daemon.stdout.readline() == b"ready\n"
    return daemon


def test_a_daemon_answering_in_the_private_folder_is_asked_to_stop_and_a_mere_pid_lives(tmp_path):
    """The daemon that answers on the folder's socket, as the pid file names it, is shut down by its own protocol
    (its socket and pid file gone, as mobilecli's daemon leaves); a pid file naming a process that answers nowhere
    in the folder (its daemon gone, the pid reused) names someone else's, and that one lives. No /proc is read."""
    from pytest_mobium_evals.reach import private_state

    folder = tmp_path / "home"
    folder.mkdir()
    ours = _daemon(folder)
    other = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"])
    try:
        (folder / "old.pid").write_text(str(other.pid))
        real_open = open

        def no_proc(path, *args, **kwargs):
            assert not str(path).startswith("/proc"), f"read {path}"
            return real_open(path, *args, **kwargs)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("builtins.open", no_proc)
            mp.setattr(Path, "read_bytes", lambda self: pytest.fail(f"read {self}"))
            assert private_state.end_left_running(folder) == [ours.pid]
        assert ours.wait(timeout=10) == 0 and other.poll() is None
        assert sorted(p.name for p in folder.iterdir()) == ["old.pid"]
    finally:
        for process in (other, ours):
            process.kill()
            process.wait()


def test_a_daemon_that_ignores_its_shutdown_is_ended_by_signal(tmp_path, monkeypatch):
    from pytest_mobium_evals.reach import private_state

    monkeypatch.setattr(private_state, "TERM_GRACE_S", 0.5)
    monkeypatch.setattr(private_state, "ASK_TIMEOUT_S", 0.5)
    folder = tmp_path / "home"
    folder.mkdir()
    deaf = _daemon(folder, "--deaf")
    try:
        assert private_state.end_left_running(folder) == [deaf.pid]
        assert deaf.wait(timeout=10) == -signal.SIGTERM
    finally:
        deaf.kill()
        deaf.wait()
