/* SPDX-License-Identifier: ISC */
/*
 * model: one node's values.  Instances live in a table sorted by id (the
 * probe uses small dense ids, so lookups mostly hit the hint and inserts
 * append) and on a per-group list in the order they were added, which is
 * the order outputs show them.  Each instance is one allocation sized to
 * its group's fields; nothing per node is larger than what the node has.
 *
 * Schemas are shared: a node whose SCHEMA bytes equal another node's gets
 * the same decoded schema with its reference count raised, so a thousand
 * nodes of one job hold one schema.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "model.h"
#include "xmalloc.h"


static const char *const model_known_names[MGF_NKNOWN] = {
	[MGF_PID] = "pid",
	[MGF_START_TIME] = "start_time",
	[MGF_RANK] = "rank",
	[MGF_UTIME] = "utime",
	[MGF_STIME] = "stime",
	[MGF_IDLE] = "idle",
	[MGF_IOWAIT] = "iowait",
	[MGF_TOTAL] = "total",
	[MGF_AVAILABLE] = "available",
	[MGF_SAMPLES] = "samples",
	[MGF_MPI] = "mpi",
	[MGF_STATE] = "state",
};

/* Every schema in use, shared by reference count. */
static struct mschema	*model_schemas;

/*
 * HELLO's facts that nodes share (struct model_hello): one block with the
 * source array and, after it, the key the facts are compared by, which
 * the strings point into: version, kernel, arch and job NUL-terminated,
 * then per source its on byte, name and reason.
 */
struct mfacts {
	struct mfacts	*next;
	unsigned	 refs;
	uint64_t	 hash;
	unsigned	 nsources;
	size_t		 keylen;
	char		*key;
	const char	*fixed[4];	/* version, kernel, arch, job */
	struct model_source src[];
};
static struct mfacts	*model_facts;

void
model_init(struct node_model *m, const char *label)
{
	memset(m, 0, sizeof(*m));
	m->label = xstrdup(label != NULL ? label : "");
}

/* Release a reference to shared facts, freeing them with the last. */
static void
model_facts_release(struct mfacts *f)
{
	struct mfacts	**fp;

	if (f == NULL || --f->refs > 0)
		return;
	for (fp = &model_facts; *fp != NULL; fp = &(*fp)->next) {
		if (*fp == f) {
			*fp = f->next;
			break;
		}
	}
	free(f);
}

/* Append s with its NUL at key + *at (the caller sized the key). */
static void
model_key_put(char *key, size_t *at, const char *s)
{
	size_t	n = strlen(s) + 1;

	memcpy(key + *at, s, n);
	*at += n;
}

/* The facts of ph, shared with every node that sent the same, or new. */
static struct mfacts *
model_facts_get(const struct proto_hello *ph)
{
	const char	*fixed[4] = { ph->version, ph->kernel, ph->arch,
			    ph->job };
	struct mfacts	*f;
	char		*key;
	size_t		 len = 0, at = 0;
	uint64_t	 hash = 14695981039346656037ULL;
	unsigned	 i;

	for (i = 0; i < 4; i++)
		len += strlen(fixed[i]) + 1;
	for (i = 0; i < ph->nsources; i++)
		len += 1 + strlen(ph->sources[i].name) + 1 +
		    strlen(ph->sources[i].reason) + 1;
	key = xmalloc(len);
	for (i = 0; i < 4; i++)
		model_key_put(key, &at, fixed[i]);
	for (i = 0; i < ph->nsources; i++) {
		key[at++] = ph->sources[i].on ? '1' : '0';
		model_key_put(key, &at, ph->sources[i].name);
		model_key_put(key, &at, ph->sources[i].reason);
	}
	for (at = 0; at < len; at++)
		hash = (hash ^ (uint8_t)key[at]) * 1099511628211ULL;
	for (f = model_facts; f != NULL; f = f->next) {
		if (f->hash == hash && f->keylen == len &&
		    f->nsources == ph->nsources &&
		    memcmp(f->key, key, len) == 0) {
			free(key);
			f->refs++;
			return f;
		}
	}
	f = xmalloc(sizeof(*f) + ph->nsources * sizeof(f->src[0]) + len);
	f->refs = 1;
	f->hash = hash;
	f->nsources = ph->nsources;
	f->keylen = len;
	f->key = (char *)(f->src + ph->nsources);
	memcpy(f->key, key, len);
	free(key);
	at = 0;
	for (i = 0; i < 4; i++) {
		f->fixed[i] = f->key + at;
		at += strlen(f->key + at) + 1;
	}
	for (i = 0; i < ph->nsources; i++) {
		f->src[i].on = f->key[at++] == '1';
		f->src[i].name = f->key + at;
		at += strlen(f->key + at) + 1;
		f->src[i].reason = f->key + at;
		at += strlen(f->key + at) + 1;
	}
	f->next = model_facts;
	model_facts = f;
	return f;
}

