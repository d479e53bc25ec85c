"""`content` on the virtual device: the contacts provider's raw_contacts and data tables, as a precondition adds a
contact on a real device (a raw contact, then its name row), and a query of the aggregated contacts; the settings
provider (content://settings/system|secure|global: its name/value rows, the same tables `settings` reads and writes,
so a user_rotation inserted there turns the screen as `settings put` does). Other providers are not there: an
error naming the authority, as Android's shell prints for an unknown one."""

from __future__ import annotations

import re

from .base import Ctx, command

AUTHORITY = "com.android.contacts"
CONTACTS_APP = "com.google.android.contacts"
NAME_MIME = "vnd.android.cursor.item/name"


def _binds(args: list[str]) -> tuple[str, dict[str, str]]:
    uri, binds = "", {}
    i = 0
    while i < len(args):
        if args[i] == "--uri" and i + 1 < len(args):
            uri = args[i + 1]
            i += 2
        elif args[i] in ("--bind", "--where", "--projection") and i + 1 < len(args):
            if args[i] == "--bind":
                column, _, rest = args[i + 1].partition(":")
                _kind, _, value = rest.partition(":")
                binds[column] = value
            elif args[i] == "--where":
                binds["\0where"] = args[i + 1]
            else:
                binds["\0projection"] = args[i + 1]
            i += 2
        else:
            i += 1
    return uri, binds


def _provider(ctx: Ctx) -> dict:
    """The provider's rows live with the Contacts app's storage (its list shows them): {id: display name}."""
    store = ctx.device.storage(CONTACTS_APP)
    return store.setdefault("raw_contacts", {})


@command("content")
def _content(ctx: Ctx, args: list[str]) -> int:
    if not args or args[0] not in ("insert", "query", "delete"):
        ctx.errln("usage: content [insert|query|delete] --uri <URI> [--bind <BINDING>...]")
        return 1
    verb = args[0]
    uri, binds = _binds(args[1:])
    if not uri.startswith("content://"):
        ctx.errln("[ERROR] Content provider URI not specified")
        return 1
    authority, _, table = uri[len("content://"):].partition("/")
    table = table.split("?", 1)[0]  # caller_is_syncadapter and the like change nothing here
    if authority == SETTINGS_AUTHORITY:
        return _settings_provider(ctx, verb, table, binds)
    if authority != AUTHORITY:
        ctx.errln(f"Error while accessing provider:{authority}")
        ctx.errln(f"java.lang.IllegalArgumentException: Unknown authority {authority}")
        return 1
    rows = _provider(ctx)
    if verb == "insert" and table == "raw_contacts":
        # raw_contacts' _id is AUTOINCREMENT: a deleted contact's id is never handed out again
        store = ctx.device.storage(CONTACTS_APP)
        store["next_raw_id"] = max(store.get("next_raw_id", 1), max(map(int, rows), default=0) + 1)
        rows[str(store["next_raw_id"])] = ""
        store["next_raw_id"] += 1
        return 0
    if verb == "insert" and table == "data":
        rid = binds.get("raw_contact_id", "")
        if rid not in rows:
            ctx.errln(f"java.lang.IllegalArgumentException: raw_contact_id {rid or '(none)'} does not exist")
            return 1
        if binds.get("mimetype") == NAME_MIME:
            rows[rid] = binds.get("data1", "")
        return 0
    if verb == "query" and table == "contacts":
        named = [(rid, name) for rid, name in rows.items() if name]
        if not named:
            ctx.outln("No result found.")
        for n, (rid, name) in enumerate(named):
            ctx.outln(f"Row: {n} _id={rid}, display_name={name}")
        return 0
    if verb == "query" and table == "raw_contacts":
        if not rows:
            ctx.outln("No result found.")
        for n, rid in enumerate(rows):
            ctx.outln(f"Row: {n} _id={rid}")
        return 0
    if verb == "delete" and table in ("raw_contacts", "contacts"):
        where = binds.get("\0where")
        if where is None:
            rows.clear()
            return 0
        # The one selection a precondition needs, by row: `_id=N` (SQL's own form, as the provider reads it).
        m = re.fullmatch(r"\s*_id\s*=\s*'?(\d+)'?\s*", where)
        if m is None:
            ctx.errln(f"java.lang.UnsupportedOperationException: --where {where!r} is not supported on this device")
            return 1
        rows.pop(m.group(1), None)
        return 0
    ctx.errln(f"java.lang.UnsupportedOperationException: {verb} {uri} is not supported on this device")
    return 1


SETTINGS_AUTHORITY = "settings"
SETTINGS_COLUMNS = ("_id", "name", "value")


def _settings_provider(ctx: Ctx, verb: str, table: str, binds: dict[str, str]) -> int:
    """SettingsProvider through `content`: a table per namespace with the columns _id, name and value. An insert
    is a put (the bound name and value, whatever their declared types: the provider stores text); a query prints
    `Row: N col=value, …` (Content's printing of a cursor), --projection picking columns; --where matches
    name='KEY' (or "KEY"), the one selection callers use; a delete removes the row so selected."""
    namespace, _, key_in_uri = table.partition("/")
    if namespace not in ("system", "secure", "global"):
        ctx.errln(f"java.lang.IllegalArgumentException: Invalid URI: content://settings/{table}")
        return 1
    rows = ctx.device.settings(namespace)
    where = binds.get("\0where")
    wanted = key_in_uri or None
    if where is not None:
        m = re.fullmatch(r"""\s*name\s*=\s*(['"])(.*)\1\s*""", where)
        if m is None:
            ctx.errln(f"java.lang.UnsupportedOperationException: --where {where!r} is not supported on this device")
            return 1
        wanted = m.group(2)
    if verb == "insert":
        name = binds.get("name")
        if not name:
            ctx.errln("java.lang.IllegalArgumentException: Name must not be empty")
            return 1
        with rows.writing_as("com.android.shell"):
            rows[name] = binds.get("value", "")
        if namespace == "global" and name == "airplane_mode_on":
            ctx.device.airplane_setting_written()
        return 0
    if verb == "delete":
        if wanted is not None:
            rows.pop(wanted, None)
        return 0
    columns = [c for c in binds.get("\0projection", "").split(":") if c] or list(SETTINGS_COLUMNS)
    found = [(n, key, value) for n, (key, value) in enumerate(rows.items(), start=1)
             if wanted is None or key == wanted]
    if not found:
        ctx.outln("No result found.")
    for row, (row_id, key, value) in enumerate(found):
        cells = {"_id": str(row_id), "name": key, "value": value}
        ctx.outln(f"Row: {row} " + ", ".join(f"{c}={cells.get(c, 'NULL')}" for c in columns))
    return 0
