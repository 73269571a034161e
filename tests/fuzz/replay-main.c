/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* replay-main.c: runs a libFuzzer harness over files, without libFuzzer.
 *
 * Linked with fuzz-core.c or fuzz-element.c into a plain program for every
 * build (gcc, ASan, valgrind), so the committed corpus, and every crash the
 * fuzzers found, is a regression test of the normal suite:
 *   replay-core FILE|DIRECTORY...
 * Each argument is a file, or a directory whose regular files are all run
 * (in name order).  Prints the number of inputs run; exit status 0 unless
 * an input crashes or fails a check of the harness (which aborts).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static int
run_file (const char *path)
{
  FILE *f = fopen (path, "rb");
  uint8_t *data = NULL;
  size_t size = 0, cap = 0, n;

  if (f == NULL) {
    fprintf (stderr, "replay: cannot open %s\n", path);
    return 0;
  }
  do {
    if (size == cap) {
      cap = cap ? 2 * cap : 4096;
      data = realloc (data, cap);
      if (data == NULL) {
        fclose (f);
        return 0;
      }
    }
    n = fread (data + size, 1, cap - size, f);
    size += n;
  } while (n > 0);
  fclose (f);
  fprintf (stderr, "replay: %s (%zu bytes)\n", path, size);
  LLVMFuzzerTestOneInput (data, size);
  free (data);
  return 1;
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static int
run_path (const char *path)
{
  struct stat st;
  DIR *dir;
  struct dirent *e;
  char **names = NULL;
  size_t n_names = 0, i;
  int n_run = 0;

  if (stat (path, &st) != 0) {
    fprintf (stderr, "replay: no such file or directory: %s\n", path);
    return -1;
  }
  if (!S_ISDIR (st.st_mode))
    return run_file (path);
  dir = opendir (path);
  if (dir == NULL)
    return -1;
  while ((e = readdir (dir)) != NULL) {
    char *full;

    if (e->d_name[0] == '.')
      continue;
    full = malloc (strlen (path) + strlen (e->d_name) + 2);
    names = realloc (names, (n_names + 1) * sizeof *names);
    if (full == NULL || names == NULL)
      abort ();
    sprintf (full, "%s/%s", path, e->d_name);
    names[n_names++] = full;
  }
  closedir (dir);
  if (n_names > 0)
    qsort (names, n_names, sizeof *names, compare_names);
  for (i = 0; i < n_names; i++) {
    if (stat (names[i], &st) == 0 && S_ISREG (st.st_mode))
      n_run += run_file (names[i]);
    free (names[i]);
  }
  free (names);
  return n_run;
}

int
main (int argc, char **argv)
{
  int i, n, total = 0;

  for (i = 1; i < argc; i++) {
    n = run_path (argv[i]);
    if (n < 0)
      return 1;
    total += n;
  }
  printf ("replay: %d inputs ran without a crash\n", total);
  return total > 0 ? 0 : 1;
}
