/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bspline-api.h: BSPLINE_API, the mark of libbspline-1.0's API.
 *
 * The library is built with hidden visibility (core/meson.build): the
 * functions that the installed headers declare with BSPLINE_API are
 * exported, and nothing else is but the few internals that the private
 * headers mark BSPLINE_INTERNAL_API (core/base/base.h). */
#ifndef BSPLINE_API_H
#define BSPLINE_API_H

#ifndef BSPLINE_API
#if defined(__GNUC__)
#define BSPLINE_API __attribute__ ((visibility ("default")))
#else
#define BSPLINE_API
#endif
#endif

#endif /* BSPLINE_API_H */
