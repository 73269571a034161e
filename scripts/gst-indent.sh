#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# GStreamer's C style (gst-indent's GNU indent options): scripts/gst-indent.sh FILE...
exec indent \
  --braces-on-if-line --case-brace-indentation0 --case-indentation2 \
  --braces-after-struct-decl-line --line-length80 --no-tabs --cuddle-else \
  --dont-line-up-parentheses --continuation-indentation4 --honour-newlines \
  --tab-size8 --indent-level2 --leave-preprocessor-space "$@"
