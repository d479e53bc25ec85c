"""Dialog Demo (t10, t11, t16), Location Demo and Interruption Demo (t12), OTP Demo (t17), Audio Demo (t23)."""

from __future__ import annotations

import math

from ...views import Node
from .screen import CAMERA, COARSE, FINE, NOTIFICATIONS, Screen
from .ui import CONTENT_HEIGHT_DP, PAD, Theme, back_btn, btn, field, h1, note, page, switch, text

# --------------------------------------------------------------------------------------------------------------
# Dialog Demo

LATE_ALERT_S = 2.0
PINNED_DP = 12 + 61 + 12  # the pinned View: padding, coveredBtn with its margin, padding
TOP_DP = 12 + 61 + 12


class Dialogs(Screen):
    key = "dialogs"

    def __init__(self, app):
        super().__init__(app)
        self.outcome = "nothing yet"
        self.cover_text = ""
        self.save_user = ""
        self.save_pass = ""
        self.saved = False

    def _set(self, value: str) -> None:
        self.outcome = value

    def alert(self, kind: str, title: str, message: str, buttons) -> None:
        """RN `Alert.alert` on Android: buttons are (caption, role); pressing one writes `<kind>: <caption>`."""
        self.device.show_dialog(title, message, [
            (caption, role, (lambda c=caption: self._set(f"{kind}: {c}"))) for caption, role in buttons
        ], self.app.package, cancelable=False)

    def one(self) -> None:
        self.alert("one-button", "Saved", "Your changes were saved.", [("OK", "positive")])

    def two(self) -> None:
        self.alert("two-button", "Discard changes?", "They will be lost.",
                   [("Keep Editing", "negative"), ("Discard", "positive")])

    def three(self) -> None:
        # RN's Android mapping for three buttons: neutral, negative, positive (Cancel is drawn at the far left).
        self.alert("three-button", "Save this draft?", "You can come back to it later.",
                   [("Cancel", "neutral"), ("Don't Save", "negative"), ("Save", "positive")])

    def late(self) -> None:
        self.outcome = "late: waiting"
        self.after(LATE_ALERT_S, lambda: self.alert("late", "Session expiring", "Stay signed in?",
                                                    [("Sign Out", "negative"), ("Stay", "positive")]))

    def ask(self, kind: str, perms: list[str]) -> None:
        def answered(results: dict) -> None:
            granted = any(results.get(p) == "granted" for p in perms)
            if granted:
                self.outcome = f"{kind}: granted"
            elif all(results.get(p) == "undetermined" for p in perms):
                self.outcome = f"{kind}: undetermined"
            else:
                self.outcome = f"{kind}: denied"

        self.device.request_permissions(self.app.package, perms, answered)

    def share(self) -> None:
        # RN's Share.share opens Android's chooser (com.android.intentresolver) in front of the app; Android
        # reports the same thing whether something was shared or not, once the chooser closes.
        self.device.start_activity("com.android.intentresolver/com.android.intentresolver.ChooserActivity",
                                   {"android.intent.extra.TEXT": "Shared from MobiumApp",
                                    "on_close": lambda: self._set("share: closed (android cannot tell shared from "
                                                                  "dismissed)")})

    def paste(self) -> None:
        clip = self.device.clipboard or ""
        # The length in JS string units (UTF-16), never the content.
        n = len(clip.encode("utf-16-le")) // 2
        self.outcome = f"paste: {n} characters" if n else "paste: empty, or not allowed"

    def submit_saved(self) -> None:
        self.save_pass = ""
        self.saved = True
        self.outcome = "save password: form submitted"

    def reset_saved(self) -> None:
        self.saved = False

    def cover_typed(self, value: str) -> None:
        self.cover_text = value

    def render(self, t: Theme) -> Node:
        body = [
            h1(t, "Dialogs"),
            note(t, "Each button raises a dialog. Answer it, and the line below says what the app received."),
            text(t, self.outcome, "dialogOutcome"),
            text(t, "The app's own", muted=True),
            btn(t, "oneButtonBtn", "One-button alert", self.one),
            btn(t, "twoButtonBtn", "Two-button alert", self.two),
            btn(t, "threeButtonBtn", "Three-button alert", self.three),
            btn(t, "lateAlertBtn", "Alert in 2 seconds", self.late),
            btn(t, "actionSheetBtn", "Action sheet",
                lambda: self._set("action sheet: none on android: ActionSheetIOS is iOS-only")),
            btn(t, "promptBtn", "Prompt with a text field",
                lambda: self._set("prompt: none on android: Alert.prompt is iOS-only")),
            text(t, "The system's", muted=True),
            btn(t, "shareBtn", "Share sheet", self.share),
            btn(t, "locationBtn", "Location permission", lambda: self.ask("location", [FINE, COARSE])),
            btn(t, "notificationsBtn", "Notification permission",
                lambda: self.ask("notifications", [NOTIFICATIONS])),
            btn(t, "cameraBtn", "Camera permission", lambda: self.ask("camera", [CAMERA])),
            btn(t, "trackingBtn", "Tracking permission (App Tracking Transparency)",
                lambda: self._set("tracking: none on android: App Tracking Transparency is Apple's")),
            btn(t, "pasteBtn", "Paste from the clipboard", self.paste),
            note(t, "An app that crashes twice gets Android's \"keeps stopping\" dialog: crash the Crash Demo twice "
                    "to see it."),
            text(t, "Save Password (iOS offers it after this form)", muted=True),
        ]
        if self.saved:
            body += [text(t, "✓ Signed in. iOS may now offer to save the password.", "savedText"),
                     btn(t, "saveResetBtn", "Show the form again", self.reset_saved)]
        else:
            body += [
                field(t, "saveUser", self.save_user, lambda v: setattr(self, "save_user", v),
                      label="save username", hint="any username", screen=self),
                field(t, "savePass", self.save_pass, lambda v: setattr(self, "save_pass", v),
                      label="save password", hint="any password", password=True, on_submit=self.submit_saved,
                      screen=self),
                btn(t, "saveSubmitBtn", "Sign In", self.submit_saved),
            ]
        body += [
            text(t, "Under the keyboard", muted=True),
            note(t, "Type here: the keyboard then covers the button pinned to the bottom of the screen."),
            field(t, "coverField", self.cover_text, self.cover_typed, label="cover field", hint="type here",
                  screen=self),
            self.keyboard_room(),
        ]
        scroll_h = CONTENT_HEIGHT_DP - TOP_DP - PINNED_DP
        return Node("android.view.ViewGroup", bg=t.ground, children=[
            Node("android.view.ViewGroup", padding=12, children=[back_btn(t, self.app)]),
            Node("android.widget.ScrollView", id="", scroll="vertical", height=scroll_h, children=[
                Node("android.view.ViewGroup", padding=PAD, children=body)]),
            Node("android.view.ViewGroup", padding=12, children=[
                btn(t, "coveredBtn", "Pinned to the bottom", lambda: self._set("pinned button: tapped"))]),
        ])


