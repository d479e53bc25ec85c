"""The surface proxy in front of the built-in server on the virtual device: the identity passes everything through
unchanged; each kind of edit changes exactly what it names; what the agent saw is written down with its hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec
from pytest_mobium_evals.surface import proxy as surface_proxy
from pytest_mobium_evals.surface import rewrite as surface_rewrite
from pytest_mobium_evals.surface import variants as surfaces

ROOT = Path(__file__).resolve().parents[2]
APP = "dev.mobium.mobiumapp"


def plain(text: str, tmp_path: Path) -> dict:
    (tmp_path / "surfaces").mkdir(exist_ok=True)
    (tmp_path / "surfaces" / "v.toml").write_text(text)
    return surfaces.load("v", tmp_path).plain()


@pytest.fixture(scope="module")
def raw_spec(sim_server):
    return ToolServerSpec.builtin(sim_server.serials[0], "127.0.0.1", sim_server.port)


def session(spec, variant, reader=surface_rewrite.RAW):
    wrapped, seen = surface_proxy.wrap_for_trial(spec, variant, reader)
    return Tools(wrapped, timeout=60), seen


def slider_screen(tools: Tools):
    tools.call("app_launch", app=APP)
    tools.call("app_press", button="back")
    tools.call("app_launch", app=APP)
    tools.call("app_scroll_to", target="label=Slider Demo", direction="down")
    tools.call("app_tap", target="label=Slider Demo")
    return tools.call("app_map")


def test_the_identity_changes_nothing_the_agent_reads(raw_spec, tmp_path):
    with Tools(raw_spec, timeout=60) as direct:
        direct_map = slider_screen(direct)
        direct_error = direct.call("app_tap", target="@e999", check=False)
        defs = direct.tool_defs
    tools, seen = session(raw_spec, surfaces.load("baseline", ROOT).plain(), surface_rewrite.TEXT)
    with tools:
        assert tools.tool_defs == defs
        assert slider_screen(tools).text == direct_map.text
        error = tools.call("app_tap", target="@e999", check=False)
        assert (error.text, error.data) == (direct_error.text, direct_error.data)
    shown = seen.read()
    assert shown["variant"] == "baseline" and shown["tool_count"] == len(defs) and len(shown["hash"]) == 16
    assert shown["errors"] == [direct_error.text]  # as a text reader's model got it
    # beside it, for the hillclimb's reflection (no client shows a model the code): its code, and the remedy the
    # text did not carry
    assert shown["error_codes"] == [{"text": direct_error.text, "code": direct_error.data["code"],
                                     "remedy_not_shown": direct_error.data["remedy"]}]
    assert (shown["reader"], shown["changed_answers"]) == ("text", 0)


def test_descriptions_hidden_tools_errors_and_the_map_change_as_named(raw_spec, tmp_path):
    variant = plain('[tools.app_fill]\ndescription_append = "APPENDED."\n'
                    '[tools.app_tap.params.target]\ndescription = "WHERE."\n'
                    '[tools.app_clipboard]\nhidden = true\n'
                    '[errors.no_such_element]\nremedy = "MAP FIRST"\nshow_remedy = true\n'
                    '[map]\nvalues = "labelled"\nlayout = "verbose"\n', tmp_path)
    tools, seen = session(raw_spec, variant, surface_rewrite.TEXT)
    with tools:
        by_name = {d["name"]: d for d in tools.tool_defs}
        assert "app_clipboard" not in by_name and len(by_name) == len(surfaces.builtin_tools()) - 1
        assert by_name["app_fill"]["description"].endswith(" APPENDED.")
        assert by_name["app_tap"]["inputSchema"]["properties"]["target"]["description"] == "WHERE."
        hidden = tools.call("app_clipboard", check=False)
        assert hidden.is_error and hidden.text == "Unknown tool: app_clipboard"
        lines = slider_screen(tools).text.splitlines()
        volume = next(line for line in lines if " Volume (slider" in line)
        assert "value 50 as the app shows it" in volume and volume.endswith("]")  # verbose: its bounds
        error = tools.call("app_tap", target="testid=nothere", check=False)
        assert error.data["remedy"] == "MAP FIRST" and error.text.endswith("(remedy: MAP FIRST)")
        other = tools.call("app_tap", target="@e999", check=False)  # a stale ref: another code, left alone
        assert other.data["code"] != "no_such_element" and other.data["remedy"] != "MAP FIRST"
    shown = seen.read()
    assert shown["variant"] == "v" and "Unknown tool: app_clipboard" in shown["errors"]
    codes = {entry["code"]: entry for entry in shown["error_codes"]}  # the made-up "Unknown tool" has no payload
    assert "remedy_not_shown" not in codes["no_such_element"]  # shown in the text: nothing held back
    assert codes[other.data["code"]]["remedy_not_shown"] == other.data["remedy"]


def test_what_was_seen_hashes_apart_when_the_surface_differs(raw_spec, tmp_path):
    hashes = {}
    for name in ("baseline", "baseline-copy", "no-remedies", "units-in-map"):
        tools, seen = session(raw_spec, surfaces.load(name, ROOT).plain())
        with tools:
            tools.call("app_tap", target="@e999", check=False)
        hashes[name] = seen.read()["hash"]
    assert hashes["baseline"] == hashes["baseline-copy"]  # the same surface under another name
    assert len({hashes["baseline"], hashes["no-remedies"], hashes["units-in-map"]}) == 3


def test_what_a_client_never_passes_on_hashes_as_baseline(raw_spec):
    """The hash is of what the model received: a remedy taken out of the structured payload, which a model reads
    only as the error's text, changes nothing a text reader's or the Claude CLI's model gets."""
    for reader in (surface_rewrite.TEXT, surface_rewrite.CLAUDE_CLI):
        hashes = {}
        for name in ("baseline", "no-remedies", "remedies-in-text"):
            tools, seen = session(raw_spec, surfaces.load(name, ROOT).plain(), reader)
            with tools:
                tools.call("app_tap", target="@e999", check=False)
            hashes[name] = seen.read()["hash"]
        assert hashes["baseline"] == hashes["no-remedies"] != hashes["remedies-in-text"], reader


