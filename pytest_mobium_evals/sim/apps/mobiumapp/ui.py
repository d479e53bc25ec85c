"""MobiumApp's building blocks, as React Native lays them out on Android.

Each helper returns the accessibility nodes RN produces for one component of the real app (`Btn`, `Check`, `Radio`,
`Switch`, `TextInput`, outcome lines), so screens read like the app's JSX. Sizes are in dp and follow the app's styles
(`s.btn`: padding 14 + 16 pt text ≈ 51 dp, marginBottom 10).
"""

from __future__ import annotations

from ...views import CONTENT_BOX, DP, Node

PACKAGE = "dev.mobium.mobiumapp"

# The activity window's content area on the 1080x2400 / 420 dpi screen, in dp (≈ 838).
CONTENT_HEIGHT_DP = (CONTENT_BOX[3] - CONTENT_BOX[1]) / DP
PAD = 20  # s.screen padding

ACCENT = "#3552FD"
ACCENT_BUSY = "#8596FE"  # the accent at opacity 0.6 over white (disabled Btn)
COVER = "#5832FA"


class Theme:
    """The app's palette; dark only through the Form Demo switch (the app ignores the system night mode)."""

    def __init__(self, dark: bool):
        self.dark = dark
        self.ground = "#141826" if dark else "#ffffff"
        self.ink = "#E6E8F0" if dark else "#141826"
        self.muted = "#A8AEC0" if dark else "#555555"
        self.field = "#1E2333" if dark else "#F2F3F7"


def lines(text: str, width_chars: int = 40) -> int:
    """How many 24 dp lines a paragraph takes, wrapping at about `width_chars` characters."""
    count = 0
    for para in text.split("\n"):
        count += max(1, -(-len(para) // width_chars))
    return count


def text(t: Theme, value: str, id: str = "", *, desc: str = "", muted: bool = False, size: int = 24,
         height: float | None = None, bold: bool = False) -> Node:
    """A `<Text>`: a TextView whose text is the whole string (JSX joins its parts)."""
    if height is None:
        height = lines(value) * size
    return Node("android.widget.TextView", id=id, text=value, desc=desc, height=height,
                fg=t.muted if muted else t.ink)


def h1(t: Theme, value: str) -> Node:
    return Node("android.widget.TextView", text=value, height=44, fg=t.ink)


def note(t: Theme, value: str, id: str = "") -> Node:
    return text(t, value, id, muted=True, size=20)


def btn(t: Theme, id: str, label: str, on_tap, *, disabled: bool = False, bg: str | None = None) -> Node:
    """`Btn`: a Pressable (role button, testID, accessibilityLabel) around a white label Text."""
    def press():
        if not disabled:  # a disabled Pressable ignores presses even if a touch reaches it
            on_tap()

    return Node("android.widget.Button", id=id, desc=label, clickable=True, focusable=True, enabled=not disabled,
                height=51, margin_bottom=10, on_tap=press,
                bg=bg or (ACCENT_BUSY if disabled else ACCENT),
                children=[Node("android.widget.TextView", text=label, height=51, fg="#ffffff")])


def back_btn(t: Theme, app) -> Node:
    return btn(t, "backBtn", "Back", app.back)


def check(t: Theme, id: str, label: str, checked: bool, on_tap) -> Node:
    """`Check`: a Pressable with role checkbox and a ☑/☐ glyph before its label."""
    return Node("android.widget.CheckBox", id=id, desc=label, checkable=True, checked=checked, clickable=True,
                focusable=True, height=40, on_tap=on_tap, horizontal=True,
                children=[Node("android.widget.TextView", text="☑" if checked else "☐", width=32, height=40,
                               fg=t.ink),
                          Node("android.widget.TextView", text=label, width=300, height=40, fg=t.ink)])


def radio(t: Theme, id: str, label: str, checked: bool, on_tap) -> Node:
    return Node("android.widget.RadioButton", id=id, desc=label, checkable=True, checked=checked, clickable=True,
                focusable=True, height=40, on_tap=on_tap, horizontal=True,
                children=[Node("android.widget.TextView", text="◉" if checked else "○", width=32, height=40,
                               fg=t.ink),
                          Node("android.widget.TextView", text=label, width=300, height=40, fg=t.ink)])


def switch(t: Theme, id: str, label: str, caption: str, on: bool, on_tap) -> Node:
    """An RN `Switch` (SwitchCompat, no on/off text) beside its caption Text."""
    return Node("android.view.ViewGroup", horizontal=True, height=44, children=[
        Node("android.widget.Switch", id=id, desc=label, checkable=True, checked=on, clickable=True, focusable=True,
             width=60, height=44, margin_right=12, on_tap=on_tap, bg=ACCENT if on else "#B8BCC8"),
        Node("android.widget.TextView", text=caption, width=300, height=44, fg=t.ink),
    ])


def field(t: Theme, id: str, value: str, on_text, *, label: str = "", hint: str = "", password: bool = False,
          editable: bool = True, on_submit=None, height: float = 48, width: float | None = None,
          margin_bottom: float = 8, margin_right: float = 0, screen=None) -> Node:
    """A `TextInput`: an EditText. `editable={false}` disables it on Android (not focusable, refuses input).
    With `screen`, focusing it scrolls it above the keyboard (`Screen.reveal`)."""
    return Node("android.widget.EditText", id=id, text=value, desc=label, hint=hint, password=password,
                editable=editable, enabled=editable, focusable=editable, clickable=editable,
                long_clickable=editable, on_text=on_text if editable else None, on_submit=on_submit,
                on_tap=(lambda: screen.reveal(id)) if screen is not None and editable else None,
                height=height, width=width, margin_bottom=margin_bottom, margin_right=margin_right,
                bg=t.field, fg=t.ink)


def spinner(id: str, label: str, height: float = 36) -> Node:
    """An `ActivityIndicator`: a ProgressBar node."""
    return Node("android.widget.ProgressBar", id=id, desc=label, height=height, width=36)


def gap(height: float) -> Node:
    return Node("android.view.View", height=height, touch="pass")


def page(t: Theme, children, *, id: str = "") -> Node:
    """A screen whose content scrolls: `<ScrollView style={s.screen}>` with the screen's padding."""
    return Node("android.widget.ScrollView", id=id, scroll="vertical", padding=PAD, bg=t.ground,
                children=[Node("android.view.ViewGroup", children=children)])
