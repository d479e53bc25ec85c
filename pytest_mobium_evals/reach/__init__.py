"""Processes and sockets: ADB (the shared shell path, the harness's Device), the device lease, the MCP tool servers
and the proxies run in front of them with `python -m`."""
