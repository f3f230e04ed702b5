"""Widgets more than one part of the UI uses: the diff view, the full-text box and the table of
how each part of a call was checked."""
