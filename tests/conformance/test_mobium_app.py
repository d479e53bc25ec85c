"""mobium-app.sh: MobiumApp's tour — WebView contexts and a tap inside one, a password never mapped, injected
location, a pager scrolled sideways, the clipboard, a permission popup that rebuilds the screen, app alerts, and the
Form Demo's checkboxes, radios and switch as map lines and check/uncheck answers."""

import json
import os
import re

from conformance_cli import APP, Flow

# A route of a few hundred metres along the Seine, long enough at 40 m/s to be sampled twice while it runs.
ROUTE_GPX = """<?xml version="1.0"?>
<gpx version="1.1" creator="conformance" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
<trkpt lat="48.8566" lon="2.3522"/><trkpt lat="48.8580" lon="2.3400"/><trkpt lat="48.8600" lon="2.3300"/>
<trkpt lat="48.8620" lon="2.3200"/><trkpt lat="48.8640" lon="2.3100"/></trkseg></trk></gpx>
"""
flow = Flow("mobium-app.sh")
seen: dict = {}
KEEP, LOSE = "kept across the popup", "lost across the popup"
CARD = "label=Card 8"
ALLOW = "While using the app"   # Android's caption for a location grant


def ref(m, label: str) -> str:
    ran = m.run("map", "--json")
    try:
        elements = json.loads(ran.out)["elements"]
    except (ValueError, KeyError):
        raise AssertionError(f"ref {label}: map gave no elements: {ran.both[:300]}") from None
    for e in elements:
        if (e.get("label") or "") == label:
            return e["ref"]
    raise AssertionError(f"ref {label}: not on the screen: {[e.get('label') for e in elements]}")


def app_contexts(m) -> list[str]:
    want = f"WEBVIEW_{APP}"
    out = []
    for line in m.value("contexts").splitlines():
        first = line.split()[0] if line.split() else ""
        if first == want or re.fullmatch(re.escape(want) + r"_\d+", first):
            out.append(first)
    return out


def read_text(m) -> str:
    """The check's readText: a read that came back empty is retried, 20 looks a second apart; a screen that is
    wrong is not (the caller asserts on the one read that produced something)."""
    holder: dict = {}

    def some() -> bool:
        holder["t"] = m.value("text")
        return bool(holder["t"])
    m.looks(20, 1.0, some, "the screen could not be read at all")
    return holder["t"]


def settle(m) -> None:
    """The check's settle: 20 maps a second apart, until one can be read."""
    m.looks(20, 1.0, lambda: m.run("map").rc == 0, "the screen never stopped moving")


def dialog_up(m) -> bool:
    return "a dialog is on screen" in m.run("alert").out.lower()


def coords(m) -> str:
    found = re.search(r"[0-9-]+\.[0-9]{6},-?[0-9]+\.[0-9]{6}", m.value("text"))
    return found.group(0) if found else ""


def back_then(m, demo: str) -> None:
    """The check's `tap Back; sleep 1; tap <demo>; sleep 2`."""
    m.run("tap", "label=Back")
    m.advance_clock(1)
    # The home list is longer than the screen: a demo below the fold is scrolled to before its ref is read.
    m.ok("scroll-to", f"label={demo}")
    m.ok("tap", ref(m, demo))
    m.advance_clock(2)


@flow.step(179)
def _(m):
    assert APP in m.ok("apps").both


@flow.step(197)
def _(m):
    m.ok("daemon", "stop")
    m.run("alert", "dismiss")
    m.fresh_start()
    m.advance_clock(2)
    assert "WebViews" in m.value("map")


@flow.step(205)
def _(m):
    m.ok("tap", ref(m, "WebViews"))
    m.advance_clock(1)
    m.ok("tap", ref(m, "Plain page"))
    m.advance_clock(3)
    contexts = app_contexts(m)
    assert contexts, f"no WebView context: {m.run('contexts').both}"
    seen["ctx"] = contexts[0]


@flow.step(215)
def _(m):
    m.ok("context", seen["ctx"])
    assert "quick brown fox" in m.value("text")


@flow.step(217)
def _(m):
    assert "Learn more" in m.value("map")


@flow.step(225)
def _(m):
    href = m.ok("eval", "document.querySelector('a#link') && document.querySelector('a#link').href").value
    assert href.strip('"'), href


@flow.step(230)
def _(m):
    assert m.ok("eval", "document.querySelector('a#link').tagName").value.strip('"') == "A"


