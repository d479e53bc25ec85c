"""judge: its controls come first; then agreement with the answer rules, through a scripted Ollama endpoint."""

from __future__ import annotations

import pytest
from ollama_judge_standin import OllamaJudgeStandin
from runbuilder import verdict_json, write_run

from pytest_mobium_evals.commands.cli import main
from pytest_mobium_evals.commands.judge import JudgeBook
from pytest_mobium_evals.suites.catalog import default_task_paths, load_task_definitions

# The judge's controls are the labelled answers the shipped tasks declare (their judge=JudgeSpec(...)).
CONTROLS = JudgeBook.from_tasks(load_task_definitions(default_task_paths())).controls

LABELS = {c.answer: c.right for c in CONTROLS}


def knows_the_controls(run_answers: dict[str, bool]):
    """A judge that calls every control as labelled and the run's answers as the test says."""
    def policy(truth, answer, number):
        return LABELS[answer] if answer in LABELS else run_answers[answer]
    return policy


@pytest.fixture
def answers_run(tmp_path):
    vs = [verdict_json("t08", "pass", answer="60 rows", answer_ok=True, repeat=1),
          verdict_json("t08", "false_success", answer="61 rows", answer_ok=False, repeat=2),
          verdict_json("t22", "pass", answer="Android 15", answer_ok=True, observed="15", repeat=1),
          verdict_json("t22", "false_success", answer="Android version: 15.0 QPR", answer_ok=False, observed="15",
                       repeat=2),
          verdict_json("t01", "pass", repeat=1), verdict_json("t01", "pass", repeat=2)]
    return write_run(tmp_path, "answers", vs)


def test_controls_are_at_least_22_with_near_misses_for_every_answer_task():
    assert len(CONTROLS) >= 22
    for task in ("t02", "t06", "t08", "t22", "t23"):
        labels = {c.right for c in CONTROLS if c.task == task}
        assert labels == {True, False}, task
    assert LABELS["The feed has 60 rows in total. Row 61 does not exist."] is True
    assert LABELS["59 rows"] is False and LABELS["Android 15 (API 35)"] is True and LABELS["API 35"] is False


def test_a_judge_that_passes_its_controls_gets_an_agreement_figure(answers_run, capsys):
    # The judge disagrees with the rules on one answer: the rules failed "Android version: 15.0 QPR".
    policy = knows_the_controls({"60 rows": True, "61 rows": False, "Android 15": True,
                                 "Android version: 15.0 QPR": True})
    with OllamaJudgeStandin(policy) as ollama:
        assert main(["judge", str(answers_run), "--host", ollama.url]) == 0
        # asked twice per control and per answer; t01 has no answer to judge
        assert len(ollama.requests) == 2 * (len(CONTROLS) + 4)
        assert ollama.requests[0]["format"]["required"] == ["right", "why"]
    out = capsys.readouterr().out
    assert f"Controls: {len(CONTROLS)} of {len(CONTROLS)} called right." in out
    assert "Agreement with the answer rules: 3 of 4 answers (75%)." in out
    assert "| t22-agent-claude-haiku-5-5-r2 | 'Android version: 15.0 QPR' | Android 15 | wrong | right |" in out
    assert (answers_run / "judge.md").read_text() == out


def test_a_judge_that_fails_its_controls_shows_no_agreement(answers_run, capsys):
    def gullible(truth, answer, number):
        return True  # calls every answer right, near misses included
    with OllamaJudgeStandin(gullible) as ollama:
        assert main(["judge", str(answers_run), "--host", ollama.url]) == 1
        assert len(ollama.requests) == 2 * len(CONTROLS)  # the run's answers are not put to a failed judge
    captured = capsys.readouterr()
    assert "Agreement" not in captured.out
    assert "The judge failed its controls" in captured.out
    assert "| t08 | 59 rows | wrong | right | off by one |" in captured.out
    wrong_controls = sum(not c.right for c in CONTROLS)
    assert f"the judge failed {wrong_controls} of {len(CONTROLS)} controls" in captured.err
    assert "'API 35'" in captured.err


def test_a_judge_that_splits_between_its_two_asks_fails_that_control(answers_run, capsys):
    def flips_on_api_35(truth, answer, number):
        if answer == "API 35":
            return number % 2 == 0  # wrong once, right once
        return knows_the_controls({"60 rows": True, "61 rows": False, "Android 15": True,
                                   "Android version: 15.0 QPR": False})(truth, answer, number)

    with OllamaJudgeStandin(flips_on_api_35) as ollama:
        assert main(["judge", str(answers_run), "--host", ollama.url]) == 1
    out = capsys.readouterr().out
    assert "| t22 | API 35 | wrong | split (wrong / right) |" in out


def test_an_unusable_reply_is_not_a_verdict(answers_run, capsys):
    def prose(truth, answer, number):
        return "I think it is right." if answer == "60" else LABELS.get(answer, True)

    with OllamaJudgeStandin(prose) as ollama:
        assert main(["judge", str(answers_run), "--host", ollama.url]) == 1
    assert "| t08 | 60 | right | split (no reply / no reply) |" in capsys.readouterr().out


def test_judge_errors_are_one_line(answers_run, capsys, monkeypatch):
    with OllamaJudgeStandin(lambda *a: True) as ollama:
        assert main(["judge", str(answers_run), "--host", ollama.url, "--model", "qwen9:1b"]) == 2
    assert "model qwen9:1b is not available" in capsys.readouterr().err
    with OllamaJudgeStandin(lambda *a: True) as ollama:
        url = ollama.url
    monkeypatch.setenv("OLLAMA_HOST", url)  # closed: nothing listens there any more
    assert main(["judge", str(answers_run)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith(f"mobium-evals judge: cannot reach Ollama at {url}")
    assert "Traceback" not in err


def test_the_controls_come_from_the_tasks_given(tmp_path, answers_run, capsys):
    """A suite of one task with one labelled answer: the judge asks exactly that control, and its question."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_q.py").write_text(
        "from pytest_mobium_evals import answers\n"
        "from pytest_mobium_evals.core.tasks import Claim, JudgeSpec, LabelledAnswer, Outcome, task\n"
        "@task(id='t08', slug='q', prompt='count', reference=lambda t, p: Claim('done'),\n"
        "      wrong=lambda t, p: Claim('done'), answer=answers.count_of('n', 7, unit='rows'),\n"
        "      judge=JudgeSpec('How many rows?', '7 rows', (LabelledAnswer('7 rows', True, 'the count'),)))\n"
        "def test_q(device, params):\n"
        "    return Outcome(True)\n")
    asked = []

    def policy(truth, answer, number):
        asked.append((truth, answer))
        return answer == "7 rows"
    with OllamaJudgeStandin(policy) as ollama:
        main(["judge", str(answers_run), "--host", ollama.url, "--tasks-path", str(suite)])
    assert asked[:2] == [("7 rows", "7 rows"), ("7 rows", "7 rows")]
    assert "Controls: 1 of 1 called right." in capsys.readouterr().out
