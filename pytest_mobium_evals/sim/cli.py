"""`mobium-evals sim`: run virtual devices behind an ADB server in the foreground until Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from . import PACES, PaceError, start
from .faults import FaultSpecError

DEFAULT_PORT = 5037  # adb's own default, so `adb devices` finds it without -P when no real server is running


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"TCP port for the ADB server (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address the ADB server listens on (default 127.0.0.1, this machine only; 0.0.0.0 "
                             "serves the devices to other hosts, as `adb -a` does, for workers there)")
    parser.add_argument("--devices", type=int, default=1, help="how many devices: emulator-5554, emulator-5556, …")
    parser.add_argument("--clock-speed", type=float, default=1.0,
                        help="device time per real second (default 1.0: real time)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the devices' randomness (the Busy Demo's delays); default per serial")
    parser.add_argument("--fault", default=None, metavar="KIND:after=N",
                        help="misbehave on purpose, for testing a harness: drop, hang or garbage after the Nth "
                             "device command (e.g. drop:after=40)")
    parser.add_argument("--pace", choices=sorted(PACES), default=None,
                        help="how long device commands take: fast (at once) or emulator (as an Android 15 "
                             "emulator: a uiautomator dump 1.5 s, a swipe its duration); default fast, or "
                             "$MOBIUM_EVALS_SIM_PACE")
    parser.add_argument("--console", action="store_true",
                        help="serve each device's emulator console on 127.0.0.1 (what `adb emu` reaches), its "
                             "serial naming the port as an emulator's does: the first free pair from 5554")


def _refuse(message: str) -> int:
    # Printed here rather than raised as the router's UsageError: the virtual device imports nothing of the harness.
    print(f"mobium-evals sim: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        return _refuse(f"--port must be 0 to 65535, got {args.port}")
    if not 1 <= args.devices <= 64:
        return _refuse(f"--devices must be 1 to 64, got {args.devices}")
    if not args.clock_speed > 0:
        return _refuse(f"--clock-speed must be > 0, got {args.clock_speed}")
    try:
        server = start(devices=args.devices, port=args.port, clock_speed=args.clock_speed, seed=args.seed,
                       fault=args.fault, pace=args.pace, console=args.console, host=args.host)
    except FaultSpecError as exc:
        return _refuse(f"--fault: {exc}")
    except PaceError as exc:
        return _refuse(f"--pace: {exc}")
    except OSError as exc:
        hint = " (is a real adb server running? try --port 0)" if args.port == DEFAULT_PORT else ""
        return _refuse(f"{exc}{hint}")
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        reach = ("" if server.host == "127.0.0.1" else f"-H {server.host} ") + f"-P {server.port}"
        print(f"port={server.port} serials={','.join(server.serials)} pace={server.pace.name} "
              f"(adb {reach} devices)", flush=True)
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.close()
    return 0
