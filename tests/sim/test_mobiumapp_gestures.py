"""The Gestures cases and the Motion Demo driven over the device's shell as Android delivers input: `input
motionevent` with the clock held between events, `input swipe` streamed move by move; each case's own outcome
line is read back from the dump."""

from __future__ import annotations

import re

import pytest
from mobiumapp_harness import Driver, bounds_of


@pytest.fixture
def d():
    driver = Driver()
    driver.launch()
    return driver


def centre(box):
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def open_case(d, button: str) -> None:
    d.open("gesturehubBtn")
    d.tap(button)


def held_drag(d, start, end, hold_s: float, duration_s: float, steps: int = 7) -> None:
    """Mobium's drag chain: press, hold, moves spread over the duration, hold, release."""
    (sx, sy), (ex, ey) = start, end
    with d.paused():
        d.shell(f"input motionevent DOWN {sx} {sy}")
        d.clock.advance(hold_s)
        for i in range(1, steps + 1):
            d.shell(f"input motionevent MOVE {sx + (ex - sx) * i // steps} {sy + (ey - sy) * i // steps}")
            if i < steps:
                d.clock.advance(duration_s / steps)
        d.clock.advance(hold_s)
        d.shell(f"input motionevent UP {ex} {ey}")


def test_a_held_drag_reports_its_holds_and_lands_in_the_zone(d):
    open_case(d, "dragBtn")
    assert d.text("lastDrag") == "drag: no drag yet"
    source, zone = centre(bounds_of(d.need("dragSource"))), centre(bounds_of(d.need("dropZone")))
    held_drag(d, source, zone, 0.7, 0.8)
    assert d.text("lastDrag") == "drag: holdBefore 700 moves 7 travel 134 holdAfter 700 dropped yes"


def test_a_swipe_has_no_holds_and_a_release_above_the_zone_is_not_a_drop(d):
    open_case(d, "dragBtn")
    source, zone = centre(bounds_of(d.need("dragSource"))), centre(bounds_of(d.need("dropZone")))
    d.swipe(*source, *zone, 800)
    m = re.fullmatch(r"drag: holdBefore (\d+) moves (\d+) travel 134 holdAfter (\d+) dropped yes", d.text("lastDrag"))
    assert m and int(m[1]) < 100 and int(m[2]) >= 5 and int(m[3]) < 200
    held_drag(d, source, (source[0], source[1] - 100), 0.6, 0.4)
    assert d.text("lastDrag").endswith("holdAfter 600 dropped no")
    d.tap("dragSource")
    assert d.text("lastDrag") == "drag: holdBefore -1 moves 0 travel 0 holdAfter -1 dropped no"


