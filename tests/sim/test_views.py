"""Layout, the uiautomator dump, and hit-testing in z-order, with small apps of the tests' own."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from pytest_mobium_evals import sim
from pytest_mobium_evals.sim import views
from pytest_mobium_evals.sim.apps.base import App
from pytest_mobium_evals.sim.device import VirtualDevice
from pytest_mobium_evals.sim.views import Node

ATTRS = ["index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked", "clickable",
         "enabled", "focusable", "focused", "scrollable", "long-clickable", "password", "selected", "bounds",
         "drawing-order", "hint"]


class Covers(App):
    """Targets with things drawn over them, like MobiumApp's Obstruction Demo."""
    package = "dev.test.covers"
    label = "Covers"

    def __init__(self, device):
        super().__init__(device)
        self.hits: list[str] = []
        self.field = ""
        self.secret = ""

    def hit(self, name):
        return lambda: self.hits.append(name)

    def render(self) -> Node:
        def case(name: str, cover: Node | None) -> Node:
            kids = [Node("android.widget.Button", id=name, text=name, height=60, on_tap=self.hit(name))]
            if cover is not None:
                kids.append(cover)
            return Node("android.view.ViewGroup", margin_bottom=10, children=kids)

        return Node("android.view.ViewGroup", id="root", children=[
            case("full", Node(id="fullCover", text="full cover", overlay=True, on_tap=self.hit("fullCover"))),
            case("half", Node(id="halfCover", text="half cover", overlay=True, width_frac=0.6,
                              on_tap=self.hit("halfCover"))),
            case("pass", Node(id="passCover", desc="pass-through cover", overlay=True, touch="pass")),
            case("plain", Node(id="plainCover", desc="plain cover", overlay=True, touch="block")),
            case("hidden", Node(id="hiddenCover", text="hidden overlay", overlay=True, visible_to_a11y=False,
                                on_tap=self.hit("hiddenCover"))),
            case("disabled", Node(id="dis", text="disabled", overlay=True, enabled=False, on_tap=self.hit("dis"))),
            Node("android.widget.EditText", id="field", text=self.field, hint="type here", editable=True,
                 height=56, on_text=lambda v: setattr(self, "field", v), on_submit=self.hit("submit")),
            Node("android.widget.EditText", id="secret", text=self.secret, hint="password", editable=True,
                 password=True, height=56, on_text=lambda v: setattr(self, "secret", v)),
            Node("android.widget.ScrollView", id="list", scroll="vertical", children=[
                Node("android.widget.TextView", id=f"row{i}", text=f"Row {i}", height=64, margin_bottom=8,
                     on_tap=self.hit(f"row{i}")) for i in range(1, 41)]),
        ])


class Pinned(App):
    """A button pinned to the bottom, where the keyboard will cover it."""
    package = "dev.test.pinned"
    label = "Pinned"

    def __init__(self, device):
        super().__init__(device)
        self.taps = 0
        self.value = ""

    def render(self) -> Node:
        return Node("android.view.ViewGroup", children=[
            Node("android.widget.EditText", id="top", text=self.value, editable=True, height=56,
                 on_text=lambda v: setattr(self, "value", v)),
            Node(height=700),
            Node("android.widget.Button", id="bottom", text="Pinned", height=60,
                 on_tap=lambda: setattr(self, "taps", self.taps + 1)),
        ])


@pytest.fixture
def dev() -> VirtualDevice:
    from pytest_mobium_evals.sim.device import builtin_apps
    d = VirtualDevice(clock=sim.Clock(1.0), apps=[*builtin_apps(), Covers, Pinned])
    d.launch("dev.test.covers")
    return d


def nodes(d: VirtualDevice) -> list[dict]:
    root = ET.fromstring(d.dump_xml())
    return [n.attrib for n in root.iter("node")]


def node(d: VirtualDevice, rid: str) -> dict | None:
    return next((n for n in nodes(d) if n["resource-id"] == rid), None)


def center(n: dict, fx: float = 0.5) -> tuple[int, int]:
    l, t, r, b = map(int, re.findall(r"\d+", n["bounds"]))
    return int(l + (r - l) * fx), (t + b) // 2


