"""`dumpsys` on the virtual device, in Android 15's shapes (see /work/shared/reference/android-shell-outputs.md).

What matters is what parsers read: the Task/ActivityRecord lines (and no `mResumedActivity`), the foreground app's
`ACTIVITY` line last in `dumpsys activity top`, `mCurrentFocus`/`mFocusedApp` in the display section of `dumpsys
window` (and not in `dumpsys window windows`), runtime permission lines indented 8 spaces under `User 0:`, the
`orientation=`/`logicalFrame` fields, `mHoldingDisplaySuspendBlocker`, integer battery fields.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .views import IME_BOX, SCREEN_H, SCREEN_W

if TYPE_CHECKING:  # pragma: no cover
    from .device import ActivityRecord, ActivityTask, VirtualDevice
    from .shell import Ctx

DISPLAY_UID = "local:4619827259835644672"
FLAG_ORDER = ("GRANTED_BY_DEFAULT", "USER_SET", "USER_FIXED", "POLICY_FIXED", "REVIEW_REQUIRED",
              "USER_SENSITIVE_WHEN_GRANTED", "USER_SENSITIVE_WHEN_DENIED", "RESTRICTION_UPGRADE_EXEMPT",
              "ONE_TIME")
SERVICES = ("activity", "audio", "battery", "display", "input", "input_method", "notification", "package", "power",
            "SurfaceFlinger", "window", "wifi", "connectivity", "alarm", "meminfo", "cpuinfo", "uimode")


def dumpsys(ctx: "Ctx", args: list[str]) -> int:
    d = ctx.device
    if not args:
        for name in ("activity", "window", "power", "display", "battery"):
            ctx.outln("-" * 77)
            ctx.outln(f"DUMP OF SERVICE {name}:")
            dumpsys(ctx, [name])
        return 0
    if args[0] == "-l":
        ctx.outln("Currently running services:")
        for s in sorted(SERVICES, key=str.lower):
            ctx.outln(f"  {s}")
        return 0
    service, rest = args[0], args[1:]
    fn = {
        "activity": _activity, "window": _window, "package": _package, "input_method": _input_method,
        "power": _power, "display": _display, "battery": _battery, "notification": _notification,
        "input": _input, "SurfaceFlinger": _surfaceflinger, "audio": _audio, "wifi": _wifi,
        "uimode": _uimode, "meminfo": _meminfo, "connectivity": _connectivity,
    }.get(service)
    if fn is None:
        ctx.errln(f"Can't find service: {service}")
        return 0
    return fn(ctx, d, rest) or 0


def _stamp(wall: float, ms: bool = False) -> str:
    s = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(wall))
    return s + (f".{int((wall % 1) * 1000):03d}" if ms else "")


# ---------------------------------------------------------------------------------------------------------------
# activity

def _task_line(d: "VirtualDevice", task: "ActivityTask", visible: bool) -> str:
    vis = "true" if visible else "false"
    if task.kind == "home":
        return (f"{task.header()} U=0 visible={vis} visibleRequested={vis} mode=fullscreen translucent=false "
                f"sz={len(task.activities)}}}")
    return (f"{task.header()} U=0 visible={vis} visibleRequested={vis} mode=fullscreen translucent=false "
            f"sz={len(task.activities)}}}")


def _proc_record(d: "VirtualDevice", pkg_name: str) -> str:
    proc = d.processes.get(pkg_name)
    pkg = d.packages[pkg_name]
    if proc is None:
        return "null"
    user = "1000" if pkg.uid == 1000 else f"u0a{pkg.uid - 10000}"
    return f"ProcessRecord{{{_stable_hash(pkg_name)} {proc.pid}:{pkg_name}/{user}}}"


def _stable_hash(s: str) -> str:
    import zlib
    return "%07x" % (zlib.crc32(s.encode()) & 0xFFFFFFF)


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
    elif what in ("broadcasts", "b", "services", "s", "providers", "prov", "intents", "i", "settings",
                  "permissions", "lmk", "lru", "starter", "containers", "service"):
        ctx.outln(f"ACTIVITY MANAGER {what.upper()} (dumpsys activity {what})")
        ctx.outln("  (nothing)")
    else:
        ctx.outln(f"Bad activity command, or no activities match: {what}")
        ctx.outln("Use -h for help.")
    return 0


def _focus_override(d: "VirtualDevice") -> str | None:
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
    override = _focus_override(d)
    for task in d.tasks:
        visible = task is front
        ctx.outln(f"  * {_task_line(d, task, visible)}")
        ctx.outln("    mBounds=Rect(0, 0 - 0, 0)")
        ctx.outln("    mCreatedByOrganizer=false")
        ctx.outln("    mLastNonFullscreenBounds=null")
        ctx.outln("    isSleeping=false")
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
    override = _focus_override(d)
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
        ctx.outln(f"    userId=0 effectiveUid=u0a{task.package.uid - 10000} mCallingUid=2000 "
                  f"mUserSetupComplete=true mCallingPackage=com.android.shell mCallingFeatureId=null")
        ctx.outln(f"    affinity={task.package.uid}:{task.package.name}")
        if base is not None:
            ctx.outln(f"    intent={{{base.intent}}}")
            ctx.outln(f"    realActivity={base.short}")


# ---------------------------------------------------------------------------------------------------------------
# window

def _window(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    what = args[0] if args else None
    frame = d.frame()
    if what in (None, "-a", "all"):
        ctx.outln("WINDOW MANAGER POLICY STATE (dumpsys window policy)")
        ctx.outln("    mSafeMode=false mSystemReady=true mSystemBooted=true")
        ctx.outln("    mCameraLensCoverState=LENS_COVER_ABSENT")
        ctx.outln("    mWakeGestureEnabledSetting=true")
        ctx.outln("    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true")
        ctx.outln(f"    mScreenOnEarly={_b(d.screen_on)} mScreenOnFully={_b(d.screen_on)}")
        ctx.outln("    mShowingDream=false mDreamingLockscreen=false")
        ctx.outln("    mKeyguardDelegate")
        ctx.outln("      showing=false")
        ctx.outln("      inputRestricted=false")
        ctx.outln("")
        _window_displays(ctx, d, frame)
        ctx.outln("")
        _window_windows(ctx, d, frame)
        return 0
    if what in ("displays", "d"):
        _window_displays(ctx, d, frame)
    elif what in ("windows", "w"):
        _window_windows(ctx, d, frame)
    elif what in ("policy", "p"):
        ctx.outln("WINDOW MANAGER POLICY STATE (dumpsys window policy)")
        ctx.outln(f"    mScreenOnEarly={_b(d.screen_on)} mScreenOnFully={_b(d.screen_on)}")
    elif what in ("tokens", "t", "sessions", "s", "animator", "a", "lastanr", "l", "visible", "visible-apps",
                  "trace", "refresh", "constants", "containers", "focus"):
        ctx.outln(f"WINDOW MANAGER {what.upper()} (dumpsys window {what})")
    else:
        # a window name filter: print the windows whose title contains it
        for title, lines in _window_blocks(d, frame):
            if what in title:
                for line in lines:
                    ctx.outln(line)
    return 0


def _b(v: bool) -> str:
    return "true" if v else "false"


def _focused_app(d: "VirtualDevice") -> str:
    override = _focus_override(d)
    rec = d.current_activity()
    if override:
        return override
    return rec.record() if rec is not None else "null"


def _window_displays(ctx: "Ctx", d: "VirtualDevice", frame) -> None:
    ctx.outln("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)")
    ctx.outln("  Display: mDisplayId=0 (organized)")
    ctx.outln(f"    init={SCREEN_W}x{SCREEN_H} 420dpi mMinSizeOfResizeableTaskDp=220 cur={SCREEN_W}x{SCREEN_H} "
              f"app={SCREEN_W}x{SCREEN_H - 63} rng={SCREEN_W}x{SCREEN_W - 63}-{SCREEN_H - 63}x{SCREEN_H - 63}")
    ctx.outln(f"    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{SCREEN_W},{SCREEN_H}))")
    ctx.outln("")
    ctx.outln(f"  mLayoutSeq={d.frames}")
    ctx.outln(f"  mCurrentFocus={d.focus_window(frame)}")
    ctx.outln(f"  mFocusedApp={_focused_app(d)}")
    front = d.tasks[0] if d.tasks else None
    if front is not None:
        ctx.outln(f"      mPreferredTopFocusableRootTask={front.header(brief=True)}")
        ctx.outln(f"      mLastFocusedRootTask={front.header(brief=True)}")
    ctx.outln("")
    ctx.outln("  DisplayRotation")
    ctx.outln("    mCurrentAppOrientation=SCREEN_ORIENTATION_PORTRAIT")
    ctx.outln("    mLastOrientation=1")
    ctx.outln(f"    mRotation={d.rotation} mDeferredRotationPauseCount=0")
    ctx.outln(f"    mUserRotationMode=USER_ROTATION_LOCKED mUserRotation=ROTATION_{d.rotation * 90} "
              f"mCameraRotationMode=0")
    ctx.outln("    mAllowAllRotations=unknown")
    ctx.outln("    mFixedToUserRotation=false")
    ctx.outln("    WindowOrientationListener")
    ctx.outln("      mEnabled=false")
    ctx.outln(f"      mCurrentRotation=ROTATION_{d.rotation * 90}")
    ctx.outln("      mSensorType=null")
    ctx.outln("")
    ctx.outln(f"    mFocusedWindow={d.focus_window(frame)}")
    ctx.outln(f"    mTopFullscreenOpaqueWindowState={_app_window_title(d, frame)}")


def _app_window_title(d: "VirtualDevice", frame) -> str:
    rec = frame.app_window.activity
    return rec.window() if rec is not None else "null"


def _window_blocks(d: "VirtualDevice", frame) -> list[tuple[str, list[str]]]:
    """(title, lines) per window, top-most first, as `dumpsys window windows` lists them."""
    blocks: list[tuple[str, list[str]]] = []
    ime_shown = frame.ime

    def block(title: str, package: str, uid: int, ty: str, visible: bool, extra: list[str]) -> None:
        lines = [f"  Window #{len(blocks)} {title}:",
                 f"    mDisplayId=0 rootTaskId=1 mSession=Session{{{_stable_hash(title)} {d.system_pid}:"
                 f"u0a{uid % 10000}}} mClient=android.os.BinderProxy@{_stable_hash(title + 'c')}",
                 f"    mOwnerUid={uid} showForAllUsers=false package={package} appop=NONE",
                 f"    mAttrs={{(0,0)(fillxfill) sim={{adjust=pan}} ty={ty} fmt=TRANSPARENT}}",
                 *extra,
                 f"    mViewVisibility={'0x0' if visible else '0x8'} mHaveFrame=true mObscured=false",
                 f"    isOnScreen={_b(visible)}",
                 f"    isVisible={_b(visible)}"]
        blocks.append((title, lines))

    block("Window{%s u0 NavigationBar0}" % _stable_hash("nav"), "com.android.systemui", 10120, "NAVIGATION_BAR",
          True, [])
    block("Window{%s u0 StatusBar}" % _stable_hash("status"), "com.android.systemui", 10120, "STATUS_BAR", True, [])
    block(f"Window{{{_stable_hash('shade')} u0 NotificationShade}}", "com.android.systemui", 10120,
          "NOTIFICATION_SHADE", d.shade_expanded, [])
    touch = (f"    touchable region=SkRegion(({IME_BOX[0]},{IME_BOX[1]},{IME_BOX[2]},{IME_BOX[3]}))"
             if ime_shown else "    touchable region=SkRegion()")
    block(f"Window{{{_stable_hash('ime')} u0 InputMethod}}", "com.google.android.inputmethod.latin", 10137,
          "INPUT_METHOD", ime_shown,
          ["    mIsImWindow=true mIsWallpaper=false mIsFloatingLayer=true",
           f"    mGivenContentInsets=[0,{IME_BOX[1]}][0,0] mGivenVisibleInsets=[0,{IME_BOX[1]}][0,0]",
           "    mTouchableInsets=3 mGivenInsetsPending=false", touch])
    for win in reversed(frame.windows[1:]):
        if win.kind == "dialog" and win.dialog is not None:
            title = d.focus_window(frame) if win is frame.top else f"Window{{{win.dialog.token} u0 {win.title}}}"
            block(title, win.package, 1000, "APPLICATION", True, [])
    for task in d.tasks:
        rec = task.top
        if rec is None:
            continue
        visible = task is d.tasks[0]
        block(rec.window(), rec.package.name, rec.package.uid, "BASE_APPLICATION", visible,
              [f"    mActivityRecord={rec.record()}"])
    return blocks


def _window_windows(ctx: "Ctx", d: "VirtualDevice", frame) -> None:
    ctx.outln("WINDOW MANAGER WINDOWS (dumpsys window windows)")
    for _, lines in _window_blocks(d, frame):
        for line in lines:
            ctx.outln(line)
    ctx.outln("")
    ctx.outln(f"  mGlobalConfiguration={{1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long "
              f"{'night' if d.night_mode else 'notnight'} port finger -keyb/v/h -nav/h winConfig={{ mBounds=Rect(0, "
              f"0 - {SCREEN_W}, {SCREEN_H}) mRotation=ROTATION_0}}}}")
    ctx.outln("  mHasPermanentDpad=false")
    ctx.outln("  mTopFocusedDisplayId=0")
    app = _app_window_title(d, frame)
    ctx.outln(f"  imeLayeringTarget in display# 0 {app}")
    ctx.outln(f"  imeInputTarget in display# 0 {app}")
    ctx.outln(f"  imeControlTarget in display# 0 {app}")
    ctx.outln("  Minimum task size of display#0 220")
    ctx.outln(f"  mInputMethodWindow=Window{{{_stable_hash('ime')} u0 InputMethod}}")
    ctx.outln("  mTraversalScheduled=false")
    ctx.outln("  mSystemBooted=true mDisplayEnabled=true")
    ctx.outln(f"  mTransactionSequence={d.frames * 3}")
    ctx.outln(f"  mRotation={d.rotation}")
    ctx.outln("  mLastOrientation=-1")


# ---------------------------------------------------------------------------------------------------------------
# package

def _package(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    names = [a for a in args if not a.startswith("-")]
    if names and names[0] in ("packages", "p"):
        names = names[1:]
    if not names:
        pkgs = list(d.packages.values())
    else:
        pkgs = [d.packages[n] for n in names[:1] if n in d.packages]
        if not pkgs:
            return 0  # an unknown package dumps nothing
    if names:
        _resolver_table(ctx, d, pkgs)
    ctx.outln("Packages:")
    for pkg in pkgs:
        _package_block(ctx, d, pkg)
    ctx.outln("")
    ctx.outln("Queries:")
    ctx.outln("  system apps queryable: false")
    return 0


def _resolver_table(ctx: "Ctx", d: "VirtualDevice", pkgs) -> None:
    ctx.outln("Activity Resolver Table:")
    ctx.outln("  Non-Data Actions:")
    for pkg in pkgs:
        for cls, app in pkg.activities.items():
            if cls == pkg.launcher_activity:
                ctx.outln("      android.intent.action.MAIN:")
                ctx.outln(f"        {_stable_hash(cls)} {pkg.short(cls)} filter {_stable_hash(cls + 'f')}")
                ctx.outln('          Action: "android.intent.action.MAIN"')
                ctx.outln('          Category: "android.intent.category.LAUNCHER"')
            for action in getattr(app, "actions", ()):
                ctx.outln(f"      {action}:")
                ctx.outln(f"        {_stable_hash(cls)} {pkg.short(cls)} filter {_stable_hash(cls + action)}")
                ctx.outln(f'          Action: "{action}"')
                ctx.outln('          Category: "android.intent.category.DEFAULT"')
    ctx.outln("")


def _package_block(ctx: "Ctx", d: "VirtualDevice", pkg) -> None:
    installed = _stamp(pkg.install_time)
    ctx.outln(f"  Package [{pkg.name}] ({_stable_hash(pkg.name)}):")
    ctx.outln(f"    appId={pkg.uid}")
    ctx.outln(f"    pkg=Package{{{_stable_hash(pkg.name + 'p')} {pkg.name}}}")
    ctx.outln(f"    codePath={pkg.code_path}")
    ctx.outln(f"    resourcePath={pkg.code_path}")
    ctx.outln(f"    legacyNativeLibraryDir={pkg.code_path}/lib")
    ctx.outln("    extractNativeLibs=false")
    ctx.outln("    primaryCpuAbi=x86_64" if not pkg.system else "    primaryCpuAbi=null")
    ctx.outln("    secondaryCpuAbi=null")
    ctx.outln("    cpuAbiOverride=null")
    ctx.outln(f"    versionCode={pkg.version_code} minSdk=24 targetSdk={pkg.target_sdk}")
    ctx.outln("    minExtensionVersions=[]")
    ctx.outln(f"    versionName={pkg.version_name}")
    ctx.outln("    hiddenApiEnforcementPolicy=2")
    ctx.outln("    usesNonSdkApi=false")
    ctx.outln("    splits=[base]")
    ctx.outln("    apkSigningVersion=2")
    flags = "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP" if pkg.system else \
        "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
    ctx.outln(f"    flags=[ {flags} ]")
    ctx.outln("    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION "
              "ALLOW_AUDIO_PLAYBACK_CAPTURE PRIVATE_FLAG_ALLOW_NATIVE_HEAP_POINTER_TAGGING ]")
    ctx.outln("    forceQueryable=false")
    ctx.outln(f"    dataDir=/data/user/0/{pkg.name}")
    ctx.outln("    supportsScreens=[small, medium, large, xlarge, resizeable, anyDensity]")
    ctx.outln(f"    timeStamp={_stamp(pkg.install_time, ms=True)}")
    ctx.outln(f"    lastUpdateTime={_stamp(pkg.install_time + 1)}")
    if not pkg.system:
        ctx.outln("    installerPackageName=com.android.shell")
    ctx.outln(f"    signatures=PackageSignatures{{{_stable_hash(pkg.name + 's')} version:2, "
              f"signatures:[{_stable_hash(pkg.name + 'sig')}], past signatures:[]}}")
    ctx.outln("    installPermissionsFixed=true")
    ctx.outln(f"    pkgFlags=[ {flags} ]")
    requested = list(pkg.install_permissions) + list(pkg.permissions)
    ctx.outln("    requested permissions:")
    for p in requested:
        ctx.outln(f"      {p}")
    ctx.outln("    install permissions:")
    for p in pkg.install_permissions:
        ctx.outln(f"      {p}: granted=true")
    stopped = pkg.name in getattr(d, "stopped_packages", set())
    ctx.outln(f"    User 0: ceDataInode={1000 + pkg.uid % 1000 * 7} deDataInode={900 + pkg.uid % 1000 * 5} "
              f"installed=true hidden=false suspended=false distractionFlags=0 stopped={_b(stopped)} "
              f"notLaunched=false enabled=0 instant=false virtual=false quarantined=false")
    ctx.outln("      installReason=0")
    ctx.outln(f"      dataDir=/data/user/0/{pkg.name}")
    ctx.outln(f"      firstInstallTime={installed}")
    ctx.outln("      uninstallReason=0")
    ctx.outln("      gids=[3003]")
    states = d.permission_states(pkg.name)
    if states:
        ctx.outln("      runtime permissions:")
        for perm in pkg.permissions:
            st = states.get(perm)
            if st is None:
                continue
            flags_s = "|".join(f for f in FLAG_ORDER if f in st.flags)
            ctx.outln(f"        {perm}: granted={_b(st.granted)}, flags=[ {flags_s}]")


# ---------------------------------------------------------------------------------------------------------------
# input method, power, display, battery, input, notification, misc

def _input_method(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    frame = d.frame()
    shown = frame.ime
    rec = frame.app_window.activity
    ctx.outln("Current Input Method Manager state:")
    ctx.outln("  Input Methods: mMethodMapUpdateCount=2, mBindInstantServiceAllowed=false")
    ctx.outln("  InputMethod #0:")
    ctx.outln("    mId=com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME "
              "mSettingsActivity=com.google.android.apps.inputmethod.latin.preference.SettingsActivity")
    ctx.outln(f"  mCurMethodId={d.settings('secure').get('default_input_method', '')}")
    ctx.outln(f"  mCurFocusedWindow={_app_window_title(d, frame)} softInputMode=STATE_UNSPECIFIED|"
              f"ADJUST_PAN|IS_FORWARD_NAVIGATION client={'null' if rec is None else rec.package.name}")
    ctx.outln(f"  mServedView={'ReactEditText' if d.focused_id else 'null'}")
    ctx.outln(f"  mInputShown={_b(shown)}")
    ctx.outln(f"  mShowRequested={_b(shown)} mShowExplicitlyRequested=false mShowForced=false")
    ctx.outln(f"  mImeWindowVis={'3' if shown else '0'}")
    ctx.outln("  mInFullscreenMode=false")
    ctx.outln("  mSystemReady=true mInteractive=" + _b(d.screen_on))
    ctx.outln("  Input method service state for com.google.android.inputmethod.latin/"
              "com.android.inputmethod.latin.LatinIME:")
    ctx.outln(f"    mWindowVisible={_b(shown)} mWindowWasVisible={_b(shown)} mInShowWindow=false")
    ctx.outln(f"    mInputStarted={_b(bool(d.focused_id))} mInputViewStarted={_b(shown)} "
              f"mCandidatesViewStarted=false")
    ctx.outln(f"    mIsInputViewShown={_b(shown)}")
    return 0


def _power(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    on = d.screen_on
    ctx.outln("POWER MANAGER (dumpsys power)")
    ctx.outln("")
    ctx.outln("Power Manager State:")
    ctx.outln("  Settings power_manager_constants:")
    ctx.outln("    no_cached_wake_locks=true")
    ctx.outln("  mDirty=0x0")
    ctx.outln(f"  mWakefulness={'Awake' if on else 'Asleep'}")
    ctx.outln("  mWakefulnessChanging=false")
    ctx.outln("  mIsPowered=true")
    ctx.outln("  mPlugType=1")
    ctx.outln(f"  mBatteryLevel={d.battery_level}")
    ctx.outln("  mBatteryLevelLow=false")
    ctx.outln("  mDockState=0")
    ctx.outln("  mStayOn=false")
    ctx.outln("  mProximityPositive=false")
    ctx.outln("  mBootCompleted=true")
    ctx.outln("  mSystemReady=true")
    ctx.outln("  mHoldingWakeLockSuspendBlocker=false")
    ctx.outln(f"  mHoldingDisplaySuspendBlocker={_b(on)}")
    ctx.outln(f"  mScreenOffTimeoutSetting={d.settings('system').get('screen_off_timeout', '60000')}")
    ctx.outln("")
    ctx.outln("Suspend Blockers: size=4")
    ctx.outln("  PowerManagerService.Booting: ref count=0 []")
    ctx.outln("  PowerManagerService.WakeLocks: ref count=0 []")
    ctx.outln(f"  PowerManagerService.Display: ref count={1 if on else 0} []")
    ctx.outln("  PowerManagerService.Broadcasts: ref count=0 []")
    ctx.outln("")
    ctx.outln("Display Power: com.android.server.power.PowerManagerService$1@63ab12d")
    return 0


def _display(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    state = "ON" if d.screen_on else "OFF"
    ctx.outln("DISPLAY MANAGER (dumpsys display)")
    ctx.outln("  mOnlyCode=false")
    ctx.outln("  mSafeMode=false")
    ctx.outln("  mPendingTraversal=false")
    ctx.outln(f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, "
              f"uniqueId='{DISPLAY_UID}', physicalPort=0, orientation={d.rotation}, logicalFrame=Rect(0, 0 - "
              f"{SCREEN_W}, {SCREEN_H}), physicalFrame=Rect(0, 0 - {SCREEN_W}, {SCREEN_H}), deviceWidth={SCREEN_W}, "
              f"deviceHeight={SCREEN_H}}}]")
    ctx.outln("  mDefaultDisplayDefaultColorMode=0")
    ctx.outln("  mWifiDisplayScanRequestCount=0")
    ctx.outln(f"  mStableDisplaySize=Point({SCREEN_W}, {SCREEN_H})")
    ctx.outln("")
    ctx.outln("Display States: size=1")
    ctx.outln("  Display Id=0")
    ctx.outln(f"  Display State={state}")
    level = int(d.settings("system").get("screen_brightness", "102") or 0)
    ctx.outln(f"  Display Brightness={level / 255:.7f}")
    ctx.outln("")
    ctx.outln("Display Devices: size=1")
    ctx.outln(f'  DisplayDeviceInfo{{"Built-in Screen": uniqueId="{DISPLAY_UID}", {SCREEN_W} x {SCREEN_H}, modeId 1, '
              f"defaultModeId 1, supportedModes [{{id=1, width={SCREEN_W}, height={SCREEN_H}, fps=60.0, "
              f"alternativeRefreshRates=[]}}], density 420, 420.0 x 420.0 dpi, appVsyncOff 1000000, "
              f"presDeadline 16666666, touch INTERNAL, rotation {d.rotation}, type INTERNAL, address "
              f"{{port=0, model=0x0}}, deviceProductInfo DeviceProductInfo{{name=EMU_display_0}}, state {state}, "
              f"FLAG_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS}}")
    return 0


def _battery(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    if args and args[0] == "set" and len(args) >= 3:
        if args[1] == "level":
            try:
                d.battery_level = max(0, min(100, int(args[2])))
            except ValueError:
                ctx.errln(f"Bad value: {args[2]}")
                return 255
        return 0
    if args and args[0] in ("reset", "unplug"):
        if args[0] == "reset":
            d.battery_level = 100
        return 0
    ctx.outln("Current Battery Service state:")
    ctx.outln("  AC powered: true")
    ctx.outln("  USB powered: false")
    ctx.outln("  Wireless powered: false")
    ctx.outln("  Dock powered: false")
    ctx.outln("  Max charging current: 0")
    ctx.outln("  Max charging voltage: 0")
    ctx.outln("  Charge counter: 10000")
    ctx.outln(f"  status: {5 if d.battery_level >= 100 else 2}")
    ctx.outln("  health: 2")
    ctx.outln("  present: true")
    ctx.outln(f"  level: {d.battery_level}")
    ctx.outln("  scale: 100")
    ctx.outln("  voltage: 5000")
    ctx.outln("  temperature: 250")
    ctx.outln("  technology: Li-ion")
    ctx.outln("  Charging state: 1")
    ctx.outln("  Charging policy: 1")
    ctx.outln("  Capacity level: -1")
    return 0


def _input(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    ctx.outln("INPUT MANAGER (dumpsys input)")
    ctx.outln("")
    ctx.outln("Input Manager Service (Java) State:")
    ctx.outln("  Shown keyboard layout selection: false")
    ctx.outln("")
    ctx.outln("Input Manager State:")
    ctx.outln(f"  Interactive: {_b(d.screen_on)}")
    ctx.outln("  System UI Lights Out: false")
    ctx.outln("  Pointer Speed: 0")
    ctx.outln("  Pointer Gestures Enabled: true")
    ctx.outln("  Show Touches: false")
    ctx.outln("  Pointer Capture: Disabled, seq=0")
    ctx.outln("  Viewports:")
    ctx.outln(f"    Viewport INTERNAL: displayId=0, uniqueId={DISPLAY_UID}, port=0, orientation={d.rotation}, "
              f"logicalFrame=[0, 0, {SCREEN_W}, {SCREEN_H}], physicalFrame=[0, 0, {SCREEN_W}, {SCREEN_H}], "
              f"deviceSize=[{SCREEN_W}, {SCREEN_H}], isActive=[1]")
    ctx.outln("")
    ctx.outln("Input Reader State (Nums of device: 2):")
    ctx.outln("  Device 1: virtio_input_multi_touch_1")
    ctx.outln("    Generation: 24")
    ctx.outln("    IsExternal: false")
    ctx.outln("    Sources: TOUCHSCREEN")
    ctx.outln("    Touch Input Mapper (mode - DIRECT):")
    ctx.outln("      Parameters:")
    ctx.outln("        DeviceType: TOUCH_SCREEN")
    ctx.outln("        AssociatedDisplay: hasAssociatedDisplay=true, isExternal=false, displayId=''")
    ctx.outln(f"      DisplayBounds: {SCREEN_W}x{SCREEN_H}")
    ctx.outln(f"      PhysicalFrameInRotatedDisplay: Rect{{0, 0, {SCREEN_W}, {SCREEN_H}}}")
    ctx.outln(f"      InputDeviceOrientation: Rotation{d.rotation * 90}")
    ctx.outln("  Device 2: qwerty2")
    ctx.outln("    Sources: KEYBOARD | DPAD")
    ctx.outln("    Keyboard Input Mapper:")
    ctx.outln("      KeyboardType: 2")
    return 0


def _notification(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    noredact = "--noredact" in args
    ctx.outln("Current Notification Manager state:")
    ctx.outln("  Notification List:")
    for n in d.notifications:
        pkg = d.packages.get(n.package)
        uid = pkg.uid if pkg else 1000
        label = pkg.label if pkg else n.package
        h = _stable_hash(n.key)
        ctx.outln(f"    NotificationRecord(0x{h}: pkg={n.package} user=UserHandle{{0}} id={n.id} "
                  f"tag={n.tag if n.tag is not None else 'null'} "
                  f"importance=4 key={n.key}: Notification(channel={n.channel} shortcut=null contentView=null "
                  f"vibrate=null sound=null defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE))")
        ctx.outln(f"      uid={uid} userId=0")
        ctx.outln(f"      opPkg={n.package}")
        ctx.outln(f"      icon=Icon(typ=RESOURCE pkg={n.package} id=0x7f080000)")
        ctx.outln("      flags=0x10")
        ctx.outln("      pri=0")
        ctx.outln(f"      key={n.key}")
        ctx.outln("      seen=false")
        ctx.outln(f"      groupKey={n.key.rsplit('|', 3)[0]}|g:{n.channel}")
        ctx.outln("      notification=")
        ctx.outln("        pri=0")
        ctx.outln(f"        contentIntent=PendingIntent{{{_stable_hash(n.key + 'pi')}: "
                  f"PendingIntentRecord{{{_stable_hash(n.key + 'pr')} {n.package} startActivity}}}}")
        ctx.outln(f"        when={int(n.when * 1000)}")
        ctx.outln("        extras={")
        if noredact:
            ctx.outln(f"          android.title=String ({n.title})")
            ctx.outln(f"          android.text=String ({n.text})")
        else:
            ctx.outln(f"          android.title=String [length={len(n.title)}]")
            ctx.outln(f"          android.text=String [length={len(n.text)}]")
        ctx.outln(f"          android.appInfo=ApplicationInfo ({label})")
        ctx.outln("          android.showWhen=Boolean (true)")
        ctx.outln("        }")
    ctx.outln("")
    ctx.outln("  mNotificationPermissionsEnabled=true")
    return 0


def _surfaceflinger(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    if "--display-id" in args:
        ctx.outln(f'Display {DISPLAY_UID.split(":")[1]} (HWC display 0): port=0 pnpId=GGL displayName="EMU_display_0"')
        return 0
    ctx.outln("SurfaceFlinger global state:")
    ctx.outln(f"Display {DISPLAY_UID.split(':')[1]} (HWC display 0): port=0 pnpId=GGL displayName=\"EMU_display_0\"")
    return 0


def _audio(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    ctx.outln("Audio event log: (none)")
    ctx.outln("")
    ctx.outln("  players:")
    for p in getattr(d, "audio_players", []):
        ctx.outln(f"  {p}")
    ctx.outln("")
    ctx.outln("  ducked players piids:")
    return 0


def _wifi(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    ctx.outln(f"Wi-Fi is {'enabled' if d.wifi_enabled else 'disabled'}")
    ctx.outln("Verbose logging is off")
    return 0


def _connectivity(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    ctx.outln("NetworkProviders for:")
    ctx.outln("Active default network: " + ("100" if d.wifi_enabled else "none"))
    return 0


def _uimode(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    ctx.outln("Current UI Mode Service state:")
    ctx.outln("  mDockState=0 mLastBroadcastState=0")
    ctx.outln(f"  mNightMode={d.settings('secure').get('ui_night_mode', '1')} mNightModeLocked=false "
              f"mCarModeEnabled=false mComputedNightMode={_b(d.night_mode)}")
    return 0


def _meminfo(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    ctx.outln("Applications Memory Usage (in Kilobytes):")
    ctx.outln(f"Uptime: {int(d.now() * 1000)} Realtime: {int(d.now() * 1000)}")
    return 0
