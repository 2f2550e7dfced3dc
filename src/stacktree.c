/* SPDX-License-Identifier: ISC */
/*
 * stacktree: merge the nodes' distinct stacks into prefix trees (one per
 * take and one of kernel stacks), then print them.  A tree node is one
 * frame at one depth; it keeps the ids of the ranks through it (appended,
 * sorted and made unique once in stree_finish) and how many threads.
 * Children are kept in the order they first came and printed largest
 * first, so the odd ones out come last in each branch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacktree.h"
#include "textsafe.h"
#include "xmalloc.h"

struct snode {
	char		 *frame;
	unsigned long	  nthreads;
	int64_t		 *ids;
	size_t		  nids, capids;
	struct snode	**kids;
	unsigned	  nkids, capkids;
	int		  odd;
};

struct snodeinfo {
	char		*name;
	char		 tool[16];
	long		 as_uid;
	unsigned	 take_ms[2], cpu_ms, ntasks, takes, gap_ms, frames;
	int		 timed_out;
	char		*fail;
};

struct serr {
	char		*node, *why;
	int64_t		*ids;
	size_t		 nids;
};

struct stree {
	int		 ranks;		/* ids are ranks, else pids */
	struct snode	 root[3];	/* STREE_KERNEL, TAKE1, TAKE2 */
	int64_t		*prog[2];	/* stuck, moved */
	size_t		 nprog[2], capprog[2];
	struct snodeinfo *nodes;
	unsigned	 nnodes;
	struct serr	*errs;
	unsigned	 nerrs;
	unsigned	 takes;
};

struct stree *
stree_new(int ranks)
{
	struct stree	*t = xcalloc(1, sizeof(*t));

	t->ranks = ranks;
	return t;
}

static void
stree_node_free(struct snode *n)
{
	unsigned	i;

	for (i = 0; i < n->nkids; i++) {
		stree_node_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->ids);
	free(n->frame);
}

void
stree_free(struct stree *t)
{
	unsigned	i;

	if (t == NULL)
		return;
	for (i = 0; i < 3; i++)
		stree_node_free(&t->root[i]);
	free(t->prog[0]);
	free(t->prog[1]);
	for (i = 0; i < t->nnodes; i++) {
		free(t->nodes[i].name);
		free(t->nodes[i].fail);
	}
	free(t->nodes);
	for (i = 0; i < t->nerrs; i++) {
		free(t->errs[i].node);
		free(t->errs[i].why);
		free(t->errs[i].ids);
	}
	free(t->errs);
	free(t);
}

