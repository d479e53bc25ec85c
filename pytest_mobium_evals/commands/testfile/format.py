"""The `*.test.json` format's keys and limits, and the tool schemas (`tools/list`) a file is checked against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

# Arguments every device tool takes; a test file runs on one device, so steps may not name them.
COMMON_ARGUMENTS = ("device", "driver")

FILE_KEYS = ("description", "app", "beforeEach", "tests")
TEST_KEYS = ("name", "description", "steps")
LONG_STEP_KEYS = ("name", "arguments", "description", "soft")
STEP_EXTRA_KEYS = ("description", "soft")  # what may sit beside a shorthand or an expect
EXPECT_KEYS = ("tool", "arguments", "field", "equals", "timeout_ms")

# A tool whose arguments are alternatives (a direction, four coordinates, or a target *and* a direction) has no one
# argument a bare string could mean, even when one of them is called `target`. Mobium's runner refuses
# `{"swipe": "up"}`; newer servers give app_swipe a `target`, which the rule below would otherwise pick.
NO_MAIN_ARGUMENT = frozenset({"app_swipe", "app_drag", "app_press_drag", "app_press_tap"})

# Tools that read unless one of these arguments is given (Mobium's IsReadCall; their tools/list entry says
# readOnlyHint false because the hint is per tool, not per call). An expect on them is accepted without those.
READ_UNLESS: dict[str, frozenset[str]] = {
    "app_accessibility": frozenset({"value"}),
    "app_alert": frozenset({"action", "text"}),
    "app_appearance": frozenset({"appearance"}),
    "app_clipboard": frozenset({"text"}),
    "app_context": frozenset({"context"}),
    "app_dialogs": frozenset({"clear", "press", "when"}),
    "app_keyboard": frozenset({"hide", "key", "text"}),
    "app_locale": frozenset({"locale"}),
    "app_location": frozenset({"clear", "gpx", "gpx_data", "latitude", "longitude", "speed", "waypoints"}),
    "app_network": frozenset({"download_kbps", "latency_ms", "offline", "reset", "upload_kbps"}),
    "app_notifications": frozenset({"shade", "tag", "text", "title"}),
    "app_orientation": frozenset({"orientation"}),
    "app_timezone": frozenset({"timezone"}),
}

ASSERTION_TOOL = "app_wait_for"
# app_wait_for's conditions as the format documents them, for a server whose schema leaves `condition` a plain
# string; the argument each needs beside the target.
WAIT_CONDITIONS = ("visible", "hidden", "text", "value", "enabled", "disabled", "checked", "unchecked", "focused",
                   "count")
CONDITION_NEEDS = {"text": "text", "value": "text", "count": "count"}
DEFAULT_EXPECT_TIMEOUT_MS = 10_000
EXPECT_POLL_S = 0.25

EXIT_PASSED, EXIT_FAILED, EXIT_BAD_FILE, EXIT_NO_DEVICE = 0, 1, 2, 3


# ---- the tools a file is checked against ------------------------------------------------------------------------

@dataclass(frozen=True)
class ToolSchema:
    """One `tools/list` entry, reduced to what the checks need."""

    name: str
    properties: dict
    required: tuple[str, ...]
    read_only: bool

    @classmethod
    def from_listing(cls, entry: dict) -> "ToolSchema":
        schema = entry.get("inputSchema") or entry.get("input_schema") or {}
        annotations = entry.get("annotations") or {}
        return cls(name=entry["name"], properties=dict(schema.get("properties") or {}),
                   required=tuple(schema.get("required") or ()),
                   read_only=bool(annotations.get("readOnlyHint", False)))

    @property
    def own_arguments(self) -> list[str]:
        """The arguments a step may give (every device tool also takes device and driver, which a file may not)."""
        return sorted(p for p in self.properties if p not in COMMON_ARGUMENTS)

    def main_argument(self) -> Optional[str]:
        """Where the string shorthand goes: `target` when the tool has one, else its one required string, else its
        only argument; None when it has no one main argument."""
        if self.name in NO_MAIN_ARGUMENT:
            return None
        own = self.own_arguments
        if "target" in own:
            return "target"
        required_strings = [p for p in self.required if p in own and _types(self.properties[p]) & {"string"}]
        if len(required_strings) == 1:
            return required_strings[0]
        if len(own) == 1:
            return own[0]
        return None

    def reads_only(self, arguments: dict) -> bool:
        if self.read_only:
            return True
        acting = READ_UNLESS.get(self.name)
        return acting is not None and not (set(arguments) & acting)


def schemas_from(tool_schemas: Any) -> dict[str, ToolSchema]:
    """Accepts `tools/list`'s answer (`{"tools": [...]}`), its list of entries, a name -> entry mapping, or
    ToolSchema values."""
    if isinstance(tool_schemas, dict) and "tools" in tool_schemas and isinstance(tool_schemas["tools"], list):
        tool_schemas = tool_schemas["tools"]
    if isinstance(tool_schemas, dict):
        tool_schemas = [dict(v, name=k) if isinstance(v, dict) else v for k, v in tool_schemas.items()]
    out: dict[str, ToolSchema] = {}
    for entry in tool_schemas:
        schema = entry if isinstance(entry, ToolSchema) else ToolSchema.from_listing(_as_dict(entry))
        out[schema.name] = schema
    return out


def _as_dict(entry: Any) -> dict:
    if isinstance(entry, dict):
        return entry
    # an MCP SDK Tool object
    dump = getattr(entry, "model_dump", None)
    if callable(dump):
        data = dump(by_alias=True, exclude_none=True)
        if "inputSchema" not in data and "input_schema" in data:
            data["inputSchema"] = data["input_schema"]
        return data
    return {"name": entry.name, "inputSchema": getattr(entry, "inputSchema", {}),
            "annotations": getattr(entry, "annotations", None) or {}}


def _types(prop: dict) -> set[str]:
    t = prop.get("type")
    if t is None:
        return set()
    return {t} if isinstance(t, str) else set(t)
