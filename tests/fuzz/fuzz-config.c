/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the settings file parser and writer (src/config.c):
 * any bytes as a file.  A parse either fails with one FILE:LINE message or
 * leaves only values the setters accept; warnings are single lines.  A
 * file that parses renders (config_render, what the setup screen saves)
 * into a text that parses again to the same values, and rendering no
 * settings over it changes nothing but a missing last newline.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "feed.h"
#include "ladder.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_config_warn(void *arg, const char *line)
{
	if (strchr(line, '\n') != NULL || strncmp(line, "fuzz:", 5) != 0)
		abort();
}

static int
fuzz_config_streq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Do A and B hold the same settings? */
static int
fuzz_config_same(const struct config *a, const struct config *b)
{
	return fuzz_config_streq(a->transport, b->transport) &&
	    fuzz_config_streq(a->theme, b->theme) &&
	    fuzz_config_streq(a->sort.column, b->sort.column) &&
	    a->sort.desc == b->sort.desc &&
	    fuzz_config_streq(a->rank_sort.column, b->rank_sort.column) &&
	    a->rank_sort.desc == b->rank_sort.desc &&
	    fuzz_config_streq(a->node_columns, b->node_columns) &&
	    fuzz_config_streq(a->rank_columns, b->rank_columns) &&
	    a->fold == b->fold && a->interval == b->interval;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct config	c, back, none;
	char		err[512], *t;
	size_t		n;

	feed_register_transports(feed_transports);
	config_init(&c);
	err[0] = '\0';
	if (config_parse(&c, "fuzz", (const char *)data, len,
	    fuzz_config_warn, NULL, err, sizeof(err)) != 0) {
		if (strncmp(err, "fuzz:", 5) != 0 || strchr(err, '\n') != NULL)
			abort();
		config_free(&c);
		return 0;
	}
	if (c.transport != NULL && strcmp(c.transport, "auto") != 0 &&
	    feed_transport_find(c.transport) == NULL)
		abort();
	if (c.interval != 0 && !(c.interval >= CONFIG_IVL_MIN &&
	    c.interval <= CONFIG_IVL_MAX))
		abort();
	if (c.fold != CONFIG_FOLD_UNSET && config_fold_name(c.fold) == NULL)
		abort();

	t = config_render(&c, (const char *)data, len);
	config_init(&back);
	if (config_parse(&back, "fuzz", t, strlen(t), NULL, NULL, err,
	    sizeof(err)) != 0 || !fuzz_config_same(&c, &back))
		abort();
	free(t);
	config_free(&back);

	config_init(&none);
	t = config_render(&none, (const char *)data, len);
	n = strlen(t);
	if (n < len || memcmp(t, data, len) != 0 || n > len + 1)
		abort();
	free(t);
	config_free(&c);
	return 0;
}
