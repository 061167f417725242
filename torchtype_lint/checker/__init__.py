"""The checker: one file's source in, its findings out. It runs the engine and the rules
(``check``), follows calls into other project files (``call_sites``), keeps one report per root
cause (``root_causes``) and maps a notebook's findings back to its cells (``notebooks``)."""
