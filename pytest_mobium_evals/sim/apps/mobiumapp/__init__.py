"""MobiumApp on the virtual device: `dev.mobium.mobiumapp/.MainActivity`."""

from .app import MobiumApp

__all__ = ["MobiumApp"]
