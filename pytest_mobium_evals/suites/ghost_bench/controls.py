"""The reference and wrong controls of a Ghost Bench task, derived from the task itself, never written per task.

Two kinds of task have derivable controls, told apart by what the eval reads:
- a launch task (the eval reads the app in front, `dumpsys activity ...`): the reference presses home and taps the
  app's launcher icon, the one whose label the goal names (or `ui.label`); the wrong driver taps the icon beside it.
- a settings task (the eval reads `settings get <namespace> <key>`): the reference opens Settings and reaches the
  switch or slider either along `ui.path` to `ui.label`, or, without `ui`, as a person would: Settings' own search
  for the goal's words, then the first result. The wrong driver reaches the same control and leaves it wrong (a
  switch turned and turned back, a slider stopped short).
The null control (claims done, does nothing) is the plugin's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_mobium_evals.core.tasks import Claim, NearMiss
from pytest_mobium_evals.drivers import scripting
from pytest_mobium_evals.drivers.controls import DriverError

from ..eval_check import TOP_PACKAGE, Check
from .loading import GhostBenchError, GhostTask

if TYPE_CHECKING:  # pragma: no cover
    from pytest_mobium_evals.reach.toolserver import Tools

#: Settings whose value is a range, not a switch: Android's brightness runs 1..255 (0 is "off", never set by the
#: slider). A task's `ui.range` names any other.
RANGES = {"system/screen_brightness": (1, 255)}
#: Settings Android changes along with another, which a trial that changes that one may therefore change too:
#: airplane mode turns the radios off, the brightness slider writes the float form, mobile data is also kept per
#: SIM subscription.
FOLLOWS = {
    "global/airplane_mode_on": ("global/wifi_on", "global/bluetooth_on"),
    "system/screen_brightness": ("system/screen_brightness_float",),
    "global/mobile_data": ("global/mobile_data1",),
}

#: Words of a goal that say what to do rather than what to find: what is left is what a person types into
#: Settings' search ("Turn off mobile data." searches "mobile data").
ACTION_WORDS = frozenset((
    "turn", "switch", "set", "make", "put", "enable", "disable", "activate", "deactivate", "on", "off", "the", "to",
    "a", "an", "of", "my", "max", "maximum", "min", "minimum", "value", "highest", "lowest", "please", "its", "all",
    "way",
))

_SETTINGS_GET = re.compile(r"^\s*settings\s+get\s+(?:--user\s+\S+\s+)?(global|secure|system)\s+(\S+)\s*$")
_READS_FRONT_APP = re.compile(r"^\s*dumpsys\s+(activity|window)\b")


@dataclass(frozen=True)
class ControlPlan:
    """The scripted controls of one task and what the trial may change without it being a side effect."""

    reference: Callable[[Tools, dict], Claim]
    wrong: Callable[[Tools, dict], Claim]
    reference_does: str
    wrong_does: str
    allowed_settings: tuple[str, ...] = ()
    evidence: str = "device"  # tasks.EVIDENCE: "foreground" when the goal is the app in front
    evidence_reason: str | None = None
    near_misses: tuple[NearMiss, ...] = ()


def setting_of(check: Check) -> str | None:
    """The "namespace/key" an eval reads with `settings get`, or None when it reads something else."""
    match = _SETTINGS_GET.match(check.cmd)
    return f"{match.group(1)}/{match.group(2)}" if match else None


def control_plan(task: GhostTask) -> ControlPlan:
    """Derive the reference and wrong drivers. Raises GhostBenchError (without the file prefix) when the eval says
    nothing a script can reach."""
    if setting_of(task.check) is not None:
        return _settings_plan(task)
    if (_READS_FRONT_APP.match(task.check.cmd) and task.check.kind == "expect_contains") \
            or task.check.kind == TOP_PACKAGE:
        return _launch_plan(task)
    raise GhostBenchError(f"no scripted controls can be derived: the eval neither reads a setting (`settings get "
                          f"<namespace> <key>`) nor the app in front (`dumpsys activity ...` with "
                          f"expect_contains), got `{task.check.cmd}`")


def search_words(goal: str) -> str:
    """What to type into Settings' search for a goal: its words less the action words."""
    words = re.findall(r"[\w\u2010-\u2015-]+", goal.casefold())
    return " ".join(w for w in words if w not in ACTION_WORDS)


# ---- launch tasks ------------------------------------------------------------------------------------------------

