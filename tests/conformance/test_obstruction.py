"""obstruction.sh: on the Obstruction Demo, a full cover is refused, a center cover aimed around, an edge cover a
plain tap, pass-through and plain views reported as taking the touch, the hidden overlay and the scrim refused, a
toast waited out — judged by the app's own `obstructionOutcome`."""

from conformance_cli import APP, Flow

flow = Flow("obstruction.sh")
said: dict = {}


def outcome(m) -> str:
    m.run("scroll-to", "testid=obstructionOutcome", "--direction", "up")
    return m.value("text", "testid=obstructionOutcome").replace("\n", "")


def press(m, testid: str) -> None:
    said["before"] = outcome(m)
    ran = m.run("tap", f"testid={testid}")
    said["out"], said["refused"] = ran.both, ran.rc != 0


@flow.step(34)
def _(m):
    assert APP in m.run("apps").out


@flow.step(41)
def _(m):
    m.fresh_start()
    m.run("scroll-to", "testid=obstructionBtn", "--direction", "down")
    m.ok("tap", "testid=obstructionBtn")
    m.ok("wait", "testid=obstructionOutcome")


@flow.step(58)
def _(m):
    press(m, "fullTarget")
    assert said["refused"], f"a tap under a full cover was not refused: {said['out']}"


@flow.step(59)
def _(m):
    assert '"full cover"' in said["out"], said["out"]


@flow.step(60)
def _(m):
    assert outcome(m) == said["before"]


@flow.step(65)
def _(m):
    press(m, "halfTarget")
    assert not said["refused"], said["out"]


@flow.step(66)
def _(m):
    assert "clear point" in said["out"], said["out"]


@flow.step(67)
def _(m):
    assert outcome(m).endswith("target halfTarget")


@flow.step(72)
def _(m):
    press(m, "edgeTarget")
    assert outcome(m).endswith("target edgeTarget")


@flow.step(73)
def _(m):
    assert "cover" not in said["out"], said["out"]


@flow.step(78)
def _(m):
    press(m, "passTarget")
    assert not said["refused"], said["out"]


@flow.step(79)
def _(m):
    assert outcome(m).endswith("target passTarget")


@flow.step(80)
def _(m):
    assert "may take the touch" in said["out"], said["out"]


@flow.step(86)
def _(m):
    press(m, "plainTarget")
    assert not said["refused"], said["out"]


@flow.step(87)
def _(m):
    assert "may take the touch" in said["out"], said["out"]


@flow.step(88)
def _(m):
    assert outcome(m) == said["before"]


@flow.step(95)
def _(m):
    press(m, "hiddenTarget")
    assert said["refused"], said["out"]


@flow.step(96)
def _(m):
    assert outcome(m) == said["before"]


@flow.step(108)
def _(m):
    press(m, "scrimTarget")
    assert said["refused"], said["out"]


@flow.step(109)
def _(m):
    assert outcome(m) == said["before"]


@flow.step(115)
def _(m):
    m.ok("tap", "testid=toastBtn")
    ran = m.run("tap", "testid=toastTarget")
    said["out"] = ran.both
    assert ran.rc == 0, f"the toast was not waited out: {ran.both}"


@flow.step(116)
def _(m):
    assert outcome(m).endswith("target toastTarget")
    m.run("terminate", APP)


test_obstruction = flow.test()
