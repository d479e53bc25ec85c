"""A Mobium-compatible MCP server that reaches a device only over ADB (so it drives the virtual device and a real
emulator alike): `mobium-evals mcp [--device SERIAL] [--adb HOST:PORT]`.

Modules, by concern:
- `device`   — AdbLink: the shell commands (uiautomator dump, input, am, pm, cmd, dumpsys, getprop, screencap);
- `snapshot` — one parsed screen read: nodes, roles, labels, dialogs, keyboard, WebViews and their frames;
- `elements` — the map (elements, states, slider values, covers), locators, matching, aiming;
- `tools`    — `Mobium.call(name, arguments) -> Result`: dispatch, argument checks, devices and screen reads; the
  tools themselves by family: `resolution` (the auto-wait every targeted action shares), `reading`, `acting`,
  `waiting`, `apps`, `system_ui`, `sessions` (contexts, sessions, batches); `tool_state` (Result, the ref table,
  per-device state) and `shapes` (how answers are formatted) under them;
- `schemas`  — the tool list (names, closed schemas, descriptions, readOnlyHint);
- `errors`   — `MobiumError` in Mobium's {code, message, remedy, retryable, details} shape;
- `server`   — the low-level MCP server on stdio; `cli` — the `mcp` subcommand.
"""