static void
stree_ids_add(int64_t **v, size_t *n, size_t *cap, const int64_t *ids,
    size_t k)
{
	if (*n + k > *cap) {
		*cap = (*n + k) * 2;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	if (k > 0)
		memcpy(*v + *n, ids, k * sizeof(*ids));
	*n += k;
}

void
stree_add_path(struct stree *t, int which, char *const *frames, unsigned n,
    unsigned nthreads, const int64_t *ids, size_t nids)
{
	struct snode	*cur, *k;
	unsigned	 d, i;

	if (which < 0 || which > 2)
		return;
	cur = &t->root[which];
	cur->nthreads += nthreads;
	stree_ids_add(&cur->ids, &cur->nids, &cur->capids, ids, nids);
	for (d = 0; d < n; d++) {
		for (i = 0; i < cur->nkids; i++)
			if (strcmp(cur->kids[i]->frame, frames[d]) == 0)
				break;
		if (i == cur->nkids) {
			if (cur->nkids == cur->capkids) {
				cur->capkids = cur->capkids ? cur->capkids * 2 :
				    2;
				cur->kids = xreallocarray(cur->kids,
				    cur->capkids, sizeof(*cur->kids));
			}
			k = xcalloc(1, sizeof(*k));
			k->frame = xstrdup(frames[d]);
			cur->kids[cur->nkids++] = k;
		}
		cur = cur->kids[i];
		cur->nthreads += nthreads;
		stree_ids_add(&cur->ids, &cur->nids, &cur->capids, ids, nids);
	}
}

void
stree_add_node(struct stree *t, const char *name, const struct stk_node *sn)
{
	struct snodeinfo	*ni;
	struct serr		*e;
	unsigned		 i, last;

	t->nodes = xreallocarray(t->nodes, t->nnodes + 1, sizeof(*t->nodes));
	ni = &t->nodes[t->nnodes++];
	memset(ni, 0, sizeof(*ni));
	ni->name = xstrdup(name);
	snprintf(ni->tool, sizeof(ni->tool), "%s", sn->tool);
	ni->as_uid = sn->as_uid;
	ni->take_ms[0] = sn->take_ms[0];
	ni->take_ms[1] = sn->take_ms[1];
	ni->cpu_ms = sn->cpu_ms;
	ni->ntasks = sn->ntasks;
	ni->takes = sn->takes;
	ni->gap_ms = sn->gap_ms;
	ni->frames = sn->frames;
	ni->timed_out = sn->timed_out;
	if (sn->takes > t->takes)
		t->takes = sn->takes;
	last = sn->takes >= 2 ? 2 : 1;
	for (i = 0; i < sn->ntakes; i++) {
		const struct stk_take	*tk = &sn->tk[i];

		if (tk->kernel && tk->take != last)
			continue;
		stree_add_path(t, tk->kernel ? STREE_KERNEL : (int)tk->take,
		    sn->stacks[tk->stack], sn->nframes[tk->stack],
		    tk->nthreads, tk->ranks, tk->nranks);
	}
	stree_ids_add(&t->prog[0], &t->nprog[0], &t->capprog[0], sn->stuck,
	    sn->nstuck);
	stree_ids_add(&t->prog[1], &t->nprog[1], &t->capprog[1], sn->moved,
	    sn->nmoved);
	for (i = 0; i < sn->nerrs; i++) {
		t->errs = xreallocarray(t->errs, t->nerrs + 1,
		    sizeof(*t->errs));
		e = &t->errs[t->nerrs++];
		e->node = xstrdup(name);
		e->why = xstrdup(sn->errs[i].why);
		e->nids = sn->errs[i].nranks;
		e->ids = xreallocarray(NULL, e->nids + 1, sizeof(*e->ids));
		memcpy(e->ids, sn->errs[i].ranks, e->nids * sizeof(*e->ids));
	}
}

void
stree_fail_node(struct stree *t, const char *name, const char *why)
{
	struct snodeinfo	*ni;

	t->nodes = xreallocarray(t->nodes, t->nnodes + 1, sizeof(*t->nodes));
	ni = &t->nodes[t->nnodes++];
	memset(ni, 0, sizeof(*ni));
	ni->name = xstrdup(name);
	ni->as_uid = -1;
	ni->fail = xstrdup(why);
}

static int
stree_id_cmp(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void
stree_uniq(int64_t *v, size_t *n)
{
	size_t	i, k;

	if (*n == 0)
		return;
	qsort(v, *n, sizeof(*v), stree_id_cmp);
	for (i = 1, k = 1; i < *n; i++)
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	*n = k;
}

static int
stree_kid_cmp(const void *a, const void *b)
{
	const struct snode	*x = *(struct snode *const *)a;
	const struct snode	*y = *(struct snode *const *)b;

	if (x->nthreads != y->nthreads)
		return x->nthreads > y->nthreads ? -1 : 1;
	if (x->nids > 0 && y->nids > 0 && x->ids[0] != y->ids[0])
		return x->ids[0] < y->ids[0] ? -1 : 1;
	return strcmp(x->frame, y->frame);
}

/* Sort ids, order children largest first, mark the smallest of a split. */
static void
stree_finish_node(struct snode *n)
{
	unsigned	i;
	unsigned long	lo, hi;

	stree_uniq(n->ids, &n->nids);
	for (i = 0; i < n->nkids; i++)
		stree_finish_node(n->kids[i]);
	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), stree_kid_cmp);
	if (n->nkids < 2)
		return;
	hi = n->kids[0]->nthreads;
	lo = n->kids[n->nkids - 1]->nthreads;
	if (lo == hi)
		return;
	for (i = 0; i < n->nkids; i++)
		n->kids[i]->odd = n->kids[i]->nthreads == lo;
}

void
stree_finish(struct stree *t)
{
	unsigned	i;

	for (i = 0; i < 3; i++)
		stree_finish_node(&t->root[i]);
	stree_uniq(t->prog[0], &t->nprog[0]);
	stree_uniq(t->prog[1], &t->nprog[1]);
	for (i = 0; i < t->nerrs; i++)
		stree_uniq(t->errs[i].ids, &t->errs[i].nids);
}

