"""The source: finding the files to check, reading them safely (``boundary``, ``reading``),
decoding, the cheap screen, line numbering, ``# noqa`` comments, notebooks as a kind of source
(joined into one program with a cell map) and the project's other modules (``project/``)."""
