"""The terminal summary, report.md and the HTML report print the same figures for one run (summary.py makes them
once): rate, interval over tasks, pass^k, and the difference between the settings."""

from __future__ import annotations

import json
import re

import pytest
from plugin_fakes import CONFTEST

from pytest_mobium_evals.commands.cli import main

pytest_plugins = ["pytester"]

TASKS = '''
from pytest_mobium_evals.core.tasks import Claim, Outcome, task

def s(tools, params):
    return Claim("done")

@task(id="a01", slug="good", prompt="set it", reference=s, wrong=s)
def test_a01(device, params):
    return Outcome(device.text("state") == "done")

@task(id="a02", slug="lie", prompt="do nothing", reference=s, wrong=s)
def test_a02(device, params):
    return Outcome(device.text("state") == "never")

@task(id="a03", slug="good-too", prompt="set that", reference=s, wrong=s)
def test_a03(device, params):
    return Outcome(device.text("state") == "done")
'''


def test_terminal_report_md_and_html_agree(pytester: pytest.Pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_agent=TASKS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir=run", "--model=haiku:low,opus",
                                           "--repeats=2", "--html=r.html", "--self-contained-html")
    terminal = result.stdout.str()
    found = re.search(r"agent haiku:low: pass rate (\d+)% \[(\d+)–(\d+)%\] \((\d+)/(\d+)\) over 3 tasks; "
                      r"(pass\^2 \d+% \[\d+–\d+%\])", terminal)
    assert found, terminal
    rate, low, high, passed, total, pass_k = found.groups()
    assert (rate, passed, total) == ("67", "4", "6")
    assert "agent opus vs agent haiku:low: +0 points [+0 to +0] over 3 tasks, not clear of zero" in terminal

    record_path = pytester.path / "run" / "record.json"
    record = json.loads(record_path.read_text())
    record["device"] = {"serial": "fake-1"}  # the fake device has no properties; report needs one recorded
    record_path.write_text(json.dumps(record))
    assert main(["report", str(pytester.path / "run")]) == 0
    report = (pytester.path / "run" / "report.md").read_text()
    assert f"| claude-haiku-5-5, low effort | {rate}% ({passed}/{total}) | {low}–{high}% | {pass_k} |" in report
    assert ("claude-opus-5-5 vs claude-haiku-5-5, low effort: +0 points [+0 to +0] over 3 tasks, not clear of "
            "zero") in report

    page = (pytester.path / "r.html").read_text()
    story = page[page.index('id="mobium-evals-summary"'):page.index('id="results-table"')]
    assert f"{rate}% [{low}–{high}%] ({passed}/{total})" in story and pass_k in story
    assert "+0 points [+0 to +0] over 3 tasks" in story and "not clear of zero" in story