/* Point h's shared fields at f's. */
static void
model_hello_bind(struct model_hello *h, struct mfacts *f)
{
	h->facts = f;
	h->version = f->fixed[0];
	h->kernel = f->fixed[1];
	h->arch = f->fixed[2];
	h->job = f->fixed[3];
	h->nsources = f->nsources;
	h->sources = f->src;
}

static void
model_free_hello(struct model_hello *h)
{
	free(h->host);
	model_facts_release(h->facts);
	memset(h, 0, sizeof(*h));
}

static void
model_free_inst(struct minst *mi)
{
	unsigned	i;

	for (i = 0; i < mi->nstr; i++)
		free(mi->strs[i]);
	free(mi);
}

/* Release a reference to a shared schema, freeing it with the last. */
static void
model_schema_release(struct mschema *s)
{
	struct mschema	**sp;
	unsigned	  g;

	if (s == NULL || --s->refs > 0)
		return;
	for (sp = &model_schemas; *sp != NULL; sp = &(*sp)->next) {
		if (*sp == s) {
			*sp = s->next;
			break;
		}
	}
	proto_schema_free(s->ps);
	metrics_unbind(s->metrics);
	for (g = 0; g < s->ngroups; g++)
		free(s->groups[g].qnames);
	free(s->groups);
	free(s->raw);
	free(s);
}

void
model_free(struct node_model *m)
{
	uint32_t	i;

	for (i = 0; i < m->ninsts; i++)
		model_free_inst(m->insts[i]);
	free(m->insts);
	free(m->gfirst);
	free(m->glast);
	free(m->gcount);
	model_schema_release(m->schema);
	model_free_hello(&m->hello);
	free(m->bye_text);
	free(m->label);
	memset(m, 0, sizeof(*m));
}

/* An instance of group mg in one block: the struct, the current values
 * and the counters' previous ones, the string pointers, the name. */
static size_t
model_inst_size(const struct mgroup *mg, size_t namelen)
{
	return sizeof(struct minst) + ((size_t)mg->def->nfields + mg->nctr) *
	    sizeof(int64_t) + mg->nstr * sizeof(char *) + namelen + 1;
}

/* Point an instance's strs and name into its block (mg, nfields, nstr
 * set). */
static void
model_inst_layout(struct minst *mi)
{
	mi->strs = (char **)(mi->v + mi->nfields + mi->mg->nctr);
	mi->name = (char *)(mi->strs + mi->nstr);
}

static char *
model_strdup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

