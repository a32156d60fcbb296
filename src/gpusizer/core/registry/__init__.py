"""Registries the scenario schema refers to: dtypes, quantisation rules, optimizers, losses,
workload kinds, frameworks and engine releases. Each entry is data plus a small rule; no estimator."""