# --------------------------------------------------------------------------------------------------------------
# Location Demo: asks on mount, then watches the position every 500 ms. The fix is `device.location` (lat, lon)
# when a test provider has set one, else the emulator's default position.

class Location(Screen):
    key = "location"

    def __init__(self, app):
        super().__init__(app)
        self.coords = "unknown"
        self.fixes = 0
        self.status: str | None = None
        self.device.request_permissions(self.app.package, [FINE, COARSE], self._answered)

    def _answered(self, results: dict) -> None:
        if not self.mounted:
            return
        values = [results.get(FINE), results.get(COARSE)]
        if "granted" in values:
            self.status = "granted"
            self._fix()
            self.every(0.5, self._fix)
        else:
            self.status = "undetermined" if all(v == "undetermined" for v in values) else "denied"

    def _fix(self) -> None:
        lat, lon = self.device.position()
        self.coords = f"{lat:.6f},{lon:.6f}"
        self.fixes += 1

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Location"),
            text(t, self.coords, "coords", desc=f"coords {self.coords}"),
            text(t, f"fixes {self.fixes}", "fixCount", desc=f"fixes {self.fixes}"),
            self.status not in (None, "granted") and text(t, f"permission denied: {self.status}", "locationError"),
        ])


# --------------------------------------------------------------------------------------------------------------
# Interruption Demo: what survives a system dialog

