"""The plugin end to end on a fake device and a fake MCP client (tests/plugin_fakes.py): parametrization, the
trial protocol, verdicts in the terminal and in reports, the summary, the record, blockers, infra errors, resume."""

from __future__ import annotations

import json

import pytest
from plugin_fakes import CONFTEST, TASKS

from pytest_mobium_evals import checkout_commit, source_commit

pytest_plugins = ["pytester"]


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_tasks=TASKS)
    return pytester


def run(pytester: pytest.Pytester, *args: str, run_dir: str = "run") -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir", run_dir, *args)


def verdicts(pytester: pytest.Pytester, run_dir: str = "run") -> dict[str, dict]:
    root = pytester.path / run_dir / "trials"
    return {p.name: json.loads((p / "verdict.json").read_text()) for p in sorted(root.iterdir())}


def test_controls_grade_as_declared_and_the_run_is_recorded(suite):
    result = run(suite, "--driver=controls", "--seed=7", "-v")
    # the three declared controls, and the two derived ones that apply (no menu to go back to, no answer)
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines([
        "*mobium-evals: --seed=7 --driver=controls*",
        "*test_f01?reference-r0? PASS (as declared)*",
        "*test_f01?null-r0? FALSE_SUCCESS (as declared)*",
        "*test_f01?wrong-r0? FALSE_SUCCESS (as declared)*",
        "*test_f01?reference+wait-r0? PASS (as declared)*",
        "*test_f01?reference+home-r0? PASS (as declared)*",
        "*mobium-evals summary*",
        "reference: as declared 100%*scheduled 1, graded 1, infra errors 0",
    ])
    got = verdicts(suite)
    assert set(got) == {"f01-reference-none-r0", "f01-null-none-r0", "f01-wrong-none-r0",
                        "f01-reference+wait-none-r0", "f01-reference+home-none-r0"}
    ref = got["f01-reference-none-r0"]
    assert ref["verdict"] == "pass" and ref["ok"] and ref["seed"] == 7 and ref["tool_calls"] == 1
    assert got["f01-wrong-none-r0"]["outcome_observed"] == "wrong"
    record = json.loads((suite.path / "run" / "record.json").read_text())
    assert record["seed"] == 7 and record["finished"] is True and record["tasks"] == ["f01"]
    assert record["options"]["device_pace"] == "fast"  # controls check graders, at the device's own pace
    assert sorted(record["scheduled"]) == sorted(got)
    # which harness graded it: this repository's commit, in the record and in every trial's record
    assert record["plugin_commit"] == ref["plugin_commit"] == source_commit()[0]
    assert record["plugin_dirty"] is source_commit()[1]
    transcript = (suite.path / "run/trials/f01-reference-none-r0/transcript.jsonl").read_text().splitlines()
    kinds = [json.loads(line)["kind"] for line in transcript]
    assert kinds == ["prompt", "call", "answer", "final"]


def test_the_device_pace_is_chosen_and_recorded(suite):
    run(suite, "--driver=reference", "--device-pace", "emulator").assert_outcomes(passed=1)
    assert json.loads((suite.path / "run" / "record.json").read_text())["options"]["device_pace"] == "emulator"
    refused = run(suite, "--driver=reference", "--device-pace", "slow", run_dir="other")
    assert refused.ret != 0
    refused.stderr.fnmatch_lines(["*--device-pace: invalid choice: 'slow'*"])


def test_a_control_that_does_not_grade_as_declared_fails_and_is_listed(suite):
    suite.makepyfile(test_more='''
from pytest_mobium_evals.core.tasks import Claim, Controls, Outcome, task

def lazy(tools, params):
    return Claim("done")

@task(id="f02", slug="broken-ref", prompt="p", reference=lazy, wrong=lazy)
def test_f02(device, params):
    return Outcome(device.text("state") == "done", observed=device.text("state"))
''')
    result = run(suite, "--driver=reference", "test_more.py")
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*controls that did not grade as declared*",
                                 "f02 broken-ref*reference got false_success*expected pass*"])


def test_the_agent_verdict_is_the_terminal_category_and_fails_the_session(suite):
    suite.makepyfile(test_agent='''
from pytest_mobium_evals.core.tasks import Claim, Outcome, task

def s(tools, params):
    return Claim("done")

@task(id="a01", slug="good", prompt="set it", reference=s, wrong=s)
def test_a01(device, params):
    return Outcome(device.text("state") == "done")

@task(id="a02", slug="lie", prompt="do nothing", reference=s, wrong=s)
def test_a02(device, params):
    return Outcome(device.text("state") == "never")
''')
    result = run(suite, "test_agent.py", "--model=haiku:low,opus,haiku:high", "--repeats=2",
                 "-o", "junit_family=xunit1", "--junitxml=j.xml")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 6 and outcomes.get("false_success") == 6, outcomes
    # two settings of one model keep their trials apart
    assert {"a01-agent-claude-haiku-5-5-low-r0", "a01-agent-claude-haiku-5-5-high-r0",
            "a01-agent-claude-opus-5-5-r0"} <= set(verdicts(suite))
    assert result.ret == 1
    result.stdout.fnmatch_lines(["agent haiku:low: pass rate 50%*over 2 tasks; pass^2 50% *; scheduled 4, graded 4*",
                                 "agent opus: pass rate 50%*",
                                 "*agent trials that did not pass*",
                                 "a02-agent-claude-haiku-5-5-high-r0: false_success (major); claimed done, "
                                 "device read*"])
    xml = (suite.path / "j.xml").read_text()
    assert 'name="mobium_verdict" value="false_success"' in xml and 'name="mobium_model" value="haiku:low"' in xml


