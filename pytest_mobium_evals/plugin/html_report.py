"""The pytest-html report as a reviewer reads it (registered only when pytest-html is loaded).

It opens with the run's story: each setting's rate with its 95% interval over tasks, pass^k with repeats, the
scheduled/graded/infra counts, false successes, the blockers by name, the differences between agent settings with
whether they are clear of zero, and for controls the declared-vs-got table; then the run's facts (seed, folder,
device and which kind, Mobium, models, plugin, tasks); with `--baseline RUN`, the comparison with that run. Below
it, pytest-html's table of trials gains verdict, severity and claim columns with a filter of its own, and each
trial's extras carry its claim, the outcome read from the device, the side effects and the transcript, with the
final screen beside them, whole, opening at its own size on a click.

The story is built from the run folder on disk (each trial's verdict.json, the record), not from the order in which
hooks ran: under xdist the controller writes the HTML from what the workers wrote. The figures come from summary.py,
as the terminal's and report.md's do."""

from __future__ import annotations

import base64
import html
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import pytest
from pydantic_core import to_jsonable_python
from pytest_html import extras

from pytest_mobium_evals import __version__
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.transcript import arguments_text, claim_text, steps
from pytest_mobium_evals.core.trial_record import LIMIT_WORDS, STOP_REASONS
from pytest_mobium_evals.core.verdicts import ALL_VERDICTS
from pytest_mobium_evals.core.verdicts import SEVERITIES as SEVERITY_WORDS
from pytest_mobium_evals.runfolder.reading import Run, Setting, fmt_pct, load_run, load_trials, read_events, run_facts
from pytest_mobium_evals.runfolder.writing import TRANSCRIPT, RunDir

from .session import eval_session

if TYPE_CHECKING:
    from pytest_mobium_evals.core.trial_record import TrialRecord

    from .session import EvalSession

SCREEN_WIDTH = 216  # px: the screen shown beside the transcript, whole; a click shows it at its own size
# The screen is kept at its own resolution, as WebP (Chromium, Firefox and Safari show it): lossless where that is
# smaller (a virtual device's flat screens: about 3 KB for 1080x2400, a tenth of the PNG), else lossy at a quality
# where its lines still read.
SCREEN_FORMAT, SCREEN_MIME, SCREEN_QUALITY = "WEBP", "image/webp", 60
# A screen with photos or gradients (a real device's) can cost 200 KB at its own size, and a controls run has
# hundreds: past this many bytes it is kept at the first of these widths that fits (its lines still read at 720).
SCREEN_MAX_BYTES, SCREEN_FALLBACK_WIDTHS = 80_000, (720, 540)
ANSWER_CHARS = 400  # a tool answer (an element map) is cut here in the report; transcript.jsonl keeps it whole
# A trial no reviewer needs to read closely (it went as declared, or the agent passed) keeps what it did (its tool
# calls, the start of its prompt) and a thumbnail of its screen: the report of a 672-trial control run stays a size
# a PR carries (issue 34: 9.6 MB when every screen was whole). The run folder keeps everything.
SETTLED_PROMPT_CHARS = 300
THUMB_WIDTH, THUMB_QUALITY = 60, 30
PROMPT_CHARS = 2000
SEVERITIES = SEVERITY_WORDS + ("none",)  # "none": the filter for trials without a severity

_COLUMNS = (("verdict", "Verdict"), ("severity", "Severity"), ("claim", "Claim"), ("answer", "Answer"),
            ("tool_calls", "Tool calls"), ("seconds", "Seconds"))


def esc(value) -> str:
    """Text escaped for element content (quotes stay as they are: inside pytest-html's JSON blob each escaped quote
    would cost ten bytes). Attribute values here are the report's own words, never a trial's text."""
    return html.escape("" if value is None else str(value), quote=False)


# --- the table of trials ----------------------------------------------------------------------------------------

def _header(cells) -> None:
    for i, (key, title) in enumerate(_COLUMNS):
        cells.insert(2 + i, f'<th class="sortable" data-column-type="{key}">{title}</th>')


