"""A tiny stdio MCP server standing in for Mobium in the agent tests: MobiumApp's sign-in flow only (menu → Login
Demo → username/password → Log In → welcome), with Mobium's tool names and argument shapes. It keeps its screen in
a JSON file (TINY_STATE) so a test can read the outcome the way the harness reads a device: from the app's state, not
from what the agent says. TINY_PIDFILE, when set, receives the server's pid so a test can kill it mid-trial."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

USERNAME, PASSWORD = "mobium", "hunter2"
STATE_FILE = Path(os.environ["TINY_STATE"]) if os.environ.get("TINY_STATE") else None

state = {"screen": "menu", "username": "", "password": "", "message": "", "calls": 0}


def _save() -> None:
    if STATE_FILE is not None:
        tmp = STATE_FILE.with_suffix(".tmp")
        tmp.write_text(json.dumps(state))
        os.replace(tmp, STATE_FILE)


def _elements() -> list[tuple[str, str, str]]:
    """(ref id, kind, label) of what is on screen."""
    if state["screen"] == "menu":
        return [("loginDemo", "button", "Login Demo"), ("formsDemo", "button", "Forms Demo")]
    if state["screen"] == "login":
        masked = "•" * len(state["password"])
        items = [("usernameInput", "textbox", f"Username: {state['username']}"),
                 ("passwordInput", "textbox", f"Password: {masked}"),
                 ("loginButton", "button", "Log In")]
        if state["message"]:
            items.append(("errorText", "text", state["message"]))
        return items
    return [("welcomeText", "text", f"Welcome, {state['username']}!"), ("logoutButton", "button", "Log Out")]


def _find(target: str) -> tuple[str, str, str] | None:
    key = target.split("=", 1)[-1].lstrip("@")
    for element in _elements():
        ref, _, label = element
        if key in (ref, label) or label.startswith(key + ":"):
            return element
    return None


def _count() -> None:
    state["calls"] += 1
    _save()


server = MCPServer("mobium")


@server.tool(structured_output=False)
def app_map() -> str:
    """Describe the current screen: its elements with their ids and labels."""
    _count()
    return "\n".join(f"@{ref} {kind} \"{label}\"" for ref, kind, label in _elements())


@server.tool(structured_output=False)
def app_tap(target: str) -> str:
    """Tap an element: "text=Log In", "testid=loginButton" or "@loginButton"."""
    _count()
    element = _find(target)
    if element is None:
        raise ToolError(f"no element matches {target!r}; call app_map to see the screen")
    ref = element[0]
    if ref == "loginDemo":
        state["screen"] = "login"
    elif ref == "loginButton":
        if (state["username"], state["password"]) == (USERNAME, PASSWORD):
            state["screen"], state["message"] = "welcome", ""
        else:
            state["message"] = "Invalid username or password"
    elif ref == "logoutButton":
        state.update(screen="menu", username="", password="")
    _save()
    return f"tapped {ref}"


@server.tool(structured_output=False)
def app_fill(target: str, text: str) -> str:
    """Replace a text field's content."""
    _count()
    element = _find(target)
    if element is None or element[1] != "textbox":
        raise ToolError(f"no text field matches {target!r}")
    state["username" if element[0] == "usernameInput" else "password"] = text
    _save()
    return f"filled {element[0]}"


@server.tool(structured_output=False)
def app_wait_for(target: str, timeout_ms: int = 10000) -> str:
    """Wait until an element is on screen."""
    _count()
    element = _find(target)
    if element is None:
        raise ToolError(f"timed out after {timeout_ms} ms waiting for {target!r}")
    return f"@{element[0]} \"{element[2]}\""


if __name__ == "__main__":
    if os.environ.get("TINY_PIDFILE"):
        Path(os.environ["TINY_PIDFILE"]).write_text(str(os.getpid()))
    _save()
    server.run("stdio")
    sys.exit(0)
