/* SPDX-License-Identifier: ISC */
/*
 * thermal: the node's temperature sensors, one instance of group "temp"
 * per sensor, in millidegrees Celsius (unit "celsius-milli") as the
 * kernel gives them.  Two sysfs classes hold them:
 *  - thermal zones, /sys/class/thermal/thermal_zoneN: named by their type
 *    ("x86_pkg_temp", "acpitz"), their temp file read every sample; the
 *    critical trip point (trip_point_K_type "critical") is crit.
 *  - hwmon chips, /sys/class/hwmon/hwmonN: each tempK_input is a sensor
 *    named "CHIP/LABEL" after the chip's name file and tempK_label
 *    ("coretemp/Package id 0", "nvme/Composite"), or "CHIP/tempK" without
 *    a label; tempK_crit is crit.
 * The kernel mirrors thermal zones as hwmon chips named after the zone
 * type ('-' turned into '_'): those chips are left out, as the zones are
 * already there.  Where two sensors would have one name (two acpitz zones,
 * the "Core 0" of each socket's coretemp) the later ones get "#2", "#3" in
 * the order of the sysfs numbers.  Sensors are found once, at start-up;
 * their input files stay open.  A sensor whose read fails this sample (a
 * zone of a device that is powered down says EAGAIN or ENODATA) has no
 * value this sample.  Most reads cost microseconds; a few drivers ask the
 * device each time (nvme sends the drive a log page request, drivetemp a
 * SMART command), which makes them the slow part of a sample.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

#define THERM_MAX	256	/* sensors */
#define THERM_LIST_MAX	256	/* entries of one directory looked at */
#define THERM_TRIPS	32	/* trip points of a zone looked at */

enum { THERM_TEMP, THERM_CRIT, THERM_NFIELDS };

static const struct field_def therm_fields[THERM_NFIELDS] = {
	{ "temp",	"celsius-milli",	PF_GAUGE },
	{ "crit",	"celsius-milli",	PF_GAUGE },
};
static const struct group_def therm_group = {
	"temp", therm_fields, THERM_NFIELDS
};
static const struct group_def *therm_groups[] = { &therm_group, NULL };

struct therm_sensor {
	int		fd;
	int		has_crit;
	int64_t		crit;
	char		name[PROTO_NAME_MAX];
};

static struct therm_sensor	therm_sensors[THERM_MAX];
static unsigned			therm_n;
/* Zone types, as the hwmon mirror of a zone spells them. */
static char			therm_ztypes[THERM_MAX][PROTO_NAME_MAX];
static unsigned			therm_nztypes;

/* A file holding one signed number. */
static int
therm_read_i64(const char *path, int64_t *v)
{
	char	buf[64];

	if (probe_read_file(path, buf, sizeof(buf)) <= 0 ||
	    probe_parse_i64(buf, v) == NULL)
		return -1;
	return 0;
}

/* Is an instance name already given to a sensor? */
static int
therm_taken(const char *name)
{
	unsigned	i;

	for (i = 0; i < therm_n; i++) {
		if (strcmp(therm_sensors[i].name, name) == 0)
			return 1;
	}
	return 0;
}

/* Add a sensor named name (made unique and printable) reading path. */
static void
therm_add(const char *name, const char *path, int has_crit, int64_t crit)
{
	struct therm_sensor	*s;
	char			 base[PROTO_NAME_MAX], suf[16];
	unsigned		 dup = 1;
	size_t			 len;
	char			*p;
	int			 fd;

	if (therm_n == THERM_MAX || (fd = probe_open(path)) < 0)
		return;
	snprintf(base, sizeof(base), "%s", name);
	for (p = base; *p != '\0'; p++) {
		if (*p < ' ' || *p > '~' || *p == '"' || *p == '\\')
			*p = '_';
	}
	s = &therm_sensors[therm_n];
	snprintf(s->name, sizeof(s->name), "%s", base);
	while (therm_taken(s->name)) {
		snprintf(suf, sizeof(suf), "#%u", ++dup);
		len = strlen(base);
		if (len > sizeof(s->name) - 1 - strlen(suf))
			len = sizeof(s->name) - 1 - strlen(suf);
		memcpy(s->name, base, len);
		memcpy(s->name + len, suf, strlen(suf) + 1);
	}
	s->fd = fd;
	s->has_crit = has_crit;
	s->crit = crit;
	therm_n++;
}

