"""A small, honest subset of JavaScript, evaluated against a page model: what DevTools' Runtime.evaluate runs on the
virtual device.

A real WebView evaluates any script; this one reads expressions and nothing that changes the page. The subset:
literals (numbers, 'single' and "double" quoted strings, true, false, null, undefined), names (`const` bindings,
then the page's globals), member access (`a.b`, `a['b']`, `a?.b`), calls, `!`, unary `-`, `===` `!==` `==` `!=`,
`&&` `||` `??`, `?:`, parentheses, and an arrow function with no parameters called at once, whose body is an
expression or a block of `const`/`let` bindings, expression statements and `return`. Anything else is refused as a
SyntaxError that says the virtual device evaluates a subset; a script that would throw on a device throws the same
error class here (ReferenceError for an unknown name, TypeError for a property of null or a call of a non-function).

Values are Python's: str, int/float, bool, None (null), `UNDEFINED`, dict (an object), list (an array), callables
(functions) and host objects that answer `js_property(name)` (elements, `document`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping


class _Undefined:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED = _Undefined()


class ScriptError(Exception):
    """The script threw: `kind` is the JS error class, `message` its message, `column` where (0-based)."""

    def __init__(self, kind: str, message: str, column: int = 0):
        super().__init__(f"{kind}: {message}")
        self.kind, self.message, self.column = kind, message, column


class UnsupportedScript(ScriptError, ValueError):
    """The script is outside the subset the virtual device evaluates (a device would run it)."""

    def __init__(self, what: str, column: int = 0):
        super().__init__("SyntaxError", f"the virtual device evaluates a subset of JavaScript (names, member access, "
                         f"calls, comparisons, && || ?:, an arrow function called at once), and {what} is outside "
                         f"it", column)


class HostObject:
    """An object the page supplies (an element, `document`): its properties come from `js_property`."""

    js_class = "Object"

    def js_property(self, name: str) -> Any:  # pragma: no cover - every host object overrides it
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------------------------
# Tokens

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<string>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
  | (?P<name>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<op>===|!==|==|!=|=>|&&|\|\||\?\?|\?\.|[.()\[\]{},;:?!=\-+*/<>%&|^~`])
""", re.X)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_KEYWORDS = {"true", "false", "null", "undefined", "const", "let", "return", "typeof"}
# Operators the subset leaves out, named so the refusal says what it met.
_OUTSIDE = {"=": "assignment (=)", "+": "arithmetic (+)", "*": "arithmetic (*)", "/": "arithmetic (/)",
            "%": "arithmetic (%)", "<": "a comparison (<)", ">": "a comparison (>)", "&": "a bitwise operator (&)",
            "|": "a bitwise operator (|)", "^": "a bitwise operator (^)", "~": "a bitwise operator (~)",
            "`": "a template literal"}


@dataclass
class Token:
    kind: str   # number, string, name, op, end
    text: str
    at: int
    value: Any = None


def tokenize(source: str) -> list[Token]:
    tokens, i = [], 0
    while i < len(source):
        m = _TOKEN.match(source, i)
        if m is None:
            raise UnsupportedScript(f"the character {source[i]!r} at column {i}", i)
        kind = m.lastgroup or ""
        text = m.group()
        if kind == "number":
            tokens.append(Token(kind, text, i, float(text) if any(c in text for c in ".eE") else int(text)))
        elif kind == "string":
            tokens.append(Token(kind, text, i, _unquote(text[1:-1])))
        elif kind != "space":
            tokens.append(Token(kind, text, i))
        i = m.end()
    tokens.append(Token("end", "", len(source)))
    return tokens