class Popup(Screen):
    key = "popup"

    def __init__(self, app):
        super().__init__(app)
        self.kept = ""
        self.lost = ""
        self.rebuilds = 0
        self.status = "not asked"

    def ask(self) -> None:
        def answered(results: dict) -> None:
            values = [results.get(FINE), results.get(COARSE)]
            self.status = "granted" if "granted" in values else (
                "undetermined" if all(v == "undetermined" for v in values) else "denied")
            # The lost draft is keyed by the rebuild count: a new key remounts it empty.
            self.rebuilds += 1
            self.lost = ""

        self.device.request_permissions(self.app.package, [FINE, COARSE], answered)

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Popup"),
            text(t, "What does an app keep when a system dialog interrupts it? Type something into both fields, "
                    "then ask for location. After the dialog, the first field still holds your text; the second is "
                    "rebuilt empty \u2014 the way an app loses a half-written form when it is interrupted.",
                 muted=True),
            text(t, "Kept draft \u2014 survives the interruption"),
            field(t, "keptDraft", self.kept, lambda v: setattr(self, "kept", v), label="kept draft",
                  hint="kept draft", screen=self),
            text(t, "Lost draft \u2014 rebuilt empty afterwards"),
            field(t, "lostDraft", self.lost, lambda v: setattr(self, "lost", v), label="lost draft",
                  hint="lost draft", screen=self),
            btn(t, "askPermission", "Ask for location", self.ask),
            text(t, f"permission: {self.status}", "permissionStatus"),
            text(t, f"rebuilds: {self.rebuilds}", "rebuildCount"),
            self.keyboard_room(),
        ])


# --------------------------------------------------------------------------------------------------------------
# OTP Demo (t17)

OTP_LEN, OTP_TTL_S, OTP_RESEND_S, OTP_ATTEMPTS = 6, 60, 20, 3


def digits(value: str) -> str:
    return "".join(ch for ch in value if "0" <= ch <= "9")


class Otp(Screen):
    key = "otp"

    def __init__(self, app):
        super().__init__(app)
        self.code: str | None = None
        self.sent_at = 0.0
        self.used = False
        self.attempts = 0
        self.boxes = [""] * OTP_LEN
        self.single = ""
        self.show_code = False
        self.outcome = "no code sent"
        self.now = self.device.now()
        # The screen's 1 s interval: the countdowns move in whole seconds, as on the device.
        self.every(1.0, self._tick)

    def _tick(self) -> None:
        self.now = self.device.now()

    def _left(self, span: float) -> int:
        return max(0, math.ceil(span - (self.now - self.sent_at) - 1e-9))

    @property
    def resend_in(self) -> int:
        return self._left(OTP_RESEND_S) if self.code else 0

    @property
    def expired(self) -> bool:
        return self.code is not None and self._left(OTP_TTL_S) == 0

    def send(self) -> None:
        if self.resend_in > 0:
            return
        # Math.floor(Math.random()*1e6), zero-padded: leading zeros happen.
        self.code = f"{self.device.random.randrange(1_000_000):06d}"
        self.now = self.sent_at = self.device.now()
        self.used = False
        self.attempts = 0
        self.boxes = [""] * OTP_LEN
        self.single = ""
        code = self.code

        def answered(results: dict) -> None:
            if results.get(NOTIFICATIONS) == "granted":
                self.device.post_notification(self.app.package, "MobiumApp", f"Your MobiumApp code is {code}")
                self.outcome = "sent as a notification"
            else:
                self.outcome = "sent; notifications are off, so switch on the code below"

        self.device.request_permissions(self.app.package, [NOTIFICATIONS], answered)

    def verify(self, entered: str) -> None:
        self.now = self.device.now()
        if self.code is None:
            self.outcome = "no code sent"
        elif self.used:
            self.outcome = "already used: send a new code"
        elif self.attempts >= OTP_ATTEMPTS:
            self.outcome = "locked: too many attempts"
        elif self.expired:
            self.outcome = "expired: send a new code"
        elif len(entered) < OTP_LEN:
            self.outcome = f"incomplete: {len(entered)} of {OTP_LEN} digits"
        elif entered == self.code:
            self.used = True
            self.outcome = "verified"
        else:
            self.attempts += 1
            left = OTP_ATTEMPTS - self.attempts
            self.outcome = ("locked: too many attempts" if left == 0
                            else f"wrong code, {left} attempt{'s' if left != 1 else ''} left")

    def box_text(self, i: int, value: str) -> None:
        typed = digits(value)
        if value == "" and self.boxes[i] == "":
            self.box_backspace(i)  # the device reports a backspace in an empty field as an unchanged value
        elif len(typed) == 0:
            self.boxes[i] = ""
        elif len(typed) == 1:
            self.boxes[i] = typed
            if i < OTP_LEN - 1:
                self.device.focus(f"otpBox{i + 1}")
        else:
            # A paste, or a whole code typed into one box: spread from this box onward.
            for k, ch in enumerate(typed[: OTP_LEN - i]):
                self.boxes[i + k] = ch
            self.device.focus(f"otpBox{min(OTP_LEN - 1, i + len(typed))}")

    def box_backspace(self, i: int) -> None:
        """Backspace in an empty box clears the previous one and moves there."""
        if i > 0:
            self.boxes[i - 1] = ""
            self.device.focus(f"otpBox{i - 1}")

    def render(self, t: Theme) -> Node:
        if self.code is None:
            send_label, cooling = "Send code", False
        elif self.resend_in > 0:
            send_label, cooling = f"Resend in {self.resend_in}s", True
        else:
            send_label, cooling = "Resend code", False
        if self.code is None:
            expires = "no code"
        elif self.used:
            expires = "used"
        elif self.expired:
            expires = "expired"
        else:
            expires = f"expires in {self._left(OTP_TTL_S)}s"
        boxes = [field(t, f"otpBox{i}", self.boxes[i], (lambda v, i=i: self.box_text(i, v)), label=f"digit {i + 1}",
                       width=46, height=54, margin_right=8, margin_bottom=0)
                 for i in range(OTP_LEN)]
        return page(t, [
            back_btn(t, self.app), h1(t, "One-time code"),
            note(t, "A code lasts 60 s; you can ask again after 20 s, and you get 3 attempts."),
            btn(t, "otpSend", send_label, self.send, disabled=cooling),
            switch(t, "otpShowCode", "Show the code here", "  Show the code here", self.show_code,
                   lambda: setattr(self, "show_code", not self.show_code)),
            self.show_code and self.code and text(t, f"code: {self.code}", "otpCodeShown"),
            text(t, expires, "otpExpires"),
            text(t, self.outcome, "otpOutcome"),
            text(t, "Six boxes", muted=True),
            Node("android.view.ViewGroup", horizontal=True, height=54, margin_bottom=8, children=boxes),
            text(t, "entered: " + "".join(b or "_" for b in self.boxes), "otpEntered"),
            btn(t, "otpVerifyBoxes", "Verify the boxes", lambda: self.verify("".join(self.boxes))),
            text(t, "One field", muted=True),
            field(t, "otpField", self.single, lambda v: setattr(self, "single", digits(v)[:OTP_LEN]),
                  label="one-time code", hint="6-digit code", screen=self),
            btn(t, "otpVerifyField", "Verify the field", lambda: self.verify(self.single)),
            self.keyboard_room(),
        ])


