"""The JavaScript subset WebView pages evaluate: what it reads, the errors a device would throw, and the refusal of
everything outside it."""

from __future__ import annotations

import pytest

from pytest_mobium_evals.sim.apps.dom import page_globals
from pytest_mobium_evals.sim.apps.script import UNDEFINED, ScriptError, UnsupportedScript, evaluate
from pytest_mobium_evals.sim.apps.web import FormPage, FramesPage, PlainPage

FOCUSED = ("(() => { const a = document.activeElement; return a ? (a.getAttribute('data-testid') || a.id || a.name "
           "|| a.tagName) : '' })()")


@pytest.mark.parametrize("source, value", [
    ("1", 1), ("'it\\'s'", "it's"), ('"a\\u00e9"', "aé"), ("true && 'x'", "x"),
    ("null || 0 || 'last'", "last"), ("undefined ?? 'd'", "d"), ("0 ?? 'd'", 0), ("1 === 1 ? 'y' : 'n'", "y"),
    ("'1' == 1", True), ("'1' === 1", False), ("null == undefined", True), ("null === undefined", False),
    ("!''", True), ("-2", -2), ("typeof nope", "undefined"), ("typeof 'x'", "string"),
    ("(() => 'arrow')()", "arrow"), ("(() => { const a = 'x'; let b = a; return b; })()", "x"),
    ("(() => { const o = f(); return o.k; })()", 3), ("f()['k']", 3), ("f().missing", UNDEFINED),
    ("f()?.k", 3), ("nul?.k", UNDEFINED), ("'abc'.length", 3), ("list().length", 2), ("list()[1]", "b"),
    ("JSON.stringify(f())", '{"k":3}'), ("window.f().k", 3), ("const x = 1; x", 1),
])
def test_the_subset_reads_like_javascript(source, value):
    scope = page_globals(PlainPage().document(), {"f": lambda: {"k": 3}, "list": lambda: ["a", "b"], "nul": None})
    assert evaluate(source, scope) == value


@pytest.mark.parametrize("source, kind, message", [
    ("nope()", "ReferenceError", "nope is not defined"),
    ("document.getElementById('absent').textContent", "TypeError",
     "Cannot read properties of null (reading 'textContent')"),
    ("document.title()", "TypeError", "document.title is not a function"),
    ("const a = 1; const a = 2; a", "SyntaxError", "Identifier 'a' has already been declared"),
    ("return 1", "SyntaxError", "Illegal return statement"),
    ("(1", "SyntaxError", "Unexpected end of input"),
])
def test_what_throws_on_a_device_throws_the_same_error_class(source, kind, message):
    with pytest.raises(ScriptError) as thrown:
        PlainPage().evaluate(source)
    assert (thrown.value.kind, thrown.value.message) == (kind, message)


@pytest.mark.parametrize("source, named", [
    ("1 + 1", "arithmetic (+) at column 2"), ("window.location.href = 'x'", "assignment (=) at column 21"),
    ("[1, 2]", "'[' at column 0"), ("x => x", "an arrow function with parameters at column 0"),
    ("`t`", "a template literal at column 0"), ("document.querySelectorAll('p')", "document.querySelectorAll"),
    ("document.querySelector('div > p')", "the selector 'div > p'"), ("a < b", "a comparison (<) at column 2"),
])
def test_anything_else_is_refused_naming_the_subset_and_what_it_met(source, named):
    with pytest.raises(UnsupportedScript) as refused:
        PlainPage().evaluate(source)
    assert refused.value.kind == "SyntaxError"
    assert "the virtual device evaluates a subset of JavaScript" in refused.value.message
    assert named in refused.value.message and refused.value.message.endswith("is outside it")


def test_elements_by_id_and_selector_with_their_properties():
    plain = PlainPage()
    assert plain.evaluate("document.querySelector('a#link') && document.querySelector('a#link').href") == \
        "https://github.com/mobiumdev"
    assert plain.evaluate("document.querySelector('a#link').tagName") == "A"
    assert plain.evaluate("document.querySelector('p#link')") is None  # the tag must match too
    assert plain.evaluate("document.querySelector('#para').textContent") == "The quick brown fox."
    assert plain.evaluate("document.getElementById('para').innerText") == "The quick brown fox."
    assert plain.evaluate("document.title") == "Plain page" and plain.evaluate("document.URL") == "about:blank"
    form = FormPage()
    form.text = "typed"
    assert form.evaluate("document.getElementById('fText').value") == "typed"
    assert form.evaluate("document.getElementById('fArea').tagName") == "TEXTAREA"
    assert form.evaluate("document.getElementById('fPassword').getAttribute('type')") == "password"
    assert form.evaluate("document.getElementById('fDisabled').disabled") is True
    assert form.evaluate("document.getElementById('fCheck').checked") is False
    assert form.evaluate("document.getElementById('mirror').textContent") == "mirror: typed"
    assert form.evaluate("formState().mirror") == "mirror: typed" and form.evaluate("passwordIs('')") is True


def test_active_element_is_the_focused_field_else_the_body():
    form = FormPage()
    assert form.evaluate(FOCUSED) == "BODY"
    assert form.evaluate(FOCUSED, focused="fEmail") == "fEmail"
    assert form.evaluate("document.activeElement.tagName", focused="fArea") == "TEXTAREA"
    assert form.evaluate("document.activeElement.tagName", focused="notOnThisPage") == "BODY"


def test_a_frame_is_a_document_of_its_own():
    frames = FramesPage()
    assert frames.evaluate("document.getElementById('sameFrame').tagName") == "IFRAME"
    assert frames.evaluate("document.getElementById('sameBtn')") is None  # inside the frame, not the page
    assert frames.evaluate("document.getElementById('frameOutcome').textContent") == "last tap: none"


def test_evaluate_without_a_page():
    assert evaluate("f() === 'x'", {"f": lambda: "x"}) is True
    with pytest.raises(ScriptError):
        evaluate("g()", {})
