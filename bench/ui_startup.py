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


def first_frame(code: str, env: dict[str, str], cwd: str) -> tuple[float, float]:
    """Seconds to the first paint (wall) and the CPU the child used until it exited."""
    before = os.times()
    start = time.time()
    # Run outside any checkout: with -c the current folder comes first on sys.path.
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    for line in out.stdout.splitlines():
        if line.startswith("FIRST_FRAME "):
            return float(line.split()[1]) - start, cpu
    raise RuntimeError(f"no frame reported:\n{out.stdout}\n{out.stderr}")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                   PYTHONPATH=os.environ.get("PYTHONPATH", str(ROOT)), ECHO_DESK_EXIT_AFTER_FIRST_FRAME="1",
                   PYTHONPYCACHEPREFIX=f"{home}/pycache",
                   ECHO_DESK_CONFIG_DIR=f"{home}/c", ECHO_DESK_DATA_DIR=f"{home}/d", ECHO_DESK_CACHE_DIR=f"{home}/k")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        first_frame(BARE, env, home), first_frame(APP, env, home)  # warm the bytecode cache
        bare, app, bare_cpu, app_cpu = [], [], [], []
        for _ in range(runs):  # interleaved so machine noise hits both alike
            for wall, cpu, code in ((bare, bare_cpu, BARE), (app, app_cpu, APP)):
                seconds, used = first_frame(code, env, home)
                wall.append(seconds)
                cpu.append(used)
    b, a = statistics.median(bare), statistics.median(app)
    bc, ac = statistics.median(bare_cpu), statistics.median(app_cpu)
    print(f"bare QMainWindow first frame: median {b * 1000:.0f} ms (min {min(bare) * 1000:.0f}, first {bare[0] * 1000:.0f})")
    print(f"Echo Desk first frame:        median {a * 1000:.0f} ms (min {min(app) * 1000:.0f}, first {app[0] * 1000:.0f})")
    print(f"code measured: {env['PYTHONPATH']}   runs: {runs}")
    print(f"ratio (median): {a / b:.2f}x   target <= {TARGET:g}x   {'OK' if a / b <= TARGET else 'OVER'}")
    # CPU until exit (the child leaves right after its first frame): less bent by a busy machine.
    print(f"CPU (median): bare {bc * 1000:.0f} ms, Echo Desk {ac * 1000:.0f} ms, ratio {ac / bc:.2f}x")


if __name__ == "__main__":
    main()
