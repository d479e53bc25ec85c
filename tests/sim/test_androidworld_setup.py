"""What AndroidWorld's shared start-up and tear-down send to a device, answered as a real Android 13-15 device answers
it: mksh conditionals, `service call`, `date` setting the clock, `adb root` on a userdebug build, `am stack list`
and `dumpsys activity recents` as android_env and AndroidWorld parse them, the Phone app, and airplane mode's radios.
"""

from __future__ import annotations

import re

import pytest

DIALER = "com.google.android.dialer"
DIALER_ACTIVITY = f"{DIALER}/com.google.android.dialer.extensions.GoogleDialtactsActivity"
# file_utils.check_file_exists's script, as AndroidWorld sends it (indented, over several lines)
EXISTS_SCRIPT = """
  if [ {test} "{path}" ]; then
      echo "Exists"
  else
      echo "Does not exist"
  fi
  """


# ---------------------------------------------------------------------------------------------------------------
# sh conditionals

@pytest.mark.parametrize("line,out,status", [
    ("if true; then echo a; fi", "a\n", 0),
    ("if false; then echo a; fi; echo $?", "0\n", 0),  # no branch taken: `if` exits 0
    ("if false; then echo a; else echo b; fi", "b\n", 0),
    ("if false; then echo a; elif true; then echo b; else echo c; fi", "b\n", 0),
    ("if false; then :; elif false; then :; else exit 4; fi", "", 4),
    ("if true\nthen\n  echo nl\nfi", "nl\n", 0),
    ("if if true; then false; fi; then echo a; else echo nested; fi", "nested\n", 0),
    ("if true; then echo x; fi | grep -c x", "1\n", 0),
    ("if true; then echo to-file; fi > /sdcard/if.txt; cat /sdcard/if.txt", "to-file\n", 0),
    ("if true; then false; fi; echo $?", "1\n", 0),  # the branch's status
    ("echo if then fi", "if then fi\n", 0),  # reserved only where a command starts
    ("echo 'fi'", "fi\n", 0),
    ("! true; echo $?", "1\n", 0),
    ("! false && echo negated", "negated\n", 0),
    ("! echo a | grep -q b && echo none", "none\n", 0),
    ("[ -d /sdcard ] && echo dir", "dir\n", 0),
    ("[ -f /sdcard ] || echo not-a-file", "not-a-file\n", 0),
    ("[ -e /nowhere ]; echo $?", "1\n", 0),
    ("[ -z '' ] && [ -n x ] && echo both", "both\n", 0),
    ("[ a = a ] && [ a != b ] && echo strings", "strings\n", 0),
    ("[ 3 -eq 3 ] && [ 2 -lt 3 ] && [ 4 -ge 4 ] && test 5 -gt 1 && echo numbers", "numbers\n", 0),
    ("[ ! -d /nowhere ] && echo absent", "absent\n", 0),
])
def test_conditionals(sh, line, out, status):
    got, err, code = sh(line)
    assert (got, code) == (out, status), err


@pytest.mark.parametrize("line,message", [
    ("if true; then fi", "syntax error: 'fi' unexpected"),
    ("if true; echo x", "syntax error: 'if' unmatched"),
    ("if true; then echo x", "syntax error: 'if' unmatched"),
    ("then echo x", "syntax error: 'then' unexpected"),
    ("fi", "syntax error: 'fi' unexpected"),
    ("[ -d /sdcard", "[: missing ]"),
])
def test_conditional_mistakes_are_refused_before_anything_runs(sh, line, message):
    out, err, code = sh(line)
    assert out == "" and message in err and code in (1, 2)


def test_androidworld_file_check_script(sh, vdevice):
    # A snapshot folder AndroidWorld's _initialize_apps looks for, absent and then present (made as its
    # save_snapshot would, as root: the shell user cannot write under /data/data).
    path = "/data/data/android_world/snapshots/com.android.settings"
    assert sh(EXISTS_SCRIPT.format(test="-d", path=path)) == ("Does not exist\n", "", 0)
    vdevice.dirs.update({"/data/data/android_world", "/data/data/android_world/snapshots", path})
    assert sh(EXISTS_SCRIPT.format(test="-d", path=path)) == ("Exists\n", "", 0)
    assert sh(EXISTS_SCRIPT.format(test="-f", path=path)) == ("Does not exist\n", "", 0)


# ---------------------------------------------------------------------------------------------------------------
# service call, date, root

def test_service_call_alarm_sets_the_time_zone(sh):
    # AndroidWorld's datetime_utils._set_timezone_to_utc; the reply of a void method that did not throw
    assert sh("service call alarm 3 s16 America/New_York") == ("Result: Parcel(00000000    '....')\n", "", 0)
    assert sh.out("getprop persist.sys.timezone") == "America/New_York\n"
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d E[SD]T \d{4}\n", sh.out("date"))
    assert sh("service call alarm 3 s16 UTC")[2] == 0
    assert sh.out("getprop persist.sys.timezone") == "UTC\n"
    sh.out("service call alarm 3 s16 Not/AZone")  # Java's TimeZone.getTimeZone gives GMT for an unknown id
    assert sh.out("getprop persist.sys.timezone") == "GMT\n"


