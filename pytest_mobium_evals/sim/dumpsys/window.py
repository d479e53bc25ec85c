"""`dumpsys window` (displays, windows, focus) on the virtual device."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..views import DP, SCREEN_H, SCREEN_W
from .activity import focus_override
from .common import boolean, stable_hash

if TYPE_CHECKING:  # pragma: no cover
    from ..commands.base import Ctx
    from ..device import VirtualDevice


def _window(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    what = args[0] if args else None
    frame = d.frame()
    if what in (None, "-a", "all"):
        ctx.outln("WINDOW MANAGER POLICY STATE (dumpsys window policy)")
        ctx.outln("    mSafeMode=false mSystemReady=true mSystemBooted=true")
        ctx.outln("    mCameraLensCoverState=LENS_COVER_ABSENT")
        ctx.outln("    mWakeGestureEnabledSetting=true")
        ctx.outln("    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true")
        ctx.outln(f"    mScreenOnEarly={boolean(d.screen_on)} mScreenOnFully={boolean(d.screen_on)}")
        ctx.outln("    mShowingDream=false mDreamingLockscreen=false")
        _keyguard_delegate(ctx, d)
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
        ctx.outln(f"    mScreenOnEarly={boolean(d.screen_on)} mScreenOnFully={boolean(d.screen_on)}")
        ctx.outln("    mShowingDream=false mDreamingLockscreen=false")
        _keyguard_delegate(ctx, d)
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


def _keyguard_delegate(ctx: "Ctx", d: "VirtualDevice") -> None:
    """The policy's view of the lock screen: a swipe lock, so never secure, and input restricted while it shows."""
    showing = boolean(d.keyguard_showing)
    ctx.outln("    mKeyguardDelegate")
    ctx.outln(f"      showing={showing}")
    ctx.outln(f"      showingAndNotOccluded={showing}")
    ctx.outln(f"      inputRestricted={showing}")
    ctx.outln("      occluded=false")
    ctx.outln("      secure=false")
    ctx.outln("      dreaming=false")
    ctx.outln("      systemIsReady=true")
    ctx.outln("      deviceHasKeyguard=true")
    ctx.outln("      enabled=true")
    ctx.outln(f"      onScreen={boolean(d.screen_on)}")
    ctx.outln("      KeyguardStateMonitor")
    ctx.outln(f"        mIsShowing={showing}")
    ctx.outln("        mSimSecure=false")
    ctx.outln(f"        mInputRestricted={showing}")
    ctx.outln("        mTrusted=false")
    ctx.outln("        mCurrentUserId=0")


def _focused_app(d: "VirtualDevice") -> str:
    override = focus_override(d)
    rec = d.current_activity()
    if override:
        return override
    return rec.record() if rec is not None else "null"


def _window_displays(ctx: "Ctx", d: "VirtualDevice", frame) -> None:
    ctx.outln("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)")
    ctx.outln("  Display: mDisplayId=0 (organized)")
    screen = frame.display
    cur = f"{screen.width}x{screen.height}"
    ctx.outln(f"    init={SCREEN_W}x{SCREEN_H} 420dpi mMinSizeOfResizeableTaskDp=220 cur={cur} "
              f"app={screen.width}x{screen.nav_top} rng={SCREEN_W}x{SCREEN_W - 63}-{SCREEN_H - 63}x{SCREEN_H - 63}")
    ctx.outln(f"    deferred=false mLayoutNeeded=false "
              f"mTouchExcludeRegion=SkRegion((0,0,{screen.width},{screen.height}))")
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
    requested = d.requested_orientation()
    auto = d.settings("system").get("accelerometer_rotation", "0") == "1"
    user = d.settings("system").get("user_rotation", "0")
    user = int(user) if user in ("0", "1", "2", "3") else 0
    ctx.outln(f"    mCurrentAppOrientation=SCREEN_ORIENTATION_{requested.upper()}")
    ctx.outln(f"    mLastOrientation={1 if requested == 'portrait' else -1}")
    ctx.outln(f"    mRotation={screen.rotation} mDeferredRotationPauseCount=0")
    ctx.outln(f"    mUserRotationMode=USER_ROTATION_{'FREE' if auto else 'LOCKED'} mUserRotation=ROTATION_{user * 90} "
              f"mCameraRotationMode=0")
    ctx.outln("    mAllowAllRotations=unknown")
    ctx.outln("    mFixedToUserRotation=false")
    ctx.outln("    WindowOrientationListener")
    ctx.outln(f"      mEnabled={boolean(auto)}")
    ctx.outln(f"      mCurrentRotation=ROTATION_{screen.rotation * 90}")
    ctx.outln("      mSensorType=null")
    ctx.outln("")
    ctx.outln(f"    mFocusedWindow={d.focus_window(frame)}")
    ctx.outln(f"    mTopFullscreenOpaqueWindowState={app_window_title(d, frame)}")


