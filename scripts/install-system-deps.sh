#!/usr/bin/env bash
# Installs the system libraries Qt needs (offscreen and on a real X display), a CJK font so
# Chinese does not render as boxes, Xvfb for screenshots, GNU patch for the diff tests and
# bubblewrap for the command sandbox (docs/sandbox.md), bash (run_command's shell), and the shells
# and tools the permission rules' tests and the hostile command corpus run.
# As root on Debian/Ubuntu it runs apt-get; otherwise it prints the exact line to run.
set -euo pipefail
PKGS=(
  libgl1 libegl1 libxkbcommon0 libglib2.0-0 libfontconfig1 libdbus-1-3 fonts-wqy-microhei
  xvfb xauth x11-apps libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1
  libxcb-shape0 libxcb-image0 libxcb-render-util0 libxcb-randr0 libxcb-xfixes0 libxcb-xkb1
  libx11-xcb1 patch procps
  postgresql   # the database tools' tests run a real server (initdb in a temp folder, loopback only)
  appstream desktop-file-utils   # tests/packaging validate the AppStream metainfo and the .desktop entry
  bubblewrap   # run_command's sandbox (bwrap); Fedora/Arch/openSUSE: package 'bubblewrap' too
  bash   # run_command runs lines with bash (the grammar the permission rules parse)
  # The hostile command corpus (tests/agent/permissions/hostile) runs each attack for real under
  # bash and dash, through the wrappers and tools it abuses, and traces what ran with strace.
  dash strace busybox ripgrep time util-linux bsdutils curl git make jq zip
  golang-go ccache   # its go and ccache lines (go -toolexec, ccache gcc -wrapper) run for real too
  silversearcher-ag ack fd-find   # its searcher lines (ag --pager, fd -X, ag/ack reading .) run for real too
  # The sandbox's tests plant what Mercurial, direnv, bash-completion, pre-commit and rbenv run later and
  # show it does not run.
  mercurial direnv bash-completion pre-commit rbenv
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "Installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # The tests start their own throw-away PostgreSQL; the package must not create a system cluster.
  if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
  fi
  apt-get update -qq
  $line
else
  echo "Echo Desk needs these system packages. Please run, as root:" >&2
  echo "  apt-get update && $line" >&2
  exit 1
fi
