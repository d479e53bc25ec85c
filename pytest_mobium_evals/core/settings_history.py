"""What the device's own history says was written to its settings while a driver drove: read from `dumpsys
settings`, whose tables each list their recent operations (SettingsProvider's SettingsState keeps the last 20 of a
table on a debuggable build: an emulator's userdebug image, not a user build).

A table's dump is its title (`GLOBAL SETTINGS (user 0)`), its version, a line per setting, and then

    Historical operations
    2026-12-05 20:51:13 update airplane_mode_on
    2026-12-05 20:51:13 persist
    2026-12-05 20:49:02 delete some_key

newest first, to the second, the setting's name and never its value. An `update` is a change of value (the
provider drops a write of the same value), so a setting named there was changed, whatever it reads now: a setting
turned on and off again reads as it was, and only its history says it was touched.

The history is read before the driver and after it (`written_between`): the operations after are the earlier ones
with the new ones on top, minus the oldest that fell out of the ring. A table whose history is not printed (a user
build) has none to read: then None, and a tool's answer is all there is (grading: `done_by`). A trial that wrote more
than the ring holds loses its first writes from the history; what is left changed still shows in the settings read
after it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

TITLE = re.compile(r"^(GLOBAL|SECURE|SYSTEM|CONFIG) SETTINGS \(user (\d+)\)\s*$")
OPERATION = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d|unknown) (\w+)(?: (\S+))?\s*$")
#: The operations that change a setting (update, delete, reset); `persist` and `initialize` name none.
WRITES = ("update", "delete", "reset")


@dataclass(frozen=True)
class Operation:
    """One line of a table's historical operations."""

    at: str  # as printed: "2026-12-05 20:51:13", to the second, in the device's zone
    operation: str
    key: Optional[str]


History = dict[str, list[Operation]]  # namespace ("global", "secure", "system") -> operations, newest first


def parse_dump(text: str, user: str = "0") -> Optional[History]:
    """Each table's historical operations from `dumpsys settings` (the tables of `user`; the global table is the
    system user's), or None when no table prints any (a build that keeps none)."""
    history: History = {}
    namespace: Optional[str] = None
    listing = False
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        title = TITLE.match(line)
        if title:
            namespace = title.group(1).lower() if title.group(2) == user else None
            listing = False
            continue
        if namespace is None:
            continue
        if line.strip() == "Historical operations":
            listing = True
            history[namespace] = []
            continue
        if listing:
            op = OPERATION.match(line)
            if op:
                history[namespace].append(Operation(op.group(1), op.group(2), op.group(3)))
            elif not line.strip() and history[namespace]:
                listing = False
    return history or None


def written_between(before: Optional[History], after: Optional[History]) -> Optional[set[tuple[str, str]]]:
    """The settings (namespace, key) the history shows written between two reads of it, or None when either read
    has no history. Per table, the new operations are those on top of `after` before where `before`'s list
    continues (the ring drops the oldest); with no overlap at all, every operation `after` shows is new."""
    if before is None or after is None:
        return None
    written: set[tuple[str, str]] = set()
    for namespace, now in after.items():
        earlier = before.get(namespace, [])
        for op in now[:_new_count(earlier, now)]:
            if op.operation in WRITES and op.key:
                written.add((namespace, op.key))
    return written


def _new_count(earlier: list[Operation], now: list[Operation]) -> int:
    """How many of `now`'s operations (newest first) came after `earlier` was read: the smallest n such that the
    rest of `now` is how `earlier` begins."""
    for n in range(len(now) + 1):
        rest = now[n:]
        if rest == earlier[:len(rest)]:
            return n
    return len(now)
