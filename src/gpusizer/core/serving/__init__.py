"""Serving engines: engine settings, the memory rule of each engine (:mod:`.rules`: its KV
pool, what one request holds, its inverse and the chart's line), MoE layouts, host offload
(llama.cpp), and the serving block of a report (:mod:`.engine_memory`)."""
