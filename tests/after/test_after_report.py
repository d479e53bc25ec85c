"""report, runs and the run-folder checks every after-run command shares."""

from __future__ import annotations

import json
import shutil

import pytest
from PIL import Image
from runbuilder import verdict_json, write_run

from pytest_mobium_evals.commands.cli import main


def test_report_gives_rate_interval_counts_and_per_task_table(make_run, capsys):
    run = make_run("r1", {"t01": ["pass", "pass", "pass"], "t02": ["pass", "false_success", "pass"],
                          "t03": ["honest_failure", "honest_failure", "honest_failure"]})
    assert main(["report", str(run)]) == 0
    text = (run / "report.md").read_text()
    # 5 of 9 trials passed; per-task scores 1, 2/3, 0
    assert "| claude-haiku-5-5, low effort | 56% (5/9) |" in text
    assert "| t02 | P FS P |" in text
    assert "| t03 | HF HF HF |" in text
    assert "| 9 | 9 | 0 | 1 |" in text  # scheduled, graded, infra errors, false success
    # three repeats: pass^3, the chance all three repeats of a task pass (1, 0 and 0 here), beside the rate
    assert "| 56% (5/9) | 0–100% | pass^3 33% [0–100%] |" in text
    assert "9,000 | 1,800 | $0.09" in text  # tokens in, tokens out, cost
    assert "transcript.jsonl](trials/t02-agent-claude-haiku-5-5-r2/transcript.jsonl)" in text
    chart = Image.open(run / "pass-rate.png")
    assert chart.format == "PNG" and chart.width > 400
    # the chart is not blank: the bar's colour is on it
    assert (0x7A, 0xA6, 0xD6) in {c for _, c in chart.getcolors(1 << 16)}


def test_interval_is_over_tasks_not_trials(make_run):
    # Two tasks, one always passing and one never, three repeats each. Over six trials the interval would be
    # narrow around 50%; resampling two tasks gives means of 0, 0.5 or 1, so the interval spans 0–100%.
    run = make_run("r", {"t01": ["pass"] * 3, "t02": ["honest_failure"] * 3})
    assert main(["report", str(run)]) == 0
    assert "| 50% (3/6) | 0–100% |" in (run / "report.md").read_text()


def test_infra_errors_stay_in_the_denominator_and_blockers_are_listed_one_by_one(tmp_path):
    vs = [verdict_json("t01", "pass", repeat=1), verdict_json("t01", "infra_error", repeat=2,
                                                               infra_error="tool server died\n--- server stderr ---\n"
                                                                           "Traceback\nImportError: no"),
          verdict_json("t05", "false_success", repeat=1, severity="blocker",
                       blockers=["false success on an irreversible action"]),
          verdict_json("t05", "pass", repeat=2, severity="blocker", blockers=["password in a tool response"])]
    run = write_run(tmp_path, "r", vs)
    assert main(["report", str(run)]) == 0
    text = (run / "report.md").read_text()
    assert "| 50% (2/4) |" in text
    assert "| 4 | 3 | 1 |" in text
    assert "**t05** r1, claude-haiku-5-5, low effort: false_success — false success on an irreversible action" in text
    assert "**t05** r2, claude-haiku-5-5, low effort: pass — password in a tool response" in text
    assert "device not read" not in text
    assert "; infra: tool server died … ImportError: no (" in text


def test_controls_run_shows_declared_vs_got(tmp_path):
    vs = []
    for task in ("t01", "t04"):
        vs.append(verdict_json(task, "pass", driver="reference"))
        vs.append(verdict_json(task, "false_success", driver="wrong"))
    vs.append(verdict_json("t01", "false_success", driver="null"))
    # t04's target is already in the asked-for state: doing nothing is right, so its null declares pass
    vs.append(verdict_json("t04", "honest_failure", driver="null", expected="pass"))
    run = write_run(tmp_path, "controls", vs)
    assert main(["report", str(run)]) == 0
    text = (run / "report.md").read_text()
    assert "## Controls: declared vs got" in text
    assert "| t04 | r1 | pass ✓ | **honest_failure** ✗ (declared pass) | false_success ✓ |" in text
    assert "1 control trial(s) did not grade as declared" in text
    assert "| null (control) | 50% (1/2) |" in text


