"""The Markdown summary where CI shows it (--md-summary, $GITHUB_STEP_SUMMARY): rendered from report.md's view, with
the rates, the blockers, the controls' line and the before/after table, always under GitHub's 1 MiB."""

from __future__ import annotations

from types import SimpleNamespace

from runbuilder import verdict_json, write_run

from pytest_mobium_evals.plugin import step_summary
from pytest_mobium_evals.report.markdown import render_step_summary
from pytest_mobium_evals.report.view import summarize_run
from pytest_mobium_evals.runfolder.reading import load_run


def controls_run(tmp_path, name="controls", null_t08="false_success"):
    verdicts = [verdict_json(t, "pass", driver="reference") for t in ("t02", "t08", "t22")]
    verdicts += [verdict_json("t02", "false_success", driver="null"), verdict_json("t08", null_t08, driver="null"),
                 verdict_json("t22", "false_success", driver="null")]
    return write_run(tmp_path, name, verdicts)


def config(summary=None, baseline=None):
    return SimpleNamespace(option=SimpleNamespace(mobium_md_summary=summary, mobium_baseline=baseline))


def summary_of(folder) -> str:
    run_ = load_run(folder)
    return render_step_summary(run_, summarize_run(run_))


def test_a_controls_run_gives_its_rates_and_the_controls_line(tmp_path):
    text = summary_of(controls_run(tmp_path))
    assert "| reference (control) | 100% (3/3) | 100–100% |" in text
    assert "| null (control) | 100% (3/3) |" in text and "### Settings" in text
    assert "Every control graded as declared: 6 of 6 control trials." in text
    assert "### Blockers" in text and "None." in text


def test_a_control_not_graded_as_declared_is_named(tmp_path):
    text = summary_of(controls_run(tmp_path, null_t08="pass"))
    assert "**1 of 6 control trial(s) did not grade as declared**" in text
    assert "- t08 r1, null (control): got **pass**, declared false_success" in text


def test_blockers_past_the_limit_are_cut_with_a_count_and_it_stays_under_it(tmp_path):
    long = "a password in a tool response: " + "x" * 400
    verdicts = [verdict_json(f"t{i:03d}", "false_success", severity="blocker", blockers=[long]) for i in range(400)]
    run_ = load_run(write_run(tmp_path, "blockers", verdicts))
    text = render_step_summary(run_, summarize_run(run_), limit=60_000)
    assert len(text.encode("utf-8")) <= 60_000
    assert "**t000** r1" in text
    assert "more (report.md lists them all)" in text
    whole = render_step_summary(run_, summarize_run(run_))
    assert "**t000** r1" in whole and len(whole.encode("utf-8")) <= 1024 * 1024


def test_github_s_summary_file_is_appended_to_and_md_summary_is_written(tmp_path, monkeypatch):
    folder = controls_run(tmp_path)
    github = tmp_path / "step_summary.md"
    github.write_text("an earlier step's summary\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(github))
    step_summary.pytest_mobium_run_finished(config(), folder, "completed")
    text = github.read_text()
    assert text.startswith("an earlier step's summary\n## mobium-evals: run controls")
    chosen = tmp_path / "chosen.md"
    chosen.write_text("old\n")
    step_summary.pytest_mobium_run_finished(config(summary=str(chosen)), folder, "completed")
    assert chosen.read_text().startswith("## mobium-evals: run controls")
    assert github.read_text() == text  # --md-summary chooses the file: GitHub's is left alone


def test_without_either_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert step_summary.destination(config()) == (None, False)


def test_with_a_baseline_the_before_after_table(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    old = controls_run(tmp_path, "old", null_t08="pass")
    new = controls_run(tmp_path, "new")
    out = tmp_path / "summary.md"
    step_summary.pytest_mobium_run_finished(config(summary=str(out), baseline=str(old)), new, "completed")
    text = out.read_text()
    assert "### Against the baseline" in text
    # t02 and t08 are dev tasks, t22 held out: apart, each read by the exact test, which cannot call two tasks or one
    assert ("| null (control) (dev tasks) | 2 | 50% [0–100%] | 100% [100–100%] | +50 points [+0 to +100] | 1 "
            "| cannot be clear with 2 dev tasks | 0 → 0 |") in text
    assert "| null (control) (held-out tasks) | 1 | 100% [100–100%] | 100% [100–100%] |" in text
    assert "| Difference [95%] | Exact p | Reading |" in text


def test_an_unusable_baseline_is_one_line(tmp_path):
    new = controls_run(tmp_path, "new")
    lines = step_summary.against_lines(config(baseline=str(tmp_path / "nowhere")), load_run(new))
    assert any("Not compared with" in line and "no such run folder" in line for line in lines)


def test_an_unwritable_destination_is_one_line(tmp_path, capsys):
    folder = controls_run(tmp_path)
    step_summary.pytest_mobium_run_finished(config(summary=str(tmp_path / "no" / "such" / "dir.md")), folder, "done")
    err = capsys.readouterr().err
    assert err.startswith("mobium-evals: the Markdown summary was not written to") and err.count("\n") == 1