void
model_clone(struct node_model *to, const struct node_model *from)
{
	const struct minst	*src;
	struct minst		*mi;
	size_t			 size;
	uint32_t		 i, g, ng;
	unsigned		 k;

	*to = *from;
	to->label = model_strdup(from->label);
	to->bye_text = model_strdup(from->bye_text);
	to->hello.host = model_strdup(from->hello.host);
	if (to->hello.facts != NULL)
		to->hello.facts->refs++;
	if (to->schema != NULL)
		to->schema->refs++;
	to->insts = NULL;
	to->gfirst = to->glast = NULL;
	to->gcount = NULL;
	if (from->capinsts > 0)
		to->insts = xcalloc(from->capinsts, sizeof(*to->insts));
	for (i = 0; i < from->ninsts; i++) {
		src = from->insts[i];
		size = model_inst_size(src->mg, strlen(src->name));
		mi = xmalloc(size);
		memcpy(mi, src, size);
		model_inst_layout(mi);
		for (k = 0; k < mi->nstr; k++)
			mi->strs[k] = model_strdup(src->strs[k]);
		mi->gnext = mi->gprev = NULL;
		to->insts[i] = mi;
	}
	if (from->schema == NULL || from->gfirst == NULL)
		return;
	ng = from->schema->ngroups;
	to->gfirst = xcalloc(ng, sizeof(*to->gfirst));
	to->glast = xcalloc(ng, sizeof(*to->glast));
	to->gcount = xcalloc(ng, sizeof(*to->gcount));
	memcpy(to->gcount, from->gcount, ng * sizeof(*to->gcount));
	/* The groups' lists in the same order, over the copies. */
	for (g = 0; g < ng; g++) {
		for (src = from->gfirst[g]; src != NULL; src = src->gnext) {
			mi = model_find(to, src->id);
			if (mi == NULL)
				continue;
			mi->gprev = to->glast[g];
			if (mi->gprev != NULL)
				mi->gprev->gnext = mi;
			else
				to->gfirst[g] = mi;
			to->glast[g] = mi;
		}
	}
}

const char *
model_name(const struct node_model *m)
{
	if (!m->label_fixed && m->have_hello && m->hello.host[0] != '\0')
		return m->hello.host;
	return m->label;
}

void
model_fix_name(struct node_model *m)
{
	m->label_fixed = 1;
}

void
model_set_hello(struct node_model *m, const struct proto_hello *ph)
{
	struct model_hello	*h = &m->hello;

	model_free_hello(h);
	h->major = ph->major;
	h->minor = ph->minor;
	h->host = xstrdup(ph->host);
	model_hello_bind(h, model_facts_get(ph));
	h->ncpu = ph->ncpu;
	h->mem_total = ph->mem_total;
	h->clk_tck = ph->clk_tck;
	h->page_size = ph->page_size;
	h->start_ms = ph->start_ms;
	h->interval_ms = ph->interval_ms;
	m->have_hello = 1;
	m->time_ms = h->start_ms;
}

/* "group.field" of every field, in one block (the writers' keys). */
static void
model_bind_qnames(struct mgroup *mg)
{
	size_t		gl = strlen(mg->def->name), total = 0, fl, at = 0;
	unsigned	f;

	for (f = 0; f < mg->def->nfields; f++)
		total += gl + strlen(mg->def->fields[f].name) + 2;
	mg->qnames = xmalloc(total > 0 ? total : 1);
	for (f = 0; f < mg->def->nfields; f++) {
		fl = strlen(mg->def->fields[f].name);
		memcpy(mg->qnames + at, mg->def->name, gl);
		mg->qnames[at + gl] = '.';
		memcpy(mg->qnames + at + gl + 1, mg->def->fields[f].name,
		    fl + 1);
		mg->qoff[f] = (uint16_t)at;
		mg->qlen[f] = (uint8_t)(gl + 1 + fl);
		at += gl + fl + 2;
	}
}

/* Decode a schema and work out what each group needs. */
static int
model_schema_build(const uint8_t *p, size_t len, struct mschema **out)
{
	struct proto_schema	*ps;
	struct mschema		*s;
	struct mgroup		*mg;
	unsigned		 g, f;
	int			 err;

	if ((err = proto_get_schema(p, len, &ps)) != WIRE_OK)
		return err;
	s = xcalloc(1, sizeof(*s));
	s->ps = ps;
	s->ngroups = ps->ngroups;
	s->groups = xcalloc(ps->ngroups, sizeof(*s->groups));
	for (g = 0; g < ps->ngroups; g++) {
		mg = &s->groups[g];
		mg->def = &ps->groups[g];
		for (f = 0; f < PROTO_MAX_FIELDS; f++)
			mg->strslot[f] = -1;
		for (f = 0; f < MGF_NKNOWN; f++)
			mg->known[f] = (int8_t)proto_schema_field_index(mg->def,
			    model_known_names[f]);
		model_bind_qnames(mg);
		for (f = 0; model_derived[f].group != NULL; f++)
			if (strcmp(model_derived[f].group, mg->def->name) ==
			    0 && mg->nderived < MODEL_MAX_DERIVED)
				mg->derived[mg->nderived++] = (uint8_t)f;
		for (f = 0; f < mg->def->nfields; f++) {
			const struct proto_field *pf = &mg->def->fields[f];
			if (pf->kind == PF_STRING) {
				mg->strmask |= (uint64_t)1 << f;
				mg->strslot[f] = (int8_t)mg->nstr++;
			}
			if (pf->kind == PF_COUNTER) {
				mg->ctrmask |= (uint64_t)1 << f;
				mg->nctr++;
			}
			if (pf->kind == PF_COUNTER &&
			    strcmp(pf->unit, "cpu-jiffies") == 0)
				mg->cpujmask |= (uint64_t)1 << f;
			else if (pf->kind == PF_COUNTER &&
			    strcmp(pf->unit, "jiffies") == 0)
				mg->jiffmask |= (uint64_t)1 << f;
			else if (pf->kind == PF_GAUGE &&
			    strcmp(pf->unit, "centi") == 0)
				mg->centimask |= (uint64_t)1 << f;
		}
	}
	s->raw = xmalloc(len);
	memcpy(s->raw, p, len);
	s->rawlen = len;
	*out = s;
	return WIRE_OK;
}

