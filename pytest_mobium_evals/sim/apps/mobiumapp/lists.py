"""Feed Demo (t08) and Busy Demo (t09): content that arrives late."""

from __future__ import annotations

from ...views import Node
from .screen import Screen
from .ui import PAD, Theme, back_btn, btn, h1, note, page, spinner, text

FEED_PAGE = 20
FEED_PAGES = 3
ROW_DP = 64
ROW_GAP_DP = 8
FOOTER_DP = 48
END_THRESHOLD = 0.05  # FlatList onEndReachedThreshold: a fraction of the visible length


class Feed(Screen):
    key = "feed"

    def __init__(self, app):
        super().__init__(app)
        self.rows = FEED_PAGE
        self.loading = False
        self.delay_ms = 2500
        self.tapped: int | None = None

    @property
    def done(self) -> bool:
        return self.rows >= FEED_PAGE * FEED_PAGES

    def end_reached(self) -> None:
        """FlatList's onEndReached: the list was scrolled to within the threshold of its end."""
        if self.loading or self.done:
            return
        self.loading = True
        self.after(self.delay_ms / 1000, self._arrive)

    def _arrive(self) -> None:
        self.rows = min(self.rows + FEED_PAGE, FEED_PAGE * FEED_PAGES)
        self.loading = False

    def on_scroll(self, key: str, offset: int, max_offset: int) -> None:
        if key != "feed":
            return
        placed = self.device.frame().app_window.root.find("feed")
        viewport = (placed.box[3] - placed.box[1]) if placed is not None else 0
        if max_offset - offset <= END_THRESHOLD * viewport:
            self.end_reached()

    def _delay(self, ms: int):
        def set_delay():
            self.delay_ms = ms
        return set_delay

    def _tap(self, n: int):
        def tap():
            self.tapped = n
        return tap

    def render(self, t: Theme) -> Node:
        state = f"rows: {self.rows}, {'loading' if self.loading else 'end' if self.done else 'idle'}, " \
                f"delay: {self.delay_ms}ms"
        if self.tapped:
            state += f", tapped: Row {self.tapped}"
        rows = [Node("android.widget.Button", id=f"feedRow{n}", desc=f"Row {n}", height=ROW_DP,
                     margin_bottom=ROW_GAP_DP, on_tap=self._tap(n), bg="#3552FD",
                     children=[Node("android.widget.TextView", text=f"Row {n}", height=ROW_DP, fg="#ffffff")])
                for n in range(1, self.rows + 1)]
        # The footer keeps its height whatever it shows, so the spinner appears in view at the end of the list.
        if self.loading:
            footer = [spinner("feedLoading", "Loading more"),
                      Node("android.widget.TextView", text=" Loading more…", height=36, fg=t.ink)]
        elif self.done:
            footer = [text(t, "End of feed", "feedEnd", height=36)]
        else:
            footer = []
        rows.append(Node("android.view.ViewGroup", horizontal=True, height=FOOTER_DP, children=footer))
        return Node("android.view.ViewGroup", padding=PAD, bg=t.ground, children=[
            back_btn(t, self.app), h1(t, "Feed"),
            Node("android.view.ViewGroup", horizontal=True, height=61, children=[
                Node("android.view.ViewGroup", margin_right=10, children=[
                    btn(t, "feedFast", "Load in 0.3s", self._delay(300))]),
                Node("android.view.ViewGroup", children=[btn(t, "feedSlow", "Load in 2.5s", self._delay(2500))]),
            ]),
            text(t, state, "feedState"),
            Node("android.widget.ListView", id="feed", scroll="vertical", children=rows),
        ])


# --------------------------------------------------------------------------------------------------------------
# Busy Demo (t09)

BUSY_MIN_S, BUSY_SPREAD_S = 0.4, 1.2


class Busy(Screen):
    key = "busy"

    def __init__(self, app):
        super().__init__(app)
        self.outcome = "nothing tapped yet"
        self.gen = 1  # the generation the rows show
        self.latest = 1  # the newest generation that has landed
        self.pending: list[str] = []  # gray-box tags of the refreshes in flight
        self.loading = False
        self.polling = False

    def _random(self) -> float:
        return self.device.random.random()  # the device's seeded randomness stands in for Math.random()

    def refresh(self, visible: bool) -> None:
        tag = "refresh" if visible else "quiet"
        self.pending.append(tag)
        self.app.gray_box.busy(tag)
        if visible:
            self.loading = True

        def land():
            self.latest += 1
            self.loading = False
            self.gen = self.latest
            # The app's effect on [gen] runs right after the new rows render: then the refresh is over.
            self.pending.remove(tag)
            self.app.gray_box.idle(tag)

        self.after(BUSY_MIN_S + self._random() * BUSY_SPREAD_S, land)

    def ask(self) -> None:
        self.device.show_dialog("Refresh the rows?", "", [
            ("Cancel", "negative", lambda: None),
            ("Refresh", "positive", lambda: self.refresh(False)),
        ], self.app.package)

    def twice(self) -> None:
        self.refresh(False)
        self.refresh(False)

    def poll(self) -> None:
        self.polling = not self.polling
        if self.polling:
            self.app.gray_box.busy("poll")
        else:
            self.app.gray_box.idle("poll")

    def crash(self) -> None:
        self.app.gray_box.busy("doomed")
        self.after(0.3, lambda: self.app.crash("The Busy Demo crashed during a refresh"))

    def _row(self, letter: str):
        def tap():
            fresh = self.gen == self.latest and not self.pending
            self.outcome = f"row {letter}, generation {self.gen}: {'current' if fresh else 'stale'}"
        return tap

    def unmount(self) -> None:
        # The app reports idle only from the screen's own timers and buttons, and React clears those on unmount: a
        # refresh in flight or a poll left on keeps the app busy after the screen is gone, as on a device.
        super().unmount()

    def render(self, t: Theme) -> Node:
        if self.loading:
            rows = [spinner("busySpinner", "Loading", height=48)]
        else:
            rows = [Node("android.widget.Button", id=f"busyRow{x}", height=51, margin_bottom=10, on_tap=self._row(x),
                         bg="#EEF0FA", children=[Node("android.widget.TextView",
                                                      text=f"Row {x} · generation {self.gen}", height=51,
                                                      fg="#141826")])
                    for x in "ABC"]
        return page(t, [
            back_btn(t, self.app), h1(t, "Busy"),
            text(t, self.outcome, "busyOutcome"),
            note(t, "Both refresh the rows after 0.4 to 1.6 s. Refresh shows a spinner meanwhile; "
                    "Refresh quietly leaves the old rows up."),
            btn(t, "busyRefresh", "Refresh", lambda: self.refresh(True)),
            btn(t, "busyQuiet", "Refresh quietly", lambda: self.refresh(False)),
            btn(t, "busyAlert", "Refresh from an alert", self.ask),
            btn(t, "busyTwice", "Refresh twice", self.twice),
            btn(t, "busyPoll", "Stop polling" if self.polling else "Keep polling", self.poll),
            btn(t, "busyCrash", "Crash during a refresh", self.crash),
            *rows,
        ])

