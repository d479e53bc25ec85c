"""The controls derived from a task's reference (reference+wait, +home, +menu, +answers) and the near misses a
task declares, on the virtual device: each grades as declared when the grader is right, and catches the grader when
it is not (an outcome read from whatever screen the agent ended on fails reference+menu)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parents[2] / "tasks" / "mobiumapp_tasks"

pytest_plugins = ["pytester"]

TASK = '''
"""t91 plan-team: choose the Team plan (Form Demo)."""
from .suite import line, mobiumapp, open_screen

from pytest_mobium_evals import answers
from pytest_mobium_evals.core.tasks import Claim, LabelledAnswer, NearMiss, Outcome


def ref_t91(tools, params):
    open_screen(tools, "Form Demo")
    tools.call("app_check", target="testid=planTeam", checked=True)
    return Claim("done", "plan=team", "chose Team")


def wrong_t91(tools, params):
    open_screen(tools, "Form Demo")
    tools.call("app_check", target="testid=planPro", checked=True)
    return Claim("done", "plan=team", "chose Team")


def near_free(tools, params):
    open_screen(tools, "Form Demo")
    return Claim("done", "plan=team", "the plan was already chosen")


RULE = answers.app_message("plan", "plan=team", competing=("plan=pro", "plan=free"))


@mobiumapp(id="t91", slug="plan-team", reference=ref_t91, wrong=wrong_t91, answer=RULE,
           prompt="In MobiumApp's Form Demo, choose the Team plan and report the form's state line. LEAVE",
           near_misses=(NearMiss("left-at-free", near_free, "false_success",
                                 "opens the form and claims without choosing: the default plan is Free"),),
           EVIDENCE)
def test_t91_plan_team(device, params):
    got = line(device, "formState")
    return Outcome("plan=team" in got, observed=got)
'''

SCREEN = ('evidence="screen", evidence_reason="the Form Demo forgets its state each time it is left"',
          "Leave the Form Demo showing.")
DEVICE = ('evidence="device"', "")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(SUITE, pytester.path / "mobiumapp_tasks")
    return pytester


def write(suite: pytest.Pytester, evidence: tuple[str, str], source: str = TASK) -> None:
    declared, sentence = evidence
    text = source.replace("EVIDENCE", declared).replace(" LEAVE", f" {sentence}" if sentence else "")
    (suite.path / "mobiumapp_tasks" / "test_t91_plan_team.py").write_text(text)


def run(suite: pytest.Pytester, *args: str):
    return suite.runpytest_subprocess("mobiumapp_tasks", "-k", "t91", "--driver=controls", "--clock-speed=5", "-n", "0",
                                      "--run-dir", "run", "-p", "no:cacheprovider", *args)


def test_every_derived_control_and_the_near_miss_grade_as_declared(suite):
    write(suite, SCREEN)
    result = run(suite, "-v")
    # reference, null, wrong, +wait, +home, +answers and the near miss; +menu does not apply (screen evidence)
    result.assert_outcomes(passed=7)
    out = result.stdout.str()
    for control in ("reference+wait-r0", "reference+home-r0", "reference+answers-r0", "near-miss-left-at-free-r0"):
        assert f"[{control}] " in out, control
    assert "reference+menu" not in out


def test_an_outcome_read_from_the_screen_the_agent_ended_on_fails_reference_menu(suite):
    write(suite, DEVICE)
    result = run(suite)
    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines(["*t91*reference+menu got false_success*expected pass*"])


def test_screen_evidence_with_a_prompt_that_does_not_say_leave_it_showing_fails_its_file(suite, run_broken):
    write(suite, (SCREEN[0], ""))
    result = run_broken(suite)
    result.stdout.fnmatch_lines(["*mobiumapp_tasks/test_t91_plan_team.py: task t91: evidence='screen' but the prompt "
                                 "does not tell the agent to leave that screen showing*"])


@pytest.mark.parametrize("mistake, old, new, message", [
    ("an example its rule misgrades", "competing=(\"plan=pro\", \"plan=free\"))",
     "competing=(\"plan=pro\",)).with_examples(LabelledAnswer(\"plan=team\", False, \"said wrong on purpose\"))",
     "task t91: its answer rule calls the labelled answer 'plan=team' right (said wrong on purpose)"),
    ("a near miss without a verdict", '"false_success",', '"failed",',
     "task t91: near miss 'left-at-free': its verdict 'failed' is not a verdict"),
])
def test_a_declaration_mistake_in_the_new_fields_fails_its_file_in_one_line(suite, run_broken, mistake, old, new,
                                                                             message):
    write(suite, SCREEN, TASK.replace(old, new, 1))
    result = run_broken(suite)
    result.stdout.fnmatch_lines([f"*mobiumapp_tasks/test_t91_plan_team.py: {message}*"])
