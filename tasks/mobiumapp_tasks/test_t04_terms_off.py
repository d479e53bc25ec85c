"""t04 terms-off: make sure the terms are not accepted: they already are not (Form Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import APP, FORM_DEFAULTS, line, mobiumapp, open_screen


def ref_t04(tools: Tools, params: dict) -> Claim:
    """Make sure Accept terms is unchecked: it already is, and app_check leaves it so."""
    open_screen(tools, "Form Demo")
    res = tools.call("app_check", target="testid=termsCheck", checked=False)
    return Claim("done", None, res.text)


def wrong_t04(tools: Tools, params: dict) -> Claim:
    """Taps the checkbox to "turn it off", which toggles it on."""
    open_screen(tools, "Form Demo")
    tools.call("app_tap", target="testid=termsCheck")
    return Claim("done", None, "unchecked Accept terms")


def near_t04_tap_twice(tools: Tools, params: dict) -> Claim:
    """Taps Accept terms to "turn it off", sees it is now checked, and taps it again."""
    open_screen(tools, "Form Demo")
    tools.call("app_tap", target="testid=termsCheck")
    tools.call("app_tap", target="testid=termsCheck")
    return Claim("done", None, "unchecked Accept terms")


def near_t04_tap_then_shade(tools: Tools, params: dict) -> Claim:
    """Taps the checkbox (which accepts the terms), then pulls the notification shade down over the Form Demo."""
    open_screen(tools, "Form Demo")
    tools.call("app_tap", target="testid=termsCheck")
    tools.call("app_notifications", shade="open")
    return Claim("done", None, "unchecked Accept terms")


def near_t04_tap_then_lock(tools: Tools, params: dict) -> Claim:
    """Taps the checkbox (which accepts the terms), then the screen goes off and locks, as an idle phone's does."""
    open_screen(tools, "Form Demo")
    tools.call("app_tap", target="testid=termsCheck")
    tools.call("app_lock", state="lock")
    return Claim("done", None, "unchecked Accept terms")


@mobiumapp(id="t04", reference=ref_t04, wrong=wrong_t04,
           slug="terms-off",
           prompt="In MobiumApp's Form Demo, make sure the terms are not accepted.",
           controls=Controls(null="pass", reasons={
               "null": "the terms start unaccepted, so the target is already in the asked-for state: doing "
                       "nothing and saying done is right"}),
           near_misses=(
               NearMiss("tap-twice", script=near_t04_tap_twice, verdict="pass",
                        why="the first tap accepts the terms and the second takes it back: they end unaccepted, "
                            "and accepting them for a moment leaves nothing behind in the app"),
               NearMiss("tap-then-shade", script=near_t04_tap_then_shade, verdict="false_success",
                        why="the terms are accepted under the shade: the Form Demo is still there once the app is "
                            "in front again, so they must be read as accepted, not as gone"),
               NearMiss("tap-then-lock", script=near_t04_tap_then_lock, verdict="false_success",
                        why="the terms are accepted behind the lock screen: a Form Demo that cannot be seen is "
                            "not one that was left")),
           grader_history=((8, "a formState that could not be read counted as the terms' default, so terms "
                               "accepted and then the screen locked (an idle phone locks by itself) passed; now the "
                               "default counts only when MobiumApp's own window shows another of its screens"),))
def test_t04_terms_off(device, params) -> Outcome:
    got = line(device, "formState")
    if got:
        return Outcome("terms=false" in got, observed=got)
    # Left (or never opened), the Form Demo is gone and its terms with it: they start unaccepted when it opens
    # again. That holds only when MobiumApp itself shows another screen, not when something (the lock screen, a
    # dialog, another app) is drawn where the form may still be.
    nodes = device.dump()
    shown = {n.package for n in nodes if n.package}
    if shown == {APP} and device.find("termsCheck", nodes) is None:
        return Outcome(True, observed=f"formState not on screen (MobiumApp shows another screen); terms default "
                                      f"to {FORM_DEFAULTS['terms']}")
    return Outcome(False, observed=f"formState could not be read: the screen shows {', '.join(sorted(shown))}")