def launcher_icon(goal: str, icons: list[dict]) -> dict | None:
    """The home-screen icon the goal names: the longest icon label found in the goal as whole words."""
    words = " ".join(re.findall(r"[\w&.-]+", goal))
    text = f" {scripting.norm_label(words)} "
    named = [e for e in icons if e.get("label") and e.get("ref")
             and f" {scripting.norm_label(e['label'])} " in text]
    return max(named, key=lambda e: len(str(e["label"]))) if named else None


def _launch_plan(task: GhostTask) -> ControlPlan:
    fixed = task.ui.label if task.ui else None

    def icons(tools: Tools) -> tuple[dict, list[dict]]:
        tools.call("app_press", button="home")
        if fixed:
            return scripting.find_on_screen(tools, fixed)
        elements = scripting.map_elements(tools)
        icon = launcher_icon(task.goal, elements)
        if icon is None:
            shown = ", ".join(str(e.get("label", "")) for e in elements) or "nothing"
            raise DriverError(f"no launcher icon is named in the goal {task.goal!r}; the home screen shows: {shown}")
        return icon, elements

    def reference(tools: Tools, params: dict) -> Claim:
        icon, _ = icons(tools)
        tools.tap(target=icon["ref"])
        return Claim("done", reason=f"Opened {icon['label']} from the home screen.")

    def wrong(tools: Tools, params: dict) -> Claim:
        icon, elements = icons(tools)
        others = [e for e in elements if e.get("ref") and e.get("label") and e.get("label") != icon.get("label")]
        if not others:
            raise DriverError("the home screen shows no other icon to open by mistake")
        after = [e for e in others if elements.index(e) > elements.index(icon)]
        tools.tap(target=(after or others)[0]["ref"])
        return Claim("done", reason=f"Opened {icon['label']} from the home screen.")

    def open_then_home(tools: Tools, params: dict) -> Claim:
        claim = reference(tools, params)
        tools.call("app_press", button="home")
        return claim

    target = f"the {fixed} icon" if fixed else "the icon the goal names"
    return ControlPlan(reference, wrong,
                       reference_does=f"presses home and taps {target} on the launcher",
                       wrong_does="presses home and taps the icon after it instead (the wrong app)",
                       evidence="foreground",
                       evidence_reason="the eval reads the app in front: the goal is that app open, which going "
                                       "home afterwards undoes",
                       near_misses=(NearMiss("open-then-home", open_then_home, "false_success",
                                             "opens the right app, then goes back to the home screen before "
                                             "claiming: the app is no longer open, as the eval reads it"),))


# ---- settings tasks ----------------------------------------------------------------------------------------------

def open_setting(tools: Tools, task: GhostTask) -> str:
    """Open Settings cold and reach the task's control; the control's label. Along `ui.path` when the task gives
    one, else through Settings' search for the goal's words, tapping the first result."""
    scripting.launch_fresh(tools, task.app)
    if task.ui is not None:
        scripting.tap_through(tools, task.ui.path)
        return task.ui.label
    query = search_words(task.goal)
    scripting.tap_label(tools, "Search Settings")
    field = scripting.wait_for(lambda: _editable(scripting.map_elements(tools)), "Settings' search field")
    tools.call("app_fill", target=field["ref"], text=query)

    bottom = (scripting.box_of(field) or (0, 0, 0, 0))[3]

    def first_result() -> dict | None:
        below = [e for e in scripting.map_elements(tools) if e.get("ref") and e.get("label")
                 and e.get("role") != "input" and (scripting.box_of(e) or (0, 0, 0, 0))[1] >= bottom]
        return next((e for e in below if e.get("role") == "button"), below[0] if below else None)

    result = scripting.wait_for(first_result, f"a result of Settings' search for {query!r}")
    tools.tap(target=result["ref"])
    # A result row reads "<title> <breadcrumb>" ("Wi‑Fi Network & internet > Internet"), the control's row
    # "<title> <summary>": the control is the one whose label shares the most leading words with the result.
    return str(scripting.wait_for(lambda: _control_like(scripting.map_elements(tools), str(result["label"])),
                                  f"the control {result['label']!r} opens"))


def _leading_words(a: str, b: str) -> int:
    count = 0
    for x, y in zip(scripting.norm_label(a).split(), scripting.norm_label(b).split()):
        if x != y:
            break
        count += 1
    return count


