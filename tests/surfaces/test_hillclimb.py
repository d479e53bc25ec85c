"""`mobium-evals hillclimb` offline, end to end: the surface-sensitive stand-in agent is the task model (every trial
a real pytest trial on the virtual device, through the surface proxy), and a scripted reflection model
(tests/agents/reflect_standin.py, through `--reflect=python:...`, the path every reflection model takes) proposes
the edit the failed trials point at.

- From `no-remedies`, the refused call carries no remedy: the loop finds the missing remedy, and the held-out tasks
  (never run while searching) accept it.
- From `baseline`, the slider tasks need the map to say whose value it shows: the proposal helps the dev tasks,
  and only them, so the held-out test rejects it.
- The same command again resumes: nothing is run or asked again."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pytest_mobium_evals.commands.cli import main
from pytest_mobium_evals.surface.variants import load

ROOT = Path(__file__).resolve().parents[2]


# Six held-out tasks (t03, t06, t10, t13, t22, t34): the fewest with which the exact test can call anything clear.
HELD_OUT = "t03,t06,t10,t13,t22,t34"
SCENARIOS = {"remedy": ("no-remedies", f"t01,t04,{HELD_OUT}"), "units": ("baseline", f"t05,t27,{HELD_OUT}")}
LOOKS = {"remedy": (1, 64), "units": (3, 140)}  # the held-out test's looks, and a budget that sets them aside


def _command(out: Path, surface: str, tasks: str, port: int, serial: str, rounds: int = 3) -> list[str]:
    # The remedy hillclimb's held-out test is one look of two repeats (every task moves: 1/64, clear at once); the
    # units one may take three looks, and stops at the first when there is no gain (the looks themselves, look by
    # look, are test_hillclimb_parts.py's).
    looks, budget = LOOKS[out.name]
    return ["hillclimb", "--model=haiku:low", "--reflect=python:reflect_standin", f"--budget={budget}",
            f"--surface={surface}", f"--tasks={tasks}", "--repeats=2", f"--looks={looks}", "--search-repeats=1",
            "--keep=2", f"--rounds={rounds}",
            f"--run-dir={out}", "--", "-p", "surface_standin_plugin", "--device-pace=fast",
            f"--device=127.0.0.1:{port}/{serial}"]


def _in_turn(commands: list[list[str]]) -> list:
    """Each command in turn: its exit status, and the result.json it left."""
    out = []
    for command in commands:
        code = main(command)
        folder = Path(next(a.split("=", 1)[1] for a in command if a.startswith("--run-dir=")))
        out.append((code, json.loads((folder / "result.json").read_text())))
    return out


def fork_trial_runs(mp: pytest.MonkeyPatch, prepared_pytest) -> None:
    """The hillclimb's pytest runs of its trials as forks of the prepared Python (plugin/prepared_python.py), the
    same command line after `python -m pytest`: a hillclimb here starts a dozen, each about 1.6 CPU seconds of
    imports from nothing."""
    from pytest_mobium_evals.commands.hillclimb import trials

    attach = [*prepared_pytest.attach_command(), "-mpytest"] if prepared_pytest.ready() else None
    if attach is None or getattr(trials._pytest_command, "forked", False):  # none, or forked already (`climbed`)
        return
    command_of = trials._pytest_command

    def forked(*args, **kwargs):
        command = command_of(*args, **kwargs)
        assert command[:3] == [sys.executable, "-m", "pytest"], command[:3]
        return [*attach, *command[3:]]

    forked.forked = True
    mp.setattr(trials, "_pytest_command", forked)


@pytest.fixture(scope="module")
def climbed(tmp_path_factory, prepared_pytest):
    """Both hillclimbs, at once, each on a virtual device of its own (each is mostly waiting on its trials)."""
    from concurrent.futures import ThreadPoolExecutor

    from pytest_mobium_evals import sim

    folder = tmp_path_factory.mktemp("hillclimb")
    with pytest.MonkeyPatch.context() as mp, sim.start(devices=2, clock_speed=4.0) as server:
        fork_trial_runs(mp, prepared_pytest)
        mp.chdir(ROOT)
        mp.setenv("PYTHONPATH", str(ROOT / "tests" / "agents"))  # the stand-ins, for each pytest run
        mp.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")  # the readiness check; the stand-in calls no API
        mp.delenv("ANTHROPIC_BASE_URL", raising=False)
        commands = {name: _command(folder / name, surface, tasks, server.port, serial)
                    for (name, (surface, tasks)), serial in zip(SCENARIOS.items(), server.serials)}
        # The units hillclimb is stopped after its first round and then resumed by the same command with more.
        stopped = _command(folder / "units", *SCENARIOS["units"], server.port, server.serials[1], rounds=1)
        turns = {"remedy": [commands["remedy"]], "units": [stopped, commands["units"]]}
        with ThreadPoolExecutor(len(turns)) as pool:
            done = dict(zip(turns, pool.map(_in_turn, turns.values())))
        yield ({name: (done[name][-1][0], folder / name) for name in turns}, commands,
               {name: [result for _, result in done[name]] for name in turns})


def _searched_tasks(out: Path) -> set[str]:
    return {json.loads(p.read_text())["task"] for p in (out / "search").glob("seed-*/*/trials/*/verdict.json")}


def test_the_loop_finds_the_missing_remedy_and_held_out_accepts_it(climbed):
    code, out = climbed[0]["remedy"]
    assert code == 0
    result = json.loads((out / "result.json").read_text())
    assert result["accepted"] is True, result
    assert result["held_out"]["call"] == "clearly better"
    assert sorted(result["held_out"]["better"]) == HELD_OUT.split(",")
    # every held-out task moved up: the exact test's least p with six, one-sided, and said so
    assert (result["held_out"]["p"], result["held_out"]["p_side"]) == (1 / 64, "exact, one-sided: the final better "
                                                                                "than the start")
    assert result["held_out"]["looks"][0]["p"] == 1 / 64 and result["held_out"]["repeats"] == 2
    assert _searched_tasks(out) == {"t01", "t04"}  # the held-out tasks were never run while searching
    variant = load(str(out / "accepted.toml"), out).variant
    assert "app_map" in variant.errors["invalid_argument"].remedy
    assert variant.errors["*"].remedy == ""  # the rest of no-remedies is kept
    report = (out / "hillclimb.md").read_text()
    assert "ACCEPTED" in report and "+invalid_argument = run app_map" in report
    assert "| held_out | 6 | 0% | 100%" in report
    # the cost check applied to the accepted gain, and the persuasion control run (or said to have nothing to strip)
    assert "## Cost check" in report and f"Applied: {result['cost_check']}." in report
    assert "## Persuasion control" in report and f"This one: {result['persuasion']}." in report
    import re

    links = re.findall(r"\]\(([^)]+/transcript\.jsonl)\)", report)
    assert links and all((out / link).is_file() for link in links)  # every link reaches a trial's transcript
    assert len(list((out / "rounds").glob("*.json"))) == 3


def test_a_proposal_that_helps_only_on_dev_is_rejected(climbed):
    code, out = climbed[0]["units"]
    assert code == 0
    result = json.loads((out / "result.json").read_text())
    assert result["accepted"] is False
    # Two dev tasks, both better: a gain on dev, which the exact test cannot call clear with two (nor need to).
    assert [(c["call"], c["delta"]) for c in result["dev"]] == [("cannot be clear with 2 dev tasks", 1.0)]
    assert result["held_out"]["call"] == "not clear" and result["held_out"]["delta"] == 0
    # no gain at the first look of three: the test stopped there, two repeats of each held-out task under both
    assert (result["held_out"]["decision"], result["held_out"]["repeats"]) == ("no gain", 2)
    assert not (out / "accepted.toml").exists()
    assert load(str(out / "rejected.toml"), out).variant.map.values == "labelled"  # the edit the failures pointed at
    report = (out / "hillclimb.md").read_text()
    assert "helps only where it was tuned" in report
    # both checks are in the report whatever the decision: the cost measured but not applied, no persuasion rerun
    assert "## Cost check" in report and "Measured, not applied" in report and result["cost_check"] in report
    assert "## Persuasion control" in report and "Not run: no variant was accepted" in report


def test_a_stopped_hillclimb_resumes_where_it_stopped(climbed):
    _, out = climbed[0]["units"]
    first, last = climbed[2]["units"]
    assert first["rounds"] == 1 and first["accepted"] is False and first["final"] is None  # one round: nothing kept
    assert last["rounds"] == 3 and last["final"] is not None
    # The first invocation's trials were not run again: no trial of the search (a round's seed, a variant, a task, a
    # repeat) exists twice; and each round ran at a seed of its own.
    searched = [(p.parents[3].name, v["surface"], v["task"], v["repeat"])
                for p in (out / "search").glob("seed-*/*/trials/*/verdict.json") for v in [json.loads(p.read_text())]]
    assert len(searched) == len(set(searched))
    assert len({seed for seed, *_ in searched}) >= 2
    # Round 1's proposal was not asked again: two answers recorded, the second invocation asked one.
    assert "reflection 2 answers recorded (1 asked by this invocation)" in (out / "hillclimb.md").read_text()
    assert sorted(p.name for p in (out / "rounds").iterdir()) == ["0001.json", "0002.json", "0003.json"]


def test_the_same_command_again_resumes_and_runs_nothing(climbed, monkeypatch, capsys):
    commands = climbed[1]
    code, out = climbed[0]["remedy"]
    before = json.loads((out / "result.json").read_text())
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "tests" / "agents"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")
    assert main(commands["remedy"]) == 0  # its device is gone: anything it ran would fail
    assert "resuming" in capsys.readouterr().out
    after = json.loads((out / "result.json").read_text())
    assert after == before
    assert "(0 run by this invocation)" in (out / "hillclimb.md").read_text()
    assert "(0 asked by this invocation)" in (out / "hillclimb.md").read_text()


def test_without_gepa_the_command_says_how_to_install_it(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "gepa", None)  # `import gepa` raises ImportError
    assert main(["hillclimb"]) == 2
    assert capsys.readouterr().err.strip() == \
        "mobium-evals hillclimb: gepa is not installed: pip install 'pytest-mobium-evals[hillclimb]'"


def test_a_settings_change_on_a_resumed_folder_is_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "other"
    out.mkdir()
    (out / "hillclimb.json").write_text(json.dumps({"model": "opus"}))
    assert main(["hillclimb", "--reflect=python:reflect_standin", f"--run-dir={out}", f"--tasks=t01,{HELD_OUT}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "it holds a hillclimb with other" in err and "model='opus'" in err


def test_too_few_held_out_tasks_is_refused_before_any_trial(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "few"
    assert main(["hillclimb", "--reflect=python:reflect_standin", f"--run-dir={out}", "--tasks=t01,t04,t03,t22"]) == 2
    assert capsys.readouterr().err.strip() == (
        "mobium-evals hillclimb: --tasks: 2 held-out tasks (t03, t22): the acceptance's exact test cannot call a "
        "variant clear with fewer than 6 (its smallest p is 1/4, over the 2.5% a side it needs); add held-out tasks "
        "(`mobium-evals plan --difference D` says how many)")
    assert not out.exists()


def test_promote_writes_a_task_that_will_not_collect_until_its_author_finishes_it(climbed, tmp_path, monkeypatch,
                                                                                   capsys):
    import importlib
    import shutil
    import sys

    from pytest_mobium_evals.core.tasks import TaskDefinitionError

    _, out = climbed[0]["units"]
    failed = sorted((out / "accept-dev").glob("*/trials/t05-*+baseline-r0"))[0]
    passed = sorted((out / "accept-held-out").glob("*/trials/t22-*-r0"))[0]
    monkeypatch.chdir(ROOT)
    suite = tmp_path / "promoted_suite"  # a copy of the task package, without its tasks, under a name of its own
    shutil.copytree(ROOT / "tasks" / "mobiumapp_tasks", suite, ignore=shutil.ignore_patterns("test_*.py"))
    target = suite / "test_t65_slider_regression.py"
    assert main(["promote", str(failed), "--id=t65", f"--out={target}"]) == 0
    said = capsys.readouterr().out
    assert "Still to write" in said and "outcome check" in said and "controls" in said
    text = target.read_text()
    assert '"volume": ' in text and "regression=True" in text and f"found=\"{failed}: false_success" in text
    assert "set the Volume slider to {volume}" in text  # the task's own template, its parameters fixed
    # As written, the file is refused when declared: one line, naming what is left.
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(TaskDefinitionError) as refused:
            importlib.import_module("promoted_suite.test_t65_slider_regression")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "promoted_suite" or m.startswith("promoted_suite.")]:
            del sys.modules[name]
    assert "\n" not in str(refused.value)
    assert "not finished: write the outcome check" in str(refused.value) and "reference=, wrong=" in str(refused.value)

    assert main(["promote", str(failed), "--id=t65", f"--out={target}"]) == 2  # never over a file
    assert main(["promote", str(passed), "--id=t66", f"--out={tmp_path / 'x.py'}"]) == 2
    err = capsys.readouterr().err
    assert "exists" in err and "the trial passed" in err and not (tmp_path / "x.py").exists()


def test_a_promoted_task_is_one_error_beside_the_tasks_that_run(climbed, pytester):
    """As a user runs it: the promoted file, unfinished, is one error item with its line, and the suite's other
    task still runs its control. (t27 is not defined in this suite: its prompt comes from the trial's transcript.)"""
    import shutil

    _, out = climbed[0]["units"]
    failed = sorted((out / "accept-dev").glob("*/trials/t27-*+baseline-r0"))[0]
    package = pytester.path / "mobiumapp_tasks"
    package.mkdir()
    for name in ("__init__.py", "suite.py", "hard.py", "test_t22_version.py"):
        shutil.copy(ROOT / "tasks" / "mobiumapp_tasks" / name, package / name)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(pytester.path)
        assert main(["promote", str(failed), "--id=t65", "--out=mobiumapp_tasks/test_t65_promoted.py"]) == 0
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--driver=reference", "-n", "0", "-rE",
                                           "--run-dir=run")
    result.assert_outcomes(passed=1, errors=1)
    text = result.stdout.str()
    assert "test_t65_promoted.py: task t65: started from a trial and not finished: write the outcome check " \
           "(test_t65_t27_regression's body, then remove @to_write), reference=, wrong= (each TO_WRITE), and the " \
           "controls' verdicts" in text, text[-3000:]
    assert "Traceback" not in text


