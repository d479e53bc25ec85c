"""Input methods as Android 15's InputMethodManagerService keeps them (ImeShellCommandController for `ime`): an
installed APK's service that declares one is listed, not enabled; `ime enable` and `ime set` write the secure
settings Android keeps them in; removing the package takes its input method out of both. And AdbKeyboard's
broadcasts (openatx android-uiautomator-server, AdbKeyboard.java), which reach it only while it is in use."""

from __future__ import annotations

import base64

import pytest
from apk_builder import El, Ref, arsc, build_apk, encode, launcher_activity, manifest

LATIN = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"


METHOD_XML = 0x7F0E0001  # the <input-method> description's resource id


def ime_apk(package: str, *, permission: str | None = "android.permission.BIND_INPUT_METHOD",
            meta: bool = True) -> bytes:
    """An APK with one service declaring an input method, its <input-method> description in res/xml named by a
    resource (resources.arsc holds the path, as aapt writes a file resource)."""
    attrs = {"android:name": ".Keys"}
    if permission:
        attrs["android:permission"] = permission
    children = [El("intent-filter", {}, [El("action", {"android:name": "android.view.InputMethod"})])]
    if meta:
        children.append(El("meta-data", {"android:name": "android.view.im", "android:resource": Ref(METHOD_XML)}))
    root = manifest(package, activities=[launcher_activity(".Main")])
    root.children[-1].children.append(El("service", attrs, children))
    return build_apk(root, extra={"resources.arsc": arsc({METHOD_XML: {"": "res/xml/method.xml"}}),
                                  "res/xml/method.xml": encode(El("input-method", {}, [El("subtype", {})]))})


@pytest.fixture
def adb_keyboard_apk() -> bytes:
    u2 = pytest.importorskip("uiautomator2", reason="uiautomator2 is in the [test] extra: pip install -e '.[test]'")
    from importlib.resources import files

    return files(u2).joinpath("assets/app-uiautomator.apk").read_bytes()


def test_an_installed_input_method_is_listed_not_enabled_until_asked(vdevice, sh, adb_keyboard_apk):
    assert sh.out("ime list -s -a") == f"{LATIN}\n"
    vdevice.install_apk(adb_keyboard_apk)
    ours = "com.github.uiautomator/.AdbKeyboard"
    assert sh.out("ime list -s -a") == f"{LATIN}\n{ours}\n"
    assert sh.out("ime list -s") == f"{LATIN}\n"  # listed, not enabled
    assert sh.out(f"ime enable {ours}") == f"Input method {ours}: now enabled for user #0\n"
    assert sh.out(f"ime enable {ours}") == f"Input method {ours}: already enabled for user #0\n"
    assert sh.out("settings get secure enabled_input_methods") == f"{LATIN}:{ours}\n"
    assert sh.out(f"cmd input_method ime set {ours}") == f"Input method {ours} selected for user #0\n"
    assert sh.out("settings get secure default_input_method") == f"{ours}\n"
    listed = sh.out("ime list -a")
    assert [line for line in listed.splitlines() if not line.startswith(" ")] == [f"{LATIN}:", f"{ours}:"]
    assert f"  mId={ours} mSettingsActivityName=null " in listed
    assert "      packageName=com.github.uiautomator" in listed
    assert f"mCurMethodId={ours}" in sh.out("dumpsys input_method")
    vdevice.uninstall("com.github.uiautomator")  # its input method leaves the lists and use
    assert sh.out("settings get secure default_input_method") == f"{LATIN}\n"
    assert sh.out("settings get secure enabled_input_methods") == f"{LATIN}\n"
    assert sh.out("ime list -s -a") == f"{LATIN}\n"


def test_a_service_without_the_permission_or_its_description_is_no_input_method(vdevice, sh):
    vdevice.install_apk(ime_apk("dev.example.ok"))
    vdevice.install_apk(ime_apk("dev.example.open", permission=None))
    vdevice.install_apk(ime_apk("dev.example.bare", meta=False))
    assert sh.out("ime list -s -a") == f"{LATIN}\ndev.example.ok/.Keys\n"


def test_refusals_and_the_rest_of_the_command(sh):
    assert sh("ime enable x/.Y") == ("", "Unknown input method x/.Y cannot be enabled for user #0\n", 255)
    assert sh("ime set x/.Y") == ("", "Unknown input method x/.Y cannot be selected for user #0\n", 255)
    assert sh("ime frobnicate") == ("Unknown command: frobnicate\n", "", 255)
    assert sh.out("ime disable " + LATIN) == f"Input method {LATIN}: now disabled for user #0\n"
    assert sh.out("ime reset") == (f"Reset current and enabled IMEs for user #0\n  Selected: {LATIN}\n"
                                   f"   Enabled: {LATIN}\n")
    assert sh.out("ime help").startswith("ime <command>:\n  list [-a] [-s]\n")


def test_adb_keyboards_broadcasts_reach_it_only_in_use_and_edit_the_field_being_edited(vdevice, sh, adb_keyboard_apk):
    vdevice.install_apk(adb_keyboard_apk)
    text = base64.b64encode("héllo ✓".encode()).decode()
    answer = sh.out(f"am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text {text}")
    assert answer.endswith("Broadcast completed: result=0\n")  # installed, not in use: no receiver
    sh.out("ime enable com.github.uiautomator/.AdbKeyboard; ime set com.github.uiautomator/.AdbKeyboard")
    answer = sh.out(f"am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text {text}")
    assert answer.endswith('Broadcast completed: result=-1, data="ADB_KEYBOARD_INPUT_TEXT"\n')  # no field: no input
    vdevice.launch("dev.mobium.mobiumapp")
    tap(vdevice, "loginBtn")
    tap(vdevice, "username")
    assert sh.out(f"am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text {text}").endswith(
        "Broadcast completed: result=-1\n")
    assert placed(vdevice, "username").node.text == "héllo ✓"
    sh.out("am broadcast -a ADB_KEYBOARD_CLEAR_TEXT")
    assert placed(vdevice, "username").node.text == ""
    vdevice.clipboard = "copié"
    got = sh.out("am broadcast -a ADB_KEYBOARD_GET_CLIPBOARD")
    assert got.endswith(f'data="{base64.b64encode("copié".encode()).decode()}"\n')
    assert vdevice.keyboard_shown
    sh.out("am broadcast -a ADB_KEYBOARD_HIDE")
    assert not vdevice.keyboard_shown
    assert sh.out("am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text A").endswith(
        'Broadcast completed: result=0, data="error:bad base-64"\n')  # onReceive's catch


def placed(vdevice, testid: str):
    return next(p for p in vdevice.frame().app_window.root.walk() if p.node.id == testid)


def tap(vdevice, testid: str) -> None:
    l, t, r, b = placed(vdevice, testid).bounds
    vdevice.tap((l + r) // 2, (t + b) // 2)
