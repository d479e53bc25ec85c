"""Round-trip times of the built-in Mobium server's app_map and app_tap on the virtual device, through the MCP
stdio client as a driver sees them. Prints medians (and p90) in milliseconds.

Targets (issue 3): app_map under 100 ms, app_tap under 150 ms beyond the app's own waits. The tap target is the
Form Demo's "Email me" checkbox, which answers at once (no app delay to subtract).

    python probes/bench_tools.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import statistics
import time

from pytest_mobium_evals import sim
from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec

APP = "dev.mobium.mobiumapp"


def timed(fn, rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def report(name: str, ms: list[float], target: float) -> None:
    ms = sorted(ms)
    p90 = ms[int(len(ms) * 0.9) - 1]
    med = statistics.median(ms)
    verdict = "ok" if med < target else "OVER"
    print(f"{name:<28} median {med:6.1f} ms   p90 {p90:6.1f} ms   n={len(ms):<3}  target <{target:g} ms: {verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40)
    args = ap.parse_args()
    with sim.start(devices=1) as server:
        with Tools(ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port)) as tools:
            tools.call("app_launch", app=APP)
            tools.call("app_tap", target="label=Form Demo")
            tools.call("app_map")
            report("app_map (Form Demo)", timed(lambda: tools.call("app_map"), args.rounds), 100)
            report("app_tap testid= (after map)", timed(lambda: tools.call("app_tap", target="testid=notifyCheck"),
                                                        args.rounds), 150)
            ref = next(e["ref"] for e in tools.call("app_map").data["elements"] if e["label"] == "Email me")
            report("app_tap @ref", timed(lambda: tools.call("app_tap", target=ref), args.rounds), 150)
            report("app_tap x/y", timed(lambda: tools.call("app_tap", x=540, y=1200), args.rounds), 150)
            report("app_devices", timed(lambda: tools.call("app_devices"), max(5, args.rounds // 4)), 1000)
            tools.call("app_press", button="back")
            tools.call("app_map")
            report("app_map (home menu)", timed(lambda: tools.call("app_map"), args.rounds), 100)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
