"""`pytest --surface baseline,units-in-map --model haiku:low --repeats 2` on the virtual device, the agent being the
surface-sensitive stand-in: every variant runs the same tasks and seeds, interleaved; each trial records its variant
and what its agent saw; the run leaves the before/after table (surfaces.md, report.md, the HTML report, compare).
The same through `--mobium` (a stand-in binary that hands over to the built-in server), and `surface capture`."""

from __future__ import annotations

import json
import shutil
import stat
import sys
from pathlib import Path

import pytest

from pytest_mobium_evals.surface.variants import builtin_tools

ROOT = Path(__file__).resolve().parents[2]
pytest_plugins = ["pytester"]

CONFTEST = f"""
import sys
sys.path.insert(0, {str(ROOT / "tests" / "agents")!r})

import pytest
from surface_standin import surface_runner

from pytest_mobium_evals.plugin.collection import spec_of


@pytest.fixture
def mobium_trial_env(request):
    spec = spec_of(request.node)

    def edit(env):
        env.agent_runner = surface_runner(spec.task, spec.task.seeded_params(env.seed, spec.repeat))
        env.agent_auto_advance = True  # a script: its tool server's waits jump the clock, as a control's do
    return edit
"""

MOBIUM_STANDIN = """#!/bin/sh
# A stand-in for `mobium`: notes that it started, then hands over to the built-in server on the ADB server the
# standard variables name (as the real binary finds its server).
echo started >> "{record}"
exec "{python}" -m pytest_mobium_evals.commands.cli "$@" --adb "$ANDROID_ADB_SERVER_HOST:$ANDROID_ADB_SERVER_PORT"
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch) -> pytest.Pytester:
    shutil.copytree(ROOT / "tasks" / "mobiumapp_tasks", pytester.path / "mobiumapp_tasks")
    shutil.copytree(ROOT / "surfaces", pytester.path / "surfaces")
    pytester.makeconftest(CONFTEST)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")  # the readiness check; the stand-in calls no API
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    return pytester


def verdicts(run: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(run.glob("trials/*/verdict.json"))]


def test_two_variants_with_repeats_write_the_table(project):
    # The fast pace: what is checked is the table, not how an agent meets an emulator's pace.
    result = project.runpytest_subprocess("-k", "t05 or t22", "--surface", "baseline,units-in-map", "--model",
                                          "haiku:low", "--repeats", "2", "--run-dir", "run", "--seed", "5",
                                          "--device-pace=fast",
                                          "--html", "report.html", "--self-contained-html", "-p", "no:cacheprovider")
    run = project.path / "run"
    stored = verdicts(run)
    assert len(stored) == 8, result.stdout.str()[-2000:]
    by = {(v["task"], v["surface"], v["repeat"]): v for v in stored}
    for task in ("t05", "t22"):
        for repeat in (0, 1):
            base, variant = by[(task, "baseline", repeat)], by[(task, "units-in-map", repeat)]
            assert base["params"] == variant["params"]  # the same seed: the same parameters
            assert base["surface_seen"]["hash"] != variant["surface_seen"]["hash"]
    assert [by[("t05", s, r)]["verdict"] == "pass" for r in (0, 1) for s in ("baseline", "units-in-map")] == \
        [False, True, False, True]
    assert {v["split"] for v in stored if v["task"] == "t22"} == {"held_out"}
    # Interleaved: each repeat runs every variant in turn.
    order = [line for line in (run / ".session" / "collection.json").read_text().split('"') if "+" in line]
    assert [name.split("+")[1].split("-r")[0] for name in order[:4]] == ["baseline", "units-in-map"] * 2

    result.stdout.fnmatch_lines(["*surface variants against baseline*",
                                 "units-in-map vs baseline, claude-haiku-5-5:low, dev: +100 points [+100 to +100] "
                                 "over 1 task: cannot be clear with 1 dev task; better on t05, worse on none",
                                 "units-in-map vs baseline, claude-haiku-5-5:low, held_out: +0 points*: cannot be "
                                 "clear with 1 held-out task;*"])
    record = json.loads((run / "record.json").read_text())
    assert record["surfaces"] == ["baseline", "units-in-map"] and record["options"]["surface"]
    table = (run / "surfaces.md").read_text()
    assert "| units-in-map | dev | 1 | 0% | 100% (100%–100%) | +100 (+100 to +100) | cannot be clear with 1 dev " \
           "task | 1 | t05 ([r0](trials/" in table
    import re

    links = re.findall(r"\]\((trials/[^)]+)\)", table)
    assert len(links) == 2 and all((run / link).is_file() for link in links)  # the flipped task's two trials
    assert "| units-in-map | held_out | 1 | 100% | 100% (100%–100%) | +0 (+0 to +0) | cannot be clear with 1 " \
           "held-out task | 1 | – | – |" in table
    html = (project.path / "report.html").read_text()
    assert "Surface variants against baseline" in html and "variants baseline, units-in-map applied" in html

    from pytest_mobium_evals.commands.cli import main

    assert main(["report", str(run)]) == 0
    assert "## Surface variants against baseline" in (run / "report.md").read_text()
    assert "- Surface: variants baseline, units-in-map" in (run / "report.md").read_text()
    assert main(["plan", "--from", str(run)]) == 0
    assert main(["compare", str(run), str(run), "--out", str(project.path / "compare.md")]) == 0
    assert "## Surface variants against baseline" in (project.path / "compare.md").read_text()


def test_surface_works_in_front_of_the_mobium_binary(project):
    record = project.path / "started.txt"
    binary = project.path / "bin" / "mobium"
    binary.parent.mkdir()
    binary.write_text(MOBIUM_STANDIN.format(record=record, python=sys.executable))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    result = project.runpytest_subprocess("-k", "t05", "--surface", "baseline,units-in-map", "--model", "haiku:low",
                                          f"--mobium={binary}", "--run-dir", "run", "--seed", "5",
                                          "--device-pace=fast",
                                          "-p", "no:cacheprovider")
    stored = {v["surface"]: v for v in verdicts(project.path / "run")}
    assert stored["units-in-map"]["verdict"] == "pass", result.stdout.str()[-2000:]
    assert stored["baseline"]["verdict"] != "pass"
    assert stored["baseline"]["surface_seen"]["tool_count"] == len(builtin_tools())
    assert len(record.read_text().splitlines()) == 2  # each trial's server was the binary, behind the proxy


def test_capture_writes_a_variant_of_the_binarys_own_words(project, sim_server, tmp_path):
    from pytest_mobium_evals.commands.cli import main
    from pytest_mobium_evals.surface.variants import load

    binary = tmp_path / "mobium"
    binary.write_text(MOBIUM_STANDIN.format(record=tmp_path / "started.txt", python=sys.executable))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    out = project.path / "surfaces" / "captured.toml"
    env = {"ANDROID_ADB_SERVER_HOST": "127.0.0.1", "ANDROID_ADB_SERVER_PORT": str(sim_server.port)}
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        assert main(["surface", "capture", f"--mobium={binary}", "--device", sim_server.serials[0],
                     "--out", str(out)]) == 0
    text = out.read_text()
    assert "# error from app_tap: [" in text and "# error from app_map: [invalid_argument]" in text
    variant = load("captured", project.path)  # a valid variant: it names only tools the built-in server has
    assert variant.variant.tools["app_map"].description.startswith("Read the current screen")
