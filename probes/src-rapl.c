/* SPDX-License-Identifier: ISC */
/*
 * rapl: the processor's energy counters (Intel RAPL, and AMD's, which the
 * same powercap driver exposes) from /sys/class/powercap, one instance of
 * group "rapl" per zone.  A zone intel-rapl:N is a package ("package-0")
 * or the platform ("psys") and keeps its name; a subzone intel-rapl:N:M
 * ("core", "uncore", "dram") is named after its package, "dram-0", as
 * every package has one of each.  The intel-rapl-mmio zones measure the
 * same packages a second way and are left out.
 *
 * energy_uj counts microjoules up to max_energy_range_uj and starts again
 * from 0, every few minutes on a busy server.  The probe unwraps it: it
 * keeps a 64-bit sum of the increments, taking a value below the previous
 * one as a wrap, and sends that sum as the counter "energy" (unit "uJ",
 * so its rate in uJ/s over 1e6 is watts).  A wrap is found only if the
 * probe reads the counter at least once per wrap period.  Since the
 * PLATYPUS side channel (CVE-2020-8694) energy_uj is readable by root
 * only on most kernels: the source is then off and says so.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

#define RAPL_DIR	"/sys/class/powercap"
#define RAPL_PREFIX	"intel-rapl:"
#define RAPL_MAX	64	/* zones */

enum { RAPL_ENERGY, RAPL_NFIELDS };

static const struct field_def rapl_fields[RAPL_NFIELDS] = {
	{ "energy",	"uJ",	PF_COUNTER },
};
static const struct group_def rapl_group = {
	"rapl", rapl_fields, RAPL_NFIELDS
};
static const struct group_def *rapl_groups[] = { &rapl_group, NULL };

struct rapl_zone {
	int		 fd;		/* energy_uj */
	int		 pkg;		/* N of intel-rapl:N */
	int		 sub;		/* M of intel-rapl:N:M, or -1 */
	uint64_t	 max;		/* max_energy_range_uj, 0 unknown */
	uint64_t	 prev;		/* energy_uj at the last read */
	uint64_t	 sum;		/* the unwrapped counter */
	int		 have;		/* prev and sum are set */
	char		 kname[PROTO_NAME_MAX];	/* its name file */
	char		 name[PROTO_NAME_MAX];	/* the instance */
};

static struct rapl_zone	rapl_zones[RAPL_MAX];
static unsigned		rapl_nzones;

/* Order zones by package, the package itself before its subzones. */
static int
rapl_cmp(const void *a, const void *b)
{
	const struct rapl_zone	*x = a, *y = b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	return x->sub < y->sub ? -1 : x->sub > y->sub;
}

/* "intel-rapl:N" or "intel-rapl:N:M": 0 with N and M (-1), else -1. */
static int
rapl_parse_dir(const char *d, int *pkg, int *sub)
{
	char	*end;
	long	 n, m = -1;

	if (strncmp(d, RAPL_PREFIX, strlen(RAPL_PREFIX)) != 0)
		return -1;
	d += strlen(RAPL_PREFIX);
	if (*d < '0' || *d > '9')
		return -1;
	n = strtol(d, &end, 10);
	if (*end == ':') {
		d = end + 1;
		if (*d < '0' || *d > '9')
			return -1;
		m = strtol(d, &end, 10);
	}
	if (*end != '\0' || n > 9999 || m > 9999)
		return -1;
	*pkg = (int)n;
	*sub = (int)m;
	return 0;
}