def _row(report, cells) -> None:
    record = getattr(report, "mobium", None)
    shown = record.report_properties() if record is not None else {}
    for i, (key, _) in enumerate(_COLUMNS):
        value = shown.get(key)
        extra = ""
        if key == "seconds" and isinstance(value, (int, float)):
            value = f"{value:.1f}"
        if key == "verdict":
            extra = f" v-{esc(value or 'none')}"
        elif key == "severity":
            extra = f" s-{esc(value or 'none')}"
        cells.insert(2 + i, f'<td class="col-{key}{extra}">{esc(value)}</td>')


# --- each trial's extras (attached on the process that ran it) ----------------------------------------------------

def needs_review(record: TrialRecord) -> bool:
    """Whether a reviewer must see this trial whole (its screen at full size, its answers): a control not graded
    as declared, an agent trial that did not pass, a trial that could not be graded."""
    if record.is_infra_error:
        return True
    if record.driver == "agent":
        return record.verdict != "pass"
    return not record.ok


def trial_extras(run_dir: Path, name: str, record: TrialRecord, screen_b64: Optional[str], *, whole: bool = False,
                 self_contained: bool = True, report_dir: Optional[Path] = None) -> list:
    """pytest-html extras for one trial: its story and transcript as HTML, with its final screen beside them.

    The screen is inside that HTML rather than pytest-html's image extra: pytest-html crops an image to 200 px
    high and opens it in a new tab as a data: URL, which Chromium refuses to show (about:blank). It is whole where a
    reviewer needs it (`needs_review`, or `whole`: --full-screens); elsewhere a thumbnail, or in a report that is
    not self-contained a link to the run folder's screen.png shown small."""
    trial_dir = RunDir(run_dir).trial_dir(name)
    review = whole or needs_review(record)
    screen_part = ""
    if screen_b64 and review:
        screen = encode_screen(base64.b64decode(screen_b64))
        screen_part = screen_html(screen) if screen else ""
    elif screen_b64 and self_contained:
        thumb = thumbnail(base64.b64decode(screen_b64))
        screen_part = thumb_html(thumb, name) if thumb else ""
    elif screen_b64:
        target = Path(trial_dir) / "screen.png"
        rel = os.path.relpath(target, report_dir) if report_dir is not None else str(target)
        screen_part = link_html(Path(rel).as_posix())
    trial_steps = steps(read_events(trial_dir / TRANSCRIPT))
    return [extras.html(trial_html(record, trial_steps, screen_part=screen_part, settled=not review))]


def thumbnail(png: bytes) -> Optional[bytes]:
    """The screen THUMB_WIDTH px wide, lossy WebP: which screen it ended on, not what it says."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(png)) as img:
            img = img.convert("RGB")
            # reducing_gap: boxed down to about three times the thumbnail first, then Lanczos, a sixth of the CPU
            # of Lanczos over the whole screen (35 ms a trial, the main job's largest cost in its report).
            small = img.resize((THUMB_WIDTH, max(1, round(img.height * THUMB_WIDTH / img.width))),
                               Image.Resampling.LANCZOS, reducing_gap=3.0)
            buf = io.BytesIO()
            small.save(buf, SCREEN_FORMAT, quality=THUMB_QUALITY, method=6)
            return buf.getvalue()
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def thumb_html(thumb: bytes, name: str) -> str:
    data = base64.b64encode(thumb).decode("ascii")
    return (f"<span class=mv-thumb title='went as declared: its final screen, small (whole in the run folder, "
            f"trials/{esc(name)}/screen.png)'><img alt='final screen, small' src='data:{SCREEN_MIME};base64,{data}'>"
            "<small>final screen</small></span>")


def link_html(href: str) -> str:
    """The run folder's screen shown small, opening whole on a click (the report beside the run folder)."""
    return (f"<a class=mv-thumb href='{html.escape(href)}' title='final screen (click: full size)'>"
            f"<img alt='final screen' loading=lazy src='{html.escape(href)}'><small>final screen</small></a>")


