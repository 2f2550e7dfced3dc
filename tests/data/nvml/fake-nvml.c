/* SPDX-License-Identifier: ISC */
/*
 * A stand-in for the driver's libnvidia-ml.so.1 on a machine without an
 * NVIDIA GPU, for tests of jobtop-nvml.  It implements the NVML entry
 * points jobtop-nvml uses (one name of each it looks for), with NVML's
 * ABI, and answers from the control files in $JOBTOP_FAKE_NVML, read again
 * at every call so a test can change them while the helper runs:
 *
 *	gpus	one line per GPU, '|'-separated: uuid, name, utilization (%),
 *		memory used and total (bytes), power (mW), temperature (C),
 *		SM clock (MHz), clocks event reasons (hex); "-" for a value
 *		the GPU does not support (NVML_ERROR_NOT_SUPPORTED)
 *	procs	one line per compute process: GPU index, pid, memory (bytes,
 *		"-": NVML_VALUE_NOT_AVAILABLE), SM utilization (%, "-": no
 *		sample)
 *	mig	optional, one line per MIG instance: GPU index, GPU instance
 *		id, compute instance id, UUID, memory used and total (bytes),
 *		name; a GPU with a line is in MIG mode (nvmlDeviceGetMigMode),
 *		its instances are its MIG device handles in the file's order
 *	mode	optional words: "init-fail" (nvmlInit says the driver is not
 *		loaded), "putil-unsupported" (no per-process utilization),
 *		"mig-unsupported" (nvmlDeviceGetMigMode: not supported),
 *		"crash-after N" (the process using the library exits with
 *		status 5 at the Nth utilization query, as one would that the
 *		driver brought down)
 *	log	each nvmlInit appends the calling process's pid
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define FAKE_GPUS	8
#define FAKE_PROCS	64

#define NVML_SUCCESS			0
#define NVML_ERROR_UNINITIALIZED	1
#define NVML_ERROR_INVALID_ARGUMENT	2
#define NVML_ERROR_NOT_SUPPORTED	3
#define NVML_ERROR_NOT_FOUND		6
#define NVML_ERROR_INSUFFICIENT_SIZE	7
#define NVML_ERROR_DRIVER_NOT_LOADED	9
#define NVML_ERROR_UNKNOWN		999

typedef int nvmlReturn_t;

struct nvmlDevice_st {
	unsigned	index;
	unsigned	mig;		/* a MIG device: its mig line + 1 */
};
typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct {
	unsigned int	gpu;
	unsigned int	memory;
} nvmlUtilization_t;

typedef struct {
	unsigned long long	total;
	unsigned long long	free;
	unsigned long long	used;
} nvmlMemory_t;

typedef struct {
	unsigned int		pid;
	unsigned long long	usedGpuMemory;
	unsigned int		gpuInstanceId;
	unsigned int		computeInstanceId;
} nvmlProcessInfo_t;

typedef struct {
	unsigned int		pid;
	unsigned long long	timeStamp;
	unsigned int		smUtil;
	unsigned int		memUtil;
	unsigned int		encUtil;
	unsigned int		decUtil;
} nvmlProcessUtilizationSample_t;

/* The public entry points, declared here for -Wmissing-prototypes. */
nvmlReturn_t	nvmlInit_v2(void);
nvmlReturn_t	nvmlShutdown(void);
const char	*nvmlErrorString(nvmlReturn_t);
nvmlReturn_t	nvmlDeviceGetCount_v2(unsigned int *);
nvmlReturn_t	nvmlDeviceGetHandleByIndex_v2(unsigned int, nvmlDevice_t *);
nvmlReturn_t	nvmlDeviceGetUUID(nvmlDevice_t, char *, unsigned int);
nvmlReturn_t	nvmlDeviceGetName(nvmlDevice_t, char *, unsigned int);
nvmlReturn_t	nvmlDeviceGetUtilizationRates(nvmlDevice_t,
		    nvmlUtilization_t *);
nvmlReturn_t	nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t *);
nvmlReturn_t	nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned int *);
nvmlReturn_t	nvmlDeviceGetTemperature(nvmlDevice_t, int, unsigned int *);
nvmlReturn_t	nvmlDeviceGetClockInfo(nvmlDevice_t, int, unsigned int *);
nvmlReturn_t	nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t,
		    unsigned long long *);
nvmlReturn_t	nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t,
		    unsigned int *, nvmlProcessInfo_t *);