/* Read a one-line sysfs file of a zone into buf, without its newline. */
static int
rapl_read_attr(const char *dir, const char *attr, char *buf, size_t size)
{
	char	path[512];

	snprintf(path, sizeof(path), RAPL_DIR "/%s/%s", dir, attr);
	if (probe_read_file(path, buf, size) <= 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Open one zone's files; 0, or -1 with *denied set when energy_uj is
 * there but not readable. */
static int
rapl_add_zone(const char *dir, int pkg, int sub, int *denied)
{
	struct rapl_zone	*z = &rapl_zones[rapl_nzones];
	char			 path[512], buf[64];
	uint64_t		 v;
	int			 fd;

	if (rapl_nzones == RAPL_MAX)
		return -1;
	memset(z, 0, sizeof(*z));
	if (rapl_read_attr(dir, "name", z->kname, sizeof(z->kname)) < 0 ||
	    z->kname[0] == '\0')
		return -1;
	snprintf(path, sizeof(path), RAPL_DIR "/%s/energy_uj", dir);
	if ((fd = probe_open(path)) < 0) {
		if (errno == EACCES || errno == EPERM)
			*denied = 1;
		return -1;
	}
	if (probe_pread(fd, buf, sizeof(buf)) <= 0 ||
	    probe_parse_u64(buf, &v) == NULL) {
		if (errno == EACCES || errno == EPERM)
			*denied = 1;
		close(fd);
		return -1;
	}
	if (rapl_read_attr(dir, "max_energy_range_uj", buf, sizeof(buf)) == 0 &&
	    probe_parse_u64(buf, &v) != NULL)
		z->max = v;
	z->fd = fd;
	z->pkg = pkg;
	z->sub = sub;
	rapl_nzones++;
	return 0;
}

/* Name the instances: a subzone after its package ("dram-0"). */
static void
rapl_name_zones(void)
{
	struct rapl_zone	*z, *p;
	unsigned		 i, k;
	char			 num[16], name[PROTO_NAME_MAX];

	for (i = 0; i < rapl_nzones; i++) {
		z = &rapl_zones[i];
		if (z->sub < 0) {
			memcpy(z->name, z->kname, sizeof(z->name));
			continue;
		}
		snprintf(num, sizeof(num), "%d", z->pkg);
		for (k = 0; k < rapl_nzones; k++) {
			p = &rapl_zones[k];
			if (p->pkg == z->pkg && p->sub < 0 &&
			    strncmp(p->kname, "package-", 8) == 0)
				snprintf(num, sizeof(num), "%.15s",
				    p->kname + 8);
		}
		snprintf(name, sizeof(name), "%.40s-%s", z->kname, num);
		memcpy(z->name, name, sizeof(z->name));
	}
	/* Two zones of one name (a firmware quirk): the later gets "#2". */
	for (i = 1; i < rapl_nzones; i++) {
		z = &rapl_zones[i];
		for (k = 0; k < i; k++) {
			if (strcmp(rapl_zones[k].name, z->name) == 0) {
				snprintf(num, sizeof(num), "#%u", i + 1);
				z->name[sizeof(z->name) - strlen(num) - 1] =
				    '\0';
				strcat(z->name, num);
				break;
			}
		}
	}
}

static int
rapl_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[4096];
	int		 pkg, sub, denied = 0, seen = 0;

	if ((d = opendir(probe_path(path, sizeof(path), RAPL_DIR))) == NULL) {
		snprintf(why, whysz, "no " RAPL_DIR " (no RAPL)");
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (rapl_parse_dir(de->d_name, &pkg, &sub) < 0)
			continue;
		seen = 1;
		rapl_add_zone(de->d_name, pkg, sub, &denied);
	}
	closedir(d);
	if (rapl_nzones == 0) {
		if (denied)
			snprintf(why, whysz, "energy_uj not readable (root "
			    "only)");
		else if (seen)
			snprintf(why, whysz, "no readable RAPL zone in "
			    RAPL_DIR);
		else
			snprintf(why, whysz, "no RAPL zone in " RAPL_DIR);
		return -1;
	}
	qsort(rapl_zones, rapl_nzones, sizeof(rapl_zones[0]), rapl_cmp);
	rapl_name_zones();
	return 0;
}

/* Add what a zone used since its last read to its unwrapped sum. */
static void
rapl_advance(struct rapl_zone *z, uint64_t v)
{
	if (!z->have) {
		z->sum = v;
		z->have = 1;
	} else if (v >= z->prev)
		z->sum += v - z->prev;
	else if (z->max > z->prev)
		z->sum += z->max - z->prev + v;
	else
		z->sum += v;	/* no range known: count from 0 again */
	z->prev = v;
}

static void
rapl_sample(const struct probe_conf *conf)
{
	struct rapl_zone	*z;
	char			 buf[64];
	uint64_t		 v;
	unsigned		 i;

	for (i = 0; i < rapl_nzones; i++) {
		z = &rapl_zones[i];
		if (probe_pread(z->fd, buf, sizeof(buf)) <= 0 ||
		    probe_parse_u64(buf, &v) == NULL)
			continue;
		rapl_advance(z, v);
		pinst_set(probe_inst(&rapl_group, z->name), RAPL_ENERGY,
		    (int64_t)z->sum);
	}
}

const struct source src_rapl = {
	"rapl", rapl_groups, rapl_init, rapl_sample
};