def encode_screen(png: bytes, quality: int = SCREEN_QUALITY, max_bytes: int = SCREEN_MAX_BYTES) -> Optional[bytes]:
    """The screen as WebP at its own size (lossless or lossy, whichever is smaller), or when that passes `max_bytes`
    at the first fallback width that does not (else the narrowest); None when the bytes are not an image Pillow
    reads."""
    from PIL import Image, UnidentifiedImageError

    def smallest(img) -> bytes:
        # Lossless first, at its fastest method that still packs a flat screen (~50 ms for 1080x2400); lossy only
        # when that is too big (a screen with photos).
        best = b""
        for options in ({"lossless": True, "method": 1}, {"quality": quality, "method": 4}):
            buf = io.BytesIO()
            img.save(buf, SCREEN_FORMAT, **options)
            if not best or len(buf.getvalue()) < len(best):
                best = buf.getvalue()
            if len(best) <= max_bytes:
                break
        return best

    try:
        with Image.open(io.BytesIO(png)) as img:
            img = img.convert("RGB")
            out = smallest(img)
            for width in SCREEN_FALLBACK_WIDTHS:
                if len(out) <= max_bytes or img.width <= width:
                    break
                out = smallest(img.resize((width, max(1, round(img.height * width / img.width))),
                                          Image.Resampling.LANCZOS))
            return out
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def screen_html(screen: bytes) -> str:
    """The final screen, whole and at its aspect ratio; a click on it shows it at its own size over the page, and
    another puts it back (a checkbox and CSS: no script, no new tab, one copy of the image)."""
    data = base64.b64encode(screen).decode("ascii")
    return ("<label class=mv-screen title='the final screen the outcome was read on; click for full size'>"
            "<input type=checkbox><span><img alt='final screen' src='data:" + SCREEN_MIME + ";base64," + data
            + "'></span><small>final screen (click: full size)</small></label>")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


# Inside pytest-html's JSON blob every quote costs six bytes: the markup of a trial uses unquoted attributes.
def trial_html(record: TrialRecord, trial_steps: list, screen: Optional[bytes] = None, *, screen_part: str = "",
               settled: bool = False) -> str:
    """A trial's story and transcript; `settled` (no reviewer needs it whole): its tool calls without answers."""
    claim = record.claim or {}
    # what the task's check observed, as verdict.json holds it (a tuple as a list): the same words live and reloaded
    observed = to_jsonable_python(record.outcome_observed, fallback=str)
    lines = ["<div class=mv-trial><div class=mv-text>",
             f"<p><b>Verdict</b> {esc(record.verdict)}"
             + (f" ({esc(record.severity)})" if record.severity else "")
             + (f", declared {esc(record.expected)}" if record.driver != "agent" else "")
             + (f", {esc(LIMIT_WORDS.get(record.hit_limit, 'stopped at a limit'))}"
                if record.hit_limit else "")
             + f" · <b>claim</b> {esc(claim_text(claim))}</p>",
             *_stop_text_html(record),
             f"<p><b>Outcome read from the device</b> "
             f"{'reached' if record.outcome_reached else 'not reached'}: "
             f"{esc(repr(observed))}</p>"]
    effects = record.side_effects or []
    lines.append("<p><b>Side effects</b> " + ("; ".join(
        f"{esc(e.get('namespace'))}/{esc(e.get('key'))}: {esc(e.get('before'))} → {esc(e.get('after'))}"
        + (" (changed and put back)" if e.get("put_back") else "")
        for e in effects) if effects else "none") + "</p>")
    for blocker in record.blockers or []:
        lines.append(f"<p class=mv-bad><b>Blocker</b> {esc(blocker)}</p>")
    if record.infra_error:
        lines.append(f"<p class=mv-bad><b>Infrastructure error</b> {esc(record.infra_error)}</p>")
    shown = [s for s in trial_steps if s.role != "model"]  # a model step marks a reply; its words are the next steps
    if settled:
        # What the driver did, a line a step, without the answers: the run folder's transcript.jsonl has them.
        said = []
        for s in shown:
            if s.role == "tool":
                said.append(f"{s.tool}({arguments_text(s.arguments)})" + (" → error" if s.is_error else ""))
            elif s.role == "prompt":
                said.append("prompt: " + _cut(" ".join(str(s.text).split()), SETTLED_PROMPT_CHARS))
            elif s.role in ("error", "final"):
                said.append(f"{'final claim' if s.role == 'final' else 'error'}: {s.text}")
        lines.append(f"<details><summary>Transcript ({len(shown)} steps; the answers are in the run folder's "
                     f"transcript.jsonl)</summary><pre>{esc(chr(10).join(said))}</pre></details></div>")
        lines += [screen_part, "</div>"]
        return "".join(lines)
    lines.append(f"<details><summary>Transcript ({len(shown)} steps)</summary><ol class=mv-steps>")
    for s in shown:
        if s.role == "tool":
            answer = "" if s.answer is None else (
                f"<pre{' class=mv-bad' if s.is_error else ''}>{esc(_cut(s.answer, ANSWER_CHARS))}</pre>")
            lines.append(f"<li><code>{esc(s.tool)}({esc(arguments_text(s.arguments))})</code>{answer}")
        elif s.role == "prompt":
            lines.append(f"<li><b>prompt</b><pre>{esc(_cut(s.text, PROMPT_CHARS))}</pre>")
        elif s.role == "assistant":
            what = "thinking" if s.extra.get("thinking") else "said"
            lines.append(f"<li><b>{what}</b><pre>{esc(_cut(s.text, PROMPT_CHARS))}</pre>")
        elif s.role == "error":
            lines.append(f"<li class=mv-bad><b>error</b> {esc(s.text)}")
        elif s.role == "final":
            lines.append(f"<li><b>final claim</b> {esc(s.text)}")
    lines.append("</ol></details></div>")
    if screen:
        lines.append(screen_html(screen))
    lines.append(screen_part)
    lines.append("</div>")
    return "".join(lines)


