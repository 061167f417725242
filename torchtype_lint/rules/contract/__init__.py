"""TTL25x: ops called on a dtype they have no kernel for, from torch's own OpInfo table."""
