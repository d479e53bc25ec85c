"""The parts of a trial's record that have fields of their own (core/trial_record.py): what the driver claimed, the
tokens, the timings, a side effect, the limits that applied, what the surface proxy showed, a form of the answer.
Each is a model, read by its attributes from the writer to the report; verdict.json keeps the plain object it always
held.

A part keeps exactly the keys it was given: a key an older or newer record lacks stays absent (it is not written back
as null), and a key this version does not know is kept. So a record that is loaded and written again is the same
JSON, and the kept evidence's reports are unchanged."""

from __future__ import annotations

from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer  # noqa: TID253 (the record's model; the entry point imports it inside functions)

#: A count or a number of seconds as it was written: an int stays an int and a float a float, so a record written again
#: reads the same.
Number = Union[int, float]


class Part(BaseModel):
    """A record's part: its fields declared, any other key kept; written with the keys it was given."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        given = self.model_fields_set | set(self.model_extra or {})
        return {key: value for key, value in handler(self).items() if key in given}


class RecordedClaim(Part):
    """What the driver claimed in its final answer (tasks.Claim, as a record keeps it)."""

    status: Optional[str] = None
    """`done`, `cannot`, or none: it never said."""
    answer: Optional[Any] = None
    """What it answered (the task's answer rule reads it)."""
    reason: Optional[str] = None
    """Why it could not (a refusal task's reason rule reads it)."""


class Tokens(Part):
    """The model's tokens (0 for a control)."""

    input: Optional[Number] = None
    """The tokens the model read, over every request of the trial."""
    output: Optional[Number] = None
    """The tokens the model wrote."""

    @property
    def total(self) -> int:
        return (self.input or 0) + (self.output or 0)


class Timings(Part):
    """Seconds per phase of the trial."""

    reset_s: Optional[Number] = None
    """Putting the device back to the task's start."""
    driver_s: Optional[Number] = None
    """The driver (the agent or a control's script), from its start to its claim."""
    grade_s: Optional[Number] = None
    """Reading the outcome and the settings, and grading."""
    total_s: Optional[Number] = None
    """The whole trial."""


class RecordedSideEffect(Part):
    """A setting changed that the task does not allow (grading.SideEffect, as a record keeps it)."""

    namespace: Optional[str] = None
    """`global`, `secure` or `system`."""
    key: Optional[str] = None
    """The setting's name."""
    before: Optional[str] = None
    """Its value before the driver; none: the key did not exist."""
    after: Optional[str] = None
    """Its value after; none: the key did not exist."""
    put_back: Optional[bool] = None
    """Changed while the driver drove and back to its value by the end (said only when true)."""

    @property
    def name(self) -> str:
        return f"{self.namespace}/{self.key}"


class LimitsApplied(Part):
    """An agent trial's limits as they applied (agents.Limits.to_json)."""

    max_tool_calls: Optional[Number] = None
    """`--max-tool-calls`."""
    trial_timeout_s: Optional[Number] = None
    """The trial's time limit, in seconds (`--trial-timeout`)."""
    trial_timeout_for: Optional[str] = None
    """The model setting whose own time limit applied (`--trial-timeout SETTING=S`); none: the run's."""
    request_timeout_s: Optional[Number] = None
    """One model request's time limit, in seconds."""
    tool_timeout_s: Optional[Number] = None
    """One tool call's time limit, in seconds."""
    nudge_text_calls: Optional[bool] = None
    """`--nudge-text-calls`: the model told once that its text was not a call."""
    max_output_tokens: Optional[Number] = None
    """`--max-output-tokens`: the bound on one reply the tool loop sent; none: none was sent (the Claude CLI sets
    its own)."""
    require_first_call: Optional[bool] = None
    """`--require-first-call`: the first request required a tool call (`tool_choice`)."""


class SurfaceSeen(Part):
    """What the surface proxy showed the agent."""

    variant: Optional[str] = None
    """The surface variant's name."""
    hash: Optional[str] = None
    """A hash of every answer the model was shown, as its client shows them."""
    tools_hash: Optional[str] = None
    """A hash of the tools/list the model was shown."""
    reader: Optional[str] = None
    """How the agent's client passes a tool's answer to its model (surface.rewrite.READERS)."""
    tool_count: Optional[Number] = None
    """The tools the model was offered."""
    changed_answers: Optional[Number] = None
    """The answers the variant changed."""
    errors: Optional[list] = None
    """What the proxy could not apply, one line each."""


class AnswerForm(Part):
    """For `reference+answers`: one form of the answer tried."""

    text: Optional[Any] = None
    """The answer, in this form."""
    right: Optional[bool] = None
    """The form says the right thing."""
    accepted: Optional[bool] = None
    """The task's answer rule accepted it."""

