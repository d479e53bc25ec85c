"""getprop, setprop and `settings` on the virtual device."""

from __future__ import annotations

from ..clock import HELD_PROPERTY
from ..device.defaults import default_settings
from ..pace import spend
from .base import Ctx, command

#: The package a shell command's writes are the provider's record of (SettingsService's calling package).
SHELL_PACKAGE = "com.android.shell"


@command("getprop")
def _getprop(ctx: Ctx, args: list[str]) -> int:
    props = ctx.device.props
    if not args:
        for k in sorted(props):
            ctx.outln(f"[{k}]: [{props[k]}]")
        return 0
    ctx.outln(props.get(args[0], args[1] if len(args) > 1 else ""))
    return 0


@command("setprop")
def _setprop(ctx: Ctx, args: list[str]) -> int:
    if len(args) != 2:
        ctx.errln("usage: setprop NAME VALUE")
        return 1
    name, value = args
    if name.startswith("ro.") and name in ctx.device.props:
        ctx.errln(f"Failed to set property '{name}' to '{value}'.\nSee dmesg for error reason.")
        return 1
    ctx.device.props[name] = value
    if name == HELD_PROPERTY:
        ctx.device.clock.hold(value == "1")
    return 0


SETTINGS_USAGE = """Settings provider (settings) commands:
  help
      Print this help text.
  get [--user <USER_ID> | current] NAMESPACE KEY
      Retrieve the current value of KEY.
  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]
      Change the contents of KEY to VALUE.
  delete [--user <USER_ID> | current] NAMESPACE KEY
      Delete the entry for KEY.
  reset [--user <USER_ID> | current] NAMESPACE {PACKAGE_NAME | RESET_MODE}
      Reset the global/secure table for a package with mode.
  list [--user <USER_ID> | current] [-d] [-s] NAMESPACE
      Print all defined keys.
      NAMESPACE is one of {system, secure, global}, case-insensitive
"""


@command("settings")
def settings(ctx: Ctx, args: list[str]) -> int:
    args = list(args)
    user_given = False
    if args and args[0] == "--user":
        user_given = True
        args = args[2:]
    if not args or args[0] in ("help", "-h"):
        ctx.out(SETTINGS_USAGE)
        return 255 if not args else 0
    verb, rest = args[0], args[1:]
    if len(rest) >= 2 and rest[0] == "--user":
        user_given = True
        rest = rest[2:]
    if verb not in ("get", "put", "delete", "list", "reset"):
        ctx.errln(f"Invalid command: {verb}")
        return 255
    if not rest:
        ctx.errln("Bad arguments")
        return 255
    ns = rest[0].lower()
    if ns not in ("global", "secure", "system"):
        ctx.errln(f"Invalid namespace '{rest[0]}'")
        return 255
    table = ctx.device.settings(ns)
    if verb == "list":
        if user_given:
            ctx.errln("--user not supported for delete and list.")
            return 255
        for line in sorted(f"{k}={v}" for k, v in table.items()):
            ctx.outln(line)
        return 0
    if verb == "get":
        if len(rest) != 2:
            ctx.errln("Bad arguments" if len(rest) < 2 else "Too many arguments")
            return 255
        ctx.outln(table.get(rest[1], "null"))
        return 0
    if verb == "put":
        if len(rest) < 3:
            ctx.errln("Bad arguments")
            return 255
        if len(rest) > 5:
            ctx.errln("Too many arguments")
            return 255
        with table.writing_as(SHELL_PACKAGE):
            table[rest[1]] = rest[2]
        if ns == "global" and rest[1] == "airplane_mode_on":
            ctx.device.airplane_setting_written()
        spend(ctx.device, ctx.device.pace.settings_put)
        return 0
    if verb == "delete":
        if user_given:
            ctx.errln("--user not supported for delete and list.")
            return 255
        if len(rest) != 2:
            ctx.errln("Bad arguments")
            return 255
        with table.writing_as(SHELL_PACKAGE):
            existed = table.pop(rest[1], None) is not None
        ctx.outln(f"Deleted {1 if existed else 0} rows")
        return 0
    # reset: back to the emulator's defaults
    table.reset_to(default_settings(ctx.device.serial)[ns])
    return 0
