"""Shared primitives below both the engine and the built-in tools.

Safe file access (``fs``, ``entries``), atomic writes (``atomic``), text codecs
(``textcodec``), diffs and hunks (``diffs``, ``hunks``), untrusted text made visible
(``visible_text``) and the one list of secret-looking names (``secret_names``). They import
only the public tool contract (``echo_desk.tools``): a plugin's tool and a built-in read and
write files the same way, and the engine never needs the built-ins to do it.
"""
