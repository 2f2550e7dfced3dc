/* SPDX-License-Identifier: ISC */
/*
 * jobtop-nvml: NVIDIA GPUs through NVML, for the probe.  The probe is a
 * static musl binary and cannot load the driver's glibc libnvidia-ml.so.1;
 * this small helper is a dynamic glibc program that can.  It needs no NVML
 * headers and no driver at build time: it dlopens libnvidia-ml.so.1 at run
 * time and resolves the few entry points it uses (declared below as NVML's
 * documented ABI has them), as nvtop does.
 *
 * The probe's nvgpu source runs it as a child and reads its standard
 * output, lines in the format of the nvidia-smi stream that source already
 * parses (see probes/NVIDIA.md), once per interval:
 *
 *	0, GPU-5f3e..., 37, 1234, 81559, 69.540, 33, 1980, 0x00...04, NVIDIA H100
 *	proc, GPU-5f3e..., 4242, 1024, 12
 *	mig, GPU-5f3e..., 1, 0, MIG-2a3b..., 512, 19968, NVIDIA H100 MIG 2g.20gb
 *	end
 *
 * A GPU line is index, UUID, utilization (%), memory used and total (MiB),
 * power (W, to the milliwatt), temperature (C), SM clock (MHz), the clocks
 * event (throttle) reasons bitmask, and the name.  A proc line is a process
 * with a compute context: its GPU's UUID, pid, GPU memory (MiB) and SM
 * utilization (%, the mean of NVML's samples over the last second, or the
 * last interval if longer; 0 for a process without a sample).  A mig line
 * is a MIG instance of a GPU in MIG mode (nvmlDeviceGetMigMode, then its
 * MIG device handles): the parent GPU's UUID, the GPU and compute
 * instance ids, the instance's UUID, its memory used and total (MiB) and
 * its name.  "end" closes
 * the interval's set.  A value NVML does not have is "[N/A]", never 0.
 *
 * It exits with a message on standard error and a non-zero status when the
 * library is missing (2), NVML cannot start (3) or there is no GPU (4), so
 * the probe can fall back to nvidia-smi; it ends when its output closes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define NVML_LIB		"libnvidia-ml.so.1"
#define NVML_GPUS_MAX		64
#define NVML_BUF		96	/* NVML's *_V2_BUFFER_SIZE */
#define NVML_PROCS_MAX		1024	/* per GPU, per call */
#define NVML_UTIL_WINDOW_US	1000000ULL

/* NVML's return codes and constants (nvml.h). */
#define NVML_SUCCESS			0
#define NVML_ERROR_NOT_SUPPORTED	3
#define NVML_ERROR_NOT_FOUND		6
#define NVML_TEMPERATURE_GPU		0
#define NVML_CLOCK_SM			1
#define NVML_VALUE_NOT_AVAILABLE	(~0ULL)
#define NVML_DEVICE_MIG_ENABLE		1

typedef int nvml_ret;
typedef void *nvml_dev;

struct nvml_util {
	unsigned int		gpu;
	unsigned int		memory;
};

struct nvml_mem {
	unsigned long long	total;
	unsigned long long	free;
	unsigned long long	used;
};

/* nvmlProcessUtilizationSample_t. */
struct nvml_psample {
	unsigned int		pid;
	unsigned long long	time_us;
	unsigned int		sm;
	unsigned int		mem;
	unsigned int		enc;
	unsigned int		dec;
};

