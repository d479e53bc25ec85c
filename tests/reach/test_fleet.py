"""Devices on several ADB servers (`--device HOST:PORT/SERIAL,…`), each server a virtual device in a process of its
own; and the real Mobium's `mobium mcp` told which ADB server holds its device (a stand-in binary records what it
is given and reaches the device only through that)."""

from __future__ import annotations

import json
import shutil
import stat
import sys
from pathlib import Path

import pytest

from pytest_mobium_evals.reach.devices import (
    DeviceUnavailable,
    Target,
    check_devices,
    lease,
    parse_device,
    parse_host_port,
)
from pytest_mobium_evals.sim.processes import server_processes

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]


def test_devices_behind_their_own_servers_mixed_with_plain_serials():
    spec = parse_device("10.0.0.7:5038/emulator-5554, emulator-5556 ,hostb:5037/emulator-5554,:6000/10.1.1.1:5555")
    assert spec.targets == (Target("emulator-5554", "10.0.0.7", 5038), Target("emulator-5556"),
                            Target("emulator-5554", "hostb", 5037), Target("10.1.1.1:5555", "127.0.0.1", 6000))
    assert spec.targets[1].on(("otherhost", 5037)) == Target("emulator-5556", "otherhost", 5037)
    assert spec.describe().startswith("10.0.0.7:5038/emulator-5554,emulator-5556,")
    assert lease(spec.targets, 2, 4) == Target("emulator-5554", "hostb", 5037)


@pytest.mark.parametrize("text,message", [
    ("h:5037/emulator-5554,h:5037/emulator-5554", "listed twice"),
    ("emulator-5554/", "not a device serial"),
    ("h/emulator-5554", "--device h/emulator-5554: expected HOST:PORT"),
    ("h:99999/e", "port 99999 is out of range"),
    ("a b:5037/e", "'a b' is not a host name"),
])
def test_bad_device_entries_are_one_line(text, message):
    with pytest.raises(DeviceUnavailable, match=message):
        parse_device(text)


def test_one_host_port_reader():
    assert parse_host_port("otherhost", "--adb otherhost") == ("otherhost", 5037)
    assert parse_host_port("[::1]:5038", "x") == ("::1", 5038)
    with pytest.raises(DeviceUnavailable, match="^--adb x:y: expected HOST:PORT"):
        parse_host_port("x:y", "--adb x:y")


@pytest.fixture(scope="module")
def servers():
    with server_processes(3) as running:
        yield running


def test_every_device_that_is_not_there_is_a_line_of_its_own(servers, monkeypatch):
    monkeypatch.setenv("ADBUTILS_ADB_PATH", "/bin/false")  # never start a real adb server
    a, b, _ = servers
    check_devices(parse_device(f"{a.adb}/emulator-5554,{b.adb}/emulator-5554"), ("127.0.0.1", 9))
    spec = parse_device(f"{a.adb}/emulator-5554,{a.adb}/emulator-5560,emulator-5554,{b.adb}/emulator-5558")
    with pytest.raises(DeviceUnavailable) as raised:
        check_devices(spec, ("127.0.0.1", 9))
    lines = str(raised.value).splitlines()
    assert len(lines) == 3
    assert lines[0] == f"device emulator-5560 is not attached to the ADB server at {a.adb} (attached: emulator-5554)"
    assert lines[1].startswith("device emulator-5554: cannot reach the ADB server at 127.0.0.1:9")
    assert lines[2].startswith(f"device emulator-5558 is not attached to the ADB server at {b.adb}")