# --------------------------------------------------------------------------------------------------------------
# Audio Demo (t23)

AUDIO = [
    # testID, label, what, usage, segments (hz, ms)
    ("audioTone", "Play 440 Hz for 2 s", "440 Hz for 2 s", "media", [(440, 2000)]),
    ("audioSequence", "Play 440 Hz, a pause, then 880 Hz", "440 Hz 2 s, silence 1 s, 880 Hz 2 s", "media",
     [(440, 2000), (0, 1000), (880, 2000)]),
    ("audioLoop", "Play 440 Hz until stopped", "440 Hz until stopped", "media", [(440, 60000)]),
    ("audioSilent", "Play silence for 2 s", "silence for 2 s", "media", [(0, 2000)]),
    ("audioAlarm", "Play 660 Hz as an alarm for 2 s", "660 Hz for 2 s", "alarm", [(660, 2000)]),
]


class Audio(Screen):
    key = "audio"

    def __init__(self, app):
        super().__init__(app)
        self.state = "nothing played yet"

    def play(self, what: str, usage: str, segments) -> None:
        self.state = f"playing: {what} ({usage})"
        self.app.player.play(what, usage, segments, self._report)

    def _report(self, line: str) -> None:
        if self.mounted:
            self.state = line

    def render(self, t: Theme) -> Node:
        buttons = [btn(t, id, label, (lambda w=what, u=usage, s=segs: self.play(w, u, s)))
                   for id, label, what, usage, segs in AUDIO]
        return page(t, [
            back_btn(t, self.app), h1(t, "Audio"),
            text(t, self.state, "audioState"),
            note(t, "Generated sine tones at a quarter of full volume. Silence is a player that plays nothing: "
                    "the platform says it is playing, and nothing is heard."),
            *buttons,
            btn(t, "audioStop", "Stop", self.app.player.stop),
        ])
