"""What the surface proxy costs a call: the built-in server on the virtual device, reached directly and through the
proxy (baseline, the identity, and units-in-map, which rewrites every app_map), alternating round by round so drift
hits all three alike. Prints medians and p90 in milliseconds and the median overhead a call. (Start-up is not
compared: each side cold-starts its own server, which dwarfs the proxy's bare-Python start.)

    python probes/bench_surface.py [--rounds 60]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from pytest_mobium_evals import sim
from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec
from pytest_mobium_evals.surface import proxy as surface_proxy
from pytest_mobium_evals.surface import variants as surfaces

ROOT = Path(__file__).resolve().parents[1]
APP = "dev.mobium.mobiumapp"


def ms(tools: Tools, tool: str) -> float:
    t0 = time.perf_counter()
    tools.call(tool)
    return (time.perf_counter() - t0) * 1000


def line(name: str, values: list[float]) -> str:
    values = sorted(values)
    return (f"{name:<34} median {statistics.median(values):7.2f} ms   p90 {values[int(len(values) * 0.9) - 1]:7.2f} ms"
            f"   n={len(values)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=60)
    args = ap.parse_args()
    with sim.start(devices=1) as server:
        raw = ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port)
        sides = {"direct": (raw, None)}
        for name in ("baseline", "units-in-map"):
            spec, seen = surface_proxy.wrap_for_trial(raw, surfaces.load(name, ROOT).plain())
            sides[f"proxy {name}"] = (spec, seen)
        clients = {name: Tools(spec, timeout=60) for name, (spec, _) in sides.items()}
        try:
            first = clients["direct"]
            first.call("app_launch", app=APP)
            first.call("app_scroll_to", target="label=Slider Demo", direction="down")
            first.call("app_tap", target="label=Slider Demo")
            times = {(name, tool): [] for name in clients for tool in ("app_map", "app_current")}
            for _ in range(args.rounds):
                for name, tools in clients.items():
                    for tool in ("app_map", "app_current"):
                        times[(name, tool)].append(ms(tools, tool))
        finally:
            for tools in clients.values():
                tools.close()
    for tool in ("app_map", "app_current"):
        for name in clients:
            print(line(f"{tool} {name}", times[(name, tool)]))
        direct = statistics.median(times[("direct", tool)])
        for name in clients:
            if name != "direct":
                print(f"  overhead {name:<24} {statistics.median(times[(name, tool)]) - direct:+7.2f} ms a call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
