"""The UiAutomator2 server's locator strategies over a snapshot: `id`, `accessibility id`, `class name`, `xpath`
(XPath 1.0 over the page source, by lxml) and `-android uiautomator` (the UiSelector and UiScrollable calls clients
write, parsed here rather than compiled as the server does with its own parser)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from lxml import etree

from .snapshot import UiNode


class InvalidSelector(Exception):
    """The selector cannot be read: W3C `invalid selector`."""


STRATEGIES = ("id", "accessibility id", "class name", "xpath", "-android uiautomator")


def find(root: UiNode, strategy: str, selector: str, *, context: UiNode | None = None,
         package: str = "", scroll: Callable[[UiNode, str, int], bool] | None = None,
         resnap: Callable[[], UiNode] | None = None) -> list[UiNode]:
    """Every element `selector` matches, in document order, under `context` (the whole screen when None).

    `package` is the package in front, which the `id` strategy puts before a bare name. `scroll` and `resnap` let a
    UiScrollable selector swipe its container and look again."""
    scope = context or root
    candidates = [n for n in scope.walk() if n is not scope and n is not root]
    if strategy == "id":
        wanted = selector if ":id/" in selector or not package else f"{package}:id/{selector}"
        return [n for n in candidates if n.attr("resource-id") == wanted]
    if strategy == "accessibility id":
        return [n for n in candidates if n.attr("content-desc") == selector]
    if strategy == "class name":
        return [n for n in candidates if n.attr("class") == selector]
    if strategy == "xpath":
        return _xpath(root, selector, context)
    if strategy == "-android uiautomator":
        return _uiautomator(root, selector, context, scroll, resnap)
    raise InvalidSelector(f"Locator Strategy '{strategy}' is not supported for this session")


# ---------------------------------------------------------------------------------------------------------------
# xpath

def _xpath(root: UiNode, selector: str, context: UiNode | None) -> list[UiNode]:
    by_index: dict[int, UiNode] = {}
    nodes: dict[int, etree._Element] = {}

    def build(node: UiNode, parent) -> None:
        index = len(by_index)
        by_index[index] = node
        attrs = dict(node.attrs)
        attrs["uiElementIndex"] = str(index)
        el = etree.Element(node.tag, attrs) if parent is None else etree.SubElement(parent, node.tag, attrs)
        nodes[id(node)] = el
        for child in node.children:
            build(child, el)

    build(root, None)
    doc = etree.ElementTree(nodes[id(root)])
    start = nodes[id(context)] if context is not None else doc
    try:
        found = start.xpath(selector)
    except (etree.XPathError, ValueError) as exc:
        raise InvalidSelector(f"Unable to locate an element with the xpath expression {selector} because of "
                              f"the following error: {exc}") from None
    if not isinstance(found, list):
        raise InvalidSelector(f"The xpath expression {selector} does not select elements")
    out = []
    for item in found:
        if isinstance(item, etree._Element) and item.get("uiElementIndex") is not None:
            node = by_index[int(item.get("uiElementIndex"))]
            if node is not root:
                out.append(node)
    return out


# ---------------------------------------------------------------------------------------------------------------
# -android uiautomator

@dataclass
class Call:
    name: str
    args: list


@dataclass
class Expr:
    """`new UiSelector()…` or `new UiScrollable(…)…`: the constructor's kind and arguments, then the method chain."""

    kind: str
    args: list
    calls: list[Call] = field(default_factory=list)


_TOKEN = re.compile(r'\s*(?:(?P<str>"(?:\\.|[^"\\])*")|(?P<num>-?\d+)|(?P<name>[A-Za-z_][\w.]*)|(?P<p>[().,;]))')


