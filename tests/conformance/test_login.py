"""login.sh: the Login Demo's negative paths judged by the app's own messages, a sign-in, log-out, and a typed
password never printed."""

from conformance_cli import APP, Flow

flow = Flow("login.sh")


def attempt(m, username: str, password: str) -> None:
    m.ok("fill", "testid=username", username)
    m.ok("fill", "testid=password", password)
    m.ok("tap", "testid=loginBtn")


def unprinted(m, secret: str) -> None:
    said = m.run("map").both + m.run("text", "testid=password").both
    assert secret not in said, f"the password {secret!r} was printed: {said}"


@flow.step(106)
def _(m):
    m.fresh_start()


@flow.step(107)
def _(m):
    m.ok("tap", "label=Login Demo")


@flow.step(108)
def _(m):
    m.ok("wait", "testid=loginBtn")


@flow.step(109)
def _(m):
    assert "Username: mobium" in m.value("text")


@flow.step(114)
def _(m):
    m.ok("tap", "testid=loginBtn")
    m.says("userError", "Enter your username.")


@flow.step(115)
def _(m):
    m.says("passError", "Enter your password.")


@flow.step(116)
def _(m):
    m.absent("loginError")


@flow.step(120)
def _(m):
    attempt(m, "ab", "hunter2")
    m.says("userError", "Username must be at least 3 characters.")


@flow.step(121)
def _(m):
    m.says("passOk", "✓ Password meets the requirements.")


@flow.step(125)
def _(m):
    attempt(m, "mob ium!", "hunter2")
    m.says("userError", "Username can contain only letters, numbers, dots (.), dashes (-) and underscores (_).")


@flow.step(129)
def _(m):
    attempt(m, "mobium", "abc")
    m.says("userOk", "✓ Username looks good.")


@flow.step(130)
def _(m):
    m.says("passError", "Password must be at least 6 characters.")


@flow.step(134)
def _(m):
    attempt(m, "mobium", "wrongpass1")
    m.says("loginError", "Incorrect username or password.")


@flow.step(135)
def _(m):
    m.absent("welcomeText")


@flow.step(136)
def _(m):
    unprinted(m, "wrongpass1")


@flow.step(140)
def _(m):
    attempt(m, "nobody", "hunter2")
    m.says("loginError", "Incorrect username or password.")


@flow.step(141)
def _(m):
    unprinted(m, "hunter2")


@flow.step(149)
def _(m):
    attempt(m, "MoBium", "hunter2")
    m.says("welcomeText", "Welcome, mobium!")


@flow.step(150)
def _(m):
    m.says("secretText", "You are logged in.")


@flow.step(151)
def _(m):
    unprinted(m, "hunter2")


@flow.step(157)
def _(m):
    m.ok("dialogs", "--when", "Save Password", "--press", "Not Now")


@flow.step(159)
def _(m):
    m.ok("tap", "testid=logoutBtn")
    m.ok("wait", "testid=loginBtn")


@flow.step(160)
def _(m):
    m.absent("loginError")


@flow.step(161)
def _(m):
    m.absent("userError")


@flow.step(162)
def _(m):
    v = m.value("text", "testid=username")
    assert v in ("", "username"), f"the username still reads {v!r} after logging out"


@flow.step(166)
def _(m):
    m.ok("dialogs", "--clear")
    m.run("terminate", APP)


test_login = flow.test()
