/*
 * libFuzzer target for the settings file parser (src/config.c): any bytes
 * as a file.  A parse either fails with one FILE:LINE message or leaves
 * only values the setters accept; warnings are single lines.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_config_warn(void *arg, const char *line)
{
	if (strchr(line, '\n') != NULL || strncmp(line, "fuzz:", 5) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct config	c;
	char		err[512];

	config_init(&c);
	err[0] = '\0';
	if (config_parse(&c, "fuzz", (const char *)data, len,
	    fuzz_config_warn, NULL, err, sizeof(err)) != 0) {
		if (strncmp(err, "fuzz:", 5) != 0 || strchr(err, '\n') != NULL)
			abort();
	} else if (c.transport != NULL && strcmp(c.transport, "auto") != 0 &&
	    feed_transport_find(c.transport) == NULL)
		abort();
	config_free(&c);
	return 0;
}
