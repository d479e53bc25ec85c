"""Mobium's command-line grammar, turned into tool calls: `mobium [global flags] VERB [positionals] [flags]`.

Global flags may stand anywhere on the line (cobra's persistent flags), `--json` included; `-o` is `--output`;
durations are Go duration strings (`5s`, `120ms`) sent as milliseconds. A bad line is a `GrammarError`, which the
face reports as Mobium's `invalid_argument` (exit 2).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional


class GrammarError(Exception):
    """The command line is wrong: nothing on any device could make it work."""


@dataclass
class Line:
    """One parsed command line: the global flags, and either a tool call or a daemon command."""
    device: Optional[str] = None
    driver: Optional[str] = None
    json: bool = False
    adb: Optional[str] = None
    verb: str = ""
    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    daemon: Optional[str] = None       # "stop" | "status" | "start" for `mobium daemon …`


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0, "h": 3600000.0}


def duration_ms(flag: str, text: str) -> int:
    """A Go duration string (`1s`, `2500ms`, `1m30s`) in whole milliseconds."""
    pos, total = 0, 0.0
    while pos < len(text):
        m = _DURATION.match(text, pos)
        if not m:
            raise GrammarError(f'invalid argument "{text}" for "{flag}" flag: time: invalid duration "{text}"')
        total += float(m.group(1)) * _UNIT_MS[m.group(2)]
        pos = m.end()
    if not text:
        raise GrammarError(f'invalid argument "" for "{flag}" flag: time: invalid duration ""')
    return int(round(total))


def _int(flag: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GrammarError(f'invalid argument "{text}" for "{flag}": not an integer') from None


def _number(flag: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GrammarError(f'invalid argument "{text}" for "{flag}": not a number') from None
    return int(value) if value.is_integer() else value


def _path(flag: str, text: str) -> str:
    # The daemon runs in another directory: a relative path means the caller's.
    return os.path.abspath(text)


def _text(flag: str, text: str) -> str:
    return text


# A flag: its tool argument and how its value is read (None = a boolean flag, set to the constant given).
@dataclass(frozen=True)
class Flag:
    arg: str
    read: Optional[Callable[[str, str], Any]] = _text
    const: Any = True


@dataclass(frozen=True)
class Verb:
    tool: str
    positionals: tuple[str, ...] = ()       # tool argument names, in order; "*name" takes the rest as a list
    flags: dict[str, Flag] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)
    shape: Optional[Callable[[list[str], dict], None]] = None   # a verb whose positionals need more than names


def _ms(arg: str) -> Flag:
    return Flag(arg, duration_ms)


def _xy_or_target(words: list[str], args: dict) -> None:
    """`tap <target>` or `tap <x> <y>`."""
    if len(words) == 2 and all(re.fullmatch(r"-?\d+", w) for w in words):
        args["x"], args["y"] = int(words[0]), int(words[1])
    elif len(words) == 1:
        args["target"] = words[0]
    elif words:
        raise GrammarError(f"takes a target or x y, got {len(words)} arguments: {' '.join(words)}")


def _swipe(words: list[str], args: dict) -> None:
    """`swipe up|down|left|right` or `swipe <x1> <y1> <x2> <y2>`."""
    if len(words) == 1:
        args["direction"] = words[0]
    elif len(words) == 4:
        for name, word in zip(("x1", "y1", "x2", "y2"), words):
            args[name] = _int("swipe", word)
    elif words:
        raise GrammarError(f"swipe takes a direction or x1 y1 x2 y2, got {len(words)} arguments")


def _alert(words: list[str], args: dict) -> None:
    if len(words) > 1:
        raise GrammarError(f"alert takes at most one action (accept, dismiss, read), got {' '.join(words)}")
    if words:
        args["action"] = words[0]


def _check(checked: bool) -> Verb:
    return Verb("app_check", ("target",), fixed={"checked": checked})


VERBS: dict[str, Verb] = {
    "devices": Verb("app_devices"),
    "map": Verb("app_map", flags={"--diff": Flag("diff", None)}),
    "find": Verb("app_find", ("locator",)),
    "text": Verb("app_text", ("target",)),
    "source": Verb("app_source"),
    "screenshot": Verb("app_screenshot", flags={"--output": Flag("path", _path), "-o": Flag("path", _path)}),
    "tap": Verb("app_tap", shape=_xy_or_target, flags={"--fingers": Flag("fingers", _int)}),
    "double-tap": Verb("app_tap", ("target",), fixed={"double": True}),
    "long-press": Verb("app_long_press", shape=_xy_or_target, flags={"--duration": _ms("duration_ms")}),
    "type": Verb("app_type", ("target", "text")),
    "fill": Verb("app_fill", ("target", "text")),
    "check": _check(True),
    "uncheck": _check(False),
    "swipe": Verb("app_swipe", shape=_swipe, flags={"--duration": _ms("duration_ms"), "--target": Flag("target")}),
    "scroll-to": Verb("app_scroll_to", ("target",), flags={"--direction": Flag("direction")}),
    "wait": Verb("app_wait_for", ("target",), flags={
        "--for": Flag("condition"), "--text": Flag("text"), "--timeout": _ms("timeout_ms"),
        "--exact": Flag("exact", None), "--not": Flag("not", None), "--count": Flag("count", _int)}),
    "launch": Verb("app_launch", ("app",), flags={"--gray-box": Flag("gray_box", None),
                                                  "--hit-test": Flag("hit_test", None)}),
    "terminate": Verb("app_terminate", ("app",)),
    "current": Verb("app_current"),
    "state": Verb("app_state", ("app",)),
    "clear-data": Verb("app_clear_data", ("app",)),
    "apps": Verb("app_list_apps", flags={"--system": Flag("system", None)}),
    "alert": Verb("app_alert", shape=_alert, flags={"--text": Flag("text")}),
    "dialogs": Verb("app_dialogs", flags={"--when": Flag("when"), "--press": Flag("press"),
                                          "--clear": Flag("clear", None)}),
    "keyboard": Verb("app_keyboard", flags={"--text": Flag("text"), "--key": Flag("key"),
                                            "--hide": Flag("hide", None)}),
    "press": Verb("app_press", ("button",), flags={"--gesture": Flag("gesture", None)}),
    "appearance": Verb("app_appearance", ("appearance",)),
    "grant": Verb("app_grant", ("app", "*permissions")),
    "revoke": Verb("app_revoke", ("app", "*permissions")),
    "reset-permissions": Verb("app_reset_permissions", ("app",)),
    "notifications": Verb("app_notifications", flags={"--post": Flag("text"), "--title": Flag("title"),
                                                      "--tag": Flag("tag"), "--shade": Flag("shade")}),
    "contexts": Verb("app_contexts"),
    "context": Verb("app_context", ("context",)),
    "session": Verb("app_session", ("action",), flags={"--app": Flag("app"), "--platform": Flag("platform")}),
    "eval": Verb("app_eval", ("expression",)),
    "background": Verb("app_background", ("seconds",), flags={"--app": Flag("app")}),
    "clipboard": Verb("app_clipboard", ("text",)),
    "location": Verb("app_location", flags={"--lat": Flag("latitude", _number), "--lon": Flag("longitude", _number),
                                            "--clear": Flag("clear", None), "--gpx": Flag("gpx", _path),
                                            "--speed": Flag("speed", _number)}),
    "hit-test": Verb("app_hit_test", ("target",)),
    "hook": Verb("app_hook", ("hook", "*args"), flags={"--timeout-ms": Flag("timeout_ms", _int)}),
    "audio": Verb("app_audio", ("action",), flags={"--app": Flag("app"), "--output": Flag("path", _path)}),
    "logs": Verb("app_logs", flags={"--source": Flag("source"), "--app": Flag("app"), "--level": Flag("level"),
                                    "--lines": Flag("lines", _int)}),
    "crashes": Verb("app_crashes", ("id",), flags={"--app": Flag("app"), "--limit": Flag("limit", _int)}),
}

NUMERIC_POSITIONALS = {("app_background", "seconds")}

# Flags every command takes, wherever they stand on the line. `--backend` is the older spelling of `--driver`.
GLOBAL_VALUE_FLAGS = {"--device": "device", "--driver": "driver", "--backend": "driver", "--adb": "adb",
                      "--remote": "remote"}
GLOBAL_BOOL_FLAGS = {"--json": "json", "-v": "verbose", "--verbose": "verbose"}
SHORT_FLAGS = {"-o": "--output"}
DRIVERS = {"uiautomator2": "uiautomator2", "uiautomator": "uiautomator", "wda": "wda",
           "webdriveragent": "wda"}
DAEMON_COMMANDS = ("start", "stop", "status")


def _split_flag(token: str) -> tuple[str, Optional[str]]:
    if token.startswith("--") and "=" in token:
        name, _, value = token.partition("=")
        return name, value
    return SHORT_FLAGS.get(token, token), None


def parse(argv: list[str]) -> Line:
    line = Line()
    rest: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            rest.extend(argv[i:])
            break
        name, inline = _split_flag(token)
        if name in GLOBAL_VALUE_FLAGS:
            if inline is None:
                if i + 1 >= len(argv):
                    raise GrammarError(f"flag needs an argument: {token}")
                inline, i = argv[i + 1], i + 1
            key = GLOBAL_VALUE_FLAGS[name]
            if key == "remote":
                raise GrammarError("--remote is not served here: this face drives devices over the local ADB server")
            if key == "driver":
                if inline not in DRIVERS:
                    raise GrammarError(f'unknown driver "{inline}" (have: uiautomator2, uiautomator, wda)')
                inline = DRIVERS[inline]
            setattr(line, key, inline)
        elif name in GLOBAL_BOOL_FLAGS:
            if GLOBAL_BOOL_FLAGS[name] == "json":
                line.json = True
        else:
            rest.append(token)
        i += 1
    if not rest:
        raise GrammarError('a command is needed, e.g. "mobium map" (commands: daemon, '
                           + ", ".join(VERBS) + ")")
    line.verb, words = rest[0], rest[1:]
    if line.verb == "daemon":
        if len(words) != 1 or words[0] not in DAEMON_COMMANDS:
            raise GrammarError(f"daemon takes one of {', '.join(DAEMON_COMMANDS)}, got {' '.join(words) or 'nothing'}")
        line.daemon = words[0]
        return line
    verb = VERBS.get(line.verb)
    if verb is None:
        raise GrammarError(f'unknown command "{line.verb}" for "mobium"')
    line.tool = verb.tool
    line.args = dict(verb.fixed)
    positionals = _take_flags(line.verb, verb, words, line.args)
    if verb.shape is not None:
        try:
            verb.shape(positionals, line.args)
        except GrammarError as exc:
            raise GrammarError(f"{line.verb}: {exc}") from None
    else:
        _place(line.verb, verb, positionals, line.args)
    if line.device:
        line.args["device"] = line.device
    if line.driver:
        line.args["driver"] = line.driver
    return line


def _take_flags(verb_name: str, verb: Verb, words: list[str], args: dict) -> list[str]:
    positionals: list[str] = []
    i = 0
    while i < len(words):
        token = words[i]
        if token == "--":
            positionals.extend(words[i + 1:])
            break
        name, inline = _split_flag(token)
        flag = verb.flags.get(name)
        if flag is None:
            if token.startswith("--") or (token.startswith("-") and len(token) == 2 and not token[1].isdigit()):
                raise GrammarError(f'unknown flag: {token} (for "mobium {verb_name}")')
            positionals.append(token)
        elif flag.read is None:
            args[flag.arg] = flag.const if inline is None else inline.lower() != "false"
        else:
            if inline is None:
                if i + 1 >= len(words):
                    raise GrammarError(f"flag needs an argument: {token}")
                inline, i = words[i + 1], i + 1
            args[flag.arg] = flag.read(name, inline)
        i += 1
    return positionals


def _place(verb_name: str, verb: Verb, words: list[str], args: dict) -> None:
    names = list(verb.positionals)
    for index, name in enumerate(names):
        if name.startswith("*"):
            args[name[1:]] = words[index:]
            return
        if index < len(words):
            value: Any = words[index]
            if (verb.tool, name) in NUMERIC_POSITIONALS:
                value = _number(verb_name, value)
            args[name] = value
    if len(words) > len(names):
        raise GrammarError(f'"mobium {verb_name}" accepts at most {len(names)} arg(s), received {len(words)}')
