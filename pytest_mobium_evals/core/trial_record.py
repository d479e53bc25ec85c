"""A trial's record, in one shape: what `run/trial.py` grades, what a worker's test report carries to the controller
under xdist, what `verdict.json` holds, and what every after-run command (report, compare, judge, verify, export)
reads back. A field is declared here once and flows through all of them: the writer fills it, the report
attachment and the run folder carry it, the loader validates it.

The schema is versioned (`schema`). A field that records written before it existed lack must have a default, so that
the run folders kept in `evidence/` still load; the fields every version wrote are required (a verdict.json without
one was half-written or written by something else, and is not counted). Unknown keys are kept, not refused: a newer
harness's record still loads here.

It uses pydantic (it comes with mcp): validation with a message per field, JSON in and out, and defaults for old
records, which written by hand would be a second copy of this list of fields."""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator  # noqa: TID253 (the record's model; the entry point imports it inside functions)

from pytest_mobium_evals.core.errors import RecordInvalid

from .grading import is_blocking
from .record_parts import AnswerForm, LimitsApplied, RecordedClaim, RecordedSideEffect, SurfaceSeen, Timings, Tokens
from .setting import Setting, is_control
from .verdicts import ALL_VERDICTS, INFRA_ERROR

#: Which limit stopped an agent: its tool calls (`--max-tool-calls`) or its time (`--trial-timeout`). `unknown` is
#: only an older record's `true`, written when the field was a bool and did not say which.
HitLimit = Literal["tool_calls", "time", "unknown"]
#: Why a trial's driver stopped: the agent's final answer; text that never became one; a tool call written as text
#: (not made); the tool-call or time limit; the model's API failing it; the infrastructure failing it; a control's
#: script at its end.
StopReason = Literal["final_answer", "text", "text_tool_call", "tool_calls_limit", "time_limit", "api_error",
                     "infra_error", "script"]
STOP_REASONS: tuple[str, ...] = StopReason.__args__
HIT_LIMITS: tuple[str, ...] = ("tool_calls", "time")
#: How the reports say it, beside the verdict.
LIMIT_WORDS = {"tool_calls": "stopped at its tool-call limit", "time": "stopped at its time limit",
               "unknown": "stopped at a limit"}

#: The record's version. Raise it when a field changes meaning; a field added with a default needs no new version.
SCHEMA = 1


class SettingChange(BaseModel):
    """One setting the driver's trial changed, whether or not its task allows it: its value before and after, and
    whether the device's own history shows it written while the driver drove (None: the device keeps no history).
    What a regrade reads the settings from, under the task's current allowed list."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    namespace: str
    """`global`, `secure` or `system`."""
    key: str
    """The setting's name."""
    before: Optional[str]
    """Its value before the driver; none: the key did not exist."""
    after: Optional[str]
    """Its value after the driver; none: the key did not exist."""
    written: Optional[bool] = None
    """The device's history shows it written while the driver drove; none: the device keeps no history."""


class RegradedFrom(BaseModel):
    """What a trial's record said before `report --regrade` graded it again (in memory; verdict.json keeps it)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    verdict: str
    """The verdict stored."""
    answer_ok: Optional[bool] = None
    """The answer rule's judgement stored."""
    reason_ok: Optional[bool] = None
    """The reason rule's judgement stored."""
    ok: Optional[bool] = None
    """Whether the trial got the verdict it had to, as stored."""


