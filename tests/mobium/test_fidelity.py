"""Where the built-in server answers as Mobium does, tool by tool, with the Mobium behaviour each test holds it to
and where that behaviour was read (Mobium's tool descriptions, its answer strings, the checks in its repository)."""

from __future__ import annotations

APP = "dev.mobium.mobiumapp"


def open_login(tools) -> None:
    tools.call("app_tap", target="testid=loginBtn")
    tools.call("app_wait_for", target="testid=username")


def test_type_keeps_non_ascii_intact(fresh):
    """Mobium's app_type: "quotes, spaces and non-ASCII survive intact" (its tool description); `input text`
    alone drops ü, é, — and ï, so the rest goes through the clipboard and a paste key."""
    open_login(fresh)
    text = 'Jürgen "é" — naïve'
    answer = fresh.call("app_type", target="testid=username", text=text)
    assert answer.text.startswith("typed ")
    assert fresh.call("app_text", target="testid=username").text == text
