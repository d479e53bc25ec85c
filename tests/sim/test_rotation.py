"""The virtual device's rotation: user_rotation with auto-rotate off (or `wm user-rotation lock N`) turns the display,
unless the activity in front is fixed to portrait (MobiumApp, the launcher), as on a phone."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from pytest_mobium_evals.sim import render

SETTINGS = "com.android.settings/.Settings"
MOBIUM = "dev.mobium.mobiumapp"


def root_bounds(sh) -> tuple[str, str]:
    sh.out("uiautomator dump /sdcard/d.xml")
    tree = ET.fromstring(sh.out("cat /sdcard/d.xml"))
    return tree.attrib["rotation"], next(tree.iter("node")).attrib["bounds"]


def widest(sh) -> int:
    sh.out("uiautomator dump /sdcard/d.xml")
    tree = ET.fromstring(sh.out("cat /sdcard/d.xml"))
    return max(int(re.findall(r"\d+", n.attrib["bounds"])[2]) for n in tree.iter("node") if n.attrib["clickable"]
               == "true")


@pytest.fixture
def settings_app(sh):
    sh.out(f"am start -W -n {SETTINGS}")
    return sh


@pytest.mark.parametrize("turn", ["settings put system accelerometer_rotation 0; "
                                  "settings put system user_rotation 1", "wm user-rotation lock 1",
                                  "cmd window user-rotation lock 3"])
def test_a_user_rotation_turns_settings_landscape(settings_app, turn):
    sh = settings_app
    portrait = widest(sh)
    sh.out(turn)
    rotation, bounds = root_bounds(sh)
    assert rotation in ("1", "3") and bounds == "[0,0][2400,1080]"
    assert widest(sh) > portrait
    displays = sh.out("dumpsys window displays")
    assert "cur=2400x1080" in displays and f"mCurrentRotation=ROTATION_{int(rotation) * 90}" in displays
    assert re.search(rf"mRotation={rotation} ", displays)
    assert "mUserRotationMode=USER_ROTATION_LOCKED" in displays
    inp = sh.out("dumpsys input")
    assert f"orientation={rotation}, logicalFrame=[0, 0, 2400, 1080]" in inp
    assert f"InputDeviceOrientation: Rotation{int(rotation) * 90}" in inp
    assert sh.out("wm size").strip() == "Physical size: 1080x2400"


def test_a_tap_lands_where_the_landscape_layout_put_it(settings_app):
    sh = settings_app
    sh.out("wm user-rotation lock 1")
    sh.out("uiautomator dump /sdcard/d.xml")
    tree = ET.fromstring(sh.out("cat /sdcard/d.xml"))
    row = next(n for n in tree.iter("node") if n.attrib["text"] == "Connected devices")
    x1, y1, x2, y2 = (int(v) for v in re.findall(r"\d+", row.attrib["bounds"]))
    assert x2 > 1080, "the row spans the landscape width"
    sh.out(f"input tap {(x1 + x2) // 2} {(y1 + y2) // 2}")
    sh.out("uiautomator dump /sdcard/d.xml")
    assert "Pair new device" in sh.out("cat /sdcard/d.xml")


def test_auto_rotate_on_follows_the_upright_sensor(settings_app):
    sh = settings_app
    sh.out("wm user-rotation lock 1")
    sh.out("wm user-rotation free")
    assert root_bounds(sh) == ("0", "[0,0][1080,2400]")
    assert "mUserRotationMode=USER_ROTATION_FREE" in sh.out("dumpsys window displays")


def test_a_portrait_only_app_keeps_the_display_upright(sh):
    sh.out(f"am start -W -n {MOBIUM}/.MainActivity")
    sh.out("wm user-rotation lock 1")
    assert root_bounds(sh) == ("0", "[0,0][1080,2400]")
    displays = sh.out("dumpsys window displays")
    assert "mCurrentAppOrientation=SCREEN_ORIENTATION_PORTRAIT" in displays
    assert "mUserRotation=ROTATION_90" in displays and re.search(r"mRotation=0 ", displays)
    sh.out(f"am start -W -n {SETTINGS}")  # an app that rotates comes to the front: the display turns
    assert root_bounds(sh)[1] == "[0,0][2400,1080]"


def test_the_screencap_is_landscape(settings_app, vdevice):
    settings_app.out("wm user-rotation lock 1")
    image = render.render(vdevice)
    assert image.size == (2400, 1080)
    raw = render.screencap_raw(vdevice)
    assert int.from_bytes(raw[:4], "little") == 2400 and int.from_bytes(raw[4:8], "little") == 1080
