/* SPDX-License-Identifier: ISC */
/*
 * harness: a tiny unit-test harness, header only.  A test program is a set
 * of functions run with RUN(fn); inside them CHECK-family macros count
 * every check and print each failure with its file, line and the values
 * compared.  main ends with `return harness_done();`, which prints a
 * summary and gives 0 when every check passed, 1 otherwise (the exit codes
 * tests/run.sh expects).  Checks never abort: a test goes on after a
 * failure so one run shows every problem.
 */
#ifndef JOBTOP_HARNESS_H
#define JOBTOP_HARNESS_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int		 harness_checks;
static int		 harness_failures;
static const char	*harness_name = "";

static inline void	harness_check(int, const char *, int, const char *,
			    ...) __attribute__((format(printf, 4, 5)));

/* Count one check; print it when it failed. */
static inline void
harness_check(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list	ap;

	harness_checks++;
	if (ok)
		return;
	harness_failures++;
	fprintf(stderr, "FAIL %s:%d: %s: ", file, line, harness_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The summary line and the exit code. */
static inline int
harness_done(void)
{
	printf("%d checks, %d failed\n", harness_checks, harness_failures);
	return harness_failures == 0 ? 0 : 1;
}

/* Called through a volatile pointer: a test is never inlined into main,
 * whose frame would otherwise hold every test's locals at once (under
 * ASan, with its redzones, more than the 8 MiB stack: test-detect). */
#define RUN(fn) do {							\
	void (*volatile harness_fn_)(void) = fn;			\
	harness_name = #fn;						\
	harness_fn_();							\
} while (0)

#define CHECK(cond)							\
	harness_check(!!(cond), __FILE__, __LINE__, "%s", #cond)

#define CHECK_INT(a, b) do {						\
	long long a_ = (long long)(a), b_ = (long long)(b);		\
	harness_check(a_ == b_, __FILE__, __LINE__,			\
	    "%s == %s: %lld != %lld", #a, #b, a_, b_);			\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *a_ = (a), *b_ = (b);				\
	harness_check(a_ != NULL && b_ != NULL && strcmp(a_, b_) == 0,	\
	    __FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,	\
	    a_ != NULL ? a_ : "(null)", b_ != NULL ? b_ : "(null)");	\
} while (0)

#define CHECK_NEAR(a, b, eps) do {					\
	double a_ = (a), b_ = (b);					\
	harness_check(fabs(a_ - b_) <= (eps), __FILE__, __LINE__,	\
	    "%s ~ %s: %g != %g", #a, #b, a_, b_);			\
} while (0)

#endif
