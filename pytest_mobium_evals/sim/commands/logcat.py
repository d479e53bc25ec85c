"""`logcat` and `log` on the virtual device, as Android 15's logcat (system/logging/logcat/logcat.cpp) and liblog's
line printer (logprint.cpp) behave: its options, buffers, filter specs, formats and their modifiers, and its two
modes. With -d, -t or --wrap it dumps what the buffers hold and exits; otherwise it prints what they hold (the last N
lines with -T N, or the lines since a time with -T TIME) and then follows, printing each new line as it is logged,
until -m's count of lines is reached or the client hangs up (the ADB server does the following:
`Shell.follow` holds a `LogFollow`).

What logd decides is done as logd does: the buffers asked for, --pid and -t/-T's tail are applied to the entries
before logcat sees them; the filter specs, the regex and --uid are logcat's, after."""

from __future__ import annotations

import datetime
import re
import zoneinfo
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Optional

from ..filesystem import fs_write
from .base import Ctx, command

if TYPE_CHECKING:
    from ..device import VirtualDevice

# logd's rings by log id (log_id_t), the order a multi-buffer read interleaves them in and -g lists them.
BUFFERS = ("main", "radio", "events", "system", "crash", "stats", "security", "kernel")
DEFAULT_BUFFERS = ("main", "system", "crash", "kernel")  # no -b (logcat.cpp: id_mask == 0)
PRIORITIES = "VDIWEFS"  # verbose … fatal, then silent (a filter spec's S prints nothing)
VERBS = ("brief", "process", "tag", "thread", "raw", "time", "threadtime", "long")
ADVERBS = ("color", "colour", "usec", "nsec", "printable", "year", "zone", "epoch", "monotonic", "uid",
           "descriptive", "UTC")
# `logcat -v color`: liblog's colorFromPri, ECMA-48 foreground colours.
COLORS = {"V": 39, "D": 34, "I": 32, "W": 33, "E": 31, "F": 31}
# getpwuid's names of 5 characters or fewer, which -v uid prints in place of the number (logprint.cpp).
UID_NAMES = {0: "root", 1001: "radio", 1010: "wifi", 1013: "media", 1027: "nfc", 1036: "logd", 2000: "shell"}
RING_BYTES = 256 * 1024  # an emulator's ring size (ro.logd.size), each
MAX_ENTRY, MAX_PAYLOAD = 5120, 4068  # LOGGER_ENTRY_MAX_LEN, LOGGER_ENTRY_MAX_PAYLOAD
ENTRY_HEADER = 28  # struct logger_entry: what logd stores beside the priority, tag and message
# getopt_long's option string (logcat.cpp); the long options below map onto these letters.
SHORT_OPTIONS = ":cdDhLt:T:gG:sQf:r:n:v:b:BSpP:m:e:"
LONG_OPTIONS = {"binary": "B", "buffer": "b", "buffer-size": "g", "clear": "c", "dividers": "D", "file": "f",
                "format": "v", "grep": "e", "head": "m", "help": "h", "last": "L", "max-count": "m", "prune": "p",
                "regex": "e", "rotate-count": "n", "rotate-kbytes": "r", "statistics": "S", "tail": "t",
                "pid": "pid", "uid": "uid", "print": "print", "wrap": "wrap", "id": "id", "proto": "proto",
                "debug": "debug"}
LONG_WITH_ARGUMENT = {"buffer", "file", "format", "grep", "head", "max-count", "regex", "rotate-count",
                      "rotate-kbytes", "tail", "pid", "uid", "id"}
LONG_OPTIONAL_ARGUMENT = {"buffer-size", "prune", "wrap"}
# Options logcat has that this device's logd cannot serve: refused, never answered with something else.
NOT_SERVED = {"L": "logs from before the last reboot (pstore)", "B": "binary output", "proto": "protobuf output",
              "S": "logd's statistics", "p": "logd's prune rules", "P": "logd's prune rules",
              "r": "rotated log files", "n": "rotated log files", "id": "rotated log files"}


class LogcatError(Exception):
    """logcat's `error(EXIT_FAILURE, …)`: one line on stderr after the program's name, exit status 1."""


