/* SPDX-License-Identifier: ISC */
/*
 * out: how batch mode and --decode print what the model holds.  An output
 * is one const descriptor; out-json.c writes newline-delimited JSON
 * records, out-text.c a compact top-like text.  Outputs only read the
 * model, and print each record whole (the caller flushes).
 */
#ifndef JOBTOP_OUT_H
#define JOBTOP_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "proto.h"
#include "rec.h"

/* The job at a glance (batch mode watching a job, once per interval). */
struct out_job {
	const char	*id;		/* the job id */
	long		 ranks;		/* its ranks (rank ids), -1: no
					 * process has one */
	long		 procs;		/* its processes */
	long		 ntasks;	/* tasks the scheduler expects, -1
					 * unknown */
	const char	*state;		/* final state ("COMPLETED") once
					 * the job ended, else NULL */
};

struct output {
	const char	*name;
	/* The node's HELLO (--decode shows it; live batch mode does not). */
	void		(*hello)(FILE *, const struct node_model *);
	/* The sample just applied: the node, then its ranks. */
	void		(*sample)(FILE *, const struct node_model *);
	/* An event, with what it is about when that is known (a
	 * detector's, a recording's of minor 2 on), else NULL. */
	void		(*event)(FILE *, const struct node_model *,
			    const struct proto_event *,
			    const struct rec_subject *);
	/* The probe said BYE. */
	void		(*bye)(FILE *, const struct node_model *);
	/* A node's transport state changed ("live", "lost: ...",
	 * "failed: ..."): node name, wall-clock ms, the new state, its
	 * phase (enum feed_phase, -1 unknown). */
	void		(*state)(FILE *, const char *, uint64_t, const char *,
			    int);
	/* The job's line at unix ms; with state set, the job ended (the
	 * scheduler said so) and this is the run's last record. */
	void		(*job)(FILE *, uint64_t, const struct out_job *);
	/* A node's transport ("ssh") is known or changed: node name,
	 * wall-clock ms, the transport, why cheaper ones were skipped
	 * ("" none). */
	void		(*transport)(FILE *, const char *, uint64_t,
			    const char *, const char *);
};

extern const struct output out_json;
extern const struct output out_text;

/* The group whose instances are the job's ranks (one record each). */
#define OUT_RANK_GROUP	"rank"

#endif
