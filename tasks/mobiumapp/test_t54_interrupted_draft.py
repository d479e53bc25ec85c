"""t54 interrupted-draft: two drafts typed, a permission prompt answered, and both drafts whole afterwards
(Interruption Demo)."""

from __future__ import annotations

from hard import granted
from mobiumapp import line, mobiumapp, open_screen, text_of

from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools

FINE = "android.permission.ACCESS_FINE_LOCATION"


def _type_and_allow(tools: Tools, params: dict) -> None:
    open_screen(tools, "Interruption Demo")
    tools.call("app_type", target="testid=keptDraft", text=params["kept"])
    tools.call("app_type", target="testid=lostDraft", text=params["lost"])
    tools.call("app_tap", target="testid=askPermission")
    tools.call("app_wait_for", target="text=While using the app", timeout_ms=5000)
    tools.call("app_tap", target="text=While using the app")
    tools.call("app_wait_for", target="testid=permissionStatus", condition="text", text="permission: granted")


def ref_t54(tools: Tools, params: dict) -> Claim:
    """After the prompt, read both drafts back: the second was rebuilt empty, so it is typed again and checked."""
    _type_and_allow(tools, params)
    kept, lost = text_of(tools, "keptDraft"), text_of(tools, "lostDraft")
    if lost != params["lost"]:
        tools.call("app_type", target="testid=lostDraft", text=params["lost"])
        lost = text_of(tools, "lostDraft")
    return Claim("done", None, f"kept draft: {kept}; lost draft: {lost} (typed again after the prompt emptied it)")


def wrong_t54(tools: Tools, params: dict) -> Claim:
    """Types both, answers the prompt and reports both drafts as typed, without reading them back."""
    _type_and_allow(tools, params)
    return Claim("done", None, f"both drafts hold their text: {params['kept']}, {params['lost']}")


@mobiumapp(id="t54", reference=ref_t54, wrong=wrong_t54, tier="hard", slug="interrupted-draft",
           params=lambda rng: {"kept": f"keep-{rng.randint(100, 999)}", "lost": f"note-{rng.randint(100, 999)}"},
           aims_at="a fact read before it changed: a system prompt rebuilds part of the screen, so text typed "
                   "before it is gone after it, and only reading back after the prompt shows it",
           prompt="In MobiumApp's Interruption Demo, type {kept} into the first field and {lost} into the second, "
                  "then ask for location and allow it only while the app is in use. When you are done, both fields "
                  "must still hold what you typed.",
           controls=Controls(reasons={"wrong": "reports both drafts as typed without reading them after the "
                                               "prompt, which emptied the second"}))
def test_t54_interrupted_draft(device, params) -> Outcome:
    kept, lost = line(device, "keptDraft"), line(device, "lostDraft")
    rebuilds, ok = line(device, "rebuildCount"), granted(device, FINE)
    return Outcome(kept == params["kept"] and lost == params["lost"] and rebuilds == "rebuilds: 1" and ok,
                   observed=f"kept draft {kept!r}; lost draft {lost!r}; {rebuilds}; "
                            f"location {'granted' if ok else 'not granted'}")