def test_service_list_check_and_refusals(sh):
    listing = sh.out("service list")
    assert listing.startswith("Found ") and "\talarm: [android.app.IAlarmManager]\n" in listing
    assert sh.out("service check alarm") == "Service alarm: found\n"
    assert sh.out("service check nosuch") == "Service nosuch: not found\n"
    assert sh("service call nosuch 1") == ("", "service: Service nosuch does not exist\n", 10)
    out, err, code = sh("service call alarm 3 x16 UTC")
    assert err.startswith("service: unknown option x16\nUsage: service") and code == 10
    out, err, code = sh("service call alarm 77 i32 1")
    assert out == "" and "does not model transaction 77 of alarm" in err and code == 10


def test_date_sets_the_clock_only_as_root(sh, vdevice):
    # toybox prints the date it was asked for either way; settimeofday needs root
    out, err, code = sh("date 1015153423.00")
    assert (out, err, code) == ("Sun Oct 15 15:34:00 UTC 2023\n", "date: cannot set date: Operation not permitted\n",
                                1)
    assert not sh.out("date").endswith(" 2023\n")
    vdevice.set_adbd_root(True)
    assert sh("date 1015153423.00") == ("Sun Oct 15 15:34:00 UTC 2023\n", "", 0)
    assert sh.out("date +%Y-%m-%dT%H:%M") == "2023-10-15T15:34\n"
    vdevice.clock.advance(61)  # the clock runs on from the time set
    assert sh.out("date +%H:%M") == "15:35\n"
    assert sh.out("date 01020304").startswith("Mon Jan  2 03:04:00 UTC 2023")  # no year: this year
    assert sh.out("date 010203042024.05") == "Tue Jan  2 03:04:05 UTC 2024\n"
    assert sh.out("date 0102030499") == "Sat Jan  2 03:04:00 UTC 1999\n"  # within 50 years of 2024: the past
    assert sh("date 1399") == ("", "date: bad date '1399'\n", 1)
    assert sh("date 13320000") == ("", "date: bad date '13320000'\n", 1)


def test_uptime_does_not_jump_with_the_wall_clock(sh, vdevice):
    vdevice.set_adbd_root(True)
    before = vdevice.now()
    sh.out("date 010100001990")
    assert vdevice.now() - before < 5


def test_adb_root_on_a_userdebug_build(adb, sim_server):
    device = adb.device("emulator-5554")
    assert device.getprop("ro.build.type") == "userdebug"
    assert device.shell("whoami") == "shell"
    assert device.root().strip() == "restarting adbd as root"
    assert device.shell("whoami") == "root"
    assert device.shell("id") == "uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0"
    assert device.getprop("service.adb.root") == "1"
    assert device.root().strip() == "adbd is already running as root"
    # the date AndroidWorld freezes every task at, set as its set_datetime sets it
    assert device.shell("date 1015153423.00") == "Sun Oct 15 15:34:00 UTC 2023"
    # the other device keeps its own adbd
    assert adb.device("emulator-5556").shell("whoami") == "shell"
    with device.open_transport() as conn:
        conn.send_command("unroot:")
        conn.check_okay()
        assert conn.read_until_close().strip() == "restarting adbd as non root"
    assert device.shell("whoami") == "shell"


def test_adb_root_is_refused_on_a_production_build(adb, sim_server):
    sim_server.device("emulator-5556").props["ro.debuggable"] = "0"
    device = adb.device("emulator-5556")
    assert device.root().strip() == "adbd cannot run as root in production builds"
    assert device.shell("whoami") == "shell"


# ---------------------------------------------------------------------------------------------------------------
# am stack list, dumpsys activity recents

VISIBLE_TASK = re.compile(r".*\{(.*)\}")  # android_env's _get_current_activity, on `am stack list | grep visible`
TASK_LINE = re.compile(r"^\ *taskId=(?P<id>[0-9]*): (?P<base_activity>[^\s]*) .*visible=true"
                       r".*topActivity=ComponentInfo{(?P<top_activity>[^\s]*)}$")  # its _fetch_current_task_id


