"""`mobium-evals surface`: check variant files, print a run's before/after table, capture a real Mobium's surface.

    mobium-evals surface check units-in-map surfaces/mine.toml     # each in one line: fine, or what is wrong
    mobium-evals surface table runs/<run>                          # the before/after table, dev and held out apart
    mobium-evals surface capture --mobium=PATH [--device S] --out surfaces/mobium.toml

`capture` starts the binary's MCP server once (`PATH mcp`), reads its tools/list, provokes the errors that need no
device state (a ref before any map, an argument the tool does not take), and writes a variant that presents
Mobium's own descriptions over the built-in server. Its error texts are kept in the file's comments: Mobium's
messages name the call's own targets, so they are examples, not rules to apply."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_mobium_evals.analysis.paired import compare_run
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.reach.toolserver import InfraError, Tools, ToolServerSpec
from pytest_mobium_evals.report.surfaces import table_markdown
from pytest_mobium_evals.runfolder.reading import load_run

PROVOKED = (("app_tap", {"target": "@e999"}), ("app_map", {"no_such_argument": True}))


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="surface_command", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="check variant files against the built-in server's tools and codes")
    check.add_argument("names", nargs="+", metavar="VARIANT")
    table = sub.add_parser("table", help="a run's variants against baseline: the before/after table")
    table.add_argument("run", metavar="RUN")
    capture = sub.add_parser("capture", help="write a real Mobium's tools/list and error texts as a variant")
    capture.add_argument("--mobium", required=True, metavar="PATH", help="the mobium binary")
    capture.add_argument("--device", default=None, metavar="SERIAL", help="its device, when it needs one to start")
    capture.add_argument("--out", required=True, metavar="FILE", help="the variant file to write (.toml)")


def run(args) -> int:
    if args.surface_command == "check":
        return _check(args.names)
    if args.surface_command == "table":
        text = table_markdown(compare_run(load_run(args.run, require_complete=False)))
        if not text:
            raise UsageError(f"{args.run}: no agent trials under baseline and another variant (run with "
                           f"--surface baseline,NAME)")
        print(text)
        return 0
    return _capture(args)


def _check(names: list[str]) -> int:
    from pytest_mobium_evals.surface.variants import SurfaceError, load  # noqa: PLC0415  loads pydantic: the CLI imports this module for its options

    bad = 0
    for name in names:
        try:
            variant = load(name, Path.cwd())
        except SurfaceError as exc:
            print(exc)
            bad += 1
            continue
        print(f"{variant.name}: fine" + (f" ({variant.variant.about})" if variant.variant.about else ""))
    return 1 if bad else 0


def _capture(args) -> int:
    from pytest_mobium_evals.surface.variants import builtin_tools  # noqa: PLC0415  loads pydantic: the CLI imports this module for its options

    command = [args.mobium, "mcp"] + (["--device", args.device] if args.device else [])
    try:
        with Tools(ToolServerSpec(command), timeout=30, start_timeout=30) as tools:
            listed = list(tools.tool_defs)
            errors = []
            for name, arguments in PROVOKED:
                if name in tools.tool_names:
                    res = tools.call(name, check=False, **arguments)
                    if res.is_error:
                        errors.append((name, res.data or {}, res.text))
    except InfraError as exc:
        raise UsageError(f"--mobium {args.mobium}: {str(exc).splitlines()[0]}") from None
    ours = builtin_tools()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_capture(args.mobium, listed, errors, ours), encoding="utf-8")
    kept = sum(1 for t in listed if t.get("name") in ours)
    print(f"wrote {out}: {kept} of {len(listed)} tools' descriptions, {len(errors)} error texts")
    return 0


def _toml_string(text: str) -> str:
    # A JSON string is a TOML basic string: the same quotes and escapes.
    return json.dumps(text, ensure_ascii=False)


def render_capture(binary: str, listed: list[dict], errors: list, ours: dict[str, dict]) -> str:
    lines = [f"# Captured from {binary} (mobium-evals surface capture): its own words over the built-in server.",
             f"about = {_toml_string(f'Mobium own tool descriptions, captured from {Path(binary).name}')}"]
    missing = [t.get("name") for t in listed if t.get("name") not in ours]
    if missing:
        lines.append(f"# Not in the built-in server, so left out: {', '.join(missing)}")
    for name, payload, text in errors:
        lines.append(f"# error from {name}: [{payload.get('code', '?')}] {text}"
                     + (f" | remedy: {payload['remedy']}" if payload.get("remedy") else ""))
    for tool in listed:
        name = tool.get("name")
        if name not in ours:
            continue
        lines += ["", f"[tools.{name}]", f"description = {_toml_string(tool.get('description') or '')}"]
        props = (tool.get("inputSchema") or {}).get("properties") or {}
        for param, schema in props.items():
            if param in ours[name] and schema.get("description"):
                lines += [f"[tools.{name}.params.{param}]",
                          f"description = {_toml_string(schema['description'])}"]
    return "\n".join(lines) + "\n"
