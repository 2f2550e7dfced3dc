/* SPDX-License-Identifier: ISC */
/*
 * power and ipmi: what the node draws as a whole, beside the processor's
 * own RAPL counters (src-rapl.c), which leave out GPUs, disks, fans and
 * the power supplies' losses.
 *
 * power: the hwmon power sensors, one instance of group "power" per
 * sensor, named "CHIP/LABEL" after the chip's name file and powerN_label,
 * or "CHIP/powerN" without a label (as src-thermal.c names temperatures;
 * a repeated name gets "#2").  Following the kernel's
 * Documentation/hwmon/sysfs-interface.rst, powerN_input is the
 * instantaneous power and powerN_average an average over the chip's
 * interval, both in microwatts: a sensor reads powerN_input when it has
 * one, else powerN_average.  "power" is that value (unit "uW"); "node" is
 * 1 for the meters that measure the whole node (the ACPI power meter,
 * chip "power_meter", which the BMC or the platform firmware feeds) and 0
 * for the others (GPUs, a CPU's own sensor, a PSU rail), which the monitor
 * shows but does not take for the node's power.  Sensors are found once,
 * at start-up; their files stay open.  Off, with its reason, without any.
 *
 * ipmi: the BMC's whole-node reading, group "ipmipower", one instance
 * "dcmi", through the kernel's IPMI device (/dev/ipmi0, root only on most
 * systems): the DCMI Get Power Reading command (network function 0x2C,
 * group extension; command 0x02; DCMI group 0xDC; mode 1, system power
 * statistics), sent with IPMICTL_SEND_COMMAND and collected with
 * IPMICTL_RECEIVE_MSG_TRUNC, no ipmitool.  A BMC takes milliseconds to
 * answer, so nothing waits: each sample collects the answer to the
 * previous sample's request, if it came, and sends the next; the value is
 * one interval old.  "power" is the current reading in microwatts (the
 * BMC gives watts).  Off, with its reason, without /dev/ipmi0 (no BMC, or
 * the ipmi_si and ipmi_devintf modules not loaded), when it cannot be
 * opened (not root), and under --root.  A BMC that refuses the command
 * (no DCMI, or power readings not active) is an EVENT once, after which
 * the source asks no more.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "source.h"

#define PW_MAX		64	/* sensors */
#define PW_LIST_MAX	256

enum { PW_POWER, PW_NODE, PW_NFIELDS };

static const struct field_def pw_fields[PW_NFIELDS] = {
	{ "power",	"uW",	PF_GAUGE },
	{ "node",	"",	PF_GAUGE },
};
static const struct group_def pw_group = {
	"power", pw_fields, PW_NFIELDS
};
static const struct group_def *pw_groups[] = { &pw_group, NULL };

struct pw_sensor {
	int	fd;
	int	node;
	char	name[PROTO_NAME_MAX];
};

static struct pw_sensor	pw_sensors[PW_MAX];
static unsigned		pw_n;

/* A one-line file as printable text (an instance name), without its
 * newline. */
static int
pw_read_line(const char *path, char *buf, size_t size)
{
	char	*p;

	if (probe_read_line(path, buf, size) < 0)
		return -1;
	for (p = buf; *p != '\0'; p++) {
		if (*p < ' ' || *p > '~' || *p == '"' || *p == '\\')
			*p = '_';
	}
	return 0;
}

static int
pw_taken(const char *name)
{
	unsigned	i;

	for (i = 0; i < pw_n; i++) {
		if (strcmp(pw_sensors[i].name, name) == 0)
			return 1;
	}
	return 0;
}

/* Add a sensor reading path, named name (made unique). */
static void
pw_add(const char *name, const char *path, int node)
{
	struct pw_sensor	*s;
	char			 suf[16];
	unsigned		 dup = 1;
	size_t			 len;
	int			 fd;

	if (pw_n == PW_MAX || (fd = probe_open(path)) < 0)
		return;
	s = &pw_sensors[pw_n];
	len = strlen(name);
	if (len > sizeof(s->name) - 1)
		len = sizeof(s->name) - 1;
	memcpy(s->name, name, len);
	s->name[len] = '\0';
	while (pw_taken(s->name)) {
		snprintf(suf, sizeof(suf), "#%u", ++dup);
		len = strlen(name);
		if (len > sizeof(s->name) - 1 - strlen(suf))
			len = sizeof(s->name) - 1 - strlen(suf);
		memcpy(s->name, name, len);
		memcpy(s->name + len, suf, strlen(suf) + 1);
	}
	s->fd = fd;
	s->node = node;
	pw_n++;
}