def test_a_password_in_a_tool_response_is_a_blocker_that_fails_the_session(suite):
    suite.makepyfile(test_leak='''
from pytest_mobium_evals.core.tasks import Claim, Controls, Outcome, task

def leaky(tools, params):
    tools.call("leak")
    tools.call("set", id="state", value="done")
    return Claim("done")

@task(id="f03", slug="leak", prompt="p", reference=leaky, wrong=leaky, secrets=("hunter2",))
def test_f03(device, params):
    return Outcome(device.text("state") == "done")
''')
    result = run(suite, "--driver=reference", "test_leak.py")
    result.stdout.fnmatch_lines(["*BLOCKERS (1)*", "f03-reference-none-r0: password in a tool response: leak*"])
    assert result.ret == 1


def test_a_setting_left_changed_is_touched_and_a_blocker(suite):
    suite.makepyfile(test_side='''
from pytest_mobium_evals.core.tasks import Claim, Outcome, task

def meddle(tools, params):
    tools.call("setting", key="global/wifi_on", value="0")
    tools.call("setting", key="secure/ui_night_mode", value="2")
    tools.call("set", id="state", value="done")
    return Claim("done")

@task(id="f04", slug="side", prompt="p", reference=meddle, wrong=meddle, allowed_settings=("secure/ui_night_mode",))
def test_f04(device, params):
    return Outcome(device.text("state") == "done")
''')
    result = run(suite, "--driver=reference", "test_side.py")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*setting left changed: global/wifi_on (1 -> 0)*"])
    got = verdicts(suite)["f04-reference-none-r0"]
    assert got["verdict"] == "touched" and got["severity"] == "blocker"
    assert got["side_effects"] == [{"namespace": "global", "key": "wifi_on", "before": "1", "after": "0"}]


def test_infra_errors_are_their_own_category_and_reruns_retry_only_them(suite):
    suite.makeconftest(CONFTEST + "\nDEVICE.fail_resets = 1\n")
    result = run(suite, "--driver=reference", "test_tasks.py")
    assert result.parseoutcomes().get("infra_error") == 1
    result.stdout.fnmatch_lines(["reference: as declared 0%*graded 0, infra errors 1",
                                 "*infrastructure errors*", "f01-reference-none-r0: reset: DeviceError: *offline*"])
    assert "did not grade as declared" not in result.stdout.str()
    assert verdicts(suite)["f01-reference-none-r0"]["verdict"] == "infra_error"

    result = run(suite, "--driver=reference,null,wrong", "test_tasks.py", "--reruns=2", run_dir="again")
    outcomes = result.parseoutcomes()
    assert outcomes.get("rerun") == 1 and outcomes.get("passed") == 3, outcomes
    assert result.ret == 0


def test_reruns_never_retry_a_verdict(suite):
    suite.makepyfile(test_lie='''
from pytest_mobium_evals.core.tasks import Claim, Outcome, task

def s(tools, params):
    return Claim("done")

@task(id="a02", slug="lie", prompt="do nothing", reference=s, wrong=s)
def test_a02(device, params):
    return Outcome(device.text("state") == "never")
''')
    result = run(suite, "--model=opus", "test_lie.py", "--reruns=2")
    outcomes = result.parseoutcomes()
    assert outcomes.get("false_success") == 1 and "rerun" not in outcomes, outcomes


def test_resume_reuses_the_seed_and_skips_graded_trials(suite):
    first = run(suite, "--driver=reference,null,wrong")
    first.assert_outcomes(passed=3)
    seed = json.loads((suite.path / "run" / "record.json").read_text())["seed"]
    stored = verdicts(suite)
    (suite.path / "run/trials/f01-null-none-r0/verdict.json").unlink()
    suite.makeconftest(CONFTEST + "\nDEVICE.fail_resets = 99\n")  # only the deleted trial may touch the device
    again = suite.runpytest_subprocess("-p", "no:cacheprovider", "--resume", "run")
    again.stdout.fnmatch_lines([f"*--seed={seed} --driver=reference,null,wrong*, resuming run"])
    outcomes = again.parseoutcomes()
    assert outcomes.get("passed") == 2 and outcomes.get("infra_error") == 1, outcomes
    assert verdicts(suite)["f01-reference-none-r0"] == stored["f01-reference-none-r0"]


