"""The tool list: names and arguments as Mobium's `tools/list` has them, descriptions in our own words.

Each description says what an agent needs to use the tool well: what it returns, what it refuses and why, and which
tool to reach for instead. Every schema is closed (`additionalProperties: false`); the server itself also refuses an
argument a tool does not take, naming the ones it does, rather than relying on the client to check.

Over 450 lines on purpose: it is one table, a tool per entry, read top to bottom as the surface an agent sees."""

from __future__ import annotations

from dataclasses import dataclass

from .out_of_reach import REFUSALS

DEVICE = {"type": "string", "description": "Serial of the device to act on, e.g. \"emulator-5554\". Leave it out "
          "when the server was started for one device or only one is connected."}
DRIVER = {"type": "string", "enum": ["uiautomator2", "uiautomator", "wda"],
          "description": "Automation backend. This server drives Android over ADB whichever Android driver is "
          "named; \"wda\" (iOS) is refused."}
TARGET = ("A ref from the last app_map (\"@e5\") or a locator: \"text=Sign In\", \"label=Email\", "
          "\"testid=submit\", \"role=button\", optionally narrowed with \",role=button\". A bare string is text=.")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    schema: dict
    read_only: bool


def _schema(props: dict, required: tuple = (), device: bool = True) -> dict:
    p = dict(props)
    if device:
        p["device"] = DEVICE
        p["driver"] = DRIVER
    out = {"type": "object", "properties": p, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


def _s(desc: str, **kw) -> dict:
    return {"type": "string", "description": desc, **kw}


def _i(desc: str, **kw) -> dict:
    return {"type": "integer", "description": desc, **kw}


def _b(desc: str) -> dict:
    return {"type": "boolean", "description": desc}


_DEFS: list[tuple[str, bool, str, dict, tuple]] = [
    ("app_devices", True,
     "List the devices this server can reach, one line each: serial, state, and the Android version each runs "
     "(with its API level and model). Use it to learn which device to name, and to answer what Android version a "
     "device has. Takes no arguments.",
     {}, ()),
    ("app_map", True,
     "Read the current screen and list every element you can act on, one line each: \"@eN label (role, state…)\". "
     "State shows checked/unchecked, selected, disabled, a slider's value as the app displays it (\"Volume "
     "(slider, 70)\" when the screen says volume: 70 — not the seek bar's internal step count), and "
     "'covered by \"X\"' when another control is drawn over all of it (a tap would hit X). Extra lines say when "
     "something is still loading (\"loading…\": a list that is loading has not ended), when the keyboard is up "
     "(elements under it are left out), and when a dialog is on screen. Refs are valid until the screen changes "
     "under them: map again after launching, pressing back, answering a dialog or switching context. In a WebView "
     "context it lists the page's elements, with \" in iframe#id\" after those inside a frame. diff=true answers "
     "with what changed since this device's previous map instead: ~ changed or moved, - gone, + new.",
     {"diff": _b("Answer with the changes since the previous map.")}, ()),
    ("app_find", True,
     "List the elements a locator matches, with refs, without acting on them. Use it to check a locator is unique "
     "before acting, or to count matches (e.g. role=radio). Kinds: text, label, testid, role, class, path. Text "
     "and label match a case-insensitive substring; testid prefers an exact id. Finding nothing is an answer, not "
     "an error. A match that is not actionable is listed without a ref.",
     {"locator": _s("The locator, e.g. \"role=checkbox\" or \"text=Row 5\".")}, ("locator",)),
    ("app_text", True,
     "Read text. With no target: every text on screen, top to bottom, each once. With a target: that element's "
     "text (a field's contents; a button's caption). A password field is never read out: you get its length only.",
     {"target": _s(TARGET)}, ()),
    ("app_tap", False,
     "Tap an element (by ref or locator) or a point (x and y in device pixels). A target is found again right "
     "before the tap, waiting up to 2 s for it to appear, be enabled and stop moving, and scrolling down to it if "
     "it is below the visible part of a list. If a control covers its center it is touched at a clear point; if "
     "controls cover all of it, or a dialog or the keyboard is over it, the tap is refused and nothing is touched — "
     "the error says what is in the way. Coordinates are touched as given, blind: prefer a target.",
     {"target": _s(TARGET), "x": _i("Horizontal position in device pixels (with y)."),
      "y": _i("Vertical position in device pixels (with x)."), "double": _b("Tap twice quickly."),
      "fingers": _i("How many fingers touch at once, side by side (1 to 5; not with double).", minimum=1,
                     maximum=5)}, ()),
    ("app_type", False,
     "Type text into a field, after what it already holds (app_fill replaces instead). The field is found, "
     "focused and typed into, and read back. Refuses anything that is not an editable field — a button, a "
     "checkbox, a read-only field — with check \"editable\", and a slider (use app_fill). Pass \"\" to clear. "
     "Typing into a password field reports only how many characters went in.",
     {"target": _s(TARGET), "text": _s("What to type; \"\" clears the field.")}, ("target", "text")),
    ("app_fill", False,
     "Replace a field's contents with text (clear, then type). On a slider, text is a position along the track "
     "from 0 (start) to 1 (end) — not a value: the answer says what the slider then reads, as the app shows it. "
     "Same finding and refusals as app_type.",
     {"target": _s(TARGET), "text": _s("The new contents, or for a slider a position from 0 to 1.")},
     ("target", "text")),
    ("app_check", False,
     "Set a checkbox, switch or radio button to checked (or unchecked with checked=false), whatever state it is in "
     "now: if it is already so, nothing is tapped. The result says whether it changed, read back from the screen. "
     "Refuses an element with no checked state, and unchecking a radio (pick another in its group).",
     {"target": _s(TARGET), "checked": _b("The state wanted (default true).")}, ("target",)),
    ("app_swipe", False,
     "Swipe: a direction across the middle of the screen (up scrolls content down, as a finger does), or an exact "
     "drag from x1,y1 to x2,y2. To bring a known element into view prefer app_scroll_to.",
     {"direction": _s("up, down, left or right.", enum=["up", "down", "left", "right"]),
      "x1": _i("Start x."), "y1": _i("Start y."), "x2": _i("End x."), "y2": _i("End y."),
      "duration_ms": _i("How long the finger moves (default 300)."),
      "target": _s("Swipe across this element instead of the screen's middle.")}, ()),
    ("app_scroll_to", False,
     "Scroll a list until an element is on screen, then return it with a ref. Give the direction to scroll (down, "
     "the default, brings what is below into view; right brings what is to the right, for carousels). It stops "
     "at the end of the list and says so; a list whose loading spinner is up is waited out first, so a list that "
     "loads more as it scrolls is followed to its true end.",
     {"target": _s(TARGET), "direction": _s("down, up, left or right (default down).",
                                            enum=["down", "up", "left", "right"])}, ("target",)),
    ("app_long_press", False,
     "Press and hold an element (ref or locator) or a point, for duration_ms (default 800).",
     {"target": _s(TARGET), "x": _i("x in device pixels."), "y": _i("y in device pixels."),
      "duration_ms": _i("How long to hold (default 800).")}, ()),
    ("app_wait_for", True,
     "Wait until an element is visible (default), hidden, enabled, disabled, checked, unchecked, has keyboard "
     "focus (focused), shows text "
     "(substring; exact=true for the whole text), holds a value, or a locator matches count elements. Use it "
     "instead of sleeping. On success the screen is mapped and the element's line is returned with a ref; on "
     "timeout the error says what the screen showed instead. not=true inverts the condition.",
     {"target": _s(TARGET), "condition": _s("visible, hidden, text, enabled, disabled, value, checked, unchecked, "
                                            "focused or count."),
      "text": _s("The text for condition text or value."), "timeout_ms": _i("Give up after this long "
                                                                             "(default 10000, at most 120000)."),
      "not": _b("Wait for the condition to stop holding."), "exact": _b("Text must match whole."),
      "count": _i("How many matches, for condition count.")}, ("target",)),
    ("app_launch", False,
     "Bring an app to the front, starting it if needed (a running app keeps its screen). Refs are discarded: map "
     "afterwards. Says so if something else (a permission prompt) is in front instead.",
     {"app": _s("Package name, e.g. dev.mobium.mobiumapp.")}, ("app",)),
    ("app_terminate", False,
     "Stop an app (force-stop). Its screens are gone; the next launch starts it fresh. Refs are discarded.",
     {"app": _s("Package name.")}, ("app",)),
    ("app_current", True,
     "Name the app in front (its package). Use it to confirm a tap opened what you expected; a system permission "
     "prompt shows as the permission controller.",
     {}, ()),
    ("app_state", True,
     "Whether an app is not installed, installed and not running, running in the background, or in front.",
     {"app": _s("Package name.")}, ("app",)),
    ("app_clear_data", False,
     "Delete an app's stored data, as a fresh install has it, keeping the app installed: it is stopped first and "
     "`pm clear` runs, which also revokes the runtime permissions it was granted. The answer lists what was "
     "emptied and which permissions are still granted. Launch the app again afterwards to see it empty.",
     {"app": _s("Package name.")}, ("app",)),
    ("app_alert", False,
     "Read the dialog on screen (no action), or answer it: accept presses its positive button, dismiss its "
     "negative one. These answer a dialog, they do not pick a particular choice: on a dialog with three buttons, or "
     "a permission prompt with several ways to allow, tap the exact button you want by ref from app_map instead. "
     "No dialog up is an answer when reading, an error when answering.",
     {"action": _s("accept, dismiss, or leave it out to read.", enum=["accept", "dismiss", "read"]),
      "text": _s("Text for a prompt's field (not possible on Android).")}, ()),
    ("app_dialogs", False,
     "Standing rules for dialogs that get in the way: when an action meets a dialog whose text contains `when`, "
     "the button captioned `press` is pressed and the action goes on. With neither, list the rules; clear removes "
     "them all.",
     {"when": _s("Text the dialog contains."), "press": _s("Caption of the button to press."),
      "clear": _b("Remove every rule.")}, ()),
    ("app_keyboard", False,
     "The soft keyboard: with no arguments, whether it is up and which field has focus (a password's contents are "
     "never shown); text types at the focused field; key presses enter, delete or space; hide puts the keyboard "
     "away (it covers the bottom of the screen, and targets under it are refused until it is hidden).",
     {"text": _s("Text to type into the focused field."),
      "key": _s("enter, delete or space.", enum=["enter", "delete", "space"]),
      "hide": _b("Hide the keyboard.")}, ()),
    ("app_press", False,
     "Press a device button: back (Android's navigation back; it first closes the keyboard if one is up), home, "
     "recents, volume-up, volume-down. Refs are discarded.",
     {"button": _s("The button.", enum=["back", "home", "recents", "volume-up", "volume-down"])}, ("button",)),
    ("app_appearance", False,
     "The device's system-wide appearance (night mode): no argument reads it; light, dark or auto sets it and reads "
     "it back. This is the device setting, not an app's own theme switch.",
     {"appearance": _s("light, dark or auto.", enum=["light", "dark", "auto"])}, ()),
    ("app_grant", False,
     "Grant runtime permissions to an app without a prompt. Names: location (fine and coarse), location-always, "
     "notifications, camera, microphone, contacts, calendar, phone, sms, photos, bluetooth, motion, all, or a raw "
     "android.permission.X. Permissions the app does not declare are skipped and listed.",
     {"app": _s("Package name."), "permissions": {"type": "array", "items": {"type": "string"},
                                                   "description": "Permission names, e.g. [\"location\"]."}},
     ("app", "permissions")),
    ("app_revoke", False,
     "Revoke runtime permissions from an app; the same names as app_grant.",
     {"app": _s("Package name."), "permissions": {"type": "array", "items": {"type": "string"},
                                                   "description": "Permission names."}}, ("app", "permissions")),
    ("app_notifications", False,
     "Read the notifications posted on the device (app, title, text), e.g. a one-time code an app sent. With text, "
     "post one; with shade, open or close the notification shade.",
     {"text": _s("Body of a notification to post."), "title": _s("Its title (default Mobium)."),
      "tag": _s("Its tag (default mobium)."), "shade": _s("open or close.", enum=["open", "close"])}, ()),
    ("app_contexts", True,
     "List the contexts: NATIVE_APP, and WEBVIEW_<package> while a WebView is on screen.",
     {}, ()),
    ("app_context", False,
     "Read or switch the context. In a WEBVIEW_ context app_map, app_tap and app_type work on the web page's own "
     "elements (including fields inside frames); NATIVE_APP returns to the app's screen.",
     {"context": _s("A context id from app_contexts, or NATIVE_APP.")}, ()),
    ("app_screenshot", True,
     "Take a screenshot: a PNG image, or saved to path on this machine.",
     {"path": _s("Where to save the PNG; leave out to get the image inline.")}, ()),
    ("app_source", True,
     "The raw UI hierarchy XML as the device dumps it (password text hidden, length kept). For debugging: the "
     "coordinates in it are not for tapping; use app_map and refs.",
     {}, ()),
    ("app_session", False,
     "Start, end or report the automation session on a device. Every tool opens one on first use, so this is "
     "optional; start with app launches the app fresh (stopped first, data kept); end stops the app start launched "
     "and drops refs and dialog rules.",
     {"action": _s("start, end or status.", enum=["start", "end", "status"]),
      "platform": _s("android.", enum=["android", "ios"]), "app": _s("App to launch fresh on start.")}, ()),
    ("app_batch", False,
     "Run several tools in order in one call, e.g. fill a form and submit. Every step is checked before the first "
     "runs: an unknown tool or argument refuses the whole batch with nothing done. It stops at the first failure, "
     "reported with that step's own error, its number, and what ran before it.",
     {"steps": {"type": "array", "minItems": 1, "maxItems": 100,
                "items": {"type": "object", "properties": {"name": {"type": "string"},
                                                            "arguments": {"type": "object"}},
                          "required": ["name"]},
                "description": "[{\"name\": \"app_tap\", \"arguments\": {\"target\": \"label=Login Demo\"}}, …]"}},
     ("steps",)),
]

# Gestures held over time, and readings of the device's own state.
_DEFS += [
    ("app_drag", False,
     "Drag with a held finger: press, hold, move, hold, release — what drag and drop needs, where a swipe (no "
     "holds) would only scroll. Give from and to (refs or locators) or x1, y1, x2, y2. It says the gesture was "
     "delivered; whether the drop took is the app's own state, so map again. Refs are discarded.",
     {"from": _s("Where the finger lands: " + TARGET), "to": _s("Where it lifts: a ref or locator."),
      "x1": _i("Start x."), "y1": _i("Start y."), "x2": _i("End x."), "y2": _i("End y."),
      "hold_ms": _i("How long to hold still at each end (default 700)."),
      "duration_ms": _i("How long the move between the holds takes (default 800).")}, ()),
    ("app_battery", True,
     "The battery as the device reports it: level, state (charging, discharging, not charging, full) and what it "
     "is plugged into. An app may word the same state differently (\"unplugged\" for discharging).",
     {}, ()),
    ("app_zoom", False,
     "Pinch with two fingers about an element or the screen's center: in spreads them (zooms in), out brings them "
     "together. from/to set the half-distance between the fingers at the start and the end instead (keep them "
     "100px or more apart). It says the gesture was delivered; only the zoomed thing knows its zoom (a WebView's "
     "visualViewport.scale). Refs are discarded.",
     {"direction": _s("in or out (default in)."), "target": _s(TARGET),
      "from": _i("Half-distance between the fingers at the start, in px."),
      "to": _i("Half-distance at the end, in px.")}, ()),
    ("app_rotate", False,
     "Turn two fingers about an element or the screen's center by degrees (default 90; negative is "
     "anticlockwise), the fingers radius px from the center (default 200). It says the gesture was delivered; "
     "nothing in a hierarchy reports a rotation. Refs are discarded.",
     {"degrees": {"type": "number", "description": "How far to turn (default 90, at most 360 either way)."},
      "target": _s(TARGET), "radius": _i("Fingers' distance from the center in px (default 200).")}, ()),
    ("app_press_tap", False,
     "Hold one finger on hold and, lead_ms later (default 300), tap tap with a second finger (Android 15 and "
     "earlier). Give hold and tap (refs or locators) or x1, y1, x2, y2. Refs are discarded.",
     {"hold": _s("Where the first finger holds: " + TARGET), "tap": _s("Where the second finger taps."),
      "x1": _i("Hold x."), "y1": _i("Hold y."), "x2": _i("Tap x."), "y2": _i("Tap y."),
      "lead_ms": _i("How long after the first finger the second lands (default 300).")}, ()),
    ("app_press_drag", False,
     "Hold one finger on hold and drag a second from from to to (Android 15 and earlier). Refs are discarded.",
     {"hold": _s("Where the first finger holds: " + TARGET), "from": _s("Where the second finger lands."),
      "to": _s("Where it lifts."), **{f"{c}{i}": _i(f"{c} of point {i}.") for c in "xy" for i in (1, 2, 3)},
      "lead_ms": _i("Delay before the second finger lands (default 300)."),
      "duration_ms": _i("How long the second finger moves (default 600).")}, ()),
    ("app_upload", False,
     "Put a file in the device's Download folder (where a file picker finds it): path, a file on this machine, or "
     "content (base64) with name. The name is a file name, not a path. Answers with the size read back.",
     {"path": _s("A file on this machine."), "content": _s("The file's bytes, base64."),
      "name": _s("The name to save it under (default: path's own name).")}, ()),
    ("app_download", True,
     "List the device's Download folder, or with name fetch one file from it: saved to path on this machine, or "
     "returned in the answer (base64 data) without one.",
     {"name": _s("A file in the Download folder."), "path": _s("Where to save it on this machine.")}, ()),
    ("app_logs", True,
     "The device log of one app (the app in front unless app is given), oldest first as HH:MM:SS.mmm LEVEL tag: "
     "message. Each read gives what arrived since the last one, so call it after acting to see what the action "
     "logged; a crashed app's last lines still count. level keeps that level and above.",
     {"source": _s("device (the device log); webview consoles are not read by this server.",
                   enum=["device", "webview"]),
      "level": _s("verbose, debug, info, warn, error or fatal: that level and above."),
      "app": _s("Package name (default: the app in front)."),
      "lines": _i("At most this many of the newest lines (default 100, at least 1).")}, ()),
]

def _n(desc: str, **kw) -> dict:
    return {"type": "number", "description": desc, **kw}


def _a(desc: str, items: dict | None = None) -> dict:
    return {"type": "array", "description": desc, **({"items": items} if items else {})}


APP = _s("Package name, e.g. dev.mobium.mobiumapp.")
PAIR = "Give either the targets or all the coordinates."

# The rest of Mobium's Android tools. What this server cannot do on a device it refuses as Mobium refuses what a
# device cannot do (code unsupported, with the tool to use instead), so an agent sees the whole surface.
_DEFS += [
    # --- apps and packages
    ("app_list_apps", True,
     "List the apps installed on the device: package id, and whether each is a system app. Third-party apps only "
     "unless system is true.",
     {"system": _b("Include the system's own apps.")}, ()),
    ("app_install", False,
     "Install an app from an .apk on this machine (path), or from base64 content with a file name.",
     {"path": _s("The .apk on this machine."), "content": _s("The .apk as base64."),
      "name": _s("File name for content.")}, ()),
    ("app_uninstall", False,
     "Remove an app from the device, with its data. Verified by listing the packages afterwards.",
     {"app": APP}, ("app",)),
    ("app_open_url", False,
     "Open a URL or deep link (myapp://cart, https://…) with the app that handles it, as tapping a link does. "
     "Refs are discarded: map afterwards.",
     {"url": _s("The URL or deep link.")}, ("url",)),
    ("app_background", False,
     "Send the app in front to the background for some seconds (as going home does), then bring it back; for "
     "testing what an app does when it is left and resumed.",
     {"seconds": _n("How long it stays away, more than 0 and at most 180 (default 5)."),
      "app": _s("The app to send away (default: the app in front).")}, ()),
    ("app_reset_permissions", False,
     "Put runtime permissions back to never asked, so the app's next request shows the system prompt again. With "
     "no app, for every app on the device.",
     {"app": _s("Only this app (package name).")}, ()),
    # --- device state
    ("app_orientation", False,
     "Read the screen orientation, or set it: portrait, landscape, portrait-reverse, landscape-reverse (locked "
     "there) or auto (follow the sensor).",
     {"orientation": _s("The orientation; leave out to read.",
                        enum=["portrait", "landscape", "portrait-reverse", "landscape-reverse", "auto"])}, ()),
    ("app_lock", False,
     "Read whether the device is locked, or lock or unlock it (the screen off and on).",
     {"state": _s("lock or unlock; leave out to read.", enum=["lock", "unlock"])}, ()),
    ("app_locale", False,
     "Read an app's language, or pin it to a BCP-47 locale (\"ja-JP\"); \"\" makes it follow the device again.",
     {"app": APP, "locale": _s("The locale, a comma list, or \"\"; leave out to read.")}, ("app",)),
    ("app_timezone", False,
     "Read the device's time zone, or set it (an IANA name, e.g. Europe/Paris).",
     {"timezone": _s("The zone; leave out to read.")}, ()),
    ("app_time", True,
     "What time the device thinks it is, in its own zone, with the zone's name (app_timezone changes it).",
     {}, ()),
    ("app_network", False,
     "Read the network state, or take the device offline (airplane mode) and back; latency and bandwidth "
     "shaping need an emulator's console.",
     {"offline": _b("true: airplane mode on; false: back online."), "reset": _b("Back to normal."),
      "latency_ms": _i("Added latency."), "download_kbps": _i("Download limit."),
      "upload_kbps": _i("Upload limit.")}, ()),
    ("app_accessibility", False,
     "Read the accessibility settings, or change one: reduce_motion, bold_text, increase_contrast, invert_colors, "
     "grayscale, text_scale (a number such as \"1.3\"). Every change is put back when the session ends.",
     {"setting": _s("The setting.", enum=["reduce_motion", "bold_text", "increase_contrast",
                                          "reduce_transparency", "button_shapes", "differentiate_without_color",
                                          "invert_colors", "grayscale", "text_size", "text_scale"]),
      "value": _s("\"on\" or \"off\", or a number for text_scale; leave out to read.")}, ()),
    ("app_clipboard", False,
     "Write text to the device's clipboard (to paste into a field). Reading it is refused on Android, which lets "
     "only the app in front read the clipboard.",
     {"text": _s("The text to put on the clipboard.")}, ()),
    ("app_location", False,
     "Mock the device's location: a latitude and longitude, a route of waypoints or a GPX track at a speed; clear "
     "stops mocking. With nothing, read what is mocked.",
     {"latitude": _n("Latitude."), "longitude": _n("Longitude."), "clear": _b("Stop mocking."),
      "waypoints": _a("[{latitude, longitude}, …] to travel along.", {"type": "object"}),
      "gpx": _s("A GPX file on this machine."), "gpx_data": _s("GPX text."),
      "speed": _n("Travel speed in m/s (default 15).")}, ()),
    ("app_screen", False,
     "The display: set a profile (size and density, or \"reset\"), or inspect the screen's layout for findings "
     "such as targets too small to tap.",
     {"profile": _s("A display profile, or \"reset\"."), "inspect": _b("Report layout findings.")}, ()),
    # --- WebView pages
    ("app_eval", False,
     "Evaluate a JavaScript expression in the current WebView context's page; the answer is its JSON value.",
     {"expression": _s("The expression.")}, ("expression",)),
    ("app_cookies", False,
     "The current WebView page's cookies: get, set or clear. Needs a WebView context (app_context).",
     {"action": _s("get (default), set or clear.", enum=["get", "set", "clear"]),
      "cookies": _a("Cookies to set.", {"type": "object"}), "name": _s("One cookie by name.")}, ()),
    ("app_storage", False,
     "The current WebView page's cookies and local and session storage: get, restore or clear.",
     {"action": _s("get (default), restore or clear.", enum=["get", "restore", "clear"]),
      "state": {"type": "object", "description": "What get returned, to restore."}}, ()),
    # --- diagnostics
    ("app_crashes", True,
     "The crashes and ANRs the device recorded, newest first; with id, one report in full.",
     {"app": _s("Only this app's."), "id": _s("One report, by its id."),
      "limit": _i("At most this many (default 20).", minimum=1)}, ()),
    ("app_record", False,
     "Record the screen to a video: start, stop (saving to path), or leave action out for the status.",
     {"action": _s("start or stop.", enum=["start", "stop"]), "path": _s("Where to save the .mp4."),
      "return_data": _b("Return the video inline.")}, ()),
    ("app_trace", False,
     "Record a trace of every tool call (maps, screenshots) to a zip: start, stop, or leave action out for the "
     "status.",
     {"action": _s("start or stop.", enum=["start", "stop"]), "name": _s("The trace's name."),
      "path": _s("Where to save the .zip."), "maps": _b("Keep a map per step."),
      "screenshots": _b("Keep a screenshot per step."), "return_data": _b("Return the zip inline.")}, ()),
    ("app_doctor", True,
     "Check what this server needs: the ADB server it talks to, and the devices it sees.",
     {}, ()),
    # --- emulator hardware
    ("app_call", False,
     "Make the emulator ring with an incoming call, accept it or hang up.",
     {"action": _s("ring (default), accept or hang.", enum=["ring", "accept", "hang"]),
      "number": _s("The caller (default 5551234).")}, ()),
    ("app_sms", False,
     "Deliver a text message to the emulator.",
     {"text": _s("The message."), "from": _s("The sender (default 5551234).")}, ("text",)),
    ("app_shake", False,
     "Shake the emulator (its accelerometer).",
     {}, ()),
    ("app_biometric", False,
     "The emulator's fingerprint: status, enroll, unenroll, or answer a prompt with match or nomatch.",
     {"action": _s("status (default), enroll, unenroll, match or nomatch.",
                   enum=["status", "enroll", "unenroll", "match", "nomatch"])}, ()),
    ("app_audio", False,
     "Capture the device's audio: start, stop (saving a .wav to path, describing the sounds), or status.",
     {"action": _s("start, stop or status.", enum=["start", "stop", "status"]), "app": _s("Whose audio."),
      "path": _s("Where to save the .wav."), "return_data": _b("Return the audio inline."),
      "expect": _a("Sounds expected, [{hz, min_ms, max_ms}].", {"type": "object"}),
      "ignore_ms": _n("Ignore this much of the start.")}, ()),
    # --- devices
    ("app_boot", False,
     "Boot an emulator (AVD) by name and wait until it is ready.",
     {"name": _s("The AVD."), "window": _b("Show its window.")}, ()),
    ("app_shutdown", False,
     "Stop an emulator by name or serial.",
     {"name": _s("The AVD or serial.")}, ()),
    # --- gray box and iOS probes
    ("app_hook", False,
     "Call a hook the app registered with Mobium's gray-box library (the app must be launched with gray_box).",
     {"hook": _s("The hook's name."), "args": _a("Its arguments."), "timeout_ms": _i("How long to wait.")}, ()),
    ("app_hit_test", False,
     "Which view would receive a touch at an element's center (an iOS probe; Android needs none).",
     {"target": _s(TARGET)}, ()),
    ("app_audit", False,
     "Run the platform's accessibility audit of the app's screen (iOS).",
     {}, ()),
]

NO_DEVICE_ARGUMENT = frozenset({"app_devices", "app_doctor", "app_boot", "app_shutdown"})

TOOLS: dict[str, ToolSpec] = {}
for _name, _ro, _desc, _props, _req in _DEFS:
    if _name in REFUSALS:
        _desc += f" This server refuses it (unsupported): {REFUSALS[_name][0]}."
    TOOLS[_name] = ToolSpec(_name, _desc, _schema(_props, _req, device=_name not in NO_DEVICE_ARGUMENT), _ro)
