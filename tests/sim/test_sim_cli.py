"""`mobium-evals sim`: runs in the foreground, prints its port and serials, serves ADB, stops on SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import adbutils
import pytest

# the console script's entry point, called as `mobium-evals` calls it
CLI = [sys.executable, "-c", "import sys; from pytest_mobium_evals.commands.cli import main; sys.exit(main())"]


def test_sim_command_serves_until_sigterm():
    proc = subprocess.Popen([*CLI, "sim", "--port", "0", "--devices", "2",
                             "--clock-speed", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "ADBUTILS_ADB_PATH": "/bin/false"})
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(r"port=(\d+) serials=emulator-5554,emulator-5556 pace=fast \(adb -P \d+ devices\)\n", line)
        assert m, line
        client = adbutils.AdbClient("127.0.0.1", int(m.group(1)), socket_timeout=10)
        assert client.device("emulator-5556").shell("getprop ro.serialno") == "emulator-5556"
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err


def test_sim_command_serves_other_hosts_only_when_asked():
    """--host 0.0.0.0 serves the devices on every address, as `adb -a` does (workers on other hosts reach them);
    the default listens on 127.0.0.1 alone, so 127.0.0.2, another address of this machine, finds nothing there."""
    for host, reached in (("0.0.0.0", True), ("127.0.0.1", False)):
        proc = subprocess.Popen([*CLI, "sim", "--port", "0", "--host", host], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "ADBUTILS_ADB_PATH": "/bin/false"})
        try:
            line = proc.stdout.readline()
            m = re.fullmatch(r"port=(\d+) serials=emulator-5554 pace=fast \(adb (-H \S+ )?-P \d+ devices\)\n", line)
            assert m and bool(m.group(2)) == (host != "127.0.0.1"), line
            client = adbutils.AdbClient("127.0.0.2", int(m.group(1)), socket_timeout=10)
            if reached:
                assert client.device("emulator-5554").shell("getprop ro.serialno") == "emulator-5554"
            else:
                with pytest.raises(adbutils.AdbError):
                    client.device_list()
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err


def test_sim_command_bad_arguments_are_one_line_errors():
    r = subprocess.run([*CLI, "sim", "--devices", "0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr == "mobium-evals sim: --devices must be 1 to 64, got 0\n"
    busy = subprocess.Popen([*CLI, "sim", "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        port = re.match(r"port=(\d+)", busy.stdout.readline()).group(1)
        r = subprocess.run([*CLI, "sim", "--port", port],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and r.stderr.startswith(f"mobium-evals sim: cannot listen on 127.0.0.1:{port}")
        assert len(r.stderr.splitlines()) == 1
    finally:
        busy.send_signal(signal.SIGTERM)
        busy.communicate(timeout=20)
