/* SPDX-License-Identifier: ISC */
/*
 * net: network interface traffic from /proc/net/dev, one instance of group
 * "net" per interface, loopback included (MPI ranks on one node talk over
 * it).  The file shows the interfaces of the probe's network namespace,
 * which is the node's.  All values are raw counters.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

enum {
	NET_RX_BYTES, NET_RX_PACKETS, NET_RX_ERRS, NET_RX_DROP,
	NET_TX_BYTES, NET_TX_PACKETS, NET_TX_ERRS, NET_TX_DROP,
	NET_NFIELDS
};

static const struct field_def net_fields[NET_NFIELDS] = {
	{ "rx_bytes",	"bytes", PF_COUNTER },
	{ "rx_packets",	"count", PF_COUNTER },
	{ "rx_errs",	"count", PF_COUNTER },
	{ "rx_drop",	"count", PF_COUNTER },
	{ "tx_bytes",	"bytes", PF_COUNTER },
	{ "tx_packets",	"count", PF_COUNTER },
	{ "tx_errs",	"count", PF_COUNTER },
	{ "tx_drop",	"count", PF_COUNTER },
};
static const struct group_def net_group = {
	"net", net_fields, NET_NFIELDS
};
static const struct group_def *net_groups[] = { &net_group, NULL };

/* The column in /proc/net/dev of each field: 8 receive columns (bytes
 * packets errs drop fifo frame compressed multicast), then transmit. */
static const unsigned net_cols[NET_NFIELDS] = { 0, 1, 2, 3, 8, 9, 10, 11 };

#define NET_NCOLS	16

/* Hosts with many containers have thousands of veth interfaces. */
static char	net_buf[256 * 1024];
static int	net_fd = -1;

static int
net_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	if ((net_fd = probe_open("/proc/net/dev")) < 0) {
		snprintf(why, whysz, "no /proc/net/dev");
		return -1;
	}
	if (probe_pread(net_fd, net_buf, sizeof(net_buf)) < 0) {
		snprintf(why, whysz, "cannot read /proc/net/dev");
		close(net_fd);
		net_fd = -1;
		return -1;
	}
	return 0;
}

/* A name the protocol can carry: printable ASCII, no space or quote. */
static int
net_name_ok(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || n >= PROTO_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] <= ' ' || s[i] > '~' || s[i] == '"' || s[i] == '\\')
			return 0;
	}
	return 1;
}

/* "  eth0: 1234 5 ..." (no space after the colon once numbers grow). */
static void
net_parse_line(const char *p)
{
	struct pinst	*pi;
	const char	*colon;
	char		 name[PROTO_NAME_MAX];
	uint64_t	 v[NET_NCOLS];
	unsigned	 n, f;
	size_t		 len;

	p = probe_skip_space(p);
	len = strcspn(p, ":\n");
	colon = p + len;
	if (*colon != ':' || !net_name_ok(p, len))
		return;
	memcpy(name, p, len);
	name[len] = '\0';
	for (p = colon + 1, n = 0; n < NET_NCOLS; n++) {
		if ((p = probe_parse_u64(p, &v[n])) == NULL)
			break;
	}
	/* A line cut short would report made-up numbers: all or nothing. */
	if (n < NET_NCOLS || (pi = probe_inst(&net_group, name)) == NULL)
		return;
	for (f = 0; f < NET_NFIELDS; f++)
		pinst_set(pi, f, (int64_t)v[net_cols[f]]);
}

static void
net_sample(const struct probe_conf *conf)
{
	const char	*p, *q;
	ssize_t		 n;

	if ((n = probe_pread(net_fd, net_buf, sizeof(net_buf))) <= 0)
		return;
	if ((size_t)n == sizeof(net_buf) - 1 &&
	    (q = strrchr(net_buf, '\n')) != NULL)
		net_buf[q + 1 - net_buf] = '\0';
	for (p = net_buf; *p != '\0'; p = q) {
		if ((q = strchr(p, '\n')) != NULL)
			q++;
		else
			q = p + strlen(p);
		net_parse_line(p);
	}
}

const struct source src_net = {
	"net", net_groups, net_init, net_sample
};