def _unquote(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2:i + 6]):
                out.append(chr(int(body[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------------
# Syntax: each node is a tuple (kind, column, ...)

class _Parser:
    def __init__(self, source: str):
        self.tokens = tokenize(source)
        self.i = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def take(self) -> Token:
        tok = self.tok
        self.i += 1
        return tok

    def at(self, *texts: str) -> bool:
        return self.tok.kind in ("op", "name") and self.tok.text in texts

    def expect(self, text: str) -> Token:
        if not self.at(text):
            self.refuse(f"expected {text!r}")
        return self.take()

    def refuse(self, expected: str = "") -> None:
        tok = self.tok
        if tok.kind == "op" and tok.text in _OUTSIDE:
            raise UnsupportedScript(f"{_OUTSIDE[tok.text]} at column {tok.at}", tok.at)
        if tok.kind == "end":
            raise ScriptError("SyntaxError", "Unexpected end of input", tok.at)
        raise UnsupportedScript(f"{tok.text!r} at column {tok.at}" + (f" ({expected})" if expected else ""), tok.at)

    def program(self) -> tuple:
        # A console evaluation: statements, the value of the last expression statement is the answer.
        body = self.statements(until="end")
        return ("program", 0, body)

    def statements(self, until: str) -> list[tuple]:
        out = []
        while not (self.tok.kind == "end" if until == "end" else self.at(until)):
            if self.at(";"):
                self.take()
                continue
            out.append(self.statement())
            if not self.at(";") and not (self.tok.kind == "end" if until == "end" else self.at(until)):
                self.refuse("expected ';'")
        return out

    def statement(self) -> tuple:
        tok = self.tok
        if self.at("const", "let"):
            self.take()
            name = self.take()
            if name.kind != "name" or name.text in _KEYWORDS:
                raise UnsupportedScript(f"a binding that is not a plain name at column {name.at}", name.at)
            self.expect("=")
            return ("const", tok.at, name.text, self.expression())
        if self.at("return"):
            self.take()
            if self.at(";", "}") or self.tok.kind == "end":
                return ("return", tok.at, ("literal", tok.at, UNDEFINED))
            return ("return", tok.at, self.expression())
        return ("expr", tok.at, self.expression())

    def expression(self) -> tuple:
        cond = self.logical()
        if self.at("?"):
            at = self.take().at
            yes = self.expression()
            self.expect(":")
            no = self.expression()
            return ("cond", at, cond, yes, no)
        return cond

    def logical(self) -> tuple:
        left = self.logical_and()
        while self.at("||", "??"):
            op = self.take()
            left = ("logic", op.at, op.text, left, self.logical_and())
        return left

    def logical_and(self) -> tuple:
        left = self.equality()
        while self.at("&&"):
            op = self.take()
            left = ("logic", op.at, "&&", left, self.equality())
        return left

    def equality(self) -> tuple:
        left = self.unary()
        while self.at("===", "!==", "==", "!="):
            op = self.take()
            left = ("compare", op.at, op.text, left, self.unary())
        return left

    def unary(self) -> tuple:
        if self.at("!", "-", "typeof"):
            op = self.take()
            return ("unary", op.at, op.text, self.unary())
        return self.postfix()

    def postfix(self) -> tuple:
        node = self.primary()
        while True:
            if self.at(".", "?."):
                op = self.take()
                name = self.take()
                if name.kind != "name":
                    raise UnsupportedScript(f"{name.text!r} after {op.text!r} at column {name.at}", name.at)
                node = ("member", name.at, node, ("literal", name.at, name.text), op.text == "?.")
            elif self.at("["):
                at = self.take().at
                key = self.expression()
                self.expect("]")
                node = ("member", at, node, key, False)
            elif self.at("("):
                at = self.take().at
                args = []
                while not self.at(")"):
                    args.append(self.expression())
                    if not self.at(")"):
                        self.expect(",")
                self.expect(")")
                node = ("call", at, node, args)
            else:
                return node

    def primary(self) -> tuple:
        tok = self.tok
        if tok.kind in ("number", "string"):
            self.take()
            return ("literal", tok.at, tok.value)
        if tok.kind == "name":
            self.take()
            words = {"true": True, "false": False, "null": None, "undefined": UNDEFINED}
            if tok.text in words:
                return ("literal", tok.at, words[tok.text])
            if tok.text in _KEYWORDS:
                raise UnsupportedScript(f"{tok.text!r} inside an expression at column {tok.at}", tok.at)
            if self.at("=>"):
                raise UnsupportedScript(f"an arrow function with parameters at column {tok.at}", tok.at)
            return ("name", tok.at, tok.text)
        if self.at("("):
            if self.peek().text == ")" and self.peek(2).text == "=>":
                return self.arrow()
            self.take()
            inner = self.expression()
            self.expect(")")
            return inner
        self.refuse()
        raise AssertionError("unreachable")  # pragma: no cover

    def arrow(self) -> tuple:
        at = self.take().at
        self.expect(")")
        self.expect("=>")
        if self.at("{"):
            self.take()
            body = self.statements(until="}")
            self.expect("}")
            return ("arrow", at, body)
        return ("arrow", at, [("return", at, self.expression())])


def parse(source: str) -> tuple:
    return _Parser(source).program()


# ---------------------------------------------------------------------------------------------------------------
# Evaluation

class _Return(Exception):
    def __init__(self, value: Any):
        self.value = value


@dataclass
class _Arrow:
    body: list
    scope: dict
    globals: Mapping[str, Any]

    def __call__(self, *args: Any) -> Any:
        return _run_body(self.body, dict(self.scope), self.globals)


def evaluate(source: str, globals: Mapping[str, Any]) -> Any:
    """The value of `source` (its last expression statement), or raises ScriptError."""
    tree = parse(source)
    scope: dict[str, Any] = {}
    value: Any = UNDEFINED
    for stmt in tree[2]:
        if stmt[0] == "return":
            raise ScriptError("SyntaxError", "Illegal return statement", stmt[1])
        value = _statement(stmt, scope, globals)
    return value


def _run_body(body: list, scope: dict, globals: Mapping[str, Any]) -> Any:
    try:
        for stmt in body:
            _statement(stmt, scope, globals)
    except _Return as done:
        return done.value
    return UNDEFINED


def _statement(stmt: tuple, scope: dict, globals: Mapping[str, Any]) -> Any:
    kind = stmt[0]
    if kind == "const":
        name = stmt[2]
        if name in scope:
            raise ScriptError("SyntaxError", f"Identifier '{name}' has already been declared", stmt[1])
        scope[name] = _value(stmt[3], scope, globals)
        return UNDEFINED
    if kind == "return":
        raise _Return(_value(stmt[2], scope, globals))
    return _value(stmt[2], scope, globals)


def _value(node: tuple, scope: dict, globals: Mapping[str, Any]) -> Any:
    kind, at = node[0], node[1]
    if kind == "literal":
        return node[2]
    if kind == "name":
        name = node[2]
        if name in scope:
            return scope[name]
        if name in globals:
            return globals[name]
        raise ScriptError("ReferenceError", f"{name} is not defined", at)
    if kind == "member":
        target = _value(node[2], scope, globals)
        if node[4] and (target is None or target is UNDEFINED):
            return UNDEFINED
        return get_property(target, _value(node[3], scope, globals), at)
    if kind == "call":
        fn = _value(node[2], scope, globals)
        args = [_value(a, scope, globals) for a in node[3]]
        if not callable(fn) or isinstance(fn, HostObject):
            raise ScriptError("TypeError", f"{_describe_callee(node[2])} is not a function", at)
        return fn(*args)
    if kind == "logic":
        left = _value(node[3], scope, globals)
        op = node[2]
        if op == "&&":
            return _value(node[4], scope, globals) if truthy(left) else left
        if op == "||":
            return left if truthy(left) else _value(node[4], scope, globals)
        return _value(node[4], scope, globals) if left is None or left is UNDEFINED else left
    if kind == "compare":
        a, b = _value(node[3], scope, globals), _value(node[4], scope, globals)
        op = node[2]
        same = _strict_equal(a, b) if op in ("===", "!==") else _loose_equal(a, b)
        return same if op in ("===", "==") else not same
    if kind == "cond":
        return _value(node[3] if truthy(_value(node[2], scope, globals)) else node[4], scope, globals)
    if kind == "unary":
        if node[2] == "typeof" and node[3][0] == "name" and node[3][2] not in scope and node[3][2] not in globals:
            return "undefined"  # typeof is the one read of an undeclared name that does not throw
        v = _value(node[3], scope, globals)
        if node[2] == "!":
            return not truthy(v)
        if node[2] == "typeof":
            return type_of(v)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise UnsupportedScript(f"unary minus of a {type_of(v)} at column {at}", at)
        return -v
    if kind == "arrow":
        return _Arrow(node[2], dict(scope), globals)
    raise UnsupportedScript(f"a {kind} at column {at}", at)  # pragma: no cover - the parser makes no other kind


def _describe_callee(node: tuple) -> str:
    if node[0] == "name":
        return node[2]
    if node[0] == "member" and node[3][0] == "literal":
        return f"{_describe_callee(node[2])}.{node[3][2]}"
    return "the expression"


def get_property(target: Any, key: Any, at: int = 0) -> Any:
    if target is None or target is UNDEFINED:
        raise ScriptError("TypeError", f"Cannot read properties of {'null' if target is None else 'undefined'} "
                          f"(reading '{to_string(key)}')", at)
    name = to_string(key)
    if isinstance(target, HostObject):
        return target.js_property(name)
    if isinstance(target, dict):
        return target.get(name, UNDEFINED)
    if isinstance(target, list):
        if name == "length":
            return len(target)
        return target[int(name)] if name.isdigit() and int(name) < len(target) else UNDEFINED
    if isinstance(target, str):
        if name == "length":
            return len(target)
        return target[int(name)] if name.isdigit() and int(name) < len(target) else UNDEFINED
    return UNDEFINED


def truthy(v: Any) -> bool:
    if v is None or v is UNDEFINED:
        return False
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return v != 0 and not math.isnan(v)
    if isinstance(v, str):
        return v != ""
    return True


def _strict_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return a is b


def _loose_equal(a: Any, b: Any) -> bool:
    nullish = (None, UNDEFINED)
    if a in nullish or b in nullish:
        return a in nullish and b in nullish
    if isinstance(a, (str, int, float)) and isinstance(b, (str, int, float)) and type(a) is not type(b):
        try:
            return float(a) == float(b)
        except ValueError:
            return False
    return _strict_equal(a, b)


def type_of(v: Any) -> str:
    if v is UNDEFINED:
        return "undefined"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if callable(v) and not isinstance(v, HostObject):
        return "function"
    return "object"


def to_string(v: Any) -> str:
    if isinstance(v, str):
        return v
    if v is None:
        return "null"
    if v is UNDEFINED:
        return "undefined"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def to_json(v: Any) -> Any:
    """The value as JSON.stringify (and DevTools' returnByValue) would carry it: undefined and functions dropped
    from objects, an element as {}."""
    if v is UNDEFINED or (callable(v) and not isinstance(v, HostObject)):
        return None
    if isinstance(v, HostObject):
        return {}
    if isinstance(v, dict):
        return {k: to_json(x) for k, x in v.items()
                if x is not UNDEFINED and not (callable(x) and not isinstance(x, HostObject))}
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def json_stringify(v: Any = UNDEFINED, *_: Any) -> Any:
    if v is UNDEFINED or (callable(v) and not isinstance(v, HostObject)):
        return UNDEFINED
    return json.dumps(to_json(v), ensure_ascii=False, separators=(",", ":"))


JSON_OBJECT: dict[str, Callable[..., Any]] = {"stringify": json_stringify,
                                               "parse": lambda s="": json.loads(to_string(s))}
