"""A variant file is read into the closed schema and checked against the built-in server's tools/list and Mobium's
error codes: what does not exist fails in one line naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_mobium_evals.surface import variants as surfaces
from pytest_mobium_evals.surface.variants import SurfaceError

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / "surfaces").mkdir(exist_ok=True)
    path = tmp_path / "surfaces" / f"{name}.toml"
    path.write_text(text)
    return path


def is_identity(loaded) -> bool:
    """The variant changes nothing the agent sees: all but its `about` as a variant with nothing set."""
    return loaded.variant.model_dump(exclude={"about"}) == surfaces.Variant().model_dump(exclude={"about"})


def test_every_shipped_variant_loads_and_baseline_is_the_identity_without_a_file():
    names = sorted(p.stem for p in (ROOT / "surfaces").glob("*.toml"))
    assert {"baseline-copy", "units-in-map", "no-remedies", "mobium-formatter"} <= set(names)
    loaded = surfaces.load_all(",".join(["baseline", *names]), ROOT)
    assert loaded[0].name == "baseline" and loaded[0].path is None and is_identity(loaded[0])
    by_name = {v.name: v for v in loaded}
    assert is_identity(by_name["baseline-copy"])  # only its `about` differs
    assert not is_identity(by_name["units-in-map"])
    assert by_name["units-in-map"].plain()["map"]["values"] == "labelled"


@pytest.mark.parametrize("text, message", [
    ('[tools.app_teleport]\nhidden = true\n', "tools.app_teleport: no such tool in the server's tools/list"),
    ('[tools.app_tap.params.finger]\ndescription = "x"\n',
     "tools.app_tap.params.finger: app_tap takes no such parameter (it takes "),
    ('[errors.no_such_thing]\nremedy = ""\n', "errors.no_such_thing: no such error code (Mobium's are "),
    ('[map]\nvalues = "metric"\n', "map.values: Input should be 'as_is', 'hidden' or 'labelled'"),
    ('[map]\ncolour = "blue"\n', "map.colour: Extra inputs are not permitted"),
    ('[tools.app_tap]\ndescription = "a"\ndescription_append = "b"\n',
     "tools.app_tap: description and description_append together"),
    ('[tools.app_tap\n', "not TOML"),
    ('[prompt]\nsystem = "  "\n', "prompt.system: empty; leave the key out to keep the default system prompt"),
    ('[prompt]\nsystem = "First call app_mpa, then app_tap."\n',
     "prompt.system: names app_mpa, no such tool in the server's tools/list"),
    ('[prompt]\nuser = "x"\n', "prompt.user: Extra inputs are not permitted"),
])
def test_a_variant_naming_what_does_not_exist_fails_in_one_line(tmp_path, text, message):
    path = write(tmp_path, "bad", text)
    with pytest.raises(SurfaceError) as raised:
        surfaces.load("bad", tmp_path)
    line = str(raised.value)
    assert "\n" not in line and line.startswith(f"{path}: ") and message in line


def test_an_unknown_name_lists_the_known_ones_and_a_name_twice_is_refused(tmp_path):
    write(tmp_path, "mine", 'about = "x"\n')
    with pytest.raises(SurfaceError, match=r"--surface nope: no file .*nope.toml \(known: mine\)"):
        surfaces.load("nope", tmp_path)
    with pytest.raises(SurfaceError, match="mine named twice"):
        surfaces.parse_names("mine,baseline,mine")


def test_the_surface_check_command_says_each_in_one_line(tmp_path, monkeypatch, capsys):
    from pytest_mobium_evals.commands.cli import main

    write(tmp_path, "ok", 'about = "fine"\n[tools.app_map]\ndescription_append = "More."\n')
    write(tmp_path, "bad", '[errors.nope]\nremedy = ""\n')
    monkeypatch.chdir(tmp_path)
    assert main(["surface", "check", "ok", "bad"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "ok: fine (fine)" and out[1].endswith("errors.nope: no such error code (Mobium's are "
                                                           + out[1].split("(Mobium's are ")[1])
    assert len(out) == 2


def test_a_bad_surface_stops_a_pytest_run_in_one_line(pytester):
    (pytester.path / "surfaces").mkdir()
    (pytester.path / "surfaces" / "bad.toml").write_text('[tools.app_nothing]\nhidden = true\n')
    result = pytester.runpytest_subprocess("--surface", "baseline,bad", "-p", "no:cacheprovider")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: *bad.toml: tools.app_nothing: no such tool in the server's tools/list"])
    assert "Traceback" not in result.stderr.str()


def test_the_stand_in_reads_the_loading_fact_from_app_maps_description(tmp_path):
    from types import SimpleNamespace

    from surface_standin import knows_loading

    from pytest_mobium_evals.mobium_server.schemas import TOOLS
    from pytest_mobium_evals.surface import rewrite as surface_rewrite

    listed = [{"name": name, "description": spec.description} for name, spec in TOOLS.items()]
    assert knows_loading(SimpleNamespace(tool_defs=listed))
    write(tmp_path, "plain-map", '[tools.app_map]\ndescription = "Read the screen."\n')
    stripped = surface_rewrite.apply_tools(surfaces.load("plain-map", tmp_path).plain(), listed)
    assert not knows_loading(SimpleNamespace(tool_defs=stripped))


def test_a_system_prompt_variant_is_an_edit_every_client_passes_on():
    from pytest_mobium_evals.drivers.agents.prompt import SYSTEM_PROMPT, system_prompt_of
    from pytest_mobium_evals.surface.rewrite import READER_NAMES, edits_seen_by, refusal

    loaded = surfaces.load("small-model-prompt", ROOT)
    assert not is_identity(loaded)
    plain = loaded.plain()
    assert system_prompt_of(plain) == loaded.variant.prompt.system != SYSTEM_PROMPT
    assert system_prompt_of(None) == system_prompt_of(surfaces.load("baseline", ROOT).plain()) == SYSTEM_PROMPT
    for reader in READER_NAMES:
        assert edits_seen_by(plain, reader) == (["prompt.system"], []) and refusal(plain, reader) is None
    # --tools keeps the variant's prompt beside the tools it hides
    trimmed = surfaces.only_tools({"small-model-prompt": plain}, "app_map,app_tap")
    assert system_prompt_of(trimmed["small-model-prompt+tools-2"]) == loaded.variant.prompt.system
