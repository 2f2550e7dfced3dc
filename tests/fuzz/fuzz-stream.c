/*
 * libFuzzer target for the monitor's stream decoder (src/stream.c): the
 * input is a probe stream, fed in two pieces split by its first byte so
 * partial frames are exercised too, then every model value is read back
 * as the outputs would.
 */
#include <stdint.h>
#include <stdlib.h>

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

	for (i = 0; i < m->ninsts; i++) {
		mi = m->insts[i];
		for (f = 0; f < mi->nfields; f++) {
			model_value(mi, f, &raw);
			model_metric(m, mi, f, &v);
			model_str(mi, f);
		}
	}
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
