"""`cmd location` and `appops` on the virtual device: the location switch, and test providers — the way Android's
own location tests (and Mobium) place a device: `appops set com.android.shell android:mock_location allow`, then
`cmd location providers add-test-provider gps`, `set-test-provider-enabled gps true`,
`set-test-provider-location gps --location LAT,LON`. A fix set this way is the device's position (`device.location`,
which apps read) and is marked mock; removing the provider leaves that last fix behind, as Android's cache does."""

from __future__ import annotations

from .base import Ctx, command, java_exception

HELP = ("Location service commands:\n  help or -h\n    Print this help text.\n"
        "  is-location-enabled [--user <USER_ID>]\n    Gets the master location switch enabled state.\n"
        "  set-location-enabled [--user <USER_ID>] true|false\n    Sets the master location switch enabled state.\n"
        "  providers\n    The providers command is followed by a subcommand, as listed below:\n\n"
        "    add-test-provider <PROVIDER> [--requiresNetwork] [--requiresSatellite]\n"
        "      [--requiresCell] [--hasMonetaryCost] [--supportsAltitude]\n"
        "      [--supportsSpeed] [--supportsBearing]\n      [--powerRequirement <POWER_REQUIREMENT>]\n"
        "      [--extraAttributionTags <TAG>,<TAG>,...]\n      Add the given test provider.\n"
        "    remove-test-provider <PROVIDER>\n      Remove the given test provider.\n"
        "    set-test-provider-enabled <PROVIDER> true|false\n      Sets the given test provider enabled state.\n"
        "    set-test-provider-location <PROVIDER> --location <LATITUDE>,<LONGITUDE>\n"
        "      [--accuracy <ACCURACY>] [--time <TIME>]\n      Set location for given test provider.")
HANDLER = "com.android.server.location.LocationShellCommand"


def location_command(ctx: Ctx, args: list[str]) -> int:
    secure = ctx.device.settings("secure")
    if args[:1] == ["is-location-enabled"]:
        ctx.outln("true" if secure.get("location_mode", "0") != "0" else "false")
        return 0
    if args[:1] == ["set-location-enabled"] and len(args) >= 2 and args[-1] in ("true", "false"):
        secure["location_mode"] = "3" if args[-1] == "true" else "0"  # 3: high accuracy, what "on" restores
        return 0
    if args[:1] == ["providers"] and len(args) >= 2:
        return _providers(ctx, args[1], args[2:])
    ctx.outln(HELP)
    return 0 if not args or args[0] in ("help", "-h") else 255


def _providers(ctx: Ctx, sub: str, args: list[str]) -> int:
    d = ctx.device
    if sub not in ("add-test-provider", "remove-test-provider", "set-test-provider-enabled",
                   "set-test-provider-location"):
        ctx.outln(HELP)
        return 255
    if not args:
        return java_exception(ctx, "providers", "java.lang.IllegalArgumentException", "missing provider argument",
                              f"{HANDLER}.getNextArgRequired(LocationShellCommand.java:112)")
    provider = args[0]
    if d.appops.get(("com.android.shell", "android:mock_location"), "default") != "allow":
        return java_exception(ctx, "providers", "java.lang.SecurityException",
                              "com.android.shell is not allowed to perform MOCK_LOCATION",
                              "com.android.server.location.LocationManagerService.addTestProvider"
                              "(LocationManagerService.java:1363)")
    if sub == "add-test-provider":
        d.test_providers[provider] = False
        return 0
    if provider not in d.test_providers:
        return java_exception(ctx, "providers", "java.lang.IllegalArgumentException",
                              f"provider doesn't exist: {provider}",
                              "com.android.server.location.provider.LocationProviderManager.setTestProvider"
                              "(LocationProviderManager.java:1441)")
    if sub == "remove-test-provider":
        del d.test_providers[provider]
        return 0
    if sub == "set-test-provider-enabled":
        if len(args) < 2 or args[1] not in ("true", "false"):
            return java_exception(ctx, "providers", "java.lang.IllegalArgumentException", "Invalid boolean value",
                                  f"{HANDLER}.handleSetTestProviderEnabled(LocationShellCommand.java:236)")
        d.test_providers[provider] = args[1] == "true"
        return 0
    where = None
    it = iter(args[1:])
    for a in it:
        if a == "--location":
            where = next(it, "")
        elif a in ("--accuracy", "--time"):
            next(it, None)
    try:
        lat, lon = (float(v) for v in (where or "").split(","))
    except ValueError:
        return java_exception(ctx, "providers", "java.lang.IllegalArgumentException",
                              "location argument must be in the form of \"<LATITUDE>,<LONGITUDE>\"",
                              f"{HANDLER}.handleSetTestProviderLocation(LocationShellCommand.java:270)")
    if d.test_providers[provider]:
        d.location = (lat, lon)
        d.location_mock = True
    return 0


@command("appops")
def _appops(ctx: Ctx, args: list[str]) -> int:
    """`appops set|get PACKAGE OP [MODE]` for the ops the virtual device knows (mock location)."""
    d = ctx.device
    if len(args) >= 4 and args[0] == "set":
        pkg, op, mode = args[-3], args[-2], args[-1]
        if mode not in ("allow", "ignore", "deny", "default", "foreground"):
            ctx.errln(f"Error: Mode {mode} is not valid")
            return 255
        d.appops[(pkg, op if op.startswith("android:") else "android:" + op.lower())] = mode
        return 0
    if len(args) >= 3 and args[0] == "get":
        pkg, op = args[-2], args[-1]
        mode = d.appops.get((pkg, op if op.startswith("android:") else "android:" + op.lower()))
        name = op.removeprefix("android:").upper()
        ctx.outln(f"{name}: {mode}" if mode else "No operations.")
        return 0
    ctx.outln("AppOps service (appops) commands:\n  help\n    Print this help text.\n"
              "  set [--user <USER_ID>] [--uid] <PACKAGE | UID> <OP> <MODE>\n"
              "  get [--user <USER_ID>] [--attribution <ATTRIBUTION_TAG>] <PACKAGE | UID> [<OP>]")
    return 0 if not args or args[0] == "help" else 255
