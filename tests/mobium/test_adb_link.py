"""The server's shell over ADB (AdbLink), on the virtual device: what each command answers, a screenshot's bytes
whole, and Mobium's error code for a serial the ADB server does not hold."""

from __future__ import annotations

import pytest

from pytest_mobium_evals.mobium_server.device import AdbLink
from pytest_mobium_evals.mobium_server.errors import MobiumError


def test_a_command_answers_its_output_without_the_trailing_newline(sim_server):
    link = AdbLink(sim_server.serials[0], "127.0.0.1", sim_server.port)
    assert link.shell("echo one; echo two") == "one\ntwo"
    assert link.shell(["echo", "a b"]) == "a b"


def test_a_screenshot_comes_back_whole_as_bytes(sim_server):
    link = AdbLink(sim_server.serials[0], "127.0.0.1", sim_server.port)
    png = link.shell_bytes("screencap -p")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert png.endswith(b"IEND\xaeB`\x82")  # the last chunk: nothing was cut off
    assert len(png) > 16384  # tens of kilobytes: several reads


def test_a_serial_the_adb_server_does_not_hold_is_no_device(sim_server):
    link = AdbLink("emulator-5999", "127.0.0.1", sim_server.port)
    with pytest.raises(MobiumError) as caught:
        link.shell("echo hi")
    assert caught.value.code == "no_device"
    assert "emulator-5999" in caught.value.message