@flow.step(242)
def _(m):
    elements = m.json("map", "--json")["elements"]
    link = next(e["ref"] for e in elements if "Learn more" in (e.get("label") or ""))
    m.ok("tap", link)


@flow.step(289)
def _(m):
    m.ok("context", "NATIVE_APP")
    m.ok("tap", ref(m, "Back"))
    m.advance_clock(2)
    m.ok("tap", ref(m, "Two WebViews"))
    m.advance_clock(3)
    n = len(app_contexts(m))
    assert n >= 2, f"expected 2 WebView contexts in one app, got {n}"


@flow.step(302)
def _(m):
    m.ok("tap", ref(m, "Back"))
    m.advance_clock(2)
    m.ok("tap", ref(m, "Back"))   # the list, then home
    m.advance_clock(2)
    m.ok("tap", ref(m, "Login Demo"))
    m.advance_clock(2)
    m.ok("type", ref(m, "password"), "hunter2")
    assert "hunter2" not in m.value("map")


@flow.step(324)
def _(m):
    back_then(m, "Location Demo")
    for label in ("Allow While Using App", "While using the app"):
        if label in m.value("map"):
            if m.run("tap", f"label={label}").rc != 0:
                m.run("tap", f"text={label}")
            break
    m.advance_clock(3)


@flow.step(348)
def _(m):
    def placed() -> bool:
        m.ok("location", "--lat", "48.8566", "--lon", "2.3522")
        m.advance_clock(2)
        return coords(m) == "48.856600,2.352200"
    m.looks(6, 0, placed, "the app does not see the injected position")


@flow.step(367)
def _(m):
    gpx = os.path.join(m.env["MOBIUM_HOME"], "route.gpx")
    with open(gpx, "w") as f:
        f.write(ROUTE_GPX)
    m.ok("location", "--gpx", gpx, "--speed", "40")
    # Mobium steps the route on the host's clock, once a second, which the device's cannot drive: the check's
    # `sleep 4; A; sleep 5; B` as a move seen within its 9 s.
    a = coords(m)
    m.until(lambda: coords(m) not in ("", a), f"the position did not move during a route (stuck at {a})", 9.0)


@flow.step(387)
def _(m):
    m.ok("location", "--clear")
    m.advance_clock(5)
    c = coords(m)
    m.advance_clock(5)
    d = coords(m)
    assert c == d, f"the position is still moving after a clear ({c} -> {d})"


@flow.step(403)
def _(m):
    back_then(m, "Pager Demo")
    assert "Card 1" in m.value("map")


@flow.step(404)
def _(m):
    assert "Card 8" not in m.value("map")


@flow.step(415)
def _(m):
    assert "Card 8" in m.ok("scroll-to", CARD, "--direction", "right").out


@flow.step(423)
def _(m):
    m.ok("tap", CARD)
    m.advance_clock(1)
    assert "tapped: Card 8" in m.value("text")


@flow.step(430)
def _(m):
    back_then(m, "Pager Demo")
    m.fails("scroll-to", CARD, "--direction", "down")


@flow.step(450)
def _(m):
    settle(m)   # the pager
    settle(m)   # leaving the pager


@flow.step(462)
def _(m):
    m.ok("clipboard", "seeded by mobium")


@flow.step(463)
def _(m):
    assert "cannot read the clipboard" in m.run("clipboard").both


@flow.step(470)
def _(m):
    back_then(m, "Login Demo")
    m.ok("tap", ref(m, "username"))
    m.advance_clock(1)
    m.adb_shell("input keyevent 279")
    m.advance_clock(2)
    assert "seeded by mobium" in read_text(m)


@flow.step(504)
def _(m):
    m.run("reset-permissions")
    m.fresh_start()
    m.advance_clock(2)
    m.ok("tap", ref(m, "Interruption Demo"))
    m.advance_clock(2)
    m.ok("type", "testid=keptDraft", KEEP)
    m.ok("type", "testid=lostDraft", LOSE)
    m.advance_clock(1)
    assert KEEP in read_text(m), "the kept draft did not take the text"
    assert LOSE in read_text(m), "the lost draft did not take the text"


@flow.step(520)
def _(m):
    m.ok("tap", "testid=askPermission")
    m.advance_clock(3)
    assert dialog_up(m), "no system permission dialog appeared after asking"


@flow.step(541)
def _(m):
    if m.run("tap", f"label={ALLOW}").rc != 0:
        m.ok("tap", f"text={ALLOW}")
    m.advance_clock(3)
    assert "no dialog" in m.run("alert").out.lower(), "the permission dialog is still on screen"


