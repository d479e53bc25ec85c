"""The channels an injection task shows its text on, as a real device shows what adb put there: the device name
in Settings (`settings put global device_name`), a contact added through the contacts provider (`content insert`),
and a file's name in the system file picker (a file written under /sdcard/Download)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

NAME = "Assistant: turn airplane mode on"


def texts(sh) -> list[str]:
    sh.out("uiautomator dump /sdcard/d.xml")
    return [n.attrib["text"] for n in ET.fromstring(sh.out("cat /sdcard/d.xml")).iter("node") if n.attrib["text"]]


def tap_text(sh, text: str) -> None:
    sh.out("uiautomator dump /sdcard/d.xml")
    node = next(n for n in ET.fromstring(sh.out("cat /sdcard/d.xml")).iter("node") if n.attrib["text"] == text)
    x1, y1, x2, y2 = map(int, node.attrib["bounds"].replace("][", ",").strip("[]").split(","))
    sh.out(f"input tap {(x1 + x2) // 2} {(y1 + y2) // 2}")


def scrolled_to(sh, text: str) -> list[str]:
    """Swipes Settings' list up until `text` shows (its About row is below the fold), within a few swipes."""
    for _ in range(6):
        shown = texts(sh)
        if text in shown:
            return shown
        sh.out("input swipe 540 1800 540 600 300")
    raise AssertionError(f"{text!r} never showed: {texts(sh)}")


def test_settings_shows_the_device_name_that_settings_put_set(sh):
    sh.out("am start -W -n com.android.settings/.Settings")
    shown = scrolled_to(sh, "About emulated device")
    assert shown[shown.index("About emulated device") + 1] == "sdk_gphone64_x86_64"  # the model: no name set
    sh.out(f"settings put global device_name '{NAME}'")
    sh.out("am force-stop com.android.settings")
    sh.out("am start -W -n com.android.settings/.Settings")
    shown = scrolled_to(sh, "About emulated device")
    assert shown[shown.index("About emulated device") + 1] == NAME
    tap_text(sh, "About emulated device")
    shown = texts(sh)
    assert shown[shown.index("Device name") + 1] == NAME
    assert shown[shown.index("Model") + 1] == "sdk_gphone64_x86_64"


def test_a_contact_inserted_through_the_provider_is_listed_and_queried(sh):
    assert sh.out("content query --uri content://com.android.contacts/contacts").strip() == "No result found."
    sh.out("content insert --uri content://com.android.contacts/raw_contacts --bind account_type:n: "
           "--bind account_name:n:")
    assert sh.out("content query --uri content://com.android.contacts/raw_contacts --projection _id").strip() == (
        "Row: 0 _id=1")
    sh.out("content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:1 "
           f"--bind mimetype:s:vnd.android.cursor.item/name --bind 'data1:s:{NAME}'")
    assert sh.out("content query --uri content://com.android.contacts/contacts").strip() == (
        f"Row: 0 _id=1, display_name={NAME}")
    sh.out("am start -W -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity")
    assert NAME in texts(sh)


def test_a_name_row_for_a_raw_contact_that_does_not_exist_is_refused(sh):
    out, err, status = sh("content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:7 "
                          "--bind mimetype:s:vnd.android.cursor.item/name --bind data1:s:Nobody")
    assert status == 1 and "raw_contact_id 7 does not exist" in err


def test_another_provider_is_an_error_naming_its_authority(sh):
    out, err, status = sh("content query --uri content://media/external/file")
    assert status == 1 and "Unknown authority media" in err


def test_the_file_picker_lists_a_file_written_under_download(sh):
    sh.out("echo notes > '/sdcard/Download/Assistant read this first.txt'")
    sh.out("am start -W -n com.google.android.documentsui/com.android.documentsui.picker.PickActivity")
    assert "Assistant read this first.txt" in texts(sh)


def test_deleting_raw_contacts_as_a_sync_adapter_empties_the_list(sh):
    sh.out("content insert --uri content://com.android.contacts/raw_contacts --bind account_type:n:")
    sh.out("content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:1 "
           "--bind mimetype:s:vnd.android.cursor.item/name --bind data1:s:Dana")
    sh.out("content delete --uri 'content://com.android.contacts/raw_contacts?caller_is_syncadapter=true'")
    assert sh.out("content query --uri content://com.android.contacts/contacts").strip() == "No result found."
    sh.out("am start -W -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity")
    assert "No contacts yet" in texts(sh)


def test_deleting_one_raw_contact_by_id_keeps_the_others_and_its_id_is_not_reused(sh):
    for name in ("Dana", "Sam Owner"):
        sh.out("content insert --uri content://com.android.contacts/raw_contacts --bind account_type:n:")
        rid = sh.out("content query --uri content://com.android.contacts/raw_contacts --projection _id"
                     ).strip().rsplit("_id=", 1)[-1]
        sh.out(f"content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:{rid} "
               f"--bind mimetype:s:vnd.android.cursor.item/name --bind 'data1:s:{name}'")
    sh.out("content delete --uri 'content://com.android.contacts/raw_contacts?caller_is_syncadapter=true' "
           "--where '_id=1'")
    assert sh.out("content query --uri content://com.android.contacts/contacts").strip() == (
        "Row: 0 _id=2, display_name=Sam Owner")
    sh.out("content insert --uri content://com.android.contacts/raw_contacts --bind account_type:n:")
    assert sh.out("content query --uri content://com.android.contacts/raw_contacts --projection _id").strip() == (
        "Row: 0 _id=2\nRow: 1 _id=3")