def test_dump_attribute_order_and_one_line(dev):
    xml = dev.dump_xml()
    assert xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">")
    assert xml.endswith("</hierarchy>") and "\n" not in xml
    first = re.search(r"<node ([^>]*?)/?>", xml).group(1)
    assert re.findall(r'([\w-]+)="', first) == ATTRS
    assert node(dev, "android:id/content")["bounds"] == "[0,136][1080,2337]"
    assert node(dev, "android:id/navigationBarBackground")["bounds"] == "[0,2337][1080,2400]"
    assert node(dev, "full")["package"] == "dev.test.covers"


def test_layout_stacks_with_margins_and_overlays_share_the_box(dev):
    full, half = node(dev, "full"), node(dev, "half")
    assert full["bounds"] == "[0,136][1080,294]"  # 60 dp = 158 px
    assert half["bounds"] == "[0,320][1080,478]"  # after a 10 dp margin
    assert node(dev, "fullCover")["bounds"] == full["bounds"]
    assert node(dev, "halfCover")["bounds"] == "[0,320][648,478]"


def test_hidden_overlay_is_absent_from_the_dump_but_takes_touches(dev):
    assert node(dev, "hiddenCover") is None
    dev.tap(*center(node(dev, "hidden")))
    assert dev.current_app().hits == ["hiddenCover"]


@pytest.mark.parametrize("target,fx,expected", [
    ("full", 0.5, ["fullCover"]),
    ("half", 0.3, ["halfCover"]),
    ("half", 0.8, ["half"]),
    ("pass", 0.5, ["pass"]),
    ("plain", 0.5, []),
    ("disabled", 0.5, []),
])
def test_tap_lands_on_what_is_on_top(dev, target, fx, expected):
    dev.tap(*center(node(dev, target), fx))
    assert dev.current_app().hits == expected


def test_scroll_container_clips_and_rows_appear_when_scrolled(dev):
    ids = {n["resource-id"] for n in nodes(dev)}
    assert "row1" in ids and "row40" not in ids
    lst = node(dev, "list")
    assert lst["scrollable"] == "true"
    l, t, r, b = map(int, re.findall(r"\d+", lst["bounds"]))
    for _ in range(12):
        dev.swipe(540, b - 50, 540, t + 50, 300)
    ids = {n["resource-id"] for n in nodes(dev)}
    assert "row40" in ids and "row1" not in ids
    # partly visible rows report their visible part only
    for n in nodes(dev):
        if n["resource-id"].startswith("row"):
            nt, nb = [int(v) for v in re.findall(r"\d+", n["bounds"])][1::2]
            assert t <= nt and nb <= b
    dev.tap(*center(node(dev, "row40")))
    assert dev.current_app().hits == ["row40"]
    # the offset persists across frames and is clamped at the end
    dev.swipe(540, b - 50, 540, t + 50, 300)
    assert "row40" in {n["resource-id"] for n in nodes(dev)}


def test_text_field_focus_keyboard_and_editing(dev, make_sh):
    sh = make_sh(dev)
    field = node(dev, "field")
    assert field["text"] == "type here" and field["hint"] == "type here"  # an empty EditText reports its hint
    dev.tap(*center(field))
    assert dev.keyboard_shown and node(dev, "field")["focused"] == "true"
    sh.out("input text 'hello%sworld'")
    assert node(dev, "field")["text"] == "hello world"
    sh.out("input keyevent KEYCODE_DEL 67")
    assert node(dev, "field")["text"] == "hello wor"
    sh.out("input keyevent MOVE_HOME; input text X")
    assert node(dev, "field")["text"] == "Xhello wor"
    sh.out("input keycombination 113 29; input keyevent DEL")
    assert node(dev, "field")["text"] == "type here"
    sh.out("input keyevent ENTER")
    assert dev.current_app().hits == ["submit"]
    assert "mInputShown=true" in sh.out("dumpsys input_method")
    ime = sh.out("dumpsys window windows").split("u0 InputMethod}:")[1].split("Window #")[0]
    assert "isVisible=true" in ime and "touchable region=SkRegion((0,1500,1080,2337))" in ime
    sh.out("input keyevent BACK")
    assert not dev.keyboard_shown and dev.current_activity().package.name == "dev.test.covers"
    assert "mInputShown=false" in sh.out("dumpsys input_method")


