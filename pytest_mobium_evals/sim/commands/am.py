"""`am` (start, force-stop, stack, broadcast, …) and `monkey` on the virtual device, with their intent parsing."""

from __future__ import annotations

import re
import time

from ..apps.appium_settings import RECEIVERS
from ..device import VirtualDevice, VirtualDeviceError
from ..device.defaults import LAUNCHER_PACKAGE
from ..pace import spend
from ..uia2.instrumentation import instrument
from .base import Ctx, command, java_exception

AM_USAGE = """Activity manager (activity) commands:
  help
      Print this help text.
  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>]
          [--sampling INTERVAL] [--streaming] [-R COUNT] [-S]
          [--track-allocation] [--user <USER_ID> | current] <INTENT>
      Start an Activity.
  force-stop [--user <USER_ID> | all | current] <PACKAGE>
      Completely stop the given application package.
  broadcast [--user <USER_ID> | all | current] <INTENT>
      Send a broadcast Intent.
  stack list
      List all of the activity stacks and their sizes.
"""


class Intent:
    def __init__(self) -> None:
        self.action: str | None = None
        self.categories: list[str] = []
        self.data: str | None = None
        self.mime: str | None = None
        self.component: str | None = None
        self.package: str | None = None
        self.flags: int | None = None
        self.extras: dict = {}

    def describe(self, short_cmp: str | None = None, flags: int | None = None) -> str:
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append(f"cat=[{','.join(self.categories)}]")
        if self.data:
            parts.append(f"dat={self.data}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        f = flags if flags is not None else self.flags
        if f:
            parts.append(f"flg=0x{f:x}")
        if self.package and not self.component:
            parts.append(f"pkg={self.package}")
        if short_cmp or self.component:
            parts.append(f"cmp={short_cmp or self.component}")
        s = " ".join(parts)
        if self.extras:
            s += " (has extras)"
        return s


class UsageError(Exception):
    pass


def parse_intent(args: list[str]) -> tuple[Intent, dict]:
    """Intent options as `am` reads them; returns the intent and the non-intent options."""
    intent = Intent()
    opts = {"W": False, "S": False, "user": None}
    it = iter(args)

    def need(opt: str) -> str:
        v = next(it, None)
        if v is None:
            raise UsageError(f'Argument expected after "{opt}"')
        return v

    for a in it:
        if a == "-a":
            intent.action = need(a)
        elif a == "-c":
            intent.categories.append(need(a))
        elif a == "-d":
            intent.data = need(a)
        elif a == "-t":
            intent.mime = need(a)
        elif a == "-n":
            intent.component = need(a)
        elif a == "-p":
            intent.package = need(a)
        elif a == "-f":
            v = need(a)
            try:
                intent.flags = int(v, 0)
            except ValueError:
                raise UsageError(f"Bad flags: {v}") from None
        elif a in ("--ez",):
            k, v = need(a), need(a)
            if v.lower() in ("true", "t", "1"):
                intent.extras[k] = True
            elif v.lower() in ("false", "f", "0"):
                intent.extras[k] = False
            else:
                raise UsageError(f"Invalid boolean value: {v}")
        elif a in ("--es", "-e"):
            k, v = need(a), need(a)
            intent.extras[k] = v
        elif a == "--esn":
            intent.extras[need(a)] = None
        elif a in ("--ei", "--el"):
            k, v = need(a), need(a)
            try:
                intent.extras[k] = int(v)
            except ValueError:
                raise UsageError(f"Invalid integer value: {v}") from None
        elif a in ("--ef", "--ed"):
            k, v = need(a), need(a)
            try:
                intent.extras[k] = float(v)
            except ValueError:
                raise UsageError(f"Invalid float value: {v}") from None
        elif a in ("--eu",):
            k, v = need(a), need(a)
            intent.extras[k] = v
        elif a in ("--esa", "--eia", "--ela"):
            k, v = need(a), need(a)
            intent.extras[k] = v.split(",")
        elif a == "-W":
            opts["W"] = True
        elif a == "-S":
            opts["S"] = True
        elif a in ("-D", "-N", "--track-allocation", "--streaming", "--activity-clear-top",
                   "--activity-clear-task", "--activity-new-task", "--activity-single-top",
                   "--activity-no-history", "--activity-reorder-to-front", "--receiver-foreground",
                   "--activity-brought-to-front", "--windowingMode", "--grant-read-uri-permission"):
            if a == "--activity-clear-task":
                opts["clear_task"] = True
            if a == "--windowingMode":
                need(a)
        elif a in ("--user", "-R", "-P", "--start-profiler", "--sampling", "--display", "--activityType",
                   "--task"):
            v = need(a)
            if a == "--user":
                opts["user"] = v
        elif a.startswith("-"):
            raise UsageError(f"Unknown option: {a}")
        else:
            # a bare argument: a component, or an intent URI
            if "/" in a and not re.match(r"^[a-z]+:", a):
                intent.component = a
            else:
                intent.data = a
    return intent, opts


def resolve_intent(device: VirtualDevice, intent: Intent) -> tuple[str | None, str | None]:
    """-> (component "pkg/full.Class", short form) or (None, None) when nothing answers the intent."""
    if intent.component:
        name, cls = intent.component.split("/", 1) if "/" in intent.component else (intent.component, "")
        full = name + cls if cls.startswith(".") else cls
        pkg = device.packages.get(name)
        short = pkg.short(full) if pkg else (f"{name}/{cls}" if cls.startswith(".") else f"{name}/{full}")
        if full.startswith(name + "."):
            short = f"{name}/{full[len(name):]}"
        return f"{name}/{full}", short
    if intent.action == "android.intent.action.MAIN" and "android.intent.category.HOME" in intent.categories:
        pkg = device.packages[LAUNCHER_PACKAGE]
        cls = next(iter(pkg.activities))
        return f"{pkg.name}/{cls}", pkg.short(cls)
    if intent.action in (None, "android.intent.action.MAIN") and intent.package:
        pkg = device.packages.get(intent.package)
        if pkg and pkg.launcher_activity:
            return f"{pkg.name}/{pkg.launcher_activity}", pkg.short(pkg.launcher_activity)
        return None, None
    if intent.action:
        for pkg in device.packages.values():
            if intent.package and pkg.name != intent.package:
                continue
            for cls, app in pkg.activities.items():
                if intent.action in getattr(app, "actions", ()):
                    return f"{pkg.name}/{cls}", pkg.short(cls)
        if intent.action == "android.intent.action.VIEW" and intent.data and \
                re.match(r"^https?://", intent.data) and "com.android.chrome" in device.packages:
            pkg = device.packages["com.android.chrome"]
            return f"{pkg.name}/{pkg.launcher_activity}", pkg.short(pkg.launcher_activity or "")
    return None, None


@command("am")
def am(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if not args or args[0] in ("help", "-h"):
        ctx.out(AM_USAGE)
        return 0 if args else 255
    sub, rest = args[0], args[1:]
    if sub in ("start", "start-activity"):
        return _am_start(ctx, rest)
    if sub == "force-stop":
        pkgs = [a for a in rest if not a.startswith("--")]
        if "--user" in rest:
            pkgs = pkgs[1:]
        if not pkgs:
            return java_exception(ctx, "force-stop", "java.lang.IllegalArgumentException",
                                  'Argument expected after "force-stop"',
                                  "com.android.server.am.ActivityManagerShellCommand.runForceStop"
                                  "(ActivityManagerShellCommand.java:1376)")
        d.force_stop(pkgs[0])
        spend(d, d.pace.force_stop)
        return 0
    if sub == "kill":
        pkgs = [a for a in rest if not a.startswith("--")]
        if pkgs and pkgs[0] in d.processes:
            rec = d.current_activity()
            if rec is None or rec.package.name != pkgs[0]:
                d.kill_process(pkgs[0], reason="kill background")
        return 0
    if sub == "stack":
        return _am_stack(ctx, rest)
    if sub == "broadcast":
        return _am_broadcast(ctx, rest)
    if sub == "get-current-user":
        ctx.outln("0")
        return 0
    if sub == "get-config":
        ctx.outln("config: en-rUS-ldltr-sw411dp-w411dp-h866dp-normal-long-notround-lowdr-nowidecg-port-"
                  f"{'night' if d.night_mode else 'notnight'}-420dpi-finger-keysexposed-nokeys-navhidden-nonav-v35")
        return 0
    if sub == "instrument":
        return instrument(ctx, rest)
    ctx.outln(f"Unknown command: {sub}")
    return 255


def _am_start(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    t0 = time.perf_counter()
    try:
        intent, opts = parse_intent(args)
    except UsageError as e:
        return java_exception(ctx, "start", "java.lang.IllegalArgumentException", str(e),
                              "android.content.Intent.parseCommandArgs(Intent.java:11891)")
    if not (intent.component or intent.action or intent.data or intent.package):
        return java_exception(ctx, "start", "java.lang.IllegalArgumentException", "No intent supplied",
                              "com.android.server.am.ActivityManagerShellCommand.makeIntent"
                              "(ActivityManagerShellCommand.java:588)")
    wait = opts["W"]
    err = ctx.outln if wait else ctx.errln
    component, short = resolve_intent(d, intent)
    if intent.data and intent.data.startswith("package:"):
        intent.extras.setdefault("package", intent.data[len("package:"):])
    if opts["S"] and component:
        pkg_name = component.split("/", 1)[0]
        ctx.outln(f"Stopping: {pkg_name}")
        d.force_stop(pkg_name)
    shown = Intent()
    shown.__dict__.update(intent.__dict__)
    ctx.outln(f"Starting: Intent {{ {shown.describe(short)} }}")
    if component is None:
        err(f"Error: Activity not started, unable to resolve Intent {{ {shown.describe(None, 0x10000000)} }}")
        return 1
    launch_extras = dict(intent.extras)
    if intent.data and "data" not in launch_extras:
        launch_extras["data"] = intent.data
    launch_intent = shown.describe(short, 0x10000000 | (intent.flags or 0)).replace(" (has extras)", "")
    try:
        state = d.start_activity(component, launch_extras, intent=launch_intent,
                                 clear_top=bool(opts.get("clear_task")))
    except VirtualDeviceError as e:
        err("Error type 3")
        err(f"Error: {e}")
        return 1
    if state == "DELIVERED":
        err("Warning: Activity not started, intent has been delivered to currently running top-most instance.")
    elif state == "HOT" and component.split("/", 1)[0] != LAUNCHER_PACKAGE:
        err("Warning: Activity not started, its current task has been brought to the front")
    spend(d, d.pace.am_start)
    if wait:
        total = {"COLD": 380, "WARM": 120, "HOT": 45}.get(state, -1)
        if d.pace.paced and total > 0:
            spend(d, total / 1000)  # -W returns once the activity has drawn: the TotalTime it reports
        rec = d.current_activity()
        elapsed = int((time.perf_counter() - t0) * 1000)
        ctx.outln("Status: ok")
        ctx.outln(f"LaunchState: {state if state in ('COLD', 'WARM', 'HOT') else 'UNKNOWN (0)'}")
        if rec is not None:
            ctx.outln(f"Activity: {rec.short}")
        if total >= 0:
            ctx.outln(f"TotalTime: {total}")
        ctx.outln(f"WaitTime: {total + 3 if total >= 0 else elapsed + 1}")
        ctx.outln("Complete")
    return 0


GRANT_PERMISSIONS = ("com.google.android.permissioncontroller/"
                     "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity")


def _am_stack(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if args and args[0] == "list":
        visible_task = d.tasks[0] if d.tasks else None
        for _n, task in enumerate(d.tasks):
            root_id = 1 if task.kind == "home" else task.id
            ctx.outln(f"RootTask id={root_id} bounds=[0,0][1080,2400] displayId=0 userId=0")
            ctx.outln(" configuration={1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long "
                      f"{'night' if d.night_mode else 'notnight'} port finger -keyb/v/h -nav/h display=0}}")
            top = task.top
            if top is None:
                continue
            base = task.activities[0]
            vis = "true" if task is visible_task else "false"
            # A runtime-permission prompt is an activity of the controller's started into the asking app's task:
            # the task's top until it is answered (what AndroidWorld's OpenAppTaskEval reads, hence its goal's
            # "grant all permissions that are required").
            shown = GRANT_PERMISSIONS if top.dialogs and top.dialogs[-1].kind == "permission" else top.full
            ctx.outln(f"  taskId={task.id}: {base.full} bounds=[0,0][1080,2400] userId=0 visible={vis} "
                      f"topActivity=ComponentInfo{{{shown}}}")
            ctx.outln("")
        return 0
    if args and args[0] == "remove" and len(args) > 1:
        try:
            tid = int(args[1])
        except ValueError:
            return java_exception(ctx, "stack", "java.lang.NumberFormatException",
                                  f'For input string: "{args[1]}"', "java.lang.Integer.parseInt(Integer.java:781)")
        for task in list(d.tasks):
            if task.id == tid and task.kind != "home":
                for rec in task.activities:
                    d._stopped(rec)
                d.tasks.remove(task)
                nxt = d.current_activity()
                if nxt is not None:
                    nxt.state = "RESUMED"
        return 0
    ctx.outln(f"Unknown command: stack {' '.join(args)}".rstrip())
    return 255


def _am_broadcast(ctx: Ctx, args: list[str]) -> int:
    try:
        intent, _ = parse_intent(args)
    except UsageError as e:
        return java_exception(ctx, "broadcast", "java.lang.IllegalArgumentException", str(e),
                              "android.content.Intent.parseCommandArgs(Intent.java:11891)")
    ctx.outln(f"Broadcasting: Intent {{ {intent.describe(None, 0x400000)} }}")
    if intent.action == "android.intent.action.AIRPLANE_MODE":
        # A protected broadcast: Android 15 refuses it from the shell user.
        return java_exception(
            ctx, "broadcast", "java.lang.SecurityException",
            "Permission Denial: not allowed to send broadcast android.intent.action.AIRPLANE_MODE from pid="
            f"{ctx.device.system_pid + 9000}, uid=2000",
            "com.android.server.am.BroadcastController.broadcastIntentLocked(BroadcastController.java:1001)")
    if intent.action == "clipper.set" or intent.action == "clipper.get":
        if intent.action == "clipper.set":
            ctx.device.clipboard = str(intent.extras.get("text", ""))
            ctx.outln('Broadcast completed: result=-1, data="Text is copied into clipboard."')
        else:
            ctx.outln(f'Broadcast completed: result=-1, data="{ctx.device.clipboard}"')
        return 0
    if intent.component:  # an explicit broadcast to an installed APK's receiver whose code the device runs
        package, _, cls = intent.component.partition("/")
        handler = RECEIVERS.get((package, package + cls if cls.startswith(".") else cls))
        answer = handler(ctx.device, intent.action or "", dict(intent.extras)) \
            if handler is not None and package in ctx.device.packages else None
        if answer is not None:
            code, data = answer
            ctx.outln(f"Broadcast completed: result={code}" + (f', data="{data}"' if data is not None else ""))
            return 0
    receiver = ctx.device.input_method_receiver(intent.action or "")
    if receiver is not None:
        code, data = receiver.receive(intent.action, dict(intent.extras))
        ctx.outln(f"Broadcast completed: result={code}" + (f', data="{data}"' if data is not None else ""))
        return 0
    ctx.outln("Broadcast completed: result=0")
    return 0


@command("monkey")
def _monkey(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    for a in args:
        ctx.outln(f"  bash arg: {a}")
    ctx.errln(f"args: [{', '.join(args)}]")
    for a in args:
        ctx.errln(f' arg: "{a}"')
    pkgs: list[str] = []
    cats: list[str] = []
    count = None
    it = iter(args)
    for a in it:
        if a == "-p":
            pkgs.append(next(it, ""))
        elif a == "-c":
            cats.append(next(it, ""))
        elif a in ("-s", "--throttle", "--pct-touch", "--pct-motion", "--pct-syskeys", "--pct-appswitch"):
            next(it, None)
        elif a.startswith("-"):
            continue
        else:
            try:
                count = int(a)
            except ValueError:
                ctx.errln(f"** Error: Invalid argument: {a}")
                return 1
    for p in pkgs + cats:
        ctx.errln(f'data="{p}"')
    for line in [f"args: [{', '.join(args)}]"] + [f'data="{p}"' for p in pkgs + cats]:
        d.log("Monkey", line, "W", pid=d.system_pid + 9100)
    if count is None:
        ctx.errln("** Error: Count not specified")
        return 1
    targets = [d.packages[p] for p in pkgs if p in d.packages and d.packages[p].launcher_activity]
    if not targets:
        ctx.errln("** No activities found to run, monkey aborted.")
        return 252
    ctx.errln("** SYS_KEYS has no physical keys but with factor 2.0%.")
    d.launch(targets[0].name)
    ctx.outln("Events injected: 1")
    ms = 64
    ctx.outln(f"## Network stats: elapsed time={ms}ms (0ms mobile, 0ms wifi, {ms}ms not connected)")
    return 0
