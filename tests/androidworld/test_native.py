"""AndroidWorld's own TaskEval classes over this harness's ADB (`--androidworld-native`), tried with stand-in
classes that have TaskEval's interface and talk to the device as AndroidWorld's do: AdbRequests through
`env.controller`, answered by android_env's own AdbCallParser over our controller. android_env must be importable
(it comes with android_world); android_world itself is stood in for."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

adb_pb2 = pytest.importorskip("android_env.proto.adb_pb2", reason="android_env is not installed "
                              "(it comes with android_world)")
errors = pytest.importorskip("android_env.components.errors")

from pytest_mobium_evals.suites import androidworld as aw  # noqa: E402
from pytest_mobium_evals.suites.androidworld import native  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OURS = {t.id: t for t in aw.load_tasks(ROOT / "tasks" / "androidworld" / "system.json")}

STAND_IN = '''
"""Stand-ins for AndroidWorld's TaskEval classes: the same interface, the same device traffic."""

from android_env.proto import adb_pb2

SNAPSHOT_CHECK = """
  if [ -d "/data/data/android_world/snapshots/{package}" ]; then
      echo "Exists"
  else
      echo "Does not exist"
  fi
  """


def generic(env, args):
    response = env.controller.execute_adb_call(
        adb_pb2.AdbRequest(generic=adb_pb2.AdbRequest.GenericRequest(args=args)))
    assert response.status == adb_pb2.AdbResponse.Status.OK, response
    return response.generic.output.decode()


class TaskEval:
    template = ""
    start_on_home_screen = True
    app_names = ("settings",)
    complexity = 1
    schema = {}

    def __init__(self, params):
        self._params = params
        self.initialized = False

    @property
    def params(self):
        return self._params

    @property
    def name(self):
        return type(self).__name__

    @property
    def goal(self):
        return self.template.format(**self.params)

    @classmethod
    def generate_random_params(cls):
        return {}

    def initialize_task(self, env):
        env.interaction_cache = ""
        if self.initialized:
            raise RuntimeError(f"{self.name}.initialize_task() is already called.")
        # AndroidWorld's shared start-up: root, automatic time off, 24 h, UTC, the frozen date, the snapshots
        if generic(env, ["shell", "whoami"]).strip() != "root":
            generic(env, ["root"])
        generic(env, ["shell", "settings", "put", "global", "auto_time", "0"])
        generic(env, ["shell", "settings", "put", "system", "time_12_24", "24"])
        generic(env, ["shell", "service", "call", "alarm", "3", "s16", "UTC"])
        generic(env, ["shell", "date", "1015153423.00"])
        for package in ("com.android.settings",):
            generic(env, ["shell", "am", "force-stop", package])
            assert "Does not exist" in generic(env, ["shell", SNAPSHOT_CHECK.format(package=package)])
        self.initialized = True

    def is_successful(self, env):
        if not self.initialized:
            raise RuntimeError("initialize_task() must be called first")
        return 1.0

    def tear_down(self, env):
        import re
        recents = generic(env, ["shell", "dumpsys", "activity", "recents"])
        for number in re.findall(r"id=(\\d+)", recents):
            generic(env, ["shell", "am", "stack", "remove", number])
        self.initialized = False


class SystemWifiTurnOn(TaskEval):
    template = "Turn wifi {on_or_off}."

    def initialize_task(self, env):
        super().initialize_task(env)
        generic(env, ["shell", "svc", "wifi", "disable"])

    def is_successful(self, env):
        super().is_successful(env)
        status = generic(env, ["shell", "settings", "get", "global", "wifi_on"]).strip()
        return 1.0 if status in ("1", "2") else 0.0


class OpenAppTaskEval(TaskEval):
    template = ("Open the {app_name} app. Clear any pop-ups that may appear by granting all permissions that are "
                "required.")
    PACKAGES = {"clock": "com.google.android.deskclock", "dialer": "com.google.android.dialer"}

    def is_successful(self, env):
        super().is_successful(env)
        response = env.controller.execute_adb_call(
            adb_pb2.AdbRequest(get_current_activity=adb_pb2.AdbRequest.GetCurrentActivity()))
        assert response.status == adb_pb2.AdbResponse.Status.OK, response
        package = response.get_current_activity.full_activity.split("/")[0]
        return 1.0 if package == self.PACKAGES[self.params["app_name"]] else 0.0


class TurnOffWifiAndTurnOnBluetooth(TaskEval):
    template = "Turn off WiFi, then enable bluetooth"

    def initialize_task(self, env):
        super().initialize_task(env)
        generic(env, ["shell", "svc", "wifi", "enable"])
        generic(env, ["shell", "svc", "bluetooth", "disable"])

    def is_successful(self, env):
        super().is_successful(env)
        wifi = generic(env, ["shell", "settings", "get", "global", "wifi_on"]).strip() == "0"
        bluetooth = generic(env, ["shell", "settings", "get", "global", "bluetooth_on"]).strip() == "1"
        return (float(wifi) + float(bluetooth)) / 2.0
