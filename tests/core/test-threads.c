/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test-threads.c: the CPU engine's thread pool under limits (issue 27).
 *
 * n-threads=1024 used to create threads until the system refused one: the
 * process's address space (a stack per thread) was then used up, and
 * GStreamer could not start its own streaming thread.  Checked here: the
 * pool starts at most min (requested, 4 x online cores, 256) threads; and
 * in a child process whose address space is limited so that only two more
 * thread stacks fit, an engine asked for 1024 threads returns, runs with
 * fewer, gives the same output as one thread, and leaves room for the
 * process to start a thread of its own.
 */
#include "test-common.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define WIDTH 64
#define HEIGHT 48
#define CHANNELS 4

static int
min_int (int a, int b)
{
  return a < b ? a : b;
}

/* A rotation with antialiased downscaling of a random RGBA image by the
 * engine; 0 when it ran. */
static int
run_warp (bspline_cpu * cpu, const bspline_image * src, bspline_image * dst)
{
  const double inverse[9] = { 1.3, 0.4, -9.0, -0.35, 1.25, 6.0, 0, 0, 1 };
  bspline_params params;
  bspline_plan *plan = NULL;
  bspline_status status;

  bspline_params_init (&params);
  params.order = 5;
  if (bspline_plan_new (&params, inverse, WIDTH, HEIGHT, WIDTH, HEIGHT,
          CHANNELS, &plan, NULL, 0) != BSPLINE_OK)
    return -1;
  status = bspline_cpu_execute (cpu, plan, src, dst);
  bspline_plan_free (plan);
  return status == BSPLINE_OK ? 0 : -1;
}

static void *
do_nothing (void *data)
{
  return data;
}

/* The mapped size of this process in bytes (Linux), 0 where unknown. */
static size_t
address_space_used (void)
{
  FILE *f = fopen ("/proc/self/statm", "r");
  const size_t page = (size_t) sysconf (_SC_PAGESIZE);
  unsigned long pages = 0;

  if (!f)
    return 0;
  if (fscanf (f, "%lu", &pages) != 1)
    pages = 0;
  fclose (f);
  return page * pages;
}

/* The child: exit 0 when the engine ran with fewer threads and a thread
 * could still be started after it; 77 where the limit cannot be set up;
 * another code (with a line on stdout) on failure. */
static int
limited_child (const bspline_image * src, int cap)
{
  struct rlimit stack, limit;
  bspline_image ref, out;
  bspline_cpu *one, *many;
  pthread_t thread;
  size_t used;
  int n, code = 0;

  test_image_alloc (&ref, WIDTH, HEIGHT, CHANNELS, BSPLINE_SAMPLE_U8, 0);
  test_image_alloc (&out, WIDTH, HEIGHT, CHANNELS, BSPLINE_SAMPLE_U8, 0);
  one = bspline_cpu_new (1);
  if (!one || run_warp (one, src, &ref) != 0) {
    printf ("child: the one-thread engine failed\n");
    return 2;
  }
  /* the one-thread engine's buffers stay: the limit leaves no room to
   * grow them again, so the engine under test runs the same plan */
  used = address_space_used ();
  if (used == 0 || getrlimit (RLIMIT_STACK, &stack) != 0
      || stack.rlim_cur == RLIM_INFINITY || stack.rlim_cur < (1 << 20)) {
    printf ("child: no address space size or thread stack size here\n");
    return 77;
  }
  /* two thread stacks (and their guard pages) fit, a third does not,
   * and half a stack is left for the engine's buffers */
  limit.rlim_cur = limit.rlim_max = used + stack.rlim_cur * 5 / 2;
  if (setrlimit (RLIMIT_AS, &limit) != 0) {
    printf ("child: setrlimit (RLIMIT_AS) failed\n");
    return 77;
  }
  alarm (60);                   /* a hang fails, as SIGALRM */
  many = bspline_cpu_new (1024);
  if (!many) {
    printf ("child: bspline_cpu_new (1024) returned NULL under the limit\n");
    return 3;
  }
  n = bspline_cpu_n_threads (many);
  printf ("child: %d threads under a limit of %zu MiB more than the "
      "%zu MiB used (stacks of %zu MiB)\n", n,
      (size_t) (limit.rlim_cur - used) >> 20, used >> 20,
      (size_t) stack.rlim_cur >> 20);
  if (n < 1 || n >= cap) {
    printf ("child: %d threads: the limit did not make the pool smaller\n", n);
    code = 4;
  } else if (run_warp (many, src, &out) != 0) {
    printf ("child: the engine failed: %s\n", bspline_cpu_last_error (many));
    code = 5;
  } else if (memcmp (ref.data, out.data, (size_t) HEIGHT * ref.stride) != 0) {
    printf ("child: %d threads differ from one thread\n", n);
    code = 6;
  } else if (pthread_create (&thread, NULL, do_nothing, NULL) != 0) {
    printf ("child: no thread can be started after the engine's\n");
    code = 7;
  } else {
    pthread_join (thread, NULL);
  }
  fflush (stdout);
  bspline_cpu_free (many);
  bspline_cpu_free (one);
  test_image_free (&ref);
  test_image_free (&out);
  return code;
}

