"""Surface variants: Mobium's agent-facing side (tool descriptions, error messages and remedies, the map's text) as
the one thing that changes between runs, one TOML file per variant under `surfaces/`.

    about = "the slider's value is the app's, said so in the map and in app_set_value's description"
    [tools.app_set_value]
    description_append = "The value is the one the app shows beside the control, not the bar's own progress."
    [tools.app_set_value.params.value]
    description = "..."            # replaces; description_append appends
    [tools.app_clipboard]
    hidden = true                  # left out of tools/list; a call to it is refused as an unknown tool
    [errors.no_such_element]       # by Mobium's error code; "*" is every code
    remedy = ""                    # "" strips it; message, message_append, remedy_append; show_remedy = true
                                   #   puts the remedy in the text an agent reads, after the message
    [map]                          # a closed set of named transforms of app_map's answer
    values = "labelled"            # as_is | hidden | labelled
    covered = "as_is"              # as_is | hidden | explained
    loading = "as_is"              # as_is | hidden | terse
    notes = "as_is"                # as_is | hidden (every line after the elements)
    roleless_state = "as_is"       # as_is | hidden (no "(…)" on a line without a role, as Mobium's Entry.Line())
    layout = "as_is"               # as_is | compact (lines without a ref left out) | verbose (bounds on each line)
    [prompt]
    system = "..."                 # replaces the system prompt every model is told (drivers.agents.prompt);
                                   #   a tool it names (app_*) must be one of the server's

`baseline` is the identity and needs no file. A variant is checked when it is read, against the built-in server's
tools/list and Mobium's error codes: a tool, parameter or code that does not exist fails in one line
(`SurfaceError`). The proxy that applies a variant (`surface_proxy`) takes it as plain JSON, so it imports nothing
of this module (pydantic included) and starts as fast as a bare Python. `[prompt]` is the one edit the proxy does not
make: the agent driver tells the model the variant's system prompt instead of the default, so it reaches every
model's client."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, ValidationError  # noqa: TID253 (a variant's model; the entry point imports it inside functions)

from pytest_mobium_evals.core.errors import MobiumEvalsError
from pytest_mobium_evals.mobium_server.errors import CODES

BASELINE = "baseline"
#: A tool's name in a system prompt's prose: Mobium's tools are all app_<word>.
TOOL_NAME = re.compile(r"\bapp_[a-z_]+[a-z]\b")
SURFACES_DIR = "surfaces"


class SurfaceError(MobiumEvalsError, ValueError):
    """A variant that cannot be used, said in one line naming the file and the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ParamEdit(_Strict):
    description: Optional[str] = None
    description_append: Optional[str] = None


class ToolEdit(_Strict):
    description: Optional[str] = None
    description_append: Optional[str] = None
    hidden: bool = False
    params: dict[str, ParamEdit] = {}


class ErrorEdit(_Strict):
    message: Optional[str] = None
    message_append: Optional[str] = None
    remedy: Optional[str] = None
    remedy_append: Optional[str] = None
    show_remedy: bool = False


class MapEdit(_Strict):
    values: Literal["as_is", "hidden", "labelled"] = "as_is"
    covered: Literal["as_is", "hidden", "explained"] = "as_is"
    loading: Literal["as_is", "hidden", "terse"] = "as_is"
    notes: Literal["as_is", "hidden"] = "as_is"
    roleless_state: Literal["as_is", "hidden"] = "as_is"
    layout: Literal["as_is", "compact", "verbose"] = "as_is"


class PromptEdit(_Strict):
    system: Optional[str] = None


class Variant(_Strict):
    """One variant, as read from its file (pydantic: the closed set of keys and transform names is its schema)."""

    about: str = ""
    tools: dict[str, ToolEdit] = {}
    errors: dict[str, ErrorEdit] = {}
    map: MapEdit = MapEdit()
    prompt: PromptEdit = PromptEdit()


def builtin_tools() -> dict[str, dict]:
    """The built-in server's tools/list, name → its input schema's properties."""
    from pytest_mobium_evals.mobium_server.schemas import TOOLS  # noqa: PLC0415  the built-in server's schemas load Pillow and adbutils

    return {name: dict(spec.schema.get("properties", {})) for name, spec in TOOLS.items()}


def error_codes() -> frozenset[str]:
    return CODES


def resolve(name: str, root: Path) -> Optional[Path]:
    """A variant's file: a path as given, else `<root>/surfaces/<name>.toml`; None for `baseline` without a file."""
    given = Path(name)
    if given.suffix == ".toml":
        return given if given.is_absolute() else root / given
    path = root / SURFACES_DIR / f"{name}.toml"
    if name == BASELINE and not path.exists():
        return None
    return path