static int
pw_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	static int	 chips[PW_LIST_MAX], ins[PW_LIST_MAX], avg[PW_LIST_MAX];
	char		 dir[128], path[256], chip[PROTO_NAME_MAX];
	char		 label[PROTO_NAME_MAX], name[PROTO_NAME_MAX * 2 + 2];
	unsigned	 nc, ni, na, i, k, a;
	int		 node;

	nc = probe_list_nums("/sys/class/hwmon", "hwmon", "", chips,
	    PW_LIST_MAX);
	for (i = 0; i < nc; i++) {
		snprintf(dir, sizeof(dir), "/sys/class/hwmon/hwmon%d",
		    chips[i]);
		snprintf(path, sizeof(path), "%s/name", dir);
		if (pw_read_line(path, chip, sizeof(chip)) < 0)
			continue;
		node = strcmp(chip, "power_meter") == 0;
		ni = probe_list_nums(dir, "power", "_input", ins, PW_LIST_MAX);
		na = probe_list_nums(dir, "power", "_average", avg,
		    PW_LIST_MAX);
		/* Every N with an input or an average, ascending. */
		for (k = a = 0; k < ni || a < na; ) {
			int	num, use_in;

			if (a >= na || (k < ni && ins[k] <= avg[a])) {
				num = ins[k];
				use_in = 1;
				if (a < na && avg[a] == num)
					a++;
				k++;
			} else {
				num = avg[a++];
				use_in = 0;
			}
			snprintf(path, sizeof(path), "%s/power%d_label", dir,
			    num);
			if (pw_read_line(path, label, sizeof(label)) < 0)
				snprintf(label, sizeof(label), "power%d", num);
			snprintf(name, sizeof(name), "%s/%s", chip, label);
			snprintf(path, sizeof(path), "%s/power%d_%s", dir, num,
			    use_in ? "input" : "average");
			pw_add(name, path, node);
		}
	}
	if (pw_n == 0) {
		snprintf(why, whysz, "no hwmon power sensors");
		return -1;
	}
	return 0;
}

static void
pw_sample(const struct probe_conf *conf)
{
	struct pw_sensor	*s;
	struct pinst		*pi;
	char			 buf[64];
	int64_t			 v;
	unsigned		 i;

	for (i = 0; i < pw_n; i++) {
		s = &pw_sensors[i];
		/* A meter between readings may say EAGAIN or ENODATA. */
		if (probe_pread(s->fd, buf, sizeof(buf)) <= 0 ||
		    probe_parse_i64(buf, &v) == NULL || v < 0)
			continue;
		if ((pi = probe_inst(&pw_group, s->name)) == NULL)
			continue;
		pinst_set(pi, PW_POWER, v);
		pinst_set(pi, PW_NODE, s->node);
	}
}

const struct source src_power = {
	"power", pw_groups, pw_init, pw_sample
};

/* ipmi ------------------------------------------------------------- */

enum { IPMI_POWER, IPMI_NFIELDS };

static const struct field_def ipmi_fields[IPMI_NFIELDS] = {
	{ "power",	"uW",	PF_GAUGE },
};
static const struct group_def ipmi_group = {
	"ipmipower", ipmi_fields, IPMI_NFIELDS
};
static const struct group_def *ipmi_groups[] = { &ipmi_group, NULL };

/* <linux/ipmi.h>, which musl does not ship. */
struct ipmi_si_addr {
	int		addr_type;
	short		channel;
	unsigned char	lun;
};
struct ipmi_kmsg {
	unsigned char	 netfn;
	unsigned char	 cmd;
	unsigned short	 data_len;
	unsigned char	*data;
};
struct ipmi_kreq {
	unsigned char	*addr;
	unsigned int	 addr_len;
	long		 msgid;
	struct ipmi_kmsg msg;
};
struct ipmi_krecv {
	int		 recv_type;
	unsigned char	*addr;
	unsigned int	 addr_len;
	long		 msgid;
	struct ipmi_kmsg msg;
};
#define IPMI_SI_ADDR_TYPE	0x0c
#define IPMI_BMC_CHAN		0xf
#define IPMI_RESPONSE_TYPE	1
#define IPMI_ADDR_MAX		32
#define IPMI_SEND		_IOR('i', 13, struct ipmi_kreq)
#define IPMI_RECV_TRUNC		_IOWR('i', 11, struct ipmi_krecv)

#define DCMI_NETFN		0x2c
#define DCMI_GET_POWER		0x02
#define DCMI_GROUP		0xdc
#define DCMI_ACTIVE		0x40	/* power measurement active */

static int	ipmi_fd = -1;
static int	ipmi_pending;		/* a request awaits its answer */
static int	ipmi_done;		/* the BMC refused: ask no more */
static long	ipmi_msgid;
static int64_t	ipmi_uw = -1;		/* the latest reading */

/*
 * Decode a Get Power Reading response (DCMI 1.5, table 6-16; its data:
 * the completion code, then the group 0xDC, current, minimum, maximum and
 * average watts as 16-bit little-endian numbers, a timestamp and a period
 * of 4 bytes each, and the reading state: 19 bytes).  0 with the current
 * watts, else -1 with why.
 */
