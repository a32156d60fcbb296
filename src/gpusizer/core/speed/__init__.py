"""Speed: the roofline of a GPU and data type, the operations of a step, and the compute block
(training time, time to first token, time per output token, throughput)."""