def test_password_is_masked(dev, make_sh):
    dev.tap(*center(node(dev, "secret")))
    make_sh(dev).out("input text hunter2")
    assert node(dev, "secret")["text"] == "\u2022" * 7
    assert node(dev, "secret")["password"] == "true"
    assert "hunter2" not in dev.dump_xml()


def test_keyboard_covers_the_bottom(dev, make_sh):
    dev.launch("dev.test.pinned")
    bottom = node(dev, "bottom")
    assert bottom is not None
    dev.tap(*center(node(dev, "top")))
    assert dev.keyboard_shown
    assert node(dev, "bottom") is None  # under the keyboard: left out of the dump
    dev.tap(*center(bottom))
    assert dev.current_app().taps == 0  # the tap landed on the keyboard
    make_sh(dev).out("input keyevent 4")
    assert node(dev, "bottom") is not None
    dev.tap(*center(bottom))
    assert dev.current_app().taps == 1


def test_dialog_is_modal_and_alone_in_the_dump(dev, make_sh):
    got = []
    dev.show_dialog("Save this draft?", "You can come back to it later.", [
        ("Cancel", "neutral", lambda: got.append("Cancel")), ("Don't Save", "negative", lambda: got.append("no")),
        ("Save", "positive", lambda: got.append("Save"))], "dev.test.covers")
    ids = [n["resource-id"] for n in nodes(dev)]
    assert "full" not in ids
    assert {"android:id/alertTitle", "android:id/message", "android:id/button1", "android:id/button2",
            "android:id/button3"} <= set(ids)
    b1, b2, b3 = (node(dev, f"android:id/button{i}") for i in (1, 2, 3))
    assert b1["text"] == "SAVE" and b2["text"] == "DON'T SAVE"
    # neutral at the far left, positive at the right
    assert center(b3)[0] < center(b2)[0] < center(b1)[0]
    dev.tap(540, 300)  # outside a non-cancelable dialog: nothing
    make_sh(dev).out("input keyevent BACK")
    assert node(dev, "android:id/button1") is not None and dev.current_app().hits == []
    dev.tap(*center(b2))
    assert got == ["no"] and node(dev, "full") is not None


def test_toast_is_drawn_but_takes_no_touches_and_expires(dev):
    dev.toast("Saved", seconds=1.5)
    assert dev.active_toast() is not None
    assert "Saved" not in dev.dump_xml()
    dev.tap(*center(node(dev, "full")))
    assert dev.current_app().hits == ["fullCover"]
    dev.clock.advance(1.6)
    dev.run_due()
    assert dev.active_toast() is None


def test_dump_escapes_text_as_the_aosp_serializer_does():
    root = views.layout(Node(children=[Node(text='a<b & "c"\nd\x01')]), (0, 0, 1080, 500), {})
    out: list[str] = []
    views.dump_nodes(root, "p", out)
    xml = "".join(out)
    assert 'text="a&lt;b &amp; &quot;c&quot;&#10;d."' in xml
    assert ET.fromstring(xml).find("node").attrib["text"] == 'a<b & "c"\nd.'


def test_layout_rules_directly():
    root = Node(children=[
        Node(text="x" * 80),  # two lines of 24 dp
        Node(horizontal=True, children=[Node(width=100, height=10, margin_right=20), Node(height=30),
                                        Node(height=20)]),
    ])
    placed = views.layout(root, (0, 0, 1080, 2000), {})
    text, row = placed.children
    assert text.box == (0, 0, 1080, 126)
    assert row.box[3] - row.box[1] == 79  # tallest child: 30 dp
    a, b, c = row.children
    assert a.box[2] - a.box[0] == 262 and b.box[0] == a.box[2] + 52
    assert b.box[2] - b.box[0] == c.box[2] - c.box[0]  # the rest is shared


def test_bad_node_arguments_are_refused():
    with pytest.raises(ValueError, match="scroll"):
        Node(scroll="diagonal")
    with pytest.raises(ValueError, match="touch"):
        Node(touch="maybe")


def test_render_and_dump_are_fast_enough_to_call_constantly(dev):
    # Not a timing assertion: checks the dump is produced from one render per call (frames counter).
    before = dev.frames
    dev.dump_xml()
    assert dev.frames == before + 1
