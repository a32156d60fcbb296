"""The estimator core: pure Python + pydantic, no Qt (checked by import-linter)."""