int
model_set_schema(struct node_model *m, const uint8_t *p, size_t len)
{
	struct mschema	*s;
	int		 err;

	/* Instances belong to the schema they were added under. */
	while (m->ninsts > 0)
		model_drop(m, m->insts[m->ninsts - 1]);
	for (s = model_schemas; s != NULL; s = s->next) {
		if (s->rawlen == len && memcmp(s->raw, p, len) == 0)
			break;
	}
	if (s == NULL) {
		if ((err = model_schema_build(p, len, &s)) != WIRE_OK)
			return err;
		s->next = model_schemas;
		model_schemas = s;
	}
	s->refs++;
	model_schema_release(m->schema);
	m->schema = s;
	free(m->gfirst);
	free(m->glast);
	free(m->gcount);
	m->gfirst = xcalloc(s->ngroups, sizeof(*m->gfirst));
	m->glast = xcalloc(s->ngroups, sizeof(*m->glast));
	m->gcount = xcalloc(s->ngroups, sizeof(*m->gcount));
	return WIRE_OK;
}

/* Counters' values of the last sample become the previous ones. */
void
model_begin_sample(struct node_model *m)
{
	struct minst	*mi;
	int64_t		*prev;
	uint64_t	 bits;
	uint32_t	 i;

	for (i = 0; i < m->ninsts; i++) {
		mi = m->insts[i];
		prev = mi->v + mi->nfields;
		for (bits = mi->mg->ctrmask; bits != 0; bits &= bits - 1)
			*prev++ = mi->v[__builtin_ctzll(bits)];
		mi->prevp = mi->curp;
	}
}

void
model_end_sample(struct node_model *m, uint64_t seq, int64_t dt_ms)
{
	m->nsamples++;
	m->seq = seq;
	m->dt_ms = dt_ms;
	m->time_ms += (uint64_t)dt_ms;
}

