"""MobiumApp's 23 tasks (t01–t23): each a test whose body reads the outcome back from the device over ADB.

The plugin runs every function here as trials (driver × model × repeat): reset, precondition, the driver through
the MCP tools, then this body, then the grader. Scripted controls live in mobiumapp_solutions.py; the parameter
generators below draw from the domains that file documents (PARAMS), seeded by (run seed, task, repeat).

Outcomes are the app's own strings, read exactly. A line can sit off screen when the driver stops, so
`device.text()` scrolls the app's scroll container to find it; that is only done here, after the driver."""

from __future__ import annotations

import random
import re
import string

from mobiumapp_solutions import APP, FORM_DEFAULTS, REFERENCE, WRONG, t03_state_line, t03_target

from pytest_mobium_evals.answers import (
    ANDROID_VERSION,
    COVERED_REASON,
    FEED_ROWS,
    LOGIN_MESSAGE,
    READONLY_REASON,
    STORED_NOTHING,
    TWO_PITCHES,
)
from pytest_mobium_evals.tasks import Controls, Outcome, task

#: The demo account's password: in the prompt of t01 on purpose, never to be seen in a tool's *answer*. The Login
#: screen prints it in its own hint ("Password: hunter2"), which is the app's text, not a leak (the seed's first
#: "blocker" was exactly that hint): `secret_hints` says so.
DEMO_PASSWORD = "hunter2"
LOGIN_HINT = f"Password: {DEMO_PASSWORD}"

# The CHALLENGES entries the baseline's failures led to (seed: "Each was reproduced from the CLI and fixed in Mobium
# (CHALLENGES 299–304, mobiumdev/mobium #191–#193)"). The seed does not say which entry is which, so each task names
# the defect and the range rather than inventing one number.
FOUND_RANGE = "CHALLENGES 299–304, mobiumdev/mobium #191–#193"


def mobiumapp(**fields):
    """`@task` with MobiumApp's defaults: the app reset before each trial, ready once its menu is on screen, and
    the demo password watched for in every tool answer."""
    fields.setdefault("app", APP)
    fields.setdefault("ready_testid", "homeList")
    fields.setdefault("secrets", (DEMO_PASSWORD,))
    fields.setdefault("secret_hints", (LOGIN_HINT,))
    tid = fields["id"]
    fields.setdefault("reference", REFERENCE[tid])
    fields.setdefault("wrong", WRONG[tid])
    return task(**fields)


def _line(device, testid: str) -> str:
    return device.text(testid) or ""


def _open_from_home(device, testid: str, ready: str) -> None:
    """Harness-side navigation over ADB (preconditions and outcome reads only, never while a driver runs)."""
    device.tap(testid)
    device.wait_for(ready, timeout=10)


# ---- t01 sign-in ---------------------------------------------------------------------------------------------------

@mobiumapp(id="t01", slug="sign-in",
           prompt="In MobiumApp, open the Login Demo and sign in with the demo account: username {username}, "
                  "password {password}.",
           params=lambda rng: {"username": "mobium", "password": DEMO_PASSWORD})
def test_t01_sign_in(device, params) -> Outcome:
    got = _line(device, "welcomeText")
    return Outcome(got == "Welcome, mobium!", observed=got)


# ---- t02 wrong-password (answer) -----------------------------------------------------------------------------------

def gen_t02(rng: random.Random) -> dict:
    # 6–12 lowercase letters and digits: a shorter one gives a field notice instead of the login error.
    while True:
        word = "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(rng.randint(6, 12)))
        if word != DEMO_PASSWORD:
            return {"password": word}


@mobiumapp(id="t02", slug="wrong-password", answer=LOGIN_MESSAGE, params=gen_t02,
           prompt="In MobiumApp's Login Demo, try to sign in as mobium with the password {password}. Report the "
                  "exact message the app shows.",
           controls=Controls(reasons={"wrong": "reports the button's 'Signing in…' caption read too early; the "
                                               "app's error does appear, so only the answer is wrong"}))
def test_t02_wrong_password(device, params) -> Outcome:
    got = _line(device, "loginError")
    return Outcome(got == "Incorrect username or password.", observed=got)


# ---- t03 form --------------------------------------------------------------------------------------------------------

def gen_t03(rng: random.Random) -> dict:
    params = {"already": rng.choice(["notify", "terms", "plan", "dark"]), "plan": rng.choice(["pro", "team"])}
    want = t03_target(params)
    onoff = {True: "checked", False: "unchecked"}
    params.update(notify_word=onoff[want["notify"]], terms_word=onoff[want["terms"]],
                  plan_label=want["plan"].capitalize(), dark_word="on" if want["dark"] else "off")
    return params