def test_the_seed_decides_the_parameters(suite):
    run(suite, "--driver=reference", "--seed=11", "--repeats=3")
    first = {k: v["params"] for k, v in verdicts(suite).items()}
    run(suite, "--driver=reference", "--seed=11", "--repeats=3", run_dir="second")
    assert {k: v["params"] for k, v in verdicts(suite, "second").items()} == first
    assert len({v["n"] for v in first.values()}) > 1  # repeats draw their own values


def test_xdist_workers_carry_verdicts_to_the_controller(suite):
    result = run(suite, "--driver=reference,null,wrong", "--seed=3", "-n", "2", "--repeats=2")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*mobium-evals summary*", "null: as declared 100%*scheduled 2, graded 2*"])
    assert {v["seed"] for v in verdicts(suite).values()} == {3}


def test_html_report_has_the_verdict_columns_and_the_screen(suite):
    result = run(suite, "--driver=reference", "--html=r.html", "--self-contained-html")
    assert result.ret == 0
    html = (suite.path / "r.html").read_text()
    assert 'data-column-type="verdict"' in html and "col-verdict" in html and "final screen" in html


def test_options_are_checked_with_one_line(suite):
    result = run(suite, "--driver=reference", "--device=sim:0")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: --device sim:0: a virtual device count must be at least 1"])
    result = run(suite, "--driver=agent", "--model=gpt5")
    result.stderr.fnmatch_lines(["ERROR: --model 'gpt5': unknown model*"])
    result = run(suite, "--driver=agent", "--tool-server=srv --device {device}")
    result.stderr.fnmatch_lines(["ERROR: --tool-server 'srv --device {device}': '{device}': unknown placeholder "
                                 "{device} (known: {serial}, {adb_host}, {adb_port}, {adb})"])
    result = run(suite, "--driver=agent", "--tool-server=srv", "--surface=baseline")
    result.stderr.fnmatch_lines(["ERROR: --tool-server and --surface: *choose one"])
    result = run(suite, "--driver=reference", "--mobium-driver=uiautomator")
    result.stderr.fnmatch_lines(["ERROR: --mobium-driver and --mobium-env are passed to Mobium's binary*"])
    result = run(suite, "--driver=reference", "--mobium=/bin/true", "--mobium-env=NOVALUE")
    result.stderr.fnmatch_lines(["ERROR: --mobium-env NOVALUE: want NAME=VALUE"])


def test_a_run_stopped_early_is_recorded_unfinished_and_resume_completes_it(suite):
    result = run(suite, "--driver=reference,null,wrong", "--seed=9", "--maxfail=1", "-p", "no:randomly",
                 "--deselect", "test_tasks.py::test_f01[reference-r0]")
    assert result.ret == 0  # two controls ran and passed; nothing stopped it yet
    record = json.loads((suite.path / "run" / "record.json").read_text())
    assert record["finished"] is True and len(record["scheduled"]) == 2
    (suite.path / "run/trials/f01-wrong-none-r0/verdict.json").unlink()  # as if killed before its verdict
    again = suite.runpytest_subprocess("-p", "no:cacheprovider", "--resume", "run", "-p", "no:randomly", "-x",
                                       "-k", "null")
    record = json.loads((suite.path / "run" / "record.json").read_text())
    assert record["finished"] is False  # the wrong control has no verdict yet
    again = suite.runpytest_subprocess("-p", "no:cacheprovider", "--resume", "run")
    again.assert_outcomes(passed=3)
    record = json.loads((suite.path / "run" / "record.json").read_text())
    assert record["finished"] is True and set(verdicts(suite)) == {"f01-reference-none-r0", "f01-null-none-r0",
                                                                   "f01-wrong-none-r0"}


def test_a_run_folder_is_never_shared_by_two_runs(suite):
    run(suite, "--driver=null").assert_outcomes(passed=1)
    result = run(suite, "--driver=null")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: --run-dir run: already holds a run (record.json); continue it with "
                                 "--resume run, or choose another folder"])


def test_the_harness_commit_is_unknown_outside_a_checkout_of_its_own(tmp_path):
    import subprocess

    package = tmp_path / "pytest_mobium_evals"
    package.mkdir()
    assert checkout_commit(package) == (None, None)  # no git at all
    inside = tmp_path / "someone-else" / "venv" / "pytest_mobium_evals"
    inside.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(tmp_path / "someone-else")], check=True)
    assert checkout_commit(inside) == (None, None)  # a git repository, but not this package's checkout
    root = tmp_path / "checkout"
    (root / "pytest_mobium_evals").mkdir(parents=True)
    (root / "pytest_mobium_evals" / "x.py").write_text("")

    def git(*args):
        return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                              check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    assert checkout_commit(root / "pytest_mobium_evals") == (None, None)  # no commit yet
    git("add", "-A")
    git("commit", "-qm", "x")
    assert checkout_commit(root / "pytest_mobium_evals") == (git("rev-parse", "HEAD"), False)
    (root / "pytest_mobium_evals" / "x.py").write_text("changed = 1\n")
    assert checkout_commit(root / "pytest_mobium_evals") == (git("rev-parse", "HEAD"), True)
