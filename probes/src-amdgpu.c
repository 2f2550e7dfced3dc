/* SPDX-License-Identifier: ISC */
/*
 * amdgpu: AMD GPUs through the amdgpu driver's sysfs files, one instance
 * of group "amdgpu" per card, named as DRM names it ("card0").  A card is
 * /sys/class/drm/cardN whose device/vendor is 0x1002; in its device
 * directory gpu_busy_percent is the utilization, mem_info_vram_used and
 * mem_info_vram_total the VRAM in bytes, and the card's hwmon chip
 * (device/hwmon/hwmonM) gives power1_average in microwatts (power1_input
 * on GPUs that report an instant value instead), temp1_input (the "edge"
 * sensor) in millidegrees and freq1_input, the shader clock, in hertz.
 * Power is sent in milliwatts (unit "mW"), the clock in MHz.  Cards are
 * found at start-up and their files stay open; a file the driver does not
 * offer, or one whose read fails this sample (recent kernels refuse to
 * wake a card in runtime suspend to answer), leaves its field absent.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

#define AMDGPU_MAX	32	/* cards */

enum {
	AMDGPU_UTIL, AMDGPU_MEM_USED, AMDGPU_MEM_TOTAL, AMDGPU_POWER,
	AMDGPU_TEMP, AMDGPU_CLOCK, AMDGPU_NFIELDS
};

static const struct field_def amdgpu_fields[AMDGPU_NFIELDS] = {
	{ "util",	"percent",	PF_GAUGE },
	{ "mem_used",	"bytes",	PF_GAUGE },
	{ "mem_total",	"bytes",	PF_GAUGE },
	{ "power",	"mW",		PF_GAUGE },
	{ "temp",	"celsius-milli", PF_GAUGE },
	{ "clock",	"MHz",		PF_GAUGE },
};
static const struct group_def amdgpu_group = {
	"amdgpu", amdgpu_fields, AMDGPU_NFIELDS
};
static const struct group_def *amdgpu_groups[] = { &amdgpu_group, NULL };

/* Each field's file, and what its number is divided by. */
static const struct {
	const char	*file;		/* under device/, or its hwmon chip */
	int		 hwmon;
	int64_t		 div;
} amdgpu_files[AMDGPU_NFIELDS] = {
	{ "gpu_busy_percent",		0, 1 },
	{ "mem_info_vram_used",		0, 1 },
	{ "mem_info_vram_total",	0, 1 },
	{ "power1_average",		1, 1000 },
	{ "temp1_input",		1, 1 },
	{ "freq1_input",		1, 1000000 },
};

struct amdgpu_card {
	int	fd[AMDGPU_NFIELDS];
	char	name[16];
};

static struct amdgpu_card	amdgpu_cards[AMDGPU_MAX];
static unsigned			amdgpu_ncards;

static int
amdgpu_cmp_int(const void *a, const void *b)
{
	int	x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The number M of the first hwmonM under a directory, or -1. */
static int
amdgpu_hwmon(const char *dir)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[4096], *end;
	long		 v;
	int		 best = -1;

	if ((d = opendir(probe_path(path, sizeof(path), dir))) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "hwmon", 5) != 0 ||
		    de->d_name[5] < '0' || de->d_name[5] > '9')
			continue;
		v = strtol(de->d_name + 5, &end, 10);
		if (*end == '\0' && v < 1000000 && (best < 0 || v < best))
			best = (int)v;
	}
	closedir(d);
	return best;
}

/* Open the files of card N if it is an AMD GPU; 0 when it is one. */
static int
amdgpu_add_card(int n)
{
	struct amdgpu_card	*c = &amdgpu_cards[amdgpu_ncards];
	char			 dev[64], hw[128], path[256], buf[64];
	unsigned		 f, nopen = 0;
	int			 m;

	snprintf(dev, sizeof(dev), "/sys/class/drm/card%d/device", n);
	snprintf(path, sizeof(path), "%s/vendor", dev);
	if (probe_read_file(path, buf, sizeof(buf)) <= 0 ||
	    strncmp(buf, "0x1002", 6) != 0 ||
	    (buf[6] != '\n' && buf[6] != '\0'))
		return -1;
	snprintf(path, sizeof(path), "%s/hwmon", dev);
	hw[0] = '\0';
	if ((m = amdgpu_hwmon(path)) >= 0)
		snprintf(hw, sizeof(hw), "%s/hwmon/hwmon%d", dev, m);
	for (f = 0; f < AMDGPU_NFIELDS; f++) {
		c->fd[f] = -1;
		if (amdgpu_files[f].hwmon && hw[0] == '\0')
			continue;
		snprintf(path, sizeof(path), "%s/%s",
		    amdgpu_files[f].hwmon ? hw : dev, amdgpu_files[f].file);
		c->fd[f] = probe_open(path);
		if (c->fd[f] < 0 && f == AMDGPU_POWER) {
			snprintf(path, sizeof(path), "%s/power1_input", hw);
			c->fd[f] = probe_open(path);
		}
		if (c->fd[f] >= 0)
			nopen++;
	}
	if (nopen == 0)
		return -1;
	snprintf(c->name, sizeof(c->name), "card%d", n);
	amdgpu_ncards++;
	return 0;
}

static int
amdgpu_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[4096], *end;
	int		 cards[256];
	unsigned	 n = 0, i;
	long		 v;

	if ((d = opendir(probe_path(path, sizeof(path), "/sys/class/drm")))
	    == NULL) {
		snprintf(why, whysz, "no /sys/class/drm (no GPU driver)");
		return -1;
	}
	while (n < sizeof(cards) / sizeof(cards[0]) &&
	    (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "card", 4) != 0 ||
		    de->d_name[4] < '0' || de->d_name[4] > '9')
			continue;
		v = strtol(de->d_name + 4, &end, 10);
		if (*end == '\0' && v < 1000000)
			cards[n++] = (int)v;
	}
	closedir(d);
	qsort(cards, n, sizeof(cards[0]), amdgpu_cmp_int);
	for (i = 0; i < n && amdgpu_ncards < AMDGPU_MAX; i++)
		amdgpu_add_card(cards[i]);
	if (amdgpu_ncards == 0) {
		snprintf(why, whysz, "no AMD GPU (no card with vendor 0x1002 "
		    "in /sys/class/drm)");
		return -1;
	}
	return 0;
}

static void
amdgpu_sample(const struct probe_conf *conf)
{
	struct amdgpu_card	*c;
	struct pinst		*pi;
	char			 buf[64];
	int64_t			 v;
	unsigned		 i, f;

	for (i = 0; i < amdgpu_ncards; i++) {
		c = &amdgpu_cards[i];
		pi = probe_inst(&amdgpu_group, c->name);
		for (f = 0; f < AMDGPU_NFIELDS; f++) {
			if (c->fd[f] < 0 ||
			    probe_pread(c->fd[f], buf, sizeof(buf)) <= 0 ||
			    probe_parse_i64(buf, &v) == NULL)
				continue;
			pinst_set(pi, f, v / amdgpu_files[f].div);
		}
	}
}

const struct source src_amdgpu = {
	"amdgpu", amdgpu_groups, amdgpu_init, amdgpu_sample
};
