/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* photo.h: the photograph of the GPU tests, scikit-image's astronaut at
 * every 4th pixel (tests/gpu/data/astronaut-128x96.rgb, 128x96 RGB, 8
 * bits), read from ASTRONAUT (its path in the source tree, given by
 * meson) or from the working directory's tests/gpu/data. */
#ifndef BSPLINE_TEST_GPU_PHOTO_H
#define BSPLINE_TEST_GPU_PHOTO_H

#include <stdio.h>

#define PHOTO_W 128
#define PHOTO_H 96
#define PHOTO_BYTES (PHOTO_W * PHOTO_H * 3)

/* Fills rgb (PHOTO_BYTES) with the photograph; 0 where it cannot be
 * read. */
static inline int
test_read_photo (unsigned char *rgb)
{
  const char *paths[] = { ASTRONAUT, "tests/gpu/data/astronaut-128x96.rgb" };
  size_t got = 0;
  int i;

  for (i = 0; i < 2 && got != PHOTO_BYTES; i++) {
    FILE *f = fopen (paths[i], "rb");
    if (f) {
      got = fread (rgb, 1, PHOTO_BYTES, f);
      fclose (f);
    }
  }
  return got == PHOTO_BYTES;
}

#endif
