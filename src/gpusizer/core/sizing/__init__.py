"""Sizing: the layout search, ``plan`` and ``compare_gpus`` with their costs and ranking."""
