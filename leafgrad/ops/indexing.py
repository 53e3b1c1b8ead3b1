"""Indexing ops."""

from __future__ import annotations

__all__: list = []
METHODS: dict = {}
