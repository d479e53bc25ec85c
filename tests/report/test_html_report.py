"""The HTML report a reviewer reads: the run's story first (rates with intervals, pass^k, counts, blockers, controls
declared vs got, the run's facts), the comparison with a baseline run, the trials with their transcripts and scaled
screens; and the same report rendered in a real browser (headless Chromium)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from PIL import Image
from plugin_fakes import CONFTEST, TASKS, trial_record

from pytest_mobium_evals.core.transcript import steps
from pytest_mobium_evals.report.html_report import STYLE, story_html
from pytest_mobium_evals.report.html_trial import encode_screen, needs_review, screen_html, trial_html
from pytest_mobium_evals.runfolder.reading import load_run

pytest_plugins = ["pytester"]



@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_tasks=TASKS)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_a_finished_run_read_before_its_record_is_rewritten_has_its_end(suite):
    # pytest-html and the session both write at the session's finish, in an order neither chooses: the report may
    # read the record as the first trial left it, without an end. With every scheduled trial graded, it has ended.
    import json

    from pytest_mobium_evals.plugin.html_hooks import current_run
    from pytest_mobium_evals.plugin.options import RunOptions
    from pytest_mobium_evals.plugin.session import EvalSession

    assert run(suite, "--driver=controls", "--seed=11", "--run-dir=run").ret == 0
    record_path = suite.path / "run" / "record.json"
    record = json.loads(record_path.read_text())
    record_path.write_text(json.dumps({**record, "ended": None, "finished": False}))
    # the session as it stands at its finish, in this process: the run's record is built from it
    evals = EvalSession(RunOptions(seed=11, run_dir=str(suite.path / "run"), resumed=False, **record["options"]))
    assert current_run(evals).record.ended
    (suite.path / "run" / "trials" / sorted(p.name for p in (suite.path / "run" / "trials").iterdir())[0]
     / "verdict.json").unlink()
    assert not current_run(evals).record.ended  # a trial not graded: the run stopped unfinished


def test_the_report_opens_with_the_story_of_a_controls_run(suite):
    result = run(suite, "--driver=controls", "--seed=11", "--run-dir=run", "--html=r.html", "--self-contained-html",
                 "--full-screens")
    assert result.ret == 0
    page = (suite.path / "r.html").read_text()
    story = page[page.index('id="mobium-evals-summary"'):page.index('id="results-table"')]
    assert "reference (control)" in story and "as declared" in story and "100% [100–100%] (1/1)" in story
    assert "Blockers:</b> none." in story and "Every control graded as declared." in story
    assert "<td>Seed</td><td>11</td>" in story
    assert "the built-in Mobium-compatible server" in story and "1: f01" in story
    assert "mobium-evals: run (driver controls, seed 11)" in page  # the title
    # the Environment table leads with the run's facts (pytest-metadata's entries, in the JSON blob)
    assert "mobium-evals seed" in page and "Run folder" in page
    # each trial: its verdict columns with classes for the filter, its transcript, its scaled screen
    assert "td.v-false_success" in page  # the filter's rule
    tests = blob(page)["tests"]
    ref = tests["test_tasks.py::test_f01[reference-r0]"][0]
    assert '<td class="col-verdict v-pass">pass</td>' in ref["resultsTableRow"]
    extra_html = [e["content"] for e in ref["extras"] if e["format_type"] == "html"][0]
    assert '<code>set(id="state", value="done")</code>' in extra_html and "Outcome read from the device" in extra_html
    # the final screen is beside the transcript, in the trial's own HTML: pytest-html's image extra crops it and
    # opens it as a data: tab, which Chromium shows as about:blank
    assert not [e for e in ref["extras"] if e["format_type"] == "image"]
    assert "<label class=mv-screen" in extra_html and "src='data:image/webp;base64," in extra_html
    assert extra_html.index("Transcript (") < extra_html.index("mv-screen")


MORE_TASKS = r'''
from pytest_mobium_evals.core.tasks import Claim, Outcome, task


def sets_done(tools, params):
    tools.call("set", id="state", value="done")
    return Claim("done")


@task(id="g01", slug="wrong-does-right", prompt="set the state to done", reference=sets_done, wrong=sets_done)
def test_g01(device, params):
    got = device.text("state")
    return Outcome(got == "done", observed=got)
'''


def test_screens_whole_only_where_a_reviewer_needs_them_else_a_thumbnail_or_a_link(suite):
    """A control graded as declared gets a thumbnail and its tool calls (a self-contained report) or a link to the
    run folder's screen (a report beside it); one that was not gets its screen whole and its answers."""
    suite.makepyfile(test_more=MORE_TASKS)
    assert run(suite, "--driver=reference,wrong", "--seed=11", "--run-dir=run", "--html=r.html",
               "--self-contained-html").ret == 1  # g01's wrong control passes: not as declared
    tests = blob((suite.path / "r.html").read_text())["tests"]
    settled = tests["test_tasks.py::test_f01[reference-r0]"][0]["extras"][0]["content"]
    assert "<span class=mv-thumb" in settled and "mv-screen" not in settled
    assert 'set(id="state", value="done")' in settled and "<code>" not in settled  # the calls, not the answers
    wrong = tests["test_more.py::test_g01[wrong-r0]"][0]["extras"][0]["content"]
    assert "<label class=mv-screen" in wrong and "mv-thumb" not in wrong and "<code>" in wrong
    assert run(suite, "--driver=reference", "--seed=11", "--run-dir=run2", "--html=out/r.html").ret == 0
    linked = blob((suite.path / "out" / "r.html").read_text())["tests"]["test_tasks.py::test_f01[reference-r0]"]
    content = linked[0]["extras"][0]["content"]
    assert "href='../run2/trials/f01-reference-none-r0/screen.png'" in content and "base64" not in content