/* The thermal zones, with their critical trip points. */
static void
therm_find_zones(void)
{
	static int	 zones[THERM_LIST_MAX];
	char		 dir[128], path[256], type[PROTO_NAME_MAX], tt[32];
	unsigned	 nz, i, k;
	int64_t		 crit = 0, t;
	int		 has_crit;
	char		*p;

	nz = probe_list_nums("/sys/class/thermal", "thermal_zone", "", zones,
	    THERM_LIST_MAX);
	for (i = 0; i < nz; i++) {
		snprintf(dir, sizeof(dir), "/sys/class/thermal/thermal_zone%d",
		    zones[i]);
		snprintf(path, sizeof(path), "%s/type", dir);
		if (probe_read_line(path, type, sizeof(type)) < 0)
			continue;
		has_crit = 0;
		for (k = 0; k < THERM_TRIPS; k++) {
			snprintf(path, sizeof(path), "%s/trip_point_%u_type",
			    dir, k);
			if (probe_read_line(path, tt, sizeof(tt)) < 0)
				break;
			snprintf(path, sizeof(path), "%s/trip_point_%u_temp",
			    dir, k);
			if (strcmp(tt, "critical") == 0 &&
			    therm_read_i64(path, &t) == 0) {
				crit = t;
				has_crit = 1;
				break;
			}
		}
		snprintf(path, sizeof(path), "%s/temp", dir);
		therm_add(type, path, has_crit, crit);
		if (therm_nztypes < THERM_MAX) {
			p = therm_ztypes[therm_nztypes++];
			snprintf(p, PROTO_NAME_MAX, "%s", type);
			for (; *p != '\0'; p++) {
				if (*p == '-')
					*p = '_';
			}
		}
	}
}

/* Is a hwmon chip of this name the mirror of a thermal zone? */
static int
therm_is_zone_mirror(const char *chip)
{
	unsigned	i;

	for (i = 0; i < therm_nztypes; i++) {
		if (strcmp(therm_ztypes[i], chip) == 0)
			return 1;
	}
	return 0;
}

/* The temperature inputs of the hwmon chips. */
static void
therm_find_hwmon(void)
{
	static int	 chips[THERM_LIST_MAX], temps[THERM_LIST_MAX];
	char		 dir[128], path[256], chip[PROTO_NAME_MAX];
	char		 label[PROTO_NAME_MAX], name[PROTO_NAME_MAX * 2 + 2];
	unsigned	 nc, nt, i, k;
	int64_t		 crit;
	int		 has_crit;

	nc = probe_list_nums("/sys/class/hwmon", "hwmon", "", chips,
	    THERM_LIST_MAX);
	for (i = 0; i < nc; i++) {
		snprintf(dir, sizeof(dir), "/sys/class/hwmon/hwmon%d",
		    chips[i]);
		snprintf(path, sizeof(path), "%s/name", dir);
		if (probe_read_line(path, chip, sizeof(chip)) < 0 ||
		    therm_is_zone_mirror(chip))
			continue;
		nt = probe_list_nums(dir, "temp", "_input", temps,
		    THERM_LIST_MAX);
		for (k = 0; k < nt; k++) {
			snprintf(path, sizeof(path), "%s/temp%d_label", dir,
			    temps[k]);
			if (probe_read_line(path, label, sizeof(label)) < 0)
				snprintf(label, sizeof(label), "temp%d",
				    temps[k]);
			snprintf(path, sizeof(path), "%s/temp%d_crit", dir,
			    temps[k]);
			has_crit = therm_read_i64(path, &crit) == 0;
			snprintf(name, sizeof(name), "%s/%s", chip, label);
			snprintf(path, sizeof(path), "%s/temp%d_input", dir,
			    temps[k]);
			therm_add(name, path, has_crit, has_crit ? crit : 0);
		}
	}
}

static int
therm_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	therm_find_zones();
	therm_find_hwmon();
	if (therm_n == 0) {
		snprintf(why, whysz, "no thermal zones or hwmon temperature "
		    "sensors");
		return -1;
	}
	return 0;
}

static void
therm_sample(const struct probe_conf *conf)
{
	struct therm_sensor	*s;
	struct pinst		*pi;
	char			 buf[64];
	int64_t			 v;
	unsigned		 i;

	for (i = 0; i < therm_n; i++) {
		s = &therm_sensors[i];
		if (probe_pread(s->fd, buf, sizeof(buf)) <= 0 ||
		    probe_parse_i64(buf, &v) == NULL)
			continue;
		pi = probe_inst(&therm_group, s->name);
		pinst_set(pi, THERM_TEMP, v);
		if (s->has_crit)
			pinst_set(pi, THERM_CRIT, s->crit);
	}
}

const struct source src_thermal = {
	"thermal", therm_groups, therm_init, therm_sample
};