@dataclass
class LineFormat:
    """One `-v FORMAT[,MODIFIER…]` (logprint.cpp, android_log_formatLogLine)."""
    verb: str = "threadtime"
    adverbs: set[str] = field(default_factory=set)
    zone: str = "UTC"
    boot_wall: float = 0.0

    def add(self, word: str) -> None:
        if word in VERBS:
            self.verb = word
        elif word in ADVERBS:
            # zone toggles, as liblog's does; colour is color's other spelling
            if word == "zone" and "zone" in self.adverbs:
                self.adverbs.discard("zone")
            else:
                self.adverbs.add("color" if word == "colour" else word)
        else:
            raise LogcatError(f"Invalid -v '{word}'.")

    def stamp(self, wall: float) -> str:
        if "epoch" in self.adverbs or "monotonic" in self.adverbs:
            seconds = wall - self.boot_wall if "monotonic" in self.adverbs else wall
            head = f"{int(seconds):>6}" if "monotonic" in self.adverbs else f"{int(seconds):>19}"
            moment = None
        else:
            tz = datetime.timezone.utc if "UTC" in self.adverbs else _zone(self.zone)
            moment = datetime.datetime.fromtimestamp(int(wall), tz)
            head = moment.strftime("%Y-%m-%d %H:%M:%S" if "year" in self.adverbs else "%m-%d %H:%M:%S")
            seconds = wall
        fraction = seconds % 1
        if "nsec" in self.adverbs:
            head += f".{int(fraction * 1e9):09d}"
        elif "usec" in self.adverbs:
            head += f".{int(fraction * 1e6):06d}"
        else:
            head += f".{int(fraction * 1e3):03d}"
        if "zone" in self.adverbs and moment is not None:
            head += " " + moment.strftime("%z")
        return head

    def text(self, e) -> str:
        """The entry as logcat prints it, every line of its message prefixed, newline-terminated."""
        uid = ""
        if "uid" in self.adverbs:
            name = UID_NAMES.get(e.uid)
            uid = f"{name:>5}:" if name else f"{e.uid:>5}:"
        tag, level, pid, tid, verb = e.tag, e.level, e.pid, e.tid, self.verb
        on, off = (f"\x1b[{COLORS.get(level, 39)}m", "\x1b[0m") if "color" in self.adverbs else ("", "")
        if verb == "long":
            return f"{on}[ {self.stamp(e.wall)} {uid}{pid:>5}:{tid:>5} {level}/{tag:<8} ]\n{e.message}{off}\n\n"
        suffix = ""
        if verb == "tag":
            prefix = f"{level}/{tag:<8}: "
        elif verb == "process":
            prefix, suffix = f"{level}({uid}{pid:>5}) ", f"  ({tag})"
        elif verb == "thread":
            prefix = f"{level}({uid}{pid:>5}:{tid:>5}) "
        elif verb == "raw":
            prefix = ""
        elif verb == "time":
            prefix = f"{self.stamp(e.wall)} {level}/{tag:<8}({uid}{pid:>5}): "
        elif verb == "threadtime":
            prefix = f"{self.stamp(e.wall)} {uid.replace(':', ' ')}{pid:>5} {tid:>5} {level} {tag:<8}: "
        else:  # brief
            prefix = f"{level}/{tag:<8}({uid}{pid:>5}): "
        lines = e.message.split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()  # a message ending in a newline ends its last line, adds none
        return "".join(f"{on}{prefix}{line}{suffix}{off}\n" for line in lines)


def _zone(zone_id: str) -> datetime.tzinfo:
    try:
        return zoneinfo.ZoneInfo(zone_id)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return datetime.timezone.utc


@dataclass
class Filters:
    """Filter specs (`TAG[:PRIORITY]`, `*:PRIORITY`, -s), as liblog keeps them: the newest rule for a tag wins,
    any other tag takes the global priority (verbose unless `*` or -s set it)."""
    global_priority: str = "V"
    rules: dict[str, str] = field(default_factory=dict)

    def add(self, expression: str) -> None:
        for spec in re.split(r"[ \t,]", expression):
            if spec and not self._add_rule(spec):
                raise LogcatError(f"Invalid filter expression '{expression}'.")

    def _add_rule(self, spec: str) -> bool:
        tag, colon, level = spec.partition(":")
        if not tag:
            return False
        priority = ""
        if colon:
            priority = _priority(level[:1])
            if priority is None:
                return False
        if tag == "*":
            self.global_priority = priority or "D"  # '*' alone means *:D
        else:
            self.rules.pop(tag, None)
            self.rules[tag] = priority or "V"  # a tag alone means TAG:V
        return True

    def allows(self, tag: str, level: str) -> bool:
        wanted = self.rules.get(tag, self.global_priority)
        return PRIORITIES.index(level) >= PRIORITIES.index(wanted) if wanted != "S" else False


