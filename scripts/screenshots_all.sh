#!/bin/sh
# Retake every README screenshot, each script in a fresh home mounted at /home/me (bubblewrap), so
# the pictures show /home/me/… and not this machine's temporary folders. Needs xvfb-run and bwrap.
# Usage: scripts/screenshots_all.sh [--with-local-model]   (the built-in model's shots, ~2 min more)
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
# The person's cache stays where it is (the built-in model lives there), whatever HOME says inside.
CACHE=${ECHO_DESK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/echo-desk}
run() {
    home=$(mktemp -d)
    bwrap --dev-bind / / --tmpfs /home --bind "$home" /home/me --chdir "$PWD" -- \
        env ECHO_DESK_SHOTS_HOME=/home/me HOME=/home/me ECHO_DESK_CACHE_DIR="$CACHE" QT_QPA_PLATFORM=xcb \
        xvfb-run -a -s "-screen 0 1280x1024x24" "$PYTHON" "$@"
    rm -rf "$home"
}
run scripts/screenshots.py
case " $* " in *" --with-local-model "*) run scripts/screenshots.py --local-model-only ;; esac
run scripts/screenshots.py --look-only
run scripts/screenshots_dialogs.py
run scripts/screenshots_attachments.py
run scripts/screenshots_find.py
run scripts/screenshots_messages.py
run scripts/screenshots_gateway.py
run scripts/screenshots_local_agent.py
run scripts/screenshots_sandbox.py
run scripts/screenshots_connected_apps.py
run scripts/screenshots_mcp_sign_in.py
