"""The reports count agent trials by why they stopped (trial_record.StopReason), per setting; a record written
before the field counts as "not recorded"."""

from __future__ import annotations

from runbuilder import verdict_json, write_run

from pytest_mobium_evals.commands.cli import main


def _with(stop: str | None, task: str, repeat: int, verdict: str = "pass", **extra) -> dict:
    v = verdict_json(task, verdict, repeat=repeat, **extra)
    if stop is not None:
        v["stop_reason"] = stop
    return v


def test_report_md_counts_agent_trials_by_stop_reason(tmp_path):
    verdicts = [_with("final_answer", "t01", 1), _with("final_answer", "t01", 2),
                _with("time_limit", "t02", 1, "unreported", status=None),
                _with("text_tool_call", "t02", 2, "honest_failure", status="cannot"),
                _with(None, "t03", 1),
                _with("script", "t01", 1, driver="reference")]
    verdicts[3]["nudged"] = True
    run = write_run(tmp_path, "r1", verdicts)
    assert main(["report", str(run)]) == 0
    text = (run / "report.md").read_text()
    section = text[text.index("## Why agent trials stopped"):]
    assert "| Setting | final_answer | text_tool_call | time_limit | not recorded |" in section
    assert "| claude-haiku-5-5, low effort | 2 | 1 | 1 | 1 |" in section
    assert "script" not in section.split("\n\n")[1]  # the controls are not the agent's rows
    assert "1 trial(s) were told once" in section


SAID = "I cannot complete the task: the login did not go through."


def test_claims_that_disagree_are_shown_with_both_and_the_verdict_they_gave(tmp_path):
    """report.md lists a trial whose text stated one claim and whose final answer the other, with both."""
    said = _with("final_answer", "t01", 1, "false_success")
    said.update(stop_text=SAID, stated_status="cannot")
    agreeing = _with("final_answer", "t01", 2, "pass")
    agreeing.update(stop_text="The task is done.", stated_status="done")
    run = write_run(tmp_path, "r1", [said, agreeing])
    assert main(["report", str(run)]) == 0
    text = (run / "report.md").read_text()
    section = text[text.index("## Claims that disagree"):].split("\n## ")[0]
    assert f"t01 r1, claude-haiku-5-5, low effort: its text stated cannot (“{SAID}”), its final answer done; " \
           "graded false_success, on the claim the device contradicts" in section
    assert "t01 r2" not in section


def test_the_html_trial_shows_the_text_beside_the_final_answer():
    from pytest_mobium_evals.core.trial_record import TrialRecord
    from pytest_mobium_evals.report.html_trial import trial_html

    record = TrialRecord.parse(dict(_with("final_answer", "t01", 1, "false_success"), stop_text=SAID,
                                    stated_status="cannot"))
    html = trial_html(record, [])
    assert "<p class=mv-bad><b>Wrote before its final answer</b> I cannot complete the task" in html
    assert "(it states cannot); its final answer said done: the claims disagree" in html
    texted = TrialRecord.parse(dict(_with("text_tool_call", "t01", 1, "honest_failure", status="cannot"),
                                    stop_text='{"name": "app_devices"}'))
    assert "<b>Wrote a tool call as text, not made</b>" in trial_html(texted, [])
