"""The desktop app (PySide6 + qasync): the only package of Echo Desk that imports Qt.

Parts, each importing only those below it: ``app`` (start-up, services, single instance) above
``chat`` (the window, its transcript and helpers) above ``approval`` and ``settings`` (dialogs
and pages, independent of each other) above ``widgets`` (shared widgets) above ``core``
(palette, marshalling, labels).

Entry point: ``echo_desk.ui.app.main.run_gui``. Engine callbacks reach widgets only through
``echo_desk.ui.core.marshal``; ``echo_desk.ui.approval.host.QtHost`` is the engine's ``Host``.
"""
