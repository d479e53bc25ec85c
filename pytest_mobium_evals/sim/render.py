"""`screencap`: draws the current frame (status bar, app, dialog, shade, toast, keyboard) into a PNG a person can
read: node backgrounds, texts, field hints, switches. Colours come from the nodes (`bg`, `fg`) and the window's
theme, so a dark app shows a dark background where mobium samples luminance."""

from __future__ import annotations

import io
import struct
import textwrap
import time
from functools import lru_cache
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont

from .display import Display
from .views import Placed, keyboard_keys

if TYPE_CHECKING:  # pragma: no cover
    from .device import VirtualDevice

TEXT_PX = 40  # 15 sp at 420 dpi, roughly


# Pillow's own font has no em dash, arrows or keyboard symbols (they draw as boxes); a system sans that has them is
# preferred where the machine has one.
FONT_FILES = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf",
              "/usr/share/fonts/TTF/DejaVuSans.ttf", "/Library/Fonts/Arial Unicode.ttf")


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.ImageFont:
    for path in FONT_FILES:
        try:
            return ImageFont.truetype(path, size=size)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType: a fixed bitmap font, still legible
        return ImageFont.load_default()


def _rgb(colour: str | None, default: tuple[int, int, int]) -> tuple[int, int, int]:
    if not colour or not isinstance(colour, str) or not colour.startswith("#") or len(colour) not in (7, 9):
        return default
    try:
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]
    except ValueError:
        return default


def _luma(c: tuple[int, int, int]) -> float:
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]


class _Palette:
    """Colour -> palette index, allocated as colours are first drawn."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, int, int]] = [(0, 0, 0)]
        self.index_of: dict[tuple[int, int, int], int] = {(0, 0, 0): 0}

    def index(self, colour: tuple[int, int, int]) -> int:
        colour = tuple(colour[:3])  # type: ignore[assignment]
        i = self.index_of.get(colour)
        if i is None:
            if len(self.entries) >= 256:  # full: the nearest existing colour
                return min(range(len(self.entries)),
                           key=lambda k: sum((a - b) ** 2 for a, b in zip(self.entries[k], colour)))
            i = len(self.entries)
            self.entries.append(colour)
            self.index_of[colour] = i
        return i

    def dim(self, factor: float) -> None:
        """A scrim: what is drawn so far gets darker; colours drawn afterwards get fresh entries."""
        self.entries = [tuple(int(v * factor) for v in c) for c in self.entries]  # type: ignore[misc]
        self.index_of = {}

    def flat(self) -> list[int]:
        out = [v for c in self.entries for v in c]
        return out + [0] * (768 - len(out))


class _PaletteDraw(ImageDraw.ImageDraw):
    def __init__(self, im: Image.Image, palette: _Palette):
        super().__init__(im)
        self.image = im
        self.pal = palette

    def _getink(self, ink, fill=None):  # type: ignore[override]
        def conv(c):
            return self.pal.index(c) if isinstance(c, tuple) else c
        return super()._getink(conv(ink), conv(fill))

    def text(self, xy, text, fill=None, font=None, *args, **kwargs):  # type: ignore[override]
        """One line at whole-pixel coordinates is pasted through its glyphs' mask, rasterised once per text and
        font: every frame draws the same labels again, and rasterising them was a sixth of a screenshot. The same
        pixels as ImageDraw.text (a palette image draws text without anti-aliasing, as a mode "1" mask does)."""
        if (args or kwargs or not isinstance(font, ImageFont.FreeTypeFont) or not text or "\n" in text
                or not all(isinstance(c, int) for c in xy)):
            return super().text(xy, text, fill, font, *args, **kwargs)
        mask = _text_mask(text, font)
        if mask is not None:
            left, top, glyphs = mask
            ink = self.pal.index(fill) if isinstance(fill, tuple) else fill
            self.image.paste(ink, (xy[0] + left, xy[1] + top), glyphs)


@lru_cache(maxsize=4096)
def _text_mask(text: str, font: ImageFont.FreeTypeFont) -> tuple[int, int, Image.Image] | None:
    """The glyphs of one line as a mode "1" mask, and where its corner lies from the text's origin."""
    left, top, right, bottom = font.getbbox(text, mode="1")
    if right <= left or bottom <= top:
        return None
    glyphs = Image.new("1", (right - left, bottom - top), 0)
    ImageDraw.Draw(glyphs).text((-left, -top), text, fill=1, font=font)
    return left, top, glyphs


