"""MobiumApp's native screens on the virtual device, driven as a harness drives them (dump, tap centres, type,
keys, swipes). Timings are checked in device time: a state must never appear before its delay."""

from __future__ import annotations

import pytest
from mobiumapp_harness import APP, FROZEN, IME_TOP, Driver, bounds_of

from pytest_mobium_evals.sim.apps.mobiumapp.basic import MENU

FINE = "android.permission.ACCESS_FINE_LOCATION"
NOTIFY = "android.permission.POST_NOTIFICATIONS"


@pytest.fixture
def d() -> Driver:
    drv = Driver()
    drv.launch()
    return drv


# ---------------------------------------------------------------------------------------------------------------
# home and navigation

def test_home_lists_the_22_entries_in_order_with_the_later_ones_below_the_fold(d):
    assert d.text("title") == "MobiumApp"
    assert d.need("mobiumLogo")["content-desc"] == "Mobium"
    assert d.need("homeList")["scrollable"] == "true"
    on_screen = [n["resource-id"] for n in d.dump() if n["resource-id"].endswith("Btn")]
    assert on_screen[0] == "webviewhubBtn"
    for below in ("obstructionBtn", "feedBtn", "sliderBtn", "busyBtn", "audioBtn"):
        assert below not in on_screen
    seen: list[str] = []
    for _ in range(12):
        for n in d.dump():
            rid = n["resource-id"]
            if rid.endswith("Btn") and rid not in seen:
                seen.append(rid)
                assert n["content-desc"] == dict(MENU)[rid[:-3]]
        d.swipe(540, 1800, 540, 900)
    assert seen == [key + "Btn" for key, _ in MENU]


@pytest.mark.parametrize("key", [k for k, _ in MENU])
def test_every_entry_opens_a_screen_and_back_returns_home(d, key):
    d.open(key + "Btn")
    if d.dialog_up:  # Location asks for the permission on mount
        d.tap(text="Don\u2019t allow")
    assert d.find("homeList") is None
    assert d.find("backBtn") is not None
    d.back()
    assert d.find("title") is not None


def test_back_from_a_case_goes_to_its_hub_and_back_on_home_finishes(d):
    d.open("gesturehubBtn")
    d.tap("dragBtn")
    assert d.text("lastDrag") == "drag: no drag yet"
    d.back()
    assert d.find("gestureList") is not None
    d.back()
    d.open("webviewhubBtn")
    d.tap("framesBtn")
    d.back()
    assert d.find("webviewList") is not None
    d.tap("backBtn")
    assert d.find("title") is not None
    d.back()
    assert d.device.current_activity().package.name != APP


# ---------------------------------------------------------------------------------------------------------------
# Login (t01, t02)

def sign_in(d: Driver, user: str, password: str) -> None:
    d.tap("username")
    d.select_all()
    d.type(user)
    d.tap("password")
    d.select_all()
    d.type(password)
    d.tap("loginBtn")


def test_sign_in_takes_one_second_with_the_button_disabled(d):
    d.open("loginBtn")
    assert d.text("username") == "username" and d.need("password")["password"] == "true"
    t0 = d.device.now()
    with d.paused():
        sign_in(d, "mobium", "hunter2")
        button = d.need("loginBtn")
        assert button["content-desc"] == "Signing in…" and button["enabled"] == "false"
        assert d.need(text="Signing in…")
    seen = d.wait_text("welcomeText", "Welcome, mobium!", 3)
    assert seen - t0 >= 1.0
    assert d.text("secretText") == "You are logged in."
    assert d.device.current_app().screen_key == "secret"


def test_the_credentials_are_checked_when_submitted_not_when_the_reply_lands(d):
    """App.tsx's Login: the sign-in closure checks the username and password it was submitted with; the reply
    only lands a second later, so a password edited meanwhile does not change the outcome."""
    d.open("loginBtn")
    with d.paused():
        sign_in(d, "mobium", "hunter2")
        d.tap("password")
        d.select_all()
        d.type("wrong!!")
    d.wait_text("welcomeText", "Welcome, mobium!", 3)


def test_wrong_password_gives_the_login_error_and_no_welcome(d):
    d.open("loginBtn")
    sign_in(d, "mobium", "wrongpass1")
    d.wait_text("loginError", "Incorrect username or password.", 3)
    assert d.find("welcomeText") is None
    assert "wrongpass1" not in d.device.dump_xml()  # the password field is masked
    d.tap("password")
    d.type("x")
    assert d.find("loginError") is None  # editing clears it


@pytest.mark.parametrize("user, password, notices", [
    ("", "", {"userError": "Enter your username.", "passError": "Enter your password."}),
    ("ab", "hunter2", {"userError": "Username must be at least 3 characters.",
                       "passOk": "✓ Password meets the requirements."}),
    ("mob ium!", "hunter2", {"userError": "Username can contain only letters, numbers, dots (.), dashes (-) and "
                                          "underscores (_)."}),
    ("mobium", "abc", {"userOk": "✓ Username looks good.", "passError": "Password must be at least 6 characters."}),
])
def test_field_notices_stop_the_sign_in(d, user, password, notices):
    d.open("loginBtn")
    sign_in(d, user, password)
    for id, value in notices.items():
        assert d.text(id) == value
    assert d.need("loginBtn")["content-desc"] == "Log In"
    assert d.find("loginError") is None


