"""Source of a conftest for pytester runs: a fake device and a fake MCP client, so the plugin's trial protocol can be
exercised without the virtual device. The fake device keeps settings and "outcome lines" in dicts; the fake tools
change them the way a tool server would change a device."""

CONFTEST = r'''
import pytest
import pytest_mobium_evals.drivers.agents as agents
from pytest_mobium_evals.reach.device import DeviceError

agents.check_ready = lambda setting, base_url=None: None  # no credentials needed: the agent is a fake
from pytest_mobium_evals.drivers.controls import DriverRun
from pytest_mobium_evals.core.tasks import Claim


def _screen():
    import io
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (1080, 2400), (240, 240, 250)).save(buf, "PNG")  # a phone-sized screen, as screencap gives
    return buf.getvalue()


SCREEN = _screen()


class FakeDevice:
    serial = "fake-1"
    adb_host, adb_port = "127.0.0.1", 0

    def __init__(self):
        self.settings = {("secure", "ui_night_mode"): "1", ("global", "wifi_on"): "1"}
        self.lines = {}
        self.resets = 0
        self.fail_resets = 0  # how many resets fail before one works (infra errors)

    def restore_settings(self, ignored=None):
        self.settings[("secure", "ui_night_mode")] = "1"
        return []

    def reset_app(self, package, ready_testid=None):
        self.resets += 1
        if self.fail_resets:
            self.fail_resets -= 1
            raise DeviceError("fake-1: device offline")
        self.lines = {"state": "idle"}

    def shell(self, cmd, timeout=None):
        return ""

    def settings_snapshot(self):
        return dict(self.settings)


    def settings_with_history(self):
        return self.settings_snapshot(), None  # a device that keeps no history of its settings

    def screencap(self):
        return SCREEN

    def bring_to_front(self, package):
        pass

    def pass_time(self, seconds):
        pass

    def set_auto_advance(self, on):
        self.auto_advance = on

    def hold_clock(self, on):
        self.held_clock = on

    def text(self, testid, scroll=True):
        return self.lines.get(testid)


class FakeTools:
    def __init__(self, device, on_event):
        self.device, self.on_event = device, on_event

    def call(self, name, **args):
        self.on_event({"kind": "call", "tool": name, "arguments": args})
        text = "ok"
        if name == "set":
            self.device.lines[args["id"]] = args["value"]
        elif name == "setting":
            self.device.settings[tuple(args["key"].split("/"))] = args["value"]
        elif name == "leak":
            text = "the password is hunter2"
        self.on_event({"kind": "answer", "tool": name, "text": text})  # as the MCP client writes it
        return text

    def close(self):
        pass


DEVICE = FakeDevice()


@pytest.fixture(scope="session")
def mobium_device():
    return DEVICE


@pytest.fixture
def mobium_trial_env():
    def edit(env):
        env.server_spec = lambda device: None
        env.tools_factory = lambda spec, on_event: FakeTools(DEVICE, on_event)
        env.agent_runner = fake_agent
    return edit


def fake_agent(setting, prompt, server, limits, on_event, workdir, base_url):
    """An agent that claims done and does whatever the prompt's first word says: "set" sets state to done."""
    tools = FakeTools(DEVICE, on_event)
    if prompt.startswith("set"):
        tools.call("set", id="state", value="done")
    return DriverRun(claim=Claim("done"), tool_calls=1, tokens_in=10, tokens_out=5)
'''

TASKS = r'''
from pytest_mobium_evals.core.tasks import Claim, Controls, Outcome, task


def ref(tools, params):
    tools.call("set", id="state", value="done")
    return Claim("done")


def wrong(tools, params):
    tools.call("set", id="state", value="wrong")
    return Claim("done")


@task(id="f01", slug="set-state", prompt="set the state to done ({n})", params=lambda rng: {"n": rng.randrange(1000)},
      reference=ref, wrong=wrong)
def test_f01(device, params):
    got = device.text("state")
    return Outcome(got == "done", observed=got)
'''


def trial_record(**fields):
    """A trial's record (core.trial_record.TrialRecord) with the fields a test names, the required rest at neutral
    values: what the terminal and the rates read, as a run hands it to them."""
    from pytest_mobium_evals.core.trial_record import TrialRecord

    required = dict(task="t01", suite="mobiumapp", driver="agent", model="a", effort=None, seed=7, repeat=0,
                    expected="pass", verdict="pass", severity=None, blockers=[], ok=None, claim=None, answer_ok=None,
                    outcome_reached=None, outcome_observed=None, side_effects=[], password_exposures=[],
                    tool_calls=0, tokens=None, cost_usd=None, timings=None, device=None, infra_error=None)
    return TrialRecord(**(required | fields))