def _priority(letter: str) -> Optional[str]:
    """liblog's filterCharToPri: a letter, or a digit (0-1 default, 2 verbose … 7 fatal, 8 and above verbose)."""
    if not letter:
        return None
    c = letter.lower()
    if c.isdigit():
        n = int(c)
        return "V" if n >= 8 or n < 2 else "VDIWEFS"[n - 2]
    if c == "*":
        return ""
    upper = c.upper()
    return upper if upper in PRIORITIES else None


@dataclass
class Reading:
    """One logcat's choices and what it has printed so far (dividers, the count -m stops at)."""
    buffers: tuple[str, ...]
    filters: Filters
    line: LineFormat
    regex: Optional[re.Pattern] = None
    uids: frozenset[int] = frozenset()
    max_count: int = 0  # 0: no limit
    print_anyway: bool = False
    dividers: bool = False
    printed: int = 0
    last_buffer: Optional[str] = None
    started: set[str] = field(default_factory=set)

    def done(self) -> bool:
        return bool(self.max_count) and self.printed >= self.max_count

    def render(self, entries: Iterable) -> str:
        """The entries logd handed over, as logcat prints them, up to -m's count."""
        out = []
        for e in entries:
            if self.done():
                break
            if self.uids and e.uid not in self.uids:
                continue
            if not self.filters.allows(e.tag, e.level):
                continue
            match = self.regex is None or self.regex.search(e.message) is not None
            self.printed += match
            if not (match or self.print_anyway):
                continue
            if e.buffer != self.last_buffer:
                if e.buffer not in self.started or self.dividers:
                    out.append(f"--------- {'switch to' if e.buffer in self.started else 'beginning of'} "
                               f"{e.buffer}\n")
                self.started.add(e.buffer)
                self.last_buffer = e.buffer
            out.append(self.line.text(e))
        return "".join(out)


class LogFollow:
    """A blocking logcat after its first printing: each poll hands it the entries logged since (of the buffers and
    pid asked for), and says whether -m's count is reached, which ends it."""

    def __init__(self, reading: Reading, wanted: Callable[[object], bool], last_seq: int):
        self.reading = reading
        self.wanted = wanted
        self.last_seq = last_seq

    def poll(self, device: VirtualDevice) -> tuple[bytes, bool]:
        fresh = [e for e in device.logs if e.seq > self.last_seq]
        if fresh:
            self.last_seq = fresh[-1].seq
        text = self.reading.render(e for e in fresh if self.wanted(e))
        return text.encode(), self.reading.done()


def _parse_time(text: str, now: float, zone: str) -> Optional[float]:
    """-t/-T TIME: 'MM-DD hh:mm:ss.mmm…' (this year), 'YYYY-MM-DD hh:mm:ss.mmm…' or 'sssss.mmm…' (logcat.cpp,
    parseTime); the wall time it names, or None."""
    tz = _zone(zone)
    for pattern, fmt in ((r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.(\d+))?", "%Y-%m-%d %H:%M:%S"),
                         (r"(\d\d-\d\d \d\d:\d\d:\d\d)(?:\.(\d+))?", "%m-%d %H:%M:%S")):
        m = re.fullmatch(pattern, text)
        if m:
            try:
                moment = datetime.datetime.strptime(m.group(1), fmt)
            except ValueError:
                return None
            if fmt.startswith("%m"):
                moment = moment.replace(year=datetime.datetime.fromtimestamp(now, tz).year)
            return moment.replace(tzinfo=tz).timestamp() + float("0." + (m.group(2) or "0"))
    m = re.fullmatch(r"(\d+)\.(\d+)", text)
    return float(text) if m else None


def _options(args: list[str]) -> tuple[list[tuple[str, Optional[str]]], list[str]]:
    """getopt_long over logcat's options: (option, argument) pairs in order, and the filter specs (the
    arguments that are no option's)."""
    takes = {c: SHORT_OPTIONS[i + 1:i + 2] == ":" for i, c in enumerate(SHORT_OPTIONS) if c != ":"}
    options: list[tuple[str, Optional[str]]] = []
    specs: list[str] = []
    it = iter(args)
    for a in it:
        if a == "--":
            specs.extend(it)
            break
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            if name not in LONG_OPTIONS:
                raise LogcatError(f"Unknown option '{a}'.")
            if name in LONG_WITH_ARGUMENT and not eq:
                value = next(it, None)
                if value is None:
                    raise LogcatError(f"Option '{a}' needs an argument.")
            options.append((LONG_OPTIONS[name], value if (eq or name in LONG_WITH_ARGUMENT) else None))
        elif a.startswith("-") and len(a) > 1:
            i = 1
            while i < len(a):
                c = a[i]
                if c not in takes:
                    raise LogcatError(f"Unknown option '{a}'.")
                if takes[c]:
                    value = a[i + 1:] or next(it, None)
                    if value is None:
                        raise LogcatError(f"Option '{a}' needs an argument.")
                    options.append((c, value))
                    break
                options.append((c, None))
                i += 1
        else:
            specs.append(a)
    return options, specs


