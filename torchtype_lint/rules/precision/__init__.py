"""TTL4xx: floating-point precision mixing that torch rejects (float16/bfloat16/float64 vs float32); one rule a file."""
