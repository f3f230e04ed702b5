"""The desktop app (PySide6 + qasync): the only package of Echo Desk that imports Qt.

Entry point: ``echo_desk.ui.app.run_gui``. Engine callbacks reach widgets only through
``echo_desk.ui.core.marshal``; ``echo_desk.ui.approval.host.QtHost`` is the engine's ``Host``.
"""