nvmlReturn_t	nvmlDeviceGetProcessUtilization(nvmlDevice_t,
		    nvmlProcessUtilizationSample_t *, unsigned int *,
		    unsigned long long);
nvmlReturn_t	nvmlDeviceGetMigMode(nvmlDevice_t, unsigned int *,
		    unsigned int *);
nvmlReturn_t	nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t, unsigned int *);
nvmlReturn_t	nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t,
		    unsigned int, nvmlDevice_t *);
nvmlReturn_t	nvmlDeviceGetGpuInstanceId(nvmlDevice_t, unsigned int *);
nvmlReturn_t	nvmlDeviceGetComputeInstanceId(nvmlDevice_t, unsigned int *);

enum {
	F_UUID, F_NAME, F_UTIL, F_MEM_USED, F_MEM_TOTAL, F_POWER, F_TEMP,
	F_CLOCK, F_REASONS, F_NFIELDS
};

static struct nvmlDevice_st	fake_devs[FAKE_GPUS];
static struct nvmlDevice_st	fake_migs[FAKE_GPUS * 7];


static int			fake_inited;

/* Control file name into buf; NULL without $JOBTOP_FAKE_NVML. */
static const char *
fake_path(char *buf, size_t size, const char *name)
{
	const char	*dir = getenv("JOBTOP_FAKE_NVML");

	if (dir == NULL || *dir == '\0')
		return NULL;
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* Line n (from 0) of a control file, newline cut; -1 if none. */
static int
fake_line(const char *name, unsigned n, char *line, size_t size)
{
	char	 path[4096];
	FILE	*f;
	int	 found = -1;

	if (fake_path(path, sizeof(path), name) == NULL ||
	    (f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, (int)size, f) != NULL) {
		if (n-- == 0) {
			line[strcspn(line, "\n")] = '\0';
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

enum { M_GPU, M_GI, M_CI, M_UUID, M_MEM_USED, M_MEM_TOTAL, M_NAME,
    M_NFIELDS };

/* Field f of a MIG device's line, as fake_field. */
static nvmlReturn_t
fake_mig_field(nvmlDevice_t d, unsigned f, char *out, size_t size)
{
	char		 line[1024], *p, *w;
	unsigned	 i = 0;

	if (fake_line("mig", d->mig - 1, line, sizeof(line)) < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (p = line; (w = strsep(&p, "|")) != NULL; i++) {
		if (i != f)
			continue;
		snprintf(out, size, "%s", w);
		return NVML_SUCCESS;
	}
	return NVML_ERROR_UNKNOWN;
}

/* Does the mode file hold this word? */
static int
fake_mode(const char *word)
{
	char	line[256], *w, *p;

	if (fake_line("mode", 0, line, sizeof(line)) < 0)
		return 0;
	for (p = line; (w = strsep(&p, " \t")) != NULL;) {
		if (strcmp(w, word) == 0)
			return 1;
	}
	return 0;
}

/* The N of "crash-after N" in the mode file, or 0. */
static unsigned
fake_crash_after(void)
{
	char		 line[256];
	const char	*p;

	if (fake_line("mode", 0, line, sizeof(line)) < 0 ||
	    (p = strstr(line, "crash-after ")) == NULL)
		return 0;
	return (unsigned)atoi(p + 12);
}

/* Field f of a GPU's line: 0 with its text, NOT_SUPPORTED for "-". */
static nvmlReturn_t
fake_field(nvmlDevice_t d, unsigned f, char *out, size_t size)
{
	char		 line[1024], *p, *w;
	unsigned	 i = 0;

	if (!fake_inited)
		return NVML_ERROR_UNINITIALIZED;
	if (d != NULL && d->mig > 0) {
		/* A MIG device: its UUID, name and memory. */
		if (f == F_UUID)
			return fake_mig_field(d, M_UUID, out, size);
		if (f == F_NAME)
			return fake_mig_field(d, M_NAME, out, size);
		if (f == F_MEM_USED)
			return fake_mig_field(d, M_MEM_USED, out, size);
		if (f == F_MEM_TOTAL)
			return fake_mig_field(d, M_MEM_TOTAL, out, size);
		return NVML_ERROR_NOT_SUPPORTED;
	}
	if (d == NULL || fake_line("gpus", d->index, line, sizeof(line)) < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (p = line; (w = strsep(&p, "|")) != NULL; i++) {
		if (i != f)
			continue;
		if (strcmp(w, "-") == 0)
			return NVML_ERROR_NOT_SUPPORTED;
		snprintf(out, size, "%s", w);
		return NVML_SUCCESS;
	}
	return NVML_ERROR_UNKNOWN;
}

static nvmlReturn_t
fake_uint(nvmlDevice_t d, unsigned f, unsigned long long *v, int base)
{
	char		buf[128];
	nvmlReturn_t	r;

	if ((r = fake_field(d, f, buf, sizeof(buf))) != NVML_SUCCESS)
		return r;
	*v = strtoull(buf, NULL, base);
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlInit_v2(void)
{
	char	 path[4096];
	FILE	*f;

	if (fake_path(path, sizeof(path), "log") != NULL &&
	    (f = fopen(path, "a")) != NULL) {
		fprintf(f, "%ld\n", (long)getpid());
		fclose(f);
	}
	if (fake_mode("init-fail"))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	fake_inited = 1;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlShutdown(void)
{
	fake_inited = 0;
	return NVML_SUCCESS;
}

const char *
nvmlErrorString(nvmlReturn_t r)
{
	switch (r) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_UNINITIALIZED:
		return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_NOT_FOUND:
		return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	default:
		return "Unknown Error";
	}
}

nvmlReturn_t
nvmlDeviceGetCount_v2(unsigned int *n)
{
	char		line[1024];
	unsigned	i;

	if (!fake_inited)
		return NVML_ERROR_UNINITIALIZED;
	for (i = 0; i < FAKE_GPUS && fake_line("gpus", i, line,
	    sizeof(line)) == 0; i++)
		;
	*n = i;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
	unsigned int	n;

	if (nvmlDeviceGetCount_v2(&n) != NVML_SUCCESS)
		return NVML_ERROR_UNINITIALIZED;
	if (i >= n)
		return NVML_ERROR_INVALID_ARGUMENT;
	fake_devs[i].index = i;
	*d = &fake_devs[i];
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned int size)
{
	return fake_field(d, F_UUID, buf, size);
}

nvmlReturn_t
nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned int size)
{
	return fake_field(d, F_NAME, buf, size);
}

nvmlReturn_t
nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
	static unsigned		calls;
	unsigned long long	v;
	unsigned		n;
	nvmlReturn_t		r;

	if ((n = fake_crash_after()) > 0 && ++calls >= n)
		_exit(5);
	if ((r = fake_uint(d, F_UTIL, &v, 10)) == NVML_SUCCESS) {
		u->gpu = (unsigned)v;
		u->memory = 0;
	}
	return r;
}

nvmlReturn_t
nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	unsigned long long	used, total;
	nvmlReturn_t		r;

	if ((r = fake_uint(d, F_MEM_USED, &used, 10)) != NVML_SUCCESS ||
	    (r = fake_uint(d, F_MEM_TOTAL, &total, 10)) != NVML_SUCCESS)
		return r;
	m->used = used;
	m->total = total;
	m->free = total - used;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw)
{
	unsigned long long	v;
	nvmlReturn_t		r;

	if ((r = fake_uint(d, F_POWER, &v, 10)) == NVML_SUCCESS)
		*mw = (unsigned)v;
	return r;
}

nvmlReturn_t
nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *t)
{
	unsigned long long	v;
	nvmlReturn_t		r;

	if (sensor != 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = fake_uint(d, F_TEMP, &v, 10)) == NVML_SUCCESS)
		*t = (unsigned)v;
	return r;
}

nvmlReturn_t
nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz)
{
	unsigned long long	v;
	nvmlReturn_t		r;

	if (type != 1)		/* NVML_CLOCK_SM */
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = fake_uint(d, F_CLOCK, &v, 10)) == NVML_SUCCESS)
		*mhz = (unsigned)v;
	return r;
}

