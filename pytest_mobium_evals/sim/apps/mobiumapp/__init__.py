"""MobiumApp on the virtual device: `dev.mobium.mobiumapp/.MainActivity`."""

from .app import MobiumApp

APPS = [MobiumApp]  # what the device installs from this package

__all__ = ["APPS", "MobiumApp"]
