/* SPDX-License-Identifier: ISC */
/*
 * ib: InfiniBand and Omni-Path port counters from sysfs, one instance of
 * group "ib" per port, named "DEVICE/PORT" ("mlx5_0/1", "hfi1_0/1").  Each
 * port of /sys/class/infiniband/DEV/ports/P has a counters directory of
 * PortCounters (hfi1 answers the same queries with its OPA counters, so
 * the layout and units are the same); kernels since 4.5 show the 64-bit
 * PortCountersExtended values there for data and packets when the device
 * has them, and older kernels with OFED put those in counters_ext as
 * port_*_data_64 and port_*_packets_64, which are then preferred.  The
 * driver-specific hw_counters directory holds no port traffic and is not
 * read.
 *
 * port_rcv_data and port_xmit_data count 4-byte words ("octets divided by
 * 4", sysfs-class-infiniband); the probe sends them as bytes, words times
 * 4: an exact conversion of the counter, not a rate.  Without extended
 * counters they are 32 bits wide and stop at their maximum (16 GiB of
 * data) rather than wrap, as the error counters do at 16 or 8 bits; the
 * monitor then sees no change.  state ("4: ACTIVE") and phys_state ("5:
 * LinkUp") travel as their names, rate as the kernel writes it ("100
 * Gb/sec (4X EDR)") and as speed_mbps, a number; link_layer ("InfiniBand",
 * "Ethernet" for RoCE) is read once.  Ports are found at start-up and
 * every file stays open.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

enum {
	IB_RCV_BYTES, IB_XMIT_BYTES, IB_RCV_PACKETS, IB_XMIT_PACKETS,
	IB_RCV_ERRORS, IB_SYMBOL_ERRORS, IB_XMIT_DISCARDS, IB_LINK_DOWNED,
	IB_XMIT_WAIT, IB_STATE, IB_PHYS_STATE, IB_RATE, IB_LINK_LAYER,
	IB_SPEED, IB_NFIELDS
};

static const struct field_def ib_fields[IB_NFIELDS] = {
	{ "rcv_bytes",		"bytes", PF_COUNTER },
	{ "xmit_bytes",		"bytes", PF_COUNTER },
	{ "rcv_packets",	"count", PF_COUNTER },
	{ "xmit_packets",	"count", PF_COUNTER },
	{ "rcv_errors",		"count", PF_COUNTER },
	{ "symbol_errors",	"count", PF_COUNTER },
	{ "xmit_discards",	"count", PF_COUNTER },
	{ "link_downed",	"count", PF_COUNTER },
	{ "xmit_wait",		"count", PF_COUNTER },
	{ "state",		"",	 PF_STRING },
	{ "phys_state",		"",	 PF_STRING },
	{ "rate",		"",	 PF_STRING },
	{ "link_layer",		"",	 PF_STRING },
	{ "speed_mbps",		"",	 PF_GAUGE },
};
static const struct group_def ib_group = {
	"ib", ib_fields, IB_NFIELDS
};
static const struct group_def *ib_groups[] = { &ib_group, NULL };

/* The files read every sample, in the order of the fields they give. */
enum {
	IBF_RCV_DATA, IBF_XMIT_DATA, IBF_RCV_PACKETS, IBF_XMIT_PACKETS,
	IBF_RCV_ERRORS, IBF_SYMBOL_ERROR, IBF_XMIT_DISCARDS, IBF_LINK_DOWNED,
	IBF_XMIT_WAIT, IBF_STATE, IBF_PHYS_STATE, IBF_RATE, IBF_NFILES
};

/* Each file under ports/P: the counters_ext name preferred, if any. */
static const struct {
	const char	*ext;
	const char	*path;
} ib_files[IBF_NFILES] = {
	{ "counters_ext/port_rcv_data_64", "counters/port_rcv_data" },
	{ "counters_ext/port_xmit_data_64", "counters/port_xmit_data" },
	{ "counters_ext/port_rcv_packets_64", "counters/port_rcv_packets" },
	{ "counters_ext/port_xmit_packets_64", "counters/port_xmit_packets" },
	{ NULL, "counters/port_rcv_errors" },
	{ NULL, "counters/symbol_error" },
	{ NULL, "counters/port_xmit_discards" },
	{ NULL, "counters/link_downed" },
	{ NULL, "counters/port_xmit_wait" },
	{ NULL, "state" },
	{ NULL, "phys_state" },
	{ NULL, "rate" },
};

#define IB_PORTS_MAX	64
#define IB_DIR		"/sys/class/infiniband"

struct ib_port {
	char	name[PROTO_NAME_MAX];		/* "mlx5_0/1" */
	char	link_layer[PINST_STRLEN];	/* "" when unknown */
	int	fd[IBF_NFILES];
};

static struct ib_port	ib_ports[IB_PORTS_MAX];
static unsigned		ib_nports;

/* A name from sysfs the probe can put in an instance name. */
static int
ib_name_ok(const char *s)
{
	size_t	n = strlen(s);

	if (n == 0 || n > 30 || s[0] == '.')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_-") == n;
}

