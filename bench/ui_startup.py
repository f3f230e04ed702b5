"""Cold start to the first painted main window: Echo Desk vs a bare PySide6 QMainWindow.

Each run is a fresh interpreter started the same way; the child prints the wall-clock time of
its first paint and exits. Bytecode is cached as in an installed package (pip compiles it), in a
private folder warmed by one untimed run of each. Target: Echo Desk ≤ 2× the bare window (median
of the runs). PYTHONPATH picks the checkout measured (default: this one).
Run: QT_QPA_PLATFORM=offscreen python bench/ui_startup.py [runs]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BARE = r"""
import time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
class Paint(QObject):
    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Type.Paint:
            print(f"FIRST_FRAME {time.time():.6f}", flush=True)
            QTimer.singleShot(0, app.quit)
            obj.removeEventFilter(self)
        return False
w = QMainWindow(); w.resize(1180, 760)
p = Paint(); w.installEventFilter(p); w.show()
app.exec()
"""

# ui/app/main.py since the UI was laid out in parts; ui/app.py before (to measure an older checkout).
APP = """
try:
    from echo_desk.ui.app.main import run_gui
except ImportError:
    from echo_desk.ui.app import run_gui
raise SystemExit(run_gui(['echo-desk']))
"""
TARGET = 2.0


def first_frame(code: str, env: dict[str, str]) -> float:
    start = time.time()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    for line in out.stdout.splitlines():
        if line.startswith("FIRST_FRAME "):
            return float(line.split()[1]) - start
    raise RuntimeError(f"no frame reported:\n{out.stdout}\n{out.stderr}")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                   PYTHONPATH=os.environ.get("PYTHONPATH", str(ROOT)), ECHO_DESK_EXIT_AFTER_FIRST_FRAME="1",
                   PYTHONPYCACHEPREFIX=f"{home}/pycache",
                   ECHO_DESK_CONFIG_DIR=f"{home}/c", ECHO_DESK_DATA_DIR=f"{home}/d", ECHO_DESK_CACHE_DIR=f"{home}/k")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        first_frame(BARE, env), first_frame(APP, env)  # warm the bytecode cache
        bare, app = [], []
        for _ in range(runs):  # interleaved so machine noise hits both alike
            bare.append(first_frame(BARE, env))
            app.append(first_frame(APP, env))
    b, a = statistics.median(bare), statistics.median(app)
    print(f"bare QMainWindow first frame: median {b * 1000:.0f} ms (min {min(bare) * 1000:.0f}, first {bare[0] * 1000:.0f})")
    print(f"Echo Desk first frame:        median {a * 1000:.0f} ms (min {min(app) * 1000:.0f}, first {app[0] * 1000:.0f})")
    print(f"code measured: {env['PYTHONPATH']}   runs: {runs}")
    print(f"ratio (median): {a / b:.2f}x   target <= {TARGET:g}x   {'OK' if a / b <= TARGET else 'OVER'}")


if __name__ == "__main__":
    main()
