"""One trial as the HTML report shows it: its verdict, claim, outcome, side effects and transcript, with its final
screen beside them (whole, opening at its own size on a click, where a reviewer needs it: `needs_review`, or
--full-screens; else a thumbnail and its tool calls, or a link into the run folder when the report is not
self-contained), and its cells in the trials table. Rendered where the trial ran (plugin/html_hooks.py attaches it
to the test report); the run's story is html_report.py's."""

from __future__ import annotations

import base64
import html
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from pydantic_core import to_jsonable_python

from pytest_mobium_evals.core.transcript import arguments_text, claim_text, steps
from pytest_mobium_evals.core.trial_record import LIMIT_WORDS
from pytest_mobium_evals.runfolder.layout import SCREEN, TRANSCRIPT, RunDir, trial_link
from pytest_mobium_evals.runfolder.reading import read_events

if TYPE_CHECKING:
    from pytest_mobium_evals.core.trial_record import TrialRecord

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

_COLUMNS = (("verdict", "Verdict"), ("severity", "Severity"), ("claim", "Claim"), ("answer", "Answer"),
            ("tool_calls", "Tool calls"), ("seconds", "Seconds"))


def esc(value) -> str:
    """Text escaped for element content (quotes stay as they are: inside pytest-html's JSON blob each escaped quote
    would cost ten bytes). Attribute values here are the report's own words, never a trial's text."""
    return html.escape("" if value is None else str(value), quote=False)


# --- the table of trials ----------------------------------------------------------------------------------------

def column_headers() -> list[str]:
    """The trials table's own columns (verdict, severity, claim, answer, tool calls, seconds), sortable."""
    return [f'<th class="sortable" data-column-type="{key}">{title}</th>' for key, title in _COLUMNS]


def column_cells(record: Optional[TrialRecord]) -> list[str]:
    """A trial's cells under those columns (empty for a test that is not a trial), classed by verdict and severity
    for the filters."""
    shown = record.report_properties() if record is not None else {}
    cells = []
    for key, _ in _COLUMNS:
        value = shown.get(key)
        extra = ""
        if key == "seconds" and isinstance(value, (int, float)):
            value = f"{value:.1f}"
        if key == "verdict":
            extra = f" v-{esc(value or 'none')}"
        elif key == "severity":
            extra = f" s-{esc(value or 'none')}"
        cells.append(f'<td class="col-{key}{extra}">{esc(value)}</td>')
    return cells


# --- each trial's extras (attached on the process that ran it) ----------------------------------------------------

def needs_review(record: TrialRecord) -> bool:
    """Whether a reviewer must see this trial whole (its screen at full size, its answers): a control not graded
    as declared, an agent trial that did not pass, a trial that could not be graded."""
    if record.is_infra_error:
        return True
    if record.is_control:
        return not record.ok
    return record.verdict != "pass"


def trial_view(run_dir: Path, name: str, record: TrialRecord, screen_b64: Optional[str], *, whole: bool = False,
               self_contained: bool = True, report_dir: Optional[Path] = None) -> str:
    """One trial as the report shows it: its story and transcript as HTML, with its final screen beside them.

    The screen is inside that HTML rather than pytest-html's image extra: pytest-html crops an image to 200 px
    high and opens it in a new tab as a data: URL, which Chromium refuses to show (about:blank). It is whole where a
    reviewer needs it (`needs_review`, or `whole`: --full-screens); elsewhere a thumbnail, or in a report that is
    not self-contained a link to the run folder's screen.png shown small."""
    run = RunDir(run_dir)
    review = whole or needs_review(record)
    screen_part = ""
    if screen_b64 and review:
        screen = encode_screen(base64.b64decode(screen_b64))
        screen_part = screen_html(screen) if screen else ""
    elif screen_b64 and self_contained:
        thumb = thumbnail(base64.b64decode(screen_b64))
        screen_part = thumb_html(thumb, name) if thumb else ""
    elif screen_b64:
        target = run.screen_path(name)
        rel = os.path.relpath(target, report_dir) if report_dir is not None else str(target)
        screen_part = link_html(Path(rel).as_posix())
    trial_steps = steps(read_events(run.transcript_path(name)))
    return trial_html(record, trial_steps, screen_part=screen_part, settled=not review)


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
            # method 5, not 6 (the slowest): 7 ms a thumbnail where 10, about 550 bytes either way (13 more on
            # average over the main job's screens); its 719 thumbnails are the report's largest CPU.
            small.save(buf, SCREEN_FORMAT, quality=THUMB_QUALITY, method=5)
            return buf.getvalue()
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def thumb_html(thumb: bytes, name: str) -> str:
    data = base64.b64encode(thumb).decode("ascii")
    return (f"<span class=mv-thumb title='went as declared: its final screen, small (whole in the run folder, "
            f"{esc(trial_link(name, SCREEN))})'><img alt='final screen, small' src='data:{SCREEN_MIME};base64,{data}'>"
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
    # what the task's check observed, as verdict.json holds it (a tuple as a list): the same words live and reloaded
    observed = to_jsonable_python(record.outcome_observed, fallback=str)
    lines = ["<div class=mv-trial><div class=mv-text>",
             f"<p><b>Verdict</b> {esc(record.verdict)}"
             + (f" ({esc(record.severity)})" if record.severity else "")
             + (f", declared {esc(record.expected)}" if record.is_control else "")
             + (f", {esc(LIMIT_WORDS.get(record.hit_limit, 'stopped at a limit'))}"
                if record.hit_limit else "")
             + f" · <b>claim</b> {esc(claim_text(record.claim))}</p>",
             *_stop_text_html(record),
             f"<p><b>Outcome read from the device</b> "
             f"{'reached' if record.outcome_reached else 'not reached'}: "
             f"{esc(repr(observed))}</p>"]
    effects = record.side_effects or []
    lines.append("<p><b>Side effects</b> " + ("; ".join(
        f"{esc(e.name)}: {esc(e.before)} → {esc(e.after)}" + (" (changed and put back)" if e.put_back else "")
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
                     f"{TRANSCRIPT})</summary><pre>{esc(chr(10).join(said))}</pre></details></div>")
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