nvmlReturn_t
nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d,
    unsigned long long *reasons)
{
	return fake_uint(d, F_REASONS, reasons, 16);
}

/* Process k of the procs file on this GPU: 0, or -1 past the end. */
static int
fake_proc(nvmlDevice_t d, unsigned k, unsigned *pid, char *mem,
    size_t memsz, char *util, size_t utilsz)
{
	char		 line[256], *p, *gpu, *spid, *smem, *sutil;
	unsigned	 n, seen = 0;

	for (n = 0; fake_line("procs", n, line, sizeof(line)) == 0; n++) {
		p = line;
		gpu = strsep(&p, "|");
		spid = strsep(&p, "|");
		smem = strsep(&p, "|");
		sutil = strsep(&p, "|");
		if (sutil == NULL || (unsigned)atoi(gpu) != d->index)
			continue;
		if (seen++ != k)
			continue;
		*pid = (unsigned)atoi(spid);
		snprintf(mem, memsz, "%s", smem);
		snprintf(util, utilsz, "%s", sutil);
		return 0;
	}
	return -1;
}

nvmlReturn_t
nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *count,
    nvmlProcessInfo_t *infos)
{
	char		mem[64], util[64];
	unsigned	k, pid;

	if (!fake_inited)
		return NVML_ERROR_UNINITIALIZED;
	for (k = 0; fake_proc(d, k, &pid, mem, sizeof(mem), util,
	    sizeof(util)) == 0; k++) {
		if (infos == NULL || k >= *count)
			continue;
		infos[k].pid = pid;
		infos[k].usedGpuMemory = strcmp(mem, "-") == 0 ? ~0ULL :
		    strtoull(mem, NULL, 10);
		infos[k].gpuInstanceId = infos[k].computeInstanceId = ~0U;
	}
	if (infos == NULL || k > *count) {
		*count = k;
		return k == 0 ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = k;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetProcessUtilization(nvmlDevice_t d,
    nvmlProcessUtilizationSample_t *s, unsigned int *count,
    unsigned long long since)
{
	struct timeval	tv;
	char		mem[64], util[64];
	unsigned	k, n = 0, pid;

	if (!fake_inited)
		return NVML_ERROR_UNINITIALIZED;
	if (fake_mode("putil-unsupported"))
		return NVML_ERROR_NOT_SUPPORTED;
	gettimeofday(&tv, NULL);
	for (k = 0; fake_proc(d, k, &pid, mem, sizeof(mem), util,
	    sizeof(util)) == 0; k++) {
		if (strcmp(util, "-") == 0)
			continue;
		if (s != NULL && n < *count) {
			memset(&s[n], 0, sizeof(s[n]));
			s[n].pid = pid;
			/* A sample a little in the past, but in the window. */
			s[n].timeStamp = (unsigned long long)tv.tv_sec *
			    1000000 + (unsigned long long)tv.tv_usec - 1000;
			if (s[n].timeStamp <= since)
				continue;
			s[n].smUtil = (unsigned)atoi(util);
		}
		n++;
	}
	if (s == NULL || n > *count) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = n;
	return n == 0 ? NVML_ERROR_NOT_FOUND : NVML_SUCCESS;
}

/* The line of the k-th MIG instance of GPU index, or -1. */
static int
fake_mig_line(unsigned index, unsigned k)
{
	char		line[1024];
	unsigned	n, seen = 0;

	for (n = 0; fake_line("mig", n, line, sizeof(line)) == 0; n++) {
		if ((unsigned)atoi(line) != index)
			continue;
		if (seen++ == k)
			return (int)n;
	}
	return -1;
}

nvmlReturn_t
nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
	if (!fake_inited)
		return NVML_ERROR_UNINITIALIZED;
	if (d == NULL || d->mig > 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (fake_mode("mig-unsupported"))
		return NVML_ERROR_NOT_SUPPORTED;
	*cur = *pend = fake_mig_line(d->index, 0) >= 0;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *n)
{
	if (!fake_inited)
		return NVML_ERROR_UNINITIALIZED;
	if (d == NULL || d->mig > 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	*n = 7;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int k,
    nvmlDevice_t *out)
{
	int	n;

	if (!fake_inited)
		return NVML_ERROR_UNINITIALIZED;
	if (d == NULL || d->mig > 0 || k >= 7 || d->index >= FAKE_GPUS)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((n = fake_mig_line(d->index, k)) < 0)
		return NVML_ERROR_NOT_FOUND;
	fake_migs[d->index * 7 + k].index = d->index;
	fake_migs[d->index * 7 + k].mig = (unsigned)n + 1;
	*out = &fake_migs[d->index * 7 + k];
	return NVML_SUCCESS;
}

static nvmlReturn_t
fake_mig_id(nvmlDevice_t d, unsigned f, unsigned int *id)
{
	char		buf[64];
	nvmlReturn_t	r;

	if (!fake_inited)
		return NVML_ERROR_UNINITIALIZED;
	if (d == NULL || d->mig == 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((r = fake_mig_field(d, f, buf, sizeof(buf))) == NVML_SUCCESS)
		*id = (unsigned)atoi(buf);
	return r;
}

nvmlReturn_t
nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id)
{
	return fake_mig_id(d, M_GI, id);
}

nvmlReturn_t
nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id)
{
	return fake_mig_id(d, M_CI, id);
}
