"""TTL9xx: opt-in rules, off unless selected with ``--select TTL9`` or a longer prefix; one rule a file."""
