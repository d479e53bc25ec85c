"""slider.sh: Volume and Balance map as sliders by their names, `fill <ref> <0..1>` lands them where the app
says, `map --diff` names the move, and a bad fill or a `type` on a slider is refused."""

import re

from conformance_cli import APP, Flow, contains

flow = Flow("slider.sh")
refs: dict = {}


def state(m) -> str:
    return m.value("text", "testid=sliderState")


def volume(m) -> str:
    return re.search(r"^volume: (\S+?),", state(m), re.M).group(1)


def balance(m) -> float:
    return float(re.search(r"balance: (\S+?),", state(m)).group(1))


@flow.step(41)
def _(m):
    assert APP in m.ok("apps").both


@flow.step(46)
def _(m):
    m.fresh_start()
    m.run("scroll-to", "label=Slider Demo")
    m.ok("tap", "label=Slider Demo")


@flow.step(54)
def _(m):
    refs["map"] = m.value("map")
    for name in ("Volume", "Balance"):
        found = re.search(rf"^(@e\d+) {name} \(slider, ", refs["map"], re.M)
        assert found, f"{name} does not map as a slider by its name: {refs['map']}"
        refs[name] = found.group(1)


@flow.step(55)
def _(m):
    assert not contains(r"^@e[0-9]+ [0-9.%]+ \(button\)", refs["map"], extended=True), refs["map"]


def volume_lands(line: int, position: str, want: str) -> None:
    @flow.step(line)
    def _(m):
        m.ok("fill", refs["Volume"], "0")
        m.ok("fill", refs["Volume"], position)
        assert volume(m) == want, f"Volume filled to {position} reads {volume(m)}, want {want}"


volume_lands(62, "0.3", "30")
volume_lands(62, "1", "100")
volume_lands(62, "0", "0")


@flow.step(68)
def _(m):
    m.ok("fill", refs["Balance"], "0")
    m.ok("fill", refs["Balance"], "0.25")
    assert abs(balance(m) - 0.25) <= 0.03, balance(m)


@flow.step(74)
def _(m):
    m.ok("map")
    m.ok("fill", refs["Volume"], "0.5")
    assert contains("Volume (slider, .*) — was ", m.ok("map", "--diff").out)


@flow.step(77)
def _(m):
    m.ok("fill", refs["Volume"], "0.5")
    m.fails("fill", refs["Volume"], "abc")


@flow.step(78)
def _(m):
    assert volume(m) == "50"


@flow.step(79)
def _(m):
    ran = m.fails("type", refs["Volume"], "5")
    assert "app_fill" in ran.both, ran.both
    m.run("terminate", APP)


test_slider = flow.test()