def test_a_variant_none_of_whose_edits_reach_a_client_is_refused_for_it():
    variant = {"name": "quiet", "errors": {"*": {"remedy": ""}}, "map": {"layout": "verbose"}}
    assert surface_rewrite.refusal(variant, surface_rewrite.RAW) is None
    assert surface_rewrite.refusal(variant, surface_rewrite.TEXT) is None  # the verbose layout is in the text
    assert surface_rewrite.refusal(variant, surface_rewrite.CLAUDE_CLI) == (
        "surface variant quiet cannot change what the Claude CLI passes to its model (its edits: "
        "errors.*.remedy (without show_remedy), map.layout = verbose)")
    assert surface_rewrite.refusal({"name": "copy"}, surface_rewrite.CLAUDE_CLI) is None  # a null control runs


ELEMENTS = [{"ref": "@e1", "label": "Volume", "role": "slider", "value": "70",
             "bounds": {"x1": 0, "y1": 10, "x2": 100, "y2": 20}},
            {"ref": "@e2", "label": "Terms", "checked": False, "covered": "Toast"},
            {"ref": "", "label": "Title"}]
TEXT = ('@e1 Volume (slider, 70)\n@e2 Terms (unchecked, covered by "Toast")\n(no ref) Title\n'
        'loading… "Loading" is on screen: content is still arriving\nthe keyboard is up over the bottom')


def mapped(edit: dict) -> list[str]:
    result = {"content": [{"type": "text", "text": TEXT}],
              "structuredContent": {"elements": ELEMENTS, "loading": ["Loading"], "keyboard": {"shown": True}}}
    out = surface_rewrite.apply_map({"map": edit}, result)
    return out["content"][0]["text"].split("\n")


