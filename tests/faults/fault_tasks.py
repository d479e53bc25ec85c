"""Source of a tiny task file for the fault tests, run on the virtual device through the built-in tool server:
f01 opens MobiumApp's Login Demo (a reference that passes, a wrong control that only looks), and f02's reference
is broken on purpose (it taps a button that does not exist), as a control wrong about its task would be."""

TASKS = r'''
from pytest_mobium_evals.core.tasks import Claim, Controls, Outcome, task


def ref_f01(tools, params):
    tools.call("app_tap", target="label=Login Demo")
    tools.call("app_wait_for", target="testid=username", timeout_ms=5000)
    return Claim("done", None, "the login form is open")


def wrong_f01(tools, params):
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
