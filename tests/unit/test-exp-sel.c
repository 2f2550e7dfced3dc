/* SPDX-License-Identifier: ISC */
/*
 * test-exp-sel: the export's --begin/--end times and --fields globs
 * (src/exp-sel.c), on a recording from 2026-11-25 23:00:00 to 02:00:00
 * the next day, UTC.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exp-sel.h"
#include "harness.h"

#define START	1795647600000ULL	/* 2026-11-25T23:00:00Z */
#define END	(START + 3 * 3600000ULL)

/* The time s gives, or 1 when it is refused. */
static uint64_t
sel_time(const char *s)
{
	char		err[256];
	uint64_t	t;

	err[0] = '\0';
	if (exp_time_parse(s, START, END, &t, err, sizeof(err)) != 0) {
		CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
		return 1;
	}
	return t;
}

static void
test_relative(void)
{
	CHECK_INT(sel_time("+5m"), START + 300000);
	CHECK_INT(sel_time("+90"), START + 90000);
	CHECK_INT(sel_time("+2.5s"), START + 2500);
	CHECK_INT(sel_time("+1h30m"), START + 5400000);
	CHECK_INT(sel_time("-10m"), END - 600000);
	CHECK_INT(sel_time("-1d"), 1795647600000ULL + 3 * 3600000ULL -
	    86400000ULL);
	CHECK_INT(sel_time("+0"), START);
}

static void
test_absolute(void)
{
	CHECK_INT(sel_time("2026-11-25T23:30:00Z"), START + 1800000);
	CHECK_INT(sel_time("2026-11-26T00:30:00+01:00"), START + 1800000);
	CHECK_INT(sel_time("2026-11-25T22:30:00-01:00"), START + 1800000);
	CHECK_INT(sel_time("2026-11-25 23:30"), START + 1800000);
	CHECK_INT(sel_time("@1795647600.5"), START + 500);
	/* A clock time: on the start's day, or the next when that is in
	 * the recording. */
	CHECK_INT(sel_time("23:15"), START + 900000);
	CHECK_INT(sel_time("01:00:30"), START + 2 * 3600000 + 30000);
}

static void
test_refused(void)
{
	static const char *const bad[] = {
		"", "+", "-", "+5x", "+0x10", "+1e3", "+inf", "+nan", "+-5",
		"+5m-", "25:00", "12:60", "1:00", "12:00:00:00", "@", "@1e9",
		"@-5", "2026-02-31T00:00:00Z", "2026-13-01T00:00:00Z",
		"2026-11-25T12:30:00+1", "2026-11-25X12:30:00",
		"1969-12-31T23:59:59Z", "2026-11-25T12:30:00Zjunk",
		"+99999999999d", "yesterday",
	};
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (sel_time(bad[i]) != 1)
			CHECK_STR(bad[i], "(refused)");
	}
}

static void
test_fields(void)
{
	struct exp_fields	*fl;
	char			 err[256];

	fl = exp_fields_parse("cpu.*,rank.cpu,disk.read_?ytes", err,
	    sizeof(err));
	CHECK(fl != NULL);
	CHECK(exp_fields_match(fl, "cpu", "busy"));
	CHECK(exp_fields_match(fl, "rank", "cpu"));
	CHECK(exp_fields_match(fl, "disk", "read_bytes"));
	CHECK(!exp_fields_match(fl, "rank", "cputime"));
	CHECK(!exp_fields_match(fl, "mem", "used"));
	exp_fields_free(fl);
	CHECK(exp_fields_match(NULL, "mem", "used"));
	CHECK(exp_fields_parse("cpu.*,,mem.used", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "empty") != NULL);
	CHECK(exp_fields_parse("", err, sizeof(err)) == NULL);
	CHECK(exp_fields_parse("cpu;rm\n-rf", err, sizeof(err)) == NULL);
	CHECK(strchr(err, '\n') == NULL && strchr(err, ';') != NULL);
}

int
main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	RUN(test_relative);
	RUN(test_absolute);
	RUN(test_refused);
	RUN(test_fields);
	return harness_done();
}
