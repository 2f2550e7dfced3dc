/*
 * libFuzzer target for the ssh_config parser in remote/sshconf.c: the input
 * is a config file (Include refused, so nothing outside is read), and every
 * file that parses is looked up for a few names, one of them taken from
 * the input itself so patterns meet names they were made for.  The same
 * bytes also go through the other text decoders of the transport: the
 * push script's output and the private key inspection.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpush.h"
#include "rutil.h"
#include "sshconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const char	*names[] = { "node1", "gpu-7.example", "" };
	struct sshconf		*c;
	struct sshconf_host	 h;
	struct rpush_report	 r;
	char			 err[512], name[33];
	size_t			 i, n;

	for (n = 0; n < len && n < sizeof(name) - 1 && data[n] != '\0' &&
	    data[n] != '\n'; n++)
		name[n] = (char)data[n];
	name[n] = '\0';

	c = sshconf_new("/home/fuzz", "fuzz", SSHCONF_NO_INCLUDE);
	if (sshconf_parse(c, "fuzz", (const char *)data, len, 0, err,
	    sizeof(err)) == 0) {
		for (i = 0; i <= sizeof(names) / sizeof(names[0]); i++) {
			sshconf_lookup(c, i < sizeof(names) / sizeof(names[0]) ?
			    names[i] : name, "fuzz", &h, err, sizeof(err));
			sshconf_host_free(&h);
		}
	}
	sshconf_free(c);

	rpush_parse((const char *)data, len, &r);
	rpush_decide(&r, "x86_64", 1000, "", "d", err, sizeof(err));
	rutil_key_text_encrypted((const char *)data, len);
	return 0;
}
