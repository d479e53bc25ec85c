"""Eight sign-in tasks for the hillclimb with the real Claude CLI in the loop (tests/agents/cli_agent.py plays the
model): two dev, six held out (the fewest with which the exact test can call anything clear). Each is MobiumApp's
sign-in with the demo account; they differ only in name, as eight draws of the one skill. With MOBIUM_CLI_SUITE=dev-only
(the probe's dev-only arm) the held-out six are another kind: their prompt says to begin from a fresh start, and the
scripted agent then needs a fact in app_map's description rather than an error's remedy, so a fix tuned on the dev
tasks' errors cannot help them."""

from __future__ import annotations

import os

from pytest_mobium_evals.core.tasks import Claim, Outcome, task
from pytest_mobium_evals.reach.toolserver import Tools

APP = "dev.mobium.mobiumapp"
PROMPT = ("In MobiumApp, open the Login Demo and sign in with the demo account: username {username}, password "
          "{password}, and leave the signed-in screen showing.")
FRESH = PROMPT.replace("In MobiumApp, ", "In MobiumApp, from a fresh start, ")
DEV_ONLY = os.environ.get("MOBIUM_CLI_SUITE") == "dev-only"


def ref(tools: Tools, params: dict) -> Claim:
    tools.call("app_scroll_to", target="label=Login Demo", direction="down")
    tools.call("app_tap", target="label=Login Demo")
    tools.call("app_fill", target="testid=username", text=params["username"])
    tools.call("app_fill", target="testid=password", text=params["password"])
    tools.call("app_tap", target="testid=loginBtn")
    tools.call("app_wait_for", target="testid=welcomeText", timeout_ms=5000)
    return Claim("done")


def wrong(tools: Tools, params: dict) -> Claim:
    tools.call("app_scroll_to", target="label=Login Demo", direction="down")
    tools.call("app_tap", target="label=Login Demo")
    return Claim("done")


def _signed_in(device) -> Outcome:
    got = device.text("welcomeText", scroll=False) or ""
    return Outcome(got == "Welcome, mobium!", observed=got)


def _declare(number: int, split: str):
    prompt = FRESH if DEV_ONLY and split == "held_out" else PROMPT

    @task(id=f"c{number:02d}", slug=f"sign-in-{number}", prompt=prompt, reference=ref, wrong=wrong, app=APP,
          ready_testid="homeList", params=lambda rng: {"username": "mobium", "password": "hunter2"},
          evidence="screen", evidence_reason="the welcome line is only on the signed-in screen",
          split=(split, "the CLI hillclimb's fixed split: two dev, six held out"))
    def check(device, params) -> Outcome:
        return _signed_in(device)

    check.__name__ = f"test_c{number:02d}_sign_in"
    return check


for _n in range(1, 9):
    globals()[f"test_c{_n:02d}_sign_in"] = _declare(_n, "dev" if _n <= 2 else "held_out")