/* Build the path of a port's file; -1 when it does not fit. */
static int
ib_port_path(char *buf, size_t size, const char *dev, const char *port,
    const char *file)
{
	int	n;

	n = snprintf(buf, size, IB_DIR "/%s/ports/%s/%s", dev, port, file);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Open the files of port P of device DEV; 0, or -1 when it has no state
 * file (not a port). */
static int
ib_open_port(const char *dev, const char *port)
{
	struct ib_port	*ip = &ib_ports[ib_nports];
	char		 path[256], buf[PINST_STRLEN];
	unsigned	 i;

	for (i = 0; i < IBF_NFILES; i++) {
		ip->fd[i] = -1;
		if (ib_files[i].ext != NULL && ib_port_path(path,
		    sizeof(path), dev, port, ib_files[i].ext) == 0)
			ip->fd[i] = probe_open(path);
		if (ip->fd[i] < 0 && ib_port_path(path, sizeof(path), dev,
		    port, ib_files[i].path) == 0)
			ip->fd[i] = probe_open(path);
	}
	if (ip->fd[IBF_STATE] < 0) {
		for (i = 0; i < IBF_NFILES; i++) {
			if (ip->fd[i] >= 0)
				close(ip->fd[i]);
		}
		return -1;
	}
	ip->link_layer[0] = '\0';
	if (ib_port_path(path, sizeof(path), dev, port, "link_layer") == 0 &&
	    probe_read_file(path, buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		memcpy(ip->link_layer, buf, sizeof(ip->link_layer));
	}
	if (snprintf(ip->name, sizeof(ip->name), "%s/%s", dev, port) >=
	    (int)sizeof(ip->name))
		return -1;
	ib_nports++;
	return 0;
}

/* The ports of one device, in the order readdir gives them. */
static void
ib_scan_device(const char *dev)
{
	DIR		*d;
	struct dirent	*de;
	char		 rel[128], path[4096];

	if (snprintf(rel, sizeof(rel), IB_DIR "/%s/ports", dev) >=
	    (int)sizeof(rel))
		return;
	if ((d = opendir(probe_path(path, sizeof(path), rel))) == NULL)
		return;
	while ((de = readdir(d)) != NULL && ib_nports < IB_PORTS_MAX) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    !ib_name_ok(de->d_name))
			continue;
		ib_open_port(dev, de->d_name);
	}
	closedir(d);
}

/* On when sysfs lists at least one port; its files are opened. */
static int
ib_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[4096];

	if ((d = opendir(probe_path(path, sizeof(path), IB_DIR))) == NULL) {
		if (errno == ENOENT)
			snprintf(why, whysz, "no InfiniBand or Omni-Path "
			    "devices (no %s)", IB_DIR);
		else
			snprintf(why, whysz, "cannot list %s: %s", IB_DIR,
			    strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL && ib_nports < IB_PORTS_MAX) {
		if (ib_name_ok(de->d_name))
			ib_scan_device(de->d_name);
	}
	closedir(d);
	if (ib_nports == 0) {
		snprintf(why, whysz, "no InfiniBand or Omni-Path ports in %s",
		    IB_DIR);
		return -1;
	}
	return 0;
}

/* "4: ACTIVE\n" -> "ACTIVE"; "100 Gb/sec (4X EDR)\n" stays as it is. */
static const char *
ib_state_name(char *buf)
{
	char	*p;

	buf[strcspn(buf, "\n")] = '\0';
	if ((p = strstr(buf, ": ")) != NULL && p > buf &&
	    strspn(buf, "0123456789") == (size_t)(p - buf))
		return p + 2;
	return buf;
}

/* "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)": megabits a second. */
static int
ib_parse_speed(const char *s, int64_t *mbps)
{
	const char	*p;
	uint64_t	 ip, frac = 0, scale = 1000;

	if ((p = probe_parse_u64(s, &ip)) == NULL || ip > 1000000000)
		return -1;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
	}
	if (strncmp(p, " Gb/sec", 7) != 0)
		return -1;
	*mbps = (int64_t)(ip * 1000 + frac);
	return 0;
}

/* Read every port's files; a port whose state is unreadable is left out. */
static void
ib_sample(const struct probe_conf *conf)
{
	struct ib_port	*ip;
	struct pinst	*pi;
	char		 buf[PINST_STRLEN];
	uint64_t	 v;
	int64_t		 mbps;
	unsigned	 p, f;

	for (p = 0; p < ib_nports; p++) {
		ip = &ib_ports[p];
		/* A port whose state cannot be read is gone. */
		if (probe_pread(ip->fd[IBF_STATE], buf, sizeof(buf)) <= 0 ||
		    (pi = probe_inst(&ib_group, ip->name)) == NULL)
			continue;
		pinst_set_str(pi, IB_STATE, ib_state_name(buf));
		if (probe_pread(ip->fd[IBF_PHYS_STATE], buf, sizeof(buf)) > 0)
			pinst_set_str(pi, IB_PHYS_STATE, ib_state_name(buf));
		if (probe_pread(ip->fd[IBF_RATE], buf, sizeof(buf)) > 0) {
			pinst_set_str(pi, IB_RATE, ib_state_name(buf));
			if (ib_parse_speed(buf, &mbps) == 0)
				pinst_set(pi, IB_SPEED, mbps);
		}
		if (ip->link_layer[0] != '\0')
			pinst_set_str(pi, IB_LINK_LAYER, ip->link_layer);
		for (f = IBF_RCV_DATA; f <= IBF_XMIT_WAIT; f++) {
			if (probe_pread(ip->fd[f], buf, sizeof(buf)) <= 0 ||
			    probe_parse_u64(buf, &v) == NULL)
				continue;
			/* Data counts 4-byte words: send bytes. */
			if (f == IBF_RCV_DATA || f == IBF_XMIT_DATA)
				v *= 4;
			pinst_set(pi, f, (int64_t)v);
		}
	}
}

const struct source src_ib = {
	"ib", ib_groups, ib_init, ib_sample
};
