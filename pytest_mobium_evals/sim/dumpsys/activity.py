"""`dumpsys activity` (activities, top, recents, processes) on the virtual device."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import stable_hash

if TYPE_CHECKING:  # pragma: no cover
    from ..commands.base import Ctx
    from ..device import VirtualDevice
    from ..device.records import ActivityRecord, ActivityTask


def _task_line(d: "VirtualDevice", task: "ActivityTask", visible: bool) -> str:
    vis = "true" if visible else "false"
    if task.kind == "home":
        return (f"{task.header()} U=0 visible={vis} visibleRequested={vis} mode=fullscreen translucent=false "
                f"sz={len(task.activities)}}}")
    return (f"{task.header()} U=0 visible={vis} visibleRequested={vis} mode=fullscreen translucent=false "
            f"sz={len(task.activities)}}}")


def _uid_name(uid: int) -> str:
    """A uid as Android's UserHandle prints it: an app's u0aNN, a system one as its number."""
    return f"u0a{uid - 10000}" if uid >= 10000 else str(uid)


def _proc_record(d: "VirtualDevice", pkg_name: str) -> str:
    proc = d.processes.get(pkg_name)
    pkg = d.packages[pkg_name]
    if proc is None:
        return "null"
    user = "1000" if pkg.uid == 1000 else f"u0a{pkg.uid - 10000}"
    return f"ProcessRecord{{{stable_hash(pkg_name)} {proc.pid}:{pkg_name}/{user}}}"


def _activity(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    what = args[0] if args else "activities"
    if what in ("activities", "a"):
        _activity_activities(ctx, d)
    elif what == "top":
        _activity_top(ctx, d)
    elif what in ("recents", "r"):
        _activity_recents(ctx, d)
    elif what in ("processes", "p"):
        ctx.outln("ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)")
        ctx.outln("  All known processes:")
        for proc in d.processes.values():
            ctx.outln(f"  *APP* UID {proc.uid} {_proc_record(d, proc.package)}")
            ctx.outln(f"    user #0 uid={proc.uid} gids={{50{proc.uid % 1000}, 20{proc.uid % 1000}, 9997}}")
    elif what in ("services", "s"):
        _activity_services(ctx, d, args[1:])
    elif what in ("broadcasts", "b", "providers", "prov", "intents", "i", "settings",
                  "permissions", "lmk", "lru", "starter", "containers", "service"):
        ctx.outln(f"ACTIVITY MANAGER {what.upper()} (dumpsys activity {what})")
        ctx.outln("  (nothing)")
    else:
        ctx.outln(f"Bad activity command, or no activities match: {what}")
        ctx.outln("Use -h for help.")
    return 0


def _ago(seconds: float) -> str:
    """A duration as Android's TimeUtils.formatDuration prints one in the past: -1m2s345ms."""
    ms = max(0, int(seconds * 1000))
    minutes, ms = divmod(ms, 60000)
    secs, ms = divmod(ms, 1000)
    return "-" + (f"{minutes}m" if minutes else "") + (f"{secs}s" if secs or minutes else "") + f"{ms}ms"


