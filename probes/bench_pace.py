"""Benchmark of the virtual device's pace (not a test): each command's median latency over ADB at `fast` and at
`emulator`, beside the figure the emulator pace takes from documented Android behaviour.

    python probes/bench_pace.py [--n 5]

Every command runs on MobiumApp through adbutils, as the harness and the built-in Mobium server send it. "moving"
reads the Motion Demo while a confetti burst falls (Celebrate pressed just before each read).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time

os.environ.setdefault("ADBUTILS_ADB_PATH", "/bin/false")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import adbutils  # noqa: E402

from pytest_mobium_evals import sim  # noqa: E402

APP = "dev.mobium.mobiumapp"
COMPONENT = f"{APP}/.MainActivity"

# command -> (what an Android 15 emulator takes, where the figure comes from). The manual's table says the same.
DOCUMENTED = {
    "uiautomator dump (still)": ("1-2 s", "issue 25: the seed's map took 1.96 s"),
    "uiautomator dump (moving)": ("1.3-1.7 s", "Mobium CHALLENGES 109: reads mid-burst, idle wait 500 ms"),
    "screencap -p": ("0.13 s", "Mobium CHALLENGES 10: adb exec-out screencap"),
    "input tap": ("~0.1 s", "estimate: Android 12+ `input` is `cmd input`, no VM start"),
    "input swipe ... 800": ("0.8 s + tap", "InputShellCommand injects moves over the duration"),
    "input text hello": ("tap + 5 keys", "estimate: a key down and up per character"),
    "am start -W (cold)": ("TotalTime", "the TotalTime the virtual device reports: 380 ms cold"),
    "am force-stop": ("~0.2 s", "estimate"),
    "pm clear": ("~0.6 s", "estimate: the app killed, its data removed"),
    "settings put": ("~0.1 s", "estimate: one binder call through `cmd settings`"),
}


def centre_of(xml: str, rid: str) -> tuple[int, int]:
    m = re.search(rf'resource-id="{rid}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml)
    if m is None:
        raise SystemExit(f"bench_pace: {rid} is not on screen")
    x1, y1, x2, y2 = map(int, m.groups())
    return (x1 + x2) // 2, (y1 + y2) // 2


def tap_id(d, rid: str) -> None:
    d.shell(f"input tap {' '.join(map(str, centre_of(d.shell('uiautomator dump /dev/tty'), rid)))}")


def timed(fn, n: int, before=None) -> float:
    times = []
    for _ in range(n):
        if before is not None:
            before()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def measure(pace: str, n: int) -> dict[str, float]:
    with sim.start(devices=1, pace=pace) as server:
        d = adbutils.AdbClient("127.0.0.1", server.port, socket_timeout=60).device(server.serials[0])
        d.shell(f"am start -W -n {COMPONENT}")
        got = {
            "uiautomator dump (still)": timed(lambda: d.shell("uiautomator dump /sdcard/w.xml"), n),
            "screencap -p": timed(lambda: d.shell("screencap -p > /sdcard/s.png"), n),
            "input tap": timed(lambda: d.shell("input tap 20 2300"), n),
            "input swipe ... 800": timed(lambda: d.shell("input swipe 540 2000 540 1990 800"), n),
            "input text hello": timed(lambda: d.shell("input text hello"), n),
            "settings put": timed(lambda: d.shell("settings put global bench_pace 1"), n),
            "am force-stop": timed(lambda: d.shell(f"am force-stop {APP}"), n),
            "am start -W (cold)": timed(lambda: d.shell(f"am start -W -n {COMPONENT}"), n,
                                        before=lambda: d.shell(f"am force-stop {APP}")),
            "pm clear": timed(lambda: d.shell(f"pm clear {APP}"), n),
        }
        d.shell(f"am start -W -n {COMPONENT}")
        tap_id(d, "motionBtn")
        celebrate = centre_of(d.shell("uiautomator dump /dev/tty"), "celebrateBtn")
        got["uiautomator dump (moving)"] = timed(lambda: d.shell("uiautomator dump /sdcard/w.xml"), n,
                                                 before=lambda: d.shell("input tap %d %d" % celebrate))
        return got


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5, help="repetitions per command and pace (default 5)")
    args = parser.parse_args()
    n = max(1, args.n)
    fast, emulator = measure("fast", n), measure("emulator", n)
    print(f"{'command (median of ' + str(n) + ')':<28} {'fast':>8} {'emulator':>9}   {'documented':<12} source")
    for name, (figure, source) in DOCUMENTED.items():
        print(f"{name:<28} {fast[name]:>7.3f}s {emulator[name]:>8.3f}s   {figure:<12} {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
