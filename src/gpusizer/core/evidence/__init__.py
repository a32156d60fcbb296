"""How far a figure can be trusted: the regime a scenario falls in, the band the project's
replayed published figures give that regime, and the confidence it earns (issue: "a band from
the evidence on every figure")."""
