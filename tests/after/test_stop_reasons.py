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
