"""app_crashes: the crashes and ANRs the device recorded, read from Android's DropBox (`dumpsys dropbox -p -f TAG`),
newest first, or one report in full by its id (`data_app_crash@1790357773461`: the tag and the entry's epoch
millis). DropBox rather than logcat's crash ring, because it keeps every entry under its own name across app
restarts and reboots. A listing is not drained: a crash is a record, and asking twice shows it twice."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

from .errors import invalid
from .tool_state import Result

# The DropBox tags that record a crash, and the kind each one is.
CRASH_TAGS = {
    "data_app_crash": "crash", "system_app_crash": "crash", "system_server_crash": "crash",
    "data_app_native_crash": "native_crash", "system_app_native_crash": "native_crash",
    "data_app_anr": "anr", "system_app_anr": "anr", "system_server_anr": "anr",
}
SEPARATOR = "=" * 40
ENTRY_PATH = re.compile(r"^/data/system/dropbox/([A-Za-z_]+)@(\d+)\.")
DEFAULT_LIMIT = 20
ID_EXAMPLE = "data_app_crash@1790357773461"


@dataclass
class CrashReport:
    id: str
    millis: int
    kind: str
    app: str
    summary: str
    text: str
    dropped: int

    def view(self, *, full: bool) -> dict:
        """The report as Mobium's structuredContent has it: empty fields left out, the text only when read by id."""
        out: dict = {"id": self.id, "time": go_time(self.millis), "kind": self.kind}
        if self.app:
            out["app"] = self.app
        if self.summary:
            out["summary"] = self.summary
        if full and self.text:
            out["text"] = self.text
        if self.dropped:
            out["dropped"] = self.dropped
        return out


def go_time(millis: int) -> str:
    """A UTC instant as Go's JSON writes one (RFC 3339, fractional seconds without trailing zeros)."""
    stamp = datetime.fromtimestamp(millis / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{millis % 1000:03d}".rstrip("0")
    return stamp + (f".{fraction}" if fraction else "") + "Z"


def rfc3339(millis: int) -> str:
    return datetime.fromtimestamp(millis // 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_dropbox(out: str) -> list[CrashReport]:
    """Each entry `dumpsys dropbox -p -f` prints: the separator, a date line, the file's path (the id), then the
    report, whose header runs to its first blank line."""
    reports = []
    for block in out.replace("\r\n", "\n").split(SEPARATOR + "\n")[1:]:
        lines = block.split("\n")
        m = ENTRY_PATH.match(lines[1].strip()) if len(lines) >= 3 else None
        if m is None or m.group(1) not in CRASH_TAGS:
            continue
        tag, kind = m.group(1), CRASH_TAGS[m.group(1)]
        body = "\n".join(lines[2:]).rstrip("\n")
        app, summary = headline(kind, body)
        if not app and tag.startswith("system_server"):
            app = "system_server"
        reports.append(CrashReport(f"{tag}@{m.group(2)}", int(m.group(2)), kind, app, summary, body,
                                   dropped_count(body)))
    return reports


def headline(kind: str, body: str) -> tuple[str, str]:
    """The process, from the header, and the line to read first: an ANR's Subject, a native crash's abort message
    (else its signal), any other crash's first line after the header."""
    header, _, detail = body.partition("\n\n")
    app = next((line[len("Process: "):].strip() for line in header.split("\n") if line.startswith("Process: ")), "")
    if kind == "anr":
        subject = next((line[len("Subject: "):].strip() for line in body.split("\n")
                        if line.startswith("Subject: ")), None)
        if subject is not None:
            return app, subject
    signal = ""
    for line in detail.split("\n"):
        t = line.strip()
        if kind == "native_crash":
            if t.startswith("Abort message: "):
                return app, t
            if not signal and t.startswith("signal "):
                signal = t
        elif t:
            return app, t
    return app, signal


def dropped_count(body: str) -> int:
    """The header's Dropped-Count: the crashes of this process Android declined to record before this one."""
    header = body.partition("\n\n")[0]
    for line in header.split("\n"):
        if line.startswith("Dropped-Count: "):
            value = line[len("Dropped-Count: "):].strip()
            return int(value) if value.isdigit() else 0
    return 0


def anr_lead(summary: str, body: str) -> str:
    """What to read first in an ANR: its reason, then the main thread's stack (or that there is none)."""
    lead = f"ANR: {summary}\n\n"
    at = body.find('\n"main" ')
    if at >= 0:
        main = body[at + 1:].split("\n\n", 1)[0]
        lead += f"Main thread:\n{main}\n"
    else:
        lead += ("No thread stacks: the process did not answer the request to dump them, as a stopped or wedged "
                 "process cannot.\n")
    return lead + "\n----- the full report -----\n"


class CrashTools:
    """Mixed into `Mobium`."""

    def t_app_crashes(self, args: dict) -> Result:
        st = self.state(args)
        serial = st.link.serial
        crash_id = args.get("id") or ""
        if crash_id:
            if args.get("app"):
                raise invalid("pass id or app, not both — an id already names one report")
            report = self._crash_by_id(st, crash_id)
            return Result(report.text, {"crashes": [report.view(full=True)], "device": serial})
        limit = args.get("limit", DEFAULT_LIMIT)
        if limit < 1:
            raise invalid(f"limit must be at least 1, got {limit}")
        app = args.get("app") or ""
        # One search a tag (DropBox's terms must all match one entry), every tag in one round trip.
        out = st.link.shell("; ".join(f"dumpsys dropbox -p -f {tag}" for tag in sorted(CRASH_TAGS)), timeout=30)
        found = [r for r in parse_dropbox(out) if not app or r.app == app]
        found.sort(key=lambda r: r.millis, reverse=True)
        total, kept = len(found), found[:limit]
        data: dict = {"crashes": [r.view(full=False) for r in kept]}
        if app:
            data["app"] = app
        if total:
            data["total"] = total
        data["device"] = serial
        if not total:
            return Result(f"no crashes recorded for {app}" if app else "no crashes recorded", data)
        lines = [f"the newest {len(kept)} of {total}"] if total > len(kept) else []
        for r in kept:
            line = f"{r.id}  {rfc3339(r.millis)}  {r.kind}  {r.app} — {r.summary}"
            if r.dropped:
                noun = "crash" if r.dropped == 1 else "crashes"
                line += f" (and {r.dropped} {noun} before it Android did not record)"
            lines.append(line)
        return Result("\n".join(lines), data)

    def _crash_by_id(self, st, crash_id: str) -> CrashReport:
        tag, at, millis = crash_id.partition("@")
        if not at or tag not in CRASH_TAGS or not millis.isdigit():
            raise invalid(f'"{crash_id}" is not a crash id — use one from `mobium crashes`, which look like '
                          f"{ID_EXAMPLE}")
        for report in parse_dropbox(st.link.shell(f"dumpsys dropbox -p -f {tag}", timeout=30)):
            if report.id == crash_id:
                if report.kind == "anr":
                    report.text = anr_lead(report.summary, report.text) + report.text
                return report
        raise invalid(f"no crash {crash_id} on this device — dropbox keeps a bounded number of entries, so an old one "
                      "may have aged out; `mobium crashes` lists what is there now")