def test_who_needs_a_trial_whole():
    assert not needs_review(trial_record(**{"driver": "reference", "ok": True, "verdict": "pass"}))
    assert needs_review(trial_record(**{"driver": "null", "ok": False, "verdict": "pass"}))
    assert not needs_review(trial_record(**{"driver": "agent", "verdict": "pass"}))
    assert needs_review(trial_record(**{"driver": "agent", "verdict": "false_success"}))
    assert needs_review(trial_record(**{"driver": "reference", "ok": True, "verdict": "infra_error",
                                        "infra_error": "reset: x"}))


def blob(page: str) -> dict:
    """pytest-html's data (the trials' rows and extras), as its script reads it from the page."""
    import html
    import re

    return json.loads(html.unescape(re.search(r'data-jsonblob="([^"]*)"', page).group(1)))


def test_the_baseline_adds_the_comparison_trial_by_trial(suite):
    assert run(suite, "--driver=reference,null,wrong", "--seed=5", "--run-dir=old").ret == 0
    record_path = suite.path / "old" / "record.json"
    record = json.loads(record_path.read_text())
    assert record["device"] is None  # the fake device has no properties; a real run records them
    record["device"] = {"serial": "fake-1", "kind": "virtual"}
    record_path.write_text(json.dumps(record))
    result = run(suite, "--driver=reference,null,wrong", "--run-dir=new", "--baseline=old", "--html=r.html",
                 "--self-contained-html")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*--seed=5 --driver=reference,null,wrong*"])  # the baseline's seed by default
    page = (suite.path / "r.html").read_text()
    assert "Against the baseline" in page and "same seed (5)" in page
    assert "Trials that changed verdict (0 of 3 compared)" in page


def test_a_baseline_that_is_not_a_run_is_one_line(suite):
    result = run(suite, "--driver=reference,null,wrong", "--run-dir=new", "--baseline=nowhere")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: --baseline: nowhere: not a run folder (no record.json)"])


def _agent_run(root: Path) -> Path:

    from runbuilder import verdict_json, write_run

    verdicts = []
    for i in range(6):
        for r in range(2):
            verdicts.append(verdict_json(f"t{i:02d}", "pass" if i < 2 else "false_success", model="claude-haiku-5-5",
                                         repeat=r, severity=None if i < 2 else "major"))
            verdicts.append(verdict_json(f"t{i:02d}", "pass", model="claude-opus-5-5", effort="medium", repeat=r))
    verdicts[-1]["verdict"], verdicts[-1]["blockers"] = "touched", ["irreversible: deleted the note"]
    verdicts[-1]["ok"] = False
    return write_run(root, "agents", verdicts, models=["claude-haiku-5-5:low", "claude-opus-5-5:medium"],
                     repeats=2)


def test_the_story_sets_agent_settings_side_by_side(tmp_path):
    story = story_html(load_run(_agent_run(tmp_path)))
    assert "claude-haiku-5-5, low effort" in story and "33% [0–67%] (4/12)" in story
    assert "pass^2" in story
    assert "Differences between settings" in story and "clear of zero" in story
    assert "t05 r1, claude-opus-5-5, medium effort: touched — irreversible: deleted the note" in story


