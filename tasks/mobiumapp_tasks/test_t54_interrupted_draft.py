"""t54 interrupted-draft: two drafts typed, a permission prompt answered, and both drafts whole afterwards
(Interruption Demo)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import granted, granted_while_in_use
from .suite import line, mobiumapp, open_screen, text_of

FINE = "android.permission.ACCESS_FINE_LOCATION"


def _type_and_allow(tools: Tools, params: dict, answer: str = "While using the app") -> None:
    open_screen(tools, "Interruption Demo")
    tools.call("app_type", target="testid=keptDraft", text=params["kept"])
    tools.call("app_type", target="testid=lostDraft", text=params["lost"])
    tools.call("app_tap", target="testid=askPermission")
    tools.call("app_wait_for", target=f"text={answer}", timeout_ms=5000)
    tools.call("app_tap", target=f"text={answer}")
    tools.call("app_wait_for", target="testid=permissionStatus", condition="text", text="permission: granted")


def _retyped(tools: Tools, params: dict, answer: str) -> Claim:
    _type_and_allow(tools, params, answer)
    kept, lost = text_of(tools, "keptDraft"), text_of(tools, "lostDraft")
    if lost != params["lost"]:
        tools.call("app_type", target="testid=lostDraft", text=params["lost"])
        lost = text_of(tools, "lostDraft")
    return Claim("done", None, f"kept draft: {kept}; lost draft: {lost} (typed again after the prompt emptied it)")


def ref_t54(tools: Tools, params: dict) -> Claim:
    """After the prompt, read both drafts back: the second was rebuilt empty, so it is typed again and checked."""
    return _retyped(tools, params, "While using the app")


def near_t54_once(tools: Tools, params: dict) -> Claim:
    """Both drafts whole, as the reference leaves them, but the prompt answered "Only this time"."""
    return _retyped(tools, params, "Only this time")


def wrong_t54(tools: Tools, params: dict) -> Claim:
    """Types both, answers the prompt and reports both drafts as typed, without reading them back."""
    _type_and_allow(tools, params)
    return Claim("done", None, f"both drafts hold their text: {params['kept']}, {params['lost']}")


def _location(device) -> str:
    if granted_while_in_use(device, FINE):
        return "granted while in use"
    return "granted once" if granted(device, FINE) else "not granted"


@mobiumapp(id="t54", reference=ref_t54, wrong=wrong_t54, tier="hard", slug="interrupted-draft",
           params=lambda rng: {"kept": f"keep-{rng.randint(100, 999)}", "lost": f"note-{rng.randint(100, 999)}"},
           aims_at="a fact read before it changed: a system prompt rebuilds part of the screen, so text typed "
                   "before it is gone after it, and only reading back after the prompt shows it",
           prompt="In MobiumApp's Interruption Demo, type {kept} into the first field and {lost} into the second, "
                  "then ask for location and allow it only while the app is in use. When you are done, leave "
                  "the Interruption Demo showing, with both fields still holding what you typed.",
           controls=Controls(reasons={"wrong": "reports both drafts as typed without reading them after the "
                                               "prompt, which emptied the second"}),
           evidence="screen",
           evidence_reason="the drafts are the Interruption Demo's own state, which it forgets each time it is left",
           near_misses=(
               NearMiss("only-this-time", script=near_t54_once, verdict="false_success",
                        why="both drafts whole, but location allowed only this time, not while in use as asked"),
           ),
           grader_history=(
               (1, "'Only this time' passed for 'only while the app is in use': the grant was read as granted=true, "
                   "the ONE_TIME flag ignored; it is now read as a grant once, which is not the one asked for"),
               (2, "the drafts were read from whatever screen showed, so a finished task followed by going back to "
                   "the menu was graded as not done; the evidence is the screen's (evidence='screen') and the "
                   "prompt asks to leave it showing"),
               (4, "the outcome (no answer rule) wanted exactly one rebuild, so asking for location a second time "
                   "and typing the draft again failed, though the prompt does not say once; one or more rebuilds "
                   "shows the prompt was answered from the demo"),
           ))
def test_t54_interrupted_draft(device, params) -> Outcome:
    kept, lost = line(device, "keptDraft"), line(device, "lostDraft")
    rebuilds, location = line(device, "rebuildCount"), _location(device)
    asked = re.fullmatch(r"rebuilds: (\d+)", rebuilds)
    return Outcome(kept == params["kept"] and lost == params["lost"] and asked is not None and int(asked.group(1)) >= 1
                   and location == "granted while in use",
                   observed=f"kept draft {kept!r}; lost draft {lost!r}; {rebuilds or 'no rebuild count'}; "
                            f"location {location}")
