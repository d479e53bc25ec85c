"""The map diff's pairing and lines (Mobium's mapdiff): elements are paired by testid or label, then role and
label, then role and place; a shift shared by several elements is one line."""

from pytest_mobium_evals.mobium_server.map_diff import LastMap, Seen, diff


def seen(ref, label, role="button", key="", state=(), checked=None, value=None, box=(0, 0, 100, 50)):
    return Seen(ref, label, role, key, tuple(state), checked, value, box, {"ref": ref, "label": label})


def test_first_diff_adds_everything_and_says_there_was_nothing_to_compare_with():
    text, view = diff(None, [seen("@e1", "OK")])
    assert text.splitlines()[0].startswith("no earlier map") and "+ @e1 OK (button)" in text
    assert view["first"] is True and len(view["added"]) == 1


def test_a_checked_box_is_one_change_naming_what_it_was():
    before = [seen("@e1", "Accept terms", "checkbox", "testid=terms", ("unchecked",), False)]
    after = [seen("@e4", "Accept terms", "checkbox", "testid=terms", ("checked",), True)]
    text, view = diff(LastMap(before, 0.0), after)
    assert text == "~ @e4 Accept terms (checkbox, checked) — was unchecked"
    assert view["changed"][0]["what"] == ["checked"]


def test_a_relabelled_element_in_the_same_place_is_a_change_not_a_removal_and_an_addition():
    text, _ = diff(LastMap([seen("@e1", "Sign in")], 0.0), [seen("@e1", "Signing in…")])
    assert text == '~ @e1 Signing in… (button) — was "Sign in"'


def test_a_slider_moved_is_its_value_and_what_it_was():
    before = [seen("@e3", "Volume", "slider", "label=Volume", ("0",), value="0")]
    after = [seen("@e3", "Volume", "slider", "label=Volume", ("50",), value="50")]
    assert diff(LastMap(before, 0.0), after)[0] == "~ @e3 Volume (slider, 50) — was 0"


def test_elements_that_shifted_together_are_one_line_and_a_lone_move_its_own():
    before = [seen("@e1", "A", box=(0, 0, 100, 50)), seen("@e2", "B", box=(0, 60, 100, 110)),
              seen("@e3", "C", box=(0, 200, 100, 250))]
    after = [seen("@e1", "A", box=(0, 120, 100, 170)), seen("@e2", "B", box=(0, 180, 100, 230)),
             seen("@e3", "C", box=(300, 200, 400, 250))]
    lines = diff(LastMap(before, 0.0), after)[0].splitlines()
    assert "~ 2 elements moved together, down 120px: @e1 A, @e2 B" in lines
    assert "~ @e3 C (button) — moved from (50, 225)" in lines and len(lines) == 2


def test_nothing_changed_counts_the_elements():
    same = [seen("@e1", "OK")]
    assert diff(LastMap(same, 0.0), same)[0] == ("nothing changed since the last map: the same 1 elements, in the "
                                                 "same places")