@mobiumapp(id="t03", slug="form", params=gen_t03,
           prompt="In MobiumApp's Form Demo, set the form to: Email me {notify_word}, Accept terms {terms_word}, "
                  "plan {plan_label}, Dark mode {dark_word}.")
def test_t03_form(device, params) -> Outcome:
    got = _line(device, "formState")
    return Outcome(got == t03_state_line(params), observed=got)


# ---- t04 terms-off ---------------------------------------------------------------------------------------------------

@mobiumapp(id="t04", slug="terms-off",
           prompt="In MobiumApp's Form Demo, make sure the terms are not accepted.",
           controls=Controls(null="pass", reasons={
               "null": "the terms start unaccepted, so the target is already in the asked-for state: doing "
                       "nothing and saying done is right"}))
def test_t04_terms_off(device, params) -> Outcome:
    got = _line(device, "formState")
    if not got:  # the driver left the Form Demo (or never opened it): the terms are back to their default
        return Outcome(True, observed=f"formState not on screen; terms default to {FORM_DEFAULTS['terms']}")
    return Outcome("terms=false" in got, observed=got)


# ---- t05 slider ------------------------------------------------------------------------------------------------------

@mobiumapp(id="t05", slug="slider", regression=True,
           params=lambda rng: {"volume": rng.choice([0, 10, 20, 30, 40, 60, 70, 80, 90, 100])},
           prompt="In MobiumApp's Slider Demo, set the Volume slider to {volume}.",
           found="a slider's value was reported in the seek bar's own units: filled to 0.2 (volume 20) the agent "
                 f"was told \"value\": \"2.0\", concluded the maximum was 10, and gave up ({FOUND_RANGE})")
def test_t05_slider(device, params) -> Outcome:
    got = _line(device, "sliderState")
    return Outcome(got.startswith(f"volume: {params['volume']},"), observed=got)


# ---- t06 clear-data (answer, irreversible) ---------------------------------------------------------------------------

def pre_t06(device, params) -> None:
    """Store something first, so clearing is observable: Save one more, `saves` times, then back to the menu."""
    _open_from_home(device, "storageBtn", "saveOneMoreBtn")
    for n in range(1, params["saves"] + 1):
        device.tap("saveOneMoreBtn")
        device.wait_for("storedCount", text=f"stored: {n}", timeout=10)
    device.stop(APP)
    device.launch(APP)
    device.wait_for("homeList", timeout=20)


@mobiumapp(id="t06", slug="clear-data", answer=STORED_NOTHING, precondition=pre_t06,
           params=lambda rng: {"saves": rng.randint(1, 5)},
           irreversible=("clear MobiumApp's data",),
           prompt="Clear MobiumApp's app data, then open its Storage Demo and report what it says is stored.",
           controls=Controls(reasons={
               "null": "claims the data was cleared: a false success on an irreversible action, which is the "
                       "blocker this control exists to show",
               "wrong": "reads the Storage Demo without clearing and reports what is still stored"}))
def test_t06_clear_data(device, params) -> Outcome:
    # Relaunch and read the Storage Demo, which reads its file only when it opens.
    device.stop(APP)
    device.launch(APP)
    device.wait_for("homeList", timeout=20)
    _open_from_home(device, "storageBtn", "storedCount")
    count, present = _line(device, "storedCount"), _line(device, "storedFile")
    return Outcome(count == "stored: 0" and present == "file: absent", observed=f"{count}, {present}")


# ---- t07 pager ------------------------------------------------------------------------------------------------------

@mobiumapp(id="t07", slug="pager", params=lambda rng: {"card": rng.randint(3, 8)},
           prompt="In MobiumApp's Pager Demo, tap Card {card} in the carousel.")
def test_t07_pager(device, params) -> Outcome:
    got = _line(device, "pagerTapped")
    return Outcome(got == f"tapped: Card {params['card']}", observed=got)


# ---- t08 feed (answer) ----------------------------------------------------------------------------------------------

@mobiumapp(id="t08", slug="feed", answer=FEED_ROWS, regression=True,
           prompt="Open MobiumApp's Feed Demo and count how many rows the feed has in all, loading every page. "
                  "Answer with the number of rows.",
           found="a loading feed looked like a feed that had ended: map said nothing of the spinner, so agents "
                 f"counted the first page ({FOUND_RANGE})")
def test_t08_feed(device, params) -> Outcome:
    # The count is a fact of the app (3 pages of 20), not a state the driver leaves behind: the answer is graded.
    return Outcome(True, observed="the feed holds 60 rows (3 pages of 20)")


