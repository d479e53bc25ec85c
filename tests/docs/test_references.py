"""The reference pages the generator writes from the code are committed: a page that differs from what the code
makes now is stale, and fails here with the diff and the command that rewrites it."""

from __future__ import annotations

import pytest
from docs_pages import references


def test_no_generated_page_is_stale():
    stale = references().stale_pages()
    assert not stale, "\n".join(f"docs/{page} is stale: run `python docs/gen/references.py`\n{diff}"
                                for page, diff in stale.items())


def test_every_record_field_says_what_it_is():
    # A field added without a docstring would be a row with nothing in its "What" column.
    gen = references()
    for model in (gen.TrialRecord, gen.RunRecord):
        schema = model.model_json_schema(by_alias=True, mode="serialization")
        bare = [name for name, prop in schema["properties"].items() if not prop.get("description")]
        assert not bare, f"{model.__name__}: give these fields a docstring (their description): {', '.join(bare)}"


def test_every_option_and_command_is_on_its_page():
    gen = references()
    options = gen.options_page()
    parser = pytest.Parser(_ispytest=True)
    gen.plugin.pytest_addoption(parser)
    for option in parser.getgroup(gen.plugin.GROUP).options:
        for name in option.names():
            assert f"`{name}`" in options, name
    cli = gen.cli_page()
    for command in gen.cli.SUBCOMMANDS:
        assert f"## `mobium-evals {command}` {{#{command}}}" in cli, command
