"""The Biometrics Demo: what expo-local-authentication reads about the sensor every second, and a sign-in through
BiometricPrompt (strong biometrics only, no device-credential fallback) whose answer the app prints.

The device's fingerprint state is `device.fingerprints` (how many are enrolled, none on a fresh emulator) and
`device.lock_pin` (a screen-lock PIN, without which Android enrolls none). With nothing enrolled the call answers
not_enrolled at once; otherwise the prompt comes up over the app and its Cancel answers user_cancel."""

from __future__ import annotations

from ...views import Node
from .screen import Screen
from .ui import Theme, back_btn, btn, h1, page, text

LEAD = ("Sign in with a face or a finger, and the line below says what the platform answered. mobium biometric "
        "enrolls one from outside and presents a match or a non-match; only an emulator or a simulator can be told "
        "either, and a real phone needs a real finger.")
PROMPT_TITLE = "Sign in to MobiumApp"


class Biometrics(Screen):
    key = "biometrics"

    def __init__(self, app):
        super().__init__(app)
        self.hardware: bool | None = None
        self.enrolled: bool | None = None
        self.level = "not read yet"
        self.pending = False
        self.outcome = "none yet"
        self.attempts = 0
        self.error: str | None = None
        self._read()
        self.every(1.0, self._read)

    def _read(self) -> None:
        d = self.device
        count = getattr(d, "fingerprints", 0)
        pin = getattr(d, "lock_pin", None)
        self.hardware = True
        self.enrolled = count > 0
        self.level = "biometric (strong)" if count > 0 else "passcode only" if pin else "none"

    def sign_in(self) -> None:
        n = self.attempts = self.attempts + 1
        self.pending = True
        self.outcome = f"#{n}: waiting for the prompt"
        if not getattr(self.device, "fingerprints", 0):
            self._answer(n, "failed (not_enrolled)")
            return

        def cancel():
            self._answer(n, "failed (user_cancel)")

        self.device.show_dialog(PROMPT_TITLE, "Touch the fingerprint sensor", [("Cancel", "negative", cancel)],
                                self.app.package, cancelable=True, on_cancel=cancel, caps=False)

    def _answer(self, n: int, outcome: str) -> None:
        self.outcome = f"#{n}: {outcome}"
        self.pending = False

    def render(self, t: Theme) -> Node:
        def yes(v):
            return "not read yet" if v is None else "yes" if v else "no"

        hardware = yes(self.hardware) + (" (fingerprint)" if self.hardware else "")
        return page(t, [
            back_btn(t, self.app), h1(t, "Biometrics"),
            text(t, LEAD, muted=True, size=21),
            text(t, f"hardware: {hardware}", "bioHardware"),
            text(t, f"enrolled: {yes(self.enrolled)}", "bioEnrolled"),
            text(t, f"security level: {self.level}", "bioLevel"),
            btn(t, "bioSignIn", "Sign in with biometrics", self.sign_in, disabled=self.pending),
            text(t, f"prompt: {'up, waiting' if self.pending else 'none'}", "bioPending"),
            text(t, f"outcome: {self.outcome}", "bioOutcome"),
            text(t, f"attempts: {self.attempts}", "bioAttempts"),
            self.error and text(t, f"error: {self.error}", "bioError"),
        ])
