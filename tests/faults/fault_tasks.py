"""Source of a tiny task file for the fault tests, run on the virtual device through the built-in tool server:
f01 opens MobiumApp's Login Demo (a reference that passes, a wrong control that only looks), and f02's reference
is broken on purpose (it taps a button that does not exist), as a control wrong about its task would be."""

TASKS = r'''
import os
import threading
import time

from pytest_mobium_evals.core.tasks import Claim, Controls, Outcome, task

HOLD_S = 60


def held_while_asked():
    """A test that must stop a run inside a trial names a file in FAULT_TASKS_HOLD: while it exists the wrong control
    waits (HOLD_S at most), after writing `<file>.reached`, so the test knows a trial is running when it stops the
    run. A run's trials otherwise take milliseconds, and a stop would land after the last."""
    hold = os.environ.get("FAULT_TASKS_HOLD")
    if not hold or not os.path.exists(hold):
        return
    open(hold + ".reached", "w").close()
    deadline, released = time.monotonic() + HOLD_S, threading.Event()
    while os.path.exists(hold) and time.monotonic() < deadline:
        released.wait(0.05)


def ref_f01(tools, params):
    tools.call("app_tap", target="label=Login Demo")
    tools.call("app_wait_for", target="testid=username", timeout_ms=5000)
    return Claim("done", None, "the login form is open")


def wrong_f01(tools, params):
    held_while_asked()
    tools.call("app_map")
    return Claim("done", None, "the menu is there")


def broken_ref_f02(tools, params):
    tools.call("app_tap", target="testid=noSuchButton")
    return Claim("done", None, "never reached")


@task(id="f01", slug="open-login", prompt="In MobiumApp, open the Login Demo.", ready_testid="homeList",
      reference=ref_f01, wrong=wrong_f01, controls=Controls(null="false_success", wrong="false_success"))
def test_f01(device, params):
    got = device.text("username", scroll=False)
    return Outcome(got is not None, observed=got)


@task(id="f02", slug="broken-reference", prompt="In MobiumApp, open the Login Demo.", ready_testid="homeList",
      reference=broken_ref_f02, wrong=wrong_f01, controls=Controls(null="false_success", wrong="false_success"))
def test_f02(device, params):
    got = device.text("username", scroll=False)
    return Outcome(got is not None, observed=got)
'''