def test_the_command_list_shows_hillclimb_and_promote(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])  # every subcommand's one line, "80% power" included
    assert done.value.code == 0
    said = capsys.readouterr().out
    assert "hillclimb" in said and "promote" in said and "80% power" in said


def test_a_look_that_adds_repeats_runs_only_those(sim_server, tmp_path, monkeypatch, prepared_pytest):
    """The held-out test's next look asks for more repeats of the same trials: only the new repeats run (by their
    pytest ids), so no trial is run twice, none is held twice in the folders, and the budget counts what ran."""
    from pytest_mobium_evals.commands.hillclimb.trials import TrialSetup, ensure
    from pytest_mobium_evals.suites.catalog import load_task_definitions

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "tests" / "agents"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")
    fork_trial_runs(monkeypatch, prepared_pytest)
    node = load_task_definitions([ROOT / "tasks" / "mobiumapp_tasks"])["t04"].source
    setup = TrialSetup(root=ROOT, task_paths=("tasks/mobiumapp_tasks",), model="haiku:low", seed=3,
                       pytest_args=("-p", "surface_standin_plugin", "--device-pace=fast",
                                    f"--device=127.0.0.1:{sim_server.port}/{sim_server.serials[0]}"),
                       task_nodes=(("t04", node),))
    folder = tmp_path / "accept-held-out"
    assert ensure(setup, folder, ["baseline", "no-remedies"], ["t04"], 1).ran == 2
    again = ensure(setup, folder, ["baseline", "no-remedies"], ["t04"], 3)
    assert again.ran == 4 and sorted(again.by_key) == [(s, "t04", r) for s in ("baseline", "no-remedies")
                                                       for r in range(3)]
    held = sorted((v["surface"], v["repeat"]) for p in folder.glob("*/trials/*/verdict.json")
                  for v in [json.loads(p.read_text())])
    assert held == [(s, r) for s in ("baseline", "no-remedies") for r in range(3)]  # each trial once
