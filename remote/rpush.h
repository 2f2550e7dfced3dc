/* SPDX-License-Identifier: ISC */
/*
 * rpush: the shell side of pushing the probe, kept apart from the session
 * so it can be tested without one.  Three commands run on the node through
 * the user's login shell (one line each, handed to /bin/sh so csh or fish
 * users are served too): a check that prints the machine, prepares the
 * private cache directory and describes the cached probe; an install that
 * verifies an uploaded temporary file (sent with scp, or through cat where
 * scp failed) and renames it into place; and the probe's own command line.
 * The check also removes temporary files older than ten minutes, left by
 * uploads that were cut off.
 *
 * Every command enters the cache with cd -P, checks the directory it is
 * then in (the user's own, mode 0700) and, before anything runs, every
 * directory from / down to it (OpenSSH's safe_path rule: owned by the user
 * or root, not writable by group or others unless sticky), and then names
 * files as ./name: what was checked is what runs, even if someone renames
 * a directory on the path in between.  The check prints lines the monitor
 * decides on:
 *
 *	arch x86_64
 *	dir ok                  (or "dir is a symbolic link", "dir is in an
 *	                         unsafe place: /home is writable by group
 *	                         or others", ...)
 *	file 123456 <sha256>    (or "file none"; the hash is empty when the
 *	                         node has no sha256sum, openssl or shasum,
 *	                         and then the probe is uploaded every time)
 *	helper 34232 <sha256>   (or "helper none": the probe's NVML helper,
 *	                         jobtop-nvml, when one is pushed too)
 *	killed 4242             (a stale probe of this session was stopped)
 *
 * The helper is uploaded and installed like the probe, with the same
 * commands, into the same directory.
 */
#ifndef JOBTOP_RPUSH_H
#define JOBTOP_RPUSH_H

#include <stddef.h>
#include <stdint.h>

enum rpush_verdict {
	RP_CACHED,	/* the right probe is there */
	RP_UPLOAD,	/* it is missing or different: upload */
	RP_ARCH,	/* the node's machine differs from the probe's */
	RP_DIR,		/* the cache directory is unsafe or unusable */
	RP_GARBAGE	/* the output is not what the command prints */
};

struct rpush_report {
	char		arch[64];	/* "" when not printed */
	char		dir[256];	/* "ok" or the problem */
	int		file;		/* 1 present, 0 none, -1 not printed */
	int		upload;		/* 1: install said "upload" (bad) */
	uint64_t	size;
	char		hash[65];	/* "" when unknown */
	int		helper;		/* as file, for the NVML helper */
	uint64_t	hsize;
	char		hhash[65];
	long		killed;		/* pid of a stale probe stopped */
};

/* A directory, file name or job id may hold only these characters (no
 * quoting problems in any shell): letters, digits and "_+.-/@:[]". */
int		 rpush_safe(const char *);
/* Does uname -m's answer fit the probe's machine name? */
int		 rpush_arch_ok(const char *, const char *);

/* The commands, allocated.  dir is the cache directory, name the probe's
 * file name there, tmp the upload's temporary name.
 *
 * The check: stale, when above 0, is the pid of this session's probe from
 * before its connection was lost; it is killed if it still runs that
 * probe (its sshd may not have noticed the loss yet, and would keep it).
 * helper, when not NULL, is the NVML helper's file name: the check
 * describes it too. */
char		*rpush_check_cmd(const char *, const char *, const char *,
		    long, const char *);
char		*rpush_install_cmd(const char *, const char *, const char *,
		    uint64_t, const char *);
/* The probe's command: it says "jobtop-probe-pid N" on stderr first.
 * The probe ends after watchdog seconds without a word on its stdin (0:
 * never; the monitor's heartbeat keeps it).  uid, when not below 0, is
 * the job owner's (--uid: only that user's processes are ranks); step,
 * when not NULL, the Slurm step of the job to show (--step).  helper,
 * when not NULL, is the NVML helper's file name (--nvml). */
char		*rpush_exec_cmd(const char *, const char *, const char *,
		    const char *, const char *, double, unsigned, long long,
		    const char *);
/*
 * The probe's command when it is likely cached (the usual case): a guard
 * that starts dir/name only when the directory passes the checks above
 * and the file is the user's own, no symbolic link, of size bytes and
 * sha256 hash (and, with a helper, the helper too, of hsize and hhash;
 * a node without a hash tool never passes), and otherwise says
 * "jobtop-not-cached" on stderr and exits 97, so that the caller checks
 * and pushes.  It saves the check's command on every start after the
 * first.
 */
char		*rpush_fast_cmd(const char *, const char *, uint64_t,
		    const char *, const char *, const char *, const char *,
		    double, unsigned, long long, const char *, uint64_t,
		    const char *);
#define RPUSH_NOT_CACHED	"jobtop-not-cached"
#define RPUSH_NOT_CACHED_STATUS	97
/* What the ssh transport's command needs (rpush_ssh_cmd). */
struct rpush_ssh {
	const char	*dir;		/* the cache directory */
	const char	*name;		/* the probe's file name there */
	uint64_t	 size;
	const char	*hash;
	const char	*arch;		/* the probe's machine */
	const char	*job, *step;	/* NULL: none */
	const char	*sluid;		/* the job's Slurm SLUID, or NULL */
	double		 interval;
	unsigned	 watchdog;
	long long	 uid;		/* below 0: none */
	long		 stale;		/* a lost probe's pid to end, 0 */
	const char	*helper;	/* the NVML helper's name, NULL */
	uint64_t	 hsize;
	const char	*hhash;
};
/*
 * One command that starts the cached probe, or, when it is missing or
 * different, checks the machine and the cache directory (as the check
 * does), asks for the probe on stdin ("jobtop-send 0 SIZE" on stderr, then
 * "jobtop-send 1 SIZE" for the helper), verifies and installs it (as the
 * install does) and starts it.  Its own refusals on stderr: "jobtop-arch
 * M" (exit 98), "jobtop-dir PROBLEM" (exit 99), "jobtop-bad-upload".
 */
char		*rpush_ssh_cmd(const struct rpush_ssh *);
/* Upload without scp: the data on stdin into dir/tmp. */
char		*rpush_upload_cmd(const char *, const char *);

/* Parse what check or install printed. */
void		 rpush_parse(const char *, size_t, struct rpush_report *);
/* Decide after the check (probe arch, size, hash); why gets the reason
 * for RP_ARCH, RP_DIR and RP_GARBAGE. */
enum rpush_verdict rpush_decide(const struct rpush_report *, const char *,
		    uint64_t, const char *, const char *, char *, size_t);
/* After the check: is the helper of this size and hash there? */
int		 rpush_helper_cached(const struct rpush_report *, uint64_t,
		    const char *);

#endif
