"""Benchmark (not a test): one screen read by the built-in server, by `uiautomator dump` and through the UiAutomator2
server on the device, at both paces, on MobiumApp's home screen; and whether the two readings hold the same elements.

    python probes/bench_uia2.py [--n 5]

The server's two APKs come from .clients/ (npm's appium-uiautomator2-server@10.6.6, as .ci/run installs it) or
$MOBIUM_EVALS_CLIENTS; they are installed on the virtual device as Mobium installs them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("ADBUTILS_ADB_PATH", "/bin/false")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pytest_mobium_evals import sim  # noqa: E402
from pytest_mobium_evals.mobium_server.device import AdbLink  # noqa: E402

APKS = ("appium-uiautomator2-server-v10.6.6.apk", "appium-uiautomator2-server-debug-androidTest.apk")


def reads(link: AdbLink, n: int) -> tuple[list[float], list]:
    times, snap = [], None
    for _ in range(n):
        t = time.perf_counter()
        snap = link.snapshot()
        times.append(time.perf_counter() - t)
    return times, snap


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5, help="reads per way and pace (default 5)")
    args = parser.parse_args()
    folder = Path(os.environ.get("MOBIUM_EVALS_CLIENTS") or Path(__file__).resolve().parents[1] / ".clients")
    paths = [folder / "node_modules" / "appium-uiautomator2-server" / "apks" / name for name in APKS]
    if not all(p.is_file() for p in paths):
        print(f"bench_uia2: the server's APKs are not in {folder}: run `npm install --prefix .clients "
              "appium-uiautomator2-server@10.6.6`", file=sys.stderr)
        return 2
    for pace in ("fast", "emulator"):
        with sim.start(devices=1, pace=pace) as server:
            device = server.device()
            serial = server.serials[0]
            AdbLink(serial, "127.0.0.1", server.port).shell("am start -W -n dev.mobium.mobiumapp/.MainActivity")
            dump_times, by_dump = reads(AdbLink(serial, "127.0.0.1", server.port), args.n)
            for p in paths:
                device.install_apk(p.read_bytes(), grant_runtime=True)
            link = AdbLink(serial, "127.0.0.1", server.port)
            t = time.perf_counter()
            link.snapshot()  # starts the server: am instrument, forward, session, idle wait capped
            start = time.perf_counter() - t
            server_times, by_server = reads(link, args.n)
            same = [(n.rid, n.cls, n.text, n.bounds) for n in by_dump.nodes] == \
                [(n.rid, n.cls, n.text, n.bounds) for n in by_server.nodes]
            print(f"{pace:>8}: dump {statistics.median(dump_times):.3f} s, through the server "
                  f"{statistics.median(server_times):.3f} s (median of {args.n}; the first, which starts it, "
                  f"{start:.3f} s); {len(by_server.nodes)} elements, the same both ways: {same}")
            link.uia2.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