def render(device: "VirtualDevice") -> Image.Image:
    """The frame as a palette image: a screen has few colours, and a palette PNG encodes several times faster than
    RGB (the screenshot is on the MCP server's hot path). Text is drawn without anti-aliasing, as palettes need."""
    frame = device.frame()
    img = Image.new("P", (frame.display.width, frame.display.height), 0)
    palette = _Palette()
    img.putpalette(palette.flat())
    if not frame.screen_on:
        return img
    draw = _PaletteDraw(img, palette)
    _paint(img, draw, palette, device, frame)
    img.putpalette(palette.flat())
    return img


def _paint(img, draw, palette, device, frame) -> None:
    app = frame.app_window
    screen = frame.display
    bg = _rgb(app.background, (255, 255, 255))
    fg = _rgb(app.foreground, (20, 24, 38))
    draw.rectangle(screen.box, fill=bg)
    if app.root is not None:
        _draw_tree(draw, app.root, fg, bg)
    _status_bar(draw, device, bg, screen)
    _nav_bar(draw, bg, screen)
    for win in frame.windows[1:]:
        if win.kind == "dialog":
            palette.dim(0.55)
            wb = _rgb(win.background, (243, 243, 250))
            l, t, r, b = win.box
            draw.rounded_rectangle((l, t, r, b), radius=70, fill=wb)
            if win.root is not None:
                _draw_tree(draw, win.root, _rgb(win.foreground, (27, 27, 31)), wb)
        elif win.kind in ("shade", "keyguard"):
            draw.rectangle(screen.box, fill=_rgb(win.background, (31, 31, 36)))
            if win.root is not None:
                _draw_tree(draw, win.root, _rgb(win.foreground, (230, 232, 240)), (31, 31, 36))
    if frame.ime:
        _keyboard(draw, screen)
    if frame.toast is not None:
        _toast(draw, frame.toast.text, screen)


