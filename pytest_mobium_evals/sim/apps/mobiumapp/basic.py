"""Home, Login (and the signed-in screen), Form, Slider, Storage and Pager."""

from __future__ import annotations

import json
import re
import unicodedata

from ...views import Node
from .screen import Screen
from .ui import Theme, back_btn, btn, check, field, gap, h1, note, page, radio, switch, text

# (testID without "Btn", label) in the order of MobiumApp's home menu (22 entries).
MENU = [
    ("webviewhub", "WebViews"), ("login", "Login Demo"), ("otp", "OTP Demo"), ("location", "Location Demo"),
    ("pager", "Pager Demo"), ("popup", "Interruption Demo"), ("form", "Form Demo"), ("gesturehub", "Gestures"),
    ("motion", "Motion Demo"), ("crash", "Crash Demo"), ("storage", "Storage Demo"), ("dialogs", "Dialog Demo"),
    ("obstruction", "Obstruction Demo"), ("a11y", "Accessibility Demo"), ("layout", "Layout Demo"),
    ("battery", "Battery Demo"), ("files", "Files Demo"), ("biometrics", "Biometrics Demo"), ("feed", "Feed Demo"),
    ("slider", "Slider Demo"), ("busy", "Busy Demo"), ("audio", "Audio Demo"),
]


class Home(Screen):
    key = "home"

    def render(self, t: Theme) -> Node:
        items = [
            Node("android.widget.ImageView", id="mobiumLogo", desc="Mobium", width=96, height=96, margin_bottom=12),
            Node("android.widget.TextView", id="title", text="MobiumApp", height=42, fg=t.ink),
        ]
        for key, label in MENU:
            items.append(btn(t, key + "Btn", label, lambda key=key: self.app.go(key)))
        return page(t, items, id="homeList")


# --------------------------------------------------------------------------------------------------------------
# Login Demo and the signed-in screen (t01, t02)

SIGN_IN_S = 1.0
USER_OK = re.compile(r"^[a-z0-9._-]+$")


def sanitize(name: str) -> str:
    return unicodedata.normalize("NFC", name).strip().lower()


def user_problem(name: str) -> str | None:
    clean = sanitize(name)
    if not clean:
        return "Enter your username."
    if len(clean) < 3:
        return "Username must be at least 3 characters."
    if not USER_OK.match(clean):
        return "Username can contain only letters, numbers, dots (.), dashes (-) and underscores (_)."
    return None


def pass_problem(password: str) -> str | None:
    if not password:
        return "Enter your password."
    if len(password) < 6:  # code points, as the app counts them
        return "Password must be at least 6 characters."
    return None


class Login(Screen):
    key = "login"

    def __init__(self, app):
        super().__init__(app)
        self.user = ""
        self.password = ""
        self.user_touched = False
        self.pass_touched = False
        self.busy = False
        self.error: str | None = None
        self._was_focused: str | None = None

    def set_user(self, value: str) -> None:
        self.user = value[:32]  # maxLength 32
        self.error = None

    def set_password(self, value: str) -> None:
        self.password = value[:64]
        self.error = None

    def submit(self) -> None:
        if self.busy:
            return
        self.user_touched = self.pass_touched = True
        self.error = None
        if user_problem(self.user) or pass_problem(self.password):
            return
        self.busy = True
        # The app decides when it submits (the closure holds the credentials as they were then); the reply only
        # lands later, so editing the fields meanwhile changes nothing.
        user = sanitize(self.user)
        ok = user == "mobium" and self.password == "hunter2"
        self.after(SIGN_IN_S, lambda: self._answer(ok, user))

    def _answer(self, ok: bool, user: str) -> None:
        self.busy = False
        if ok:
            self.password = ""
            self.app.logged_in_as = user
            self.app.go("secret")
        else:
            self.error = "Incorrect username or password."

    def _track_blur(self) -> None:
        # onBlur marks a field touched: notice when focus has left a field since the last frame.
        focused = self.device.focused_id
        if self._was_focused != focused:
            if self._was_focused == "username":
                self.user_touched = True
            elif self._was_focused == "password":
                self.pass_touched = True
            self._was_focused = focused

    def render(self, t: Theme) -> Node:
        self._track_blur()
        items = [
            back_btn(t, self.app), h1(t, "Log in"), text(t, "Sign in to continue.", muted=True),
            Node("android.view.ViewGroup", id="loginHint", padding=6, margin_bottom=8, children=[
                text(t, "Demo account", size=20),
                text(t, "Username: mobium", size=20),
                text(t, "Password: hunter2", size=20),
                text(t, "Try a wrong password, a short one, or a username with a space to see each error. "
                        "Spaces around the username and capitals are ignored.", muted=True, size=18, height=54),
            ]),
            field(t, "username", self.user, self.set_user, label="username", hint="username",
                  on_submit=lambda: self.device.focus("password"), margin_bottom=2),
        ]
        if self.user_touched:
            problem = user_problem(self.user)
            items.append(text(t, problem, "userError", size=20) if problem
                         else text(t, "✓ Username looks good.", "userOk", size=20))
        items.append(field(t, "password", self.password, self.set_password, label="password", hint="password",
                           password=True, on_submit=self.submit, margin_bottom=2))
        if self.pass_touched:
            problem = pass_problem(self.password)
            items.append(text(t, problem, "passError", size=20) if problem
                         else text(t, "✓ Password meets the requirements.", "passOk", size=20))
        if self.error:
            items.append(text(t, self.error, "loginError", size=20))
        items.append(gap(6))
        items.append(btn(t, "loginBtn", "Signing in…" if self.busy else "Log In", self.submit, disabled=self.busy))
        return page(t, items)


