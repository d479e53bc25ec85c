"""A surface variant as gepa's candidate, and back: named texts a reflection model can read and rewrite.

    tool.<name>   the tool's description as the agent reads it (the built-in text with the variant's edit applied)
    errors        one line per error code: `CODE = the remedy such an error carries` ("*" for every code; an empty
                  remedy strips it; a code left out keeps the server's own remedy); a remedy written here is shown
                  in the error's text, the only part of an error any model client passes on
    map           one line per map transform: `values = labelled`, with surfaces.MapEdit's names and choices

A candidate becomes a variant file by laying its texts over the variant the hillclimb started from (whatever that
variant says beyond these components, parameters' descriptions or a hidden tool, is kept), and it is checked as any
variant file is (`surfaces.load`). A text that does not parse is a `CandidateError` in one line, which the search
scores as a failed evaluation with that line as its feedback, rather than a crash."""

from __future__ import annotations

import difflib
import hashlib
import json
import typing
from pathlib import Path

from pytest_mobium_evals.core.errors import MobiumEvalsError
from pytest_mobium_evals.runfolder.files import atomic_write_bytes
from pytest_mobium_evals.surface.variants import (
    ErrorEdit,
    LoadedVariant,
    MapEdit,
    SurfaceError,
    ToolEdit,
    Variant,
    error_codes,
    load,
)

ERRORS = "errors"
MAP = "map"
TOOL_PREFIX = "tool."
ERRORS_HEADER = ('# one line per error code: CODE = the remedy such an error carries ("*" for every code; '
                 'nothing after "=" strips it; a code not listed keeps the server\'s own remedy)')
MAP_HEADER = "# one line per transform of app_map's text: NAME = CHOICE"


class CandidateError(MobiumEvalsError, ValueError):
    """A candidate's text that is not a variant, in one line naming the component."""


def map_choices() -> dict[str, tuple[str, ...]]:
    return {name: typing.get_args(info.annotation) for name, info in MapEdit.model_fields.items()}


def builtin_descriptions() -> dict[str, str]:
    from pytest_mobium_evals.mobium_server.schemas import TOOLS  # noqa: PLC0415  the built-in server's schemas load Pillow and adbutils

    return {name: spec.description for name, spec in TOOLS.items()}


def component_names(tools: list[str]) -> list[str]:
    return [f"{TOOL_PREFIX}{t}" for t in tools] + [ERRORS, MAP]


def components_of(start: LoadedVariant, tools: list[str]) -> dict[str, str]:
    """The seed candidate: the texts the agent reads under `start`, for each named tool, the errors and the map."""
    described = builtin_descriptions()
    unknown = [t for t in tools if t not in described]
    if unknown:
        raise CandidateError(f"--tools: no such tool {', '.join(unknown)} in the server's tools/list")
    out: dict[str, str] = {}
    for tool in tools:
        edit = start.variant.tools.get(tool, ToolEdit())
        text = described[tool]
        if edit.description is not None:
            text = edit.description
        elif edit.description_append:
            text = f"{text} {edit.description_append}".strip()
        out[f"{TOOL_PREFIX}{tool}"] = text
    lines = [ERRORS_HEADER] + [f"{code} = {edit.remedy}" for code, edit in sorted(start.variant.errors.items())
                               if edit.remedy is not None]
    out[ERRORS] = "\n".join(lines)
    chosen = start.variant.map.model_dump()
    out[MAP] = "\n".join([MAP_HEADER] + [f"{name} = {chosen[name]}  # {' | '.join(options)}"
                                         for name, options in map_choices().items()])
    return out


def _pairs(component: str, text: str) -> list[tuple[str, str]]:
    pairs = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, eq, value = line.partition("=")
        if not eq or not name.strip():
            raise CandidateError(f"{component}: line {number} {raw.strip()[:80]!r} is not NAME = VALUE")
        pairs.append((name.strip().strip('"'), value.strip()))
    return pairs