/* Index of the first instance with an id >= id. */
static uint32_t
model_lower_bound(const struct node_model *m, uint32_t id)
{
	uint32_t	lo = 0, hi = m->ninsts, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->insts[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct minst *
model_find(struct node_model *m, uint32_t id)
{
	uint32_t	i;

	/* Items come in id order: try the last hit and its successor. */
	for (i = m->hint; i < m->ninsts && i < m->hint + 2; i++) {
		if (m->insts[i]->id == id) {
			m->hint = i;
			return m->insts[i];
		}
	}
	i = model_lower_bound(m, id);
	if (i < m->ninsts && m->insts[i]->id == id) {
		m->hint = i;
		return m->insts[i];
	}
	return NULL;
}

struct minst *
model_add(struct node_model *m, uint32_t id, unsigned group,
    const char *name, size_t namelen)
{
	const struct mgroup	*mg = &m->schema->groups[group];
	struct minst		*mi;
	size_t			 nf = mg->def->nfields, size;
	uint32_t		 at;

	size = model_inst_size(mg, namelen);
	mi = xcalloc(1, size);
	mi->mg = mg;
	mi->id = id;
	mi->group = (uint16_t)group;
	mi->nfields = (uint8_t)nf;
	mi->nstr = (uint8_t)mg->nstr;
	model_inst_layout(mi);
	memcpy(mi->name, name, namelen);
	mi->name[namelen] = '\0';
	m->strbytes += namelen;

	if (m->ninsts == m->capinsts) {
		m->capinsts = m->capinsts == 0 ? 16 : m->capinsts * 2;
		m->insts = xreallocarray(m->insts, m->capinsts,
		    sizeof(*m->insts));
	}
	at = model_lower_bound(m, id);
	memmove(m->insts + at + 1, m->insts + at,
	    (m->ninsts - at) * sizeof(*m->insts));
	m->insts[at] = mi;
	m->ninsts++;
	m->hint = at;

	mi->gprev = m->glast[group];
	if (mi->gprev != NULL)
		mi->gprev->gnext = mi;
	else
		m->gfirst[group] = mi;
	m->glast[group] = mi;
	m->gcount[group]++;
	return mi;
}

void
model_drop(struct node_model *m, struct minst *mi)
{
	uint32_t	at;

	at = model_lower_bound(m, mi->id);
	memmove(m->insts + at, m->insts + at + 1,
	    (m->ninsts - at - 1) * sizeof(*m->insts));
	m->ninsts--;
	m->hint = 0;
	if (mi->gprev != NULL)
		mi->gprev->gnext = mi->gnext;
	else
		m->gfirst[mi->group] = mi->gnext;
	if (mi->gnext != NULL)
		mi->gnext->gprev = mi->gprev;
	else
		m->glast[mi->group] = mi->gprev;
	m->gcount[mi->group]--;
	m->strbytes -= strlen(mi->name);
	for (at = 0; at < mi->nstr; at++)
		if (mi->strs[at] != NULL)
			m->strbytes -= strlen(mi->strs[at]);
	model_free_inst(mi);
}

/* Deltas apply to the current value, or to zero for an absent field. */
void
model_apply_vals(struct minst *mi, uint64_t mask, const int64_t *deltas)
{
	unsigned	f, n = 0;
	uint64_t	bit, base;

	for (f = 0; f < mi->nfields && n < PROTO_MAX_FIELDS; f++) {
		bit = (uint64_t)1 << f;
		if ((mask & bit) == 0)
			continue;
		base = (mi->curp & bit) != 0 ? (uint64_t)mi->v[f] : 0;
		mi->v[f] = (int64_t)(base + (uint64_t)deltas[n++]);
		mi->curp |= bit;
	}
}

void
model_clear_fields(struct node_model *m, struct minst *mi, uint64_t mask)
{
	unsigned	f;
	int		slot;

	mask &= mi->curp;
	for (f = 0; f < mi->nfields; f++) {
		if ((mask & ((uint64_t)1 << f)) == 0)
			continue;
		mi->v[f] = 0;
		if ((slot = mi->mg->strslot[f]) >= 0 &&
		    mi->strs[slot] != NULL) {
			m->strbytes -= strlen(mi->strs[slot]);
			free(mi->strs[slot]);
			mi->strs[slot] = NULL;
		}
	}
	mi->curp &= ~mask;
}

void
model_set_str(struct node_model *m, struct minst *mi, unsigned field,
    const char *s, size_t len)
{
	int	slot = mi->mg->strslot[field];

	if (slot < 0)
		return;
	if (mi->strs[slot] == NULL || strlen(mi->strs[slot]) != len ||
	    memcmp(mi->strs[slot], s, len) != 0) {
		if (mi->strs[slot] != NULL)
			m->strbytes -= strlen(mi->strs[slot]);
		free(mi->strs[slot]);
		mi->strs[slot] = xstrndup(s, len);
		m->strbytes += len;
	}
	mi->curp |= (uint64_t)1 << field;
}

void
model_set_bye(struct node_model *m, uint32_t code, const char *text)
{
	free(m->bye_text);
	m->bye_text = xstrdup(text);
	m->bye_code = code;
	m->ended = 1;
}

int
model_group_index(const struct node_model *m, const char *name)
{
	if (m->schema == NULL)
		return -1;
	return proto_schema_group_index(m->schema->ps, name);
}

int
model_field_index(const struct node_model *m, unsigned g, const char *name)
{
	if (m->schema == NULL || g >= m->schema->ngroups)
		return -1;
	return proto_schema_field_index(m->schema->groups[g].def, name);
}

const struct mgroup *
model_group(const struct node_model *m, unsigned g)
{
	if (m->schema == NULL || g >= m->schema->ngroups)
		return NULL;
	return &m->schema->groups[g];
}

int
model_group_named(const struct node_model *m, unsigned g)
{
	const struct minst	*mi;

	if (m->schema == NULL || g >= m->schema->ngroups)
		return 0;
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if (mi->name[0] != '\0')
			return 1;
	}
	return 0;
}

const struct minst *
model_inst_by_name(const struct node_model *m, unsigned g, const char *name)
{
	const struct minst	*mi;

	if (m->schema == NULL || g >= m->schema->ngroups)
		return NULL;
	for (mi = m->gfirst[g]; mi != NULL; mi = mi->gnext) {
		if (strcmp(mi->name, name) == 0)
			return mi;
	}
	return NULL;
}

int
model_value(const struct minst *mi, unsigned f, int64_t *v)
{
	if (f >= mi->nfields || (mi->curp & ((uint64_t)1 << f)) == 0 ||
	    mi->mg->strslot[f] >= 0)
		return 0;
	*v = mi->v[f];
	return 1;
}

const char *
model_str(const struct minst *mi, unsigned f)
{
	int	slot;

	if (f >= mi->nfields || (mi->curp & ((uint64_t)1 << f)) == 0 ||
	    (slot = mi->mg->strslot[f]) < 0)
		return NULL;
	return mi->strs[slot];
}

/* Where counter f's previous value is: after the current values, the
 * counters in field order. */
static int64_t
model_prev(const struct minst *mi, unsigned f)
{
	uint64_t	below = mi->mg->ctrmask & (((uint64_t)1 << f) - 1);

	return mi->v[mi->nfields + (unsigned)__builtin_popcountll(below)];
}

uint64_t
model_prev_values(const struct minst *mi, int64_t *prev)
{
	uint64_t	ctr = mi->mg->ctrmask;
	unsigned	f, k = 0;

	for (f = 0; f < mi->nfields; f++)
		prev[f] = (ctr & ((uint64_t)1 << f)) != 0 ?
		    mi->v[mi->nfields + k++] : mi->v[f];
	return (mi->prevp & ctr) | (mi->curp & ~ctr);
}

/* A counter's increase over the last interval; 0 when it has none (new,
 * reappeared, went backwards: a reset is not a rate; or not a counter). */
static int
model_delta(const struct minst *mi, unsigned f, int64_t *d)
{
	uint64_t	bit = (uint64_t)1 << f;
	int64_t		delta;

	if ((mi->curp & mi->prevp & mi->mg->ctrmask & bit) == 0)
		return 0;
	delta = (int64_t)((uint64_t)mi->v[f] - (uint64_t)model_prev(mi, f));
	if (delta < 0)
		return 0;
	*d = delta;
	return 1;
}

int
model_metric(const struct node_model *m, const struct minst *mi, unsigned f,
    double *v)
{
	const struct proto_field	*pf;
	int64_t				 d, x;
	uint64_t			 bits;
	double				 secs, total = 0;

	if (f >= mi->nfields || mi->mg->strslot[f] >= 0 ||
	    (mi->curp & ((uint64_t)1 << f)) == 0)
		return 0;
	pf = &mi->mg->def->fields[f];
	if (pf->kind == PF_GAUGE) {
		if ((mi->mg->centimask & ((uint64_t)1 << f)) != 0)
			*v = (double)mi->v[f] / 100.0;
		else
			*v = (double)mi->v[f];
		return 1;
	}
	if (!model_delta(mi, f, &d) || m->dt_ms <= 0)
		return 0;
	secs = (double)m->dt_ms / 1000.0;
	if ((mi->mg->cpujmask & ((uint64_t)1 << f)) != 0) {
		/* Percent of the line's ticks, as top computes it. */
		for (bits = mi->mg->cpujmask & mi->curp & mi->prevp;
		    bits != 0; bits &= bits - 1) {
			if (model_delta(mi, (unsigned)__builtin_ctzll(bits),
			    &x))
				total += (double)x;
		}
		if (total <= 0)
			return 0;
		*v = (double)d * 100.0 / total;
	} else if ((mi->mg->jiffmask & ((uint64_t)1 << f)) != 0) {
		if (!m->have_hello || m->hello.clk_tck == 0)
			return 0;
		*v = (double)d * 100.0 / m->hello.clk_tck / secs;
	} else
		*v = (double)d / secs;
	return isfinite(*v);
}

const struct minst *
model_job_cgroup(const struct node_model *m, double *limit, double *peak,
    double *cpus)
{
	const struct minst	*mi;
	int64_t			 v;
	double			 x;
	int			 g, f;

	*limit = *peak = *cpus = NAN;
	if ((g = model_group_index(m, "cgroup")) < 0 ||
	    (mi = m->gfirst[g]) == NULL)
		return NULL;
	if ((f = model_field_index(m, (unsigned)g, "mem_max")) >= 0 &&
	    model_value(mi, (unsigned)f, &v) && v > 0)
		*limit = (double)v;
	if ((f = model_field_index(m, (unsigned)g, "mem_peak")) >= 0 &&
	    model_value(mi, (unsigned)f, &v))
		*peak = (double)v;
	if ((f = model_field_index(m, (unsigned)g, "cpu_usage")) >= 0 &&
	    model_metric(m, mi, (unsigned)f, &x) && isfinite(x))
		*cpus = x / 1e6;
	return mi;
}

int
model_metric_by_name(const struct node_model *m, const char *group,
    const char *inst, const char *field, double *v)
{
	const struct minst	*mi;
	int			 g, f;

	if ((g = model_group_index(m, group)) < 0 ||
	    (f = model_field_index(m, (unsigned)g, field)) < 0 ||
	    (mi = model_inst_by_name(m, (unsigned)g, inst)) == NULL)
		return 0;
	return model_metric(m, mi, (unsigned)f, v);
}

/* A known field's raw value (enum mgroup_known), in the instance's
 * group. */
static int
model_raw_known(const struct minst *mi, enum mgroup_known k, int64_t *v)
{
	int	f = mi->mg->known[k];

	return f >= 0 && model_value(mi, (unsigned)f, v);
}

/* A known field's metric, in the instance's group. */
static int
model_metric_known(const struct node_model *m, const struct minst *mi,
    enum mgroup_known k, double *v)
{
	int	f = mi->mg->known[k];

	return f >= 0 && model_metric(m, mi, (unsigned)f, v);
}

/* mem.used: total - available, as free(1) of procps 4 shows it. */
static int
model_mem_used(const struct node_model *m, const struct minst *mi, double *v)
{
	int64_t	total, avail;

	if (!model_raw_known(mi, MGF_TOTAL, &total) ||
	    !model_raw_known(mi, MGF_AVAILABLE, &avail))
		return 0;
	*v = (double)total - (double)avail;
	return 1;
}

/* cpu.busy: what is neither idle nor waiting for I/O. */
static int
model_cpu_busy(const struct node_model *m, const struct minst *mi, double *v)
{
	double	idle, iowait = 0;

	if (!model_metric_known(m, mi, MGF_IDLE, &idle))
		return 0;
	model_metric_known(m, mi, MGF_IOWAIT, &iowait);
	*v = 100.0 - idle - iowait;
	if (*v < 0)
		*v = 0;
	return 1;
}

/* rank.cputime: the cumulative CPU seconds ps shows as TIME. */
static int
model_rank_cputime(const struct node_model *m, const struct minst *mi,
    double *v)
{
	int64_t	ut, st;

	if (!m->have_hello || m->hello.clk_tck == 0 ||
	    !model_raw_known(mi, MGF_UTIME, &ut) ||
	    !model_raw_known(mi, MGF_STIME, &st))
		return 0;
	*v = ((double)ut + (double)st) / m->hello.clk_tck;
	return 1;
}

/* rank.cpu: percent of one CPU over the last interval, as top's %CPU. */
static int
model_rank_cpu(const struct node_model *m, const struct minst *mi, double *v)
{
	double	ut, st;

	int	fu = mi->mg->known[MGF_UTIME], fs = mi->mg->known[MGF_STIME];

	if (fu < 0 || fs < 0 || !model_metric(m, mi, (unsigned)fu, &ut) ||
	    !model_metric(m, mi, (unsigned)fs, &st))
		return 0;
	*v = ut + st;
	return 1;
}

/* rankmpi.share: percent of the rank's sampled CPU time in MPI over the
 * last interval (the mpi source's counters); none without samples. */
static int
model_rankmpi_share(const struct node_model *m, const struct minst *mi,
    double *v)
{
	double	ns, nm;

	if (!model_metric_known(m, mi, MGF_SAMPLES, &ns) ||
	    !model_metric_known(m, mi, MGF_MPI, &nm) || !(ns > 0) ||
	    !(nm >= 0))
		return 0;
	*v = nm >= ns ? 100.0 : nm * 100.0 / ns;
	return 1;
}

/*
 * The communication library a rank's COMM% is of (rankmpi.family: MPI,
 * NCCL, RCCL, oneCCL, UCC, gloo, c10d), for the rank with pid: NULL when
 * its node sends no rankmpi for it or names no family yet.  A probe from
 * before the family field (recordings made before it) counted MPI
 * libraries only: "MPI" when it has a share's counters.
 */
const char *
model_comm_family(const struct node_model *m, long long pid)
{
	const struct minst	*mi;
	const char		*s;
	char			 name[24];
	int			 g, f;

	if (m == NULL || (g = model_group_index(m, "rankmpi")) < 0)
		return NULL;
	snprintf(name, sizeof(name), "%lld", pid);
	if ((mi = model_inst_by_name(m, (unsigned)g, name)) == NULL)
		return NULL;
	if ((f = model_field_index(m, (unsigned)g, "family")) >= 0)
		return (s = model_str(mi, (unsigned)f)) != NULL && *s != '\0' ?
		    s : NULL;
	return model_field_index(m, (unsigned)g, "samples") >= 0 ? "MPI" :
	    NULL;
}

/* rank.start_wall: when the rank started, in Unix seconds: the node's
 * boot time (cpu.btime) plus the rank's start_time, clock ticks since
 * the boot.  None before the node sent its boot time (older probes). */
static int
model_rank_start_wall(const struct node_model *m, const struct minst *mi,
    double *v)
{
	const struct minst	*cm;
	int64_t			 st, bt;
	int			 g, f;

	if (!m->have_hello || m->hello.clk_tck == 0 ||
	    !model_raw_known(mi, MGF_START_TIME, &st) || st < 0 ||
	    (g = model_group_index(m, "cpu")) < 0 ||
	    (f = model_field_index(m, (unsigned)g, "btime")) < 0 ||
	    (cm = model_inst_by_name(m, (unsigned)g, "")) == NULL ||
	    !model_value(cm, (unsigned)f, &bt) || bt <= 0)
		return 0;
	*v = (double)bt + (double)st / m->hello.clk_tck;
	return 1;
}

const struct model_derived model_derived[] = {
	{ .group = "cpu", .name = "busy", .qname = "cpu.busy",
	    .fn = model_cpu_busy },
	{ .group = "mem", .name = "used", .qname = "mem.used",
	    .fn = model_mem_used },
	{ .group = "rank", .name = "cputime", .qname = "rank.cputime",
	    .fn = model_rank_cputime },
	{ .group = "rank", .name = "cpu", .qname = "rank.cpu",
	    .fn = model_rank_cpu },
	{ .group = "rank", .name = "start_wall", .qname = "rank.start_wall",
	    .fn = model_rank_start_wall },
	{ .group = "rankmpi", .name = "share", .qname = "rankmpi.share",
	    .fn = model_rankmpi_share },
	{ .group = NULL },
};

int
model_derive(const struct node_model *m, const struct minst *mi,
    const char *name, double *v)
{
	const struct model_derived	*d;
	unsigned			 i;

	/* The group's own rows, listed once per schema. */
	for (i = 0; i < mi->mg->nderived; i++) {
		d = &model_derived[mi->mg->derived[i]];
		if (strcmp(d->name, name) == 0)
			return d->fn(m, mi, v);
	}
	return 0;
}
