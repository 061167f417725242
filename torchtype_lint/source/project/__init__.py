"""Project-wide analysis: the user's own modules that an analysed file imports, found and read
from disk (never imported or executed); the engine runs their syntax trees (``engine/modules.py``)."""
