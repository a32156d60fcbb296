"""The one place the version lives (read by hatch, the app, the About box and packaging)."""

__version__ = "0.1.0"
