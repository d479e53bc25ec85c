"""Benchmark of installs on the virtual device (not a test): prints seconds per step, as Mobium's default driver
runs them with Debian's stock adb.

    python probes/bench_install.py [--n 3]

1. reading the 18 MB UiAutomator2 server APK's manifest (zip, binary XML, resources.arsc, sha256), in process;
2. `adb install -r -g` of each of the two APKs Mobium pins (streamed through abb_exec), then `adb forward tcp:0
   tcp:6790` and `adb uninstall` of both, each timed around the stock client's process.

The APKs come from npm (`.clients/`, or $MOBIUM_EVALS_CLIENTS: `npm install --prefix .clients
appium-uiautomator2-server@10.6.6`); the stock client is `adb` on PATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pytest_mobium_evals import sim  # noqa: E402
from pytest_mobium_evals.sim.apk import read_apk  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SERIAL = "emulator-5554"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3, help="rounds per step (default 3)")
    args = parser.parse_args()
    apks = Path(os.environ.get("MOBIUM_EVALS_CLIENTS") or ROOT / ".clients") / "node_modules" / \
        "appium-uiautomator2-server" / "apks"
    server, tests = apks / "appium-uiautomator2-server-v10.6.6.apk", \
        apks / "appium-uiautomator2-server-debug-androidTest.apk"
    adb = shutil.which("adb")
    if not server.is_file() or adb is None:
        print(f"needs {server} (npm install --prefix .clients appium-uiautomator2-server@10.6.6) and adb on PATH",
              file=sys.stderr)
        return 2
    data = server.read_bytes()
    times = []
    for _ in range(args.n):
        t = time.perf_counter()
        read_apk(data)
        times.append(time.perf_counter() - t)
    print(f"read_apk, {len(data)} bytes: median {statistics.median(times):.3f} s")
    steps: dict[str, list[float]] = {}
    with sim.start() as s:
        def run(name: str, *argv: str) -> None:
            t = time.perf_counter()
            r = subprocess.run([adb, "-P", str(s.port), "-s", SERIAL, *argv], capture_output=True, text=True)
            steps.setdefault(name, []).append(time.perf_counter() - t)
            if r.returncode != 0:
                raise SystemExit(f"{name}: exit {r.returncode}: {r.stderr.strip() or r.stdout.strip()}")
        for _ in range(args.n):
            run(f"adb install -r -g {server.name}", "install", "-r", "-g", str(server))
            run(f"adb install -r -g {tests.name}", "install", "-r", "-g", str(tests))
            run("adb forward tcp:0 tcp:6790", "forward", "tcp:0", "tcp:6790")
            run("adb forward --remove-all", "forward", "--remove-all")
            run("adb uninstall io.appium.uiautomator2.server.test", "uninstall", "io.appium.uiautomator2.server.test")
            run("adb uninstall io.appium.uiautomator2.server", "uninstall", "io.appium.uiautomator2.server")
    for name, values in steps.items():
        print(f"{name}: median {statistics.median(values):.3f} s (n={len(values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
