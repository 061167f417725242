"""TTL6xx: jaxtyping annotations read as contracts; one rule a file."""
