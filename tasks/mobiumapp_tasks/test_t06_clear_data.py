"""t06 clear-data: clear the app's data and report what is stored (Storage Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import APP, line, mobiumapp, open_from_home, open_screen, text_of


def ref_t06(tools: Tools, params: dict) -> Claim:
    """Clear MobiumApp's data, relaunch, open the Storage Demo and report what it reads."""
    tools.call("app_clear_data", app=APP)
    tools.call("app_launch", app=APP)
    open_screen(tools, "Storage Demo")
    count, present = text_of(tools, "storedCount"), text_of(tools, "storedFile")
    return Claim("done", f"{count}, {present}", "cleared the app's data with pm clear, then reopened the screen")


def wrong_t06(tools: Tools, params: dict) -> Claim:
    """Reads the Storage Demo without clearing anything and reports that."""
    open_screen(tools, "Storage Demo")
    count, present = text_of(tools, "storedCount"), text_of(tools, "storedFile")
    return Claim("done", f"{count}, {present}", "read the storage screen")


def near_t06_restart(tools: Tools, params: dict) -> Claim:
    """Restarts the app (force-stop and launch) in place of clearing its data, then reports what the screen reads."""
    tools.call("app_terminate", app=APP)
    tools.call("app_launch", app=APP)
    open_screen(tools, "Storage Demo")
    count, present = text_of(tools, "storedCount"), text_of(tools, "storedFile")
    return Claim("done", f"{count}, {present}", "restarted the app to clear it, then reopened the screen")


def pre_t06(device, params) -> None:
    """Store something first, so clearing is observable: Save one more, `saves` times, then back to the menu."""
    open_from_home(device, "storageBtn", "saveOneMoreBtn")
    for n in range(1, params["saves"] + 1):
        device.tap("saveOneMoreBtn")
        device.wait_for("storedCount", text=f"stored: {n}", timeout=10)
    device.stop(APP)
    device.launch(APP)
    device.wait_for("homeList", timeout=20)


#: What the Storage Demo shows once nothing is stored.
EMPTY_LINES = ("stored: 0", "file: absent")
ANSWER = answers.without_hedged_rivals(
    answers.nothing_stored("stored_nothing", "nothing is stored: stored: 0, file: absent",
                           empty_lines=EMPTY_LINES + ("stored 0",)),
    ("0",), units=("items", "entries", "saves"))
JUDGE = JudgeSpec(
    question="Clear the app's data, then report what the app's storage screen says is stored.",
    truth="Nothing is stored: stored: 0, file: absent.",
    answers=(
        LabelledAnswer("stored: 0, file: absent", True, "the screen's own lines"),
        LabelledAnswer("Nothing is stored any more: the count is 0 and the file is absent. Before clearing it was "
                       "stored: 3.", True, "the 3 describes the state before the clear"),
        LabelledAnswer("stored: 3, file: present", False, "the state before the clear"),
        LabelledAnswer("The screen still shows stored: 1.", False, "a competing count"),
        LabelledAnswer("stored: 0, file: absent, though it might still be 3.", False,
                       "a count other than 0 given as possible"),
    ))


@mobiumapp(id="t06", reference=ref_t06, wrong=wrong_t06,
           slug="clear-data", answer=ANSWER, judge=JUDGE, precondition=pre_t06,
           params=lambda rng: {"saves": rng.randint(1, 5)},
           irreversible=("clear MobiumApp's data",),
           prompt="Clear MobiumApp's app data, then open its Storage Demo and report what it says is stored.",
           controls=Controls(reasons={
               "null": "claims the data was cleared: a false success on an irreversible action, which is the "
                       "blocker this control exists to show",
               "wrong": "reads the Storage Demo without clearing and reports what is still stored"}),
           near_misses=(NearMiss("restart", script=near_t06_restart, verdict="false_success",
                                 why="a restart is taken for a clear: the stored file outlives a force-stop, so the "
                                     "data is still there and the screen says so"),),
           grader_history=((4, "the answer rule rejected a right answer that names a count only to deny it "
                               "(\"stored: 0, file: absent, not 3 items are stored\"); now a clause that denies a "
                               "count does not compete"),
                           (5, "a count hedged beside the empty one passed (\"stored: 0, file: absent, though it "
                               "might still be 3\"); now a figure other than 0 in a hedged clause competes")))
def test_t06_clear_data(device, params) -> Outcome:
    # Relaunch and read the Storage Demo, which reads its file only when it opens.
    device.stop(APP)
    device.launch(APP)
    device.wait_for("homeList", timeout=20)
    open_from_home(device, "storageBtn", "storedCount")
    count, present = line(device, "storedCount"), line(device, "storedFile")
    return Outcome(count == "stored: 0" and present == "file: absent", observed=f"{count}, {present}")
