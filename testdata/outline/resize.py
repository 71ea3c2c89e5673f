#!/usr/bin/env python3
# Copyright 2024 Example Authors. Licensed under the MIT license.
"""Tools to resize images.

Reads PNG and JPEG.
"""

import os
from typing import Optional

#: The largest side, in pixels.
MAX_SIDE = 4096


class Resizer(Base):
    """Resizes images to fit a box."""

    quality = 90

    def __init__(self, width: int, height: int):
        """Makes a resizer for a box of width by height."""
        self.width = width

    @property
    def box(self) -> tuple:
        # The box as a pair.
        return (self.width, self.height)

    @staticmethod
    @cache(
        size=10,
    )
    def parse(spec: str) -> "Resizer":
        '''Reads "WxH".'''
        w, h = spec.split("x")
        return Resizer(int(w), int(h))


async def resize(path, box=None):
    """Resize the image at path.

    Args:
        path: where the image is.
    """
    text = """
def not_a_function():
    pass
"""
    return text


if __name__ == "__main__":
    resize("x.png")
