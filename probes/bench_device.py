"""Benchmark of the virtual device (not a test): prints medians and p95s.

    python probes/bench_device.py [--n 200]

1. shell round trip: `shell:true` over a raw socket (what the server costs), and through adbutils 2.12 as shipped
   (adbutils sleeps 10 ms on closing each of its two connections, host:version and the shell) and with that sleep
   patched out. Target: under 5 ms.
2. `uiautomator dump` to a file, over ADB, on MobiumApp's menu; plus the in-process render+dump. Target: under 50 ms.
3. `pm clear` plus launching MobiumApp to its menu (am start -W, then a dump that shows the menu). Target: 100 ms.
4. `screencap -p` over ADB (no target; the MCP server's screenshots).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import time

os.environ.setdefault("ADBUTILS_ADB_PATH", "/bin/false")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import adbutils  # noqa: E402
import adbutils._adb  # noqa: E402

from pytest_mobium_evals import sim  # noqa: E402

MOBIUM = "dev.mobium.mobiumapp"


def raw_shell(port: int, serial: str, cmd: str) -> bytes:
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        req = f"host:tport:serial:{serial}".encode()
        s.sendall(b"%04x" % len(req) + req)
        head = b""
        while len(head) < 12:
            head += s.recv(12 - len(head))
        assert head[:4] == b"OKAY", head
        req = f"shell:{cmd}".encode()
        s.sendall(b"%04x" % len(req) + req)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        assert data[:4] == b"OKAY", data[:40]
        return data[4:]


def measure(fn, n: int) -> list[float]:
    fn()  # warm up
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return times


def report(name: str, times: list[float], target: float | None = None) -> None:
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    med = statistics.median(times)
    verdict = "" if target is None else ("  ok" if med < target else f"  OVER the {target:g} ms target")
    print(f"{name:<58} median {med:7.2f} ms   p95 {p95:7.2f} ms   (n={len(times)}){verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="repetitions per measurement (default 200)")
    args = parser.parse_args()
    n = max(5, args.n)
    with sim.start(devices=1) as server:
        serial = server.serials[0]
        port = server.port
        client = adbutils.AdbClient("127.0.0.1", port, socket_timeout=10)
        d = client.device(serial)

        report("shell round trip, raw socket (`shell:true`)", measure(lambda: raw_shell(port, serial, "true"), n),
               5)
        report("shell round trip, adbutils d.shell('true') as shipped", measure(lambda: d.shell("true"), n // 4))
        original_sleep = adbutils._adb.time.sleep

        class _NoSleep:
            def __getattr__(self, name):
                return getattr(time, name)

            @staticmethod
            def sleep(_):
                return None
        adbutils._adb.time = _NoSleep()
        try:
            report("shell round trip, adbutils without its 2x10 ms close sleep",
                   measure(lambda: d.shell("true"), n), 5)
        finally:
            adbutils._adb.time = time
            assert adbutils._adb.time.sleep is original_sleep

        raw_shell(port, serial, f"am start -W -n {MOBIUM}/.MainActivity")
        report("uiautomator dump to a file, raw socket (MobiumApp menu)",
               measure(lambda: raw_shell(port, serial, "uiautomator dump /sdcard/window_dump.xml"), n), 50)
        report("uiautomator dump /dev/tty, raw socket (MobiumApp menu)",
               measure(lambda: raw_shell(port, serial, "uiautomator dump /dev/tty"), n), 50)
        device = server.device(serial)
        report("render + dump in process (MobiumApp menu)", measure(device.dump_xml, n), 20)

        def clear_and_launch() -> None:
            out = raw_shell(port, serial, f"pm clear {MOBIUM}")
            assert out == b"Success\n", out
            out = raw_shell(port, serial, f"am start -W -n {MOBIUM}/.MainActivity")
            assert b"Status: ok" in out, out
            xml = raw_shell(port, serial, "uiautomator dump /dev/tty")
            assert b'resource-id="loginBtn"' in xml, xml[-300:]
        report("pm clear + am start -W + dump showing the menu", measure(clear_and_launch, max(5, n // 2)), 100)
        report("screencap -p, raw socket", measure(lambda: raw_shell(port, serial, "screencap -p"), max(5, n // 10)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