int
main (void)
{
  test_rng rng;
  bspline_image src;
  bspline_cpu *cpu;
  int cores = (int) sysconf (_SC_NPROCESSORS_ONLN), cap, x, y, c, status;
  const char *skipped = "";
  pid_t pid;

  test_begin ("test-threads", &rng);
  /* the rule, written out here (core/base/base.h has the engine's) */
  cores = cores > 0 ? cores : 1;
  cap = min_int (min_int (1024, 4 * cores), 256);

  /* thread creation failing part-way, in a child so that the limit ends
   * with it; first, before this process has made a thread: glibc keeps
   * the stacks of threads that ended, mapped, for the next ones */
  test_image_alloc (&src, WIDTH, HEIGHT, CHANNELS, BSPLINE_SAMPLE_U8, 0);
  for (y = 0; y < HEIGHT; y++)
    for (x = 0; x < WIDTH; x++)
      for (c = 0; c < CHANNELS; c++)
        test_image_set (&src, x, y, c, test_rng_int (&rng, 0, 255));
  fflush (stdout);
  /* valgrind maps its own memory in the process: the limit would take
   * that away (valgrind dies "out of memory"), so the limited child runs
   * natively and under ASan only */
  if (getenv ("LD_PRELOAD") && strstr (getenv ("LD_PRELOAD"), "vgpreload")) {
    printf ("under valgrind: no address-space limit\n");
    skipped = " (not under valgrind)";
    pid = -2;
  } else {
    pid = fork ();
  }
  TEST_CHECK (pid >= 0 || pid == -2, "fork failed");
  if (pid == 0)
    _exit (limited_child (&src, cap));
  if (pid > 0) {
    TEST_CHECK (waitpid (pid, &status, 0) == pid, "waitpid failed");
    if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
      skipped = " (the limited child skipped: see its line)";
    else
      TEST_CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0,
          "the child with a limited address space %s %d",
          WIFSIGNALED (status) ? "was killed by signal" : "exited with",
          WIFSIGNALED (status) ? WTERMSIG (status) : WEXITSTATUS (status));
  }
  /* the cap, where nothing limits thread creation */
  cpu = bspline_cpu_new (1024);
  TEST_CHECK (cpu && bspline_cpu_n_threads (cpu) == cap, "n_threads 1024 "
      "on %d cores: %d threads, not %d", cores,
      cpu ? bspline_cpu_n_threads (cpu) : -1, cap);
  bspline_cpu_free (cpu);
  cpu = bspline_cpu_new (0);
  TEST_CHECK (cpu && bspline_cpu_n_threads (cpu) == cores, "n_threads 0 on "
      "%d cores: %d threads", cores, cpu ? bspline_cpu_n_threads (cpu) : -1);
  bspline_cpu_free (cpu);
  cpu = bspline_cpu_new (3);
  TEST_CHECK (cpu && bspline_cpu_n_threads (cpu) == min_int (3, cap),
      "n_threads 3 on %d cores: %d threads", cores,
      cpu ? bspline_cpu_n_threads (cpu) : -1);
  bspline_cpu_free (cpu);

  test_image_free (&src);
  return test_end ("n_threads 1024, 0 and 3 on %d cores: %d, %d and %d "
      "threads; under an address-space limit an engine of fewer threads "
      "that matches one thread and leaves room for another thread%s",
      cores, cap, cores, min_int (3, cap), skipped);
}