/* "3 ranks [0-1,3]", "5 threads of 3 ranks [0-1,3]". */
static void
stree_count(const struct stree *t, FILE *f, unsigned long nthreads,
    const int64_t *ids, size_t nids)
{
	const char	*what = t->ranks ? "rank" : "process";
	char		 buf[512];

	stk_ranges_write(buf, sizeof(buf), ids, nids);
	if (nthreads != nids)
		fprintf(f, "%lu thread%s of ", nthreads, nthreads == 1 ? "" :
		    "s");
	fprintf(f, "%zu %s%s [%s]", nids, what, nids == 1 ? "" :
	    (t->ranks ? "s" : "es"), buf);
}

/* Does a node split its ranks (several children, or some end here)? */
static int
stree_splits(const struct snode *n)
{
	return n->nkids > 1 || (n->nkids == 1 && n->kids[0]->nthreads !=
	    n->nthreads);
}

/* The ranks whose stacks end at n while others go deeper. */
static void
stree_text_ends(const struct stree *t, FILE *f, const struct snode *n,
    unsigned long sum, const char *prefix, size_t plen)
{
	int64_t		*in = NULL, *out;
	size_t		 nin = 0, cap = 0, i, j, k;
	unsigned	 c;

	for (c = 0; c < n->nkids; c++)
		stree_ids_add(&in, &nin, &cap, n->kids[c]->ids,
		    n->kids[c]->nids);
	stree_uniq(in, &nin);
	out = xreallocarray(NULL, n->nids + 1, sizeof(*out));
	for (i = j = k = 0; i < n->nids; i++) {
		while (j < nin && in[j] < n->ids[i])
			j++;
		if (j == nin || in[j] != n->ids[i])
			out[k++] = n->ids[i];
	}
	fprintf(f, "%.*s +- ", (int)plen, prefix);
	if (k > 0)
		stree_count(t, f, n->nthreads - sum, out, k);
	else
		fprintf(f, "%lu thread%s", n->nthreads - sum,
		    n->nthreads - sum == 1 ? "" : "s");
	fputs(" end here\n", f);
	free(in);
	free(out);
}

static void
stree_text_chain(const struct stree *t, FILE *f, const struct snode *n,
    char *prefix, size_t plen)
{
	char		buf[STK_NAME_MAX * 4 + 8];
	unsigned	i;
	unsigned long	sum = 0;
	const struct snode *k;

	for (;;) {
		if (n->frame != NULL)
			fprintf(f, "%.*s   %s\n", (int)plen, prefix,
			    text_clean(buf, sizeof(buf), n->frame));
		if (n->nkids == 0 || stree_splits(n))
			break;
		n = n->kids[0];
	}
	for (i = 0; i < n->nkids; i++)
		sum += n->kids[i]->nthreads;
	if (n->nkids > 0 && sum < n->nthreads)
		stree_text_ends(t, f, n, sum, prefix, plen);
	for (i = 0; i < n->nkids; i++) {
		k = n->kids[i];
		fprintf(f, "%.*s +- ", (int)plen, prefix);
		stree_count(t, f, k->nthreads, k->ids, k->nids);
		fprintf(f, "%s\n", k->odd ? "  <- odd one out" : "");
		if (plen + 4 < 256) {
			memcpy(prefix + plen, i + 1 < n->nkids ? " |  " :
			    "    ", 4);
			stree_text_chain(t, f, k, prefix, plen + 4);
		} else
			stree_text_chain(t, f, k, prefix, plen);
	}
}

static void
stree_text_tree(const struct stree *t, FILE *f, const struct snode *root)
{
	char	prefix[260];

	stree_count(t, f, root->nthreads, root->ids, root->nids);
	fputc('\n', f);
	stree_text_chain(t, f, root, prefix, 0);
}

