"""Running checks over many files: the project configuration (``config``), the runner and
its worker processes, bounds on time and memory (``bounded``, ``resident``), the cache and the
incremental re-analysis of an edited document (``incremental/``)."""
