"""``search_files`` and the linear-time patterns it matches with."""
