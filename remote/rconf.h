/* SPDX-License-Identifier: ISC */
/*
 * rconf: what every SSH session of one monitor shares.  The caller fills
 * the public fields (rconf_init sets the defaults ssh would use), then
 * rconf_ready reads the probe binary (hash, architecture), the ssh_config
 * files and the known_hosts files once for all nodes.  The shared counter
 * of sessions between CONNECT and EXEC lives here too: it is the fan-out
 * limit (pdsh's 32), so a job of a thousand nodes never has a thousand
 * key exchanges in flight.
 *
 * String fields are owned by the rconf: replace one with free() and a new
 * allocation (xstrdup), or set it to NULL where NULL is allowed.  Change
 * nothing after rconf_ready.
 */
#ifndef JOBTOP_RCONF_H
#define JOBTOP_RCONF_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#define RCONF_IDENTITY_MAX	16
#define RCONF_BACKOFF_MAX	16

struct rconf_priv;
struct hostkeys;
struct sshconf;

struct rconf {
	char		*home;		/* local home: ~ in paths, messages */
	char		*user;		/* remote user unless ssh_config says */
	int		 port;		/* unless ssh_config says: 22 */

	/* Host keys.  A changed key is always refused; an unknown one is
	 * refused unless accept_new, which appends it to known_hosts. */
	char		*known_hosts;	/* ~/.ssh/known_hosts (NULL: none) */
	char		*known_hosts_sys; /* /etc/ssh/ssh_known_hosts|NULL */
	int		 accept_new;

	/* Authentication: the agent's keys, then the IdentityFile entries
	 * of ssh_config, or these files when ssh_config names none. */
	int		 use_agent;	/* $SSH_AUTH_SOCK, default on */
	char		*identity[RCONF_IDENTITY_MAX];
	int		 nidentity;	/* id_ed25519, id_ecdsa, id_rsa */
	char		*ssh_config;	/* ~/.ssh/config, or NULL */
	char		*ssh_config_sys; /* /etc/ssh/ssh_config, or NULL */

	/* Timing. */
	unsigned	 connect_timeout_ms;	/* TCP connect; 10 s */
	unsigned	 keepalive_s;		/* SSH keepalive; 30 s, 0 off */
	unsigned	 data_timeout_ms;	/* live with no data: lost;
						   0: 5 s + 3 intervals */
	unsigned	 backoff_ms[RCONF_BACKOFF_MAX];	/* 1, 2, 4 .. 30 s */
	int		 nbackoff;
	int		 retries;	/* retries of a node never live: 2 */
	int		 max_inflight;	/* sessions connecting at once: 32 */

	/* The probe: pushed once into cache_dir (relative to the remote
	 * home unless absolute) as jobtop-probe-<sha256 prefix>, then run
	 * with --interval (and --job when job is set, --uid when the job's
	 * owner is known: only that user's processes are ranks). */
	char		*probe_path;
	char		*job;
	char		*step;		/* --step: a Slurm step, or NULL */
	char		*sluid;		/* --sluid: the job's Slurm SLUID
					 * (squeue's Sluid), or NULL */
	const char	*sched;		/* "slurm", ...; NULL: a host list */
	size_t		 nnodes;	/* the job's nodes (the ladder) */
	/* The job's node list in the order its scheduler numbers the
	 * nodes (Flux: the job instance's broker ranks), a hostlist
	 * expression, or NULL: rconf_rank. */
	char		*rank_nodes;
	uid_t		 owner;
	int		 owner_known;
	double		 interval;
	char		*cache_dir;	/* ".cache/jobtop" */
	/* The probe's NVML helper, or NULL: pushed beside the probe as
	 * jobtop-nvml-<sha256 prefix> when it is built for the probe's
	 * machine, and given to it with --nvml. */
	char		*nvml_path;

	/* Debug lines ("node3: AUTH -> PUSH"), without newline; NULL off. */
	void		(*log)(void *, const char *);
	void		*log_arg;

	struct rconf_priv *priv;	/* rconf_ready's; NULL before */
};

/* Defaults from the environment ($HOME, the passwd entry). */
void		 rconf_init(struct rconf *);
/* Read the probe, ssh_config and known_hosts.  0, or -1 with one line in
 * err ("~/.ssh/config:3: bad port \"x\"", "/x/jobtop-probe: No such file
 * or directory").  A broken system ssh_config is only logged.  As ssh,
 * ssh_config files, their Includes and the known_hosts files must belong
 * to the user or root and be writable by nobody else; as root, the probe
 * and the NVML helper (and the directories above them) too. */
int		 rconf_ready(struct rconf *, char *, size_t);
void		 rconf_free(struct rconf *);

/* After rconf_ready: the probe's content, its SHA-256 in hex, its name
 * on the nodes ("jobtop-probe-0123456789abcdef") and the machine it was
 * built for as uname -m says it ("x86_64"). */
const uint8_t	*rconf_probe_data(const struct rconf *, size_t *);
const char	*rconf_probe_hash(const struct rconf *);
const char	*rconf_probe_name(const struct rconf *);
const char	*rconf_probe_arch(const struct rconf *);
/* The helper's content (NULL when there is none to push), hash, name. */
const uint8_t	*rconf_nvml_data(const struct rconf *, size_t *);
const char	*rconf_nvml_hash(const struct rconf *);
const char	*rconf_nvml_name(const struct rconf *);

/* For the sessions (remote/ only). */
struct hostkeys	*rconf_hostkeys(const struct rconf *);
struct sshconf	*rconf_sshconf(const struct rconf *);
/* The collection for the known_hosts files ssh_config names for a host:
 * UserKnownHostsFile (n -1: unset, the rconf's known_hosts) and
 * GlobalKnownHostsFile (-1: known_hosts_sys); read once per set of files.
 * *append gets the file accept-new appends to (the first user file), or
 * NULL for none; it lives as long as the rconf.  NULL, with *err, when a
 * file of the set breaks the owner and mode rule (rutil_perm_ok). */
struct hostkeys	*rconf_hostkeys_for(const struct rconf *, char *const *,
		    int, char *const *, int, const char **, const char **);
/* After rconf_ready: host's position in rank_nodes (Flux's broker rank
 * on that node), or -1 when rank_nodes is NULL or does not name it. */
long		 rconf_rank(const struct rconf *, const char *);
/* Take a fan-out slot: 1, or 0 when all are taken. */
int		 rconf_slot_take(const struct rconf *);
void		 rconf_slot_give(const struct rconf *);
int		 rconf_slot_free(const struct rconf *);
/* A number for temporary names, unique within this process. */
unsigned	 rconf_seq(const struct rconf *);
void		 rconf_log(const struct rconf *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
/* "~/x" for a path under the home, for messages. */
const char	*rconf_tilde(const struct rconf *, const char *, char *,
		    size_t);
/* The machine name of an ELF header ("x86_64"), or NULL. */
const char	*rconf_elf_arch(const uint8_t *, size_t);

#endif