class TrialRecord(BaseModel):
    # protected_namespaces: `model` and `model_label` are the record's own words, not pydantic's. Every assignment is
    # validated: a record is never changed into one that would not load.
    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=(), validate_assignment=True,
                              use_attribute_docstrings=True)  # each field's docstring is its description

    schema_version: int = Field(SCHEMA, alias="schema")
    """The record's version (`SCHEMA`); raised only when a field changes meaning."""

    # ---- what the trial is (required: every version wrote them) ----
    task: str
    """The task's id (`t05`, `aw.SystemWifiTurnOff`; an injection task's clean twin: `t39.clean`)."""
    suite: Optional[str]
    """The suite the task is from: `mobiumapp`, `ghost_bench` or `androidworld`."""
    driver: str
    """Who drove the trial: `agent`, or a control of the grader (`reference`, `null`, `wrong`, ...)."""
    model: Optional[str]
    """The agent's model (`claude-haiku-5-5`, `ollama/qwen2.5:7b`); `none` for a control."""
    effort: Optional[str]
    """The agent's effort (`low`, `medium`, `high`); none for a control or a model without one."""
    seed: Any
    """The run's seed (an int): the trial's parameters come from sha256(seed:task:repeat)."""
    repeat: int
    """Which repeat of the task under this setting, from 0."""
    expected: Optional[str]
    """The verdict the task declares for this control (`pass`, `false_success`, ...); none for an agent trial."""

    # ---- how it was graded (required) ----
    verdict: str
    """The verdict (see Verdicts and severities), or `infra_error`."""
    severity: Optional[str]
    """`blocker`, `major` or `minor`; none for a pass and for an infrastructure error."""
    blockers: Any
    """The trial's blockers, one line each (a list; the oldest records wrote one string)."""
    ok: Optional[bool]
    """The trial got the verdict it had to: a pass for the agent, the declared verdict for a control."""
    claim: Optional[RecordedClaim]
    """What the driver claimed: `{status: done|cannot|null, answer, reason}` (null: it never said)."""
    answer_ok: Optional[bool]
    """The task's answer rule on the answer; none when the task has no rule or nothing was answered."""
    outcome_reached: Optional[bool]
    """The device shows the asked-for state (a refusal task: its target left alone); none when not graded."""
    outcome_observed: Any
    """What the outcome check read on the device, as it read it."""
    side_effects: Optional[list[RecordedSideEffect]]
    """Settings changed that the task does not allow: `[{namespace, key, before, after}]`, with `put_back` when one
    was changed and put back."""
    password_exposures: Optional[list]
    """Where the demo password showed in a tool response, however written (one entry each)."""

    # ---- what it cost and where it ran (required) ----
    tool_calls: Optional[int]
    """The tool calls the driver made."""
    tokens: Optional[Tokens]
    """The model's tokens: `{input, output}` (0 for a control)."""
    cost_usd: Optional[float]
    """What the model's API said the trial cost, in US dollars; none where it says nothing."""
    timings: Optional[Timings]
    """Seconds per phase: `reset_s`, `driver_s`, `grade_s`, `total_s`."""
    device: Any
    """The device it ran on: serial, ADB server, kind (`virtual` or a real one), model, Android release and SDK,
    image, the app and its build."""
    infra_error: Optional[str]
    """Why the trial could not be graded (the device, tool server or model API failed); none when it was."""

    # ---- added since the first records: optional, with the value an old record means ----
    trial: Optional[str] = None
    """The trial folder's name (older records: the folder tells)."""
    slug: Optional[str] = None
    """The task's slug, its file's name after the id (`slider`)."""
    near_miss: Optional[str] = None
    """For the `near-miss` driver: which of the task's declared near misses this trial took."""
    model_label: Optional[str] = None
    """The model setting as the reports name it (`none` for a control)."""
    params: Optional[dict] = None
    """The trial's seeded parameters (older records: none; regrading seeds them again)."""
    max_steps: Optional[int] = None
    """The task's own step budget (Ghost Bench: complexity × 10), enforced with `--enforce-max-steps`."""
    hit_limit: Optional[HitLimit] = None
    """Which limit stopped the agent (`tool_calls`, `time`); none: it stopped on its own."""
    limits: Optional[LimitsApplied] = None
    """An agent trial's limits as they applied (agents.Limits.to_json): tool calls, the trial's time limit and
    whether its model setting had its own (trial_timeout_for), one request's and one tool call's timeouts, one reply's
    token bound (max_output_tokens, null when none was sent) and whether the first reply had to be a call
    (require_first_call)."""
    stop_reason: Optional[StopReason] = None
    """Why the driver stopped (`final_answer`, `text`, `text_tool_call`, `tool_calls_limit`, `time_limit`,
    `api_error`, `infra_error`, or `script` for a control); older records: not said."""
    stop_text: Optional[str] = None
    """What the driver wrote when it stopped calling tools, alike under every driver: the call it wrote as text
    (`text_tool_call`), the text that never became a final answer (`text`), or the text before its final answer."""
    stated_status: Optional[Literal["done", "cannot"]] = None
    """The claim `stop_text` states of the task (core/stated_claims.py), when it states one: set against the final
    answer's status, a contradiction is graded on the claim the device contradicts (grading.grade)."""
    nudged: Optional[bool] = None
    """An agent told once that its text was not a call (`--nudge-text-calls`); false otherwise, none for a
    control."""
    irreversible: list = Field(default_factory=list)
    """The task's irreversible actions (empty when none): a false success on one is a blocker."""
    found: Optional[str] = None
    """What the task once found wrong in Mobium (its CHALLENGES entries)."""
    regression: bool = False
    """The task found a Mobium defect (`-m regression`)."""
    tier: Optional[str] = None
    """The task's tier: `core` or `hard`."""
    injection: Optional[str] = None
    """An injection task's injected instruction."""
    infra_phase: Optional[str] = None
    """Where an infrastructure error stopped the trial: `setup`, `reset`, `precondition`, `driver`, `outcome`,
    `grade` or `record`."""
    script_error: Optional[str] = None
    """A control's script that broke (a wrong locator in a reference): what it raised."""
    reason_ok: Optional[bool] = None
    """A refusal task's reason rule on the reason given; none when there is no rule or no reason."""
    outcome_acted: Optional[bool] = None
    """A refusal task: the device shows its target was acted on."""
    outcome_unreadable: Optional[bool] = None
    """The outcome check could not read its evidence (graded as not reached)."""
    injection_obeyed: Optional[bool] = None
    """The attacked arm's device shows the injected goal carried out."""
    answer_forms: Optional[list[AnswerForm]] = None
    """For `reference+answers`: each form of the answer tried, `[{text, right, accepted}]`."""
    plugin_version: Optional[str] = None
    """The pytest-mobium-evals that wrote the record."""
    plugin_commit: Optional[str] = None
    """Its repository's commit; none: not a git checkout, or an older record."""
    started_at: Optional[str] = None
    """When the trial began (UTC, ISO 8601); its timings say how long it took."""
    surface: Optional[str] = None
    """The agent's surface variant (`--surface`); none: Mobium's surface as it is."""
    surface_seen: Optional[SurfaceSeen] = None
    """What the proxy showed the agent: its variant, the hashes of what the model read and of its tools/list, the
    reader, and how many answers and tools it changed."""
    tool_server: Optional[str] = None
    """An agent's server in place of Mobium's (`--tool-server`): `NAME: COMMAND`."""
    split: Optional[str] = None
    """`dev` or `held_out` (core/split.py); older records: worked out again from the task."""
    injection_arm: Optional[str] = None
    """An injection task's `attacked` or `clean` twin."""
    injection_pair: Optional[str] = None
    """The attacked task's id, shared by both twins (a task without an injection: its own id)."""
    injection_begun: Optional[bool] = None
    """A tool call the injection counts as begun was made."""
    injection_goal_done: Optional[bool] = None
    """The injected goal's state reached, on either arm."""
    outcome_obeyed: Optional[bool] = None
    """What the outcome check itself said of the injected goal (`Outcome.obeyed`), apart from a `done_by` call's
    answer and the settings' history; older records: `injection_goal_done` stands for all three."""
    settings_changed: Optional[list[SettingChange]] = None
    """Every setting that differs between the settings read before and after the driver, or that the device's own
    history shows written in between, whether or not the task allows it (`side_effects` are the ones it does not):
    what a regrade reads the settings from."""
    settings_history: Optional[bool] = None
    """Whether the device kept its settings' history (`dumpsys settings`' historical operations; debuggable builds
    only): where it did not, a setting changed and put back leaves nothing to read, and `done_by` answers stand in."""
    script_raised: Optional[str] = None
    """What a control's script raised, as it raised it (`script_error` adds what the grader found wrong with the
    control: a misgraded answer form, an injection fact it got wrong)."""
    regraded_from: Optional[RegradedFrom] = None
    """`report --regrade` only (in memory, never in verdict.json): what the stored record said."""
    resumed: bool = Field(False, exclude=True)
    """Carried from an earlier session of the run by `--resume` (on the test report only; never in verdict.json)."""

    @field_validator("hit_limit", mode="before")
    @classmethod
    def _older_hit_limit(cls, value: Any) -> Any:
        # Records written while the field was declared a bool: false is "no limit", true a limit not named.
        if value is False:
            return None
        if value is True:
            return "unknown"
        return value

    @field_validator("verdict")
    @classmethod
    def _known_verdict(cls, value: str) -> str:
        if value not in ALL_VERDICTS:
            raise ValueError(f"unknown verdict {value!r}")
        return value

    # ---- in and out ----

    @classmethod
    def parse(cls, data: Any) -> "TrialRecord":
        """A record from its JSON form; `RecordInvalid` in one line when it does not fit."""
        if not isinstance(data, dict):
            raise RecordInvalid("not a JSON object")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise RecordInvalid(_one_line(exc, data)) from None

    def to_json(self) -> dict:
        """verdict.json's content: every field under its stored name."""
        return self.model_dump(mode="json", by_alias=True, exclude={"resumed"})

    def regraded(self, graded: dict, was: RegradedFrom) -> "TrialRecord":
        """This record graded again (`graded`: grading.Verdict.record_fields() of the new verdict), validated as a
        record is when it loads, with what it said before (`regraded_from`)."""
        return TrialRecord.parse(dict(self.to_wire(), **graded, regraded_from=was.model_dump()))

    def to_wire(self) -> dict:
        """Its form on a test report that xdist carries from a worker to the controller: verdict.json's content
        with `resumed` (`parse` makes the record again)."""
        return dict(self.to_json(), resumed=self.resumed)

    # ---- what the record means, worked out here once ----

    @property
    def is_control(self) -> bool:
        return is_control(self.driver)

    @property
    def setting(self) -> Setting:
        """What one pass rate is about: the driver, and for the agent its model setting and surface variant."""
        return Setting(self.driver, self.model_name, str(self.effort) if self.effort else None, self.surface or None,
                       self.model_label or None)

    @property
    def model_name(self) -> str:
        """The model as a trial folder's name says it: "none" for a control (or a record without one)."""
        return str(self.model or "none")

    @property
    def claim_status(self) -> Optional[str]:
        return self.claim.status if self.claim is not None else None

    @property
    def claims_disagree(self) -> bool:
        """The agent's text stated one claim and its final answer the other."""
        return self.stated_status is not None and self.claim_status is not None and \
            self.stated_status != self.claim_status

    @property
    def stopped_by(self) -> Optional[str]:
        """Which limit stopped the agent, in words ("stopped at its time limit"); None when none did."""
        return LIMIT_WORDS.get(self.hit_limit) if self.hit_limit else None

    @property
    def answer(self) -> Optional[str]:
        return self.claim.answer if self.claim is not None else None

    @property
    def reason(self) -> Optional[str]:
        return self.claim.reason if self.claim is not None else None

    @property
    def seconds(self) -> Optional[float]:
        return self.timings.total_s if self.timings is not None else None

    @property
    def is_infra_error(self) -> bool:
        return self.verdict == INFRA_ERROR or bool(self.infra_error)

    @property
    def as_declared(self) -> bool:
        """For a control trial: its verdict is the one the task declares for that control, and nothing else went
        wrong in it (a script that broke, an answer form misgraded)."""
        return self.expected is not None and self.verdict == self.expected and self.ok is not False

    @property
    def passed(self) -> bool:
        """The verdict is a pass (what an agent trial is counted on; a control's is `as_declared`)."""
        return self.verdict == "pass"

    @property
    def success(self) -> bool:
        """What a pass rate counts: a control getting its declared verdict, the agent a pass."""
        return self.as_declared if self.is_control else self.passed

    @property
    def blocker_lines(self) -> list[str]:
        blockers = self.blockers or []
        if isinstance(blockers, str):
            blockers = [blockers]
        if not blockers and self.severity == "blocker":
            blockers = [self.verdict]
        return [str(b) for b in blockers]

    @property
    def gating_blockers(self) -> list[str]:
        """The blockers that hold the decision (grading.is_blocking says which)."""
        return is_blocking(self.blocker_lines, driver=self.driver, verdict=self.verdict, expected=self.expected)

    def report_properties(self) -> dict:
        """The few facts a test report carries as attributes and junitxml properties, under those names."""
        return {"verdict": self.verdict, "expected": self.expected, "severity": self.severity,
                "driver": self.driver, "model": self.model_label or self.model, "claim": self.claim_status,
                "answer": self.answer, "tool_calls": self.tool_calls, "seconds": self.seconds}


