"""The conversation window: transcript, composer, attachments, find, revert."""
