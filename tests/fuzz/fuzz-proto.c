/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the protocol decoders in src/proto.c: split the
 * input into frames and decode each by its type, as the monitor would.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct proto_hello	 h;
	struct proto_frame		 f;
	struct proto_schema		*s;
	struct proto_sample_rd		 sr;
	struct proto_item		 it;
	struct proto_event		 ev;
	char				 text[PROTO_TEXT_MAX];
	uint32_t			 code;
	size_t				 used, off = 0;

	while (off < len &&
	    proto_frame_parse(data + off, len - off, &f, &used) == WIRE_OK) {
		off += used;
		switch (f.type) {
		case MSG_HELLO:
			proto_get_hello(f.payload, f.len, &h);
			break;
		case MSG_SCHEMA:
			if (proto_get_schema(f.payload, f.len, &s) ==
			    WIRE_OK) {
				proto_schema_group_index(s, "cpu");
				proto_schema_free(s);
			}
			break;
		case MSG_SAMPLE:
			if (proto_sample_open(&sr, f.payload, f.len) !=
			    WIRE_OK)
				break;
			while (proto_sample_next(&sr, &it) > 0)
				;
			break;
		case MSG_EVENT:
			proto_get_event(f.payload, f.len, &ev);
			break;
		case MSG_BYE:
			proto_get_bye(f.payload, f.len, &code, text,
			    sizeof(text));
			break;
		}
	}
	return 0;
}
