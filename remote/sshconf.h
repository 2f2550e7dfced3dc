/* SPDX-License-Identifier: ISC */
/*
 * sshconf: the parts of ssh_config(5) the transport honours, so a node is
 * reached the way `ssh node` would reach it: Host blocks with patterns
 * (*, ? and !negation), Match all/host/originalhost, Include, and the
 * keywords HostName, User, Port, IdentityFile, IdentitiesOnly,
 * ConnectTimeout, ServerAliveInterval, UserKnownHostsFile,
 * GlobalKnownHostsFile, ProxyJump and ProxyCommand, and whether
 * GSSAPIAuthentication (gssapi), HostbasedAuthentication, ControlMaster,
 * ControlPath or CertificateFile (openssh) apply (what only OpenSSH can do: the
 * transport ladder then picks the system ssh client for that host).
 * As in ssh, the first value obtained for a keyword wins, except that
 * every matching IdentityFile is kept, in order.  Other keywords are
 * ignored.  Errors name the file and line: "~/.ssh/config:12: bad port
 * \"x\"".
 */
#ifndef JOBTOP_SSHCONF_H
#define JOBTOP_SSHCONF_H

#include <stddef.h>

/* sshconf_new flags. */
#define SSHCONF_NO_INCLUDE	0x1	/* refuse Include (the fuzzer) */

struct sshconf;

/* What one host gets.  Unset values are NULL, 0 or -1 as noted. */
struct sshconf_host {
	char	 *hostname;	/* HostName expanded, else the name itself */
	char	 *user;		/* NULL when unset */
	int	  port;		/* 0 when unset */
	char	**identity;	/* IdentityFile entries, ~ and % expanded */
	int	  nidentity;
	int	  identities_only;	/* -1 unset, 0, 1 */
	int	  connect_timeout;	/* seconds; -1 unset */
	int	  server_alive;		/* ServerAliveInterval, seconds;
					 * 0 off, -1 unset */
	char	 *proxy;	/* "ProxyJump x" when one applies; NULL */
	char	 *openssh;	/* "ProxyJump x", "GSSAPIAuthentication
				 * yes", ...: the first option that applies
				 * and needs OpenSSH; NULL */
	int	  gssapi;	/* GSSAPIAuthentication yes */
	unsigned  seen;		/* keywords of those already settled */
	char	**known_user;	/* UserKnownHostsFile, ~ and % expanded */
	int	  nknown_user;	/* -1 unset; 0 for "none" */
	char	**known_global;	/* GlobalKnownHostsFile, the same */
	int	  nknown_global;
};

/* Expansion context: the local user's home and name. */
struct sshconf *sshconf_new(const char *, const char *, int);
void		 sshconf_free(struct sshconf *);

/* Parse config text; name is used in messages and, with system set,
 * relative Include paths resolve under /etc/ssh instead of ~/.ssh.
 * 0, or -1 with "name:line: problem" in err. */
int		 sshconf_parse(struct sshconf *, const char *, const char *,
		    size_t, int, char *, size_t);
/* Read and parse a file; a missing file is not an error.  0 or -1. */
int		 sshconf_load(struct sshconf *, const char *, int, char *,
		    size_t);

/* Settle the options for host name (as given).  default_user fills %r
 * when no User applies.  0, or -1 with the reason in err.  What only
 * OpenSSH can do is not an error here: see openssh and proxy.  Free the
 * result with sshconf_host_free in both cases. */
int		 sshconf_lookup(const struct sshconf *, const char *,
		    const char *, struct sshconf_host *, char *, size_t);
void		 sshconf_host_free(struct sshconf_host *);

/* One ssh_config pattern against a name: * and ?, case-insensitive. */
int		 sshconf_match_pattern(const char *, const char *);
/* A whitespace- or comma-separated pattern list (split by the caller into
 * an array): 1 when some pattern matches and no negated one does. */
int		 sshconf_match_list(char *const *, int, const char *);

#endif
