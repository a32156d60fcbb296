"""The model and its scenario: the schema (specs), architecture, parameter counts, presets,
sharding over a layout, bytes per module, FLOPs per token, and the Estimate result types."""