def app_window_title(d: "VirtualDevice", frame) -> str:
    rec = frame.app_window.activity
    return rec.window() if rec is not None else "null"


def _window_blocks(d: "VirtualDevice", frame) -> list[tuple[str, list[str]]]:
    """(title, lines) per window, top-most first, as `dumpsys window windows` lists them."""
    blocks: list[tuple[str, list[str]]] = []
    ime_shown = frame.ime

    def block(title: str, package: str, uid: int, ty: str, visible: bool, extra: list[str]) -> None:
        lines = [f"  Window #{len(blocks)} {title}:",
                 f"    mDisplayId=0 rootTaskId=1 mSession=Session{{{stable_hash(title)} {d.system_pid}:"
                 f"u0a{uid % 10000}}} mClient=android.os.BinderProxy@{stable_hash(title + 'c')}",
                 f"    mOwnerUid={uid} showForAllUsers=false package={package} appop=NONE",
                 f"    mAttrs={{(0,0)(fillxfill) sim={{adjust=pan}} ty={ty} fmt=TRANSPARENT}}",
                 *extra,
                 f"    mViewVisibility={'0x0' if visible else '0x8'} mHaveFrame=true mObscured=false",
                 f"    isOnScreen={boolean(visible)}",
                 f"    isVisible={boolean(visible)}"]
        blocks.append((title, lines))

    block("Window{%s u0 NavigationBar0}" % stable_hash("nav"), "com.android.systemui", 10120, "NAVIGATION_BAR",
          True, [])
    block("Window{%s u0 StatusBar}" % stable_hash("status"), "com.android.systemui", 10120, "STATUS_BAR", True, [])
    block(f"Window{{{stable_hash('shade')} u0 NotificationShade}}", "com.android.systemui", 10120,
          "NOTIFICATION_SHADE", d.shade_expanded or d.keyguard_showing, [])
    ime = frame.display.ime_box
    touch = (f"    touchable region=SkRegion(({ime[0]},{ime[1]},{ime[2]},{ime[3]}))"
             if ime_shown else "    touchable region=SkRegion()")
    keyboard = d.input_method(d.current_input_method())  # the input method in use owns the IME window
    owner = d.packages.get(keyboard.package) if keyboard is not None and not keyboard.system else None
    block(f"Window{{{stable_hash('ime')} u0 InputMethod}}", owner.name if owner else
          "com.google.android.inputmethod.latin", owner.uid if owner else 10137,
          "INPUT_METHOD", ime_shown,
          ["    mIsImWindow=true mIsWallpaper=false mIsFloatingLayer=true",
           f"    mGivenContentInsets=[0,{ime[1]}][0,0] mGivenVisibleInsets=[0,{ime[1]}][0,0]",
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
    screen = frame.display
    w_dp, h_dp = round(screen.width / DP), round(screen.nav_top / DP)
    ctx.outln(f"  mGlobalConfiguration={{1.0 310mcc260mnc [en_US] ldltr sw411dp w{w_dp}dp h{h_dp}dp 420dpi nrml "
              f"long {'night' if d.night_mode else 'notnight'} {'land' if screen.landscape else 'port'} finger "
              f"-keyb/v/h -nav/h winConfig={{ mBounds=Rect(0, 0 - {screen.width}, {screen.height}) "
              f"mRotation=ROTATION_{screen.rotation * 90}}}}}")
    ctx.outln("  mHasPermanentDpad=false")
    ctx.outln("  mTopFocusedDisplayId=0")
    app = app_window_title(d, frame)
    ctx.outln(f"  imeLayeringTarget in display# 0 {app}")
    ctx.outln(f"  imeInputTarget in display# 0 {app}")
    ctx.outln(f"  imeControlTarget in display# 0 {app}")
    ctx.outln("  Minimum task size of display#0 220")
    ctx.outln(f"  mInputMethodWindow=Window{{{stable_hash('ime')} u0 InputMethod}}")
    ctx.outln("  mTraversalScheduled=false")
    ctx.outln("  mSystemBooted=true mDisplayEnabled=true")
    ctx.outln(f"  mTransactionSequence={d.frames * 3}")
    ctx.outln(f"  mRotation={d.rotation}")
    ctx.outln("  mLastOrientation=-1")