@pytest.fixture
def tasks_dir(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(ROOT / "tasks" / "mobiumapp_tasks", pytester.path / "mobiumapp_tasks")
    return pytester


def devices_of(run: Path) -> set[str]:
    return {json.loads(p.read_text())["device"]["adb"] for p in run.glob("trials/*/verdict.json")}


def test_workers_lease_devices_on_separate_servers(tasks_dir, servers):
    a, b, c = servers
    fleet = f"{a.adb}/emulator-5554,{b.adb}/emulator-5554,{c.adb}/emulator-5554"
    result = tasks_dir.runpytest_subprocess("-k", "t04", "--driver=null", "--repeats=3", "--device", fleet, "-n", "3",
                                            "--run-dir", "fleet", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    record = json.loads((tasks_dir.path / "fleet" / "record.json").read_text())
    assert sorted(d["adb"] for d in record["devices"]) == sorted([a.adb, b.adb, c.adb])

    missing = tasks_dir.runpytest_subprocess("-k", "t04", "--driver=null", "--device",
                                             f"{a.adb}/emulator-5554,{b.adb}/emulator-5556,{c.adb}/emulator-5590",
                                             "-p", "no:cacheprovider")
    assert missing.ret == 4
    missing.stderr.fnmatch_lines([f"ERROR: device emulator-5556 is not attached to the ADB server at {b.adb}*",
                                  f"device emulator-5590 is not attached to the ADB server at {c.adb}*"])
    assert "Traceback" not in missing.stderr.str()


STANDIN = """#!/bin/sh
# A stand-in for `mobium`: notes what it was started with, then hands over to the built-in server, which it points
# at the ADB server named by the standard variables only (as the real binary finds its server).
printf '%s\\n' "$ANDROID_ADB_SERVER_ADDRESS|$ANDROID_ADB_SERVER_HOST|$ANDROID_ADB_SERVER_PORT|$ADB_SERVER_SOCKET|$*" \\
    >> "{record}"
exec "{python}" -m pytest_mobium_evals.commands.cli "$@" --adb "$ANDROID_ADB_SERVER_HOST:$ANDROID_ADB_SERVER_PORT"
"""


def write_standin(binary: Path, record: Path) -> Path:
    binary.parent.mkdir(parents=True)
    binary.write_text(STANDIN.format(record=record, python=sys.executable))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return binary


@pytest.fixture
def standin(tasks_dir) -> tuple[Path, Path]:
    record = tasks_dir.path / "started.txt"
    return write_standin(tasks_dir.path / "bin" / "mobium", record), record


def starts(record: Path) -> list[list[str]]:
    return [line.split("|") for line in record.read_text().splitlines()]


def test_the_real_mobium_is_told_the_virtual_devices_adb_server(tasks_dir, standin):
    binary, record = standin
    result = tasks_dir.runpytest_subprocess("-k", "t01", "--driver=reference", "--mobium", str(binary),
                                            "--run-dir", "sim", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    (adb,) = devices_of(tasks_dir.path / "sim")
    host, port = adb.rsplit(":", 1)
    assert starts(record) == [[host, host, port, f"tcp:{host}:{port}", "mcp --device emulator-5554"]]
    # the stand-in is in no git checkout: its commit is unknown, and so is whether its tree was dirty
    mobium = json.loads((tasks_dir.path / "sim" / "record.json").read_text())["mobium"]
    assert mobium["binary"] == str(binary) and mobium["commit"] is None and mobium["dirty"] is None


def test_the_real_mobium_is_told_the_adb_server_of_adb_and_of_each_device(tasks_dir, standin, servers):
    binary, record = standin
    a, b, _ = servers
    one = tasks_dir.runpytest_subprocess("-k", "t04", "--driver=reference", "--mobium", str(binary),
                                         "--device", "emulator-5554", "--adb", a.adb, "-p", "no:cacheprovider")
    one.assert_outcomes(passed=1)
    assert [s[2:4] for s in starts(record)] == [[str(a.port), f"tcp:{a.adb}"]]

    record.unlink()
    fleet = f"{a.adb}/emulator-5554,{b.adb}/emulator-5554"
    two = tasks_dir.runpytest_subprocess("-k", "t04", "--driver=reference", "--repeats=2", "--mobium", str(binary),
                                         "--device", fleet, "-n", "2", "--run-dir", "fleet", "-p", "no:cacheprovider")
    two.assert_outcomes(passed=2)
    assert sorted(s[2] for s in starts(record)) == sorted([str(a.port), str(b.port)])
    assert devices_of(tasks_dir.path / "fleet") == {a.adb, b.adb}


def test_mobium_path_after_a_space_outside_the_project_stops_in_one_line_and_the_joined_form_runs(
        tasks_dir, tmp_path_factory):
    # The README's user: the project's pyproject names its tasks, and the binary is in another checkout. pytest
    # would root the run above the project (the folder both share), ignoring the pyproject; the plugin says how to
    # write the option instead.
    tasks_dir.makepyprojecttoml('[tool.pytest.ini_options]\ntestpaths = ["mobiumapp_tasks"]\n')
    record = tasks_dir.path / "started.txt"
    binary = write_standin(tmp_path_factory.mktemp("mobium-public") / "bin" / "mobium", record)
    spaced = tasks_dir.runpytest_subprocess("-k", "t01", "--driver=reference", "--mobium", str(binary),
                                            "--run-dir", "sim", "-p", "no:cacheprovider")
    assert spaced.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in spaced.stderr.lines if line.strip()] == [
        f"ERROR: --mobium {binary}: pytest took the value for a test path (it chooses its rootdir, here "
        f"{tasks_dir.path.parent}, before it knows a plugin's options); write --mobium={binary}"]
    assert not record.exists() and not (tasks_dir.path / "sim").exists()  # no trial started, no run folder

    joined = tasks_dir.runpytest_subprocess("-k", "t01", "--driver=reference", f"--mobium={binary}",
                                            "--run-dir", "sim", "-p", "no:cacheprovider")
    joined.assert_outcomes(passed=1)
    joined.stdout.fnmatch_lines([f"rootdir: {tasks_dir.path}", "configfile: pyproject.toml"])
    assert [s[4] for s in starts(record)] == ["mcp --device emulator-5554"]


@pytest.mark.parametrize("option", ["--run-dir", "--resume", "--baseline"])
def test_every_path_option_after_a_space_that_would_move_the_rootdir_is_named(pytester, tmp_path_factory, option):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    result = pytester.runpytest_inprocess(option, str(elsewhere), "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {option} {elsewhere}: pytest took the value for a test path *; "
                                 f"write {option}={elsewhere}"])


def test_xdist_workers_do_not_refuse_the_run_folder_their_controller_created(pytester, tmp_path_factory):
    # The controller checks `--run-dir DIR` while DIR does not exist yet (pytest ignores a test path that is not
    # there), then creates it; its workers, handed the same arguments, must not read it as a test path then.
    run = tmp_path_factory.mktemp("outside") / "run"
    pytester.makeconftest(f"""
import os

def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        os.makedirs({str(run)!r}, exist_ok=True)  # before the workers start, as a slow start would find it
""")
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    result = pytester.runpytest_subprocess("-n", "2", "--run-dir", str(run), "-p", "no:cacheprovider")
    assert "pytest took the value for a test path" not in result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1)


def test_the_mobium_spec_names_the_adb_server_in_the_standard_variables():
    from pytest_mobium_evals.reach.toolserver import ToolServerSpec

    spec = ToolServerSpec.mobium("/opt/mobium", "emulator-5556", "otherhost", 5039)
    assert spec.command == ["/opt/mobium", "mcp", "--device", "emulator-5556"]
    assert spec.env == {"ANDROID_ADB_SERVER_ADDRESS": "otherhost", "ANDROID_ADB_SERVER_HOST": "otherhost",
                        "ANDROID_ADB_SERVER_PORT": "5039", "ADB_SERVER_SOCKET": "tcp:otherhost:5039"}
