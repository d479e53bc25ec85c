"""t58 survives-restart: store a seeded number of items, restart MobiumApp, and see them still stored (Storage
Demo, across a relaunch)."""

from __future__ import annotations

from hard import save_in_storage, stored_count
from mobiumapp import APP, mobiumapp, open_screen, text_of

from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools


def _store(tools: Tools, params: dict) -> str:
    return save_in_storage(tools, params["items"])


def ref_t58(tools: Tools, params: dict) -> Claim:
    """A restart is the process stopped and launched again: what was saved to the app's files is read back."""
    _store(tools, params)
    tools.call("app_terminate", app=APP)
    tools.call("app_launch", app=APP)
    open_screen(tools, "Storage Demo")
    return Claim("done", None, text_of(tools, "storedCount"))


def wrong_t58(tools: Tools, params: dict) -> Claim:
    """"Restarts" the app by clearing its data, which deletes what was just stored."""
    _store(tools, params)
    tools.call("app_clear_data", app=APP)
    tools.call("app_launch", app=APP)
    open_screen(tools, "Storage Demo")
    return Claim("done", None, f"stored: {params['items']} after the restart")


# The app's process before the agent starts, kept on the device for the outcome check: a restart is a new process.
PID_FILE = "/data/local/tmp/mobium-evals-t58.pid"


def pre_t58(device, params) -> None:
    device.shell(f"pidof {APP} > {PID_FILE}")


@mobiumapp(id="t58", reference=ref_t58, wrong=wrong_t58, tier="hard", slug="survives-restart", precondition=pre_t58,
           params=lambda rng: {"items": rng.randint(3, 6)},
           aims_at="a destructive action taken for a harmless one: a restart done by clearing the app's data "
                   "deletes what the task stored, and the app looks freshly restarted either way",
           prompt="In MobiumApp's Storage Demo, store {items} items with 'Save one more'. Then restart MobiumApp and "
                  "check that the Storage Demo still shows them.",
           controls=Controls(reasons={"wrong": "restarts by clearing the app's data, deleting what it stored"}))
def test_t58_survives_restart(device, params) -> Outcome:
    before, now = device.shell(f"cat {PID_FILE}; rm -f {PID_FILE}").strip(), device.shell(f"pidof {APP}").strip()
    restarted = bool(now) and now != before
    count = stored_count(device)
    return Outcome(count == f"stored: {params['items']}" and restarted,
                   observed=f"{count}; {'restarted' if restarted else 'not restarted'} (pid {before} then {now})")
