"""A page's DOM as script sees it: the elements its nodes draw (by id), `document` and `window`.

The page draws Android nodes (as Chrome's accessibility tree shows them); each node with an id is an element whose
tag follows its class (EditText an INPUT, Button a BUTTON, CheckBox an INPUT of type checkbox, a nested WebView an
IFRAME, TextView a P, anything else a DIV) unless the page names its tag. A frame's inside is its own document, so
`document.getElementById` does not reach into it, as across frames in a browser.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from ..views import Node
from .script import JSON_OBJECT, UNDEFINED, HostObject, ScriptError, UnsupportedScript, to_string

TAG_OF_CLASS = {"android.widget.EditText": "INPUT", "android.widget.Button": "BUTTON",
                "android.widget.CheckBox": "INPUT", "android.webkit.WebView": "IFRAME",
                "android.widget.TextView": "P"}
FORM_TAGS = ("INPUT", "TEXTAREA", "BUTTON", "SELECT", "IFRAME")
ELEMENT_CLASS = {"A": "HTMLAnchorElement", "INPUT": "HTMLInputElement", "TEXTAREA": "HTMLTextAreaElement",
                 "BUTTON": "HTMLButtonElement", "IFRAME": "HTMLIFrameElement", "P": "HTMLParagraphElement",
                 "DIV": "HTMLDivElement", "BODY": "HTMLBodyElement"}
_SELECTOR = re.compile(r"\s*([A-Za-z][A-Za-z0-9]*)?(?:#([A-Za-z_][\w-]*))?\s*")


class Element(HostObject):
    def __init__(self, tag: str, node: Node | None = None, *, text: Callable[[], str] | None = None,
                 attrs: Mapping[str, str] | None = None):
        self.tag = tag
        self.node = node
        self._text = text
        self.attrs = dict(attrs or {})
        if node is not None and node.id:
            self.attrs.setdefault("id", node.id)
        if node is not None and tag == "INPUT":
            self.attrs.setdefault("type", "password" if node.password else
                                  "checkbox" if node.checkable else "text")
        self.js_class = ELEMENT_CLASS.get(tag, "HTMLElement")

    @property
    def text(self) -> str:
        if self._text is not None:
            return self._text()
        if self.node is None:
            return ""
        if self.tag in ("INPUT", "TEXTAREA"):
            return ""  # an input's text is its value, not its content
        return _all_text(self.node)

    def js_property(self, name: str) -> Any:
        if name in ("textContent", "innerText"):
            return self.text
        if name == "tagName" or name == "nodeName":
            return self.tag
        if name == "id":
            return self.attrs.get("id", "")
        if name == "value":
            if self.tag in ("INPUT", "TEXTAREA"):
                return "on" if self.attrs.get("type") == "checkbox" else (self.node.text if self.node else "")
            return self.attrs.get("value", "") if self.tag in FORM_TAGS else UNDEFINED
        if name == "checked" and self.tag == "INPUT":
            return bool(self.node and self.node.checked)
        if name == "disabled" and self.tag in FORM_TAGS:
            return bool(self.node and not self.node.enabled)
        if name in ("href", "type", "placeholder", "name"):
            if name == "placeholder" and self.node is not None and self.tag in ("INPUT", "TEXTAREA"):
                return self.node.hint
            if name in self.attrs:
                return self.attrs[name]
            return "" if self.tag in FORM_TAGS or (name == "href" and self.tag == "A") else UNDEFINED
        if name == "getAttribute":
            return lambda attr=UNDEFINED: self.attrs.get(to_string(attr))
        if name == "hasAttribute":
            return lambda attr=UNDEFINED: to_string(attr) in self.attrs
        return UNDEFINED


def _all_text(node: Node) -> str:
    parts = [node.text] if node.text else []
    parts += [_all_text(c) for c in node.children if c is not None and c.cls != "android.webkit.WebView"]
    return "".join(p for p in parts if p)


class Document(HostObject):
    js_class = "HTMLDocument"

    def __init__(self, title: str, url: str, elements: list[Element], focused: str | None = None):
        self.title, self.url = title, url
        self.elements = elements
        self.body = Element("BODY")
        self.focused = focused

    def by_id(self, element_id: str) -> Element | None:
        return next((e for e in self.elements if e.attrs.get("id") == element_id), None)

    def query(self, selector: str) -> Element | None:
        m = _SELECTOR.fullmatch(selector)
        if not selector.strip() or m is None or not (m.group(1) or m.group(2)):
            raise UnsupportedScript(f"the selector {selector!r} (it reads only 'tag', '#id' and 'tag#id')")
        tag, element_id = (m.group(1) or "").upper(), m.group(2)
        for e in self.elements:
            if (not tag or e.tag == tag) and (element_id is None or e.attrs.get("id") == element_id):
                return e
        return None

    def js_property(self, name: str) -> Any:
        if name == "getElementById":
            return lambda element_id=UNDEFINED: self.by_id(to_string(element_id))
        if name == "querySelector":
            return lambda selector=UNDEFINED: self.query(to_string(selector))
        if name == "activeElement":
            return (self.by_id(self.focused) if self.focused else None) or self.body
        if name == "body":
            return self.body
        if name == "title":
            return self.title
        if name == "URL":
            return self.url
        if name == "location":
            return {"href": self.url}
        if name in ("querySelectorAll", "getElementsByTagName", "getElementsByClassName", "evaluate"):
            raise UnsupportedScript(f"document.{name}")
        return UNDEFINED


def document_of(nodes: list[Node], *, title: str, url: str, tags: Mapping[str, str],
                attrs: Mapping[str, Mapping[str, str]], texts: Mapping[str, Callable[[], str]],
                focused: str | None) -> Document:
    """The document the nodes draw: every node with an id, in document order, not descending into frames."""
    elements: list[Element] = []

    def visit(node: Node) -> None:
        if node.id:
            tag = tags.get(node.id) or TAG_OF_CLASS.get(node.cls, "DIV")
            elements.append(Element(tag, node, text=texts.get(node.id), attrs=attrs.get(node.id)))
        if node.cls == "android.webkit.WebView":
            return  # a frame: its own document
        for child in node.children:
            if child is not None:
                visit(child)

    for node in nodes:
        visit(node)
    # Elements the page names but does not draw as nodes of their own (a line drawn inside another) still exist.
    for element_id, text in texts.items():
        if not any(e.attrs.get("id") == element_id for e in elements):
            elements.append(Element(tags.get(element_id, "DIV"), text=text,
                                    attrs={"id": element_id, **attrs.get(element_id, {})}))
    return Document(title, url, elements, focused)


class Window(HostObject):
    """The global object: `window.formState` is `formState`."""

    js_class = "Window"

    def __init__(self, scope: Mapping[str, Any]):
        self.scope = scope

    def js_property(self, name: str) -> Any:
        return self.scope.get(name, UNDEFINED)


def page_globals(document: Document, functions: Mapping[str, Any]) -> dict[str, Any]:
    """What a name means in the page: its own globals, then `document`, `window`, `JSON`."""
    scope: dict[str, Any] = {"JSON": JSON_OBJECT, "document": document, "location": {"href": document.url}}
    scope.update(functions)
    scope["window"] = Window(scope)
    return scope


__all__ = ["Document", "Element", "ScriptError", "document_of", "page_globals"]
