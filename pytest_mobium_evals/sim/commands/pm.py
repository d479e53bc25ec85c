"""`pm` on the virtual device: listing, paths, grants and revokes, clearing, resolving activities."""

from __future__ import annotations

from ..device.defaults import PERMISSION_QUESTIONS
from ..dumpsys import dumpsys
from ..pace import spend
from .am import UsageError, parse_intent, resolve_intent
from .base import Ctx, command, java_exception
from .installs import INSTALL_VERBS, install_command, list_instrumentation, uninstall_command


@command("pm")
def pm(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if not args or args[0] in ("help", "-h"):
        ctx.outln("Package manager (package) commands:\n  help\n    Print this help text.\n"
                  "  path [--user USER_ID] PACKAGE\n  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] "
                  "[-U] [--show-versioncode] [FILTER]\n  clear [--user USER_ID] PACKAGE\n"
                  "  grant [--user USER_ID] PACKAGE PERMISSION\n  revoke [--user USER_ID] PACKAGE PERMISSION\n"
                  "  reset-permissions [-p PACKAGE]\n  resolve-activity [--brief] INTENT\n"
                  "  query-activities [--brief] [--components] INTENT")
        return 0 if args else 255
    sub, rest = args[0], list(args[1:])
    if "--user" in rest:
        i = rest.index("--user")
        del rest[i:i + 2]
    if sub == "list":
        if not rest or rest[0] not in ("packages", "package"):
            what = rest[0] if rest else ""
            if what == "instrumentation":
                return list_instrumentation(ctx, rest[1:])
            if what in ("permissions", "features", "libraries", "users"):
                return _pm_list_other(ctx, what)
            ctx.errln(f"Error: unknown list type '{what}'")
            return 255
        return _pm_list_packages(ctx, rest[1:])
    if sub == "path":
        if not rest:
            ctx.errln("Error: no package specified")
            return 255
        if rest[0] not in d.packages:
            return 1
        for path in d.apk_paths(rest[0]):
            ctx.outln(f"package:{path}")
        return 0
    if sub == "clear":
        pkgs = [a for a in rest if not a.startswith("-")]
        if not pkgs:
            ctx.errln("Error: no package specified")
            return 255
        cleared = d.clear_data(pkgs[0])
        spend(d, d.pace.pm_clear)
        if cleared:
            ctx.outln("Success")
            return 0
        ctx.errln("Failed")
        return 1
    if sub in ("grant", "revoke"):
        return _pm_grant(ctx, sub, [a for a in rest if not a.startswith("-")])
    if sub == "reset-permissions":
        if rest and rest[0] == "-p" and len(rest) > 1:
            d.reset_permissions(rest[1], kill=True)
        else:
            d.reset_permissions(kill=True)
        return 0
    if sub == "resolve-activity":
        return _resolve_activity(ctx, rest)
    if sub == "query-activities":
        return _query_activities(ctx, rest)
    if sub == "dump":
        return dumpsys(ctx, ["package"] + rest)
    if sub in INSTALL_VERBS:
        return install_command(ctx, sub, rest)
    if sub == "uninstall":
        return uninstall_command(ctx, args[1:])
    if sub in ("enable", "disable", "disable-user", "disable-until-used"):
        pkgs = [a for a in rest if not a.startswith("-")]
        if not pkgs:
            ctx.errln("Error: no package or component specified")
            return 255
        # The virtual device keeps every package enabled: refuse the way Android refuses it for protected ones.
        return java_exception(ctx, sub, "java.lang.SecurityException",
                              f"Shell cannot change component state for {pkgs[0]} to "
                              f"{ {'enable': 1, 'disable': 2, 'disable-user': 3}.get(sub, 4) }",
                              "com.android.server.pm.PackageManagerService.setEnabledSetting"
                              "(PackageManagerService.java:4203)")
    ctx.outln(f"Unknown command: {sub}")
    return 255


def _pm_list_other(ctx: Ctx, what: str) -> int:
    if what == "users":
        ctx.outln("Users:\n\tUserInfo{0:Owner:c13} running")
    elif what == "features":
        for f in ("android.hardware.touchscreen", "android.hardware.wifi", "android.hardware.bluetooth",
                  "android.hardware.camera", "android.hardware.location.gps", "android.software.webview"):
            ctx.outln(f"feature:{f}")
    elif what == "permissions":
        ctx.outln("All Permissions:\n")
        for p in sorted(PERMISSION_QUESTIONS):
            ctx.outln(f"permission:{p}")
    return 0


def _pm_list_packages(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    flags = set()
    filt = None
    for a in args:
        if a.startswith("--"):
            flags.add(a)
        elif a.startswith("-"):
            flags.update(a[1:])
        else:
            filt = a
    rows = []
    for pkg in d.packages.values():
        if "3" in flags and pkg.system:
            continue
        if "s" in flags and not pkg.system:
            continue
        if "d" in flags:
            continue  # nothing is disabled
        if filt and filt not in pkg.name:
            continue
        line = "package:"
        if "f" in flags:
            line += d.apk_path(pkg.name) + "="
        line += pkg.name
        if "--show-versioncode" in flags:
            line += f" versionCode:{pkg.version_code}"
        if "U" in flags:
            line += f" uid:{pkg.uid}"
        if "i" in flags:
            line += " installer=" + ("null" if pkg.system else "com.android.shell")
        rows.append(line)
    for line in rows:
        ctx.outln(line)
    return 0


def _pm_grant(ctx: Ctx, verb: str, args: list[str]) -> int:
    d = ctx.device
    where = ("com.android.server.pm.permission.PermissionManagerServiceImpl.grantRuntimePermissionInternal"
             "(PermissionManagerServiceImpl.java:1352)")
    if len(args) < 2:
        return java_exception(ctx, verb, "java.lang.IllegalArgumentException",
                              "Error: no package specified" if not args else "Error: no permission specified",
                              "com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission"
                              "(PackageManagerShellCommand.java:2591)")
    pkg_name, perm = args[0], args[1]
    pkg = d.packages.get(pkg_name)
    if pkg is None:
        return java_exception(ctx, verb, "java.lang.IllegalArgumentException", f"Unknown package: {pkg_name}",
                              where)
    if perm not in pkg.permissions:
        if perm not in PERMISSION_QUESTIONS and not perm.startswith("android.permission."):
            return java_exception(ctx, verb, "java.lang.IllegalArgumentException", f"Unknown permission: {perm}",
                                  where)
        return java_exception(ctx, verb, "java.lang.SecurityException",
                              f"Package {pkg_name} has not requested permission {perm}", where)
    d.grant(pkg_name, perm, granted=verb == "grant")
    if verb == "revoke" and pkg_name in d.processes:
        # revoking a runtime permission kills the app, as on a device
        d.kill_process(pkg_name, reason="permissions revoked")
    return 0


def _resolve_activity(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    brief = "--brief" in args
    args = [a for a in args if a not in ("--brief", "--components")]
    try:
        intent, _ = parse_intent(args)
    except UsageError as e:
        return java_exception(ctx, "resolve-activity", "java.lang.IllegalArgumentException", str(e),
                              "android.content.Intent.parseCommandArgs(Intent.java:11891)")
    if intent.data and "/" not in intent.data and ":" not in intent.data and not intent.package:
        intent.package, intent.data = intent.data, None
    if intent.component is None and intent.action is None:
        intent.action = "android.intent.action.MAIN"
    component, short = resolve_intent(d, intent)
    if component is None:
        ctx.outln("No activity found")
        return 0
    ctx.outln("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false")
    if brief:
        ctx.outln(short or component)
        return 0
    _activity_info(ctx, component, "")
    return 0


def _activity_info(ctx: Ctx, component: str, prefix: str) -> None:
    """ResolveInfo's ActivityInfo block as `cmd package resolve-activity`/`query-activities` print it
    (ActivityInfo.dump: the component's name and package, then its flags line)."""
    d = ctx.device
    name, cls = component.split("/", 1)
    ctx.outln(f"{prefix}ActivityInfo:")
    ctx.outln(f"{prefix}  name={cls}")
    ctx.outln(f"{prefix}  packageName={name}")
    ctx.outln(f"{prefix}  enabled=true exported=true directBootAware=false")
    ctx.outln(f"{prefix}  taskAffinity={name} targetActivity=null persistableMode=PERSIST_ROOT_ONLY")
    if name in d.packages:
        ctx.outln(f"{prefix}  processName={name}")
        ctx.outln(f"{prefix}  sourceDir={d.apk_path(name)}")


LAUNCHER_CATEGORY = "android.intent.category.LAUNCHER"


def _query_activities(ctx: Ctx, args: list[str]) -> int:
    """Every activity that answers the intent (PackageManagerShellCommand.runQueryIntentActivities): a count line,
    then each ResolveInfo under "Activity #N:" (with --brief, its component on one line; --components, only the
    components). MAIN with LAUNCHER is what a launcher lists: each package's launcher activity."""
    d = ctx.device
    brief, components = "--brief" in args, "--components" in args
    args = [a for a in args if a not in ("--brief", "--components")]
    try:
        intent, _ = parse_intent(args)
    except UsageError as e:
        return java_exception(ctx, "query-activities", "java.lang.IllegalArgumentException", str(e),
                              "android.content.Intent.parseCommandArgs(Intent.java:11891)")
    found: list[tuple[str, str]] = []
    if intent.action == "android.intent.action.MAIN" and LAUNCHER_CATEGORY in intent.categories:
        for pkg in d.packages.values():
            if pkg.launcher_activity and (not intent.package or pkg.name == intent.package):
                found.append((f"{pkg.name}/{pkg.launcher_activity}", pkg.short(pkg.launcher_activity)))
    else:
        component, short = resolve_intent(d, intent)
        if component is not None:
            found.append((component, short or component))
    if not found:
        ctx.outln("No activities found")
        return 0
    if components:
        for component, _short in found:
            ctx.outln(component)
        return 0
    ctx.outln(f"{len(found)} activities found:")
    for n, (component, short) in enumerate(found):
        ctx.outln(f"  Activity #{n}:")
        if brief:
            ctx.outln(f"    {short}")
            continue
        ctx.outln("    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false")
        _activity_info(ctx, component, "    ")
    return 0