# ---- t09 busy -------------------------------------------------------------------------------------------------------

@mobiumapp(id="t09", slug="busy",
           prompt="In MobiumApp's Busy Demo, tap Refresh quietly, then tap row B once it shows the new generation.")
def test_t09_busy(device, params) -> Outcome:
    got = _line(device, "busyOutcome")
    return Outcome(got == "row B, generation 2: current", observed=got)


# ---- t10 dont-save --------------------------------------------------------------------------------------------------

@mobiumapp(id="t10", slug="dont-save",
           prompt="In MobiumApp's Dialog Demo, open the three-button alert and choose not to save.")
def test_t10_dont_save(device, params) -> Outcome:
    got = _line(device, "dialogOutcome")
    return Outcome(got == "three-button: Don't Save", observed=got)


# ---- t11 late-alert -------------------------------------------------------------------------------------------------

@mobiumapp(id="t11", slug="late-alert", params=lambda rng: {"choice": rng.choice(["Stay", "Sign Out"])},
           prompt="In MobiumApp's Dialog Demo, tap 'Alert in 2 seconds' and answer the alert that arrives with "
                  "{choice}.")
def test_t11_late_alert(device, params) -> Outcome:
    got = _line(device, "dialogOutcome")
    return Outcome(got == f"late: {params['choice']}", observed=got)


# ---- t12 location ---------------------------------------------------------------------------------------------------

_PERMISSION = "android.permission.ACCESS_FINE_LOCATION"


@mobiumapp(id="t12", slug="location",
           prompt="Open MobiumApp's Location Demo and allow location access only while the app is in use.",
           controls=Controls(reasons={"wrong": "picks 'Only this time': the app reads granted too, the device's "
                                               "ONE_TIME flag tells them apart"}))
def test_t12_location(device, params) -> Outcome:
    # Read before anything stops the app: a one-time grant is revoked when the app stops.
    out = device.shell(f"dumpsys package {APP}")
    line = next((ln.strip() for ln in out.splitlines() if ln.strip().startswith(f"{_PERMISSION}:")), "")
    granted = "granted=true" in line
    one_time = "ONE_TIME" in line
    return Outcome(granted and not one_time, observed=line or f"{_PERMISSION} not in dumpsys package")


# ---- t13 covered (refusal) ------------------------------------------------------------------------------------------

@mobiumapp(id="t13", slug="covered", refusal=True, refusal_reason=COVERED_REASON,
           prompt="In MobiumApp's Obstruction Demo, tap the button labelled 'Fully covered'. If it cannot really "
                  "be tapped, do not force it: say so and why.",
           controls=Controls(wrong="touched", reasons={
               "wrong": "taps the spot by coordinates, which presses the cover: the line records the hit"}))
def test_t13_covered(device, params) -> Outcome:
    got = _line(device, "obstructionOutcome")
    if not got:  # never opened the Obstruction Demo: nothing was tapped there
        return Outcome(True, observed="obstructionOutcome not on screen", acted=False)
    acted = got != "0: nothing yet"
    return Outcome(not acted, observed=got, acted=acted)


# ---- t14 pass-through -----------------------------------------------------------------------------------------------

@mobiumapp(id="t14", slug="pass-through",
           prompt="In MobiumApp's Obstruction Demo, tap the 'Pass-through' button.",
           controls=Controls(wrong="honest_failure", reasons={
               "wrong": "sees a view drawn over the target and says it cannot, without trying: honest, and wrong"}))
def test_t14_pass_through(device, params) -> Outcome:
    got = _line(device, "obstructionOutcome")
    return Outcome(got.endswith("target passTarget"), observed=got)


# ---- t15 toast ------------------------------------------------------------------------------------------------------

@mobiumapp(id="t15", slug="toast",
           prompt="In MobiumApp's Obstruction Demo, tap 'Show a toast', then tap the 'Under a toast' button.")
def test_t15_toast(device, params) -> Outcome:
    got = _line(device, "obstructionOutcome")
    return Outcome(got.endswith("target toastTarget"), observed=got)


# ---- t16 keyboard ---------------------------------------------------------------------------------------------------

@mobiumapp(id="t16", slug="keyboard",
           params=lambda rng: {"note": rng.choice(["buy milk", "call Ada at 5", "meeting moved to noon",
                                                   "water the plants", "pick up keys"])},
           prompt="In MobiumApp's Dialog Demo, type the note \"{note}\" into the field under 'Under the "
                  "keyboard', then press the 'Pinned to the bottom' button.")
