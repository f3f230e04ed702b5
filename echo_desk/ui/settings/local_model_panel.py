"""The built-in model's file and context size, on the Models page ("Local (built-in)" provider).

Shows the ``.gguf`` in use (path, size, verified or not), lets the person choose another file
(checked for the GGUF magic), go back to the default model, or download one from a URL with a
required sha256. Every change is saved to ``Settings.local_model`` at once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import shiboken6
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, aside, shown
from echo_desk.providers.local import default_model as dm
from echo_desk.providers.local.manager import FETCH_COMMAND, ModelFileError, check_chosen_file
from echo_desk.providers.local.verify import recorded_sha256
from echo_desk.store.settings import Settings, SettingsStore
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.model_download import (
    DownloadCancelled,
    DownloadJob,
    check_inputs,
    describe_error,
    target_for,
)
from echo_desk.ui.widgets.failure_text import failure_reason


def human_size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


class LocalModelPanel(QWidget):
    """Model file, context size and the model manager for the built-in llama.cpp provider."""

    def __init__(self, settings: SettingsStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.job: DownloadJob | None = None
        self._dialog: QFileDialog | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.file_label, self.file = QLabel(), QLabel()
        self.state_label, self.state = QLabel(), QLabel()
        self.context_label, self.context = QLabel(), QSpinBox()
        for label in (self.file, self.state):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.context.setRange(512, 131072)
        self.context.setSingleStep(1024)
        self.context.valueChanged.connect(self._save_context)
        form.addRow(self.file_label, self.file)
        form.addRow(self.state_label, self.state)
        form.addRow(self.context_label, self.context)
        layout.addLayout(form)
        buttons = QHBoxLayout()
        self.choose_button = QPushButton()
        self.choose_button.clicked.connect(self._browse)
        self.default_button = QPushButton()
        self.default_button.clicked.connect(self.use_default)
        self.download_toggle = QPushButton()
        self.download_toggle.setCheckable(True)
        self.download_toggle.toggled.connect(self._show_download)
        for button in (self.choose_button, self.default_button, self.download_toggle):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)

        self.download_box = QGroupBox()
        box = QFormLayout(self.download_box)
        self.url_label, self.url = QLabel(), QLineEdit()
        self.sha_label, self.sha = QLabel(), QLineEdit()
        self.sha.setMaxLength(64)
        box.addRow(self.url_label, self.url)
        box.addRow(self.sha_label, self.sha)
        row = QHBoxLayout()
        self.download_button = QPushButton()
        self.download_button.clicked.connect(self.start_download)
        self.cancel_button = QPushButton()
        self.cancel_button.clicked.connect(self.cancel_download)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self._shown: tuple[int, int | None, float] | None = None  # last progress, re-shown on a language change
        row.addWidget(self.download_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress, 1)
        box.addRow(row)
        self.progress_text = QLabel()
        box.addRow(self.progress_text)
        self.download_box.setVisible(False)
        layout.addWidget(self.download_box)

        self.message = QLabel()
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        # What the message and the download's line say, said again on a language switch.
        self._said: Callable[[], str] = str
        self._progress_said: Callable[[], str] = str
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    # -- text -------------------------------------------------------------------------------
    def form_labels(self) -> tuple[QLabel, ...]:
        """The labels of the panel's form, for the page to give one label column to its forms."""
        return self.file_label, self.state_label, self.context_label

    def retranslate(self, *_args: object) -> None:
        self.file_label.setText(_("Model file:"))
        self.state_label.setText(_("Status:"))
        self.context_label.setText(_("Context size:"))
        self.context.setSuffix(_(" tokens"))
        self.context.setAccessibleName(_("Context size"))
        self.choose_button.setText(_("Choose a .&gguf file…"))
        self.default_button.setText(_("Use the default &model"))
        self.download_toggle.setText(_("Download from &URL…"))
        self.download_box.setTitle(_("Download a model"))
        self.url_label.setText(_("URL:"))
        self.url.setAccessibleName(_("Model download URL"))
        self.url.setPlaceholderText("https://…/model.gguf")
        self.sha_label.setText(_("Expected sha256:"))
        self.sha.setAccessibleName(_("Expected sha256"))
        self.sha.setPlaceholderText(_("64 hexadecimal characters, from the model's publisher"))
        self.download_button.setText(_("&Download"))
        self.cancel_button.setText(_("C&ancel"))
        self.progress.setAccessibleName(_("Download progress"))
        if self.job is not None and self._shown is not None:
            self._progress(*self._shown)
        else:
            self.progress_text.setText(self._progress_said())
        self.message.setText(self._said())
        self.load()

    # -- state ------------------------------------------------------------------------------
    def load(self) -> None:
        """Show the settings' model file and context size."""
        local = self.settings.current.local_model
        self.context.blockSignals(True)
        self.context.setValue(local.context_size)
        self.context.blockSignals(False)
        path = Path(local.model_path).expanduser() if local.model_path else dm.default_model_path()
        which = _("chosen file") if local.model_path else _("default model")
        self.file.setText(aside(str(path), which))
        self.default_button.setEnabled(bool(local.model_path))
        try:
            size = path.stat().st_size
        except OSError:
            if local.model_path:
                self.state.setText(_("Missing: the file does not exist any more."))
            else:
                self.state.setText(_("Not downloaded yet. Download it with “{command}”.").format(
                    command=FETCH_COMMAND))
            return
        recorded = recorded_sha256(path)
        if recorded is None:
            verified = _("not verified (no sha256 recorded)")
        elif not local.model_path and recorded != dm.SHA256:
            verified = _("does not match the pinned sha256")
        else:
            verified = _("verified, sha256 {sha}…").format(sha=recorded[:12])
        self.state.setText(f"{human_size(size)} · {verified}")

    def _update(self, **changes: object) -> None:
        def change(s: Settings) -> None:
            s.local_model = s.local_model.model_copy(update=changes)

        self.settings.update(change)
        self.load()

    def _save_context(self, value: int) -> None:
        self._update(context_size=value)

    def use_default(self) -> None:
        self._update(model_path="")
        self._say(lambda: _("Using the default model."))

    def use_file(self, filename: str) -> bool:
        """Check and save a chosen ``.gguf``; a bad file is refused with the reason shown."""
        path = Path(filename).expanduser()
        try:
            check_chosen_file(path)
            with path.open("rb"):
                pass
        except ModelFileError as exc:
            reason = exc.reason
            self._say(lambda: _("Not used: {reason}").format(reason=visible(shown(reason))))
            return False
        except OSError as exc:
            from echo_desk.common.explain import technical_detail

            refused = exc
            self._say(lambda: _("Not used: the file cannot be read ({reason}).").format(reason=failure_reason(refused)),
                      technical_detail(exc))
            return False
        self._update(model_path=str(path))
        self._say(lambda: _("Using {name}.").format(name=path.name))
        self._describe(path)
        return True

    def _browse(self) -> None:
        dialog = QFileDialog(self, _("Choose a model file"))
        dialog.setNameFilter(_("GGUF models (*.gguf)"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.use_file)
        self._dialog = dialog
        dialog.open()

    # -- download ---------------------------------------------------------------------------
    def _show_download(self, shown: bool) -> None:
        self.download_box.setVisible(shown)
        if shown:
            self.url.setFocus()

    def start_download(self) -> None:
        if self.job is not None:
            return
        url, sha = self.url.text().strip(), self.sha.text().strip().lower()
        if check_inputs(url, sha):
            self._say(lambda: check_inputs(url, sha) or "")
            return
        folder = dm.models_dir()
        self.job = DownloadJob(url, sha, target_for(url, sha, folder), on_progress=self._progress,
                               on_done=self._done, on_failed=self._failed)
        self._busy(True)
        self.progress.setRange(0, 0)
        self._tell_progress(lambda: _("Connecting…"))
        self._say(str)
        # Closing the page or quitting stops the download (the worker pool is joined at quit).
        self.destroyed.connect(self.job.cancel)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.job.cancel)
        self.job.start()

    def _forget(self) -> DownloadJob | None:
        job, self.job = self.job, None
        app = QCoreApplication.instance()
        if job is not None and app is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                app.aboutToQuit.disconnect(job.cancel)
        return job

    def cancel_download(self) -> None:
        if self.job is not None:
            self.cancel_button.setEnabled(False)
            self._tell_progress(lambda: _("Cancelling…"))
            self.job.cancel()

    def _busy(self, busy: bool) -> None:
        for widget in (self.download_button, self.url, self.sha, self.choose_button, self.default_button):
            widget.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        if not busy:
            self._shown = None
            self.progress.setRange(0, 1)
            self.progress.setValue(0)
            self.default_button.setEnabled(bool(self.settings.current.local_model.model_path))

    def _progress(self, done: int, total: int | None, speed: float) -> None:
        if self.job is None or not shiboken6.isValid(self):
            return
        self._shown = (done, total, speed)
        if total:
            # QProgressBar holds an int: count in KB so files above 2 GB fit.
            self.progress.setRange(0, max(1, total // 1024))
            self.progress.setValue(done // 1024)
            text = _("{done} of {total} · {speed}/s").format(
                done=human_size(done), total=human_size(total), speed=human_size(speed))
        else:
            self.progress.setRange(0, 0)
            text = _("{done} · {speed}/s").format(done=human_size(done), speed=human_size(speed))
        if total and done >= total:
            text = _("Checking the sha256…")
        self.progress_text.setText(text)

    def _describe(self, path: Path) -> None:
        from echo_desk.ui.settings.model_file_summary import describe_file

        def show(summary: str) -> None:
            if shiboken6.isValid(self) and self.settings.current.local_model.model_path == str(path):
                self._say(lambda: _("Using {name}: {summary}").format(name=path.name, summary=shown(summary)))

        describe_file(path, self.settings.current.local_model.context_size, show)

    def _done(self, path: Path) -> None:
        self._forget()
        if not shiboken6.isValid(self):  # the page was closed meanwhile
            return
        self._busy(False)
        self._tell_progress(lambda: _("Downloaded and verified."))
        self.progress.setValue(self.progress.maximum())  # finished: a full bar
        self._update(model_path=str(path))
        self._say(lambda: _("Using {name}.").format(name=path.name))

    def _failed(self, exc: BaseException) -> None:
        job = self._forget()
        if not shiboken6.isValid(self):  # the page was closed: it stopped its own download
            return
        self._busy(False)
        self._tell_progress(str)
        if isinstance(exc, DownloadCancelled):
            kept = job is not None and job.partial.exists()
            self._say(lambda: _("Download cancelled. The part already downloaded was kept: download the same URL "
                                "again to resume.") if kept else _("Download cancelled."))
            return
        from echo_desk.common.explain import technical_detail

        folder = dm.models_dir()
        self._say(lambda: describe_error(exc, folder), technical_detail(exc))

    def _say(self, said: Callable[[], str], detail: str = "") -> None:
        """``said()`` under the panel, said again on a language switch; ``detail`` (a failure's
        technical words, English, for a report) in its tooltip, which goes with the next text."""
        self._said = said
        self.message.setText(said())
        self.message.setToolTip(visible(detail))

    def _tell_progress(self, said: Callable[[], str]) -> None:
        """``said()`` on the download's line, said again on a language switch."""
        self._progress_said = said
        self.progress_text.setText(said())

    def shutdown(self) -> None:
        """Stop a running download (the page is closing)."""
        with contextlib.suppress(RuntimeError):
            if self.job is not None:
                self.job.cancel()
