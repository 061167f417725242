"""Editing the user's files: ``--fix``/``--diff`` (``fix``), ``--add-noqa`` (``noqa_edit``) and which
fixes a run applies, ``--fixable``/``--unfixable`` (``policy``)."""