def test_capitals_and_spaces_around_the_name_sign_in_and_log_out_empties_the_form(d):
    d.open("loginBtn")
    sign_in(d, "  MoBium ", "hunter2")
    d.wait_text("welcomeText", "Welcome, mobium!", 3)
    d.tap("logoutBtn")
    assert d.text("username") == "username"  # empty: the hint shows
    assert d.find("userError") is None


# ---------------------------------------------------------------------------------------------------------------
# Form (t03, t04, t19, t21's trap)

def test_form_defaults_controls_and_state_line(d):
    d.open("formBtn")
    assert d.text("formState") == "notify=false terms=false plan=free theme=light"
    assert d.need("termsCheck")["checked"] == "false" and d.need("termsCheck")["checkable"] == "true"
    assert d.need("planFree")["checked"] == "true"
    assert d.need("planFree")["class"] == "android.widget.RadioButton"
    assert d.need("darkSwitch")["content-desc"] == "Dark mode"
    d.tap("notifyCheck")
    d.tap("termsCheck")
    d.tap("planPro")
    d.tap("planPro")  # a radio cannot be unselected
    assert d.text("formState") == "notify=true terms=true plan=pro theme=light"
    assert d.need("planFree")["checked"] == "false" and d.need("planPro")["checked"] == "true"


def test_read_only_field_refuses_focus_and_typing(d):
    d.open("formBtn")
    field = d.need("readOnlyField")
    assert field["enabled"] == "false" and field["text"] == "This field cannot be edited"
    d.tap("readOnlyField")
    assert not d.device.keyboard_shown
    d.type("hello")
    assert d.text("readOnlyField") == "This field cannot be edited"


def test_dark_switch_themes_the_app_not_the_device_and_lasts_across_screens(d):
    d.open("formBtn")
    assert d.device.frame().app_window.background == "#ffffff"
    d.tap("darkSwitch")
    assert d.text("formState").endswith("theme=dark")
    assert d.device.frame().app_window.background == "#141826"
    assert not d.device.night_mode  # the trap: the device is still light
    d.back()
    d.open("formBtn")
    assert d.text("formState") == "notify=false terms=false plan=free theme=dark"  # only dark outlives the screen


def test_the_app_ignores_the_system_night_mode(d):
    d.device.set_night_mode("yes")
    d.open("formBtn")
    assert d.text("formState").endswith("theme=light")
    assert d.device.frame().app_window.background == "#ffffff"


# ---------------------------------------------------------------------------------------------------------------
# Slider (t05)