def _control_like(elements: list[dict], result_label: str) -> str | None:
    """The title of the switch row or slider on screen named most like the search result, or None."""
    def is_control(e: dict) -> bool:
        if "checked" in e or e.get("role") == "slider":
            return True
        box = scripting.box_of(e)
        return bool(box) and any("checked" in o and scripting.centre_inside(scripting.box_of(o), box)
                                 for o in elements if o is not e)

    scored = [(_leading_words(str(e.get("label", "")), result_label), e) for e in elements if e.get("label")]
    scored = [(score, e) for score, e in scored if score and is_control(e)]
    if not scored:
        return None
    best = max(score for score, _ in scored)
    # The slider itself over the row that titles it; the row of a switch over nothing else.
    top = [e for score, e in scored if score == best]
    chosen = str(next((e for e in top if e.get("role") == "slider"), top[0])["label"])
    # Its title only: the words after it (a summary such as "On") change when the switch does.
    return " ".join(chosen.split()[:best])


def _editable(elements: list[dict]) -> dict | None:
    return next((e for e in elements if e.get("ref") and e.get("role") == "input"), None)


def _settings_plan(task: GhostTask) -> ControlPlan:
    name = setting_of(task.check)
    if task.check.kind == "expect_contains":
        raise GhostBenchError("a settings task expects a value (expect or expect_in), not a substring")
    values = (task.check.expected,) if task.check.kind == "expect" else task.check.expected
    allowed = (name,) + FOLLOWS.get(name, ())
    way = (" > ".join(("Settings",) + task.ui.path) + f" > {task.ui.label}" if task.ui
           else f"Settings' search for {search_words(task.goal)!r}")
    span = task.ui.range if task.ui and task.ui.range else RANGES.get(name)
    if span is None:
        return _switch_plan(task, name, values, allowed, way)
    return _slider_plan(task, name, values, allowed, way, span)


def _switch_plan(task: GhostTask, name: str, values: tuple, allowed: tuple, way: str) -> ControlPlan:
    states = {value != "0" for value in values}
    if len(states) != 1:
        raise GhostBenchError(f"{name} is a switch, but the expected values {list(values)} mix off (\"0\") and on")
    goal_on = states.pop()
    word, other = ("on", "off") if goal_on else ("off", "on")

    def reference(tools: Tools, params: dict) -> Claim:
        label = open_setting(tools, task)
        if not scripting.set_switch(tools, label, goal_on):
            return Claim("cannot", reason=f"{label} still shows {other} after tapping it.")
        return Claim("done", reason=f"Turned {label} {word}.")

    def wrong(tools: Tools, params: dict) -> Claim:
        # The opposite toggle last: it reaches the goal, then taps again and leaves the switch where it started.
        # Nothing is left changed, so only the final-state check tells it from the reference.
        label = open_setting(tools, task)
        scripting.set_switch(tools, label, goal_on)
        scripting.set_switch(tools, label, not goal_on)
        return Claim("done", reason=f"Turned {label} {word}.")

    return ControlPlan(reference, wrong, allowed_settings=allowed,
                       reference_does=f"reaches the switch through {way} and turns it {word}",
                       wrong_does=f"reaches the switch through {way}, turns it {word}, then taps it back {other}")


def _slider_plan(task: GhostTask, name: str, values: tuple, allowed: tuple, way: str,
                 span: tuple[int, int]) -> ControlPlan:
    low, high = span
    if len(values) != 1 or not re.fullmatch(r"-?\d+", values[0]):
        raise GhostBenchError(f"{name} is a slider; expect one whole number in {low}..{high}, got {list(values)}")
    target = int(values[0])
    if not low <= target <= high:
        raise GhostBenchError(f"{name} runs {low}..{high}; the expected {target} cannot be reached")
    position = (target - low) / (high - low)
    # For a goal at either end (all of Ghost Bench's), the wrong move stops in the middle; for a goal inside the
    # range, it goes to the end farther from it.
    wrong_position = 0.5 if position in (0.0, 1.0) else (0.0 if position > 0.5 else 1.0)

    def drag(tools: Tools, to: float) -> str:
        label = open_setting(tools, task)
        slider = scripting.find(tools, label)
        tools.call("app_fill", target=slider["ref"], text=f"{to:g}")
        return label

    def reference(tools: Tools, params: dict) -> Claim:
        label = drag(tools, position)
        return Claim("done", reason=f"Set {label} to {target}.")

    def wrong(tools: Tools, params: dict) -> Claim:
        label = drag(tools, wrong_position)
        return Claim("done", reason=f"Set {label} to {target}.")

    return ControlPlan(reference, wrong, allowed_settings=allowed,
                       reference_does=f"reaches the slider through {way} and drags it to {position:g} "
                                      f"(value {target})",
                       wrong_does=f"reaches the slider through {way} and drags it to {wrong_position:g} "
                                  f"(not {target})")
