"""`Tools`, the harness's synchronous MCP client, against a tiny stand-in server (no device needed)."""

from __future__ import annotations

import re
import sys
import textwrap

import pytest

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
        # As mobilecli's first command does: a detached daemon, its pid file in $MOBILECLI_HOME (noted for the test).
        import json, subprocess
        home = os.environ["MOBILECLI_HOME"]
        daemon = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"], start_new_session=True,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(home, "daemon.pid"), "w") as fh:
            json.dump({"pid": daemon.pid, "version": "1.0.9"}, fh)
        with open(sys.argv[sys.argv.index("--daemon") + 1], "a") as fh:
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


def _running(pid: int) -> bool:
    from pytest_mobium_evals.reach.private_state import _running as running

    return running(pid)


def test_each_launch_of_an_external_server_has_its_own_mobilecli_home_and_its_daemon_is_ended(standin, tmp_path,
                                                                                               monkeypatch):
    shared = tmp_path / "shared-home"  # the user's ~/.mobilecli: no launch uses it
    shared.mkdir()
    monkeypatch.setenv("MOBILECLI_HOME", str(shared))
    noted = tmp_path / "daemons.txt"
    for _ in range(2):
        spec = ToolServerSpec.external(f"{sys.executable} {standin} --daemon {noted}", "emulator-5554")
        with Tools(spec) as tools:
            assert tools.call("app_ok").text == "fine"
    (home1, pid1), (home2, pid2) = [line.split() for line in noted.read_text().splitlines()]
    assert home1 != home2 and str(shared) not in (home1, home2) and not list(shared.iterdir())
    from pathlib import Path

    assert not Path(home1).exists() and not Path(home2).exists()
    assert not _running(int(pid1)) and not _running(int(pid2))


def test_only_a_process_started_with_the_private_folder_is_ended(tmp_path):
    """A pid file may name a process that is not the server's (its daemon gone, the pid reused): that one lives."""
    import json
    import os
    import subprocess

    from pytest_mobium_evals.reach.private_state import end_left_running

    folder = tmp_path / "home"
    folder.mkdir()
    lasting = [sys.executable, "-c", "import signal; signal.pause()"]  # runs until a signal ends it
    ours = subprocess.Popen(lasting, env={**os.environ, "MOBILECLI_HOME": str(folder)})
    other = subprocess.Popen(lasting)
    try:
        (folder / "daemon.pid").write_text(json.dumps({"pid": ours.pid, "version": "1.0.9"}))
        (folder / "old.pid").write_text(str(other.pid))
        assert end_left_running(folder) == [ours.pid]
        assert ours.wait(timeout=10) is not None and other.poll() is None
    finally:
        other.kill()
        other.wait()
        ours.kill()
        ours.wait()