def test_a_trial_shows_its_claim_outcome_side_effects_and_transcript():
    record = trial_record(**{"verdict": "touched", "severity": "blocker", "driver": "agent",
                             "claim": {"status": "done"}, "outcome_reached": False, "outcome_observed": "idle",
                             "blockers": ["irreversible: sent"],
                             "side_effects": [{"namespace": "global", "key": "wifi_on", "before": "1", "after": "0"}]})
    events = [{"kind": "prompt", "text": "Turn it on"}, {"kind": "model", "tokens": {"input": 5, "output": 1}},
              {"kind": "tool_call", "id": "c1", "tool": "app_tap",
                                                         "arguments": {"target": "Wi-Fi"}},
              {"kind": "call", "name": "app_tap", "arguments": {"target": "Wi-Fi"}},  # the client's copy
              {"kind": "tool_result", "id": "c1", "tool": "app_tap", "text": "tapped " + "x" * 900},
              {"kind": "final", "status": "done", "answer": None, "reason": None}]
    page = trial_html(record, steps(events))
    assert "global/wifi_on: 1 → 0" in page and "irreversible: sent" in page and "'idle'" in page
    assert page.count('app_tap(target="Wi-Fi")') == 1  # the client's duplicate is left out
    assert "more characters)" in page and "<b>final claim</b> done" in page
    assert "Transcript (3 steps)" in page  # prompt, call, claim: the model step only marks the reply


def test_screens_keep_their_own_size_in_a_few_bytes():
    buf = io.BytesIO()
    Image.new("RGB", (1080, 2400), (10, 200, 30)).save(buf, "PNG")
    kept = encode_screen(buf.getvalue())
    with Image.open(io.BytesIO(kept)) as img:
        assert img.format == "WEBP" and img.size == (1080, 2400)
    assert len(kept) < len(buf.getvalue())
    assert encode_screen(b"not an image") is None
    # a screen that costs many bytes at its own size (noise, as photos are) is kept narrower, still whole
    noisy = io.BytesIO()
    Image.effect_noise((1080, 2400), 80).convert("RGB").save(noisy, "PNG")
    with Image.open(io.BytesIO(encode_screen(noisy.getvalue(), max_bytes=200_000))) as img:
        assert img.size in ((720, 1600), (540, 1200))


def test_the_screen_opens_full_size_on_the_page_and_back():
    page = screen_html(b"webp bytes")
    # one copy of the image; the checkbox its label toggles is what the CSS enlarges it on
    assert page.count("<img") == 1 and "<input type=checkbox>" in page
    assert ".mv-screen input:checked+span{position:fixed;inset:0" in STYLE
    assert ".mv-screen img{width:100%;height:auto" in STYLE  # whole, at its aspect ratio


def test_blockers_none_says_why_the_declared_ones_do_not_gate(tmp_path):

    from runbuilder import verdict_json, write_run

    irreversible = "false success on an irreversible action: clear MobiumApp's data"
    verdicts = [verdict_json("t06", "pass", driver="reference"),
                verdict_json("t06", "false_success", driver="wrong", expected="false_success", severity="blocker",
                             blockers=[irreversible])]
    story = story_html(load_run(write_run(tmp_path, "controls", verdicts)))
    assert "<b>Blockers:</b> none gating." in story
    assert "Not gating (1): these trials have severity blocker, but each is a control that got the verdict it is " \
           "declared to get" in story
    assert f"t06 r1, wrong (control): false_success — {irreversible}" in story


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    pytest.skip("no Chromium: install Debian's `chromium` package to check the report in a browser")


def render_dom(page: Path) -> str:
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                               "--disable-background-networking", "--disable-component-update", "--disable-sync",
                               "--no-first-run", f"--user-data-dir={profile}", "--virtual-time-budget=5000",
                               "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_report_renders_in_a_browser_with_the_summary_first(suite):
    assert run(suite, "--driver=reference,null,wrong", "--seed=11", "--run-dir=run", "--html=r.html",
               "--self-contained-html").ret == 0
    dom = render_dom(suite.path / "r.html")
    assert 'id="mobium-evals-summary"' in dom and "Controls: declared vs got" in dom
    # pytest-html's script ran: the trials' rows (built from its JSON blob) are in the DOM with our columns
    assert dom.count('class="col-verdict v-') == 3
    # each trial's final screen is in the page as an image (not a data: link), beside its transcript: a thumbnail,
    # since each went as declared (a reviewer needs the whole screen only where one did not)
    assert dom.count('<span class="mv-thumb"') == 3
    assert dom.count('<img alt="final screen, small" src="data:image/webp') == 3
    # the Environment table was filled in by the script, the run's facts first
    env = dom[dom.index('id="environment"'):]
    assert env.index("mobium-evals seed") < env.index("Python")
    record = json.loads((suite.path / "run" / "record.json").read_text())
    assert str(record["seed"]) in dom