def variant_of(candidate: dict[str, str], start: LoadedVariant, about: str) -> Variant:
    """The candidate's texts over the start variant (CandidateError when one does not parse)."""
    variant = start.variant.model_copy(deep=True)
    variant.about = about
    described = builtin_descriptions()
    for name, text in candidate.items():
        if not name.startswith(TOOL_PREFIX):
            continue
        tool = name[len(TOOL_PREFIX):]
        if tool not in described:
            raise CandidateError(f"{name}: no such tool in the server's tools/list")
        edit = variant.tools.get(tool, ToolEdit()).model_copy()
        edit.description_append = None
        edit.description = None if text.strip() == described[tool] else text.strip()
        variant.tools[tool] = edit
    if ERRORS in candidate:
        codes = error_codes()
        for edit in variant.errors.values():
            edit.remedy = None
        for code, remedy in _pairs(ERRORS, candidate[ERRORS]):
            if code != "*" and code not in codes:
                raise CandidateError(f"errors: {code!r} is no error code (Mobium's are {', '.join(sorted(codes))}, "
                                     f"or \"*\")")
            edit = variant.errors.setdefault(code, ErrorEdit())
            edit.remedy = remedy.strip('"')
            # Every client reads an error as its text (tests/agents/test_what_the_model_reads.py): a remedy the
            # search writes reaches a model only copied into it.
            edit.show_remedy = edit.show_remedy or bool(edit.remedy)
    if MAP in candidate:
        choices = map_choices()
        chosen = {}
        for name, value in _pairs(MAP, candidate[MAP]):
            value = value.split("#", 1)[0].strip().strip('"')
            if name not in choices:
                raise CandidateError(f"map: no transform {name!r} (there are {', '.join(choices)})")
            if value not in choices[name]:
                raise CandidateError(f"map: {name} = {value!r} is not one of {', '.join(choices[name])}")
            chosen[name] = value
        variant.map = MapEdit(**chosen)
    variant.tools = {t: e for t, e in variant.tools.items() if e != ToolEdit()}
    variant.errors = {c: e for c, e in variant.errors.items() if e != ErrorEdit()}
    return variant


def _s(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a TOML basic string


def _key(name: str) -> str:
    return name if name.replace("_", "").replace("-", "").isalnum() else _s(name)


def render_toml(variant: Variant, comment: str = "") -> str:
    """A variant as a file `surfaces.load` reads back to the same variant; only what differs from the identity."""
    lines = [f"# {line}" for line in comment.splitlines()] + [f"about = {_s(variant.about)}"]
    chosen = {k: v for k, v in variant.map.model_dump().items() if v != "as_is"}
    if chosen:
        lines += ["", "[map]"] + [f"{k} = {_s(v)}" for k, v in chosen.items()]
    for code, edit in sorted(variant.errors.items()):
        lines += ["", f"[errors.{_key(code)}]"]
        lines += [f"{k} = {_s(v) if isinstance(v, str) else str(v).lower()}"
                  for k, v in edit.model_dump().items() if v not in (None, False)]
    for tool, edit in sorted(variant.tools.items()):
        lines += ["", f"[tools.{_key(tool)}]"]
        lines += [f"{k} = {_s(v) if isinstance(v, str) else str(v).lower()}"
                  for k, v in edit.model_dump(exclude={"params"}).items() if v not in (None, False)]
        for param, pedit in sorted(edit.params.items()):
            lines += [f"[tools.{_key(tool)}.params.{_key(param)}]"]
            lines += [f"{k} = {_s(v)}" for k, v in pedit.model_dump().items() if v is not None]
    return "\n".join(lines) + "\n"


def candidate_id(candidate: dict[str, str]) -> str:
    """A stable name for a candidate's texts: the same texts are the same candidate, across rounds and resumes."""
    blob = json.dumps(candidate, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:10]


def write_candidate(candidate: dict[str, str], start: LoadedVariant, folder: Path, label: str,
                    about: str) -> Path:
    """The candidate as `folder/<label>.toml`, written atomically and checked by reading it back as a variant."""
    path = folder / f"{label}.toml"
    text = render_toml(variant_of(candidate, start, about),
                       f"candidate {candidate_id(candidate)}, laid over {start.name}")
    atomic_write_bytes(path, text.encode("utf-8"))
    try:
        load(str(path), folder)
    except SurfaceError as exc:
        raise CandidateError(str(exc)) from None
    return path


def diff(before: dict[str, str], after: dict[str, str], before_name: str, after_name: str) -> str:
    """Per component, a unified diff of the texts an agent reads: the change to propose, in Mobium's own words."""
    out = []
    for name in sorted(set(before) | set(after)):
        a, b = before.get(name, ""), after.get(name, "")
        if a == b:
            continue
        out.extend(difflib.unified_diff(a.splitlines(), b.splitlines(), f"{before_name}/{name}",
                                        f"{after_name}/{name}", lineterm=""))
    return "\n".join(out)