@pytest.mark.parametrize("edit, lines", [
    ({"values": "hidden"}, ["@e1 Volume (slider)", None, None, None, None]),
    ({"covered": "explained"}, [None, '@e2 Terms (unchecked, covered by "Toast": a tap on it lands on "Toast")',
                                None, None, None]),
    ({"covered": "hidden"}, [None, "@e2 Terms (unchecked)", None, None, None]),
    ({"roleless_state": "hidden"}, [None, "@e2 Terms", None, None, None]),
    ({"loading": "terse"}, [None, None, None, surface_rewrite.TERSE_LOADING, None]),
    ({"loading": "hidden"}, [None, None, None, "the keyboard is up over the bottom"]),
    ({"notes": "hidden"}, [None, None, None]),
])
def test_each_map_transform_changes_its_own_part(edit, lines):
    original = TEXT.split("\n")
    want = [original[i] if line is None else line for i, line in enumerate(lines)]
    assert mapped(edit) == want


@pytest.mark.parametrize("edit, changed", [
    ({"values": "hidden"}, lambda d: "value" not in d["elements"][0]),
    ({"values": "labelled"}, lambda d: d["elements"][0]["value_is"] == surface_rewrite.VALUE_IS),
    ({"covered": "explained"}, lambda d: d["elements"][1]["covered_means"] == 'a tap on it lands on "Toast"'),
    ({"covered": "hidden"}, lambda d: "covered" not in d["elements"][1]),
    ({"roleless_state": "hidden"}, lambda d: set(d["elements"][1]) == {"ref", "label"}),
    ({"loading": "terse"}, lambda d: d["loading"] == surface_rewrite.TERSE_LOADING),
    ({"loading": "hidden"}, lambda d: "loading" not in d),
    ({"notes": "hidden"}, lambda d: "loading" not in d and "keyboard" not in d),
    ({"layout": "compact"}, lambda d: [el["ref"] for el in d["elements"]] == ["@e1", "@e2"]),
])
def test_each_map_transform_changes_the_structured_content_the_claude_cli_shows(edit, changed):
    result = {"content": [{"type": "text", "text": TEXT}],
              "structuredContent": {"elements": ELEMENTS, "loading": ["Loading"], "keyboard": {"shown": True}}}
    out = surface_rewrite.apply_map({"map": edit}, result)
    assert changed(out["structuredContent"])
    assert surface_rewrite.model_view(surface_rewrite.CLAUDE_CLI, out) != surface_rewrite.model_view(
        surface_rewrite.CLAUDE_CLI, result)
    assert result["structuredContent"]["elements"] == ELEMENTS  # the server's answer itself is left as it was


def test_compact_leaves_out_the_lines_without_a_ref():
    original = TEXT.split("\n")
    assert mapped({"layout": "compact"}) == original[:2] + original[3:]


def test_a_map_line_the_proxy_cannot_rebuild_is_left_as_the_server_wrote_it():
    result = {"content": [{"type": "text", "text": "@e1 Something else entirely\nnote"}],
              "structuredContent": {"elements": [ELEMENTS[0]]}}
    out = surface_rewrite.apply_map({"map": {"values": "labelled", "notes": "hidden"}}, result)
    assert out["content"][0]["text"] == "@e1 Something else entirely"  # the notes go; the line is kept


MINIMAL_SERVER = '''
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="app_map", input_schema={"type": "object"})])

async def main():
    server = Server("minimal", on_list_tools=list_tools)
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())

anyio.run(main)
'''


def test_a_variant_naming_a_tool_the_real_server_lacks_stops_the_trial_in_one_line(tmp_path):
    import sys

    from pytest_mobium_evals.reach.toolserver import InfraError

    server = tmp_path / "minimal.py"
    server.write_text(MINIMAL_SERVER)
    variant = plain('[tools.app_fill]\ndescription_append = "x"\n[tools.app_map.params.diff]\ndescription = "y"\n',
                    tmp_path)
    with pytest.raises(InfraError) as raised:
        session(ToolServerSpec([sys.executable, str(server)]), variant)
    assert ("surface variant v names what this server's tools/list does not have: app_fill, app_map.diff"
            in str(raised.value))
    fine, seen = session(ToolServerSpec([sys.executable, str(server)]), surfaces.load("baseline", ROOT).plain())
    with fine:
        assert [d["name"] for d in fine.tool_defs] == ["app_map"]
    assert seen.read()["tool_count"] == 1
