"""clear-data.sh: what the Storage Demo saved survives a relaunch and not `clear-data`, which also revokes a grant
and refuses an app that is not installed."""

from conformance_cli import APP, Flow

flow = Flow("clear-data.sh")
seen: dict = {}


def storage(m) -> None:
    m.run("terminate", APP)
    m.ok("launch", APP)
    m.ok("tap", "testid=storageBtn")


def count(m) -> int:
    return int(m.value("text", "testid=storedCount").removeprefix("stored: "))


@flow.step(47)
def _(m):
    storage(m)
    before = count(m)
    m.ok("tap", "testid=saveOneMoreBtn")
    m.ok("tap", "testid=saveOneMoreBtn")
    seen["raised"] = count(m)
    assert seen["raised"] == before + 2


@flow.step(50)
def _(m):
    storage(m)
    assert count(m) == seen["raised"]


@flow.step(57)
def _(m):
    m.adb_shell(f"pm grant {APP} android.permission.ACCESS_FINE_LOCATION")
    assert "ACCESS_FINE_LOCATION: granted=true" in m.adb_shell(f"dumpsys package {APP}")


@flow.step(60)
def _(m):
    data = m.json("clear-data", APP, "--json")
    assert len(data["emptied"]) != 0, data


@flow.step(69)
def _(m):
    storage(m)
    assert count(m) == 0


@flow.step(70)
def _(m):
    assert m.value("text", "testid=storedFile") == "file: absent"


@flow.step(73)
def _(m):
    ran = m.fails("clear-data", "com.example.not.installed")
    assert "is not installed" in ran.both, ran.both
    m.run("terminate", APP)


test_clear_data = flow.test()
