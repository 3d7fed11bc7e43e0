"""ginbox: a fast headless self-play simulator for three-handed Gin Rummy."""

__version__ = "0.1.0"
