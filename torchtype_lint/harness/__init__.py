"""The runtime harness: checks the linter's claims against the installed torch.

This is the only package that uses torch, and only in worker subprocesses
(``worker.py``); importing it never imports torch, so the linter keeps working without it.
"""
