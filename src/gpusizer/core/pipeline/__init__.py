"""The estimate pipeline: parse and validate a scenario, estimate it, and write the report dict."""