def variant_name(name: str) -> str:
    return Path(name).stem if name.endswith(".toml") else name


def load(name: str, root: Path, tools: Optional[dict[str, dict]] = None,
         codes: Optional[frozenset[str]] = None) -> "LoadedVariant":
    path = resolve(name, root)
    label = variant_name(name)
    if path is None:
        return LoadedVariant(label, None, Variant(), "")
    if not path.is_file():
        known = sorted(p.stem for p in (root / SURFACES_DIR).glob("*.toml"))
        raise SurfaceError(f"--surface {name}: no file {path}" + (f" (known: {', '.join(known)})" if known else ""))
    raw = path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SurfaceError(f"{path}: not TOML: {exc}") from None
    try:
        variant = Variant.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SurfaceError(f"{path}: {where}: {first['msg']}") from None
    check(variant, path, builtin_tools() if tools is None else tools, error_codes() if codes is None else codes)
    return LoadedVariant(label, str(path), variant, hashlib.sha256(raw).hexdigest()[:12])


def check(variant: Variant, path: Path, tools: dict[str, dict], codes: frozenset[str]) -> None:
    for tool, edit in variant.tools.items():
        if tool not in tools:
            raise SurfaceError(f"{path}: tools.{tool}: no such tool in the server's tools/list")
        if edit.description is not None and edit.description_append is not None:
            raise SurfaceError(f"{path}: tools.{tool}: description and description_append together; choose one")
        for param in edit.params:
            if param not in tools[tool]:
                raise SurfaceError(f"{path}: tools.{tool}.params.{param}: {tool} takes no such parameter "
                                   f"(it takes {', '.join(sorted(tools[tool])) or 'none'})")
    for code in variant.errors:
        if code != "*" and code not in codes:
            raise SurfaceError(f"{path}: errors.{code}: no such error code (Mobium's are "
                               f"{', '.join(sorted(codes))}, or \"*\" for all)")
    system = variant.prompt.system
    if system is not None:
        if not system.strip():
            raise SurfaceError(f"{path}: prompt.system: empty; leave the key out to keep the default system prompt")
        named = sorted(set(TOOL_NAME.findall(system)) - set(tools))
        if named:
            raise SurfaceError(f"{path}: prompt.system: names {', '.join(named)}, no such tool in the server's "
                               f"tools/list")


class LoadedVariant:
    def __init__(self, name: str, path: Optional[str], variant: Variant, file_sha: str):
        self.name = name
        self.path = path
        self.variant = variant
        self.file_sha = file_sha

    def plain(self) -> dict:
        """What the proxy applies: the variant as plain JSON (defaults included, so the proxy needs no schema)."""
        return {"name": self.name, **self.variant.model_dump()}


def only_tools(variants: dict[str, dict], text: str) -> dict[str, dict]:
    """--tools: every variant (or, with none, the baseline) offering only the named tools, the others hidden as a
    variant file's `hidden = true` hides them; each renamed `<variant>+tools-N` (alone: `tools-N`), so the records
    say the agent saw a trimmed list. A name that is not a tool is a SurfaceError naming it."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    tools = builtin_tools()
    unknown = [n for n in names if n not in tools]
    if not names or unknown:
        raise SurfaceError(f"--tools {text}: " + (f"{', '.join(unknown)} is not a tool of the server's tools/list "
                                                   f"(it has {', '.join(sorted(tools))})" if unknown
                                                   else "name at least one tool"))
    tag = f"tools-{len(set(names))}"
    out = {}
    for name, plain in (variants or {"": {"name": "", **Variant().model_dump()}}).items():
        edits = {tool: dict(edit) for tool, edit in (plain.get("tools") or {}).items()}
        for tool in tools:
            if tool not in names:
                edits[tool] = {**ToolEdit().model_dump(), **edits.get(tool, {}), "hidden": True}
        label = f"{name}+{tag}" if name else tag
        about = f"only {', '.join(names)}" + (f"; {plain.get('about')}" if plain.get("about") else "")
        out[label] = {**plain, "name": label, "about": about, "tools": edits}
    return out


def parse_names(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise SurfaceError(f"--surface {text!r}: name at least one variant (baseline, or a file under surfaces/)")
    labels = [variant_name(n) for n in names]
    twice = sorted({n for n in labels if labels.count(n) > 1})
    if twice:
        raise SurfaceError(f"--surface {text}: {', '.join(twice)} named twice")
    return names


def load_all(text: str, root: Path) -> list[LoadedVariant]:
    return [load(name, root) for name in parse_names(text)]

