"""What a tool changes for the session is put back when the session ends and when the server exits, as Mobium's
app_accessibility says ("Every change is put back when the session ends")."""

from __future__ import annotations

from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec

APP = "dev.mobium.mobiumapp"


def font_scale(sim_server) -> str:
    return sim_server.device().settings("system").get("font_scale", "")


def test_a_changed_text_scale_is_put_back_when_the_session_ends(fresh, sim_server):
    before = font_scale(sim_server)
    fresh.call("app_session", action="start", app=APP)
    said = fresh.call("app_accessibility", setting="text_scale", value="1.3")
    assert said.text.startswith("text_scale: 1.3") and font_scale(sim_server) == "1.3"
    ended = fresh.call("app_session", action="end")
    assert ended.data["restored"] == ["system font_scale"] and font_scale(sim_server) == before


def test_a_session_opens_on_a_tools_first_use_and_its_end_puts_back(fresh, sim_server):
    """No app_session start: the first call opened the session (Mobium's sessionFor), so app_session end ends it
    and puts back what it changed, and the next call opens another."""
    fresh.call("app_session", action="end")  # the fixture's own calls opened one: ended, a new one begins below
    before = font_scale(sim_server)
    assert fresh.call("app_session", action="status").data["sessions"] == []
    fresh.call("app_accessibility", setting="text_scale", value="1.3")
    assert [s["device"] for s in fresh.call("app_session", action="status").data["sessions"]] == \
        [sim_server.serials[0]]
    ended = fresh.call("app_session", action="end")
    assert ended.data["ended"] and ended.data["restored"] == ["system font_scale"]
    assert font_scale(sim_server) == before
    assert fresh.call("app_session", action="end").text == f"no session was open on {sim_server.serials[0]}"
    assert fresh.call("app_session", action="start").data["reused"] is False


def test_the_network_app_network_changed_is_put_back_when_the_session_ends(fresh, sim_server):
    airplane = sim_server.device().settings("global")
    fresh.call("app_network", offline=True)
    assert airplane.get("airplane_mode_on") == "1"
    ended = fresh.call("app_session", action="end")
    assert "the network is as it was before app_network changed it" in ended.text
    assert airplane.get("airplane_mode_on") == "0"


def test_the_server_exiting_puts_back_what_it_changed(sim_server):
    settings = sim_server.device().settings("global")
    before = {k: settings.get(k) for k in ("window_animation_scale", "transition_animation_scale",
                                            "animator_duration_scale")}
    with Tools(ToolServerSpec.builtin(sim_server.serials[0], "127.0.0.1", sim_server.port), timeout=120) as t:
        t.call("app_accessibility", setting="reduce_motion", value="on")
        assert settings.get("transition_animation_scale") == "0"
    assert {k: settings.get(k) for k in before} == before
