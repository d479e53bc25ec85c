"""Every MobiumApp screen by its key (the values the app's screen state takes)."""

from __future__ import annotations

from .basic import Form, Home, Login, Pager, Secret, Slider, Storage
from .battery import Battery
from .biometrics import Biometrics
from .gestures import GESTURE_SCREENS
from .lists import Busy, Feed
from .motion import Motion
from .multitouch import MultiTouch
from .obstruction import Obstruction
from .others import OTHER_SCREENS
from .system import Audio, Dialogs, Location, Otp, Popup
from .webviews import WEB_SCREENS

SCREENS = {cls.key: cls for cls in [
    Home, Login, Secret, Form, Slider, Storage, Pager, Feed, Busy, Dialogs, Location, Popup, Obstruction, Otp,
    Audio, Motion, Battery, Biometrics, MultiTouch, *WEB_SCREENS, *GESTURE_SCREENS, *OTHER_SCREENS,
]}
