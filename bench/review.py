"""Per-hunk review in the approval dialog: a 10,000-line diff with 500 hunks.

Opens the dialog until every diff line is in (what the person waits for before Allow is
enabled) without per-hunk check boxes (the dialog as it was) and with them, in the same run;
then times toggling one hunk's check box. Targets: ratio ≤ 2.0, toggle ≤ 16 ms.
Run: QT_QPA_PLATFORM=offscreen python bench/review.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from echo_desk.agent.host import ApprovalRequest
from echo_desk.common.diffs import unified_diff
from echo_desk.tools import FileChange, FileChangeKind, RiskLevel

HUNKS = 500
ROUNDS = 5


def _request(selectable: bool) -> ApprovalRequest:
    # 500 runs of 7 changed lines, 8 unchanged lines apart: 500 hunks, ~10,500 diff lines.
    old_lines, new_lines = [], []
    for h in range(HUNKS):
        for i in range(8):
            old_lines.append(f"unchanged {h}.{i}\n")
            new_lines.append(f"unchanged {h}.{i}\n")
        for i in range(7):
            old_lines.append(f"old text {h}.{i}\n")
            new_lines.append(f"new text {h}.{i}\n")
    diff = unified_diff("".join(old_lines), "".join(new_lines), "/w/big.txt")
    change = FileChange(path="/w/big.txt", kind=FileChangeKind.MODIFY, before_sha256="a", after_sha256="b",
                        diff=diff)
    return ApprovalRequest(call_id="c1", tool_name="write_file", tool_title="Write file", risk=RiskLevel.WRITE,
                           scope_id="s", scope_label="conversation", scope_chain=("conversation",),
                           arguments={"path": "big.txt"}, targets=(), file_changes=(change,), summary="",
                           binding="b", hunk_selectable=selectable)


def _open(app: QApplication, request: ApprovalRequest) -> tuple[float, object]:
    from echo_desk.ui.approval.approval_dialog import ApprovalDialog

    started = time.perf_counter()
    dialog = ApprovalDialog(request)
    dialog.show()
    while not all(p.is_loaded for p in dialog.diff_panes):
        app.processEvents()
    app.processEvents()
    return time.perf_counter() - started, dialog


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    plain, picking = _request(False), _request(True)
    lines = plain.file_changes[0].diff.count("\n")
    hunks = plain.file_changes[0].diff.count("\n@@")
    _open(app, plain)[1].close()  # warm-up: fonts, first layouts
    before, after, toggles = [], [], []
    for _ in range(ROUNDS):
        seconds, dialog = _open(app, plain)
        before.append(seconds)
        dialog.close()
        seconds, dialog = _open(app, picking)
        after.append(seconds)
        [picker] = dialog.hunk_pickers.values()
        for index in range(0, HUNKS, 25):
            started = time.perf_counter()
            picker.item(index).setCheckState(Qt.CheckState.Unchecked)
            app.processEvents()
            toggles.append(time.perf_counter() - started)
        dialog.close()
    b, a = statistics.median(before), statistics.median(after)
    print(f"diff: {lines} lines, {hunks} hunks; {ROUNDS} rounds, medians")
    print(f"open without check boxes: {b * 1000:.1f} ms")
    print(f"open with check boxes:    {a * 1000:.1f} ms  (ratio {a / b:.2f}, target <= 2.0)")
    p95 = sorted(toggles)[int(len(toggles) * 0.95)]
    print(f"toggle one hunk ({len(toggles)} toggles): median {statistics.median(toggles) * 1000:.2f} ms, "
          f"p95 {p95 * 1000:.2f} ms, max {max(toggles) * 1000:.2f} ms (target <= 16 ms)")


if __name__ == "__main__":
    main()
