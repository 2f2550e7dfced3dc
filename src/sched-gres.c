/* SPDX-License-Identifier: ISC */
/*
 * sched-gres: the GPUs Slurm allocated a running job on each of its nodes,
 * from the job's per-node GRES detail (issue 24, item 4).  The ranks'
 * environment says which GPUs the ranks of a node were given; a node
 * where the job runs no rank says nothing, and there an allocated GPU
 * idles unseen: the scheduler's own record covers it.
 *
 * Slurm prints the detail only for a started, unfinished job and only when
 * asked for it (-d), one string a node (Slurm's source: src/api/job_info.c
 * to 23.11, src/scontrol/info_job.c from 24.11; gres_ctld.c /
 * gres_stepmgr.c build the string):
 *
 *	gpu:a100:2(IDX:0-1)		Slurm's GPU indexes on the node
 *	gpu:a100:1(IDX:0),gpu:v100:1(IDX:2)	one item a GRES record
 *	gpu(CNT:2)			a count without indexes
 *	shard:3(2/4,1/4,0/4,0/4)	23.11+: shares taken on each GPU
 *	nic:1(IDX:0)			another GRES: not a GPU
 *
 * Items are split at commas outside parentheses (an IDX list holds
 * commas).  The indexes are Slurm's, equal to NVML's only where the
 * node's device minors are (the monitor checks that against the probe's
 * gpu.minor before using them).
 *
 * Where it comes from:
 *  - Slurm 23.02 and later: `scontrol -d --json show job ID`, "gres_detail"
 *    an array of strings, entry i for node i of the record's "nodes"
 *    expression in Slurm's order (JSON escapes every string: nothing the
 *    job's owner writes can forge it).
 *  - Slurm 22.05: `scontrol -o -d show job ID`, whose record holds
 *    "JOB_GRES=... Nodes=EXPR CPU_IDs=.. Mem=.. GRES=DETAIL ..." before
 *    "MinCPUsNode=".  The job's name is free text printed before it
 *    (sched-slurm.c says why that text cannot be trusted), so the record
 *    is used only when it is one job (one "JobId=" at a line's start) with
 *    exactly one "JOB_GRES=" word: a name that forged one would make two.
 *    Between JOB_GRES= and MinCPUsNode= Slurm prints nothing the owner
 *    writes.  A heterogeneous job (several records) is left unknown there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "sched.h"
#include "xmalloc.h"

/* Slurm's JSON scontrol from this version. */
#define GRES_JSON_MAJOR	23
#define GRES_JSON_MINOR	2

/* After a list's item ending at end: *p past its comma (another item
 * must follow), or at e; -1 for anything else. */
static int
gres_next(const char **p, const char *end, const char *e)
{
	*p = end;
	if (*p == e)
		return 0;
	if (*p > e || **p != ',' || *p + 1 >= e)
		return -1;
	(*p)++;
	return 0;
}

/* Read a bit_fmt list ("0", "0-1", "0,2-3") of GPU indexes into *mask:
 * 0, or -1 when it is not one or names an index past 62. */
static int
gres_idx_list(const char *s, size_t n, int64_t *mask)
{
	const char	*p = s, *e = s + n;
	long		 a, b;
	char		*end;

	if (n == 0)
		return -1;
	while (p < e) {
		if (*p < '0' || *p > '9')
			return -1;
		a = strtol(p, &end, 10);
		b = a;
		if (end < e && *end == '-') {
			p = end + 1;
			if (p >= e || *p < '0' || *p > '9')
				return -1;
			b = strtol(p, &end, 10);
		}
		if (end > e || a < 0 || b < a || b > 62)
			return -1;
		for (; a <= b; a++)
			*mask |= (int64_t)1 << a;
		if (gres_next(&p, end, e) != 0)
			return -1;
	}
	return 0;
}

/* Shares per GPU ("2/4,1/4,0/4"): the GPUs with a share taken. */
static int
gres_shares(const char *s, size_t n, int64_t *mask)
{
	const char	*p = s, *e = s + n;
	long		 k = 0, used, total;
	char		*end;

	while (p < e) {
		if (*p < '0' || *p > '9')
			return -1;
		used = strtol(p, &end, 10);
		if (end >= e || *end != '/' || end[1] < '0' || end[1] > '9')
			return -1;
		total = strtol(end + 1, &end, 10);
		if (end > e || used < 0 || total < used || k > 62)
			return -1;
		if (used > 0)
			*mask |= (int64_t)1 << k;
		k++;
		if (gres_next(&p, end, e) != 0)
			return -1;
	}
	return k > 0 ? 0 : -1;
}

