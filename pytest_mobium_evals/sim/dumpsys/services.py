"""`dumpsys` of the smaller services on the virtual device: input_method, power, display, battery, input,
notification, SurfaceFlinger, audio, wifi, connectivity, uimode, meminfo."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..views import SCREEN_H, SCREEN_W
from .common import DISPLAY_UID, boolean, stable_hash
from .window import app_window_title

if TYPE_CHECKING:  # pragma: no cover
    from ..commands.base import Ctx
    from ..device import VirtualDevice


def _input_method(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    frame = d.frame()
    shown = frame.ime
    rec = frame.app_window.activity
    current = d.current_input_method()
    ctx.outln("Current Input Method Manager state:")
    ctx.outln("  Input Methods: mMethodMapUpdateCount=2, mBindInstantServiceAllowed=false")
    for i, m in enumerate(d.input_methods()):
        ctx.outln(f"  InputMethod #{i}:")
        ctx.outln(f"    mId={m.id} mSettingsActivity={m.settings_activity or 'null'}")
    ctx.outln(f"  mCurMethodId={current}")
    ctx.outln(f"  mCurFocusedWindow={app_window_title(d, frame)} softInputMode=STATE_UNSPECIFIED|"
              f"ADJUST_PAN|IS_FORWARD_NAVIGATION client={'null' if rec is None else rec.package.name}")
    ctx.outln(f"  mServedView={'ReactEditText' if d.focused_id else 'null'}")
    ctx.outln(f"  mInputShown={boolean(shown)}")
    ctx.outln(f"  mShowRequested={boolean(shown)} mShowExplicitlyRequested=false mShowForced=false")
    ctx.outln(f"  mImeWindowVis={'3' if shown else '0'}")
    ctx.outln("  mInFullscreenMode=false")
    ctx.outln("  mSystemReady=true mInteractive=" + boolean(d.screen_on))
    ctx.outln(f"  Input method service state for {current}:")
    ctx.outln(f"    mWindowVisible={boolean(shown)} mWindowWasVisible={boolean(shown)} mInShowWindow=false")
    ctx.outln(f"    mInputStarted={boolean(bool(d.focused_id))} mInputViewStarted={boolean(shown)} "
              f"mCandidatesViewStarted=false")
    ctx.outln(f"    mIsInputViewShown={boolean(shown)}")
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
    ctx.outln(f"  mHoldingDisplaySuspendBlocker={boolean(on)}")
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
    screen = d.display
    w, h = screen.width, screen.height
    ctx.outln(f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, "
              f"uniqueId='{DISPLAY_UID}', physicalPort=0, orientation={screen.rotation}, logicalFrame=Rect(0, 0 - "
              f"{w}, {h}), physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}]")
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
              f"presDeadline 16666666, touch INTERNAL, rotation 0, type INTERNAL, address "
              f"{{port=0, model=0x0}}, deviceProductInfo DeviceProductInfo{{name=EMU_display_0}}, state {state}, "
              f"FLAG_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS}}")
    return 0


PLUGS = ("ac", "usb", "wireless", "dock")


def _battery(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    if args and args[0] == "set" and len(args) >= 3:
        key, raw = args[1], args[2]
        try:
            value = int(raw)
        except ValueError:
            ctx.errln(f"Bad value: {raw}")
            return 255
        if key == "level":
            d.battery_level = max(0, min(100, value))
        elif key == "status":
            d.battery_status = value
        elif key in PLUGS:
            if value:
                d.battery_plugged = key
            elif d.battery_plugged == key:
                d.battery_plugged = ""
        elif key == "present":
            d.battery_present = bool(value)
        else:
            ctx.errln(f"Unknown set option: {key}")
            return 255
        return 0
    if args and args[0] == "unplug":
        d.battery_plugged = ""
        return 0
    if args and args[0] == "reset":
        d.battery_level, d.battery_status, d.battery_plugged, d.battery_present = 100, None, "ac", True
        return 0
    ctx.outln("Current Battery Service state:")
    for plug, caption in zip(PLUGS, ("AC", "USB", "Wireless", "Dock")):
        ctx.outln(f"  {caption} powered: {str(d.battery_plugged == plug).lower()}")
    ctx.outln("  Max charging current: 0")
    ctx.outln("  Max charging voltage: 0")
    ctx.outln("  Charge counter: 10000")
    ctx.outln(f"  status: {d.battery_status_now()}")
    ctx.outln("  health: 2")
    ctx.outln(f"  present: {str(d.battery_present).lower()}")
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
    ctx.outln(f"  Interactive: {boolean(d.screen_on)}")
    ctx.outln("  System UI Lights Out: false")
    ctx.outln("  Pointer Speed: 0")
    ctx.outln("  Pointer Gestures Enabled: true")
    ctx.outln("  Show Touches: false")
    ctx.outln("  Pointer Capture: Disabled, seq=0")
    ctx.outln("  Viewports:")
    screen = d.display
    w, h = screen.width, screen.height
    ctx.outln(f"    Viewport INTERNAL: displayId=0, uniqueId={DISPLAY_UID}, port=0, orientation={screen.rotation}, "
              f"logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {w}, {h}], "
              f"deviceSize=[{w}, {h}], isActive=[1]")
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
    ctx.outln(f"      DisplayBounds: {w}x{h}")
    ctx.outln(f"      PhysicalFrameInRotatedDisplay: Rect{{0, 0, {w}, {h}}}")
    ctx.outln(f"      InputDeviceOrientation: Rotation{screen.rotation * 90}")
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
        h = stable_hash(n.key)
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
        ctx.outln(f"        contentIntent=PendingIntent{{{stable_hash(n.key + 'pi')}: "
                  f"PendingIntentRecord{{{stable_hash(n.key + 'pr')} {n.package} startActivity}}}}")
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
              f"mCarModeEnabled=false mComputedNightMode={boolean(d.night_mode)}")
    return 0


def _meminfo(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    ctx.outln("Applications Memory Usage (in Kilobytes):")
    ctx.outln(f"Uptime: {int(d.now() * 1000)} Realtime: {int(d.now() * 1000)}")
    return 0


def _deviceidle(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    """`dumpsys deviceidle whitelist [+PKG|-PKG]…`: the user's Doze exemptions (Appium exempts its helpers)."""
    if not args or args[0] != "whitelist":
        ctx.outln("  mLightEnabled=true  mDeepEnabled=true")
        ctx.outln("  mForceIdle=false")
        ctx.outln("  mState=ACTIVE mLightState=ACTIVE")
        return 0
    if len(args) == 1:
        for package in sorted(d.idle_whitelist):
            pkg = d.packages.get(package)
            if pkg is not None:
                ctx.outln(f"user,{package},{pkg.uid}")
        return 0
    for arg in args[1:]:
        op, package = arg[:1], arg[1:]
        if op not in "+-" or not package:
            ctx.outln(f"Package must be prefixed with +, -, or =: {arg}")
            return -1
        if op == "+":
            if package not in d.packages:
                ctx.outln(f"Package not found: {package}")
                continue
            d.idle_whitelist.add(package)
            ctx.outln(f"Added: {package}")
        else:
            if package in d.idle_whitelist:
                d.idle_whitelist.discard(package)
                ctx.outln(f"Removed: {package}")
    return 0
