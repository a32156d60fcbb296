"""The estimator core: pure Python + pydantic, no Qt (checked by import-linter).

Grouped by concern into sub-packages, layered from the bottom up (import-linter's ``layers``
contract in pyproject.toml): ``registry`` (dtypes, quantisation rules, optimizers, losses,
workload kinds, frameworks, engine releases) < ``model`` (the scenario schema, architecture,
parameters, presets, sharding) < ``memory`` (training and inference bytes) < ``speed``
(roofline, compute) < ``serving`` (engine memory rules, KV pools) < ``pipeline`` (parse,
validate, estimate, report) < ``sizing`` (layout search, plan, compare) < ``views`` (sweeps,
chart data and chart settings; the Hardware tab's view prices sizing's options). ``errors``,
``cancel``, ``limits``, ``memo``, ``readfile`` and ``suggest`` sit below all.

See docs/architecture.md for the layer map and where each kind of change goes.
"""