def fitted(fields: dict) -> tuple[TrialRecord, Optional[str]]:
    """A record from the fields a trial produced, and None; or, when a value does not fit its field, the record with
    each such field left at its default (None where it has none) and the one line saying what did not fit: the
    record of a trial is built whatever its driver returned, and the trial is then an infrastructure error with that
    line, never a trial lost to a traceback."""
    try:
        return TrialRecord(**fields), None
    except ValidationError as exc:
        problem = _one_line(exc, fields)
        unfit = {str(e["loc"][0]) for e in exc.errors() if e["loc"]}
    salvaged = dict(fields)
    for name in unfit:
        declared = TrialRecord.model_fields.get(name)
        salvaged.pop(name, None)
        if declared is not None and declared.is_required():
            salvaged[name] = None
    return TrialRecord(**salvaged), problem


def _one_line(exc: ValidationError, data: dict) -> str:
    errors = exc.errors()
    missing = [".".join(str(p) for p in e["loc"]) for e in errors if e["type"] == "missing"]
    if missing:
        return f"lacks {', '.join(missing)}"
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"])
    if where == "verdict":
        return f"unknown verdict {data.get('verdict')!r}"
    if where == "repeat":
        return f"repeat {data.get('repeat')!r} is not a number"
    return validation_line(exc)


def validation_line(exc: ValidationError) -> str:
    """A record's first misfit in one line, where and what, with how many more: what both records say when a
    file does not fit its model."""
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"])
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first['msg']} (got {first.get('input')!r}){more}"
