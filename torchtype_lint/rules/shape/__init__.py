"""TTL5xx: shapes that fail (or silently broadcast) once the engine knows them; one rule a file."""
