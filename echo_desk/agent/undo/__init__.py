"""Undo of what tools wrote: the journal that keeps previous contents (``journal``, pruned by
``pruning``), the revert (``revert``) and the notes the model reads about it (``notes``).

Nothing is imported here: the chat reads the notes at start-up and needs neither the journal's
SQLite store nor the reverter's atomic writer for that.
"""
