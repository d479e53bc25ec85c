"""Small steps for scripted controls (reference and wrong drivers), over the MCP tools only.

A control reaches the device exactly as an agent does: through `Tools` (toolserver.py). These helpers read
`app_map`'s structured answer (its `elements`, each with ref, label, role, bounds and, when checkable, checked) and
act on refs, waiting on the screen's state with a deadline rather than sleeping a fixed time. Nothing here knows a
particular app: the Ghost Bench controls and the MobiumApp task scripts both build on it.

A step that cannot go on raises `DriverError` with what the screen showed, so a broken script fails its trial with
a message rather than a KeyError.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable

from pytest_mobium_evals.drivers.controls import DriverError
from pytest_mobium_evals.reach.toolserver import ToolError, Tools

#: How long a step waits for the screen to show what it looks for (a page opening, a switch settling).
WAIT_S = 5.0
#: Between two reads of the screen; each read is an MCP round trip already, this only spares a busy loop.
POLL_S = 0.2

Box = tuple[int, int, int, int]


def norm_label(label: str) -> str:
    """A label folded for comparison: case, runs of spaces, and dashes (Android writes "Wi‑Fi" with a
    non-breaking hyphen, U+2011; people type "Wi-Fi")."""
    return re.sub(r"[\u2010-\u2015\u2212-]", "-", " ".join(str(label).split())).casefold()


def map_elements(tools: Tools) -> list[dict]:
    """The current screen's elements from `app_map`'s structured answer."""
    result = tools.call("app_map")
    data = result.data if isinstance(result.data, dict) else {}
    return [e for e in data.get("elements", []) if isinstance(e, dict)]


def wait_for(condition: Callable[[], object | None], what: str, timeout: float = WAIT_S) -> object:
    """Poll `condition` until it returns something truthy; DriverError naming `what` at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise DriverError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(POLL_S)


def find_on_screen(tools: Tools, label: str, timeout: float = WAIT_S) -> tuple[dict, list[dict]]:
    """The element labelled `label` (exactly, else the shortest label starting with it) and the whole screen it was
    found on. Scrolls to it once when it is not in view. A row's text and its own control can carry the same label:
    the control (checkable, a switch or a slider) is the one returned."""
    want = norm_label(label)
    deadline = time.monotonic() + timeout
    scrolled = False
    while True:
        elements = map_elements(tools)
        exact = [e for e in elements if norm_label(e.get("label", "")) == want and e.get("ref")]
        prefix = sorted((e for e in elements if norm_label(e.get("label", "")).startswith(want) and e.get("ref")),
                        key=lambda e: len(str(e.get("label", ""))))
        candidates = exact or prefix
        if candidates:
            controls = [e for e in candidates if "checked" in e or e.get("role") in ("switch", "slider")]
            return (controls or candidates)[0], elements
        if not scrolled:
            scrolled = True
            tools.call("app_scroll_to", target=f"text={label}", check=False)
            continue
        if time.monotonic() >= deadline:
            shown = ", ".join(str(e.get("label", "")) for e in elements) or "nothing"
            raise DriverError(f"no element labelled {label!r} on the screen; it shows: {shown}")
        time.sleep(POLL_S)


def find(tools: Tools, label: str, timeout: float = WAIT_S) -> dict:
    return find_on_screen(tools, label, timeout)[0]


def tap_label(tools: Tools, label: str) -> None:
    tools.tap(target=find(tools, label)["ref"])


def tap_through(tools: Tools, labels: Iterable[str]) -> None:
    """Tap each label in turn, each on the screen the previous tap opened."""
    for label in labels:
        tap_label(tools, label)


def box_of(element: dict) -> Box | None:
    b = element.get("bounds")
    if not isinstance(b, dict):
        return None
    try:
        return int(b["x1"]), int(b["y1"]), int(b["x2"]), int(b["y2"])
    except (KeyError, TypeError, ValueError):
        return None


def centre_inside(inner: Box | None, outer: Box) -> bool:
    if inner is None:
        return False
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


def is_checked(element: dict) -> bool:
    return bool(element.get("checked"))


def switch_in_row(tools: Tools, label: str) -> dict:
    """The switch of the row called `label`. A settings-style row carries the title while its Switch widget has no
    text of its own, so the switch is the checkable element drawn inside the row."""
    row, elements = find_on_screen(tools, label)
    if "checked" in row:
        return row
    box = box_of(row)
    inside = [e for e in elements if "checked" in e and e.get("ref") and box and centre_inside(box_of(e), box)]
    if inside:
        return inside[0]
    raise DriverError(f"the row {label!r} has no switch in it on this screen")


def wait_switch(tools: Tools, label: str, on: bool, timeout: float = WAIT_S) -> bool:
    """Whether the switch of row `label` shows `on` within the timeout (a system switch can take a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        if is_checked(switch_in_row(tools, label)) == on:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)


def set_switch(tools: Tools, label: str, on: bool) -> bool:
    """Turn the switch of row `label` on or off (tapping only when it is not already so); whether it settled."""
    switch = switch_in_row(tools, label)
    if is_checked(switch) != on:
        tools.tap(target=switch["ref"])
    return wait_switch(tools, label, on)


def launch_fresh(tools: Tools, package: str) -> None:
    """Stop the app, then launch it: an app resumes on the page it was left on, so a script that walks from the
    app's first page starts it cold."""
    tools.call("app_terminate", app=package, check=False)
    tools.call("app_launch", app=package)


def map_line_ref(tools: Tools, pattern: str) -> str:
    """The ref of the first line of `app_map`'s text answer matching a regex."""
    text = tools.call("app_map").text
    for line in text.splitlines():
        if re.search(pattern, line):
            return line.split(" ", 1)[0]
    raise DriverError(f"no map line matches {pattern!r}:\n{text}")


def refusal(step: Callable[..., object], *args, **kwargs) -> ToolError | None:
    """The ToolError a step raised, or None when the tool did what was asked (for scripts that expect a refusal)."""
    try:
        step(*args, **kwargs)
    except ToolError as err:
        return err
    return None
