"""What every part of the UI may use: the palette (``theme``), the one way back to the UI thread
(``marshal``), Qt's own translations (``i18n_qt``), labels and the wording of engine answers
(``labels``, ``rules_text``, ``sandbox_text``) and the UI's view of the engine (``backend``).
Imports no other part of the UI."""