def test_slider_reports_progress_in_its_own_units_and_snaps_drags_to_steps(d):
    d.open("sliderBtn")
    assert d.text("sliderState") == "volume: 50, balance: 0.50, changes: 0"
    vol = d.need("volumeSlider")
    assert vol["class"] == "android.widget.SeekBar" and vol["content-desc"] == "Volume" and vol["text"] == "5.0"
    assert d.text("balanceSlider") == "64.0"
    x1, y1, x2, y2 = bounds_of(vol)
    y = (y1 + y2) // 2
    d.swipe((x1 + x2) // 2, y, x1 + int((x2 - x1) * 0.72), y)
    assert d.text("sliderState") == "volume: 70, balance: 0.50, changes: 2"
    assert d.text("volumeSlider") == "7.0"
    d.tap_xy(x1 + 2, y)
    assert d.text("sliderState").startswith("volume: 0,")
    d.tap_xy(x2 - 2, y)
    assert d.text("sliderState").startswith("volume: 100,") and d.text("volumeSlider") == "10.0"
    bx1, by1, bx2, by2 = bounds_of(d.need("balanceSlider"))
    d.tap_xy(bx1 + int((bx2 - bx1) * 0.25), (by1 + by2) // 2)
    assert d.text("sliderState") == "volume: 100, balance: 0.25, changes: 5"


# ---------------------------------------------------------------------------------------------------------------
# Storage (t06)

def test_storage_count_survives_relaunch_and_pm_clear_wipes_it(d):
    d.open("storageBtn")
    assert (d.text("storedCount"), d.text("storedFile")) == ("stored: 0", "file: absent")
    d.tap("saveOneMoreBtn")
    d.tap("saveOneMoreBtn")
    assert (d.text("storedCount"), d.text("storedFile")) == ("stored: 2", "file: present")
    d.launch()
    d.open("storageBtn")
    assert d.text("storedCount") == "stored: 2"
    d.device.grant(APP, FINE)
    d.device.clear_data(APP)
    assert d.device.permission(APP, FINE) != "granted"
    d.device.start_activity(f"{APP}/.MainActivity")
    d.open("storageBtn")
    assert (d.text("storedCount"), d.text("storedFile")) == ("stored: 0", "file: absent")


# ---------------------------------------------------------------------------------------------------------------
# Pager (t07)

def test_card_8_is_off_screen_to_the_right_until_the_pager_is_swiped(d):
    d.open("pagerBtn")
    assert d.text("pagerTapped") == "tapped: none"
    assert d.text("pagerNote") == "Card 8 starts off screen to the right."
    assert d.find(desc="Card 1") is not None and d.find(desc="Card 8") is None
    d.swipe(540, 1800, 540, 600)  # a vertical scroll never reaches it
    assert d.find(desc="Card 8") is None
    card = d.scroll_to(desc="Card 8", direction="right", along="pager")
    x1, y1, x2, y2 = bounds_of(card)
    assert (x2 - x1, y2 - y1) == (682, 420)  # 260x160 dp
    d.tap(desc="Card 8")
    assert d.text("pagerTapped") == "tapped: Card 8"


# ---------------------------------------------------------------------------------------------------------------
# Feed (t08)

def test_feed_loads_two_more_pages_of_20_when_scrolled_to_the_end(d):
    d.open("feedBtn")
    assert d.text("feedState") == "rows: 20, idle, delay: 2500ms"
    assert d.find("feedRow20") is None  # not scrolled into view yet
    for expected_rows in (40, 60):
        # Paused from the swipe that starts the page: at 25x its 2.5 s last 0.1 s real, less than a few dumps take
        # on a loaded host, so a running clock could finish the page between seeing the spinner and the checks.
        with d.paused():
            for _ in range(20):
                d.swipe(540, 2000, 540, 700)
                if d.find("feedLoading") is not None:
                    break
            assert d.need("feedLoading")["content-desc"] == "Loading more"
            assert d.find(text=" Loading more…") is not None
            assert d.text("feedState").endswith(", loading, delay: 2500ms")
            before = [i for i in d.ids() if i.startswith("feedRow")]
            d.swipe(540, 2000, 540, 700)  # at the end while loading: nothing moves
            assert [i for i in d.ids() if i.startswith("feedRow")] == before
        d.wait(lambda: d.find("feedLoading") is None, 4, "the page")
        assert d.text("feedState").startswith(f"rows: {expected_rows}, ")
    assert d.text("feedState") == "rows: 60, end, delay: 2500ms"
    for _ in range(10):
        d.swipe(540, 2000, 540, 700)
    assert d.text("feedEnd") == "End of feed" and d.find("feedRow60") is not None
    assert d.find("feedLoading") is None and d.text("feedState") == "rows: 60, end, delay: 2500ms"
    d.tap("feedRow60")
    assert d.text("feedState") == "rows: 60, end, delay: 2500ms, tapped: Row 60"


def test_fast_feed_and_a_revisit_resets_it(d):
    d.open("feedBtn")
    d.tap("feedFast")
    assert d.text("feedState") == "rows: 20, idle, delay: 300ms"
    # Paused while swiping to the end: the 0.3 s page lasts 12 ms real, so on a running clock it can come and go
    # between two dumps, the loop swipes on past row 40 and starts the third page, and "rows: 40, idle" never shows.
    with d.paused():
        for _ in range(15):
            d.swipe(540, 2000, 540, 700)
            if d.find("feedLoading") is not None:
                break
        assert d.find("feedLoading") is not None, "no page started loading at the end of the list"
    d.wait(lambda: d.text("feedState").startswith("rows: 40, idle"), 2, "the fast page")
    d.back()
    d.open("feedBtn")
    assert d.text("feedState") == "rows: 20, idle, delay: 2500ms"


# ---------------------------------------------------------------------------------------------------------------
# Exact delays: a device clock at real speed, jumped forward to just before and just after each delay

def start_sign_in(d: Driver):
    d.open("loginBtn")
    sign_in(d, "mobium", "hunter2")
    return lambda: d.find("welcomeText") is not None


def start_late_alert(d: Driver):
    d.open("dialogsBtn")
    d.tap("lateAlertBtn")
    return lambda: d.dialog_up


def start_toast(d: Driver):
    d.open("obstructionBtn")
    d.scroll_to("toastTarget")
    d.tap("toastBtn")
    return lambda: d.find("toastCover") is None


def start_feed(delay_button: str):
    def start(d: Driver):
        d.open("feedBtn")
        d.tap(delay_button)
        for _ in range(20):
            d.swipe(540, 2000, 540, 700)
            if d.find("feedLoading") is not None:
                break
        return lambda: d.text("feedState").startswith("rows: 40")
    return start


def start_audio(d: Driver):
    d.open("audioBtn")
    d.tap("audioSequence")
    return lambda: d.text("audioState").startswith("finished: ")


@pytest.mark.parametrize("start, seconds", [
    (start_sign_in, 1.0), (start_late_alert, 2.0), (start_toast, 1.5), (start_feed("feedSlow"), 2.5),
    (start_feed("feedFast"), 0.3), (start_audio, 5.0),
], ids=["sign-in", "late-alert", "toast", "feed-page", "fast-feed-page", "audio-sequence"])
def test_each_delay_is_exact(start, seconds):
    d = Driver(speed=FROZEN)  # time moves only when the test advances it
    d.launch()
    happened = start(d)
    assert not happened()
    d.clock.advance(seconds - 0.05)
    assert not happened(), "too early"
    d.clock.advance(0.1)
    assert happened(), "too late"


# ---------------------------------------------------------------------------------------------------------------
# Busy (t09)

def test_quiet_refresh_leaves_stale_rows_then_the_new_generation_is_current(d):
    d.open("busyBtn")
    assert d.text("busyOutcome") == "nothing tapped yet"
    assert d.label("busyRowB") == "Row B · generation 1"
    assert d.need("busyRowB")["content-desc"] == ""
    t0 = d.device.now()
    with d.paused():
        d.tap("busyQuiet")
        d.tap("busyRowB")  # too early: the old rows are still up
        assert d.text("busyOutcome") == "row B, generation 1: stale"
    seen = d.wait(lambda: d.label("busyRowB") == "Row B · generation 2" and d.device.now(), 3, "generation 2")
    assert 0.4 <= seen - t0
    d.tap("busyRowB")
    assert d.text("busyOutcome") == "row B, generation 2: current"


@pytest.mark.parametrize("seed", range(6))
def test_refresh_delay_is_random_between_04_and_16_seconds(seed):
    d = Driver(speed=FROZEN, seed=seed)
    d.launch()
    d.open("busyBtn")
    t0 = d.device.now()
    d.tap("busyRefresh")
    assert d.find("busySpinner")["content-desc"] == "Loading" and d.find("busyRowA") is None
    due = d.device.next_timer()
    assert 0.4 <= due - t0 <= 1.6 + 1e-6
    d.clock.advance(due - d.device.now() - 0.01)
    assert d.find("busySpinner") is not None
    d.clock.advance(0.02)
    assert d.label("busyRowA") == "Row A · generation 2" and d.find("busySpinner") is None


def test_gray_box_launch_logs_busy_and_idle(d):
    d.launch({"MobiumGrayBox": True})
    d.open("busyBtn")
    d.tap("busyQuiet")
    d.wait(lambda: d.label("busyRowB") == "Row B · generation 2", 3, "generation 2")
    lines = [e.message for e in d.device.logs if e.tag == "MobiumGrayBox"]
    assert lines[0].startswith("MOBIUM-GRAYBOX on t=")
    assert any(line.startswith("MOBIUM-GRAYBOX busy=1 tag=quiet t=") for line in lines)
    assert lines[-1].startswith("MOBIUM-GRAYBOX busy=0 tag=quiet t=")


def test_busy_rows_sit_after_the_crash_button_and_leaving_keeps_the_app_busy(d):
    """App.tsx (Busy Demo): the rows come after busyCrash; the busy state is released only by the screen's own
    timers and buttons, so leaving with a refresh in flight leaves the gray box busy."""
    d.launch({"MobiumGrayBox": True})
    d.open("busyBtn")
    ids = [i for i in d.ids() if i.startswith("busy")]
    assert ids.index("busyCrash") < ids.index("busyRowA")
    with d.paused():
        d.tap("busyQuiet")
        d.back()
    d.clock.advance(3)
    lines = [e.message for e in d.device.logs if e.tag == "MobiumGrayBox"]
    assert lines[-1].startswith("MOBIUM-GRAYBOX busy=1 tag=quiet t=")


def test_a_normal_launch_is_silent_in_the_gray_box_tag(d):
    d.open("busyBtn")
    d.tap("busyQuiet")
    assert not [e for e in d.device.logs if e.tag == "MobiumGrayBox"]


# ---------------------------------------------------------------------------------------------------------------
# Dialogs (t10, t11, t16)

def test_three_button_alert_roles_and_outcomes(d):
    d.open("dialogsBtn")
    assert d.text("dialogOutcome") == "nothing yet"
    for caption, outcome in (("Save", "three-button: Save"), ("Cancel", "three-button: Cancel"),
                             ("Don't Save", "three-button: Don't Save")):
        d.tap("threeButtonBtn")
        assert d.text("android:id/alertTitle") == "Save this draft?"
        assert d.text("android:id/message") == "You can come back to it later."
        roles = {d.text(f"android:id/button{i}").lower(): i for i in (1, 2, 3)}
        assert roles == {"save": 1, "don't save": 2, "cancel": 3}
        d.tap(text=caption)
        assert d.text("dialogOutcome") == outcome


def test_one_and_two_button_alerts_and_the_ios_only_ones(d):
    d.open("dialogsBtn")
    d.tap("oneButtonBtn")
    d.tap("android:id/button1")
    assert d.text("dialogOutcome") == "one-button: OK"
    d.tap("twoButtonBtn")
    assert d.text("android:id/button2").lower() == "keep editing"
    d.tap("android:id/button1")
    assert d.text("dialogOutcome") == "two-button: Discard"
    d.tap("twoButtonBtn")
    d.tap_xy(540, 300)  # outside: an RN alert is not cancelable
    assert d.dialog_up
    d.tap("android:id/button2")
    assert d.text("dialogOutcome") == "two-button: Keep Editing"
    d.tap("actionSheetBtn")
    assert d.text("dialogOutcome") == "action sheet: none on android: ActionSheetIOS is iOS-only"
    d.tap("promptBtn")
    assert d.text("dialogOutcome") == "prompt: none on android: Alert.prompt is iOS-only"


def test_late_alert_comes_two_seconds_after_the_tap(d):
    d.open("dialogsBtn")
    t0 = d.device.now()
    with d.paused():
        d.tap("lateAlertBtn")
        assert d.text("dialogOutcome") == "late: waiting" and not d.dialog_up
    seen = d.wait(lambda: d.dialog_up and d.device.now(), 4, "the late alert")
    assert seen - t0 >= 2.0
    assert d.text("android:id/alertTitle") == "Session expiring"
    assert d.text("android:id/message") == "Stay signed in?"
    d.tap(text="Stay")
    assert d.text("dialogOutcome") == "late: Stay"


@pytest.mark.parametrize("answer, outcome, one_time", [
    ("While using the app", "location: granted", False),
    ("Only this time", "location: granted", True),
    ("Don\u2019t allow", "location: denied", None),
])
def test_location_permission_prompt(d, answer, outcome, one_time):
    d.open("dialogsBtn")
    d.scroll_to("locationBtn")
    d.tap("locationBtn")
    assert d.find(text="While using the app") and d.find(text="Only this time")
    d.tap(text=answer)
    d.scroll_to("dialogOutcome", direction="up")
    assert d.text("dialogOutcome") == outcome
    state = d.device.permission_states(APP)[FINE]
    if one_time is not None:
        assert state.granted and (("ONE_TIME" in state.flags) == one_time)


def test_camera_and_notification_prompts(d):
    d.open("dialogsBtn")
    d.scroll_to("cameraBtn")
    d.tap("cameraBtn")
    d.tap(text="Don\u2019t allow")
    d.scroll_to("notificationsBtn")
    d.tap("notificationsBtn")
    d.tap(text="Allow")
    d.scroll_to("dialogOutcome", direction="up")
    assert d.text("dialogOutcome") == "notifications: granted"
    d.scroll_to("cameraBtn")
    d.tap("cameraBtn")
    d.tap(text="Don\u2019t allow")
    d.scroll_to("dialogOutcome", direction="up")
    assert d.text("dialogOutcome") == "camera: denied"


def test_paste_reports_only_the_length(d):
    d.device.clipboard = "seeded by mobium"
    d.open("dialogsBtn")
    d.scroll_to("pasteBtn")
    d.tap("pasteBtn")
    d.scroll_to("dialogOutcome", direction="up")
    assert d.text("dialogOutcome") == "paste: 16 characters"


def test_the_keyboard_covers_the_pinned_button_until_it_is_hidden(d):
    d.open("dialogsBtn")
    pinned = d.need("coveredBtn")
    assert pinned["content-desc"] == "Pinned to the bottom"
    px1, py1, px2, py2 = bounds_of(pinned)
    assert py1 >= IME_TOP
    d.scroll_to("coverField")
    d.tap("coverField")
    assert d.device.keyboard_shown
    field = d.need("coverField")
    assert bounds_of(field)[3] <= IME_TOP  # the field itself stays above the keyboard
    assert d.find("coveredBtn") is None  # under the keyboard: left out of the dump
    d.type("milk and eggs")
    assert d.text("coverField") == "milk and eggs"
    d.tap_xy((px1 + px2) // 2, (py1 + py2) // 2)  # lands on the keyboard
    d.back()  # hides the keyboard, stays on the screen
    assert not d.device.keyboard_shown and d.find("coverField") is not None
    d.tap("coveredBtn")
    d.scroll_to("dialogOutcome", direction="up")
    assert d.text("dialogOutcome") == "pinned button: tapped"
    d.scroll_to("coverField")
    assert d.text("coverField") == "milk and eggs"


def test_save_password_form(d):
    d.open("dialogsBtn")
    d.scroll_to("saveSubmitBtn")
    d.tap("saveUser")
    d.type("anyone")
    d.back()
    d.tap("saveSubmitBtn")
    assert d.text("savedText") == "✓ Signed in. iOS may now offer to save the password."
    d.scroll_to("dialogOutcome", direction="up")
    assert d.text("dialogOutcome") == "save password: form submitted"


# ---------------------------------------------------------------------------------------------------------------
# Location and Interruption (t12)

def test_location_demo_asks_on_mount_and_while_in_use_gives_a_fix_without_one_time(d):
    d.open("locationBtn")
    assert d.dialog_up and d.find(text="Don\u2019t allow") is not None
    assert d.find(text="Allow all the time") is None
    d.tap(text="While using the app")
    assert d.text("coords") == "37.421998,-122.084000"
    assert d.need("coords")["content-desc"] == "coords 37.421998,-122.084000"
    first = int(d.text("fixCount").split()[1])
    d.wait(lambda: int(d.text("fixCount").split()[1]) > first, 2, "a second fix")
    assert d.find("locationError") is None
    state = d.device.permission_states(APP)[FINE]
    assert state.granted and "ONE_TIME" not in state.flags


def test_location_demo_denied(d):
    d.open("locationBtn")
    d.tap(text="Don\u2019t allow")
    assert d.text("locationError") == "permission denied: denied"
    assert d.text("coords") == "unknown" and d.text("fixCount") == "fixes 0"


def test_interruption_keeps_one_draft_and_rebuilds_the_other(d):
    d.open("popupBtn")
    assert d.text("permissionStatus") == "permission: not asked"
    d.tap("keptDraft")
    d.type("keep-1")
    d.tap("lostDraft")
    d.type("lose-1")
    d.back()
    d.tap("askPermission")
    d.tap(text="While using the app")
    assert d.text("permissionStatus") == "permission: granted"
    assert d.text("rebuildCount") == "rebuilds: 1"
    assert d.text("keptDraft") == "keep-1" and d.text("lostDraft") == "lost draft"


# ---------------------------------------------------------------------------------------------------------------
# Obstruction (t13, t14, t15)

def outcome(d: Driver) -> str:
    d.scroll_to("obstructionOutcome", direction="up")
    return d.text("obstructionOutcome")


@pytest.mark.parametrize("target, result", [
    ("fullTarget", "1: cover fullCover"),
    ("halfTarget", "1: cover halfCover"),
    ("edgeTarget", "1: target edgeTarget"),
    ("passTarget", "1: target passTarget"),
    ("plainTarget", "0: nothing yet"),
    ("hiddenTarget", "1: cover hidden overlay"),
    ("scrimTarget", "1: cover scrimCover"),
])
def test_a_tap_at_the_target_centre_reaches_what_is_on_top(d, target, result):
    d.open("obstructionBtn")
    assert d.text("obstructionOutcome") == "0: nothing yet"
    d.scroll_to(target)
    d.tap(target)
    assert outcome(d) == result


def test_covers_are_in_the_dump_with_their_labels(d):
    d.open("obstructionBtn")
    d.scroll_to("scrimTarget")
    ids = d.ids()
    for cover, label in (("passCover", "pass-through cover"), ("plainCover", "plain cover"),
                         ("scrimCover", "scrim")):
        if cover in ids:
            assert d.need(cover)["content-desc"] == label
    assert d.find(text="hidden overlay") is not None  # UiAutomator's full tree keeps it


def test_the_clear_part_of_a_half_covered_target_reaches_it(d):
    d.open("obstructionBtn")
    x1, y1, x2, y2 = bounds_of(d.scroll_to("halfTarget"))
    d.tap_xy(x1 + int((x2 - x1) * 0.8), (y1 + y2) // 2)
    assert outcome(d) == "1: target halfTarget"


def test_toast_covers_its_target_for_one_and_a_half_seconds(d):
    d.open("obstructionBtn")
    d.scroll_to("toastTarget")
    t0 = d.device.now()
    with d.paused():
        d.tap("toastBtn")
        assert d.need("toastCover")["content-desc"] == "toast"
        d.tap("toastTarget")  # too early
    d.scroll_to("toastTarget")
    gone = d.wait(lambda: d.find("toastCover") is None and d.device.now(), 3, "the toast to go")
    assert gone - t0 >= 1.5
    d.tap("toastTarget")
    assert outcome(d) == "2: target toastTarget"


# ---------------------------------------------------------------------------------------------------------------
# OTP (t17)

def send_code(d: Driver) -> str:
    d.tap("otpSend")
    note = d.device.notifications[0]
    assert note.package == APP and note.title == "MobiumApp"
    assert note.text.startswith("Your MobiumApp code is ")
    return note.text.rsplit(" ", 1)[1]


def test_code_arrives_as_a_notification_and_six_boxes_verify_it(d):
    d.device.grant(APP, NOTIFY)
    d.open("otpBtn")
    assert (d.text("otpOutcome"), d.text("otpExpires"), d.text("otpEntered")) == \
        ("no code sent", "no code", "entered: ______")
    assert d.need("otpSend")["content-desc"] == "Send code"
    code = send_code(d)
    assert len(code) == 6 and code.isdigit()
    assert d.text("otpOutcome") == "sent as a notification"
    send = d.need("otpSend")
    assert send["content-desc"].startswith("Resend in ") and send["enabled"] == "false"
    assert d.text("otpExpires").startswith("expires in ")
    for i, digit in enumerate(code):
        d.tap(f"otpBox{i}")
        d.type(digit)
    d.back()
    assert d.text("otpEntered") == f"entered: {code}"
    d.tap("otpVerifyBoxes")
    assert (d.text("otpOutcome"), d.text("otpExpires")) == ("verified", "used")
    d.tap("otpVerifyBoxes")
    assert d.text("otpOutcome") == "already used: send a new code"


def test_typing_the_whole_code_in_the_first_box_spreads_it_and_backspace_walks_back(d):
    d.device.grant(APP, NOTIFY)
    d.open("otpBtn")
    code = send_code(d)
    d.tap("otpBox0")
    d.type(code)
    assert d.text("otpEntered") == f"entered: {code}"
    assert d.device.focused_id == "otpBox5"
    d.key(67)  # clears box 5
    d.key(67)  # empty box: clears box 4 and moves there
    assert d.text("otpEntered") == f"entered: {code[:4]}__"
    assert d.device.focused_id == "otpBox4"


def test_without_notification_permission_the_prompt_comes_and_a_denial_says_so(d):
    d.open("otpBtn")
    d.tap("otpSend")
    assert d.find(text="Allow") is not None
    d.tap(text="Don\u2019t allow")
    assert d.text("otpOutcome") == "sent; notifications are off, so switch on the code below"
    assert not [n for n in d.device.notifications if n.package == APP]
    d.tap("otpShowCode")
    shown = d.text("otpCodeShown")
    assert shown.startswith("code: ") and len(shown) == 12


def test_wrong_codes_lock_and_the_code_expires_after_a_minute(d):
    d.device.grant(APP, NOTIFY)
    d.open("otpBtn")
    code = send_code(d)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    results = []
    for value in (wrong, wrong, wrong, code):
        x1, y1, x2, y2 = bounds_of(d.scroll_to("otpField"))
        d.tap("otpField")
        d.select_all()
        d.type(value)
        d.back()
        d.scroll_to("otpVerifyField")
        d.tap("otpVerifyField")
        d.scroll_to("otpOutcome", direction="up")
        results.append(d.text("otpOutcome"))
    assert results == ["wrong code, 2 attempts left", "wrong code, 1 attempt left", "locked: too many attempts",
                       "locked: too many attempts"]
    d.clock.advance(60)
    d.wait(lambda: d.text("otpExpires") == "expired", 2, "expiry")
    assert d.need("otpSend")["content-desc"] == "Resend code"


def test_an_incomplete_entry_and_a_fresh_screen(d):
    d.open("otpBtn")
    d.tap("otpVerifyField")
    assert d.text("otpOutcome") == "no code sent"
    d.device.grant(APP, NOTIFY)
    send_code(d)
    d.tap("otpBox0")
    d.type("12")
    d.back()
    d.tap("otpVerifyBoxes")
    assert d.text("otpOutcome") == "incomplete: 2 of 6 digits"
    d.back()
    d.open("otpBtn")
    assert d.text("otpOutcome") == "no code sent"


# ---------------------------------------------------------------------------------------------------------------
# Audio (t23), Crash

def test_the_sequence_plays_for_five_seconds_then_reports_finished(d):
    d.open("audioBtn")
    assert d.text("audioState") == "nothing played yet"
    t0 = d.device.now()
    with d.paused():
        d.tap("audioSequence")
        assert d.text("audioState") == "playing: 440 Hz 2 s, silence 1 s, 880 Hz 2 s (media)"
    done = d.wait_text("audioState", "finished: 440 Hz 2 s, silence 1 s, 880 Hz 2 s (media)", 7)
    assert done - t0 >= 5.0


def test_stop_and_a_new_sound_cut_the_old_one_off(d):
    """App.tsx: Stop reports `stopped: <old>`; a new sound started over a playing one leaves `playing: <new>` (the
    sound cut off resolves, but only the sound still playing may report)."""
    d.open("audioBtn")
    with d.paused():
        d.tap("audioLoop")
        d.tap("audioStop")
        assert d.text("audioState") == "stopped: 440 Hz until stopped (media)"
        d.tap("audioTone")
        d.tap("audioAlarm")
        assert d.text("audioState") == "playing: 660 Hz for 2 s (alarm)"
    d.wait_text("audioState", "finished: 660 Hz for 2 s (alarm)", 4)


def test_crash_demo_logs_then_kills_the_app(d):
    d.open("crashBtn")
    d.tap("logLineBtn")
    assert d.text("loggedCount") == "logged: 1"
    assert any(e.tag == "ReactNativeJS" and e.message == "mobium-log-control #1" for e in d.device.logs)
    d.tap("crashJsBtn")
    assert APP not in d.device.processes
    assert any(e.tag == "AndroidRuntime" and "FATAL EXCEPTION" in e.message for e in d.device.logs)


def test_files_demo_downloads_the_report_to_shared_storage(d):
    d.open("filesBtn")
    d.tap("saveReportBtn")
    assert d.text("savedFile") == "saved: Download/mobium-report.txt (44 bytes) \u2014 MobiumApp report 1"
    assert d.shell("cat /sdcard/Download/mobium-report.txt") == "MobiumApp report 1\nSaved by the Files Demo.\n"


def test_battery_demo_reads_the_device_every_second(d):
    d.device.battery_level = 42
    # A read a second is 40 ms real at 25x: a running clock lets a slow dump skip from "reads: 1" past "reads: 2".
    # Frozen, the clock moves by exactly the second the test hands it.
    with d.paused():
        d.open("batteryBtn")
        assert (d.text("batteryLevel"), d.text("batteryRaw")) == ("level: 42%", "raw: 0.42")
        assert d.need("batteryGauge")["content-desc"] == "Battery 42 percent, charging"
        assert d.text("batteryReads") == "reads: 1"
        d.clock.advance(1.0)
        assert d.text("batteryReads") == "reads: 2"


def test_dumpsys_audio_lists_the_player_while_it_plays_even_silence(d):
    d.open("audioBtn")
    with d.paused():
        d.tap("audioSilent")
        out = d.shell("dumpsys audio")
    line = next(ln for ln in out.splitlines() if "AudioPlaybackConfiguration" in ln)
    uid = d.device.packages[APP].uid
    assert f"u/pid:{uid}/" in line and "state:started" in line
    assert "usage=USAGE_MEDIA content=CONTENT_TYPE_SONIFICATION" in line
    d.wait_text("audioState", "finished: silence for 2 s (media)", 4)
    assert "AudioPlaybackConfiguration" not in d.shell("dumpsys audio")
    with d.paused():
        d.tap("audioAlarm")
        assert "usage=USAGE_ALARM" in d.shell("dumpsys audio")
        d.shell(f"am force-stop {APP}")
    assert "AudioPlaybackConfiguration" not in d.shell("dumpsys audio")


def luma_at(d: Driver, fx: float, fy: float) -> float:
    """mobium's dark-mode probe: the screenshot's pixel at (0.97, 0.85) of the screen."""
    import io

    from PIL import Image

    out, status = d.sh.run("screencap -p")
    assert status == 0
    img = Image.open(io.BytesIO(out.stdout())).convert("RGB")
    r, g, b = img.getpixel((int(img.width * fx), int(img.height * fy)))
    return 0.299 * r + 0.587 * g + 0.114 * b


def test_screenshot_follows_the_dark_switch_not_the_system_night_mode(d):
    d.open("formBtn")
    assert luma_at(d, 0.97, 0.85) > 200
    d.shell("cmd uimode night yes")
    assert luma_at(d, 0.97, 0.85) > 200  # userInterfaceStyle light: the app ignores it
    d.tap("darkSwitch")
    assert luma_at(d, 0.97, 0.85) < 60
    d.tap("darkSwitch")
    assert luma_at(d, 0.97, 0.85) > 200


def test_gesture_cases_tap_press_and_double_tap(d):
    d.open("gesturehubBtn")
    d.tap("tappressBtn")
    with d.paused():
        d.tap("pressTarget")
        d.clock.advance(0.25)
        d.tap("pressTarget")
    assert d.text("lastGesture") == "last: tap" and d.text("gestureCount") == "gestures: 2"
    assert d.text("tapGap") == "gap: 250ms tapCount: -1"  # Android's press event has no tapCount
    x1, y1, x2, y2 = bounds_of(d.need("pressTarget"))
    d.swipe((x1 + x2) // 2, (y1 + y2) // 2, (x1 + x2) // 2, (y1 + y2) // 2, 800)  # a held finger
    assert d.text("lastGesture") == "last: long press"
    d.back()
    d.tap("doubletapBtn")
    assert d.need("doubleTapWebview")["class"] == "android.webkit.WebView"
    with d.paused():
        d.tap("tap")
        d.clock.advance(0.1)
        d.tap("tap")
        d.clock.advance(1.0)
        d.tap("tap")
    assert d.text("taps") == "taps 3 / doubles 1"


def test_motion_honors_reduced_motion_only_in_its_honoring_panel(d):
    d.shell("settings put global transition_animation_scale 0")  # what React Native reads
    # Paused from the opening tap: the ignoring panel's slide is over in a few dumps' time at 25x on a loaded host.
    with d.paused():
        d.open("motionBtn")
        assert d.text("reduceMotion") == "reduceMotion=true"
        honoring, ignoring = bounds_of(d.need("honoringTarget")), bounds_of(d.need("ignoringTarget"))
        assert honoring[0] < ignoring[0]  # the ignoring target is still sliding in from the right
        d.tap("honoringTarget")
    assert d.text("honoringResult").startswith("Honoring: tapped ")
    d.wait(lambda: bounds_of(d.need("ignoringTarget"))[0] == honoring[0], 3, "the slide to end")
    d.tap("celebrateBtn")
    assert d.text("confettiState") == "confetti: still: reduce motion  \U0001F389 Done"


def test_accessibility_demo_reads_the_settings_and_counts_changes(d):
    d.open("a11yBtn")
    assert d.text("a11yState") == ("bold=false contrast=false grayscale=false invert=false motion=false "
                                   "transparency=false screenReader=false fontScale=1.00 changes=0")
    d.shell("settings put secure touch_exploration_enabled 1")
    # The screen reader's change event arrives live.
    assert d.text("a11yState").endswith("screenReader=true fontScale=1.00 changes=1")
    d.shell("settings put secure accessibility_display_inversion_enabled 1")
    assert "invert=false" in d.text("a11yState")  # no live invert event on Android
    d.tap("a11yRefresh")
    assert d.text("a11yState") == ("bold=false contrast=false grayscale=false invert=true motion=false "
                                   "transparency=false screenReader=true fontScale=1.00 changes=1")


def test_a_font_scale_change_recreates_the_app_on_its_home_screen(d):
    d.open("a11yBtn")
    d.shell("settings put system font_scale 1.3")
    # The activity is recreated: the app starts over on its menu, and the demo opened again reads the new scale.
    assert d.find("homeList") is not None and d.find("a11yState") is None
    d.open("a11yBtn")
    assert d.text("a11yState").endswith("fontScale=1.30 changes=0")
    d.shell("settings put system font_scale 1.3")  # the same value again is no change
    assert d.find("a11yState") is not None


def test_gray_box_restates_busy_every_half_second_while_polling():
    d = Driver(speed=FROZEN)
    d.launch({"MobiumGrayBox": True})
    d.open("busyBtn")
    d.scroll_to("busyPoll")
    d.tap("busyPoll")
    assert d.need("busyPoll")["content-desc"] == "Stop polling"
    d.clock.advance(1.2)
    d.tap("busyPoll")
    lines = [e.message.rsplit(" t=", 1)[0] for e in d.device.logs if e.tag == "MobiumGrayBox"]
    assert lines == ["MOBIUM-GRAYBOX on", "MOBIUM-GRAYBOX busy=1 tag=poll", "MOBIUM-GRAYBOX still busy=1",
                     "MOBIUM-GRAYBOX still busy=1", "MOBIUM-GRAYBOX busy=0 tag=poll"]


def test_a_grant_from_the_shell_closes_the_prompt_and_the_send_goes_through(d):
    """On Android the permission controller re-checks its group when a grant lands from elsewhere (`pm grant`, which
    is what Mobium's app_grant runs) and finishes the prompt with "granted"; Mobium's otp check grants while the
    prompt is up and then expects the code in the shade."""
    d.open("otpBtn")
    d.tap("otpSend")
    assert d.dialog_up
    d.shell(f"pm grant {APP} {NOTIFY}")
    assert not d.dialog_up
    assert d.find(text="Allow") is None
    note = d.device.notifications[0]
    assert note.package == APP and note.text.startswith("Your MobiumApp code is ")


def test_the_share_sheet_is_the_intent_resolver_in_front_and_back_returns_to_the_app(d):
    """MobiumApp's Share sheet button calls RN's Share.share, which brings Android's chooser
    (com.android.intentresolver) to the front (Mobium's dialogs check asserts `current` is it); once it closes the
    app writes `share: closed (android cannot tell shared from dismissed)`."""
    d.scroll_to("dialogsBtn")
    d.open("dialogsBtn")
    d.scroll_to("shareBtn")
    d.tap("shareBtn")
    assert d.device.current_activity().package.name == "com.android.intentresolver"
    d.back()
    assert d.device.current_activity().package.name == APP
    assert d.text("dialogOutcome") == "share: closed (android cannot tell shared from dismissed)"


@pytest.mark.parametrize("answer, one_time", [("While using the app", False), ("Only this time", True)])
def test_location_approximate_grants_the_coarse_permission_alone(d, answer, one_time):
    coarse = "android.permission.ACCESS_COARSE_LOCATION"
    d.open("locationBtn")
    d.tap(text="Approximate")
    assert d.need(text="Approximate")["checked"] == "true" and d.need(text="Precise")["checked"] == "false"
    d.tap(text=answer)
    states = d.device.permission_states(APP)
    assert not states[FINE].granted and "USER_SET" in states[FINE].flags
    assert states[coarse].granted and ("ONE_TIME" in states[coarse].flags) == one_time
    assert d.text("coords") != "unknown" and d.find("locationError") is None
