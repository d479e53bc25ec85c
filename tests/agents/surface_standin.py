"""An offline agent whose skill is fixed and whose knowledge is only what Mobium's surface tells it: the control of a
surface comparison (a null control, a known-better and a known-worse variant), one level above the task controls.

It reads what it is given — the tools/list descriptions, an error's message and remedy, the map's text — and
decides from that alone whether it knows enough. Knowing enough, it does what the task's reference script does
(through the same tools, so through the variant's proxy); missing a fact it needs, it does what the task's wrong
script does, as a model that guessed would. The facts, and where it looks for them:

- `remedy`: every task. Its first move misses on purpose (a tap on a label that is not there); it recovers only if
  the error says how (a remedy naming app_map), in the structured payload or in the text. The miss is a ref
  before any map: refused at once, nothing on screen moved.
- `units`: a task about a slider's value. It opens the Slider Demo and trusts a slider's line only if the line says
  the value is the app's own (not the seek bar's progress); the built-in server's map prints just the number.
- `loading`: a task about a list that loads as it scrolls. app_map's description must say a loading note means the
  list has not ended.

    runner = surface_runner(task, params)    # TrialEnv.agent_runner for one trial
"""

from __future__ import annotations

import re

from pytest_mobium_evals.core.tasks import Claim
from pytest_mobium_evals.drivers.controls import DriverRun
from pytest_mobium_evals.reach.toolserver import ToolError, Tools

SLIDER_TASKS = re.compile(r"slider|volume|balance", re.I)
LOADING_TASKS = re.compile(r"feed|loads as it scrolls|last row", re.I)
MISS = "@e999"  # a ref before any map: refused at once, with nothing moved on screen


def needs_of(task) -> set[str]:
    text = f"{task.prompt} {task.aims_at or ''}"
    needs = {"remedy"}
    if SLIDER_TASKS.search(text):
        needs.add("units")
    if LOADING_TASKS.search(text):
        needs.add("loading")
    return needs


def knows_remedy(tools: Tools) -> bool:
    res = tools.call("app_tap", target=MISS, check=False)
    remedy = (res.data or {}).get("remedy") or ""
    shown = re.search(r"\(remedy: (.*)\)", res.text or "")
    return res.is_error and "app_map" in (remedy or (shown.group(1) if shown else ""))


def knows_units(tools: Tools) -> bool:
    try:
        tools.call("app_scroll_to", target="label=Slider Demo", direction="down")
        tools.call("app_tap", target="label=Slider Demo")
        lines = [line for line in tools.call("app_map").text.splitlines() if "(slider" in line]
        tools.call("app_press", button="back")
    except ToolError:
        return False
    return bool(lines) and all("as the app shows it" in line for line in lines)


def knows_loading(tools: Tools) -> bool:
    described = next((d.get("description", "") for d in tools.tool_defs if d.get("name") == "app_map"), "")
    return "loading" in described and "has not ended" in described


FACTS = {"remedy": knows_remedy, "units": knows_units, "loading": knows_loading}


def surface_runner(task, params: dict):
    """The agent runner for one trial of `task` (its seeded `params`): TrialEnv.agent_runner's signature."""

    def runner(setting, prompt, server, limits, on_event, workdir, base_url=None) -> DriverRun:
        on_event({"kind": "prompt", "driver": "agent", "text": prompt})
        with Tools(server, on_event=on_event, timeout=getattr(limits, "tool_timeout", 60) or 60) as tools:
            missing = sorted(fact for fact in needs_of(task) if not FACTS[fact](tools))
            script = task.wrong if missing else task.reference
            try:
                claim = script(tools, params)
            except ToolError as exc:
                claim = Claim("cannot", None, str(exc))
            calls = tools.calls
        on_event({"kind": "final", **claim.to_json(), "missing": missing})
        return DriverRun(claim=claim, tool_calls=calls)

    return runner


def run_variants(tasks: list, names: list[str], repeats: int, device, adb_port: int, root, seed: int = 11,
                 run_dir=None) -> dict[str, dict[str, list[bool]]]:
    """Each task under each variant, `repeats` times, interleaved as `--surface` schedules them (per repeat, every
    variant in turn), through the proxy in front of the built-in server: variant → task → passed per repeat."""
    from pytest_mobium_evals.drivers.agents import Limits, parse_models
    from pytest_mobium_evals.reach.toolserver import ToolServerSpec
    from pytest_mobium_evals.run.trial import TrialEnv, TrialSpec, run_trial
    from pytest_mobium_evals.runfolder.layout import RunDir
    from pytest_mobium_evals.surface.variants import load

    variants = {load(name, root).name: load(name, root).plain() for name in names}
    setting = parse_models("haiku:low")[0]
    out: dict[str, dict[str, list[bool]]] = {name: {} for name in variants}
    for task in tasks:
        for repeat in range(repeats):
            for name in variants:
                params = task.seeded_params(seed, repeat)
                env = TrialEnv(seed=seed, run_dir=None if run_dir is None else RunDir(run_dir), limits=Limits(),
                               agent_runner=surface_runner(task, params), screenshots=False,
                               server_spec=lambda dev: ToolServerSpec.builtin(dev.serial, "127.0.0.1", adb_port),
                               surfaces=variants, surface_reader="raw",
                               auto_advance=True, agent_auto_advance=True)  # a script: waits may jump the clock
                spec = TrialSpec(task=task, driver="agent", repeat=repeat, model_setting=setting, surface=name)
                result = run_trial(spec, env, device, task.outcome)
                assert result.error is None, result.record.infra_error
                out[name].setdefault(task.id, []).append(result.verdict == "pass")
    return out


# Eight: the exact test needs six tasks that move to call anything clear, and a task the stand-in misses under
# baseline too moves under neither.
CONTROL_TASKS = ("t01", "t03", "t04", "t05", "t06", "t21", "t22", "t27")
CONTROL_VARIANTS = ("baseline", "baseline-copy", "units-in-map", "no-remedies")


def comparison_controls(outcomes: dict[str, dict[str, list[bool]]], tasks: dict) -> dict:
    """The controls of a comparison, from `run_variants`' outcomes: name → (declared, paired.PairedComparison). The
    exact test needs six tasks to call anything clear, so the known-better control is the remedies put back (baseline
    against no-remedies, every task); units-in-map, on the two control tasks that need it, can move both and still
    cannot be clear."""
    from pytest_mobium_evals.analysis.paired import compare_outcomes

    base = outcomes["baseline"]
    need_units = [t for t in base if "units" in needs_of(tasks[t])]
    return {
        "baseline vs a copy of baseline": (
            "not clear", compare_outcomes("stand-in", "baseline-copy", "all", base, outcomes["baseline-copy"])),
        "the remedies put back (baseline against no-remedies)": (
            "clearly better", compare_outcomes("stand-in", "baseline", "all", outcomes["no-remedies"], base)),
        "units-in-map, on the tasks that need a slider's units": (
            f"cannot be clear with {len(need_units)} tasks", compare_outcomes(
                "stand-in", "units-in-map", "all", {t: base[t] for t in need_units},
                {t: outcomes["units-in-map"][t] for t in need_units})),
        "no-remedies": ("clearly worse", compare_outcomes("stand-in", "no-remedies", "all", base,
                                                          outcomes["no-remedies"])),
    }
