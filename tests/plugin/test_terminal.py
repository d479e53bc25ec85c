"""What the terminal shows a person running the suite: a key to the progress letters, lines that never land on
pytest's "[100%]" line, and a header that names no run folder before one exists."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_fakes import CONFTEST, TASKS

from pytest_mobium_evals.plugin.terminal import VERDICT_STATUS, legend

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_tasks=TASKS)
    return pytester


def progress_line(result: pytest.RunResult) -> str:
    return next(line for line in result.outlines if line.rstrip().endswith("[100%]"))


def test_the_progress_letters_are_explained_in_the_summary(suite):
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir=run", "--driver=controls", "-n", "0")
    result.assert_outcomes(passed=5)
    # reference, +wait and +home pass (.); null and wrong get their declared false success (!)
    assert sorted(progress_line(result).split()[1]) == sorted("...!!")
    result.stdout.fnmatch_lines(["*mobium-evals summary*", "seed *, run dir run",
                                 "progress letters: . pass, ! false_success (a control graded as declared shows "
                                 "its verdict's letter and counts as passed)"])


def test_a_control_not_graded_as_declared_is_explained_as_f(suite):
    suite.makepyfile(test_broken='''
from pytest_mobium_evals.core.tasks import Claim, Outcome, task

def nothing(tools, params):
    return Claim("done")

@task(id="f09", slug="broken-ref", prompt="set it", reference=nothing, wrong=nothing)
def test_f09(device, params):
    return Outcome(device.text("state") == "done")
''')
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir=run", "--driver=reference",
                                        "test_broken.py")
    result.assert_outcomes(failed=1)
    assert progress_line(result).split()[1] == "F"
    result.stdout.fnmatch_lines(["progress letters: F a control not graded as declared*"])


def test_verbose_runs_print_words_and_no_key(suite):
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir=run", "--driver=reference", "-v")
    result.stdout.fnmatch_lines(["*PASS (as declared)*"])
    assert not any(line.startswith("progress letters") for line in result.outlines)


def test_the_legend_names_every_letter_once_in_the_verdicts_order():
    every = {letter for _, letter, _, _ in VERDICT_STATUS.values()} | {"F"}
    line = legend(every)
    assert line.startswith("progress letters: . pass, ! false_success, ? false_refusal, T touched, "
                           "h honest_failure, u unreported, W wrong_reason, I infra_error, "
                           "F a control not graded as declared")
    assert len({letter for _, letter, _, _ in VERDICT_STATUS.values()}) == len(VERDICT_STATUS)


def test_a_refused_run_names_no_run_folder_and_creates_none(pytester, monkeypatch):
    # No fake agent here: the real credential check refuses the run once its trials are collected, after the
    # header is printed.
    pytester.makepyfile(test_tasks=TASKS)
    home = pytester.path / "home"
    home.mkdir()
    for name in ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir=never-made", "--driver=agent",
                                           "-n", "0")
    assert result.ret != 0
    header = next(line for line in result.outlines if line.startswith("mobium-evals: --seed="))
    assert "never-made" not in header
    result.stderr.fnmatch_lines(["*no Claude credential*"])
    assert not (pytester.path / "never-made").exists()


@pytest.mark.parametrize("suite, source, select, summary", [
    ("ghost_bench", "navigation.json", "OpenAppClock", "Ghost Bench summary: *run/ghost_bench.json"),
    ("androidworld", "system.json", "SystemWifiTurnOn and not Verify", "AndroidWorld summary: *run/androidworld.json"),
])
def test_a_suite_s_summary_line_is_its_own_line(pytester, suite, source, select, summary):
    (pytester.path / suite).mkdir()
    (pytester.path / suite / source).write_text((ROOT / "tasks" / suite / source).read_text())
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir=run", "--driver=reference",
                                           "--device=sim", "-k", select, "-n", "0")
    result.assert_outcomes(passed=1)
    assert progress_line(result).split() == [f"{suite}/{source}", ".", "[100%]"]
    result.stdout.fnmatch_lines([summary])
    assert not any("[100%]" in line and "summary" in line for line in result.outlines)
