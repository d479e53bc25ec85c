"""Appium's UiAutomator2 server on the virtual device: its W3C WebDriver server (server.py), the snapshot and page
source it reads the screen as (snapshot.py), its locator strategies (locate.py) and W3C actions (actions.py).
`am instrument -w` of its runner starts it on the device's tcp:6790 when both of its APKs are installed."""
