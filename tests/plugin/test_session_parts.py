"""The session split by concern: EvalSession holds what the run was asked (RunOptions, frozen), the device lease, the
agent trials' settings (AgentSetup) and the run's books (RunBooks), each an object of its own, and its own methods are
pytest's hooks and little else."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap

import pytest

from pytest_mobium_evals.plugin.agent_setup import AgentSetup
from pytest_mobium_evals.plugin.options import RunOptions
from pytest_mobium_evals.plugin.run_books import RunBooks
from pytest_mobium_evals.plugin.session import EvalSession

#: The issue's bound: past it, a concern has crept back into the session.
MOST_METHODS = 10


def own_methods(cls: type) -> list[str]:
    """The methods a class's own source defines (properties, class methods and __post_init__ counted), not those
    it inherits or the dataclass decorator writes."""
    written = {node.name for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(cls))))
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return [name for name, value in vars(cls).items()
            if name in written and (inspect.isfunction(value) or isinstance(value, (property, classmethod)))]


def test_the_session_has_at_most_ten_methods_and_the_rest_are_its_hooks():
    methods = own_methods(EvalSession)
    assert len(methods) <= MOST_METHODS, methods
    others = [m for m in methods if not m.startswith("pytest_")]
    assert set(others) <= {"__post_init__", "from_config", "to_workerinput", "devices"}, others


def options(**given) -> RunOptions:
    required = {f.name: None for f in dataclasses.fields(RunOptions)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    return RunOptions(**(required | given))


def test_each_concern_is_an_object_of_its_own():
    evals = EvalSession(options(seed=3, run_dir="unused", resumed=False))
    assert dataclasses.is_dataclass(evals.options) and evals.options.__dataclass_params__.frozen
    assert isinstance(evals.agents, AgentSetup) and isinstance(evals.books, RunBooks)
    assert evals.books.agents is evals.agents and evals.books.options is evals.options is evals.agents.options
    with pytest.raises(dataclasses.FrozenInstanceError):
        evals.options.seed = 4
