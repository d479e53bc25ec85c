"""`content` on the virtual device: the contacts provider's raw_contacts and data tables, as a precondition adds a
contact on a real device (a raw contact, then its name row), and a query of the aggregated contacts. Other providers
are not there: an error naming the authority, as Android's shell prints for an unknown one."""

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
