"""Render stage: chosen segments in document order become markdown or plain text."""

from .blocks import SEPARATOR, block, render

__all__ = ["SEPARATOR", "block", "render"]
