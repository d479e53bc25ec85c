"""AndroidWorld's own TaskEval classes, run over this harness's ADB, so a user who has installed `android_world` can
check that AndroidWorld's grader and ours agree on their own trials.

AndroidWorld's tasks talk to a device through android_env: `env.controller.execute_adb_call(AdbRequest)`, which
android_env's AdbCallParser turns into adb command lines for its AdbController. Here the parser is android_env's
own; only the controller is ours (`DeviceAdbController`): `execute_command(args)` runs `adb shell ...` through the
harness's `Device`, and `adb root` through the device's ADB server, and a non-zero exit raises as android_env's
controller raises. A task with a native twin keeps our controls and gets AndroidWorld's setup and grader
(`native_twin`): `initialize_task` as the precondition, `is_successful` as the outcome, then `tear_down`.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from typing import TYPE_CHECKING, Any

from pytest_mobium_evals.core.errors import MobiumEvalsError
from pytest_mobium_evals.core.tasks import Outcome, Task

if TYPE_CHECKING:  # pragma: no cover
    from pytest_mobium_evals.reach.device import Device

#: Where AndroidWorld defines the fifteen classes this suite expresses.
NATIVE_MODULES = ("android_world.task_evals.single.system", "android_world.task_evals.composite.system")
_EXIT = "__mobium_evals_exit:"


class NativeUnavailable(MobiumEvalsError, RuntimeError):
    """android_env (or android_world) is not importable here."""


def _errors():
    try:
        from android_env.components import errors  # noqa: PLC0415  optional: android_world's android_env
    except ImportError as err:  # pragma: no cover - exercised only without android_env
        raise NativeUnavailable(f"android_env is not importable ({err}); install android_world from its "
                                f"repository, which brings it") from None
    return errors


class DeviceAdbController:
    """android_env's AdbController interface over the harness's Device."""

    def __init__(self, device: Device):
        self.device = device
        self.commands: list[list[str]] = []  # every command line, for the record and for tests

    def execute_command(self, args: list[str], timeout: float | None = None, device_specific: bool = True) -> bytes:
        args = [str(a) for a in args]
        self.commands.append(args)
        if args[:1] == ["shell"]:
            # adb's client joins a shell command's words with spaces, quoting none of them
            output, status = self._shell(" ".join(args[1:]), timeout)
        elif args == ["root"]:
            output, status = self._root(), 0
        else:
            output, status = (f"this controller runs `adb shell` and `adb root`, not `adb {' '.join(args)}`",
                              1)
        if status != 0:
            raise _errors().AdbControllerError(
                f"Error executing adb command: [adb {' '.join(args)}]\nCaused by: exit status {status}: {output}")
        return output.encode()

    def _shell(self, command: str, timeout: float | None) -> tuple[str, int]:
        # The v1 shell loses the exit status; the last line carries it (adbutils' shell2 does the same)
        raw = self.device.shell(f"{command}\necho {_EXIT}$?", timeout=timeout)
        head, _, status = raw.rpartition(_EXIT)
        match = re.match(r"\d+", status)
        return head, int(match.group()) if match else 255

    def _root(self) -> str:
        import adbutils  # noqa: PLC0415  adbutils, on the root path only

        client = adbutils.AdbClient(host=self.device.adb_host, port=self.device.adb_port)
        return client.device(self.device.serial).root()


class AdbEnv:
    """What a TaskEval method takes as `env`: `.controller.execute_adb_call(request)` answered by android_env's
    AdbCallParser over our controller, and the `interaction_cache` an answer task reads."""

    def __init__(self, device: Device):
        try:
            from android_env.components import adb_call_parser  # noqa: PLC0415  optional: android_world's android_env
        except ImportError as err:
            raise NativeUnavailable(f"android_env is not importable ({err})") from None
        self.adb = DeviceAdbController(device)
        self._parser = adb_call_parser.AdbCallParser(self.adb)
        self.controller = self
        self.interaction_cache = ""

    def execute_adb_call(self, request: Any) -> Any:
        return self._parser.parse(request)


def native_class(name: str) -> type:
    """AndroidWorld's TaskEval class of that name. Raises NativeUnavailable when android_world is not importable
    or has no such class."""
    for module_name in NATIVE_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError as err:
            raise NativeUnavailable(f"android_world is not importable ({err})") from None
        if hasattr(module, name):
            return getattr(module, name)
    raise NativeUnavailable(f"android_world defines no task class {name}")


def native_twin(task: Task, task_eval_class: type) -> Task:
    """Our task with AndroidWorld's own setup and grader: a fresh `task_eval_class(params)` per trial,
    `initialize_task` as the precondition, `is_successful`'s score as the outcome (reached at 1.0), `tear_down`
    right after, as AndroidWorld's runner does. The prompt (our template is the class's) and the controls stay
    ours."""
    running: dict[str, Any] = {}

    def precondition(device: Device, params: dict) -> None:
        env = AdbEnv(device)
        instance = task_eval_class(dict(params))
        if getattr(instance, "start_on_home_screen", True):
            device.shell("input keyevent KEYCODE_HOME")  # AndroidWorld's runner resets the env home first
        instance.initialize_task(env)
        running.update(env=env, instance=instance)

    def outcome(device: Device, params: dict) -> Outcome:
        env, instance = running.pop("env"), running.pop("instance")
        try:
            value = float(instance.is_successful(env))
        finally:
            instance.tear_down(env)
        return Outcome(reached=value == 1.0, observed=f"AndroidWorld {task_eval_class.__name__}.is_successful: "
                                                      f"{value:g}")

    return dataclasses.replace(task, id=f"{task.id}.native", slug=f"{task.slug}-native", precondition=precondition,
                               outcome=outcome, source=f"{task.source} (AndroidWorld's own "
                                                       f"{task_eval_class.__name__})")

