"""Reporting: output formats (``reporting``), ``--statistics``, colour, progress, escaping
of what is printed (``printable``) and the generated rule documentation (``rule_docs``)."""
