"""web-type.sh: typing into a WebView form's fields through the page's map refs — added to, replaced, cleared,
refused with the unified failed-check reason, a password never echoed, focus moved with the keyboard up — read back
through the page's own `formState()`."""

from conformance_cli import APP, Flow

flow = Flow("web-type.sh")
page: dict = {}
VALUE = "O'Brien & café — naïve"
SECRET = "s3cret!"


def ref(label: str) -> str:
    for line in page["map"].splitlines():
        if f"{label} (" in line:
            return line.split()[0]
    raise AssertionError(f"{label!r} is not in the page's map: {page['map']}")


def field(m, name: str) -> str:
    return m.ok("eval", f"formState().{name}").value.strip('"')


def refuse(m, label: str, check: str, reason: str) -> None:
    ran = m.fails("type", ref(label), "nope")
    assert f"failed check {check}" in ran.both, ran.both
    assert reason in ran.both, ran.both


@flow.step(31)
def _(m):
    assert APP in m.ok("apps").both


@flow.step(41)
def _(m):
    m.fresh_start()
    m.ok("tap", "testid=webviewhubBtn")
    m.run("scroll-to", "testid=webformBtn", "--direction", "down")
    m.ok("tap", "testid=webformBtn")
    m.advance_clock(3)
    ctx = [ln.split()[0] for ln in m.value("contexts").splitlines() if ln.startswith("WEBVIEW_")]
    assert ctx, f"no WebView context: {m.run('contexts').both}"
    page["ctx"] = ctx[0]


@flow.step(44)
def _(m):
    m.ok("context", page["ctx"])
    page["map"] = m.value("map")


@flow.step(50)
def _(m):
    assert "A checkbox (checkbox)" in page["map"], page["map"]


@flow.step(56)
def _(m):
    m.ok("type", ref("text input"), VALUE)
    assert field(m, "text") == VALUE


@flow.step(57)
def _(m):
    assert field(m, "mirror") == f"mirror: {VALUE}"


@flow.step(60)
def _(m):
    m.ok("type", ref("email input"), "a@b.co")
    assert field(m, "email") == "a@b.co"


@flow.step(62)
def _(m):
    m.ok("type", ref("notes"), "two words")
    assert field(m, "area") == "two words"


@flow.step(67)
def _(m):
    m.ok("type", ref("notes"), " more")
    assert field(m, "area") == "two words more"


@flow.step(69)
def _(m):
    m.ok("fill", ref("notes"), "replaced")
    assert field(m, "area") == "replaced"


@flow.step(73)
def _(m):
    assert "cleared" in m.ok("type", ref("notes"), "").out


@flow.step(75)
def _(m):
    assert field(m, "area") == ""


@flow.step(84)
def _(m):
    refuse(m, "fixed", "editable", "readonly")


@flow.step(85)
def _(m):
    assert field(m, "readonly") == "fixed"


@flow.step(86)
def _(m):
    refuse(m, "aria-readonly", "editable", "aria-readonly")


@flow.step(87)
def _(m):
    refuse(m, "disabled", "enabled", "disabled")


@flow.step(88)
def _(m):
    refuse(m, "A checkbox", "editable", "not a text field")


@flow.step(93)
def _(m):
    said = m.ok("type", ref("password"), SECRET).both
    assert SECRET not in said, said
    assert "not echoed" in said, said


@flow.step(96)
def _(m):
    assert m.value("eval", f"passwordIs('{SECRET}')") == "true"


def focused(m) -> str:
    return m.value("eval", "(() => { const a = document.activeElement; return a ? (a.getAttribute('data-testid') "
                           "|| a.id || a.name || a.tagName) : '' })()").replace('"', "")


@flow.step(109)
def _(m):
    m.ok("tap", ref("email input"))
    m.ok("tap", ref("text input"))
    t = focused(m)
    m.ok("tap", ref("email input"))
    e = focused(m)
    assert t and e and t != e, (t, e)


@flow.step(112)
def _(m):
    m.ok("fill", ref("email input"), "k@up.io")
    assert field(m, "email") == "k@up.io"
    m.run("context", "NATIVE_APP")
    m.run("terminate", APP)


test_web_type = flow.test()
