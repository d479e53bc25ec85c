"""`dumpsys settings` on the virtual device, in SettingsProvider's dump shape (SettingsProvider.dumpForUserLocked,
SettingsState.dumpHistoricalOperations, AOSP frameworks/base): per table its title, its version, a line per
setting (`_id:N name:KEY pkg:PACKAGE value:VALUE`, `{null}` for no value), a blank line, then on a debuggable build
"Historical operations" and its operations newest first (`yyyy-MM-dd HH:mm:ss OPERATION[ NAME]`: the setting's
name, never its value, since the provider cannot say what it was), and two blank lines. The global table is the
system user's alone, before each user's secure and system tables. The virtual device keeps no DeviceConfig table,
so the CONFIG section Android 14+ prints first is left out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..device.settings import TABLE_VERSIONS

if TYPE_CHECKING:  # pragma: no cover
    from ..commands.base import Ctx
    from ..device import VirtualDevice


def _settings(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    for namespace in ("global", "secure", "system"):
        table = d.settings(namespace)
        ctx.outln(f"{namespace.upper()} SETTINGS (user 0)")
        ctx.outln(f"version: {TABLE_VERSIONS[namespace]}")
        for key, value in table.items():
            ctx.outln(f"_id:{table.ids.get(key, 0)} name:{key} pkg:{table.writers.get(key, 'android')} "
                      f"value:{'{null}' if value is None else value}")
        ctx.outln("")
        if table.history_kept():
            ctx.outln("Historical operations")
            for op in table.history():
                ctx.outln(f"{table.format_time(op.wall)} {op.operation}" + (f" {op.key}" if op.key else ""))
            ctx.outln("")
            ctx.outln("")
    return 0