# --- the story --------------------------------------------------------------------------------------------------

STYLE = """<style>
body{display:flex;flex-direction:column}
#title{order:-3}body>p:first-of-type{order:-2}.summary{order:-1;display:block}
.mv-story{font-size:14px;max-width:1300px}.mv-story table{border-collapse:collapse;margin:4px 0 12px}
.mv-story td,.mv-story th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
.mv-story h3{margin:14px 0 4px}.mv-bad{color:#b00020}.mv-good{color:#1b5e20}
.mv-trial pre{white-space:pre-wrap;max-height:14em;overflow:auto;background:#f6f6f6;margin:2px 0;padding:3px}
.mv-steps{margin:4px 0;padding-left:22px}.mv-filter label{margin-right:10px;white-space:nowrap}
.mv-trial{display:flex;gap:16px;align-items:flex-start}.mv-text{flex:1;min-width:0}
.mv-screen{flex:none;width:{SCREEN_WIDTH}px;cursor:zoom-in;text-align:center}.mv-screen input{display:none}
.mv-screen img{width:100%;height:auto;border:1px solid #999;display:block}.mv-screen small{color:#555}
.mv-screen input:checked+span{position:fixed;inset:0;z-index:10000;overflow:auto;background:rgba(0,0,0,.85);
cursor:zoom-out;padding:12px 0}
.mv-screen input:checked+span img{width:auto;max-width:none;margin:0 auto;border:0}
.mv-thumb{flex:none;width:{THUMB_WIDTH}px;text-align:center}
.mv-thumb img{width:100%;border:1px solid #999;display:block}.mv-thumb small{color:#555}
</style>""".replace("{SCREEN_WIDTH}", str(SCREEN_WIDTH)).replace("{THUMB_WIDTH}", str(THUMB_WIDTH))


def filter_html() -> str:
    """Checkboxes hiding trials by verdict and severity, in CSS alone (:has), so they keep working when pytest-html
    re-renders its table for its own filters and sorting."""
    boxes, rules = [], []
    for kind, values, prefix in (("verdict", ALL_VERDICTS, "v"), ("severity", SEVERITIES, "s")):
        boxes.append(f"<div class=mv-filter><b>{kind.capitalize()}:</b> ")
        for value in values:
            box = f"mv-{prefix}-{value}"
            boxes.append(f'<label><input type="checkbox" id="{box}" checked> {esc(value)}</label>')
            rules.append(f"body:has(#{box}:not(:checked)) #results-table tbody:has(td.{prefix}-{value})"
                         "{display:none}")
        boxes.append("</div>")
    return "<style>" + "".join(rules) + "</style>" + "".join(boxes)


