"""dialogs.sh: the Dialog Demo's alerts answered by `alert accept|dismiss` and by caption, a late alert, the
share sheet, a paste, `dialogs --when … --press …` rules carrying a tap through, and taps under a dialog or the
keyboard refused — each judged by the app's own `dialogOutcome`."""

from conformance_cli import APP, Flow

# The check's loops: a dialog is looked for eight times a second apart, and the app's outcome read once, after the
# check's pause (a second after an answer). dialogs.sh:106 reads the alert right after the late-alert tap and expects
# none yet: the app's 2 s run at the clock's own speed, as on a device.
LOOKS, APART_S = 8, 1.0
flow = Flow("dialogs.sh")
said: dict = {}


def fresh(m) -> None:
    m.run("alert", "dismiss")
    m.run("terminate", APP)
    m.ok("launch", APP)
    m.ok("tap", "label=Dialog Demo")


def raise_dialog(m, testid: str) -> None:
    m.ok("tap", f"testid={testid}")
    m.looks(LOOKS, APART_S, lambda: "a dialog is on screen" in m.run("alert").out, f"{testid} raised no dialog")


def outcome(m, want: str) -> None:
    """The check's outcome(): one read of what the app says it received."""
    m.run("scroll-to", "testid=dialogOutcome", "--direction", "up")
    got = m.value("text", "testid=dialogOutcome")
    assert got == want, f"the app received {got!r}, want {want!r}"


def verb(line: int, testid: str, action: str, want: str) -> None:
    @flow.step(line)
    def _(m):
        fresh(m)
        raise_dialog(m, testid)
        m.ok("alert", action)
        m.advance_clock(1)
        outcome(m, want)


def press(line: int, testid: str, caption: str, want: str) -> None:
    @flow.step(line)
    def _(m):
        fresh(m)
        raise_dialog(m, testid)
        m.ok("tap", f"text={caption},role=button")
        m.advance_clock(1)
        outcome(m, want)


verb(80, "oneButtonBtn", "accept", "one-button: OK")
verb(81, "oneButtonBtn", "dismiss", "one-button: OK")
verb(84, "twoButtonBtn", "dismiss", "two-button: Keep Editing")
verb(85, "twoButtonBtn", "accept", "two-button: Discard")
press(86, "twoButtonBtn", "Keep Editing", "two-button: Keep Editing")
verb(92, "threeButtonBtn", "dismiss", "three-button: Don't Save")
verb(93, "threeButtonBtn", "accept", "three-button: Save")
press(101, "threeButtonBtn", "Cancel", "three-button: Cancel")


@flow.step(106)
def _(m):
    fresh(m)
    m.ok("tap", "testid=lateAlertBtn")
    assert "no dialog is on screen" in m.run("alert").out, "the late alert came at once"


@flow.step(107)
def _(m):
    m.looks(LOOKS, APART_S, lambda: "Session expiring" in m.run("alert").out, "the late alert never came")


@flow.step(108)
def _(m):
    m.ok("tap", "text=Stay,role=button")
    m.advance_clock(1)
    outcome(m, "late: Stay")


@flow.step(119)
def _(m):
    fresh(m)
    m.ok("tap", "testid=actionSheetBtn")
    m.advance_clock(1)
    outcome(m, "action sheet: none on android: ActionSheetIOS is iOS-only")


@flow.step(128)
def _(m):
    fresh(m)
    m.ok("tap", "testid=shareBtn")
    m.advance_clock(3)
    assert "no dialog is on screen" in m.run("alert").out, "the share sheet was seen as an alert"


@flow.step(130)
def _(m):
    assert m.value("current") == "com.android.intentresolver"


@flow.step(140)
def _(m):
    m.ok("press", "back")
    m.advance_clock(2)
    outcome(m, "share: closed (android cannot tell shared from dismissed)")


@flow.step(173)
def _(m):
    m.ok("clipboard", "seeded by mobium")


@flow.step(181)
def _(m):
    fresh(m)
    m.ok("wait", "testid=dialogOutcome")
    m.ok("scroll-to", "testid=pasteBtn")
    m.ok("tap", "testid=pasteBtn")
    m.advance_clock(1)
    assert "no dialog" in m.run("alert").out, "Android asked before a paste"


@flow.step(182)
def _(m):
    outcome(m, f"paste: {len('seeded by mobium')} characters")


@flow.step(193)
def _(m):
    m.ok("dialogs", "--clear")
    m.ok("dialogs", "--when", "Discard changes", "--press", "Keep Editing")
    fresh(m)
    raise_dialog(m, "twoButtonBtn")
    ran = m.run("tap", "testid=oneButtonBtn")
    assert ran.rc == 0, f"the rule did not carry the tap through: {ran.both}"
    assert '"Discard changes?" — pressed "Keep Editing"' in ran.both, ran.both


@flow.step(195)
def _(m):
    m.looks(LOOKS, APART_S, lambda: "Saved" in m.run("alert").out, "the tap after the rule never raised its own alert")


@flow.step(196)
def _(m):
    m.ok("alert", "accept")
    m.advance_clock(1)
    outcome(m, "one-button: OK")


@flow.step(197)
def _(m):
    assert "answered 1" in m.ok("dialogs").out


@flow.step(204)
def _(m):
    m.ok("dialogs", "--when", "Discard changes", "--press", "Delete")
    fresh(m)
    raise_dialog(m, "twoButtonBtn")
    ran = m.fails("tap", "testid=oneButtonBtn")
    assert "keep editing" in ran.both.lower(), ran.both


@flow.step(212)
def _(m):
    m.ok("dialogs", "--clear")
    fresh(m)
    raise_dialog(m, "twoButtonBtn")
    ran = m.fails("tap", "testid=backBtn")
    assert "a dialog is over the app" in ran.both, ran.both


@flow.step(214)
def _(m):
    m.ok("tap", "text=Keep Editing,role=button")


@flow.step(225)
def _(m):
    fresh(m)
    m.ok("scroll-to", "testid=coverField")
    m.ok("tap", "testid=coverField")
    m.advance_clock(1)
    assert '"shown": true' in m.run("keyboard", "--json").out


@flow.step(233)
def _(m):
    region = m.adb_shell("dumpsys window InputMethod")
    assert "touchable region=SkRegion(" in region and "isVisible=true" in region, region[:400]


@flow.step(247)
def _(m):
    ran = m.fails("tap", "testid=coveredBtn")
    assert "keyboard" in ran.both, ran.both


@flow.step(251)
def _(m):
    m.ok("keyboard", "--hide")
    m.advance_clock(1)
    m.ok("tap", "testid=coveredBtn")
    outcome(m, "pinned button: tapped")
    m.run("terminate", APP)


test_dialogs = flow.test()