/* One item "name[:type][:count](...)" of a detail. */
static int
gres_item(const char *s, size_t n, int64_t *mask, int *unknown)
{
	const char	*open, *close;
	size_t		 nlen, in;

	nlen = strcspn(s, ":(");
	if (nlen > n)
		nlen = n;
	/* Only GPUs; a shard or an MPS share is a GPU in use. */
	if (!((nlen == 3 && strncmp(s, "gpu", 3) == 0) ||
	    (nlen == 5 && strncmp(s, "shard", 5) == 0) ||
	    (nlen == 3 && strncmp(s, "mps", 3) == 0)))
		return 0;
	if ((open = memchr(s, '(', n)) == NULL || s[n - 1] != ')')
		return -1;
	close = s + n - 1;
	in = (size_t)(close - open - 1);
	if (in >= 4 && strncmp(open + 1, "IDX:", 4) == 0)
		return gres_idx_list(open + 5, in - 4, mask);
	if (in >= 4 && strncmp(open + 1, "CNT:", 4) == 0) {
		*unknown = 1;	/* a count, not which GPUs */
		return 0;
	}
	return gres_shares(open + 1, in, mask);
}

int
sched_gres_detail(const char *s, int64_t *mask)
{
	const char	*p = s, *q;
	int64_t		 m = 0;
	int		 depth, unknown = 0;

	if (s == NULL)
		return -1;
	while (*p != '\0') {
		depth = 0;
		for (q = p; *q != '\0' && (depth > 0 || *q != ','); q++) {
			if (*q == '(')
				depth++;
			else if (*q == ')' && --depth < 0)
				return -1;
		}
		if (depth != 0 || q == p)
			return -1;
		if (gres_item(p, (size_t)(q - p), &m, &unknown) != 0)
			return -1;
		p = *q == ',' ? q + 1 : q;
		if (*q == ',' && *p == '\0')
			return -1;
	}
	if (unknown && m == 0)
		return -1;
	*mask = m;
	return 0;
}

/* Node name's mask into job->gpus: the union of every record's (an
 * array's tasks or a het job's components on one node), unknown when
 * one of them is. */
static void
gres_set(struct job *job, const char *name, int64_t mask)
{
	int64_t	*g;
	long	 i;

	if ((i = hostlist_find(job->nodes, name)) < 0)
		return;
	g = &job->gpus[i];
	if (*g == -2 || mask < 0)
		*g = mask;
	else if (*g >= 0)
		*g |= mask;
}

/* The nodes of expression nodes, in Slurm's order, with their details. */
static void
gres_nodes(struct job *job, const char *nodes, const char *const *detail,
    size_t ndetail)
{
	struct hostlist	*hl;
	char		 err[256];
	size_t		 i, n;
	int64_t		 mask;

	if ((hl = hostlist_new()) == NULL)
		return;
	hostlist_keep_order(hl);
	if (hostlist_push(hl, nodes, err, sizeof(err)) == 0) {
		n = hostlist_count(hl);
		for (i = 0; i < n; i++) {
			mask = 0;
			if (i >= ndetail ||
			    sched_gres_detail(detail[i], &mask) != 0)
				mask = -1;
			gres_set(job, hostlist_get(hl, i), mask);
		}
	}
	hostlist_free(hl);
}

/* job->gpus for every node, -2 (not said yet) each. */
static void
gres_start(struct job *job)
{
	size_t	i, n = job->nodes != NULL ? hostlist_count(job->nodes) : 0;

	free(job->gpus);
	job->gpus = n > 0 ? xcalloc(n, sizeof(*job->gpus)) : NULL;
	for (i = 0; i < n; i++)
		job->gpus[i] = -2;
}

/* Nodes no record named: none of the job's GPUs there (-2 -> 0); NULL
 * when no node has a GPU known. */
static void
gres_end(struct job *job, int said)
{
	size_t	i, n = job->nodes != NULL ? hostlist_count(job->nodes) : 0;

	for (i = 0; i < n; i++)
		if (job->gpus[i] == -2)
			job->gpus[i] = said ? 0 : -1;
	if (!said) {
		free(job->gpus);
		job->gpus = NULL;
	}
}

