"""Tool-level codes (TTL0xx): the analysis itself could not run on a file. They listen to no
node; the checker and front ends report them."""