def _tokens(src: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    i = 0
    while i < len(src):
        if src[i:].strip() == "":
            break
        m = _TOKEN.match(src, i)
        if m is None:
            raise InvalidSelector(f"Could not parse UiSelector argument: unexpected '{src[i:i + 20].strip()}'")
        i = m.end()
        if m.group("str") is not None:
            out.append(("str", re.sub(r"\\(.)", r"\1", m.group("str")[1:-1])))
        elif m.group("num") is not None:
            out.append(("num", int(m.group("num"))))
        elif m.group("name") is not None:
            word = m.group("name")
            out.append(("bool", word == "true") if word in ("true", "false") else ("name", word))
        else:
            out.append(("p", m.group("p")))
    return out


class _Parser:
    def __init__(self, src: str):
        self.toks = _tokens(src)
        self.i = 0

    def peek(self) -> tuple[str, object] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, kind: str, value: object = None) -> object:
        tok = self.peek()
        if tok is None or tok[0] != kind or (value is not None and tok[1] != value):
            raise InvalidSelector(f"UiSelector: expected {value or kind} at token {self.i + 1}, got "
                                  f"{tok[1] if tok else 'the end'}")
        self.i += 1
        return tok[1]

    def statements(self) -> list[Expr]:
        out = [self.expr()]
        while self.peek() == ("p", ";"):
            self.i += 1
            if self.peek() is not None:
                out.append(self.expr())
        if self.peek() is not None:
            raise InvalidSelector(f"UiSelector: unexpected '{self.peek()[1]}'")
        return out

    def expr(self) -> Expr:
        if self.peek() == ("name", "new"):
            self.i += 1
            kind = str(self.take("name")).rsplit(".", 1)[-1]
            if kind not in ("UiSelector", "UiScrollable"):
                raise InvalidSelector(f"UiSelector: cannot make a {kind}; UiSelector and UiScrollable only")
            expr = Expr(kind, self.args())
        else:
            expr = Expr("UiSelector", [])  # the shortcut the server allows: `.text("x")` or `text("x")`
            if self.peek() != ("p", "."):
                expr.calls.append(self.call())
        while self.peek() == ("p", "."):
            self.i += 1
            expr.calls.append(self.call())
        return expr

    def call(self) -> Call:
        return Call(str(self.take("name")), self.args())

    def args(self) -> list:
        self.take("p", "(")
        out: list = []
        while self.peek() != ("p", ")"):
            tok = self.peek()
            if tok is None:
                raise InvalidSelector("UiSelector: unclosed '('")
            if tok == ("name", "new") or tok[0] == "name":
                out.append(self.expr())
            else:
                self.i += 1
                out.append(tok[1])
            if self.peek() == ("p", ","):
                self.i += 1
        self.take("p", ")")
        return out


_STRING_TESTS: dict[str, tuple[str, Callable[[str, str], bool]]] = {
    "text": ("text", lambda v, a: v == a),
    "textContains": ("text", lambda v, a: a in v),
    "textStartsWith": ("text", lambda v, a: v.startswith(a)),
    "textMatches": ("text", lambda v, a: re.fullmatch(a, v, re.S) is not None),
    "description": ("content-desc", lambda v, a: v == a),
    "descriptionContains": ("content-desc", lambda v, a: a in v),
    "descriptionStartsWith": ("content-desc", lambda v, a: v.startswith(a)),
    "descriptionMatches": ("content-desc", lambda v, a: re.fullmatch(a, v, re.S) is not None),
    "className": ("class", lambda v, a: v == a),
    "classNameMatches": ("class", lambda v, a: re.fullmatch(a, v) is not None),
    "resourceId": ("resource-id", lambda v, a: v == a),
    "resourceIdMatches": ("resource-id", lambda v, a: re.fullmatch(a, v) is not None),
    "packageName": ("package", lambda v, a: v == a),
    "packageNameMatches": ("package", lambda v, a: re.fullmatch(a, v) is not None),
}
_BOOL_TESTS = {"checkable": "checkable", "checked": "checked", "clickable": "clickable", "enabled": "enabled",
               "focusable": "focusable", "focused": "focused", "longClickable": "long-clickable",
               "scrollable": "scrollable", "selected": "selected"}


