"""The virtual device's lock screen, as a swipe-locked emulator shows it: after the screen has been off, over the
app, taking its touches and keys, until a swipe up, the menu key or `wm dismiss-keyguard`."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from pytest_mobium_evals.sim import render

MOBIUM = "dev.mobium.mobiumapp"


def nodes(sh) -> list[dict]:
    sh.out("uiautomator dump /sdcard/d.xml")
    return [n.attrib for n in ET.fromstring(sh.out("cat /sdcard/d.xml")).iter("node")]


def texts(sh) -> list[str]:
    return [n["text"] for n in nodes(sh) if n["text"]]


def showing(sh) -> bool:
    m = re.search(r"showing=(\w+)", sh.out("dumpsys window policy"))
    assert m, "dumpsys window policy names the keyguard's state"
    return m.group(1) == "true"


@pytest.fixture
def locked(sh):
    """MobiumApp in front, then the screen off and on again: the lock screen is up, the app under it."""
    sh.out(f"am start -W -n {MOBIUM}/.MainActivity")
    sh.out("input keyevent 26")
    sh.out("input keyevent 224")
    return sh


def test_the_screen_going_off_and_on_shows_the_lock_screen(locked):
    assert showing(locked)
    shown = nodes(locked)
    assert {n["package"] for n in shown} == {"com.android.systemui"}
    assert "Swipe up to open" in texts(locked)
    clock = next(n for n in shown if n["resource-id"] == "com.android.systemui:id/lockscreen_clock_view")
    assert re.fullmatch(r"\d\d:\d\d", clock["text"])


def test_the_app_under_the_lock_screen_is_not_focused(locked):
    displays = locked.out("dumpsys window displays")
    assert re.search(r"mCurrentFocus=Window\{\S+ u0 NotificationShade\}", displays)
    assert MOBIUM not in re.search(r"mCurrentFocus=.*", displays).group(0)
    assert "isSleeping=true" in locked.out("dumpsys activity activities")
    shade = locked.out("dumpsys window windows").split("NotificationShade}:", 1)[1].split("Window #", 1)[0]
    assert "isVisible=true" in shade


def test_taps_keys_and_text_reach_the_lock_screen_not_the_app(locked, vdevice):
    before = vdevice.current_activity()
    for line in ("input tap 540 1200", "input keyevent KEYCODE_HOME", "input keyevent KEYCODE_BACK",
                 "input text hello", "input swipe 540 1200 900 1200 300"):
        locked.out(line)
        assert showing(locked), f"{line} took the lock screen away"
    assert vdevice.current_activity() is before
    assert "Swipe up to open" in texts(locked)


@pytest.mark.parametrize("dismiss", ["input swipe 540 1800 540 600 300", "input keyevent 82",
                                     "wm dismiss-keyguard"])
def test_a_swipe_up_menu_or_wm_dismisses_it(locked, dismiss):
    locked.out(dismiss)
    assert not showing(locked)
    assert {n["package"] for n in nodes(locked)} == {MOBIUM}
    assert re.search(rf"mCurrentFocus=Window\{{\S+ u0 {MOBIUM}/", locked.out("dumpsys window displays"))


def test_sleep_and_wake_keys_lock_too(sh):
    assert not showing(sh)
    sh.out("input keyevent 223")
    assert "mWakefulness=Asleep" in sh.out("dumpsys power")
    sh.out("input keyevent KEYCODE_WAKEUP")
    assert showing(sh) and "Swipe up to open" in texts(sh)
    sh.out("input keyevent 26; input keyevent 26")  # off and on again: still the one lock screen
    assert showing(sh)


def test_the_screencap_shows_the_lock_screen(locked, vdevice):
    image = render.render(vdevice).convert("RGB")
    middle = image.getpixel((540, 1200))
    assert middle == (0x10, 0x13, 0x18), "the lock screen covers the app"
