"""Widgets more than one part of the UI uses: the diff view and the full-text box."""
