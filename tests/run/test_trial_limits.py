"""Every value a driver can return fits the trial's record (issue 32): which limit stopped the agent is a typed
field, a run the drivers can produce always builds a record, and a value that does not fit makes the trial an
infrastructure error with its reason, never a lost trial."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mobium_evals.core.tasks import Claim, Outcome, task, task_of
from pytest_mobium_evals.core.trial_record import HIT_LIMITS, TrialRecord
from pytest_mobium_evals.drivers import agents
from pytest_mobium_evals.drivers import controls as drivers
from pytest_mobium_evals.run.trial import TrialEnv, TrialSpec, run_trial
from pytest_mobium_evals.runfolder.layout import RunDir

AGENTS = Path(agents.__file__).parent


class Device:
    """Just enough of the harness's Device for a trial with no app: settings that never change."""

    serial = "fake-1"

    def restore_settings(self, ignored=None):
        return []

    def shell(self, command, timeout=None):
        return ""

    def settings_snapshot(self):
        return {("global", "wifi_on"): "1"}


    def settings_with_history(self):
        return self.settings_snapshot(), None  # a device that keeps no history of its settings

    def screencap(self):
        return b""

    def bring_to_front(self, package):
        pass

    def pass_time(self, seconds):
        pass

    def set_auto_advance(self, on):
        pass

    def hold_clock(self, on):
        pass


def _task_l01():
    """A task whose outcome is always reached (declared in a function: at a test file's top level the plugin would
    collect it as a task of the run)."""
    @task(id="l01", slug="limits", prompt="Open the thing.", app=None,
          reference=lambda tools, params: Claim("done"), wrong=lambda tools, params: Claim("done"))
    def check_l01(device, params):
        return Outcome(True, observed="open")
    return task_of(check_l01)


L01 = _task_l01()
SETTING = agents.parse_models("openai/local-model")[0]


def trial_of(run: drivers.DriverRun, run_dir: Path = None):
    env = TrialEnv(seed=1, run_dir=RunDir(run_dir) if run_dir else None, server_spec=lambda device: None,
                   limits=agents.Limits(), agent_runner=lambda *args: run, screenshots=False)
    spec = TrialSpec(task=L01, driver="agent", repeat=0, model_setting=SETTING)
    return run_trial(spec, env, Device(), L01.outcome)


def limits_the_drivers_set() -> set[str]:
    """Every string an agent driver assigns to `hit_limit` (`x.hit_limit = "…"`, `… or "…"`), read from their
    source: a driver that starts naming a new limit is caught here, before a trial at that limit is lost."""
    found = set()
    for path in AGENTS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "hit_limit"
                                                    for t in node.targets):
                found |= {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)
                          and isinstance(c.value, str)}
    return found


def test_every_limit_a_driver_names_is_one_the_record_declares():
    named = limits_the_drivers_set()
    assert named == {"tool_calls", "time"}, named
    assert named <= set(HIT_LIMITS)


texts = st.none() | st.text(max_size=40)
driver_runs = st.builds(
    drivers.DriverRun,
    claim=st.builds(Claim, status=st.sampled_from(["done", "cannot", None]), answer=texts, reason=texts),
    tool_calls=st.integers(0, 10_000), tokens_in=st.integers(0, 10**9), tokens_out=st.integers(0, 10**9),
    cost_usd=st.none() | st.floats(0, 1e4, allow_nan=False),
    hit_limit=st.sampled_from([None, *sorted(limits_the_drivers_set())]),
    seconds=st.floats(0, 1e5, allow_nan=False), script_error=texts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=driver_runs)
def test_any_run_the_drivers_can_return_builds_a_graded_record(run):
    result = trial_of(run)
    record = result.record
    assert result.error is None and record.verdict != "infra_error", record.infra_error
    assert (record.hit_limit, record.tool_calls) == (run.hit_limit, run.tool_calls)
    assert record.claim.model_dump() == run.claim.to_json()
    assert TrialRecord.parse(json.loads(json.dumps(record.to_json()))) == record


def test_a_value_that_does_not_fit_the_record_is_an_infra_error_with_its_reason(tmp_path):
    result = trial_of(drivers.DriverRun(claim=Claim("done"), tool_calls=3, hit_limit="tokens"), tmp_path)
    record = result.record
    assert (record.verdict, record.infra_phase, record.hit_limit) == ("infra_error", "record", None)
    assert record.infra_error.startswith("record: RecordUnbuildable: the trial's record cannot be built: hit_limit:")
    assert "'tokens'" in record.infra_error and record.tool_calls == 3
    written = json.loads((tmp_path / "trials" / record.trial / "verdict.json").read_text())
    assert written["verdict"] == "infra_error" and (tmp_path / "trials" / record.trial / "transcript.jsonl").exists()


def test_the_limit_is_said_beside_the_verdict():
    assert trial_of(drivers.DriverRun(claim=Claim(), hit_limit="time")).record.stopped_by == \
        "stopped at its time limit"
    assert trial_of(drivers.DriverRun(claim=Claim("done"))).record.stopped_by is None


def test_records_written_when_the_field_was_a_bool_still_load():
    built = trial_of(drivers.DriverRun(claim=Claim())).record.to_json()
    for stored, read in ((True, "unknown"), (False, None), (None, None)):
        assert TrialRecord.parse(built | {"hit_limit": stored}).hit_limit == read
    older = {k: v for k, v in built.items() if k != "hit_limit"}
    assert TrialRecord.parse(older).hit_limit is None
    assert TrialRecord.parse(built | {"hit_limit": True}).stopped_by == "stopped at a limit"
