"""The vocabulary every stage shares: what is known about a value (``values``), what a finding is
(``findings``, ``headline``), which rules run (``rule_codes``, ``selection``) and a file's
settings and result (``settings``). It imports nothing else of the package."""
