/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the monitor's stream decoder (src/stream.c): the
 * input is a probe stream, fed in two pieces split by its first byte so
 * partial frames are exercised too, then every model value is read back
 * as the outputs would, and the count of string bytes the node holds is
 * checked against the strings themselves.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_read_model(const struct node_model *m)
{
	const struct minst	*mi;
	double			 v;
	int64_t			 raw;
	uint32_t		 i;
	unsigned		 f;
	size_t			 bytes = 0;

	for (i = 0; i < m->ninsts; i++) {
		mi = m->insts[i];
		bytes += strlen(mi->name);
		for (f = 0; f < mi->nstr; f++)
			if (mi->strs[f] != NULL)
				bytes += strlen(mi->strs[f]);
		for (f = 0; f < mi->nfields; f++) {
			model_value(mi, f, &raw);
			model_metric(m, mi, f, &v);
			model_str(mi, f);
		}
	}
	/* The string budget's count is exact and holds. */
	if (bytes != m->strbytes || bytes > STREAM_STR_MAX ||
	    m->ninsts > STREAM_INST_MAX)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct stream	*s;
	size_t		 cut;
	char		 err[256];
	int		 t;

	if (len == 0)
		return 0;
	cut = data[0] % len;
	s = stream_new("fuzz");
	stream_feed(s, data + 1, cut > 0 ? cut - 1 : 0);
	while ((t = stream_next(s)) > 0)
		fuzz_read_model(stream_model(s));
	if (t == 0) {
		stream_feed(s, data + (cut > 0 ? cut : 1),
		    len - (cut > 0 ? cut : 1));
		while ((t = stream_next(s)) > 0)
			fuzz_read_model(stream_model(s));
	}
	stream_finish(s);
	stream_error(s, err, sizeof(err));
	stream_free(s);
	return 0;
}