/* The entry points, NULL when the library lacks one. */
static struct {
	nvml_ret	(*init)(void);
	nvml_ret	(*shutdown)(void);
	const char	*(*error_string)(nvml_ret);
	nvml_ret	(*count)(unsigned int *);
	nvml_ret	(*handle)(unsigned int, nvml_dev *);
	nvml_ret	(*uuid)(nvml_dev, char *, unsigned int);
	nvml_ret	(*name)(nvml_dev, char *, unsigned int);
	nvml_ret	(*util)(nvml_dev, struct nvml_util *);
	nvml_ret	(*memory)(nvml_dev, struct nvml_mem *);
	nvml_ret	(*power)(nvml_dev, unsigned int *);
	nvml_ret	(*temp)(nvml_dev, int, unsigned int *);
	nvml_ret	(*clock)(nvml_dev, int, unsigned int *);
	nvml_ret	(*reasons)(nvml_dev, unsigned long long *);
	nvml_ret	(*procs)(nvml_dev, unsigned int *, void *);
	nvml_ret	(*putil)(nvml_dev, struct nvml_psample *,
			    unsigned int *, unsigned long long);
	/* MIG: the mode, the MIG devices of a GPU and their ids. */
	nvml_ret	(*mig_mode)(nvml_dev, unsigned int *, unsigned int *);
	nvml_ret	(*mig_max)(nvml_dev, unsigned int *);
	nvml_ret	(*mig_handle)(nvml_dev, unsigned int, nvml_dev *);
	nvml_ret	(*mig_gi)(nvml_dev, unsigned int *);
	nvml_ret	(*mig_ci)(nvml_dev, unsigned int *);
} nv;

/* The size of one nvmlProcessInfo entry of the procs call found: 24
 * bytes for _v3 and _v2 (pid, memory, GPU and compute instance ids), 16
 * for the first version (pid, memory).  pid is at 0, memory at 8. */
static size_t		 nvml_pstride;

struct nvml_gpu {
	nvml_dev		 dev;
	char			 uuid[NVML_BUF];
	char			 name[NVML_BUF];
};

static struct nvml_gpu	 gpus[NVML_GPUS_MAX];
static unsigned		 ngpus;
static unsigned char	 pbuf[NVML_PROCS_MAX * 24];
static struct nvml_psample samples[NVML_PROCS_MAX];

static void
nvml_usage(FILE *f)
{
	fprintf(f, "usage: jobtop-nvml [--interval-ms MS] [--count N]\n");
}

/* The first of the names the library has. */
static void *
nvml_sym(void *lib, const char *a, const char *b, const char *c)
{
	void	*p = NULL;

	if (a != NULL && (p = dlsym(lib, a)) == NULL && b != NULL &&
	    (p = dlsym(lib, b)) == NULL && c != NULL)
		p = dlsym(lib, c);
	return p;
}