@pytest.mark.parametrize("breakage, message", [
    (lambda run: (run / "record.json").unlink(), "not a run folder: it has no record.json"),
    (lambda run: (run / "record.json").write_text("{not json"), "run record is not valid JSON (line 1"),
    (lambda run: (run / "record.json").write_text("[1]"), "the run record is not a JSON object"),
    (lambda run: (run / "trials/t02-agent-claude-haiku-5-5-r1/verdict.json").unlink(),
     "1 trial folder(s) have no verdict.json: t02-agent-claude-haiku-5-5-r1"),
    (lambda run: shutil.rmtree(run / "trials/t02-agent-claude-haiku-5-5-r1"),
     "1 scheduled trial(s) have no verdict.json: t02-agent-claude-haiku-5-5-r1"),
    (lambda run: (run / "trials/t01-agent-claude-haiku-5-5-r1/verdict.json").write_text('{"task": "t01"}'),
     "verdict.json: lacks suite, driver"),
    (lambda run: _edit_record(run, seed=None, mobium=None), "record.json lacks seed, mobium"),
    (lambda run: _edit_record(run, finished=False), "record.json says the run did not finish"),
])
def test_incomplete_or_malformed_run_is_not_reported_and_says_what_is_missing(make_run, capsys, breakage, message):
    run = make_run("r1", {"t01": ["pass"], "t02": ["pass"]})
    breakage(run)
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (run / "report.md").exists()


def test_without_a_schedule_the_record_s_tasks_drivers_and_repeats_say_what_was_scheduled(tmp_path, capsys):
    vs = [verdict_json(t, "pass", driver=d, repeat=r) for t in ("t01", "t02") for d in ("reference", "null")
          for r in (0, 1)]
    run = write_run(tmp_path, "r", vs[:-1], scheduled=..., repeats=2)  # the plugin numbers repeats from 0
    assert main(["report", str(run)]) == 2
    assert "1 scheduled trial(s) have no verdict.json: t02-null-none-r1" in capsys.readouterr().err


def _edit_record(run, **changes):
    rec = json.loads((run / "record.json").read_text())
    rec.update(changes)
    (run / "record.json").write_text(json.dumps(rec))


