"""TTL3xx: numpy-to-tensor conversions that keep numpy's float64; one rule a file."""
