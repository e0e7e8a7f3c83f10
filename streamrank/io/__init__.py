"""Reading files: the tables of ``streamrank eval``, ``epochs`` and ``compare``
(`tables`), and the event streams of ``streamrank monitor`` (`events`)."""
