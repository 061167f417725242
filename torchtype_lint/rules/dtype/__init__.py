"""TTL2xx: integer/bool dtype mixing that torch rejects at runtime, one rule a file."""
