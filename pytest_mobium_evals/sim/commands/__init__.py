"""The commands of the virtual device's shell, by family: Android's (`settings`, `services` for svc and cmd, `am`,
`pm`, `ime`, `input` for wm and input, `inspection` for uiautomator, screencap, ps, dumpsys, `logcat` for logcat
and log) and the toybox ones the harness and its parsers pipe through (`toybox`, `files`, `text`). Output formats
and exit statuses follow Android 15.

Importing this package registers every command in `COMMANDS`."""

# importing each module registers its commands
from . import (  # noqa: F401
    am,
    content,
    files,
    ime,
    input,
    inspection,
    location,
    logcat,
    network,
    pm,
    programs,
    services,
    settings,
    text,
    touchscreen,
    toybox,
    u2_server,
    virtual,
)
from .base import COMMANDS, Ctx, ShellExit

__all__ = ["COMMANDS", "Ctx", "ShellExit"]