def test_missing_run_folder(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "no such run folder" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["report", str(tmp_path / "file")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_runs_lists_complete_and_incomplete_runs(make_run, tmp_path, capsys):
    make_run("20261128-a", {"t01": ["pass", "pass"], "t02": ["pass", "false_success"]}, started="2026-11-28T09:00")
    broken = make_run("20261129-b", {"t01": ["pass"]}, started="2026-11-29T09:00")
    shutil.rmtree(broken / "trials/t01-agent-claude-haiku-5-5-r1")
    (tmp_path / "not-a-run").mkdir()
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "record.json").write_text("{")
    assert main(["runs", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert "bad/record.json: run record is not valid JSON" in lines[2]
    assert lines[0] == "20261129-b  2026-11-29T09:00  seed 7  1 task  INCOMPLETE: 1 of 1 scheduled trials without " \
                       "verdict.json"
    assert lines[1].startswith("20261128-a  2026-11-28T09:00  seed 7  2 tasks  driver agent  model claude-haiku-5-5")
    assert "pass claude-haiku-5-5:low 75%  blockers 0" in lines[1]


def test_runs_on_a_missing_folder(tmp_path, capsys):
    assert main(["runs", str(tmp_path / "runs")]) == 2
    assert "no such folder" in capsys.readouterr().err


SUITE = '''
from pytest_mobium_evals import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, Outcome, task

FEED_ROWS = answers.count_of("feed_rows", 60, unit="rows")
READONLY_REASON = answers.refusal_reason("readonly_reason", "read-only", mentions=r"read[- ]?only|not editable",
                                         competing=r"not found|covered")

def _script(tools, params):
    return Claim("done")

@task(id="t08", slug="feed", prompt="Count the rows.", reference=_script, wrong=_script, answer=FEED_ROWS)
def test_t08_feed(device, params):
    return Outcome(True)

@task(id="t19", slug="readonly", prompt="Type into the field.", reference=_script, wrong=_script, refusal=True,
      refusal_reason=READONLY_REASON)
def test_t19_readonly(device, params):
    return Outcome(True)
'''


def test_regrade_applies_the_current_answer_rules_and_says_what_changed(tmp_path, capsys):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_suite.py").write_text(SUITE)
    (suite / "test_broken.py").write_text("import no_such_module\n")
    right = "The feed has 60 rows in total. Row 61 does not exist."
    vs = [  # graded by older rules that failed a right count, and passed a wrong one
        verdict_json("t08", "false_success", answer=right, answer_ok=False, repeat=1),
        verdict_json("t08", "pass", answer="59 rows", answer_ok=True, repeat=2),
        verdict_json("t08", "pass", answer="60", answer_ok=True, repeat=3),
        verdict_json("t19", "wrong_reason", status="cannot", repeat=1),
        verdict_json("t19", "wrong_reason", status="cannot", repeat=2),
        verdict_json("t19", "wrong_reason", status="cannot", repeat=3),
    ]
    vs[0]["outcome_reached"] = True  # the device showed all 60 rows; only the rule was wrong
    for v in vs[3:]:  # refused and left the field alone, with reasons the older rules all failed
        v.update(outcome_reached=True, reason_ok=False)
    del vs[5]["outcome_acted"]  # a record from before outcome_acted was kept is still regraded
    vs[3]["claim"]["reason"] = "The field is read-only."
    vs[4]["claim"]["reason"] = "The field is covered."
    vs[5]["claim"]["reason"] = None
    vs[5]["claim"]["answer"] = "It is not editable."  # a reason given as the answer counts as the reason
    run = write_run(tmp_path, "r", vs)
    before = (run / "trials/t08-agent-claude-haiku-5-5-r1/verdict.json").read_text()
    assert main(["report", str(run), "--regrade", "--tasks-path", str(suite)]) == 0
    assert "test_broken.py: skipped, it does not import: ModuleNotFoundError" in capsys.readouterr().err
    regrade = (run / "regrade.md").read_text()
    assert "4 judgement(s) changed, 4 verdict(s) changed" in regrade
    assert "| t19-agent-claude-haiku-5-5-r3 | 'It is not editable.' | False → True | wrong_reason → pass |" \
        in regrade
    assert f"| t08-agent-claude-haiku-5-5-r1 | {right!r} | False → True | false_success → pass |" in regrade
    assert "| t08-agent-claude-haiku-5-5-r2 | '59 rows' | True → False | pass → false_success |" in regrade
    assert "| t19-agent-claude-haiku-5-5-r1 | 'The field is read-only.' | False → True | wrong_reason → pass |" \
        in regrade
    report = (run / "report.md").read_text()
    assert "Regraded with the current rules: 4 verdict(s) changed" in report
    assert "| t08 | P FS P |" in report
    # the stored verdicts are the record of what the run graded; they stay as they were
    assert (run / "trials/t08-agent-claude-haiku-5-5-r1/verdict.json").read_text() == before


def test_regrade_without_the_run_s_tasks_says_so(make_run, tmp_path, capsys):
    run = make_run("r", {"t01": ["pass"]})
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", str(run), "--regrade", "--tasks-path", str(empty)]) == 2
    assert "none of the run's tasks is in the task suites loaded" in capsys.readouterr().err


def test_the_installed_command_reports_a_bad_folder_in_one_line(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "mobium-evals"  # the console script pip installed beside python
    proc = subprocess.run([str(script), "report", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == f"mobium-evals report: {tmp_path}: not a run folder: it has no record.json\n"


def test_report_elsewhere_links_back_to_the_run_s_transcripts(make_run, tmp_path):
    run = make_run("r1", {"t01": ["honest_failure"]})
    assert main(["report", str(run), "--out", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "report.md").read_text()
    assert "[transcript.jsonl](../r1/trials/t01-agent-claude-haiku-5-5-r1/transcript.jsonl)" in text
    assert (tmp_path / "out" / "pass-rate.png").exists() and not (run / "report.md").exists()


def test_a_control_s_declared_false_success_on_an_irreversible_action_is_not_gating(tmp_path):
    irreversible = ["false success on an irreversible action: clear MobiumApp's data"]
    vs = [verdict_json("t06", "pass", driver="reference"),
          verdict_json("t06", "false_success", driver="null", severity="blocker", blockers=irreversible),
          verdict_json("t06", "false_success", driver="wrong", severity="blocker",
                       blockers=irreversible + ["password in a tool response: app_map (event 3)"])]
    run = write_run(tmp_path, "controls", vs)
    assert main(["report", str(run)]) == 0
    text = (run / "report.md").read_text()
    blockers = text.split("## Blockers")[1].split("## Controls")[0]
    assert "- **t06** r1, wrong (control): false_success — password in a tool response: app_map (event 3)" \
        in blockers
    assert "Not gating" in blockers and "- t06 r1, null (control): false_success — false success on an " \
                                        "irreversible action: clear MobiumApp's data" in blockers
    assert "| null (control) | 100% (1/1) | 100–100% | – | 1 | 1 | 0 | 1 | 0 |" in text


def test_the_facts_name_every_device_the_times_and_both_commits(make_run):
    from pytest_mobium_evals.report.facts import run_facts
    from pytest_mobium_evals.runfolder.reading import load_run

    virtual = {"kind": "virtual", "serial": "emulator-5554", "release": "15", "sdk": "35"}
    devices = [{**virtual, "adb": f"127.0.0.1:{port}"} for port in (5037, 5038, 5039)] + [
        {"kind": "emulator", "serial": "emulator-5556", "release": "14", "sdk": "34", "adb": "127.0.0.1:5040"}]
    run = make_run("r1", {"t01": ["pass"]}, ended="2026-11-29T10:05:00Z", devices=devices,
                   plugin_commit="c" * 40, plugin_dirty=False, mobium={"commit": None, "dirty": None, "binary": "m"})
    facts = dict(run_facts(load_run(run)))
    assert facts["Devices"] == (
        "3 × virtual device (pytest-mobium-evals), emulator-5554, Android 15 (API 35), at 127.0.0.1:5037 and "
        "127.0.0.1:5038 and 127.0.0.1:5039; 1 × Android emulator, emulator-5556, Android 14 (API 34), at "
        "127.0.0.1:5040")
    assert facts["Started"] == "2026-11-29T10:00:00Z" and facts["Ended"] == "2026-11-29T10:05:00Z"
    assert facts["Plugin"] == "pytest-mobium-evals 0.1.0, commit cccccccccccc" or \
        facts["Plugin"].endswith(", commit cccccccccccc")
    # no Mobium commit (a binary outside a git checkout): whether it was dirty is unknown, not "clean"
    assert facts["Mobium"] == "Mobium commit unknown (not a git checkout) (m)"
    # report.md says the same facts in the same words
    assert main(["report", str(run)]) == 0
    text = (run / "report.md").read_text()
    assert "- Devices: 3 × virtual device" in text and "- Ended: 2026-11-29T10:05:00Z" in text
    assert "- Plugin: " in text and "commit cccccccccccc" in text


def test_an_older_record_without_commit_or_end_says_unknown(make_run):
    from pytest_mobium_evals.report.facts import run_facts
    from pytest_mobium_evals.runfolder.reading import load_run

    facts = dict(run_facts(load_run(make_run("r1", {"t01": ["pass"]}))))
    assert facts["Device"] == "emulator-5554, Android 15 (API 35)"
    assert facts["Ended"] == "not finished (no end recorded)"
    assert facts["Plugin"].endswith("commit unknown (not a git checkout)")
    assert dict(run_facts(load_run(make_run("r2", {"t01": ["pass"]}, mobium={"commit": "a" * 40,
                                                                             "dirty": None}))))["Mobium"] \
        == "Mobium commit aaaaaaaaaaaa (dirty: unknown)"
