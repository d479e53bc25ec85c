"""What the hard tier's task files share: harness-side reads that have to leave the screen a driver ended on (the
state lasts beyond it: a stored count, a permission, the app's theme), and the script steps several of them take.

Reads here run over ADB after the driver has stopped; script steps run through the MCP tools only."""

from __future__ import annotations

import re

from mobiumapp import APP, line, open_from_home

from pytest_mobium_evals.toolserver import Tools


def back_home(device, *, presses: int = 8) -> None:
    """Back to MobiumApp's menu with the back key, keeping what the app holds in memory (its theme); launched
    again when the app is no longer in front."""
    for _ in range(presses):
        if device.find("homeList") is not None:
            return
        if device.foreground_package() != APP:
            device.launch(APP)
        else:
            device.shell("input keyevent KEYCODE_BACK")
    device.wait_for("homeList", timeout=10)


def stored_count(device) -> str:
    """The Storage Demo's count line, read from its file as the screen opens."""
    back_home(device)
    open_from_home(device, "storageBtn", "storedCount")
    got = line(device, "storedCount")
    back_home(device)
    return got


def save_items(device, n: int) -> None:
    """Precondition step: store `n` items with the Storage Demo's Save one more, then back to the menu."""
    open_from_home(device, "storageBtn", "saveOneMoreBtn")
    for i in range(1, n + 1):
        device.tap("saveOneMoreBtn")
        device.wait_for("storedCount", text=f"stored: {i}", timeout=10)
    back_home(device)


def granted(device, permission: str, package: str = APP) -> bool:
    """Whether the runtime permission is granted, as the package manager reports it."""
    out = device.shell(f"dumpsys package {package}")
    return re.search(rf"{re.escape(permission)}: granted=true", out) is not None


def app_theme(device) -> str:
    """The app's own theme (light or dark), as the Form Demo's state line reports it."""
    back_home(device)
    open_from_home(device, "formBtn", "formState")
    got = line(device, "formState")
    back_home(device)
    m = re.search(r"theme=(\w+)", got)
    return m.group(1) if m else ""


# ---- script steps, through the MCP tools -------------------------------------------------------------------------

def back_to_menu(tools: Tools) -> None:
    """Back to the home menu the way a person does, with the back button, until the menu shows."""
    for _ in range(6):
        if tools.call("app_find", locator="testid=homeList", check=False).data.get("elements"):
            return
        tools.call("app_press", button="back")


def save_in_storage(tools: Tools, times: int) -> str:
    tools.call("app_scroll_to", target="label=Storage Demo", direction="down")
    tools.call("app_tap", target="label=Storage Demo")
    for _ in range(times):
        tools.call("app_tap", target="testid=saveOneMoreBtn")
    return tools.call("app_wait_for", target="testid=storedCount", condition="text", text="stored: ").text


def grant_kind(device, permission: str, package: str = APP) -> str:
    """How the runtime permission stands, as the package manager reports it: "not granted", "granted once" (the
    ONE_TIME flag "Only this time" sets, which lapses once the app has been left a while) or "granted while in use".
    `granted()` is true for both grants; a task that asks for "While using the app" reads this."""
    out = device.shell(f"dumpsys package {package}")
    m = re.search(rf"{re.escape(permission)}: granted=(\w+), flags=\[([^\]]*)\]", out)
    if m is None or m.group(1) != "true":
        return "not granted"
    return "granted once" if "ONE_TIME" in m.group(2) else "granted while in use"
