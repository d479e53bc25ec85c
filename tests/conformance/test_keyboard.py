"""keyboard.sh: the keyboard's state as `keyboard --json` reads it, appending and deleting through it, a password
never echoed, hide, and type/fill on the Login Demo."""

from conformance_cli import APP, Flow, contains

flow = Flow("keyboard.sh")
PASSWORD = "testid=password"


def kb(m) -> dict:
    return m.json("keyboard", "--json")


@flow.step(47)
def _(m):
    ran = m.ok("apps")
    assert APP in ran.both


@flow.step(51)
def _(m):
    m.fresh_start()
    m.ok("tap", "label=Login Demo")


@flow.step(53)
def _(m):
    assert kb(m)["shown"] is False


@flow.step(75)
def _(m):
    m.ok("tap", "testid=username")
    m.advance_clock(1)
    assert kb(m)["shown"] is True


@flow.step(76)
def _(m):
    assert kb(m)["focused"].get("empty", False) is True


@flow.step(82)
def _(m):
    m.ok("keyboard", "--text", 'mob ü"q')
    m.ok("keyboard", "--text", "'s")
    v = kb(m)["focused"]["value"]
    assert v == 'mob ü"q\'s', v


@flow.step(87)
def _(m):
    m.ok("keyboard", "--key", "delete")
    v = kb(m)["focused"]["value"]
    assert v == 'mob ü"q\'', v


@flow.step(93)
def _(m):
    m.ok("tap", PASSWORD)
    m.advance_clock(1)
    out = m.run("keyboard", "--text", "hunter2").both
    assert "hunter2" not in out, out


@flow.step(95)
def _(m):
    assert "hunter2" not in m.run("keyboard", "--json").out


@flow.step(101)
def _(m):
    m.fails("keyboard", "--text", "x")


@flow.step(104)
def _(m):
    m.ok("keyboard", "--hide")
    assert kb(m)["shown"] is False


@flow.step(105)
def _(m):
    assert m.value("current") == APP


@flow.step(115)
def _(m):
    assert "already hidden" in m.ok("keyboard", "--hide").out


@flow.step(121)
def _(m):
    m.ok("fill", "testid=username", "mob")
    m.ok("type", "testid=username", "ium")
    assert m.value("text", "testid=username") == "mobium"


@flow.step(124)
def _(m):
    m.ok("fill", "testid=username", "xyz")
    assert m.value("text", "testid=username") == "xyz"


@flow.step(126)
def _(m):
    ran = m.fails("type", PASSWORD, "more")
    assert "app_fill" in ran.both, ran.both


@flow.step(133)
def _(m):
    m.ok("terminate", APP)
    m.ok("launch", APP)
    out = m.run("keyboard", "--text", "x").both
    assert contains("no field has keyboard focus.*app_type", out), out


test_keyboard = flow.test()