@command("logcat")
def _logcat(ctx: Ctx, args: list[str]) -> int:
    try:
        return _run(ctx, args)
    except LogcatError as e:
        ctx.errln(f"logcat: {e}")
        return 1


def _run(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    options, specs = _options(args)
    line = LineFormat(zone=d.time_zone, boot_wall=d.clock.boot_wall)
    filters = Filters()
    dump = clear = get_size = got_t = print_anyway = dividers = formatted = False
    tail_lines = 0
    tail_time: Optional[float] = None
    max_count = 0
    regex = None
    pid = 0
    uids: set[int] = set()
    buffers: list[str] = []
    out_file: Optional[str] = None
    for opt, value in options:
        if opt in NOT_SERVED:
            raise LogcatError(f"-{opt if len(opt) == 1 else '-' + opt}: {NOT_SERVED[opt]} are not kept by this "
                              "device's logd")
        if opt == "h":
            ctx.out(HELP)
            return 0
        if opt == "c":
            clear = True
        elif opt in ("d", "wrap"):
            dump = True
        elif opt in ("t", "T"):
            got_t = got_t or opt == "t"
            dump = dump or opt == "t"
            assert value is not None
            if value.isdigit() or not value:
                tail_lines = int(value or 0)
                if tail_lines < 1:
                    ctx.errln(f"WARNING: -{opt} {value} invalid, setting to 1")
                    tail_lines = 1
            else:
                tail_time = _parse_time(value, d.clock.wall(), d.time_zone)
                if tail_time is None:
                    raise LogcatError(f"-{opt} '{value}' not in time format.")
        elif opt == "D":
            dividers = True
        elif opt == "e":
            try:
                regex = re.compile(value or "")
            except re.error:
                raise LogcatError(f"Invalid regex '{value}'.") from None
        elif opt == "m":
            if not (value or "").isdigit() or int(value or "0") < 1:
                raise LogcatError(f"-m '{value}' isn't an integer greater than zero.")
            max_count = int(value or "0")
        elif opt == "g":
            get_size = value is None
        elif opt in ("G",):
            pass  # logd takes the size; the virtual device keeps every ring at its own
        elif opt == "s":
            filters.add("*:s")
        elif opt == "b":
            for name in re.split(r"[,:; \t\n\r\f]", value or ""):
                if not name:
                    continue
                if name == "default":
                    buffers.extend(("main", "system", "crash"))
                elif name == "all":
                    buffers.extend(BUFFERS)
                elif name in BUFFERS:
                    buffers.append(name)
                else:
                    raise LogcatError(f"Unknown -b buffer '{name}'.")
        elif opt == "v":
            for word in re.split(r"[,:; \t\n\r\f]", value or ""):
                if word:
                    line.add(word)
                    formatted = True
        elif opt == "f":
            out_file = value
        elif opt == "pid":
            if pid:
                raise LogcatError("Only one --pid argument can be provided.")
            if not (value or "").isdigit() or int(value or "0") < 1:
                raise LogcatError(f"pid '{value}' out of range.")
            pid = int(value or "0")
        elif opt == "uid":
            for part in re.split(r"[,:; \t\n\r\f]", value or ""):
                if part:
                    if not part.isdigit():
                        raise LogcatError(f"Unable to parse UID '{part}'")
                    uids.add(int(part))
        elif opt == "print":
            print_anyway = True
    if max_count and got_t:
        raise LogcatError("Cannot use -m (--max-count) and -t together.")
    if print_anyway and not (regex and max_count):
        ctx.err("WARNING: --print ignored, to be used in combination with\n"
                "         --regex <expr> and --max-count <N>\n")
        print_anyway = False
    if not formatted:
        for word in ctx.shell.env.get("ANDROID_PRINTF_LOG", "").split(","):
            if word.strip() in VERBS + ADVERBS:
                line.add(word.strip())
    if specs:
        for spec in specs:
            filters.add(spec)
    elif ctx.shell.env.get("ANDROID_LOG_TAGS"):
        try:
            filters.add(ctx.shell.env["ANDROID_LOG_TAGS"])
        except LogcatError:
            raise LogcatError(f"Invalid filter expression '{ctx.shell.env['ANDROID_LOG_TAGS']}' in "
                              "ANDROID_LOG_TAGS.") from None
    chosen = tuple(b for b in BUFFERS if b in buffers) if buffers else DEFAULT_BUFFERS
    if clear:
        kept = [e for e in d.logs if e.buffer not in chosen]
        d.logs.clear()
        d.logs.extend(kept)
        return 0
    if get_size:
        for name in chosen:
            used = sum(ENTRY_HEADER + len(e.tag) + len(e.message.encode()) + 2 for e in d.logs if e.buffer == name)
            ctx.outln(f"{name}: ring buffer is {_size(RING_BYTES)} ({_size(used)} consumed, {_size(used)} readable), "
                      f"max entry is {MAX_ENTRY} B, max payload is {MAX_PAYLOAD} B")
        return 0

    def wanted(e) -> bool:  # what logd hands over: the buffers and the pid asked for
        return e.buffer in chosen and (not pid or e.pid == pid)

    held = [e for e in d.logs if wanted(e)]
    if tail_time is not None:
        held = [e for e in held if e.wall >= tail_time]
    elif tail_lines:
        held = held[-tail_lines:]
    reading = Reading(chosen, filters, line, regex, frozenset(uids), max_count, print_anyway, dividers)
    text = reading.render(held)
    if out_file is not None:
        if not fs_write(d, ctx.path(out_file), text.encode(), append=True):
            raise LogcatError(f"couldn't open output file '{out_file}': Permission denied")
        text = ""
    ctx.out(text)
    if not dump and not reading.done() and out_file is None and ctx.is_top_output():
        # A blocking logcat goes on printing what is logged from now until its count or the client's hang-up; the
        # ADB server follows it (only where its output goes straight to the client, not into a pipe).
        ctx.shell.follow = LogFollow(reading, wanted, d.log_seq)
    return 0


def _size(n: int) -> str:
    """logcat's format_of_size: the value in B, KiB, MiB or GiB, whole."""
    units = ("", "Ki", "Mi", "Gi")
    i = 0
    while i < len(units) - 1 and n >= 1024:
        n //= 1024
        i += 1
    return f"{n} {units[i]}B"


SHELL_UID = 2000


@command("log")
def _log(ctx: Ctx, args: list[str]) -> int:
    """`log [-p PRIORITY] [-t TAG] MESSAGE…`: one line into the main ring, as the shell user."""
    level, tag, words = "I", "log", []
    it = iter(args)
    for a in it:
        if a == "-p":
            level = next(it, "i")[:1].upper() or "I"
        elif a == "-t":
            tag = next(it, "log")
        else:
            words.append(a)
    if level not in PRIORITIES[:-1]:
        ctx.errln(f"log: invalid priority '{level.lower()}'")
        return 1
    ctx.device.log(tag, " ".join(words), level, pid=ctx.device.system_pid + 9000, uid=SHELL_UID)
    return 0


def format_log(e, fmt: str = "threadtime", zone: str = "UTC") -> str:
    """One entry as `logcat -v FMT` prints it, without its newline (a single-line message's one line)."""
    line = LineFormat(zone=zone)
    for word in fmt.split(","):
        line.add(word)
    return line.text(e).rstrip("\n")


HELP = """
  Usage: logcat [OPTION]... [FILTERSPEC]...

  General options:

  -b BUFFER, --buffer=BUFFER
      Request alternate ring buffer(s). Options are:
          main system radio events crash default all
      Additionally, 'kernel' for userdebug and eng builds, and 'security' for
      Device Owner installations.
      Multiple -b parameters or comma separated list of buffers are
      allowed. Buffers are interleaved.
      Default is "main,system,crash,kernel".
  -c, --clear
      Clear (flush) the entire log and exit. With -f, clear the specified file
      and its related rotated log files instead. With -L, clear pstore instead.
  -d            Dump the log and then exit (don't block).
  --pid=PID     Only print logs from the given pid.

  Formatting:

  -v, --format=FORMAT         Sets log print format. See FORMAT below.
  -D, --dividers              Print dividers between each log buffer.

  Filtering:

  -s                   Set default filter to silent (like filterspec '*:S').
  -e, --regex=EXPR     Only print lines matching ECMAScript regex.
  -m, --max-count=N    Exit after printing <count> lines.
  -t N                 Print most recent <count> lines (implies -d).
  -T N                 Print most recent <count> lines (does not imply -d).
  -t TIME              Print lines since specified time (implies -d).
  -T TIME              Print lines since specified time (not imply -d).
                       Time format is 'MM-DD hh:mm:ss.mmm...',
                       'YYYY-MM-DD hh:mm:ss.mmm...', or 'sssss.mmm...'.
"""

__all__ = ["LogFollow", "format_log"]
