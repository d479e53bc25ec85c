"""A run's record, `record.json`, in one shape: what the session writes (built once, by
`plugin.run_books.RunBooks.run_record`), what the HTML report shows as the run's facts while the run ends, and what
every after-run command (report, compare, runs, export, verify, the suites' summaries) reads back through
`runfolder`. It is read by its fields, never as a mapping.

The schema is versioned (`schema`). Every field has a default, the value a record that lacks it means: records of
every age load (the oldest said little more than seed, tasks, device and mobium), and `load_run` says which facts
a report needs are missing rather than the model refusing them. Unknown keys are kept, not refused (a newer
harness's record still loads here), and written back as they were read. Only the keys a record was made or read
with are written (`to_json`): an older record rewritten (verify's stamp) gains no key it did not have.

It uses pydantic, as trial_record.py does, for the same reasons."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError  # noqa: TID253 (the run record's model; the entry point imports it inside functions)

from pytest_mobium_evals.core.errors import RecordInvalid
from pytest_mobium_evals.core.trial_record import validation_line

#: The record's version. Raise it when a field changes meaning; a field added with a default needs no new version.
SCHEMA = 1


class RunRecord(BaseModel):
    # protected_namespaces: `models` is the record's own word, not pydantic's
    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=(),
                              use_attribute_docstrings=True)  # each field's docstring is its description

    schema_version: int = Field(SCHEMA, alias="schema")
    """The record's version (`SCHEMA`); records written before it have no key, and are this version."""

    # ---- what wrote it ----
    run: Optional[str] = None
    """The run folder's name (older records: the folder tells)."""
    plugin: Optional[str] = "pytest-mobium-evals"
    """What wrote the record."""
    plugin_version: Optional[str] = None
    """Its version."""
    plugin_commit: Optional[str] = None
    """Its repository's commit; none: not a git checkout, or an older record."""
    plugin_dirty: Optional[bool] = None
    """The checkout had uncommitted changes; none: unknown (no commit to differ from)."""

    # ---- how far it got ----
    started: Optional[str] = None
    """When the run began (UTC, ISO 8601), kept from the run's first session."""
    finished: Optional[bool] = None
    """Every scheduled trial has its verdict.json."""
    ended: Optional[str] = None
    """When it finished; none while it has not."""
    resumed: Optional[bool] = None
    """This session continued the run (`--resume`)."""
    counts: Optional[dict] = None
    """Verdict -> trials, of this session's reports."""

    # ---- what it ran ----
    seed: Any = None
    """The run's seed (an int; whatever else a record holds is reported as missing, not coerced)."""
    driver: Optional[str] = None
    """`--driver` as given."""
    drivers: Optional[list[str]] = None
    """The drivers it ran, `--driver` expanded (`controls`: each control)."""
    models: Optional[list] = None
    """The agent's model settings' labels (older records: entries with a `model`)."""
    efforts: Optional[dict] = None
    """A model setting's label -> its effort."""
    repeats: Any = None
    """`--repeats` (an int; older records may lack it: then the schedule is not worked out from it)."""
    tasks: Optional[list] = None
    """The task ids (older records: entries with an `id`)."""
    suites: Optional[list[str]] = None
    """The suites the tasks are from."""
    scheduled: Optional[list] = None
    """The trial folders scheduled, every session's (older records: worked out)."""
    options: Optional[dict] = None
    """The run's options as `--resume` restores them (plugin/options.py, `RunOptions.stored()`)."""
    surfaces: Optional[list[str]] = None
    """`--surface`'s variants."""

    # ---- where it ran ----
    device: Any = None
    """The first device leased (a dict, as a trial's `device`; the oldest records: a string)."""
    devices: Optional[list] = None
    """Every device the run's processes leased."""
    mobium: Any = None
    """The tool server's Mobium: `built-in`, or `{binary, commit, dirty}` of a Mobium build (`verify` adds `ref`,
    `build`, `verify`)."""
    tool_server: Optional[str] = None
    """The controls' tool server (and the agent's, without `--tool-server`)."""
    agent_tool_server: Optional[str] = None
    """With `--tool-server`: the agent's own, `NAME: COMMAND`."""

    # ---- written by older versions only ----
    mobiumapp: Optional[str] = None
    """The MobiumApp build, before the device's info carried it."""
    harness: Any = None
    """Older records' description of the harness."""

    # ---- in and out ----

    @classmethod
    def parse(cls, data: Any) -> "RunRecord":
        """A record from its JSON form; `RecordInvalid` in one line when it does not fit."""
        if not isinstance(data, dict):
            raise RecordInvalid("the run record is not a JSON object")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise RecordInvalid(validation_line(exc)) from None

    def to_json(self) -> dict:
        """record.json's content: the keys it was made or read with, under their stored names (values as they are:
        the run folder's writer makes them JSON)."""
        return self.model_dump(by_alias=True, exclude_unset=True)

    # ---- what the record means, worked out here once ----

    @property
    def said_unfinished(self) -> bool:
        """The record says the run did not finish (false, or null where an older version wrote null for it)."""
        return self.finished is False or ("finished" in self.model_fields_set and self.finished is None)

    @property
    def task_ids(self) -> list[str]:
        """The record's task set: a list of ids, or of task entries with an "id"."""
        return [str(entry.get("id")) if isinstance(entry, dict) else str(entry) for entry in self.tasks or []]