int
sched_gres_json(const char *text, struct job *job)
{
	struct sched_json	*doc, *jobs, *j, *gd, *d;
	const char		*nodes, **detail;
	size_t			 nd, k;
	int			 said = 0;

	if (job->nodes == NULL || (doc = sched_json_parse(text)) == NULL)
		return -1;
	gres_start(job);
	if ((jobs = sched_json_get(doc, "jobs")) != NULL &&
	    jobs->type == SJ_ARRAY) {
		for (j = jobs->child; j != NULL; j = j->next) {
			if ((nodes = sched_json_str(j, "nodes")) == NULL ||
			    (gd = sched_json_get(j, "gres_detail")) == NULL ||
			    gd->type != SJ_ARRAY)
				continue;
			nd = 0;
			for (d = gd->child; d != NULL; d = d->next)
				nd++;
			/* Slurm 22.05's JSON has an empty list: not said. */
			if (nd == 0)
				continue;
			detail = xcalloc(nd, sizeof(*detail));
			for (k = 0, d = gd->child; d != NULL; d = d->next, k++)
				detail[k] = d->type == SJ_STRING ? d->str :
				    NULL;
			gres_nodes(job, nodes, detail, nd);
			free(detail);
			said = 1;
		}
	}
	sched_json_free(doc);
	gres_end(job, said);
	return said ? 0 : -1;
}

/* The value of the first "Key=" word in [p, e) (after a blank): its
 * start and *len, or NULL.  p must not be the text's first byte.  (Keys
 * are given without their '=': "GRES=" would read as an environment
 * variable to tests/regress/env-manual.sh.) */
static const char *
gres_word(const char *p, const char *e, const char *key, size_t *len)
{
	size_t		 kl = strlen(key);
	const char	*v;

	for (; p + kl < e; p++) {
		if ((p[-1] != ' ' && p[-1] != '\n') ||
		    memcmp(p, key, kl) != 0 || p[kl] != '=')
			continue;
		v = p + kl + 1;
		*len = strcspn(v, " \n");
		if (v + *len > e)
			*len = (size_t)(e - v);
		return v;
	}
	return NULL;
}

/* How often the word "key=" occurs in text (after a blank or at a
 * line's start); *first: the first one's start. */
static int
gres_count(const char *text, const char *key, const char **first)
{
	const char	*p = text;
	size_t		 kl = strlen(key);
	int		 n = 0;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == text || p[-1] == ' ' || p[-1] == '\n') &&
		    p[kl] == '=' && n++ == 0 && first != NULL)
			*first = p;
		p++;
	}
	return n;
}

/* Every node of expression nodes gets detail's mask. */
static void
gres_group(struct job *job, const char *nodes, const char *detail)
{
	struct hostlist	*hl;
	char		 err[256];
	size_t		 i, n;
	int64_t		 mask = 0;

	if (sched_gres_detail(detail, &mask) != 0)
		mask = -1;
	if (hostlist_expand(nodes, &hl, err, sizeof(err)) != 0)
		return;
	n = hostlist_count(hl);
	for (i = 0; i < n; i++)
		gres_set(job, hostlist_get(hl, i), mask);
	hostlist_free(hl);
}

int
sched_gres_text(const char *text, struct job *job)
{
	const char	*g = NULL, *end, *p, *v;
	char		 nodes[4096], detail[4096];
	size_t		 len;
	int		 said = 0;

	if (job->nodes == NULL || gres_count(text, "JobId", NULL) != 1 ||
	    gres_count(text, "JOB_GRES", &g) != 1)
		return -1;
	if ((end = strstr(g, " MinCPUsNode=")) == NULL &&
	    (end = strstr(g, "\n   MinCPUsNode=")) == NULL)
		return -1;
	gres_start(job);
	/* "Nodes=EXPR CPU_IDs=.. Mem=.. GRES=DETAIL", group after group. */
	p = g + 9;
	while ((v = gres_word(p, end, "Nodes", &len)) != NULL) {
		if (len == 0 || len >= sizeof(nodes))
			break;
		memcpy(nodes, v, len);
		nodes[len] = '\0';
		p = v + len;
		if ((v = gres_word(p, end, "GRES", &len)) == NULL ||
		    len >= sizeof(detail))
			break;
		memcpy(detail, v, len);
		detail[len] = '\0';
		p = v + len;
		gres_group(job, nodes, detail);
		said = 1;
	}
	gres_end(job, said);
	return said ? 0 : -1;
}