static int
ipmi_dcmi_decode(const unsigned char *d, size_t len, unsigned *watts,
    char *why, size_t whysz)
{
	if (len < 1) {
		snprintf(why, whysz, "an empty answer");
		return -1;
	}
	if (d[0] != 0) {
		snprintf(why, whysz, "completion code 0x%02X%s", d[0],
		    d[0] == 0xc1 ? " (no DCMI power reading)" : "");
		return -1;
	}
	if (len < 19) {
		snprintf(why, whysz, "an answer of %zu bytes, not 19", len);
		return -1;
	}
	if (d[1] != DCMI_GROUP) {
		snprintf(why, whysz, "group 0x%02X, not DCMI's 0xDC", d[1]);
		return -1;
	}
	if ((d[18] & DCMI_ACTIVE) == 0) {
		snprintf(why, whysz, "power measurement is not active on the "
		    "BMC");
		return -1;
	}
	*watts = (unsigned)d[2] | (unsigned)d[3] << 8;
	return 0;
}

/* Send the request; -1 with errno. */
static int
ipmi_send(void)
{
	struct ipmi_si_addr	a;
	struct ipmi_kreq	r;
	unsigned char		data[4] = { DCMI_GROUP, 0x01, 0x00, 0x00 };

	memset(&a, 0, sizeof(a));
	a.addr_type = IPMI_SI_ADDR_TYPE;
	a.channel = IPMI_BMC_CHAN;
	memset(&r, 0, sizeof(r));
	r.addr = (unsigned char *)&a;
	r.addr_len = sizeof(a);
	r.msgid = ++ipmi_msgid;
	r.msg.netfn = DCMI_NETFN;
	r.msg.cmd = DCMI_GET_POWER;
	r.msg.data = data;
	r.msg.data_len = sizeof(data);
	return ioctl(ipmi_fd, IPMI_SEND, &r);
}

/* Collect answers that came (the fd is non-blocking); the latest reading
 * into ipmi_uw. */
static void
ipmi_collect(void)
{
	struct ipmi_krecv	r;
	unsigned char		addr[IPMI_ADDR_MAX], data[64];
	char			why[96];
	unsigned		w;

	for (;;) {
		memset(&r, 0, sizeof(r));
		r.addr = addr;
		r.addr_len = sizeof(addr);
		r.msg.data = data;
		r.msg.data_len = sizeof(data);
		if (ioctl(ipmi_fd, IPMI_RECV_TRUNC, &r) < 0) {
			if (errno == EINTR)
				continue;
			return;		/* EAGAIN: nothing (yet) */
		}
		if (r.recv_type != IPMI_RESPONSE_TYPE ||
		    r.msg.netfn != (DCMI_NETFN | 1) ||
		    r.msg.cmd != DCMI_GET_POWER)
			continue;
		if (r.msgid == ipmi_msgid)
			ipmi_pending = 0;
		if (ipmi_dcmi_decode(data, r.msg.data_len > sizeof(data) ?
		    sizeof(data) : r.msg.data_len, &w, why, sizeof(why)) < 0) {
			probe_event(EV_WARN, "ipmi-dcmi", "the BMC gives no "
			    "power reading (%s); node power from IPMI is "
			    "absent", why);
			ipmi_done = 1;
			ipmi_uw = -1;
			return;
		}
		ipmi_uw = (int64_t)w * 1000000;
	}
}

static int
ipmi_init(const struct probe_conf *conf, char *why, size_t whysz)
{
	if (conf->root[0] != '\0') {
		snprintf(why, whysz, "a BMC is this node's, not --root's");
		return -1;
	}
	if ((ipmi_fd = open("/dev/ipmi0", O_RDWR | O_NONBLOCK | O_CLOEXEC)) <
	    0) {
		if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
			snprintf(why, whysz, "no /dev/ipmi0 (no BMC, or the "
			    "ipmi_si and ipmi_devintf modules are not "
			    "loaded)");
		else if (errno == EACCES || errno == EPERM)
			snprintf(why, whysz, "/dev/ipmi0 needs root");
		else
			snprintf(why, whysz, "/dev/ipmi0: %s",
			    strerror(errno));
		return -1;
	}
	return 0;
}

static void
ipmi_sample(const struct probe_conf *conf)
{
	struct pinst	*pi;

	if (ipmi_done)
		return;
	ipmi_collect();
	/* No answer for two intervals: the reading is too old to show. */
	if (ipmi_pending >= 3)
		ipmi_uw = -1;
	if (ipmi_uw >= 0 && (pi = probe_inst(&ipmi_group, "dcmi")) != NULL)
		pinst_set(pi, IPMI_POWER, ipmi_uw);
	/* One request in flight; a lost one is asked again after 10. */
	if (!ipmi_done && (!ipmi_pending || ++ipmi_pending > 10)) {
		if (ipmi_send() < 0) {
			probe_event(EV_WARN, "ipmi-send", "cannot ask the BMC "
			    "for power: %s", strerror(errno));
			ipmi_done = 1;
			return;
		}
		ipmi_pending = 1;
	}
}

const struct source src_ipmi = {
	"ipmi", ipmi_groups, ipmi_init, ipmi_sample
};
