"""The MCP server on stdio: the low-level SDK server, so each answer is exactly one text block plus
structuredContent, and a failed tool is a normal result with isError true (never a protocol error)."""

from __future__ import annotations

import base64
import functools
import logging
import traceback
from typing import Any, Callable, Optional

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from .errors import MobiumError
from .schemas import TOOLS
from .tools import Mobium, Result

log = logging.getLogger("mobium-evals.mcp")
SERVER_NAME = "mobium"
SERVER_VERSION = "0.1.0-evals"


def tool_list() -> list[types.Tool]:
    return list(_tools())


@functools.lru_cache(maxsize=1)
def _tools() -> tuple[types.Tool, ...]:
    # Built once: a prepared server (prefork) builds it before forking, so no trial's server spends its start on it.
    return tuple(types.Tool(name=s.name, description=s.description, input_schema=s.schema,
                            annotations=types.ToolAnnotations(read_only_hint=s.read_only)) for s in TOOLS.values())


def to_call_result(res: Result) -> types.CallToolResult:
    content: list[Any] = []
    if res.text or res.image is None:
        content.append(types.TextContent(text=res.text))
    if res.image is not None:
        content.append(types.ImageContent(data=base64.b64encode(res.image).decode("ascii"), mime_type="image/png"))
    return types.CallToolResult(content=content, structured_content=res.data)


def error_result(err: MobiumError) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=err.message)], structured_content=err.payload(),
                                is_error=True)


def run_tool(mobium: Mobium, name: str, arguments: Optional[dict]) -> types.CallToolResult:
    """One tool call, whatever happens: a tool's own failure and a bug both come back as isError results."""
    try:
        return to_call_result(mobium.call(name, arguments))
    except MobiumError as err:
        return error_result(err)
    except Exception as exc:  # a bug must not kill the agent's only tool server
        log.error("tool %s failed: %s", name, traceback.format_exc())
        return error_result(MobiumError("internal", f"{name} failed inside the server: "
                                        f"{type(exc).__name__}: {exc}", "report this; try the call again"))


def build_server(mobium: Mobium, before_call: Callable[[], None] = lambda: None) -> Server:
    """`before_call` runs before each tool call, on the event loop (a prepared server's fork ends there if its client
    has ended it: `prefork.end_if_detached`)."""
    tools = tool_list()

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        before_call()
        # Device calls block on adb; run them off the event loop so pings and cancellations still get through.
        return await anyio.to_thread.run_sync(run_tool, mobium, params.name, params.arguments)

    return Server(SERVER_NAME, version=SERVER_VERSION, on_list_tools=on_list_tools, on_call_tool=on_call_tool,
                  instructions="Mobium's tools for driving an Android device: app_map the screen, act on refs, "
                               "read results from the structured half of each answer.")


async def serve_stdio(mobium: Mobium, before_call: Callable[[], None] = lambda: None) -> None:
    server = build_server(mobium, before_call)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        # The session ends with the server, as Mobium's does (`mobium mcp` closes its handlers when stdin ends):
        # what it changed for the session is put back.
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(mobium.close)
