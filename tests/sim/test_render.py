"""The virtual device's screenshot: a line of text pasted through its remembered glyph mask (sim/render.py) leaves
the same pixels as Pillow drawing it, wherever it lands, clipped at the screen's edges included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from pytest_mobium_evals.sim import render

LINES = st.text(st.sampled_from("abcgjpqy ABQ0129:%—→✈•Ĵüßé.-_/@"), min_size=0, max_size=24)


@settings(max_examples=150, deadline=None)
@given(text=LINES, size=st.sampled_from([20, 31, 38, 40, 44]), x=st.integers(-200, 1100), y=st.integers(-80, 2400),
       ink=st.sampled_from([(20, 24, 38), (255, 255, 255), (11, 87, 208)]))
def test_a_remembered_line_draws_the_pixels_pillow_draws(text, size, x, y, ink):
    font = render._font(size)
    palette = render._Palette()
    drawn = Image.new("P", (1080, 2340), 0)
    drawn.putpalette(palette.flat())
    pasted = drawn.copy()
    ImageDraw.ImageDraw.text(render._PaletteDraw(drawn, palette), (x, y), text, fill=ink, font=font)
    render._PaletteDraw(pasted, palette).text((x, y), text, fill=ink, font=font)
    assert pasted.tobytes() == drawn.tobytes()