def _table(head: list[str], rows: list[list[str]]) -> str:
    return ("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows) + "</table>")


def story_html(run_, baseline=None, baseline_problem: Optional[str] = None) -> str:
    """The summary for a run folder (runfolder.Run, complete or not), and the comparison with a baseline run."""
    from pytest_mobium_evals.analysis.summary import agent_pairs, by_split, difference  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end
    from pytest_mobium_evals.report.view import summarize_run  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end

    summaries = summarize_run(run_)
    parts = [STYLE, '<div class="mv-story" id="mobium-evals-summary">', "<h3>The run</h3>"]
    if not summaries:
        parts.append("<p>No trial has a verdict yet.</p>")
    rows = []
    for s in summaries:
        f = s.figures
        rows.append([esc(s.setting.label), esc(f.what), esc(f.rate_text()), esc(f"{f.rate.tasks}"),
                     esc(f.pass_k_text() or "–"), str(f.scheduled), str(f.graded), str(f.infra_errors),
                     f"<span class={'mv-bad' if f.false_successes and not f.control else ''}>"
                     f"{f.false_successes}</span>", str(len(f.blockers)),
                     f"<span class={'mv-bad' if f.injection and f.injection[0] and not f.control else ''}>"
                     f"{esc(f.injection_text())}</span>"])
    if rows:
        parts.append(_table(["Setting", "Rate of", "Rate [95% interval over tasks]", "Tasks", "pass^k",
                             "Scheduled", "Graded", "Infra errors", "False successes", "Blockers",
                             "Obeyed injected text"], rows))
    parts.append(_stops_html(summaries))
    parts.append(_claim_conflicts_html(summaries))
    from pytest_mobium_evals.analysis.injection_rates import html, of_summaries  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end

    parts.append(html(of_summaries(summaries)))
    parts.append(_blockers_html(summaries))
    pairs = agent_pairs([s.figures for s in summaries])
    if pairs:
        parts.append("<h3>Differences between settings</h3><p>Paired over the same tasks and seed; the interval "
                     "resamples tasks for both settings at once.</p>")
        parts.append(_table(["B vs A", "Difference in pass rate [95%]", "Reading"],
                            [_difference_row(x.label, y.label, difference(x, y)) for a, b in pairs
                             for x, y in by_split(a, b)]))
    from pytest_mobium_evals.analysis.paired import section_html  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end

    parts.append(section_html(run_))
    if any(s.setting.is_control for s in summaries):
        parts.append(_controls_html(run_, summaries))
    parts.append(_facts_html(run_))
    if baseline is not None or baseline_problem:
        parts.append(_baseline_html(run_, baseline, baseline_problem))
    parts.append("<h3>Trials</h3><p>Filter the table below by verdict and severity (and by pytest's outcome "
                 "with the boxes after this summary).</p>" + filter_html())
    parts.append("</div>")
    return "".join(parts)


def _stops_html(summaries) -> str:
    """Why the agent's trials stopped, per setting (report.md's table of the same name)."""
    from pytest_mobium_evals.analysis.summary import NOT_RECORDED  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end

    agents = [s for s in summaries if not s.setting.is_control]
    reasons = [r for r in (*STOP_REASONS, NOT_RECORDED) if any(s.stop_reasons.get(r) for s in agents)]
    if not agents or not reasons:
        return ""
    return "<h3>Why agent trials stopped</h3>" + _table(
        ["Setting", *reasons], [[esc(s.setting.label), *(str(s.stop_reasons.get(r, 0)) for r in reasons)]
                                for s in agents])


def _stop_text_html(record: TrialRecord) -> list[str]:
    """What the driver wrote when it stopped calling tools, and the claim it stated, beside the final answer's."""
    if not record.stop_text:
        return []
    stated = f" (it states {esc(record.stated_status)})" if record.stated_status else ""
    what = {"text_tool_call": "Wrote a tool call as text, not made", "text": "Stopped with text, no final answer"
            }.get(record.stop_reason or "", "Wrote before its final answer")
    line = f"<p{' class=mv-bad' if record.claims_disagree else ''}><b>{what}</b> {esc(record.stop_text)}{stated}"
    if record.claims_disagree:
        line += (f"; its final answer said {esc(record.claim_status)}: the claims disagree, graded on the one the "
                 f"device contradicts")
    return [line + "</p>"]


def _claim_conflicts_html(summaries) -> str:
    """The trials whose text and final answer stated different claims (report.md's section of the same name)."""
    from pytest_mobium_evals.report.view import CLAIM_CONFLICTS, claim_conflicts  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end

    conflicts = claim_conflicts(summaries)
    if not conflicts:
        return ""
    return (f"<h3>Claims that disagree ({len(conflicts)})</h3><p>{esc(CLAIM_CONFLICTS)}</p><ul>"
            + "".join(f"<li class=mv-bad>{esc(c.text())}" for c in conflicts) + "</ul>")


def _blockers_html(summaries) -> str:
    from pytest_mobium_evals.report.view import DECLARED_BLOCKERS, blocker_rows  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end

    gating, declared = blocker_rows(summaries)
    if gating:
        out = (f"<p class=mv-bad><b>Blockers ({len(gating)})</b>, which hold the decision whatever the rate:</p><ul>"
               + "".join(f"<li class=mv-bad>{esc(r.text())}" for r in gating) + "</ul>")
    else:
        out = f"<p class=mv-good><b>Blockers:</b> none{' gating' if declared else ''}.</p>"
    if declared:
        out += (f"<details><summary>{esc(DECLARED_BLOCKERS.split(':')[0])} ({len(declared)}): "
                f"{esc(DECLARED_BLOCKERS.split(': ', 1)[1])}</summary><ul>"
                + "".join(f"<li>{esc(r.text())}" for r in declared) + "</ul></details>")
    return out


def _difference_row(a: str, b: str, diff) -> list[str]:
    if diff is None:
        return [esc(f"{b} vs {a}"), "–", "no task in common"]
    cls = "mv-good" if diff.clear_of_zero and diff.delta > 0 else "mv-bad" if diff.clear_of_zero else ""
    return [esc(f"{b} vs {a}"), esc(diff.points()) + f" over {diff.tasks} tasks",
            f"<span class={cls or 'mv-plain'}>{esc(diff.verdict(a, b))}</span>"]


def _controls_html(run_, summaries) -> str:
    from pytest_mobium_evals.report.view import controls_matrix  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end

    columns, matrix, wrong = controls_matrix(run_, summaries)
    rows = []
    for task, repeat, cells in matrix:
        row = [esc(task), f"r{repeat}"]
        for cell in cells:
            parts = []
            for c in cell:
                name = f"{esc(c.near_miss)}: " if c.near_miss else ""
                parts.append(f"{name}{esc(c.verdict)} ✓" if c.ok else
                             f"<span class=mv-bad>{name}<b>{esc(c.verdict)}</b> ✗ declared {esc(c.expected)}</span>")
            row.append("<br>".join(parts) or "–")
        rows.append(row)
    verdict = ("<p class=mv-good>Every control graded as declared.</p>" if not wrong else
               f"<p class=mv-bad><b>{wrong} control trial(s) did not grade as declared</b>: the grader is not "
               "validated for those tasks.</p>")
    return ("<h3>Controls: declared vs got</h3>" + verdict + "<details><summary>The table, task by task"
            "</summary>" + _table(["Task", "Repeat"] + [esc(c) for c in columns], rows)
            + "</details>")


def _facts_html(run_) -> str:
    return "<h3>Facts</h3>" + _table(["", ""], [[esc(k), esc(v)] for k, v in run_facts(run_)])


def _baseline_html(run_, baseline, problem: Optional[str]) -> str:
    from pytest_mobium_evals.report.compare import compare_runs, setting_rows  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end

    head = "<h3>Against the baseline</h3>"
    if problem:
        return head + f"<p class=mv-bad>{esc(problem)}</p>"

    try:
        c = compare_runs(baseline, run_, labels=("baseline", "this run"))
    except UsageError as exc:
        return head + f"<p class=mv-bad>Not compared with {esc(baseline.path)}: {esc(exc)}</p>"
    parts = [head, f"<p>Baseline {esc(c.old.path)}; same seed ({esc(c.old.seed)}) and task set "
                   f"({len(c.old.task_ids)} tasks).</p>"]
    if c.differences:
        parts.append("<p>What differs: " + "; ".join(esc(d) for d in c.differences) + "</p>")
    rows = []
    for s_old, s_new in c.setting_pairs:
        for row in setting_rows(c, s_old, s_new):
            cls = {"better": "mv-good", "worse": "mv-bad"}.get(row.clearly or "", "mv-plain")
            rows.append([esc(row.label), str(row.test.tasks), esc(fmt_pct(row.old.rate if row.old.total else None)),
                         esc(fmt_pct(row.new.rate if row.new.total else None)), esc(row.points()), esc(row.p()),
                         f"<span class={cls}>{esc(row.reading('baseline', 'this run'))}</span>",
                         f"{row.blockers[0]} → {row.blockers[1]}"])
    parts.append("<p>The reading is the exact paired test over tasks (clearly at one-sided p ≤ 2.5%; with 5 tasks "
                 "or fewer nothing can be clear); the interval describes the difference. Dev and held-out tasks "
                 "apart.</p>")
    parts.append(_table(["Setting", "Tasks", "Baseline", "This run", "Difference [95%, paired over tasks]",
                         "Exact p", "Reading", "Blockers"], rows))
    if c.found and any(not a.is_control for a, _ in c.setting_pairs):
        from pytest_mobium_evals.report.compare import found_rows  # noqa: PLC0415  the report's view and figures: only where the report is written, at the run's end

        parts.append("<h3>Tasks that found a defect</h3>" + _table(
            ["Task", "Found", "Setting", "Baseline", "This run"], [[esc(x) for x in r] for r in found_rows(c)]))
    changed = c.changed
    parts.append(f"<h3>Trials that changed verdict ({len(changed)} of {len(c.pairs)} compared)</h3>")
    if changed:
        parts.append(_table(["Task", "Repeat", "Setting", "Baseline", "This run"],
                            [[esc(p.old.record.task), f"r{p.old.record.repeat}", esc(Setting.of(p.old.record).label),
                              esc(p.old.record.verdict), esc(p.new.record.verdict)] for p in changed]))
    else:
        parts.append("<p>None: every compared trial got the same verdict.</p>")
    return "".join(parts)


# --- loading the run at the end of the session -------------------------------------------------------------------

def current_run(evals: EvalSession, finished: bool = True):
    """The session's run folder as it is on disk now: its trials' verdict.json files, and the record as the session
    builds it (`EvalSession.run_record`, told which trials are loaded, so no verdict is read twice). pytest-html
    renders at the session's finish, before the record's last write: a session that was not interrupted, with every
    scheduled trial graded, has ended (as the record will say); otherwise it stopped unfinished."""
    folder = Path(evals.options.run_dir)
    trials, _ = load_trials(folder / "trials")
    return Run(folder, evals.run_record(finished, graded={t.name for t in trials}), trials)


def load_baseline(path: Optional[str]):
    """(run, problem): the baseline run folder, or the one line saying why it cannot be used."""
    if not path:
        return None, None

    try:
        return load_run(path), None
    except UsageError as exc:
        return None, f"--baseline: {exc}"


class HtmlHooks:
    def __init__(self, config: pytest.Config):
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session) -> None:
        """The Environment table (pytest-metadata's, read by pytest-html later in this hook): the run's facts first,
        then pytest's own entries."""
        try:
            from pytest_metadata.plugin import metadata_key  # noqa: PLC0415  pytest-metadata is optional to pytest-html
        except ImportError:
            return
        evals = eval_session(self.config)
        if evals.is_worker:
            return
        options = evals.options
        ours = {"mobium-evals seed": str(options.seed), "Run folder": options.run_dir, "Driver": options.driver,
                "Models": options.models or ("opus:medium" if "agent" in options.drivers else "none (controls)"),
                "Repeats": str(options.repeats), "Device option": options.device,
                "Tool server": (f"mobium mcp ({options.mobium_bin})" if options.mobium_bin
                                else "mobium-evals mcp (built-in Mobium-compatible server)")}
        if getattr(self.config.option, "mobium_baseline", None):
            ours["Baseline"] = self.config.option.mobium_baseline

        ours["pytest-mobium-evals"] = __version__
        metadata = self.config.stash.get(metadata_key, {})
        merged = {**ours, **{k: v for k, v in metadata.items() if k not in ours}}
        metadata.clear()
        metadata.update(merged)
        self.config.stash[metadata_key] = metadata

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_report_title(self, report) -> None:
        options = eval_session(self.config).options
        report.title = f"mobium-evals: {Path(options.run_dir).name} (driver {options.driver}, seed {options.seed})"

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_summary(self, prefix, summary, postfix, session) -> None:
        evals = eval_session(session.config)
        if evals.is_worker:
            return
        baseline, problem = load_baseline(getattr(session.config.option, "mobium_baseline", None))
        # the same test the record's last write makes (EvalSession.pytest_sessionfinish)
        finished = session.exitstatus != pytest.ExitCode.INTERRUPTED
        prefix.append(story_html(current_run(evals, finished), baseline, problem))

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells):
        _header(cells)

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report, cells):
        _row(report, cells)