void
stree_print_text(struct stree *t, FILE *f, const char *job)
{
	const struct snodeinfo	*ni, *slow = NULL;
	unsigned		 i, nok = 0, ntasks = 0, gap = 0, frames = 0;
	unsigned		 cpu = 0;
	const struct snode	*top;
	char			 buf[512], tool[64] = "";
	long			 as = -1;

	for (i = 0; i < t->nnodes; i++) {
		ni = &t->nodes[i];
		if (ni->fail != NULL)
			continue;
		nok++;
		ntasks += ni->ntasks;
		gap = ni->gap_ms;
		frames = ni->frames;
		cpu += ni->cpu_ms;
		if (as < 0)
			as = ni->as_uid;
		if (tool[0] == '\0')
			snprintf(tool, sizeof(tool), "%s", ni->tool);
		else if (strstr(tool, ni->tool) == NULL && strlen(tool) < 40)
			snprintf(tool + strlen(tool), sizeof(tool) -
			    strlen(tool), "/%s", ni->tool);
		if (slow == NULL || ni->take_ms[0] + ni->take_ms[1] >
		    slow->take_ms[0] + slow->take_ms[1])
			slow = ni;
	}
	fprintf(f, "stacks of %s: %u %s on %u node%s", text_clean(buf,
	    sizeof(buf), job), ntasks, t->ranks ? "ranks" : "processes", nok,
	    nok == 1 ? "" : "s");
	if (tool[0] != '\0')
		fprintf(f, " (%s%s)", tool, as >= 0 ? ", as the owner" : "");
	if (t->takes >= 2)
		fprintf(f, ", two takes %.1f s apart", gap / 1000.0);
	fputc('\n', f);
	if (slow != NULL)
		fprintf(f, "cost: %.2f s a take on the slowest node (%s), "
		    "%.2f s of CPU on all nodes; at most %u frames a stack\n",
		    (slow->take_ms[0] > slow->take_ms[1] ? slow->take_ms[0] :
		    slow->take_ms[1]) / 1000.0, text_clean(buf, sizeof(buf),
		    slow->name), cpu / 1000.0, frames);
	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].timed_out)
			fprintf(f, "%s: the deadline cut a take short\n",
			    text_clean(buf, sizeof(buf), t->nodes[i].name));
	top = &t->root[t->takes >= 2 ? STREE_TAKE2 : STREE_TAKE1];
	if (top->nids > 0) {
		fprintf(f, "\nuser-space stacks%s:\n", t->takes >= 2 ?
		    " (second take)" : "");
		stree_text_tree(t, f, top);
	}
	if (t->takes >= 2 && t->nprog[0] + t->nprog[1] > 0) {
		fprintf(f, "\nprogress over %.1f s: %zu of %zu moved\n",
		    gap / 1000.0, t->nprog[1], t->nprog[0] + t->nprog[1]);
		if (t->nprog[1] > 0) {
			fputs("  moved (call path changed): ", f);
			stree_count(t, f, t->nprog[1], t->prog[1],
			    t->nprog[1]);
			fputc('\n', f);
		}
		if (t->nprog[0] > 0) {
			fputs("  no progress (same call path in both takes): ",
			    f);
			stree_count(t, f, t->nprog[0], t->prog[0],
			    t->nprog[0]);
			fputc('\n', f);
		}
	}
	if (t->root[STREE_KERNEL].nids > 0) {
		fputs("\nkernel stacks:\n", f);
		stree_text_tree(t, f, &t->root[STREE_KERNEL]);
	}
	for (i = 0; i < t->nerrs; i++) {
		fprintf(f, "%s", i == 0 ? "\n" : "");
		fprintf(f, "%s: ", text_clean(buf, sizeof(buf),
		    t->errs[i].node));
		stree_count(t, f, t->errs[i].nids, t->errs[i].ids,
		    t->errs[i].nids);
		fprintf(f, ": %s\n", text_clean(buf, sizeof(buf),
		    t->errs[i].why));
	}
	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].fail != NULL) {
			fprintf(f, "%s: ", text_clean(buf, sizeof(buf),
			    t->nodes[i].name));
			fprintf(f, "no stacks: %s\n", text_clean(buf,
			    sizeof(buf), t->nodes[i].fail));
		}
}

/* A JSON string. */
static void
stree_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char	c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
stree_json_ids(FILE *f, const int64_t *ids, size_t n)
{
	size_t	len = stk_ranges_write(NULL, 0, ids, n);
	char	*buf = xmalloc(len + 1);

	stk_ranges_write(buf, len + 1, ids, n);
	stree_json_str(f, buf);
	free(buf);
}