/* Load the library and find the entry points: 0, or -1 with a message. */
static int
nvml_load(void)
{
	void	*lib;

	if ((lib = dlopen(NVML_LIB, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		fprintf(stderr, "jobtop-nvml: cannot load %s: %s\n", NVML_LIB,
		    dlerror());
		return -1;
	}
	*(void **)&nv.init = nvml_sym(lib, "nvmlInit_v2", "nvmlInit", NULL);
	*(void **)&nv.shutdown = nvml_sym(lib, "nvmlShutdown", NULL, NULL);
	*(void **)&nv.error_string = nvml_sym(lib, "nvmlErrorString", NULL,
	    NULL);
	*(void **)&nv.count = nvml_sym(lib, "nvmlDeviceGetCount_v2",
	    "nvmlDeviceGetCount", NULL);
	*(void **)&nv.handle = nvml_sym(lib, "nvmlDeviceGetHandleByIndex_v2",
	    "nvmlDeviceGetHandleByIndex", NULL);
	*(void **)&nv.uuid = nvml_sym(lib, "nvmlDeviceGetUUID", NULL, NULL);
	*(void **)&nv.name = nvml_sym(lib, "nvmlDeviceGetName", NULL, NULL);
	*(void **)&nv.util = nvml_sym(lib, "nvmlDeviceGetUtilizationRates",
	    NULL, NULL);
	*(void **)&nv.memory = nvml_sym(lib, "nvmlDeviceGetMemoryInfo", NULL,
	    NULL);
	*(void **)&nv.power = nvml_sym(lib, "nvmlDeviceGetPowerUsage", NULL,
	    NULL);
	*(void **)&nv.temp = nvml_sym(lib, "nvmlDeviceGetTemperature", NULL,
	    NULL);
	*(void **)&nv.clock = nvml_sym(lib, "nvmlDeviceGetClockInfo", NULL,
	    NULL);
	*(void **)&nv.reasons = nvml_sym(lib,
	    "nvmlDeviceGetCurrentClocksEventReasons",
	    "nvmlDeviceGetCurrentClocksThrottleReasons", NULL);
	nvml_pstride = 24;
	if ((*(void **)&nv.procs = nvml_sym(lib,
	    "nvmlDeviceGetComputeRunningProcesses_v3",
	    "nvmlDeviceGetComputeRunningProcesses_v2", NULL)) == NULL) {
		*(void **)&nv.procs = nvml_sym(lib,
		    "nvmlDeviceGetComputeRunningProcesses", NULL, NULL);
		nvml_pstride = 16;
	}
	*(void **)&nv.putil = nvml_sym(lib, "nvmlDeviceGetProcessUtilization",
	    NULL, NULL);
	*(void **)&nv.mig_mode = nvml_sym(lib, "nvmlDeviceGetMigMode", NULL,
	    NULL);
	*(void **)&nv.mig_max = nvml_sym(lib, "nvmlDeviceGetMaxMigDeviceCount",
	    NULL, NULL);
	*(void **)&nv.mig_handle = nvml_sym(lib,
	    "nvmlDeviceGetMigDeviceHandleByIndex", NULL, NULL);
	*(void **)&nv.mig_gi = nvml_sym(lib, "nvmlDeviceGetGpuInstanceId",
	    NULL, NULL);
	*(void **)&nv.mig_ci = nvml_sym(lib, "nvmlDeviceGetComputeInstanceId",
	    NULL, NULL);
	if (nv.init == NULL || nv.count == NULL || nv.handle == NULL) {
		fprintf(stderr, "jobtop-nvml: %s lacks nvmlInit, "
		    "nvmlDeviceGetCount or nvmlDeviceGetHandleByIndex\n",
		    NVML_LIB);
		return -1;
	}
	return 0;
}

static const char *
nvml_strerror(nvml_ret r)
{
	static char	buf[32];

	if (nv.error_string != NULL)
		return nv.error_string(r);
	snprintf(buf, sizeof(buf), "NVML error %d", r);
	return buf;
}

/* A string of the device, "" when NVML has none; no commas in a UUID. */
static void
nvml_string(nvml_ret (*fn)(nvml_dev, char *, unsigned int), nvml_dev dev,
    char *buf)
{
	buf[0] = '\0';
	if (fn == NULL || fn(dev, buf, NVML_BUF) != NVML_SUCCESS)
		buf[0] = '\0';
	buf[NVML_BUF - 1] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
}

/* Start NVML and list the GPUs: 0, or an exit status after a message. */
static int
nvml_start(void)
{
	unsigned int	n, i;
	nvml_ret	r;

	if ((r = nv.init()) != NVML_SUCCESS) {
		fprintf(stderr, "jobtop-nvml: nvmlInit failed: %s\n",
		    nvml_strerror(r));
		return 3;
	}
	if ((r = nv.count(&n)) != NVML_SUCCESS) {
		fprintf(stderr, "jobtop-nvml: nvmlDeviceGetCount failed: %s\n",
		    nvml_strerror(r));
		return 3;
	}
	if (n > NVML_GPUS_MAX)
		n = NVML_GPUS_MAX;
	for (i = 0; i < n; i++) {
		if ((r = nv.handle(i, &gpus[i].dev)) != NVML_SUCCESS) {
			/* A lost GPU keeps its index; it has no line. */
			fprintf(stderr, "jobtop-nvml: GPU %u: %s\n", i,
			    nvml_strerror(r));
			gpus[i].dev = NULL;
			continue;
		}
		nvml_string(nv.uuid, gpus[i].dev, gpus[i].uuid);
		if (strchr(gpus[i].uuid, ',') != NULL)
			gpus[i].uuid[0] = '\0';
		nvml_string(nv.name, gpus[i].dev, gpus[i].name);
	}
	ngpus = n;
	if (n == 0) {
		fprintf(stderr, "jobtop-nvml: NVML found no GPU\n");
		return 4;
	}
	return 0;
}

static unsigned long long
nvml_wall_us(void)
{
	struct timeval	tv;

	gettimeofday(&tv, NULL);
	return (unsigned long long)tv.tv_sec * 1000000 +
	    (unsigned long long)tv.tv_usec;
}

/* One GPU's line. */
static void
nvml_gpu_line(unsigned i)
{
	struct nvml_gpu		*g = &gpus[i];
	struct nvml_util	 u;
	struct nvml_mem		 m;
	unsigned int		 v;
	unsigned long long	 x;

	printf("%u, %s, ", i, g->uuid[0] != '\0' ? g->uuid : "[N/A]");
	if (nv.util != NULL && nv.util(g->dev, &u) == NVML_SUCCESS)
		printf("%u, ", u.gpu);
	else
		printf("[N/A], ");
	if (nv.memory != NULL && nv.memory(g->dev, &m) == NVML_SUCCESS)
		printf("%llu, %llu, ", m.used >> 20, m.total >> 20);
	else
		printf("[N/A], [N/A], ");
	if (nv.power != NULL && nv.power(g->dev, &v) == NVML_SUCCESS)
		printf("%u.%03u, ", v / 1000, v % 1000);
	else
		printf("[N/A], ");
	if (nv.temp != NULL && nv.temp(g->dev, NVML_TEMPERATURE_GPU, &v) ==
	    NVML_SUCCESS)
		printf("%u, ", v);
	else
		printf("[N/A], ");
	if (nv.clock != NULL && nv.clock(g->dev, NVML_CLOCK_SM, &v) ==
	    NVML_SUCCESS)
		printf("%u, ", v);
	else
		printf("[N/A], ");
	if (nv.reasons != NULL && nv.reasons(g->dev, &x) == NVML_SUCCESS)
		printf("0x%016llx, ", x);
	else
		printf("[N/A], ");
	printf("%s\n", g->name[0] != '\0' ? g->name : "[N/A]");
}

/* The process utilization samples of the window: their count, or -1 when
 * NVML cannot tell (not supported, or an error). */
static int
nvml_samples(nvml_dev dev, unsigned long long since)
{
	unsigned int	n = NVML_PROCS_MAX;
	nvml_ret	r;

	if (nv.putil == NULL)
		return -1;
	r = nv.putil(dev, samples, &n, since);
	if (r == NVML_ERROR_NOT_FOUND)
		return 0;	/* no sample: nothing ran */
	if (r != NVML_SUCCESS)
		return -1;	/* more than the buffer holds, too */
	return n > NVML_PROCS_MAX ? NVML_PROCS_MAX : (int)n;
}

/* One GPU's compute processes, with their memory and SM utilization. */
static void
nvml_proc_lines(unsigned i, unsigned long long window)
{
	struct nvml_gpu		*g = &gpus[i];
	unsigned long long	 mem, sum, since;
	unsigned int		 n = NVML_PROCS_MAX, pid, cnt, k, j;
	int			 ns;
	nvml_ret		 r;

	if (nv.procs == NULL || g->uuid[0] == '\0')
		return;
	r = nv.procs(g->dev, &n, pbuf);
	if (r != NVML_SUCCESS || n == 0)
		return;		/* too many for the buffer: none listed */
	if (n > NVML_PROCS_MAX)
		n = NVML_PROCS_MAX;
	since = nvml_wall_us() - window;
	ns = nvml_samples(g->dev, since);
	for (k = 0; k < n; k++) {
		memcpy(&pid, pbuf + k * nvml_pstride, sizeof(pid));
		memcpy(&mem, pbuf + k * nvml_pstride + 8, sizeof(mem));
		printf("proc, %s, %u, ", g->uuid, pid);
		if (mem != NVML_VALUE_NOT_AVAILABLE)
			printf("%llu, ", mem >> 20);
		else
			printf("[N/A], ");
		if (ns < 0) {
			printf("[N/A]\n");
			continue;
		}
		sum = cnt = 0;
		for (j = 0; j < (unsigned)ns; j++) {
			if (samples[j].pid == pid && samples[j].time_us >
			    since) {
				sum += samples[j].sm;
				cnt++;
			}
		}
		printf("%llu\n", cnt > 0 ? (sum + cnt / 2) / cnt : 0);
	}
}

/* A GPU's MIG instances, when it is in MIG mode (nothing otherwise, or
 * when the driver lacks the calls). */
static void
nvml_mig_lines(unsigned i)
{
	struct nvml_gpu	*g = &gpus[i];
	struct nvml_mem	 m;
	nvml_dev	 mig;
	unsigned int	 cur, pend, max, k, gi, ci;
	char		 uuid[NVML_BUF], name[NVML_BUF];

	if (nv.mig_mode == NULL || nv.mig_max == NULL ||
	    nv.mig_handle == NULL || g->uuid[0] == '\0' ||
	    nv.mig_mode(g->dev, &cur, &pend) != NVML_SUCCESS ||
	    cur != NVML_DEVICE_MIG_ENABLE ||
	    nv.mig_max(g->dev, &max) != NVML_SUCCESS)
		return;
	for (k = 0; k < max && k < NVML_GPUS_MAX; k++) {
		if (nv.mig_handle(g->dev, k, &mig) != NVML_SUCCESS)
			continue;	/* no instance in that slot */
		nvml_string(nv.uuid, mig, uuid);
		nvml_string(nv.name, mig, name);
		if (strchr(uuid, ',') != NULL)
			uuid[0] = '\0';
		printf("mig, %s, ", g->uuid);
		if (nv.mig_gi != NULL && nv.mig_gi(mig, &gi) == NVML_SUCCESS)
			printf("%u, ", gi);
		else
			printf("[N/A], ");
		if (nv.mig_ci != NULL && nv.mig_ci(mig, &ci) == NVML_SUCCESS)
			printf("%u, ", ci);
		else
			printf("[N/A], ");
		printf("%s, ", uuid[0] != '\0' ? uuid : "[N/A]");
		if (nv.memory != NULL && nv.memory(mig, &m) == NVML_SUCCESS)
			printf("%llu, %llu, ", m.used >> 20, m.total >> 20);
		else
			printf("[N/A], [N/A], ");
		printf("%s\n", name[0] != '\0' ? name : "[N/A]");
	}
}

/* Move the deadline on by ms and sleep until it; after a stall (a slow
 * driver) start again from now rather than burst. */
static void
nvml_sleep(struct timespec *t, long ms)
{
	struct timespec	now;

	t->tv_sec += ms / 1000;
	t->tv_nsec += (ms % 1000) * 1000000;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec &&
	    now.tv_nsec > t->tv_nsec)) {
		*t = now;
		return;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) ==
	    EINTR)
		;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "count",	required_argument, NULL, 'c' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct timespec		 next;
	unsigned long long	 window;
	long			 ms = 1000, count = 0, done;
	unsigned		 i;
	char			*end;
	int			 ch, rc;

	while ((ch = getopt_long(argc, argv, "i:c:h", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'i':
			errno = 0;
			ms = strtol(optarg, &end, 10);
			if (*end != '\0' || errno != 0 || ms < 10 ||
			    ms > 86400000) {
				fprintf(stderr, "jobtop-nvml: bad interval: "
				    "%s\n", optarg);
				return 1;
			}
			break;
		case 'c':
			errno = 0;
			count = strtol(optarg, &end, 10);
			if (*end != '\0' || errno != 0 || count < 0) {
				fprintf(stderr, "jobtop-nvml: bad count: %s\n",
				    optarg);
				return 1;
			}
			break;
		case 'h':
			nvml_usage(stdout);
			return 0;
		default:
			nvml_usage(stderr);
			return 1;
		}
	}
	if (optind != argc) {
		nvml_usage(stderr);
		return 1;
	}
	/* A closed output ends the helper. */
	signal(SIGPIPE, SIG_DFL);
	if (nvml_load() < 0)
		return 2;
	if ((rc = nvml_start()) != 0)
		return rc;
	window = (unsigned long long)ms * 1000;
	if (window < NVML_UTIL_WINDOW_US)
		window = NVML_UTIL_WINDOW_US;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (done = 0; count == 0 || done < count; done++) {
		for (i = 0; i < ngpus; i++) {
			if (gpus[i].dev != NULL)
				nvml_gpu_line(i);
		}
		for (i = 0; i < ngpus; i++) {
			if (gpus[i].dev != NULL)
				nvml_proc_lines(i, window);
		}
		for (i = 0; i < ngpus; i++) {
			if (gpus[i].dev != NULL)
				nvml_mig_lines(i);
		}
		printf("end\n");
		if (fflush(stdout) != 0)
			break;
		if (count != 0 && done + 1 >= count)
			break;
		nvml_sleep(&next, ms);
	}
	if (nv.shutdown != NULL)
		nv.shutdown();
	return 0;
}
