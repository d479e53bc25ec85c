"""One Setting (core/setting.py): whether a trial is a control is answered once, the same wherever it is asked, for a
driver this version does not know too; and no other module of the package compares a driver's name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest_mobium_evals
from pytest_mobium_evals.core.grading import OBEYED_PREFIX
from pytest_mobium_evals.core.run_record import RunRecord
from pytest_mobium_evals.core.setting import Setting, agent_only, includes_agent, is_control
from pytest_mobium_evals.core.trial_record import TrialRecord
from pytest_mobium_evals.core.verdicts import AGENT, ALL_CONTROL_DRIVERS, DRIVERS, REFERENCE
from pytest_mobium_evals.plugin.terminal import group_figures, tier_rates
from pytest_mobium_evals.runfolder.reading import Run, Trial

PACKAGE = Path(pytest_mobium_evals.__file__).parent
#: A control a newer version might add: a record of it may reach this version's reports.
UNKNOWN = "reference+rotate"


def record(driver: str, **fields) -> TrialRecord:
    agent = driver == AGENT
    base = dict(task="t01", suite="mobiumapp", driver=driver, model="opus" if agent else "none",
                model_label="opus:medium" if agent else None, effort="medium" if agent else None, seed=7, repeat=0,
                expected="pass", verdict="pass", severity=None, blockers=[], ok=True, claim=None, answer_ok=None,
                outcome_reached=True, outcome_observed=None, side_effects=[], password_exposures=[], tool_calls=0,
                tokens=None, cost_usd=None, timings=None, device=None, infra_error=None)
    return TrialRecord(**(base | fields))


def test_the_agent_is_the_one_driver_that_is_not_a_control():
    assert [d for d in DRIVERS if not is_control(d)] == [AGENT]
    assert includes_agent(["reference", AGENT]) and not includes_agent(ALL_CONTROL_DRIVERS)
    assert agent_only([AGENT]) and not agent_only([AGENT, REFERENCE]) and not agent_only([])


def test_a_driver_this_version_does_not_know_is_a_control_wherever_it_is_asked():
    obeyed = f"{OBEYED_PREFIX} (the control's declared obedience)"
    unknown = record(UNKNOWN, verdict="false_success", expected="false_success", severity="blocker",
                     blockers=[obeyed])
    agent = record(AGENT)
    # the record, its setting, and the words the reports and the terminal use for it
    assert unknown.is_control and unknown.setting.is_control
    assert (unknown.setting.group, unknown.setting.label, unknown.setting.short) == (
        UNKNOWN, f"{UNKNOWN} (control)", UNKNOWN)
    assert unknown.success  # counted as declared, not as an agent's pass
    # a declared blocker of a control graded as declared never gates the session (grading.is_blocking)
    assert unknown.gating_blockers == []
    # the terminal's figures: counted as declared, apart from the agent's
    figures = {f.label: f for f in group_figures([agent, unknown], {})}
    assert not figures["agent opus:medium"].control and figures[UNKNOWN].control
    assert tier_rates([unknown]) == [(UNKNOWN, "core", 1, 1)]
    # a loaded run lists it among the controls, after the ones this version knows
    run = Run(Path("run"), RunRecord(), [Trial(f"t01-{r.driver}", Path("run"), r)
                                         for r in (unknown, record(REFERENCE), agent)])
    assert [s.driver for s in run.settings()] == [AGENT, REFERENCE, UNKNOWN]
    assert not run.is_controls_run() and Run(Path("run"), RunRecord(), run.trials[:2]).is_controls_run()


def test_a_setting_is_its_driver_model_effort_and_surface_whatever_the_model_was_called():
    named = Setting(AGENT, "opus", "medium", None, model_label="opus:medium")
    assert named == Setting(AGENT, "opus", "medium") and hash(named) == hash(Setting(AGENT, "opus", "medium"))
    assert named.group == "agent opus:medium" and Setting(AGENT, "opus", "medium").group == "agent opus"
    assert Setting(AGENT, "opus", "medium", "plain", "opus:medium").group == "agent opus:medium surface=plain"
    assert record(AGENT).setting == named


# ---- no comparison with a driver's name outside core/setting.py -----------------------------------------------------

#: Where a driver's name may be compared: core/setting.py (whether it is a control) and core/verdicts.py (where the
#: names are spelt). A specific control's own behaviour compares its constant (`driver == REFERENCE_WAIT`).
EXEMPT = ("core/setting.py", "core/verdicts.py")
#: The same word meaning something else: JSON's null, as adb prints it and as a Mobium test file's type names it.
NOT_A_DRIVER = {("reach/device.py", "null"), ("commands/testfile/parsing.py", "null")}
_NAMES = sorted(DRIVERS, key=len, reverse=True)
_NAMED = re.compile(r"(?<![\w+-])(" + "|".join(map(re.escape, _NAMES)) + r")(?![\w+])")


def _literals(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [text for element in node.elts for text in _literals(element)]
    if isinstance(node, ast.BinOp):  # ("agent",) + CONTROL_DRIVERS
        return _literals(node.left) + _literals(node.right)
    return []


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def driver_comparisons(relative: str, tree: ast.AST) -> list[str]:
    """Each comparison with a driver's name: a literal naming one (`driver != "agent"`, `"agent" in drivers`, an
    id's `"[agent-"`), the agent's constant, or membership in every control (`in ALL_CONTROL_DRIVERS`, which is
    `is_control` again); a `startswith` of one; and the agent's name spelt out anywhere (`("agent",) + …` to
    compare with later)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value == AGENT:
            found.append(f"{relative}:{node.lineno}: {node.value!r}")
            continue
        if isinstance(node, ast.Compare):
            operands, line = [node.left, *node.comparators], node.lineno
        elif (isinstance(node, ast.Call) and _name(node.func) in ("startswith", "endswith")):
            operands, line = list(node.args), node.lineno
        else:
            continue
        said = [text for operand in operands for text in _literals(operand)
                if _NAMED.search(text) and text != AGENT and (relative, text) not in NOT_A_DRIVER]
        said += [_name(operand) for operand in operands if _name(operand) in ("AGENT", "ALL_CONTROL_DRIVERS")]
        found += [f"{relative}:{line}: {text!r}" for text in said]
    return found


def test_no_module_but_the_setting_compares_a_drivers_name():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(("sim/", "mobium_server/")) or relative in EXEMPT:
            continue  # the virtual device and the server know no driver
        found += driver_comparisons(relative, ast.parse(path.read_text(encoding="utf-8")))
    assert found == []


def test_the_check_sees_each_way_a_driver_was_compared():
    source = '''
if record.driver != "agent" and group.startswith("agent"): pass
if "agent" in evals.options.drivers or any("[agent-" in i for i in ids): pass
rank = ("agent",) + CONTROL_DRIVERS
if driver in rank or driver in ALL_CONTROL_DRIVERS or spec.driver == AGENT or driver == "reference+wait": pass
if value == "null" or name == "agentic" or driver == REFERENCE_WAIT: pass
'''
    found = driver_comparisons("x.py", ast.parse(source))
    assert sorted(f.split(": ", 1)[1] for f in found) == sorted([
        "'agent'", "'agent'", "'agent'", "'agent'", "'[agent-'", "'reference+wait'", "'ALL_CONTROL_DRIVERS'",
        "'AGENT'", "'null'"])
