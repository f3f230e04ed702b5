#!/usr/bin/env bash
# Adds Echo Desk to your application menu (this user only, no root): the .desktop entry, the
# icon in every size and the AppStream metainfo, under ~/.local/share. Run it from the unpacked
# bundle folder (make package copies it there); `--remove` takes them away again.
# The folder must stay where it is: the menu entry starts <this folder>/echo-desk.
set -euo pipefail
APP_ID=io.github.echodesk.EchoDesk
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
ICONS="$HERE/_internal/echo_desk/resources/icons"
SIZES=(16 24 32 48 64 128 256)

if [ "${1:-}" = "--remove" ]; then
  rm -f "$DATA/applications/$APP_ID.desktop" "$DATA/metainfo/$APP_ID.metainfo.xml" \
        "$DATA/icons/hicolor/scalable/apps/$APP_ID.svg"
  for s in "${SIZES[@]}"; do rm -f "$DATA/icons/hicolor/${s}x${s}/apps/$APP_ID.png"; done
  echo "Removed the Echo Desk menu entry."
  exit 0
fi

[ -x "$HERE/echo-desk" ] || { echo "run this script from the Echo Desk bundle folder" >&2; exit 1; }
mkdir -p "$DATA/applications" "$DATA/metainfo" "$DATA/icons/hicolor/scalable/apps"
for s in "${SIZES[@]}"; do
  mkdir -p "$DATA/icons/hicolor/${s}x${s}/apps"
  cp "$ICONS/echo-desk-$s.png" "$DATA/icons/hicolor/${s}x${s}/apps/$APP_ID.png"
done
cp "$ICONS/echo-desk.svg" "$DATA/icons/hicolor/scalable/apps/$APP_ID.svg"
cp "$HERE/$APP_ID.metainfo.xml" "$DATA/metainfo/"
# Exec must be absolute here: the bundle is not on PATH. Quote it for paths with spaces.
sed "s|^Exec=.*|Exec=\"$HERE/echo-desk\"|" "$HERE/$APP_ID.desktop" > "$DATA/applications/$APP_ID.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$DATA/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$DATA/icons/hicolor" || true
echo "Added Echo Desk to the application menu ($DATA/applications/$APP_ID.desktop)."
