"""wait-states.sh: `wait --for` checked / unchecked / focused / value first times out (exit 6, saying what it saw),
then holds; a checked state on a text field and a password's value are refused at once (exit 2)."""

from conformance_cli import APP, Flow, contains

flow = Flow("wait-states.sh")


def open_demo(m, label: str) -> None:
    m.fresh_start()
    m.run("scroll-to", f"label={label}")
    m.ok("tap", f"label={label}")


def times_out(m, said: str, *words: str) -> None:
    ran = m.run("wait", *words, "--timeout", "1s")
    assert ran.rc == 6, f"expected a timeout (6), got {ran.rc}: {ran.both}"
    assert contains(said, ran.both), f"the timeout did not say {said!r}: {ran.both}"


def refused(m, said: str, *words: str) -> None:
    ran = m.run(*words)
    assert ran.rc == 2, f"expected a refusal (2), got {ran.rc}: {ran.both}"
    assert contains(said, ran.both), f"the refusal did not say {said!r}: {ran.both}"


@flow.step(65)
def _(m):
    open_demo(m, "Form Demo")


@flow.step(66)
def _(m):
    times_out(m, "it is unchecked", "testid=termsCheck", "--for", "checked")


@flow.step(68)
def _(m):
    m.ok("tap", "testid=termsCheck")
    m.ok("wait", "testid=termsCheck", "--for", "checked", "--timeout", "3s")


@flow.step(71)
def _(m):
    times_out(m, "it is unchecked", "testid=planPro", "--for", "checked")


@flow.step(73)
def _(m):
    m.ok("tap", "testid=planPro")
    m.ok("wait", "testid=planPro", "--for", "checked", "--timeout", "3s")


@flow.step(74)
def _(m):
    m.ok("wait", "testid=planFree", "--for", "unchecked", "--timeout", "3s")


@flow.step(77)
def _(m):
    times_out(m, "it is unchecked", "testid=darkSwitch", "--for", "checked")


@flow.step(79)
def _(m):
    m.ok("check", "testid=darkSwitch")
    m.ok("wait", "testid=darkSwitch", "--for", "checked", "--timeout", "3s")


@flow.step(81)
def _(m):
    m.ok("uncheck", "testid=darkSwitch")
    m.ok("wait", "testid=darkSwitch", "--for", "unchecked", "--timeout", "3s")


@flow.step(84)
def _(m):
    refused(m, "no checked state", "wait", "testid=readOnlyField", "--for", "checked", "--timeout", "5s")


@flow.step(88)
def _(m):
    refused(m, "failed check editable:", "type", "testid=termsCheck", "hello")


@flow.step(89)
def _(m):
    got = m.json("--json", "type", "testid=termsCheck", "hello")
    assert got["details"]["check"] == "editable", got


@flow.step(94)
def _(m):
    open_demo(m, "Login Demo")


@flow.step(95)
def _(m):
    times_out(m, "does not have keyboard focus", "testid=username", "--for", "focused")


@flow.step(97)
def _(m):
    m.ok("tap", "testid=username")
    m.ok("wait", "testid=username", "--for", "focused", "--timeout", "3s")


@flow.step(98)
def _(m):
    times_out(m, "does not have keyboard focus", "testid=password", "--for", "focused")


@flow.step(100)
def _(m):
    m.ok("tap", "testid=password")
    m.ok("wait", "testid=password", "--for", "focused", "--timeout", "3s")


@flow.step(101)
def _(m):
    times_out(m, "does not have keyboard focus", "testid=username", "--for", "focused")


@flow.step(105)
def _(m):
    m.ok("wait", "testid=username", "--for", "value", "--text", "", "--timeout", "3s")


@flow.step(107)
def _(m):
    m.ok("type", "testid=username", "mob")
    m.ok("wait", "testid=username", "--for", "value", "--text", "mob", "--timeout", "3s")


@flow.step(108)
def _(m):
    times_out(m, 'its value is "mob"', "testid=username", "--for", "value", "--text", "mo")


@flow.step(109)
def _(m):
    m.ok("wait", "testid=username", "--for", "text", "--text", "mo", "--timeout", "3s")


@flow.step(112)
def _(m):
    refused(m, "never read", "wait", "testid=password", "--for", "value", "--text", "x", "--timeout", "5s")
    m.run("terminate", APP)


test_wait_states = flow.test()
