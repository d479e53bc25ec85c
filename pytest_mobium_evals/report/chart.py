"""pass-rate.png, the report's chart, drawn from the run's computed view (report/view.py)."""

from __future__ import annotations

import io

from pytest_mobium_evals.report.facts import fmt_pct
from pytest_mobium_evals.report.view import SettingSummary


def draw_chart(summaries: list[SettingSummary], title: str, controls: bool = False) -> bytes:
    """A PNG: one horizontal bar per setting (its rate) with the 95% interval as an error bar, on a labelled
    0–100% axis. Drawn with Pillow alone so a report needs no plotting library."""
    from PIL import Image, ImageDraw

    font = _font(15)
    small = _font(13)
    label_w = max([_text_w(font, s.setting.label) for s in summaries] + [80]) + 24
    plot_w, row_h = 560, 44
    top, bottom, right = 56, 70, 70
    width = max(label_w + plot_w + right, label_w + int(_text_w(font, title)) + 16)
    height = top + row_h * max(1, len(summaries)) + bottom
    img = Image.new("RGB", (width, height), "white")
    d = ImageDraw.Draw(img)
    d.text((label_w, 14), title, fill="black", font=font)
    x0, x1 = label_w, label_w + plot_w
    y_axis = top + row_h * max(1, len(summaries))

    def x_of(v: float) -> float:
        return x0 + v * (x1 - x0)

    for pct in range(0, 101, 20):  # grid and ticks
        x = x_of(pct / 100)
        d.line([(x, top - 6), (x, y_axis)], fill="#dddddd")
        d.line([(x, y_axis), (x, y_axis + 5)], fill="black")
        tick = f"{pct}%"
        d.text((x - _text_w(small, tick) / 2, y_axis + 8), tick, fill="black", font=small)
    d.line([(x0, top - 6), (x0, y_axis)], fill="black")
    d.line([(x0, y_axis), (x1, y_axis)], fill="black")
    axis = "Graded as declared (%)" if controls else "Pass rate (%)"
    d.text((x0 + (x1 - x0) / 2 - _text_w(font, axis) / 2, y_axis + 30), axis, fill="black", font=font)
    d.text((8, 14), "Setting", fill="black", font=font)

    for i, s in enumerate(summaries):
        yc = top + row_h * i + row_h / 2
        d.text((label_w - 12 - _text_w(font, s.setting.label), yc - 9), s.setting.label, fill="black", font=font)
        if s.rate is None:
            continue
        d.rectangle([x0, yc - 11, x_of(s.rate), yc + 11], fill="#7aa6d6" if not s.setting.is_control else "#a9c98b")
        if s.interval:
            lo, hi = x_of(s.interval[0]), x_of(s.interval[1])
            d.line([(lo, yc), (hi, yc)], fill="black", width=2)
            d.line([(lo, yc - 7), (lo, yc + 7)], fill="black", width=2)
            d.line([(hi, yc - 7), (hi, yc + 7)], fill="black", width=2)
        d.text((max(x_of(s.rate), hi if s.interval else 0) + 8, yc - 8), fmt_pct(s.rate), fill="black", font=small)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType sizes: the fixed bitmap font still labels the chart
        return ImageFont.load_default()


def _text_w(font, text: str) -> float:
    left, _, right, _ = font.getbbox(text)
    return right - left