def _match_selector(expr: Expr, scope: list[UiNode], parents: dict[int, UiNode]) -> list[UiNode]:
    tests: list[Callable[[UiNode], bool]] = []
    instance = None
    child: Expr | None = None
    sibling: Expr | None = None
    for call in expr.calls:
        a = call.args
        if call.name in _STRING_TESTS:
            name, test = _STRING_TESTS[call.name]
            if len(a) != 1 or not isinstance(a[0], str):
                raise InvalidSelector(f"UiSelector.{call.name} takes one string")
            try:
                if call.name.endswith("Matches"):
                    re.compile(a[0])
            except re.error as exc:
                raise InvalidSelector(f"UiSelector.{call.name}: bad regular expression: {exc}") from None
            tests.append(lambda n, name=name, test=test, arg=a[0]: test(n.attr(name), arg))
        elif call.name in _BOOL_TESTS:
            want = a[0] if a else True
            tests.append(lambda n, name=_BOOL_TESTS[call.name], want=want: (n.attr(name) == "true") == want)
        elif call.name == "index":
            tests.append(lambda n, want=a[0]: n.attr("index") == str(want))
        elif call.name == "instance":
            instance = int(a[0])
        elif call.name == "childSelector":
            child = a[0]
        elif call.name == "fromParent":
            sibling = a[0]
        else:
            raise InvalidSelector(f"UiSelector has no method {call.name}() the virtual device's server knows")
    matched = [n for n in scope if all(t(n) for t in tests)]
    if child is not None:
        found: list[UiNode] = []
        for n in matched:
            for m in _match_selector(child, [d for d in n.walk() if d is not n], parents):
                if m not in found:
                    found.append(m)
        matched = found
    if sibling is not None:
        found = []
        for n in matched:
            parent = parents.get(id(n))
            if parent is None:
                continue
            for m in _match_selector(sibling, [d for d in parent.walk() if d is not parent], parents):
                if m not in found:
                    found.append(m)
        matched = found
    if instance is not None:
        matched = matched[instance:instance + 1] if 0 <= instance < len(matched) else []
    return matched


def _uiautomator(root: UiNode, selector: str, context: UiNode | None, scroll, resnap) -> list[UiNode]:
    out: list[UiNode] = []
    for expr in _Parser(selector).statements():
        for n in _evaluate(root, expr, context, scroll, resnap):
            if n not in out:
                out.append(n)
    return out


def _scope(root: UiNode, context: UiNode | None) -> tuple[list[UiNode], dict[int, UiNode]]:
    parents: dict[int, UiNode] = {}
    for n in root.walk():
        for c in n.children:
            parents[id(c)] = n
    base = context or root
    return [n for n in base.walk() if n is not base and n is not root], parents


def _evaluate(root: UiNode, expr: Expr, context: UiNode | None, scroll, resnap) -> list[UiNode]:
    scope, parents = _scope(root, context)
    if expr.kind == "UiSelector":
        return _match_selector(expr, scope, parents)
    # UiScrollable(container).scrollIntoView(target) and its kin: swipe the container until the target shows.
    if not expr.args or not isinstance(expr.args[0], Expr):
        raise InvalidSelector("UiScrollable needs a UiSelector for its container")
    container_expr = expr.args[0]
    target: Expr | None = None
    direction, max_swipes = "vertical", 30
    for call in expr.calls:
        if call.name in ("setAsHorizontalList",):
            direction = "horizontal"
        elif call.name in ("setAsVerticalList",):
            direction = "vertical"
        elif call.name == "setMaxSearchSwipes":
            max_swipes = int(call.args[0])
        elif call.name in ("scrollIntoView", "getChildByText", "getChildByDescription", "scrollTextIntoView",
                           "scrollDescriptionIntoView"):
            target = _target_for(call)
        elif call.name in ("setSwipeDeadZonePercentage", "setScrollSteps"):
            continue
        else:
            raise InvalidSelector(f"UiScrollable has no method {call.name}() the virtual device's server knows")
    containers = _match_selector(container_expr, scope, parents)
    if target is None:
        return containers[:1]
    for _ in range(max_swipes + 1):
        scope, parents = _scope(root, context)
        hits = _match_selector(target, scope, parents)
        if hits or not containers or scroll is None or resnap is None:
            return hits
        if not scroll(containers[0], direction, 1):
            return []
        root = resnap()
        scope, parents = _scope(root, None)
        containers = _match_selector(container_expr, scope, parents)
        context = None
    return []


def _target_for(call: Call) -> Expr:
    a = call.args
    if call.name == "scrollIntoView":
        if not a or not isinstance(a[0], Expr):
            raise InvalidSelector("scrollIntoView takes a UiSelector")
        return a[0]
    if call.name in ("scrollTextIntoView",):
        return Expr("UiSelector", [], [Call("text", [a[0]])])
    if call.name == "scrollDescriptionIntoView":
        return Expr("UiSelector", [], [Call("description", [a[0]])])
    # getChildByText(childPattern, text) / getChildByDescription(childPattern, desc)
    if len(a) < 2 or not isinstance(a[0], Expr):
        raise InvalidSelector(f"{call.name} takes a UiSelector and a string")
    key = "text" if call.name == "getChildByText" else "description"
    return Expr("UiSelector", [], list(a[0].calls) + [Call(key, [a[1]])])