def _draw_tree(draw: ImageDraw.ImageDraw, root: Placed, fg: tuple[int, int, int], bg: tuple[int, int, int]) -> None:
    # Each node's text takes the nearest colours its ancestors set, so text stays readable on coloured buttons.
    stack: list[tuple[Placed, tuple[int, int, int], tuple[int, int, int]]] = [(root, fg, bg)]
    while stack:
        p, ink, ground = stack.pop()
        b = p.bounds
        if b is None:
            continue
        n = p.node
        if n.bg:
            ground = _rgb(n.bg, ground)
            draw.rounded_rectangle(b, radius=min(21, (b[3] - b[1]) // 3), fill=ground)
            ink = (255, 255, 255) if _luma(ground) < 140 else (20, 24, 38)
        if n.fg:
            ink = _rgb(n.fg, ink)
        if n.editable:
            draw.line((b[0] + 8, b[3] - 6, b[2] - 8, b[3] - 6), fill=ink, width=3)
            shown = ("\u2022" * len(n.text)) if n.password else n.text
            _text(draw, b, shown or n.hint, ink if shown else _mix(ink, ground), n.padding)
        elif n.checkable:
            _switch(draw, b, n.checked, ink)
            if n.text:
                _text(draw, b, n.text, ink, n.padding)
        elif n.text:
            _text(draw, b, n.text, ink, n.padding)
        elif n.clickable and not p.children and n.desc:
            _text(draw, b, n.desc, ink, n.padding)
        for c in reversed(p.children):
            stack.append((c, ink, ground))


def _mix(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return tuple((x + y) // 2 for x, y in zip(a, b))  # type: ignore[return-value]


def _text(draw: ImageDraw.ImageDraw, b: tuple[int, int, int, int], text: str, ink, padding: float) -> None:
    height = b[3] - b[1]
    size = TEXT_PX if height >= 52 else max(20, height - 10)
    font = _font(size)
    chars = max(4, int((b[2] - b[0] - 24) / (size * 0.52)))
    lines: list[str] = []
    for para in text.split("\n"):
        lines.extend(textwrap.wrap(para, chars) or [""])
    line_h = int(size * 1.3)
    max_lines = max(1, height // line_h)
    lines = lines[:max_lines]
    y = b[1] + max(4, (height - line_h * len(lines)) // 2)
    for line in lines:
        draw.text((b[0] + 16, y), line, fill=ink, font=font)
        y += line_h


def _switch(draw: ImageDraw.ImageDraw, b, checked: bool, ink) -> None:
    w, h = 110, 60
    x1 = b[2] - w - 16
    y1 = b[1] + max(0, (b[3] - b[1] - h) // 2)
    track = (11, 87, 208) if checked else (120, 124, 135)
    draw.rounded_rectangle((x1, y1, x1 + w, y1 + h), radius=h // 2, fill=track)
    cx = x1 + w - h // 2 if checked else x1 + h // 2
    draw.ellipse((cx - 22, y1 + 8, cx + 22, y1 + h - 8), fill=(255, 255, 255))


def _status_bar(draw: ImageDraw.ImageDraw, device: "VirtualDevice", bg, screen: Display) -> None:
    ink = (255, 255, 255) if _luma(bg) < 128 else (20, 20, 20)
    font = _font(38)
    y = max(8, (screen.status_bottom - 46) // 2)
    draw.text((60, y), time.strftime("%H:%M", time.gmtime(device.clock.wall())), fill=ink, font=font)
    icons = []
    if device.airplane_mode:
        icons.append("✈")
    if device.wifi_enabled:
        icons.append("WiFi")
    if device.bluetooth_enabled:
        icons.append("BT")
    icons.append(f"{device.battery_level}%")
    draw.text((screen.width - 60 - 26 * len(" ".join(icons)), y), " ".join(icons), fill=ink, font=font)


def _nav_bar(draw: ImageDraw.ImageDraw, bg, screen: Display) -> None:
    ink = (255, 255, 255) if _luma(bg) < 128 else (40, 40, 40)
    mid = screen.width // 2
    y = (screen.nav_top + screen.height) // 2
    draw.rounded_rectangle((mid - 110, y - 6, mid + 110, y + 6), radius=6, fill=ink)


def _keyboard(draw: ImageDraw.ImageDraw, screen: Display) -> None:
    l, t, r, b = screen.ime_box
    draw.rectangle((l, t, r, b), fill=(232, 234, 237))
    font = _font(44)
    for label, (x1, y1, x2, y2) in keyboard_keys(screen.ime_box):
        draw.rounded_rectangle((x1 + 6, y1 + 10, x2 - 6, y2 - 10), radius=14, fill=(255, 255, 255))
        text = "" if label == "space" else label
        draw.text(((x1 + x2) // 2 - 12 * len(text), (y1 + y2) // 2 - 24), text, fill=(30, 30, 30), font=font)


def _toast(draw: ImageDraw.ImageDraw, text: str, screen: Display) -> None:
    font = _font(38)
    w = min(screen.width - 120, 60 + int(len(text) * 21))
    l = (screen.width - w) // 2
    t = screen.nav_top - 297
    draw.rounded_rectangle((l, t, l + w, t + 110), radius=55, fill=(48, 48, 52))
    draw.text((l + 30, t + 34), text[:48], fill=(240, 240, 240), font=font)


def screencap_png(device: "VirtualDevice") -> bytes:
    buf = io.BytesIO()
    render(device).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def screencap_raw(device: "VirtualDevice") -> bytes:
    """`screencap` without -p: width, height, format (1 = RGBA_8888), colour space (1 = sRGB), then pixels."""
    img = render(device).convert("RGBA")
    return struct.pack("<IIII", img.width, img.height, 1, 1) + img.tobytes()
