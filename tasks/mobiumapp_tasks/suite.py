"""MobiumApp's suite: what every MobiumApp task file shares.

MobiumApp is Mobium's own app under test. Each task is one file beside this one (`test_tNN_<slug>.py`) declaring its
prompt, seeded parameters, precondition, the outcome it reads back from the device, its reference and wrong scripts,
its answer rule and judge question, and its controls; adding a task on an existing screen is adding one file.

Here: the app's package and demo account, `@mobiumapp` (`@task` with the suite's defaults), the harness-side reads
that outcome checks use (over ADB, only after the driver has stopped), and the script steps reference and wrong
drivers share (through the MCP tools only, as an agent would). Every script starts where the trial's reset leaves
the device: MobiumApp freshly launched on its home menu."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import task
from pytest_mobium_evals.drivers.scripting import map_line_ref as ref_for  # noqa: F401  (the suite's name for it)
from pytest_mobium_evals.drivers.scripting import refusal as refused  # noqa: F401
from pytest_mobium_evals.reach.toolserver import Tools

APP = "dev.mobium.mobiumapp"

#: The demo account's password: in the prompt of t01 on purpose, never to be seen in a tool's *answer*. The Login
#: screen prints it in its own hint ("Password: hunter2"), which is the app's text, not a leak (the seed's first
#: "blocker" was exactly that hint): `secret_hints` says so.
DEMO_PASSWORD = "hunter2"
LOGIN_HINT = f"Password: {DEMO_PASSWORD}"

#: The Form Demo's controls when it opens.
FORM_DEFAULTS = {"notify": False, "terms": False, "plan": "free", "dark": False}

# The CHALLENGES entries the baseline's failures led to (the spec: "Each was reproduced from the CLI and fixed in
# Mobium (CHALLENGES 299–304, mobiumdev/mobium #191–#193)"). It does not say which entry is which, so each task
# names the defect and the range rather than inventing one number.
FOUND_RANGE = "CHALLENGES 299–304, mobiumdev/mobium #191–#193"


def mobiumapp(**fields):
    """`@task` with MobiumApp's defaults: the app reset before each trial, ready once its menu is on screen, and
    the demo password watched for in every tool answer."""
    fields.setdefault("suite", "mobiumapp")
    fields.setdefault("app", APP)
    fields.setdefault("ready_testid", "homeList")
    fields.setdefault("secrets", (DEMO_PASSWORD,))
    fields.setdefault("secret_hints", (LOGIN_HINT,))
    return task(**fields)


# ---- the harness's reads, over ADB (outcome checks and preconditions only, never while a driver runs) ----------

def line(device, testid: str) -> str:
    """A line the app wrote, found by its testID (scrolled into view if needed), or "" when it is not there."""
    return device.text(testid) or ""


def open_from_home(device, testid: str, ready: str) -> None:
    device.tap(testid)
    device.wait_for(ready, timeout=10)


# ---- script steps, through the MCP tools -------------------------------------------------------------------------

def home(tools: Tools) -> None:
    tools.call("app_launch", app=APP)


def open_screen(tools: Tools, label: str) -> None:
    """Tap a home-menu entry; entries below the fold are scrolled to first (app_tap also would, after its wait)."""
    tools.call("app_scroll_to", target=f"label={label}", direction="down")
    tools.call("app_tap", target=f"label={label}")


def text_of(tools: Tools, testid: str) -> str:
    return tools.call("app_text", target=f"testid={testid}").text


def open_obstruction(tools: Tools) -> None:
    tools.call("app_scroll_to", target="testid=obstructionBtn", direction="down")
    tools.call("app_tap", target="testid=obstructionBtn")
    tools.call("app_wait_for", target="testid=obstructionOutcome")


def open_web_case(tools: Tools, button: str) -> str:
    tools.call("app_tap", target="testid=webviewhubBtn")
    tools.call("app_scroll_to", target=f"testid={button}", direction="down")
    tools.call("app_tap", target=f"testid={button}")
    tools.call("app_wait_for", target="class=WebView")
    ctx = next(c["id"] for c in tools.call("app_contexts").data["contexts"] if c["id"].startswith("WEBVIEW_"))
    tools.call("app_context", context=ctx)
    return ctx


def open_frames_page(tools: Tools) -> None:
    """Open the WebViews hub's Frames page and switch to its WebView context."""
    open_screen(tools, "WebViews")
    tools.call("app_scroll_to", target="testid=framesBtn", direction="down")
    tools.call("app_tap", target="testid=framesBtn")
    tools.call("app_wait_for", target="text=A button on the page itself")
    ctx = next(c["id"] for c in tools.call("app_contexts").data["contexts"] if c["id"].startswith("WEBVIEW_"))
    tools.call("app_context", context=ctx)