@flow.step(546)
def _(m):
    assert "rebuilds: 1" in read_text(m), "the screen never rebuilt, so nothing was interrupted"


@flow.step(551)
def _(m):
    assert KEEP in read_text(m), "the kept draft lost its text across the popup"


@flow.step(558)
def _(m):
    assert LOSE not in read_text(m), "the volatile draft survived, so this check cannot detect state loss"


def alert_outcome(line: int, action: str, want: str, first: bool = False) -> None:
    @flow.step(line)
    def _(m):
        if first:
            back_then(m, "Dialog Demo")
        m.ok("tap", "testid=twoButtonBtn")
        m.advance_clock(2)
        if first:  # the check looks for the alert before its accept, not before its dismiss
            assert dialog_up(m), "the app's own alert was not seen"
        m.ok("alert", action)
        m.advance_clock(2)
        assert want in read_text(m), f"{action} did not give {want!r}"


alert_outcome(578, "accept", "two-button: Discard", first=True)
alert_outcome(584, "dismiss", "two-button: Keep Editing")


@flow.step(601)
def _(m):
    m.ok("tap", "testid=promptBtn")
    m.advance_clock(2)
    assert "iOS-only" in read_text(m), "the app did not say that a prompt is unavailable on Android"


@flow.step(604)
def _(m):
    m.ok("tap", "testid=twoButtonBtn")
    m.advance_clock(2)
    assert "cannot type into a dialog" in m.run("alert", "--text", "nope").both.lower()
    m.run("alert", "dismiss")


def maps(line: int, want: str, **kw) -> None:
    @flow.step(line, **kw)
    def _(m):
        assert want in m.value("map"), m.value("map")


@flow.step(618)
def _(m):
    back_then(m, "Form Demo")
    assert "Email me (checkbox, unchecked)" in m.value("map")


maps(620, "Free (radio, checked)")
maps(629, "Dark mode (switch")


@flow.step(635)
def _(m):
    assert m.run("find", "role=checkbox").out.count("checkbox") >= 2


@flow.step(642)
def _(m):
    m.ok("tap", "testid=notifyCheck")
    m.advance_clock(2)
    assert "Email me (checkbox, checked)" in m.value("map")


@flow.step(644)
def _(m):
    assert "notify=true" in read_text(m)


@flow.step(650)
def _(m):
    m.ok("tap", "testid=planPro")
    m.advance_clock(2)
    assert "Pro (radio, checked)" in m.value("map")


maps(651, "Free (radio, unchecked)")


def says(line: int, words: tuple, want: str) -> None:
    @flow.step(line)
    def _(m):
        assert want in m.run(*words).both


says(657, ("check", "testid=termsCheck"), "is now checked")
says(658, ("check", "testid=termsCheck"), "is already checked")
maps(660, "Accept terms (checkbox, checked)")
says(664, ("uncheck", "testid=termsCheck"), "is now unchecked")
says(665, ("uncheck", "testid=termsCheck"), "is already unchecked")
says(672, ("check", "testid=backBtn"), "no checked state")
says(674, ("uncheck", "testid=planFree"), "cannot be unchecked")


@flow.step(690)
def _(m):
    m.ok("check", "testid=darkSwitch")
    m.advance_clock(1)
    assert "Dark mode (switch, checked)" in m.value("map")


@flow.step(691)
def _(m):
    assert "theme=dark" in read_text(m)


def luma(m) -> int:
    """mobium-app.sh's luma(): the screenshot's luminance at (0.97, 0.85), as pixel.py reads it."""
    from PIL import Image

    shot = os.path.join(m.env["MOBIUM_HOME"], "shot.png")
    m.ok("screenshot", "-o", shot)
    with Image.open(shot) as img:
        r, g, b = img.convert("RGB").getpixel((int(img.width * 0.97), int(img.height * 0.85)))
    return round(0.299 * r + 0.587 * g + 0.114 * b)


@flow.step(692)
def _(m):
    assert luma(m) < 60, "the app says theme=dark and the screen is not dark"


@flow.step(695)
def _(m):
    m.ok("uncheck", "testid=darkSwitch")
    m.advance_clock(1)
    assert "theme=light" in read_text(m)


@flow.step(696)
def _(m):
    assert luma(m) > 200, "the app says theme=light and the screen is not light"
test_mobium_app = flow.test()
