"""TTL1xx: casts that do nothing, or comparisons of dtypes that are always False; one rule a file."""
