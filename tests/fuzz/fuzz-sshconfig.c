/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the ssh_config parser in remote/sshconf.c: the input
 * is a config file (Include refused, so nothing outside is read), and every
 * file that parses is looked up for a few names, one of them taken from
 * the input itself so patterns meet names they were made for.  The same
 * bytes also go through the other text decoders of the transport: the
 * push script's output, the private key inspection, and known_hosts
 * (patterns, negation, markers), judged for the same names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libssh2.h>

#include "hostkey.h"
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

	{
		static const uint8_t	 key[51] = { 0, 0, 0, 11, 's', 's', 'h',
		    '-', 'e', 'd', '2', '5', '5', '1', '9', 0, 0, 0, 32 };
		struct hostkeys		*hk;
		char			*text;
		int			 skipped;

		text = malloc(len + 1);
		memcpy(text, data, len);
		text[len] = '\0';
		hk = hostkeys_new();
		hostkeys_parse(hk, text, &skipped);
		for (i = 0; i <= sizeof(names) / sizeof(names[0]); i++) {
			const char *nm = i < sizeof(names) /
			    sizeof(names[0]) ? names[i] : name;

			hostkeys_check(hk, nm, 22, key, sizeof(key),
			    LIBSSH2_HOSTKEY_TYPE_ED25519);
			hostkeys_check(hk, nm, 2222, key, sizeof(key),
			    LIBSSH2_HOSTKEY_TYPE_ED25519);
			hostkeys_known_types(hk, nm, 22);
		}
		hostkeys_free(hk);
		free(text);
	}
	return 0;
}