'''


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    (tmp_path / "stand_in_android_world.py").write_text(textwrap.dedent(STAND_IN), "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(native, "NATIVE_MODULES", ("stand_in_android_world",))
    yield
    sys.modules.pop("stand_in_android_world", None)


def test_androidworlds_grader_and_ours_agree_on_a_settings_task(phone, stand_in):
    ours = OURS["aw.SystemWifiTurnOn"]
    twin = native.native_twin(ours, native.native_class("SystemWifiTurnOn"))
    assert twin.id == "aw.SystemWifiTurnOn.native" and twin.reference is ours.reference
    params = {"on_or_off": "on"}
    twin.precondition(phone, params)
    assert phone.shell("whoami") == "root"  # AndroidWorld roots adbd, and the virtual userdebug build lets it
    assert phone.shell("date +%Y-%m-%d") == "2023-10-15"
    assert not ours.outcome(phone, params).reached
    assert twin.outcome(phone, params) == aw_outcome(0)
    twin.precondition(phone, params)
    phone.shell("svc wifi enable")
    assert ours.outcome(phone, params).reached
    assert twin.outcome(phone, params) == aw_outcome(1, "SystemWifiTurnOn")
    # where adbd runs as root, our own start-up freezes the date as AndroidWorld's does
    phone.shell("date 010100002020")
    ours.precondition(phone, params)
    assert phone.shell("date +%Y-%m-%dT%H:%M") == "2023-10-15T15:34"


def aw_outcome(value, name="SystemWifiTurnOn"):
    from pytest_mobium_evals.core.tasks import Outcome
    return Outcome(reached=value == 1, observed=f"AndroidWorld {name}.is_successful: {value:g}")


def test_the_app_in_front_through_android_envs_own_parser(phone, stand_in):
    ours = OURS["aw.OpenAppTaskEval.dialer"]
    twin = native.native_twin(ours, native.native_class("OpenAppTaskEval"))
    params = {"app_name": "dialer"}
    twin.precondition(phone, params)
    phone.shell("monkey -p com.google.android.dialer -c android.intent.category.LAUNCHER 1")
    assert ours.outcome(phone, params).reached
    assert twin.outcome(phone, params).reached
    # its tear-down closed the recents as AndroidWorld's does
    assert "Recent tasks: (none)" in phone.shell("dumpsys activity recents")


def test_a_composite_scores_the_same_half(phone, stand_in):
    ours = OURS["aw.TurnOffWifiAndTurnOnBluetooth"]
    twin = native.native_twin(ours, native.native_class("TurnOffWifiAndTurnOnBluetooth"))
    twin.precondition(phone, {})
    phone.shell("svc wifi disable")
    assert ours.outcome(phone, {}).observed.startswith("score 0.5")
    native_outcome = twin.outcome(phone, {})
    assert not native_outcome.reached and native_outcome.observed.endswith(": 0.5")


def test_a_non_zero_exit_raises_as_android_envs_controller_does(phone):
    controller = native.DeviceAdbController(phone)
    assert controller.execute_command(["shell", "echo", "hi"]) == b"hi\n"
    with pytest.raises(errors.AdbControllerError, match="exit status 10"):
        controller.execute_command(["shell", "service", "call", "nosuch", "1"])
    with pytest.raises(errors.AdbControllerError, match="exit status 127"):
        controller.execute_command(["shell", "nosuchcommand"])
    with pytest.raises(errors.AdbControllerError, match="not `adb install x.apk`"):
        controller.execute_command(["install", "x.apk"])


def test_without_the_class_the_twin_is_a_failing_test_of_its_own(pytester, stand_in):
    folder = pytester.path / "androidworld"
    folder.mkdir()
    source = (ROOT / "tasks" / "androidworld" / "system.json").read_text("utf-8")
    (folder / "system.json").write_text(source, "utf-8")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--run-dir", "run", "--driver=reference",
                                          "--androidworld-native", "-m", "androidworld", "--collect-only", "-q")
    out = result.stdout.str()
    assert "aw.SystemWifiTurnOn.native[reference-r0]" in out
    assert "aw.OpenAppTaskEval.camera.native[reference-r0]" in out
    # the stand-in defines no brightness class: that twin fails alone, the others are collected
    assert "aw.SystemBrightnessMax.native" in out
    run = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--run-dir", "run2", "--androidworld-native",
                                       "-k", "SystemBrightnessMax and native", "-m", "androidworld")
    run.stdout.fnmatch_lines(["*task aw.SystemBrightnessMax: --androidworld-native: android_world defines no task "
                              "class SystemBrightnessMax*"])
