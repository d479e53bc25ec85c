"""How long t25 takes to grade an answer, and where the time goes. Prints medians in seconds.

On the virtual device (clock at real speed, as the main job runs it), per round:

    long test, <build>   one run of the 97-step long test in process, over one already-started tool server
                         (the assertion timeout at the grader's 4 s, so a bug build's failing waits count in full)
    grade, reference     t25's whole grade of the reference answer: three `mobium-evals test` processes, one per
                         build, each with its own fresh tool server, stopping at the first failed test
    grade, wrong         the same for the wrong fold (its back_drops_item run passes every test, so runs in full)
    tool server start    `Tools(ToolServerSpec.builtin(...))` to its handshake: the fixed cost in each grade run

    python probes/bench_t25.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_mobium_evals import sim  # noqa: E402
from pytest_mobium_evals.commands.testfile import run_file  # noqa: E402
from pytest_mobium_evals.reach.device import Device  # noqa: E402
from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec  # noqa: E402


def load_t25():
    path = ROOT / "tasks" / "t25" / "test_t25_refactor_test.py"
    spec = importlib.util.spec_from_file_location("bench_t25_task", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    t25 = load_t25()
    times: dict[str, list[float]] = {}

    def timed(label: str, fn):
        start = time.monotonic()
        value = fn()
        times.setdefault(label, []).append(time.monotonic() - start)
        return value

    with sim.start(devices=1) as server:
        serial = server.serials[0]
        device = Device.connect(serial, "127.0.0.1", server.port)
        device.reset_app(t25.PACKAGE, ready_testid="productList")
        spec = ToolServerSpec.builtin(serial, "127.0.0.1", server.port)
        for _ in range(args.rounds):
            tools = timed("tool server start", lambda: Tools(spec))
            try:
                for build in (t25.CORRECT, *t25.BUGS):
                    t25.use_build(device, build)
                    result = timed(f"long test, {build}", lambda tools=tools: run_file(
                        t25.LONG_TEST, tools, assertion_timeout_ms=t25.ASSERTION_TIMEOUT_MS))
                    want = "passed" if build == t25.CORRECT else "failed"
                    if result.status != want:
                        print(f"unexpected: the long test {result.status} on {build}: {result.summary()}")
                        return 1
                t25.use_build(device, t25.CORRECT)
            finally:
                tools.close()
            for name, path, reached in (("reference", t25.REFERENCE_TEST, True), ("wrong", t25.WRONG_TEST, False)):
                outcome = timed(f"grade, {name}", lambda path=path: t25.grade_answer(path.read_text(), device))
                if outcome.reached is not reached:
                    print(f"unexpected: the {name} answer graded {outcome.reached}: {outcome.observed}")
                    return 1
    width = max(len(k) for k in times)
    print(f"t25 on the virtual device, {args.rounds} rounds (median, min-max seconds)")
    for label, values in times.items():
        print(f"  {label:<{width}}  {statistics.median(values):6.2f}  ({min(values):.2f}-{max(values):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