def test_a_quick_swipe_flicks_and_a_slow_one_pans(d):
    open_case(d, "flickBtn")
    assert (d.text("flickResult"), d.text("flickCount")) == ("scroll: nothing yet", "lifts: 0")
    box = bounds_of(d.need("flickList"))
    x, h = (box[0] + box[2]) // 2, box[3] - box[1]
    d.swipe(x, box[1] + 3 * h // 4, x, box[1] + h // 4, 120)
    flick = d.wait(lambda: re.fullmatch(r"scroll: flick, coasted (\d+)", d.text("flickResult")), 3, "a flick")
    assert int(flick[1]) > 1000 and d.text("flickCount") == "lifts: 1"
    d.swipe(x, box[1] + 3 * h // 4, x, box[1] + h // 4, 2500)
    pan = d.wait(lambda: d.text("flickCount") == "lifts: 2"
                 and re.fullmatch(r"scroll: pan, coasted (\d+)", d.text("flickResult")), 5, "a pan")
    assert int(pan[1]) < 20


def test_the_flick_list_scrolls_to_its_last_row(d):
    open_case(d, "flickBtn")
    box = bounds_of(d.need("flickList"))
    x, h = (box[0] + box[2]) // 2, box[3] - box[1]
    for _ in range(6):
        d.swipe(x, box[1] + 3 * h // 4, x, box[1] + h // 4, 120)
        d.clock.advance(3)
    assert d.find(text="Row 120") is not None and d.find(text="Row 1") is None


def test_tap_and_press_long_press_threshold_and_android_tap_count(d):
    open_case(d, "tappressBtn")
    x, y = centre(bounds_of(d.need("pressTarget")))
    d.swipe(x, y, x, y, 50)
    assert d.text("lastGesture") == "last: tap"
    d.swipe(x, y, x, y, 800)
    assert d.text("lastGesture") == "last: long press" and d.text("gestureCount") == "gestures: 2"
    assert d.text("tapGap") == "gap: -1ms tapCount: -1"


def test_double_tap_page_counts_clicks_and_doubles(d):
    open_case(d, "doubletapBtn")
    with d.paused():
        d.tap("tap")
        d.clock.advance(0.12)
        d.tap("tap")
    page = d.device.current_app().web_pages()["doubleTapWebview"]
    assert page.evaluate("tapCounts()") == {"clicks": 2, "doubles": 1}


def test_exposed_confetti_never_holds_still_and_finishes_after_twelve_seconds():
    d = Driver(speed=1e-6)
    d.launch()
    d.open("motionBtn")
    assert d.text("confettiState") == "confetti: idle"
    d.tap("confettiExposed")
    d.tap("celebrateBtn")
    d.clock.advance(3)
    first = d.need("confetti0")["bounds"]
    d.clock.advance(0.1)
    assert d.find("confetti0") is None or d.find("confetti0")["bounds"] != first
    assert d.text("confettiState") == "confetti: falling"
    d.clock.advance(9.2)
    d.device.run_due()
    assert d.text("confettiState") == "confetti: done"


def test_hidden_confetti_is_not_in_the_dump_and_lands_in_three_seconds(d):
    d.open("motionBtn")
    with d.paused():
        d.tap("celebrateBtn")
        d.clock.advance(1.5)
        assert not [n for n in d.dump() if re.fullmatch(r"confetti\d+", n["resource-id"])]
        d.clock.advance(1.8)
        d.device.run_due()
    assert d.text("confettiState") == "confetti: done"


def touch(d, frames):
    """frames: [(seconds before it, {slot: (x, y) or None})] written as the touchscreen's type B events."""
    ids = {}
    with d.paused():
        for wait, fingers in frames:
            d.clock.advance(wait)
            for slot, at in fingers.items():
                d.shell(f"sendevent /dev/input/event1 3 47 {slot}")
                if at is None:
                    d.shell("sendevent /dev/input/event1 3 57 -1")
                    continue
                if slot not in ids:
                    ids[slot] = 100 + slot
                    d.shell(f"sendevent /dev/input/event1 3 57 {ids[slot]}")
                d.shell(f"sendevent /dev/input/event1 3 53 {at[0]}")
                d.shell(f"sendevent /dev/input/event1 3 54 {at[1]}")
            d.shell("sendevent /dev/input/event1 0 0 0")


def test_the_touchscreen_lists_its_slots(d):
    out = d.shell("getevent -pl")
    assert "add device 1: /dev/input/event1" in out and "ABS_MT_SLOT" in out and "max 1079" in out


def test_multi_touch_tells_a_two_finger_tap_from_a_press_and_tap(d):
    open_case(d, "multitouchBtn")
    assert d.text("multiResult") == "multi: nothing yet"
    x, y = centre(bounds_of(d.need("tapZone")))
    touch(d, [(0, {0: (x - 54, y), 1: (x + 54, y)}), (0.08, {0: None, 1: None})])
    assert d.text("multiResult") == "multi: 2-finger tap"
    assert d.text("multiDetail") == "fingers: [0-80 moved 0] [0-80 moved 0]"
    hold, act = centre(bounds_of(d.need("holdZone"))), centre(bounds_of(d.need("actZone")))
    touch(d, [(0, {0: hold}), (0.3, {1: act}), (0.08, {1: None}), (0.12, {0: None})])
    assert d.text("multiResult") == "multi: press and tap, lead 300ms, second moved 0, first moved 0, held 500ms"
    assert d.text("multiEvents").startswith("events: down 0(") and ", up 1(" in d.text("multiEvents")
    d.tap("tapZone")
    assert d.text("multiResult") == "multi: one finger, moved 0, held 50ms"