class Secret(Screen):
    key = "secret"

    def logout(self) -> None:
        self.app.logged_in_as = None
        self.app.go("login")

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Signed in"),
            text(t, f"Welcome, {self.app.logged_in_as}!", "welcomeText"),
            text(t, "You are logged in.", "secretText"),
            btn(t, "logoutBtn", "Log Out", self.logout),
        ])


# --------------------------------------------------------------------------------------------------------------
# Form Demo (t03, t04, t19; the dark switch is t21's trap)

class Form(Screen):
    key = "form"

    def __init__(self, app):
        super().__init__(app)
        self.notify = False
        self.terms = False
        self.plan = "free"

    def _toggle(self, name: str):
        def flip():
            setattr(self, name, not getattr(self, name))
        return flip

    def _pick(self, plan: str):
        def pick():
            self.plan = plan
        return pick

    def _dark(self) -> None:
        self.app.dark = not self.app.dark

    def render(self, t: Theme) -> Node:
        state = (f"notify={str(self.notify).lower()} terms={str(self.terms).lower()} plan={self.plan} "
                 f"theme={'dark' if self.app.dark else 'light'}")
        return page(t, [
            back_btn(t, self.app), h1(t, "Form"),
            check(t, "notifyCheck", "Email me", self.notify, self._toggle("notify")),
            check(t, "termsCheck", "Accept terms", self.terms, self._toggle("terms")),
            text(t, "Plan", muted=True),
            Node("android.widget.RadioGroup", children=[
                radio(t, "planFree", "Free", self.plan == "free", self._pick("free")),
                radio(t, "planPro", "Pro", self.plan == "pro", self._pick("pro")),
                radio(t, "planTeam", "Team", self.plan == "team", self._pick("team")),
            ]),
            switch(t, "darkSwitch", "Dark mode", "Dark mode, for the whole app", self.app.dark, self._dark),
            text(t, "Read-only", muted=True),
            field(t, "readOnlyField", "This field cannot be edited", None, label="read-only field", editable=False),
            text(t, state, "formState"),
        ])


# --------------------------------------------------------------------------------------------------------------
# Slider Demo (t05): RN's ReactSlider is a SeekBar with an integer progress in its own units