def _activity_services(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> None:
    """`dumpsys activity services [PACKAGE|COMPONENT]`: each started service's ServiceRecord, as ActiveServices
    dumps it (the lines a client reads: the record, its intent, package, process and `isForeground`)."""
    wanted = [a for a in args if not a.startswith("-")]
    ctx.outln("ACTIVITY MANAGER SERVICES (dumpsys activity services)")
    shown = [(c, s) for c, s in d.running_services.items()
             if not wanted or any(c.split("/", 1)[0] == w or c == w for w in wanted)]
    if not shown:
        ctx.outln("  (nothing)")
        return
    ctx.outln("  User 0 active services:")
    now = d.now()
    for component, service in shown:
        package = component.split("/", 1)[0]
        pkg = d.packages.get(package)
        ctx.outln(f"  * ServiceRecord{{{stable_hash(component)} u0 {component} c:{package}}}")
        ctx.outln(f"    intent={{cmp={component}}}")
        ctx.outln(f"    packageName={package}")
        ctx.outln(f"    processName={package}")
        ctx.outln("    permission=null")
        if pkg is not None:
            ctx.outln(f"    baseDir={pkg.code_path}/base.apk")
            ctx.outln(f"    dataDir=/data/user/0/{package}")
            ctx.outln(f"    app={_proc_record(d, package)}")
        ago = _ago(now - service["created"])
        if service["foreground"]:
            ctx.outln("    isForeground=true foregroundId=1 types=0x00000000 foregroundNoti=Notification("
                      "channel=main_channel shortcut=null contentView=null vibrate=null sound=null defaults=0x0 "
                      "flags=0x62 color=0x00000000 vis=PRIVATE)")
        ctx.outln(f"    createTime={ago} startingBgTimeout=--")
        ctx.outln(f"    lastActivity={ago} restartTime={ago} createdFromFg=true")
        ctx.outln("    startRequested=true delayedStop=false stopIfKilled=false callStart=true lastStartId=1")
        ctx.outln("")


def focus_override(d: "VirtualDevice") -> str | None:
    """When a permission dialog is up, GrantPermissionsActivity is the resumed activity (a translucent one)."""
    rec = d.current_activity()
    if rec is not None and rec.dialogs and rec.dialogs[-1].kind == "permission":
        dlg = rec.dialogs[-1]
        return (f"ActivityRecord{{{dlg.token} u0 com.google.android.permissioncontroller/"
                f"com.android.permissioncontroller.permission.ui.GrantPermissionsActivity t{rec.task.id}}}")
    return None


def _activity_activities(ctx: "Ctx", d: "VirtualDevice") -> None:
    ctx.outln("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)")
    ctx.outln("Display #0 (activities from top to bottom):")
    front = d.tasks[0] if d.tasks else None
    resumed = d.current_activity()
    override = focus_override(d)
    for task in d.tasks:
        visible = task is front
        ctx.outln(f"  * {_task_line(d, task, visible)}")
        ctx.outln("    mBounds=Rect(0, 0 - 0, 0)")
        ctx.outln("    mCreatedByOrganizer=false")
        ctx.outln("    mLastNonFullscreenBounds=null")
        ctx.outln(f"    isSleeping={'true' if d.keyguard_showing or not d.screen_on else 'false'}")
        if visible and resumed is not None and resumed.task is task:
            ctx.outln(f"    topResumedActivity={override or resumed.record()}")
        elif task.top is not None:
            ctx.outln(f"    mLastPausedActivity: {task.top.record()}")
        if override and visible:
            ctx.outln(f"    * Hist  #{len(task.activities)}: {override}")
            ctx.outln("      packageName=com.google.android.permissioncontroller "
                      "processName=com.google.android.permissioncontroller")
            ctx.outln("      state=RESUMED delayedResume=false finishing=false")
        for i in range(len(task.activities) - 1, -1, -1):
            rec = task.activities[i]
            _hist(ctx, d, rec, i, "    ")
    ctx.outln("  Resumed activities in task display areas (from top to bottom):")
    if resumed is not None:
        ctx.outln(f"    Resumed: {override or resumed.record()}")
    ctx.outln("")
    if resumed is not None:
        ctx.outln(f"  ResumedActivity: {override or resumed.record()}")
    ctx.outln("ActivityTaskSupervisor state:")
    if front is not None:
        ctx.outln(f"  topDisplayFocusedRootTask={front.header(brief=True)}")
    ctx.outln("  mCurTaskIdForUser={0=%d}" % max((t.id for t in d.tasks), default=1))
    ctx.outln("  mUserRootTaskInFront={}")
    ctx.outln("  isHomeRecentsComponent=true")
    ctx.outln("  KeyguardController:")
    ctx.outln("    mKeyguardShowing=false")
    ctx.outln("    mAodShowing=false")
    ctx.outln("    mKeyguardGoingAway=false")


def _hist(ctx: "Ctx", d: "VirtualDevice", rec: "ActivityRecord", i: int, indent: str) -> None:
    pkg = rec.package
    ctx.outln(f"{indent}* Hist  #{i}: {rec.record()}")
    p = indent + "  "
    ctx.outln(f"{p}packageName={pkg.name} processName={pkg.name}")
    ctx.outln(f"{p}launchedFromUid=2000 launchedFromPackage=com.android.shell launchedFromFeature=null userId=0")
    ctx.outln(f"{p}app={_proc_record(d, pkg.name)}")
    ctx.outln(f"{p}Intent {{ {rec.intent} }}")
    ctx.outln(f"{p}rootOfTask={'true' if rec.task.activities and rec.task.activities[0] is rec else 'false'} "
              f"task={rec.task.header(brief=True)}")
    ctx.outln(f"{p}taskAffinity={pkg.uid}:{pkg.name}")
    ctx.outln(f"{p}mActivityComponent={rec.short}")
    ctx.outln(f"{p}baseDir={d.apk_path(pkg.name)}")
    ctx.outln(f"{p}dataDir=/data/user/0/{pkg.name}")
    ctx.outln(f"{p}stateNotNeeded=false componentSpecified=true mActivityType="
              f"{'home' if rec.task.kind == 'home' else 'standard'}")
    ctx.outln(f"{p}compat={{420dpi always-compat}} labelRes=0x7f120000 icon=0x7f0f0000 theme=0x7f130000")
    ctx.outln(f"{p}launchFailed=false launchCount=0 lastLaunchTime=-{int(d.now() * 1000) % 600000}ms")
    ctx.outln(f"{p}mHaveState={'false' if rec.state == 'RESUMED' else 'true'} mIcicle=null")
    ctx.outln(f"{p}state={rec.state} delayedResume=false finishing=false")
    ctx.outln(f"{p}keysPaused=false inHistory=true idle=true")
    ctx.outln(f"{p}occludesParent=true noDisplay=false immersive=false launchMode=0")
    ctx.outln(f"{p}mActivityType={'home' if rec.task.kind == 'home' else 'standard'}")
    ctx.outln(f"{p}mImeInsetsFrozenUntilStartInput=false")


def _activity_top(ctx: "Ctx", d: "VirtualDevice") -> None:
    # Bottom-most task first, so the foreground app's ACTIVITY line comes last (adbutils' fallback takes the last).
    override = focus_override(d)
    for task in reversed(d.tasks):
        rec = task.top
        if rec is None:
            continue
        pkg = rec.package
        proc = d.processes.get(pkg.name)
        pid = proc.pid if proc else 0
        affinity = "null" if task.kind == "home" else f"{pkg.uid}:{pkg.name}"
        ctx.outln(f"TASK {affinity} id={task.id} userId=0")
        ctx.outln(f"  ACTIVITY {rec.short} {rec.token} pid={pid} userId=0 uid={pkg.uid} "
                  f"displayId=0(type=INTERNAL)")
        ctx.outln(f"    Local Activity {rec.window_token} State:")
        resumed = rec.state == "RESUMED"
        ctx.outln(f"      mResumed={'true' if resumed else 'false'} mStopped={'false' if resumed else 'true'} "
                  f"mFinished=false")
        ctx.outln("      mIsInMultiWindowMode=false mIsInPictureInPictureMode=false")
        ctx.outln("      mChangingConfigurations=false")
        ctx.outln(f"      mCurrentConfig={{1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long "
                  f"{'night' if d.night_mode else 'notnight'} port finger -keyb/v/h -nav/h}}")
    if override:
        task = d.tasks[0]
        ctx.outln(f"TASK {task.package.uid}:{task.package.name} id={task.id} userId=0")
        token = override.split("{", 1)[1].split(" ", 1)[0]
        ctx.outln(f"  ACTIVITY com.google.android.permissioncontroller/com.android.permissioncontroller.permission."
                  f"ui.GrantPermissionsActivity {token} pid={d.system_pid + 1311} userId=0 uid=10126 "
                  f"displayId=0(type=INTERNAL)")
        ctx.outln(f"    Local Activity {token} State:")
        ctx.outln("      mResumed=true mStopped=false mFinished=false")


def _activity_recents(ctx: "Ctx", d: "VirtualDevice") -> None:
    ctx.outln("ACTIVITY MANAGER RECENT TASKS (dumpsys activity recents)")
    ctx.outln("  mRecentsUid=10131")
    ctx.outln("  mRecentsComponent=ComponentInfo{com.google.android.apps.nexuslauncher/"
              "com.android.quickstep.RecentsActivity}")
    ctx.outln("  mFreezeTaskListReordering=false")
    ctx.outln("  mFreezeTaskListReorderingPendingTimeout=false")
    standard = sorted((t for t in d.tasks if t.kind == "standard"), key=lambda t: -t.last_active)
    if not standard:
        ctx.outln("")
        ctx.outln("  Recent tasks: (none)")
        return
    ctx.outln("  Recent tasks:")
    front = d.tasks[0] if d.tasks else None
    for n, task in enumerate(standard):
        ctx.outln(f"  * Recent #{n}: {_task_line(d, task, task is front)}")
        base = task.activities[0] if task.activities else None
        ctx.outln(f"    userId=0 effectiveUid={_uid_name(task.package.uid)} mCallingUid=2000 "
                  f"mUserSetupComplete=true mCallingPackage=com.android.shell mCallingFeatureId=null")
        ctx.outln(f"    affinity={task.package.uid}:{task.package.name}")
        if base is not None:
            ctx.outln(f"    intent={{{base.intent}}}")
            ctx.outln(f"    realActivity={base.short}")
        ctx.outln(f"    Activities=[{', '.join(rec.record() for rec in task.activities)}]")
        ctx.outln("    askedCompatMode=false inRecents=true isAvailable=true")
        # Task.dump's id line: AndroidWorld's close_recents finds the tasks to remove by `id=(\d+)` in this dump
        ctx.outln(f"    taskId={task.id} rootTaskId={task.id}")
        ctx.outln("    mHasBeenVisible=true mResizeMode=RESIZE_MODE_RESIZEABLE mSupportsPictureInPicture=false "
                  "isResizeable=true")
        inactive = max(0, int(d.now() - task.last_active))
        ctx.outln(f"    lastActiveTime={int(task.last_active * 1000)} (inactive for {inactive}s)")
    # RecentTasks.dump ends with the list apps get (RecentTaskInfo.dump): its `id=` lines are the ones
    # AndroidWorld's close_recents finds with `id=(\d+)` and removes with `am stack remove`.
    ctx.outln("")
    ctx.outln("  Visible recent tasks (most recent first):")
    for n, task in enumerate(standard):
        base = task.activities[0] if task.activities else None
        ctx.outln(f"  * RecentTaskInfo #{n}: ")
        ctx.outln(f"     id={task.id} userId=0 hasTask=true lastActiveTime={int(task.last_active * 1000)}")
        if base is not None:
            ctx.outln(f"     baseIntent=Intent {{ {base.intent} }}")
            ctx.outln(f"     baseActivity={{{base.short}}}")
        if task.top is not None:
            ctx.outln(f"     topActivity={{{task.top.short}}}")
        ctx.outln("     isFocused=" + ("true" if task is front else "false") + " isVisible="
                  + ("true" if task is front else "false"))