static void
stree_json_node(const struct stree *t, FILE *f, const struct snode *n,
    unsigned depth)
{
	unsigned	i;

	fputs("{\"frame\":", f);
	stree_json_str(f, n->frame != NULL ? n->frame : "");
	fprintf(f, ",\"count\":%zu,\"threads\":%lu,\"ids\":", n->nids,
	    n->nthreads);
	stree_json_ids(f, n->ids, n->nids);
	if (n->odd)
		fputs(",\"odd\":true", f);
	fputs(",\"children\":[", f);
	for (i = 0; i < n->nkids && depth < 2 * STK_FRAMES_MAX; i++) {
		if (i > 0)
			fputc(',', f);
		stree_json_node(t, f, n->kids[i], depth + 1);
	}
	fputs("]}", f);
}

void
stree_print_json(struct stree *t, FILE *f, const char *job)
{
	const struct snodeinfo	*ni;
	unsigned		 i;

	fputs("{\"type\":\"stacks\",\"job\":", f);
	stree_json_str(f, job);
	fprintf(f, ",\"ids\":\"%s\",\"takes\":%u", t->ranks ? "ranks" :
	    "pids", t->takes);
	fputs(",\"nodes\":[", f);
	for (i = 0; i < t->nnodes; i++) {
		ni = &t->nodes[i];
		fprintf(f, "%s{\"node\":", i > 0 ? "," : "");
		stree_json_str(f, ni->name);
		if (ni->fail != NULL) {
			fputs(",\"error\":", f);
			stree_json_str(f, ni->fail);
		} else {
			fputs(",\"tool\":", f);
			stree_json_str(f, ni->tool);
			fprintf(f, ",\"tasks\":%u,\"gap_ms\":%u,\"frames\":%u,"
			    "\"take_ms\":[%u,%u],\"cpu_ms\":%u,"
			    "\"timed_out\":%s", ni->ntasks, ni->gap_ms,
			    ni->frames, ni->take_ms[0], ni->take_ms[1],
			    ni->cpu_ms, ni->timed_out ? "true" : "false");
			if (ni->as_uid >= 0)
				fprintf(f, ",\"as_uid\":%ld", ni->as_uid);
		}
		fputc('}', f);
	}
	fputs("],\"tree\":", f);
	stree_json_node(t, f, &t->root[t->takes >= 2 ? STREE_TAKE2 :
	    STREE_TAKE1], 0);
	if (t->takes >= 2) {
		fputs(",\"first\":", f);
		stree_json_node(t, f, &t->root[STREE_TAKE1], 0);
		fputs(",\"moved\":", f);
		stree_json_ids(f, t->prog[1], t->nprog[1]);
		fputs(",\"stuck\":", f);
		stree_json_ids(f, t->prog[0], t->nprog[0]);
	}
	if (t->root[STREE_KERNEL].nids > 0) {
		fputs(",\"kernel\":", f);
		stree_json_node(t, f, &t->root[STREE_KERNEL], 0);
	}
	fputs(",\"errors\":[", f);
	for (i = 0; i < t->nerrs; i++) {
		fprintf(f, "%s{\"node\":", i > 0 ? "," : "");
		stree_json_str(f, t->errs[i].node);
		fputs(",\"ids\":", f);
		stree_json_ids(f, t->errs[i].ids, t->errs[i].nids);
		fputs(",\"why\":", f);
		stree_json_str(f, t->errs[i].why);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

int
stree_find(const struct stree *t, int which, char *const *frames,
    unsigned n, struct stree_branch *b)
{
	const struct snode	*cur;
	unsigned		 d, i;

	if (which < 0 || which > 2)
		return -1;
	cur = &t->root[which];
	for (d = 0; d < n; d++) {
		for (i = 0; i < cur->nkids; i++)
			if (strcmp(cur->kids[i]->frame, frames[d]) == 0)
				break;
		if (i == cur->nkids)
			return -1;
		cur = cur->kids[i];
	}
	b->nthreads = (unsigned)cur->nthreads;
	b->nranks = cur->nids;
	b->ranks = cur->ids;
	b->odd = cur->odd;
	return 0;
}

size_t
stree_progress(const struct stree *t, int moved, const int64_t **ids)
{
	*ids = t->prog[moved ? 1 : 0];
	return t->nprog[moved ? 1 : 0];
}

int
stree_answered(const struct stree *t)
{
	unsigned	i;

	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].fail == NULL)
			return 1;
	return 0;
}

const char *
stree_failure(const struct stree *t, const char **node)
{
	unsigned	i;

	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].fail != NULL) {
			*node = t->nodes[i].name;
			return t->nodes[i].fail;
		}
	*node = "";
	return NULL;
}
