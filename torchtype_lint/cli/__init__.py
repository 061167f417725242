"""The command line: argument parsing and the commands (``main``), ``check`` (``check_command``),
``--show-files``/``--show-settings`` (``show``), ``--fix -``/``--diff -`` on stdin (``stdin_fix``),
``explain`` and ``--watch``."""