class SeekBarModel:
    """One `@react-native-community/slider` on Android: progress 0..total_steps, mapped to the JS value."""

    def __init__(self, minimum: float, maximum: float, step: float | None):
        self.minimum, self.maximum = minimum, maximum
        span = maximum - minimum
        # ReactSlider: getTotalSteps() = ceil(span / step), with step defaulting to span / 128.
        self.step = step if step else span / 128
        self.total = int(-(-round(span / self.step, 9) // 1))

    def progress_of(self, value: float) -> int:
        return int(round((value - self.minimum) / (self.maximum - self.minimum) * self.total))

    def value_of(self, progress: int) -> float:
        if progress >= self.total:
            return self.maximum  # the last step maps to maxValue exactly
        return self.minimum + progress * self.step

    def progress_at(self, fraction: float) -> int:
        return int(round(min(1.0, max(0.0, fraction)) * self.total))


class Slider(Screen):
    key = "slider"
    VOLUME = SeekBarModel(0, 100, 10)
    BALANCE = SeekBarModel(0, 1, None)

    def __init__(self, app):
        super().__init__(app)
        self.volume = 50
        self.balance = 0.5
        self.changes = 0

    def drag_volume(self, fraction: float) -> None:
        progress = self.VOLUME.progress_at(fraction)
        if progress != self.VOLUME.progress_of(self.volume):  # SeekBar reports only real progress changes
            self.volume = int(round(self.VOLUME.value_of(progress)))
            self.changes += 1

    def drag_balance(self, fraction: float) -> None:
        progress = self.BALANCE.progress_at(fraction)
        if progress != self.BALANCE.progress_of(self.balance):
            self.balance = self.BALANCE.value_of(progress)
            self.changes += 1

    def render(self, t: Theme) -> Node:
        def bar(id: str, label: str, model: SeekBarModel, value: float, on_drag) -> Node:
            progress = model.progress_of(value)
            # A seek bar reports its own progress as its text (RangeInfo current): "5.0" for volume 50.
            return Node("android.widget.SeekBar", id=id, desc=label, text=f"{float(progress)}", focusable=True,
                        height=40, margin_bottom=12, on_drag=on_drag, bg="#DDE1F0")

        return page(t, [
            back_btn(t, self.app), h1(t, "Sliders"),
            text(t, f"volume: {self.volume}, balance: {self.balance:.2f}, changes: {self.changes}", "sliderState"),
            note(t, "Volume, 0 to 100 in steps of 10"),
            bar("volumeSlider", "Volume", self.VOLUME, self.volume, self.drag_volume),
            note(t, "Balance, 0 to 1, continuous"),
            bar("balanceSlider", "Balance", self.BALANCE, self.balance, self.drag_balance),
        ])


# --------------------------------------------------------------------------------------------------------------
# Storage Demo (t06): {"count":N} in the app's private files, wiped by pm clear

STORAGE_FILE = "files/mobium-storage.json"


class Storage(Screen):
    key = "storage"

    def __init__(self, app):
        super().__init__(app)
        self.error: str | None = None
        data = self.device.storage(self.app.package)
        raw = data.get(STORAGE_FILE)
        self.present = raw is not None
        self.count = 0
        if raw is not None:  # read once, when the screen opens
            try:
                self.count = int(json.loads(raw).get("count", 0) or 0)
            except (ValueError, AttributeError, TypeError) as exc:
                self.error = f"error: {exc}"

    def save(self) -> None:
        self.count += 1
        self.device.storage(self.app.package)[STORAGE_FILE] = json.dumps({"count": self.count},
                                                                         separators=(",", ":"))
        self.present = True

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Storage"),
            text(t, f"stored: {self.count}", "storedCount"),
            text(t, f"file: {'present' if self.present else 'absent'}", "storedFile"),
            btn(t, "saveOneMoreBtn", "Save one more", self.save),
            self.error and text(t, self.error, "storageError"),
        ])


# --------------------------------------------------------------------------------------------------------------
# Pager Demo (t07): 8 cards 260x160 dp in a horizontal ScrollView

class Pager(Screen):
    key = "pager"

    def __init__(self, app):
        super().__init__(app)
        self.tapped: int | None = None

    def _tap(self, n: int):
        def tap():
            self.tapped = n
        return tap

    def render(self, t: Theme) -> Node:
        cards = [Node("android.widget.Button", id=f"card{n}", desc=f"Card {n}", width=260, height=160,
                      margin_right=12, on_tap=self._tap(n), bg="#3552FD",
                      children=[Node("android.widget.TextView", text=f"Card {n}", height=160, fg="#ffffff")])
                 for n in range(1, 9)]
        return page(t, [
            back_btn(t, self.app), h1(t, "Pager"),
            Node("android.widget.HorizontalScrollView", id="pager", scroll="horizontal", height=160,
                 margin_bottom=12, children=cards),
            text(t, "Card 8 starts off screen to the right.", "pagerNote", muted=True),
            text(t, f"tapped: Card {self.tapped}" if self.tapped else "tapped: none", "pagerTapped"),
        ])
