"""The virtual device's shell: sh semantics, and each Android command's output as the known parsers read it."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

MOBIUM = "dev.mobium.mobiumapp"
LAUNCHER = "com.google.android.apps.nexuslauncher"


# ---------------------------------------------------------------------------------------------------------------
# sh

@pytest.mark.parametrize("line,out,status", [
    ("echo a; echo b", "a\nb\n", 0),
    ("false && echo no", "", 1),
    ("false || echo yes", "yes\n", 0),
    ("true && echo yes || echo no", "yes\n", 0),
    ("false; echo $?", "1\n", 0),
    ("foo; echo $?", "127\n", 0),
    ("echo 'a  b' \"c  $?\" d\\ e", "a  b c  0 d e\n", 0),
    ("echo '$?'", "$?\n", 0),
    ("echo \"x\\\"y\"", "x\"y\n", 0),
    ("printf 'a\\nb\\nc\\n' | grep b", "b\n", 0),
    ("echo abc | grep -q z", "", 1),
    ("sh -c 'echo in; exit 4'; echo $?", "in\n4\n", 0),
    ("exit 3; echo never", "", 3),
    ("echo hi > /dev/null", "", 0),
    ("echo one > /sdcard/f.txt; echo two >> /sdcard/f.txt; cat /sdcard/f.txt", "one\ntwo\n", 0),
    ("cat /sdcard/nothing 2>/dev/null; echo $?", "1\n", 0),
    ("(echo sub; false); echo $?", "sub\n1\n", 0),
    ("X=5; echo $X ${X}", "5 5\n", 0),
    ("echo $EXTERNAL_STORAGE", "/sdcard\n", 0),
    ("settings get global wifi_on; echo X4EXIT:$?", "1\nX4EXIT:0\n", 0),
    ("  ", "", 0),
    ("echo a # comment", "a\n", 0),
    ("echo sdk=$(getprop ro.build.version.sdk)", "sdk=35\n", 0),
    ("echo \"[$(echo 'a  b')]\" `echo c`", "[a  b] c\n", 0),
    ("x=$(echo hi); echo $x", "hi\n", 0),
    ("exec echo replaced", "replaced\n", 0),
    ("cd /sdcard && pwd && ls -d Download && cd nope; echo $?", "/sdcard\nDownload\n2\n", 0),
])
def test_sh(sh, line, out, status):
    stdout, _, code = sh(line)
    assert (stdout, code) == (out, status)


@pytest.mark.parametrize("line,err", [
    ("foo", "/system/bin/sh: foo: inaccessible or not found\n"),
    ("echo 'unterminated", "/system/bin/sh: unterminated ' string\n"),
    ("| grep x", "/system/bin/sh: syntax error: unexpected '|'\n"),
    ("echo a &&", "/system/bin/sh: syntax error: unexpected end of file\n"),
])
def test_sh_errors_go_to_stderr(sh, line, err):
    stdout, stderr, code = sh(line)
    assert stdout == "" and stderr == err and code != 0


def test_stderr_redirection_and_order(sh):
    out, err, _ = sh("echo a; echo b >&2; echo c 2>&1")
    assert (out, err) == ("a\nc\n", "b\n")
    out, err, _ = sh("cat /nope 2>&1 | grep -c 'No such'")
    assert (out, err) == ("1\n", "")
    merged, status = sh.shell.run("echo 1; echo 2 >&2; echo 3")
    assert merged.merged() == b"1\n2\n3\n"


def test_glob_and_file_commands(sh):
    sh.out("echo a > /sdcard/Download/a.txt; echo bb > /sdcard/Download/b.txt; mkdir -p /sdcard/Download/d/e")
    assert sh.out("ls /sdcard/Download") == "a.txt\nb.txt\nd\n"
    assert sh.out("cat /sdcard/Download/*.txt") == "a\nbb\n"
    assert sh.out("ls /storage/emulated/0/Download/a.txt") == "/storage/emulated/0/Download/a.txt\n"
    assert sh.out("wc -l /sdcard/Download/b.txt").split() == ["1", "/sdcard/Download/b.txt"]
    assert sh.out("rm /sdcard/Download/a.txt; ls /sdcard/Download") == "b.txt\nd\n"
    _, err, code = sh("rm /sdcard/Download/a.txt")
    assert code == 1 and "No such file" in err
    assert sh("rm -f /sdcard/Download/a.txt")[2] == 0
    _, err, code = sh("echo x > /system/x")
    assert code == 1 and "can't create" in err
    assert sh.out("getprop | head -n 2 | wc -l") == "2\n"
    assert sh.out("seq 1 2 2>/dev/null; echo done") == "done\n"


@pytest.mark.parametrize("args,expected", [
    ("-i WIFI_ON", "wifi_on=1\n"),
    ("-c _on=", "4\n"),
    ("-E '^(wifi|bluetooth)_on='", "bluetooth_on=1\nwifi_on=1\n"),
    ("-o 'airplane_mode_on=[0-9]'", "airplane_mode_on=0\n"),
    ("-v = ", ""),
    ("-w mobile_data", "mobile_data=1\n"),
])
def test_grep_options(sh, args, expected):
    assert sh(f"settings list global | grep {args}")[0] == expected


# ---------------------------------------------------------------------------------------------------------------
# settings, getprop, svc, cmd

def test_settings(sh):
    for ns in ("global", "secure", "system"):
        lines = sh.out(f"settings list {ns}").splitlines()
        assert lines == sorted(lines) and all("=" in line for line in lines)
    # AndroidWorld pops zen_duration
    assert "zen_duration=0" in sh.out("settings list secure")
    assert sh.out("settings get global airplane_mode_on") == "0\n"
    assert sh.out("settings get system screen_brightness") == "102\n"
    assert sh.out("settings get secure ui_night_mode") == "1\n"
    assert sh.out("settings get global no_such_key") == "null\n"
    assert sh.out("settings put system screen_brightness 255") == ""
    assert sh.out("settings get system screen_brightness") == "255\n"
    assert sh.out("settings delete global wifi_on") == "Deleted 1 rows\n"
    assert sh.out("settings delete global wifi_on") == "Deleted 0 rows\n"
    assert sh("settings get badns x")[1:] == ("Invalid namespace 'badns'\n", 255)
    assert sh("settings frob global x")[1:] == ("Invalid command: frob\n", 255)
    assert sh("settings put global x")[1:] == ("Bad arguments\n", 255)
    assert sh("settings --user 0 list global")[1:] == ("--user not supported for delete and list.\n", 255)
    assert sh("settings")[2] == 255


def test_date(sh):
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}\n", sh.out("date"))
    assert re.fullmatch(r"\d{10}\n", sh.out("date +%s"))


def test_getprop(sh):
    assert sh.out("getprop ro.build.version.release") == "15\n"
    assert sh.out("getprop ro.build.version.sdk") == "35\n"
    assert sh.out("getprop ro.product.model") == "sdk_gphone64_x86_64\n"
    assert sh.out("getprop ro.product.manufacturer") == "Google\n"
    assert sh.out("getprop ro.serialno") == "emulator-5554\n"
    assert sh.out("getprop no.such.prop") == "\n"
    assert sh.out("getprop no.such.prop fallback") == "fallback\n"
    lines = sh.out("getprop").splitlines()
    assert lines == sorted(lines) and all(re.fullmatch(r"\[[^\]]+\]: \[.*\]", line) for line in lines)


def test_radios_and_airplane_mode(sh):
    assert sh.out("svc wifi disable") == ""
    assert sh.out("settings get global wifi_on") == "0\n"
    assert sh.out("cmd wifi status").startswith("Wifi is disabled")
    sh.out("svc wifi enable; svc bluetooth disable; svc data disable")
    assert sh.out("settings get global wifi_on; settings get global bluetooth_on; settings get global mobile_data") \
        == "1\n0\n0\n"
    assert sh.out("cmd wifi status").startswith("Wifi is enabled")
    sh.out("svc bluetooth enable")
    assert sh.out("cmd connectivity airplane-mode") == "disabled\n"
    assert sh.out("cmd connectivity airplane-mode enable") == ""
    assert sh.out("cmd connectivity airplane-mode") == "enabled\n"
    # radios go off with airplane mode and remember they were on
    assert sh.out("settings get global airplane_mode_on; settings get global wifi_on; "
                  "settings get global bluetooth_on") == "1\n3\n2\n"
    sh.out("svc wifi enable")
    assert sh.out("settings get global wifi_on") == "2\n"  # on while in airplane mode
    sh.out("cmd connectivity airplane-mode disable")
    assert sh.out("settings get global wifi_on; settings get global bluetooth_on") == "1\n1\n"
    assert sh("svc wifi sideways")[2] == 1


def test_airplane_broadcast_is_refused_as_on_android_15(sh):
    out, err, code = sh("am broadcast -a android.intent.action.AIRPLANE_MODE --ez state true")
    assert out.startswith("Broadcasting: Intent { act=android.intent.action.AIRPLANE_MODE flg=0x400000 (has extras) }")
    assert "SecurityException" in err and code == 255
    out = sh.out("am broadcast -a some.custom.ACTION")
    assert "Broadcast completed: result=0" in out


def test_uimode_night(sh):
    assert sh.out("cmd uimode night") == "Night mode: no\n"
    assert sh.out("cmd uimode night yes") == "Night mode: yes\n"
    assert sh.out("settings get secure ui_night_mode") == "2\n"
    assert sh.out("cmd uimode night auto") == "Night mode: auto\n"
    _, err, code = sh("cmd uimode night purple")
    assert code == 255 and err.startswith("Error: mode must be 'yes', 'no', or 'auto'")
    assert sh("cmd nosuchservice")[1:] == ("cmd: Can't find service: nosuchservice\n", 20)


def test_statusbar_shade(sh, vdevice):
    vdevice.post_notification("com.android.settings", "Hello", "World")
    sh.out("cmd statusbar expand-notifications")
    xml = sh.out("uiautomator dump /dev/tty")
    assert 'package="com.android.systemui"' in xml and 'text="World"' in xml
    assert "NotificationShade" in sh.out("dumpsys window | grep mCurrentFocus")
    sh.out("cmd statusbar collapse")
    assert 'package="com.android.systemui"' not in sh.out("uiautomator dump /dev/tty")


# ---------------------------------------------------------------------------------------------------------------
# am, monkey, pm

def test_am_start_forms(sh, vdevice):
    assert sh(f"am start -n {MOBIUM}/.MainActivity")[:3:2] == (
        f"Starting: Intent {{ cmp={MOBIUM}/.MainActivity }}\n", 0)
    out, err, code = sh(f"am start -n {MOBIUM}/.MainActivity")
    assert "delivered to currently running top-most instance" in err and code == 0
    out = sh.out(f"am start -W -S -n {MOBIUM}/.MainActivity --ez MobiumGrayBox true")
    assert out.splitlines()[0] == f"Stopping: {MOBIUM}"
    assert f"Starting: Intent {{ cmp={MOBIUM}/.MainActivity (has extras) }}" in out
    assert "Status: ok\nLaunchState: COLD\nActivity: dev.mobium.mobiumapp/.MainActivity\nTotalTime: " in out
    assert out.endswith("Complete\n")
    out, err, code = sh("am start -n com.nope/.Main")
    assert out == "Starting: Intent { cmp=com.nope/.Main }\n"
    assert err == "Error type 3\nError: Activity class {com.nope/com.nope.Main} does not exist.\n" and code == 1
    out = sh("am start -W -n com.nope/.Main")[0]
    assert "Error type 3" in out  # with -W everything goes to stdout
    out = sh.out("am start -a android.settings.WIFI_SETTINGS")
    assert "act=android.settings.WIFI_SETTINGS" in out
    assert vdevice.current_activity().short == "com.android.settings/.Settings$NetworkProviderSettingsActivity"
    out, err, code = sh("am start -a no.such.ACTION")
    assert "unable to resolve Intent" in err and code == 1
    _, err, code = sh("am start --ez flag maybe -n x/.Y")
    assert code == 255 and "Invalid boolean value: maybe" in err
    sh.out("am start -a android.intent.action.MAIN -c android.intent.category.HOME")
    assert vdevice.current_activity().package.name == LAUNCHER


def test_am_force_stop_and_stack_list(sh, vdevice):
    sh.out(f"am start -n {MOBIUM}/.MainActivity")
    listing = sh.out("am stack list")
    # android_env: the first visible=true line is the foreground
    first = next(line for line in listing.splitlines() if "visible=true" in line)
    assert re.compile(r".*\{(.*)\}").search(first).group(1) == f"{MOBIUM}/{MOBIUM}.MainActivity"
    m = re.search(r"^\ *taskId=(?P<id>[0-9]*): (?P<base_activity>[^\s]*) .*visible=true.*"
                  r"topActivity=ComponentInfo{(?P<top_activity>[^\s]*)}$", listing, re.M)
    assert m and m["top_activity"] == f"{MOBIUM}/{MOBIUM}.MainActivity"
    assert sh.out(f"am force-stop {MOBIUM}") == ""
    assert sh.out("am force-stop com.unknown.pkg") == ""
    assert vdevice.current_activity().package.name == LAUNCHER
    assert "stopped=true" in sh.out(f"dumpsys package {MOBIUM} | grep 'User 0'")


def test_monkey(sh, vdevice):
    out, err, code = sh("monkey -p com.google.android.calculator -c android.intent.category.LAUNCHER 1")
    assert code == 0 and out.startswith("  bash arg: -p\n") and "Events injected: 1" in out
    assert 'data="com.google.android.calculator"' in err
    assert vdevice.current_activity().package.name == "com.google.android.calculator"
    out, err, code = sh("monkey -p com.no.such 1")
    assert "monkey aborted" in err and code != 0
    assert "W Monkey  : args: [-p, com.no.such, 1]" in sh.out("logcat -d -s Monkey")


def test_pm(sh, vdevice):
    listing = sh.out("pm list packages")
    names = re.findall(r"^package:([^\s]+)\r?$", listing, re.M)  # adbutils' regex
    for pkg in (MOBIUM, "com.android.settings", LAUNCHER, "com.google.android.contacts",
                "com.google.android.deskclock", "com.android.camera2", "com.android.chrome",
                "com.google.android.calculator", "com.google.android.permissioncontroller",
                "com.android.intentresolver"):
        assert pkg in names
    third = re.findall(r"^package:(\S+)$", sh.out("pm list packages -3"), re.M)
    assert MOBIUM in third and "com.android.settings" not in third
    assert re.search(rf"^package:/data/app/\S+/base\.apk={MOBIUM}$", sh.out("pm list packages -f -3"), re.M)
    assert re.match(r"^package:/data/app/~~[\w-]+==/dev\.mobium\.mobiumapp-[\w-]+==/base\.apk\n$",
                    sh.out(f"pm path {MOBIUM}"))
    assert sh("pm path com.no.such")[::2] == ("", 1)
    assert sh.out(f"pm list packages --show-versioncode {MOBIUM}").startswith(f"package:{MOBIUM} versionCode:")
    brief = sh.out(f"cmd package resolve-activity --brief {MOBIUM}").splitlines()
    assert brief == ["priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false",
                     f"{MOBIUM}/.MainActivity"]
    assert sh.out("cmd package resolve-activity --brief com.no.such") == "No activity found\n"


def test_pm_grant_revoke_clear(sh, vdevice):
    perm = "android.permission.POST_NOTIFICATIONS"
    assert sh.out(f"pm grant {MOBIUM} {perm}") == ""
    line = sh.out(f"dumpsys package {MOBIUM} | grep 'POST_NOTIFICATIONS: granted'")
    assert line == f"        {perm}: granted=true, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]\n"
    sh.out(f"pm revoke {MOBIUM} {perm}")
    assert "granted=false" in sh.out(f"dumpsys package {MOBIUM} | grep POST_NOTIFICATIONS")
    _, err, code = sh(f"pm grant {MOBIUM} android.permission.READ_SMS")
    assert code == 255 and err.startswith("\nException occurred while executing 'grant':\njava.lang.SecurityException")
    _, err, code = sh("pm grant com.no.such android.permission.CAMERA")
    assert code == 255 and "Unknown package: com.no.such" in err
    vdevice.storage(MOBIUM)["count"] = 3
    sh.out(f"pm grant {MOBIUM} {perm}")
    sh.out(f"am start -n {MOBIUM}/.MainActivity")
    assert sh.out(f"pm clear {MOBIUM}") == "Success\n"
    assert vdevice.storage(MOBIUM) == {} and vdevice.permission(MOBIUM, perm) == "undetermined"
    assert MOBIUM not in vdevice.processes
    assert sh("pm clear com.no.such")[1:] == ("Failed\n", 1)


# ---------------------------------------------------------------------------------------------------------------
# dumpsys, as the parsers read it

def test_dumpsys_activity_shapes(sh):
    sh.out(f"am start -n {MOBIUM}/.MainActivity")
    acts = sh.out("dumpsys activity activities")
    assert "mResumedActivity" not in acts  # Android 12+ does not print it
    assert re.search(rf"^  \* Task{{[0-9a-f]{{7}} #\d+ type=standard A=\d+:{MOBIUM} U=0 visible=true ", acts, re.M)
    assert re.search(rf"^    topResumedActivity=ActivityRecord{{[0-9a-f]{{7}} u0 {MOBIUM}/\.MainActivity t\d+}}$",
                     acts, re.M)
    assert re.search(r"^    \* Hist  #0: ActivityRecord{", acts, re.M)
    assert re.search(rf"^  ResumedActivity: ActivityRecord{{\w+ u0 {MOBIUM}/\.MainActivity t\d+}}$", acts, re.M)
    top = sh.out("dumpsys activity top")
    matches = re.findall(r"ACTIVITY (?P<package>[^\s]+)/(?P<activity>[^/\s]+) \w+ pid=(?P<pid>\d+)", top)
    assert matches[-1][:2] == (MOBIUM, ".MainActivity")  # adbutils takes the last
    recents = sh.out("dumpsys activity recents")
    assert re.search(rf"\* Recent #0: Task{{\w+ #\d+ type=standard A=\d+:{MOBIUM}", recents)


def test_dumpsys_window_focus_for_appium_and_adbutils(sh):
    sh.out(f"am start -n {MOBIUM}/.MainActivity")
    displays = sh.out("dumpsys window displays")
    focused = re.compile(r"^\s*mFocusedApp.+Record\{.*\s([^\s\/\}]+)\/([^\s\/\}\,]+)\,?(\s[^\s\/\}]+)*\}", re.M)
    current = re.compile(r"^\s*mCurrentFocus.+\{.+\s([^\s\/]+)\/([^\s]+)\b", re.M)
    assert focused.search(displays).groups()[:2] == (MOBIUM, ".MainActivity")
    assert current.search(displays).groups() == (MOBIUM, f"{MOBIUM}.MainActivity")
    assert "mCurrentFocus" not in sh.out("dumpsys window windows")  # Android 10+
    full = sh.out("dumpsys window")
    assert re.search(r"mCurrentRotation=ROTATION_(\d+)", full).group(1) == "0"  # AndroidWorld
    assert re.search(r"init=(\d+)x(\d+)", full).groups() == ("1080", "2400")
    assert "mInputMethodWindow=Window{" in full
    ime = full[full.index("u0 InputMethod}:"):]
    assert "mViewVisibility=0x8" in ime.split("Window #")[0] and "isVisible=false" in ime.split("Window #")[0]


def test_dumpsys_package_for_parsers(sh):
    out = sh.out(f"dumpsys package {MOBIUM}")
    assert re.search(rf"^\s*Package\s+\[{MOBIUM}\][^:]+:$", out, re.M)  # Appium
    assert re.search(r"versionName=([\d+.]+)", out) and re.search(r"versionCode=(\d+)", out)
    assert re.search(r"PackageSignatures\{.*?\[(.*)\]\}", out)
    assert re.search(r"firstInstallTime=([-\d]+\s+[:\d]+)", out)
    assert re.search(r"targetSdk=(\d+)", out).group(1) == "35"
    runtime = re.findall(r"(android\.\w*\.?permission\.\w+): granted=false", out)  # uiautomator2
    assert "android.permission.ACCESS_FINE_LOCATION" in runtime
    block = out[out.index("      runtime permissions:"):].splitlines()[1:]
    lines = [line for line in block[:block.index("")]]
    assert len(lines) == len(re.findall("granted=", "\n".join(lines))) >= 2
    for line in lines:
        assert line.startswith("        android.permission.") and ", flags=[ " in line
    assert sh.out("dumpsys package com.no.such") == ""


def test_dumpsys_display_power_battery_input(sh):
    display = sh.out("dumpsys display")
    assert re.search(r"orientation=(\d+)", display).group(1) == "0"  # adbutils rotation()
    power = sh.out("dumpsys power")
    assert "mHoldingDisplaySuspendBlocker=true" in power and "mWakefulness=Awake" in power
    sh.out("input keyevent SLEEP")
    power = sh.out("dumpsys power")
    assert "mHoldingDisplaySuspendBlocker=false" in power and "mWakefulness=Asleep" in power
    sh.out("input keyevent WAKEUP")
    battery = {}
    for line in sh.out("dumpsys battery").splitlines()[1:]:
        k, v = line.strip().split(":", 1)
        battery[k.strip()] = v.strip()
    for key in ("Max charging current", "Max charging voltage", "Charge counter", "status", "health", "level",
                "scale", "voltage", "temperature"):
        int(battery[key])  # adbutils int()s these
    assert battery["AC powered"] == "true"
    inp = sh.out("dumpsys input | grep logicalFrame")
    assert re.search(r"logicalFrame=\[0, 0, (\d+), (\d+)\]", inp).groups() == ("1080", "2400")
    assert "InputDeviceOrientation: Rotation0" in sh.out("dumpsys input")


def test_dumpsys_notification(sh, vdevice):
    vdevice.grant(MOBIUM, "android.permission.POST_NOTIFICATIONS")
    assert vdevice.post_notification(MOBIUM, "MobiumApp", "Your MobiumApp code is 012345") is not None
    out = sh.out("dumpsys notification --noredact")
    assert f"pkg={MOBIUM}" in out
    assert "android.title=String (MobiumApp)" in out
    assert "android.text=String (Your MobiumApp code is 012345)" in out
    assert "012345" not in sh.out("dumpsys notification")  # redacted without --noredact
    vdevice.revoke = None
    vdevice.grant(MOBIUM, "android.permission.POST_NOTIFICATIONS", granted=False)
    assert vdevice.post_notification(MOBIUM, "x", "y") is None


def test_wm_and_input_errors(sh):
    assert sh.out("wm size") == "Physical size: 1080x2400\n"
    assert sh.out("wm density") == "Physical density: 420\n"
    sh.out("wm size 720x1280")
    assert sh.out("wm size") == "Physical size: 1080x2400\nOverride size: 720x1280\n"
    sh.out("wm size reset")
    _, err, code = sh("input tap x y")
    assert code == 255 and "Error: Invalid arguments for command: tap" in err
    _, err, code = sh("input tap 1")
    assert code == 255 and "Argument expected" in err
    assert sh("input")[0].startswith("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]")
    assert sh("input keyevent NOT_A_KEY")[2] == 0  # KEYCODE_UNKNOWN, silently
    assert sh("input touchscreen tap 10 10")[2] == 0


# ---------------------------------------------------------------------------------------------------------------
# uiautomator, screencap, logcat, ps

def test_uiautomator_dump(sh, vdevice):
    out, err, code = sh("rm -f /data/local/tmp/uidump.xml; uiautomator dump /data/local/tmp/uidump.xml && echo success")
    assert out == "UI hierchary dumped to: /data/local/tmp/uidump.xml\nsuccess\n" and code == 0
    assert vdevice.files["/data/local/tmp/uidump.xml"].startswith(b"<?xml")
    assert sh.out("uiautomator dump") == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    ET.fromstring(sh.out("cat /sdcard/window_dump.xml"))
    tty = sh.out("uiautomator dump /dev/tty")
    assert tty.endswith("</hierarchy>UI hierchary dumped to: /dev/tty\n")


def test_screencap_is_a_readable_png_that_shows_the_theme(sh, vdevice):
    png, _, _code = sh.shell.run("screencap -p")[0].stdout(), None, 0
    img = Image.open(io.BytesIO(png))
    assert img.size == (1080, 2400)
    sh.out("cmd uimode night yes; am start -n com.android.settings/.Settings")
    dark = Image.open(io.BytesIO(sh.shell.run("screencap -p")[0].stdout())).convert("L")
    sh.out("cmd uimode night no")
    light = Image.open(io.BytesIO(sh.shell.run("screencap -p")[0].stdout())).convert("L")
    x, y = int(0.97 * 1080), int(0.85 * 2400)
    assert dark.getpixel((x, y)) < 60 and light.getpixel((x, y)) > 200
    sh.out("screencap -p /sdcard/s.png")
    assert vdevice.files["/sdcard/s.png"].startswith(b"\x89PNG")
    raw = sh.shell.run("screencap")[0].stdout()
    assert len(raw) == 16 + 1080 * 2400 * 4


def test_logcat(sh, vdevice):
    sh.out("logcat -c")
    vdevice.log("MobiumGrayBox", "busy", pid=4242)
    vdevice.log("Other", "noise", "D", pid=4242)
    out = sh.out("logcat -d")
    lines = out.splitlines()
    assert lines[0] == "--------- beginning of main"
    assert re.fullmatch(r"\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}  4242  4242 I MobiumGrayBox: busy", lines[1])
    assert sh.out("logcat -d -s MobiumGrayBox:I").count("MobiumGrayBox") == 1
    assert "noise" not in sh.out("logcat -d MobiumGrayBox:I *:S")
    assert re.search(r"I/MobiumGrayBox\( 4242\): busy", sh.out("logcat -d -v time"))
    sh.out("logcat -c")
    assert sh.out("logcat -d") == ""


def test_ps_for_uiautomator2(sh):
    sh.out(f"am start -n {MOBIUM}/.MainActivity")
    lines = sh.out("ps -A").splitlines()
    assert len(lines) > 1 and lines[0].split()[:2] == ["USER", "PID"]
    rows = [line.split() for line in lines[1:]]
    app = [f for f in rows if f[-1] == MOBIUM]
    assert app and len(app[0]) >= 9 and int(app[0][1]) > 0
    assert sh.out(f"pidof {MOBIUM}").strip() == app[0][1]


# ---------------------------------------------------------------------------------------------------------------
# location: test providers, as Android's own location tests place a device

def test_a_test_provider_needs_the_shells_mock_location_op(sh):
    out, err, status = sh("cmd location providers add-test-provider gps")
    assert status == 255 and "SecurityException: com.android.shell is not allowed to perform MOCK_LOCATION" in err
    sh.out("appops set com.android.shell android:mock_location allow")
    assert sh.out("appops get com.android.shell android:mock_location").strip() == "MOCK_LOCATION: allow"


def test_a_test_provider_places_the_device_and_removing_it_keeps_the_last_fix(sh, vdevice):
    sh.out("appops set com.android.shell android:mock_location allow")
    sh.out("cmd location providers add-test-provider gps")
    sh.out("cmd location providers set-test-provider-location gps --location 48.8566,2.3522")
    assert vdevice.position() != (48.8566, 2.3522), "a disabled provider's fix is not delivered"
    sh.out("cmd location providers set-test-provider-enabled gps true")
    sh.out("cmd location providers set-test-provider-location gps --location 48.8566,2.3522 --accuracy 1")
    assert vdevice.position() == (48.8566, 2.3522)
    assert re.search(r"last location=Location\[gps 48\.856600,2\.352200 [^\]]* mock\]", sh.out("dumpsys location"))
    sh.out("cmd location providers remove-test-provider gps")
    assert "Location[gps 48.856600,2.352200" in sh.out("dumpsys location")
    out, err, status = sh("cmd location providers set-test-provider-location gps --location 1,2")
    assert status == 255 and "provider doesn't exist: gps" in err
    out, err, status = sh("cmd location providers add-test-provider")
    assert status == 255 and "missing provider argument" in err
