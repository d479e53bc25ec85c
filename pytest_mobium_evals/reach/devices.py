"""Which device a session, or an xdist worker, drives.

`--device sim` (the default): the process that runs trials starts a virtual device of its own (one per xdist
worker, each on its own port), so `-n 2` simply works. `--device sim:N`: one virtual ADB server with N devices,
started by the controller; worker i leases the i-th serial. `--device DEVICE[,DEVICE…]`: real devices, each a
plain `SERIAL` behind the ADB server at `--adb HOST:PORT`, or `HOST:PORT/SERIAL` behind an ADB server of its own
(devices on several hosts, or several emulators' servers, in one run); worker i leases the i-th.

A device that is not there is one clear line before any trial (`DeviceUnavailable`, turned into a usage error by
the plugin), never a traceback halfway through a run. HOST:PORT is read in one place, `parse_host_port`."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Optional

from pytest_mobium_evals.core.errors import DeviceUnavailable
from pytest_mobium_evals.runfolder.reading import session_prepared_server
from pytest_mobium_evals.runfolder.writing import write_session_device, write_session_prepared_server

from .device import Device, DeviceError
from .toolserver import (
    PREPARED_SERVER_ENV,
    PreparedServer,
    ToolServerSpec,
    offered_from_above,
    server_name,
    tool_server_words,
)
from .toolserver_faults import wrap_if_asked

DEFAULT_ADB_PORT = 5037


@dataclass(frozen=True)
class Target:
    """One device and the ADB server that holds it. `host` None: the server named by `--adb`."""

    serial: str
    host: Optional[str] = None
    port: Optional[int] = None

    def on(self, adb: tuple[str, int]) -> "Target":
        """This device with its ADB server filled in from `--adb` when it names none of its own."""
        return self if self.host is not None else Target(self.serial, *adb)

    def __str__(self) -> str:
        return self.serial if self.host is None else f"{self.host}:{self.port}/{self.serial}"


@dataclass(frozen=True)
class DeviceSpec:
    kind: str  # "sim" | "serials"
    count: Optional[int] = None  # sim:N
    targets: tuple[Target, ...] = ()

    @property
    def serials(self) -> tuple[str, ...]:
        return tuple(t.serial for t in self.targets)

    @property
    def shared_sim(self) -> bool:
        """One sim server for the whole session (sim:N), as opposed to one per process (sim)."""
        return self.kind == "sim" and self.count is not None

    def describe(self) -> str:
        if self.kind == "sim":
            return "virtual device" + (f" ×{self.count}" if self.count else "")
        return ",".join(str(t) for t in self.targets)


def parse_device(text: str) -> DeviceSpec:
    text = (text or "").strip()
    if text == "sim":
        return DeviceSpec("sim")
    m = re.fullmatch(r"sim:(\d+)", text)
    if m:
        count = int(m.group(1))
        if count < 1:
            raise DeviceUnavailable(f"--device {text}: a virtual device count must be at least 1")
        return DeviceSpec("sim", count=count)
    if text.startswith("sim"):
        raise DeviceUnavailable(f"--device {text}: expected sim or sim:N (N virtual devices)")
    entries = [s.strip() for s in text.split(",") if s.strip()]
    if not entries:
        raise DeviceUnavailable("--device: empty; give sim, sim:N or SERIAL[,SERIAL…] (or HOST:PORT/SERIAL)")
    targets = tuple(_target(entry) for entry in entries)
    if len(set(targets)) != len(targets):
        raise DeviceUnavailable(f"--device {text}: a device is listed twice")
    return DeviceSpec("serials", targets=targets)


def _target(entry: str) -> Target:
    server, sep, serial = entry.rpartition("/")
    if not re.fullmatch(r"[\w.:\-]+", serial):
        raise DeviceUnavailable(f"--device: {entry!r} is not a device serial (or HOST:PORT/SERIAL)")
    if not sep:
        return Target(serial)
    host, port = parse_host_port(server, f"--device {entry}", default_port=None)
    return Target(serial, host, port)


def parse_host_port(text: str, where: str, default_port: Optional[int] = DEFAULT_ADB_PORT) -> tuple[str, int]:
    """HOST:PORT (an ADB server's address) → (host, port); an empty host is this machine, a missing port the
    default when there is one. Anything else is a DeviceUnavailable naming `where`."""
    text = (text or "").strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        if default_port is None:
            raise DeviceUnavailable(f"{where}: expected HOST:PORT, e.g. 127.0.0.1:5037")
        host, port = text, str(default_port)
    if not host:
        host = "127.0.0.1"
    if not re.fullmatch(r"[\w.\-]+|\[[0-9a-fA-F:]+\]", host):
        raise DeviceUnavailable(f"{where}: {host!r} is not a host name")
    try:
        number = int(port)
    except ValueError:
        raise DeviceUnavailable(f"{where}: expected HOST:PORT, e.g. 127.0.0.1:5037") from None
    if not 0 < number < 65536:
        raise DeviceUnavailable(f"{where}: port {number} is out of range")
    return host.strip("[]"), number


def parse_adb(text: str) -> tuple[str, int]:
    return parse_host_port(text, f"--adb {(text or '').strip()}")


def worker_index(workerinput: Optional[dict] = None) -> int:
    """0 outside xdist; the worker's number under it ("gw3" → 3)."""
    # Not PYTEST_XDIST_WORKER: a pytest started from inside a worker (pytester) inherits it without being one.
    worker = (workerinput or {}).get("workerid") or ""
    m = re.fullmatch(r"gw(\d+)", worker)
    return int(m.group(1)) if m else 0


def worker_count(workerinput: Optional[dict] = None) -> int:
    value = (workerinput or {}).get("workercount")
    return int(value) if value else 1


def lease(targets: tuple, index: int, workers: int):
    """The device worker `index` drives. More workers than devices would make two workers share one device
    (and corrupt each other's trials), so that is refused up front."""
    if workers > len(targets):
        raise DeviceUnavailable(
            f"{workers} xdist workers but {len(targets)} device(s) ({', '.join(map(str, targets))}): give one device "
            f"per worker (--device sim:{workers}, or more devices) or fewer workers (-n {len(targets)})")
    return targets[index]


def check_devices(spec: DeviceSpec, adb: tuple[str, int]) -> None:
    """Every listed device is attached and online at its ADB server. Otherwise one line for each device that is
    not, all of them at once (a fleet over several servers is fixed in one go, not one error a run)."""
    import adbutils  # noqa: PLC0415  adbutils, only when devices are checked

    problems, states = [], {}
    for target in (t.on(adb) for t in spec.targets):
        server = (target.host, target.port)
        if server not in states:
            client = adbutils.AdbClient(host=target.host, port=target.port, socket_timeout=10)
            try:
                states[server] = {d.serial: d.state for d in client.list()}
            except Exception as exc:  # AdbError, AdbConnectionError, OSError
                states[server] = f"cannot reach the ADB server at {target.host}:{target.port}: {exc}"
        attached = states[server]
        if isinstance(attached, str):
            problems.append(f"device {target.serial}: {attached}" if len(spec.targets) > 1 else attached)
            continue
        state = attached.get(target.serial)
        if state is None:
            problems.append(f"device {target.serial} is not attached to the ADB server at {target.host}:"
                            f"{target.port} (attached: {', '.join(sorted(attached)) or 'none'})")
        elif state != "device":
            problems.append(f"device {target.serial} at {target.host}:{target.port} is {state}, not ready")
    if problems:
        raise DeviceUnavailable("\n".join(problems))


def start_sim(devices: int, clock_speed: float, pace: str = "fast", console: bool = False):
    """Start the virtual device (an in-process ADB server) at `pace` (`fast` or `emulator`), with an emulator
    console per device when asked (what `adb emu` reaches). Returns the SimServer (`.port`, `.serials`,
    `.close()`)."""
    from pytest_mobium_evals import sim  # noqa: PLC0415  the virtual device loads Pillow and lxml

    try:
        return sim.start(devices=devices, port=0, clock_speed=clock_speed, pace=pace, console=console)
    except OSError as exc:
        raise DeviceUnavailable(f"--device sim: {exc}") from None


APP_PACKAGE_PROPERTY = "dev.mobium.mobiumapp"  # the package whose version the device record carries


class DeviceLease:
    """The device this process drives for the session, with what serves it: a virtual device this process started
    (one of its own, or sim:N's shared server on the controller), the built-in tool server prepared once and forked
    per trial, and the device's properties for the record. Made from the run's options; the session holds one."""

    def __init__(self, device: str, adb: str, clock_speed: float, pace: str, tool_timeout: float,
                 mobium_bin: Optional[str], workerinput: Optional[dict] = None, sim_port: Optional[int] = None,
                 mobium_driver: Optional[str] = None, mobium_env: Optional[dict] = None,
                 tool_server: Optional[str] = None, run_dir: Optional[str] = None):
        self.spec_text, self.adb = device, adb
        self.clock_speed, self.pace = clock_speed, pace  # a virtual device's clock and pace (--device-pace)
        self.tool_timeout, self.mobium_bin = tool_timeout, mobium_bin
        self.mobium_driver, self.mobium_env = mobium_driver, mobium_env  # passed to Mobium's binary
        self.tool_server = tool_server  # --tool-server: the agent's server in place of Mobium
        # Another server may drive the emulator the way its users' do, through `adb emu` (mobile-mcp's location):
        # the virtual device then serves an emulator console, as an emulator does.
        self.console = bool(tool_server)
        self.workerinput = workerinput or {}
        self.run_dir = run_dir  # where a controller names the tool server it prepared for its workers
        self.sim_port = sim_port  # sim:N: the controller's shared virtual ADB server
        self.sim = None
        self.device = None
        self.prepared = None  # toolserver.PreparedServer
        self.info: dict = {}

    def start_shared_sim(self, count: int) -> None:
        """sim:N under xdist, on the controller: serve the N devices that workers lease by index."""
        self.sim = start_sim(count, self.clock_speed, self.pace, console=self.console)
        self.sim_port = self.sim.port

    def lease(self):
        """The device (a device.Device), connected and with its baseline taken, the first time; the same after."""
        if self.device is not None:
            return self.device
        spec = parse_device(self.spec_text)
        index, workers = worker_index(self.workerinput), worker_count(self.workerinput)
        try:
            if spec.kind == "sim" and not spec.shared_sim:
                self.sim = start_sim(1, self.clock_speed, self.pace, console=self.console)
                serial, host, port = self.sim.serials[0], "127.0.0.1", self.sim.port
            elif spec.kind == "sim":
                if self.sim_port is None:  # no xdist: this process is the controller
                    self.start_shared_sim(spec.count)
                    serials = tuple(self.sim.serials)
                else:
                    serials = tuple(self.workerinput.get("mobium_sim_serials") or ())
                serial = lease(serials, index, workers)
                host, port = "127.0.0.1", self.sim_port
            else:
                target = lease(spec.targets, index, workers).on(parse_adb(self.adb))
                serial, host, port = target.serial, target.host, target.port
            if (not self.mobium_bin and self.prepared is None and not self._use_the_controllers_server()
                    and not offered_from_above()):
                # Started now, it imports while the device is checked and the first trial resets; offered to the
                # processes a trial starts (t25's runs of an answer). A run started under a process that offers
                # one (a pytest run in a session's test) forks from that one instead.
                self.prepared = PreparedServer(offer=True)
            # No single device command outlasts the tool timeout: a device that hangs ends the trial in time.
            bound = min(30.0, self.tool_timeout)
            device = Device.connect(serial, host, port, shell_timeout=bound, socket_timeout=bound)
            device.take_baseline()
            self.info = device.properties(APP_PACKAGE_PROPERTY)
        except DeviceUnavailable as exc:
            # The controller checked what it could before any worker started; what is left (a virtual device
            # that would not start) fails this process's trials as infrastructure errors, each saying why.
            raise DeviceError(str(exc)) from None
        self.device = device
        return device

    def prepare_for_workers(self, run_dir: str) -> None:
        """On xdist's controller, once its workers have collected trials and before it hands any out: one built-in
        server prepared for the workers on this machine (each trial's server a fresh fork of it, as it would be of
        a worker's own), named in the run folder's `.session/` where they look when they lease their device. The
        server is imported once a machine, not once a worker (its CPU, and about 70 MB a worker), and lives as
        long as the controller. Workers on other hosts prepare their own."""
        if self.mobium_bin or self.prepared is not None or offered_from_above():
            return  # a server offered from above reaches the workers as it reached this process: in the environment
        self.prepared = PreparedServer(offer=True)
        command = self.prepared.attach_command()  # its socket is bound before it says so: workers may attach at once
        if command is not None:
            write_session_prepared_server(run_dir, command)

    def _use_the_controllers_server(self) -> bool:
        """Whether this worker forks its trials' servers from the one its controller prepared (`prepare_for_workers`):
        offered then to this process and those it starts, as a server of its own would be."""
        if not self.run_dir or self.workerinput.get("mobium_remote"):
            return False
        command = session_prepared_server(self.run_dir)
        if command is None:
            return False
        os.environ[PREPARED_SERVER_ENV] = json.dumps(command)
        return True

    def write_info(self, run_dir: str) -> None:
        """The leased device's properties under the run folder's .session/, where the record gathers them."""
        write_session_device(run_dir, worker_index(self.workerinput), self.info)

    def server_spec(self, device):
        """What starts a trial's fresh tool server against `device`: Mobium's binary, or the built-in server."""
        if self.mobium_bin:
            spec = ToolServerSpec.mobium(self.mobium_bin, device.serial, device.adb_host, device.adb_port,
                                         driver=self.mobium_driver, env=self.mobium_env)
        else:
            spec = ToolServerSpec.builtin(device.serial, device.adb_host, device.adb_port, prepared=self.prepared)
        return wrap_if_asked(spec)

    def agent_server_spec(self, device):
        """What an agent trial's tool server is: `--tool-server`'s command on `device` when one was given (the
        controls keep Mobium's server, which their scripts are written for), else the same as the controls'."""
        if not self.tool_server:
            return self.server_spec(device)
        return wrap_if_asked(ToolServerSpec.external(self.tool_server, device.serial, device.adb_host,
                                                     device.adb_port))

    def agent_server_label(self) -> Optional[str]:
        """The agent's tool server as records name it: `NAME: COMMAND` for --tool-server; None for Mobium's."""
        if not self.tool_server:
            return None
        return f"{server_name(tool_server_words(self.tool_server))}: {self.tool_server}"

    def enter_phase(self, phase: str) -> None:
        """A trial of this process entered `phase`: a virtual device this process serves hears of it, so a fault
        planned for that phase fires there (sim/faults.py)."""
        if self.sim is not None:
            self.sim.faults.enter_phase(phase)

    def close(self) -> None:
        if self.prepared is not None:
            self.prepared.close()
            self.prepared = None
        if self.sim is not None:
            try:
                self.sim.close()
            finally:
                self.sim = None
