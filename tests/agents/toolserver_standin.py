"""An offline agent for another MCP server than Mobium's (`--tool-server`): it knows mobile-mcp's tools by name and
does what a model would do with them for the one task it knows, t21 (dark mode): find the device, open Settings,
read the screen's elements, tap Display, then Dark theme, each by the coordinates the listing gives. Any other task
it answers `cannot`. It reads the screen as it goes, so a tap that lands on nothing leaves the device light and the
trial fails: the verdict is the device's, never this script's word.

    runner = mobile_mcp_runner()    # TrialEnv.agent_runner
"""

from __future__ import annotations

import json
import re

from pytest_mobium_evals.core.tasks import Claim
from pytest_mobium_evals.drivers.controls import DriverRun
from pytest_mobium_evals.reach.toolserver import ToolError, Tools

SETTINGS = "com.android.settings"


def centre(listing: str, text: str) -> tuple[int, int] | None:
    m = re.search(rf'text="{re.escape(text)}".*? at=(\d+),(\d+) size=(\d+)x(\d+)', listing)
    if m is None:
        return None
    x, y, w, h = map(int, m.groups())
    return x + w // 2, y + h // 2


def dark_mode(tools: Tools) -> Claim:
    devices = json.loads(tools.call("mobile_list_available_devices").text)["devices"]
    serial = devices[0]["id"]

    def call(name: str, **arguments):
        return tools.call(name, device=serial, **arguments)

    call("mobile_terminate_app", packageName=SETTINGS)  # Settings then opens on its main list
    call("mobile_launch_app", packageName=SETTINGS)
    for label in ("Display", "Dark theme"):
        where = centre(call("mobile_list_elements_on_screen").text, label)
        if where is None:
            return Claim("cannot", None, f"no {label!r} on the screen")
        call("mobile_click_on_screen_at_coordinates", x=where[0], y=where[1])
    return Claim("done", None, "Settings > Display > Dark theme switched on")


def mobile_mcp_runner():
    def runner(setting, prompt, server, limits, on_event, workdir, base_url=None) -> DriverRun:
        on_event({"kind": "prompt", "driver": "agent", "text": prompt})
        with Tools(server, on_event=on_event, timeout=getattr(limits, "tool_timeout", 60) or 60) as tools:
            try:
                if "dark mode" in prompt.lower() and "mobile_list_elements_on_screen" in tools.tool_names:
                    claim = dark_mode(tools)
                else:
                    claim = Claim("cannot", None, "this stand-in knows only t21 through mobile-mcp's tools")
            except ToolError as exc:
                claim = Claim("cannot", None, str(exc))
            calls = tools.calls
        on_event({"kind": "final", **claim.to_json()})
        return DriverRun(claim=claim, tool_calls=calls)

    return runner