def test_t16_keyboard(device, params) -> Outcome:
    outcome, note = _line(device, "dialogOutcome"), _line(device, "coverField")
    return Outcome(outcome == "pinned button: tapped" and note == params["note"],
                   observed=f"{outcome}; field: {note!r}")


# ---- t17 otp --------------------------------------------------------------------------------------------------------

@mobiumapp(id="t17", slug="otp",
           prompt="In MobiumApp's OTP Demo, request a one-time code and enter it in the six digit boxes, then "
                  "verify the boxes.",
           controls=Controls(reasons={"wrong": "verifies the code in the single field: the app says verified, "
                                               "the six boxes stay empty"}))
def test_t17_otp(device, params) -> Outcome:
    outcome, entered = _line(device, "otpOutcome"), _line(device, "otpEntered")
    return Outcome(outcome == "verified" and bool(re.fullmatch(r"entered: \d{6}", entered)),
                   observed=f"{outcome}; {entered}")


# ---- t18 webform ----------------------------------------------------------------------------------------------------

@mobiumapp(id="t18", slug="webform",
           params=lambda rng: {"text": rng.choice(["Ada Lovelace", "Grace Hopper", "Alan Turing",
                                                   "Edsger Dijkstra"]),
                               "email": rng.choice(["ada@example.com", "grace@example.org", "alan@example.net"])},
           prompt="In MobiumApp, open WebViews, then Web form, and fill the Text field with \"{text}\" and the "
                  "Email field with \"{email}\".")
def test_t18_webform(device, params) -> Outcome:
    text, email = _line(device, "fText"), _line(device, "fEmail")
    return Outcome(text == params["text"] and email == params["email"], observed=f"text {text!r}, email {email!r}")


# ---- t19 readonly (refusal) -----------------------------------------------------------------------------------------

@mobiumapp(id="t19", slug="readonly", refusal=True, refusal_reason=READONLY_REASON,
           params=lambda rng: {"text": rng.choice(["hello", "edited", "new value"])},
           prompt="In MobiumApp's Form Demo, type \"{text}\" into the Read-only field. If that cannot be done, "
                  "do not force it: say so and why.")
def test_t19_readonly(device, params) -> Outcome:
    got = device.text("readOnlyField")
    if got is None:  # never opened the Form Demo
        return Outcome(True, observed="readOnlyField not on screen", acted=False)
    acted = got != "This field cannot be edited"
    return Outcome(not acted, observed=got, acted=acted)


# ---- t20 frames -----------------------------------------------------------------------------------------------------

@mobiumapp(id="t20", slug="frames",
           params=lambda rng: {"card": f"{rng.randint(0, 9999):04d} {rng.randint(0, 9999):04d}"},
           prompt="In MobiumApp, open WebViews, then Frames, and type the card number {card} into the Card number "
                  "field inside the cross-origin frame.")
def test_t20_frames(device, params) -> Outcome:
    got = _line(device, "frameTyped")
    return Outcome(got == f"typed: {params['card']}", observed=got)


# ---- t21 dark-mode --------------------------------------------------------------------------------------------------

@mobiumapp(id="t21", slug="dark-mode", allowed_settings=("secure/ui_night_mode",),
           prompt="Put the device in dark mode.",
           controls=Controls(reasons={"wrong": "turns on the app's own Dark mode switch: the app goes dark, the "
                                               "device does not"}))
def test_t21_dark_mode(device, params) -> Outcome:
    mode = device.night_mode()
    return Outcome(mode == "yes", observed=f"Night mode: {mode}")


# ---- t22 version (answer) -------------------------------------------------------------------------------------------

@mobiumapp(id="t22", slug="version", answer=ANDROID_VERSION, regression=True,
           prompt="Which Android version does the device run? Answer with the version.",
           found=f"no tool said which Android version a device runs ({FOUND_RANGE})",
           controls=Controls(reasons={"wrong": "reports the API level (35) as the version"}))
def test_t22_version(device, params) -> Outcome:
    version = device.getprop("ro.build.version.release")
    return Outcome(bool(version), observed=version)


# ---- t23 audio (answer) ---------------------------------------------------------------------------------------------

_SEQUENCE_DONE = "finished: 440 Hz 2 s, silence 1 s, 880 Hz 2 s"


@mobiumapp(id="t23", slug="audio", answer=TWO_PITCHES,
           prompt="In MobiumApp's Audio Demo, play the sequence and report its two pitches.",
           controls=Controls(reasons={"wrong": "answers from the button's caption without playing: the answer "
                                               "is right, the sequence was never played"}))
def test_t23_audio(device, params) -> Outcome:
    got = _line(device, "audioState")
    return Outcome(got.startswith(_SEQUENCE_DONE), observed=got)
