"""t43 report-size: turn the device's dark theme on in Settings, download the Files Demo's report twice, store an
item, and report the saved file's size (Settings, Files and Storage)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import back_to_menu, save_in_storage, stored_count
from .suite import APP, mobiumapp, open_screen, text_of

REPORT = "/sdcard/Download/mobium-report.txt"
SETTINGS = "com.android.settings"


def _dark_theme(tools: Tools) -> None:
    # Settings keeps the page it was left on: stopped first, it opens on its main list.
    tools.call("app_terminate", app=SETTINGS)
    tools.call("app_launch", app=SETTINGS)
    tools.call("app_scroll_to", target="text=Display", direction="down")
    tools.call("app_tap", target="text=Display")
    tools.call("app_tap", target="text=Dark theme")
    tools.call("app_appearance")  # read back: the row's switch is the device's night mode
    tools.call("app_launch", app=APP)


def _run(tools: Tools, downloads: int, *, app_dark: bool = False) -> str:
    if app_dark:
        open_screen(tools, "Form Demo")
        tools.call("app_check", target="testid=darkSwitch", checked=True)
    else:
        _dark_theme(tools)
    back_to_menu(tools)
    open_screen(tools, "Files Demo")
    for _ in range(downloads):
        tools.call("app_tap", target="testid=saveReportBtn")
    tools.call("app_wait_for", target="testid=savedFile", condition="text", text="saved: ")
    saved = text_of(tools, "savedFile")
    back_to_menu(tools)
    save_in_storage(tools, 1)
    m = re.search(r"\((\d+) bytes\)", saved)
    return f"{m.group(1)} bytes" if m else saved


def ref_t43(tools: Tools, params: dict) -> Claim:
    return Claim("done", _run(tools, 2), "the Files Demo's saved line gives the size")


def wrong_t43(tools: Tools, params: dict) -> Claim:
    """Downloads the report once: the same size, but not the second report the task asks for."""
    return Claim("done", _run(tools, 1), "the Files Demo's saved line gives the size")


def near_t43_app_dark(tools: Tools, params: dict) -> Claim:
    """Turns on MobiumApp's own Dark mode (the Form Demo's switch) in place of the device's Dark theme, then does
    the rest right."""
    return Claim("done", _run(tools, 2, app_dark=True), "the Files Demo's saved line gives the size")


def _size(device) -> str:
    out = device.shell(f"wc -c {REPORT}").strip()
    m = re.match(r"(\d+)", out)
    return f"{m.group(1)} bytes" if m else ""


ANSWER = answers.reading("report_size", "the saved report's size in bytes")
JUDGE = JudgeSpec(
    question="Download the Files Demo's report twice and report the saved file's size.",
    answers=(
        LabelledAnswer("44 bytes", True, "the size", "44 bytes"),
        LabelledAnswer("The file is 44 bytes.", True, "the size in a sentence", "44 bytes"),
        LabelledAnswer("88 bytes", False, "two reports added up: the second replaces the first", "44 bytes"),
    ))


@mobiumapp(id="t43", reference=ref_t43, wrong=wrong_t43, tier="hard", slug="report-size", answer=ANSWER,
           judge=JUDGE, allowed_settings=("secure/ui_night_mode",),
           aims_at="a long horizon across two apps (Settings and MobiumApp, three screens, over 15 tool calls), "
                   "ending in an answer about a saved file",
           prompt="Turn on the device's Dark theme in Settings. Then in MobiumApp download the Files Demo's report "
                  "twice, store one item with the Storage Demo's 'Save one more', and tell me the size of the saved "
                  "report file.",
           controls=Controls(reasons={"wrong": "downloads the report once: the file says 'report 1'"}),
           near_misses=(NearMiss("app-dark-mode", script=near_t43_app_dark, verdict="false_success",
                                 why="the app's own switch instead of the system's: MobiumApp turns dark, the device's "
                                     "Dark theme stays off, which is what the task asks for"),))
def test_t43_report_size(device, params) -> Outcome:
    body = device.shell(f"cat {REPORT}")
    count = stored_count(device)
    dark = device.night_mode()
    ok = body.startswith("MobiumApp report 2") and count == "stored: 1" and dark == "yes"
    return Outcome(ok, observed=_size(device))
