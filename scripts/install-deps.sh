#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what gst-bspline needs on Debian 12 (bookworm), skipping the
# package manager when everything is already there.
set -euo pipefail

packages=(
  build-essential pkg-config meson ninja-build
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev
  libopenexr-dev libpng-dev libtiff-dev libjson-glib-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  python3 python3-numpy python3-scipy python3-matplotlib python3-skimage
  python3-venv python3-pip
  valgrind clang libclang-rt-14-dev
  ffmpeg
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The tests' outside references that Debian does not package, from PyPI,
# in the project's own venv (.venv, git-ignored; it sees Debian's numpy,
# scipy and scikit-image): OpenCV for the lens maps.  The tests that need
# it run under .venv/bin/python3 and skip without it.
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv"
pypi=(opencv-python-headless==4.10.0.84)
if "$venv/bin/python3" -c "import cv2; assert cv2.__version__ == '4.10.0'" 2>/dev/null; then
  echo "install-deps: $venv has ${pypi[*]}"
else
  echo "install-deps: $venv: installing ${pypi[*]}"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${pypi[@]}"
fi