def test_am_stack_list_as_android_env_reads_it(sh):
    sh.out("monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
    sh.out(f"am start -n {DIALER_ACTIVITY}")
    visible = sh.out("am stack list | grep -E visible=true")
    assert VISIBLE_TASK.search(visible).group(1) == DIALER_ACTIVITY
    lines = [m for m in map(TASK_LINE.search, sh.out("am stack list").splitlines()) if m]
    assert [m.group("top_activity") for m in lines] == [DIALER_ACTIVITY]


def test_a_permission_prompt_is_the_top_of_the_asking_apps_task(sh, vdevice):
    sh.out("am start -n dev.mobium.mobiumapp/.MainActivity")
    vdevice.request_permissions("dev.mobium.mobiumapp", ["android.permission.CAMERA"], None)
    top = VISIBLE_TASK.search(sh.out("am stack list | grep -E visible=true")).group(1)
    assert top == ("com.google.android.permissioncontroller/"
                   "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity")


def test_close_recents_as_androidworld_does_it(sh):
    for component in ("com.android.settings/.Settings", DIALER_ACTIVITY,
                      "com.google.android.deskclock/com.android.deskclock.DeskClock"):
        sh.out(f"am start -n {component}")
    recents = sh.out("dumpsys activity recents")
    task_ids = {int(n) for n in re.findall(r"taskId=(\d+)", recents)}
    assert len(task_ids) == 3
    # AndroidWorld's adb_utils.close_recents: every `id=(\d+)` of the dump, each removed with `am stack remove`;
    # the numbers that are not tasks (mRecentsUid, mCallingUid) remove nothing and exit 0
    found = re.findall(r"id=(\d+)", recents)
    assert task_ids <= {int(n) for n in found}
    assert "Visible recent tasks (most recent first):" in recents
    for number in found:
        assert sh(f"am stack remove {number}") == ("", "", 0)
    assert "Recent tasks: (none)" in sh.out("dumpsys activity recents")
    assert "com.google.android.apps.nexuslauncher" in sh.out("am stack list | grep -E visible=true")


def test_recents_print_a_system_apps_uid_as_a_number(sh):
    sh.out("am start -n com.android.settings/.Settings")
    assert "effectiveUid=1000 " in sh.out("dumpsys activity recents")


# ---------------------------------------------------------------------------------------------------------------
# the Phone app, airplane mode

def test_the_phone_app_is_on_the_home_screen_and_opens(sh, vdevice):
    sh.out("input keyevent KEYCODE_HOME")
    xml = sh.out("uiautomator dump /dev/tty")
    assert 'resource-id="com.google.android.apps.nexuslauncher:id/hotseat"' in xml
    phone = re.search(r'text="Phone"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml)
    assert phone, "no Phone icon on the home screen"
    x1, y1, x2, y2 = map(int, phone.groups())
    assert 0 <= x1 < x2 <= 1080 and 0 <= y1 < y2 <= 2400
    sh.out(f"input tap {(x1 + x2) // 2} {(y1 + y2) // 2}")
    assert VISIBLE_TASK.search(sh.out("am stack list | grep -E visible=true")).group(1) == DIALER_ACTIVITY
    # the default phone app holds its role's permissions: no prompt over it, and `pm clear` keeps them
    assert "CALL_PHONE: granted=true" in sh.out(f"dumpsys package {DIALER}")
    sh.out(f"pm clear {DIALER}")
    assert "CALL_PHONE: granted=true" in sh.out(f"dumpsys package {DIALER}")


def test_the_keypad_types_a_number(sh, vdevice):
    sh.out(f"am start -n {DIALER_ACTIVITY}")
    app = vdevice.current_activity().app
    app.tab = "Keypad"
    for key in "555":
        app._key(key)
    assert 'text="555"' in sh.out("uiautomator dump /dev/tty")


def test_airplane_mode_setting_written_directly(sh):
    # BluetoothManagerService observes airplane_mode_on itself; Wi-Fi hears only ConnectivityService's broadcast,
    # which `settings put` does not send
    sh.out("settings put global airplane_mode_on 1")
    assert sh.out("settings get global bluetooth_on; settings get global wifi_on") == "2\n1\n"
    sh.out("settings put global airplane_mode_on 0")
    assert sh.out("settings get global bluetooth_on") == "1\n"
    sh.out("svc bluetooth disable; settings put global airplane_mode_on 1; settings put global airplane_mode_on 0")
    assert sh.out("settings get global bluetooth_on") == "0\n"  # off before: stays off


def test_airplane_mode_turns_both_radios_off_and_back(sh):
    sh.out("svc wifi enable; svc bluetooth enable; cmd connectivity airplane-mode enable")
    assert sh.out("settings get global wifi_on; settings get global bluetooth_on") == "3\n2\n"
    sh.out("cmd connectivity airplane-mode disable")
    assert sh.out("settings get global wifi_on; settings get global bluetooth_on") == "1\n1\n"
    sh.out("svc wifi disable; cmd connectivity airplane-mode enable; cmd connectivity airplane-mode disable")
    assert sh.out("settings get global wifi_on; settings get global bluetooth_on") == "0\n1\n"
