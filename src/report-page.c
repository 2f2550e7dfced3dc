/* SPDX-License-Identifier: ISC */
/*
 * report-page: the HTML page of `jobtop report`, in the pieces report.c
 * writes in order around the body it draws (static HTML and SVG).  Here:
 * a style sheet (with a print layout), an error catcher that lists script
 * errors in #jt-errors (the regress test reads it), and a small script
 * that only lets the tables be sorted by a click: the page is complete
 * without any script.  report.c writes the content security policy
 * between the first two pieces: it forbids any fetch and allows exactly
 * these two scripts, by their SHA-256 hashes.
 */
#include <stdint.h>
#include <string.h>

#include "report.h"
#include "sha256.h"
#include "xmalloc.h"

const char report_page_head[] =
	"<!DOCTYPE html>\n"
	"<html lang=\"en\">\n"
	"<head>\n"
	"<meta charset=\"utf-8\">\n";

/* After the policy (report.c writes it with the scripts' hashes). */
const char report_page_style[] =
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1"
	"\">\n"
	"<style>\n"
	":root { --fg: #1d2330; --muted: #667085; --grid: #e4e7ec; --panel:"
	" #f8f9fb;\n"
	"  --warn: #b54708; --err: #b42318; }\n"
	"body { font: 14px/1.45 system-ui, -apple-system, \"Segoe UI\", Rob"
	"oto, sans-serif;\n"
	"  color: var(--fg); background: #fff; margin: 24px auto; max-width"
	": 1240px;\n"
	"  padding: 0 16px; }\n"
	"h1 { font-size: 22px; margin: 0 0 8px; }\n"
	"h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px;\n"
	"  border-bottom: 1px solid var(--grid); }\n"
	"table.meta { border-collapse: collapse; margin-top: 12px; }\n"
	"table.meta td { padding: 2px 16px 2px 0; vertical-align: top; }\n"
	"table.meta td:first-child { color: var(--muted); white-space: nowr"
	"ap; }\n"
	"table.verdict { border-collapse: collapse; width: 100%; }\n"
	"table.verdict th { text-align: left; white-space: nowrap; padding:"
	" 4px 14px 4px 8px;\n"
	"  vertical-align: top; color: var(--muted); font-weight: 600; }\n"
	"table.verdict td { padding: 4px 8px; }\n"
	"table.verdict tr { border-left: 4px solid #16a34a; }\n"
	"table.verdict tr.bad { border-left-color: var(--warn); background:"
	" #fffaeb; }\n"
	"table.stats, table.events { border-collapse: collapse; width: 100%"
	"; font-size: 12px; }\n"
	"table.stats th, table.stats td, table.events th, table.events td {"
	"\n"
	"  text-align: left; padding: 3px 8px; border-bottom: 1px solid var"
	"(--grid);\n"
	"  vertical-align: top; }\n"
	"table.stats th, table.events th { color: var(--muted); font-weight"
	": 600; }\n"
	"table.stats th small { font-weight: 400; }\n"
	"td.num { text-align: right; white-space: nowrap; font-variant-nume"
	"ric: tabular-nums; }\n"
	"table.sortable th { cursor: pointer; }\n"
	".grid { display: grid; gap: 14px;\n"
	"  grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); }"
	"\n"
	".plot { background: var(--panel); border: 1px solid var(--grid);\n"
	"  border-radius: 6px; padding: 8px 10px; margin: 0; break-inside: "
	"avoid; }\n"
	".plot figcaption { font-size: 13px; margin: 0 0 4px; font-weight: "
	"600; }\n"
	".plot figcaption small { color: var(--muted); font-weight: 400; }"
	"\n"
	"svg.chart { width: 100%; height: auto; display: block; }\n"
	"svg.chart text { font-size: 10px; fill: var(--muted); }\n"
	"svg.chart .hgrid { stroke: #e4e7ec; stroke-width: 1; }\n"
	"svg.chart .vgrid { stroke: #eef0f3; stroke-width: 1; }\n"
	"svg.chart path.series { fill: none; stroke-width: 1.4; stroke-line"
	"join: round; }\n"
	"svg.chart path.median { stroke-width: 1.6; }\n"
	"svg.chart path.outlier { stroke-width: 1.4; }\n"
	"svg.chart path.band { fill: #93c5fd; fill-opacity: 0.45; stroke: n"
	"one; }\n"
	".marker line { stroke-width: 1.2; stroke-dasharray: 3 2; }\n"
	".mk-stalled line { stroke: #ea580c; } .mk-stalled rect, i.mk-stall"
	"ed { fill: #ea580c; background: #ea580c; }\n"
	".mk-straggler line { stroke: #9333ea; } .mk-straggler rect, i.mk-s"
	"traggler { fill: #9333ea; background: #9333ea; }\n"
	".mk-memory line { stroke: #dc2626; } .mk-memory rect, i.mk-memory "
	"{ fill: #dc2626; background: #dc2626; }\n"
	".mk-lost line { stroke: #4b5563; } .mk-lost rect, i.mk-lost { fill"
	": #4b5563; background: #4b5563; }\n"
	".mk-failed line { stroke: #111827; } .mk-failed rect, i.mk-failed "
	"{ fill: #111827; background: #111827; }\n"
	".mk-oom line { stroke: #7f1d1d; } .mk-oom rect, i.mk-oom { fill: #"
	"7f1d1d; background: #7f1d1d; }\n"
	".mk-error line { stroke: #b42318; } .mk-error rect, i.mk-error { f"
	"ill: #b42318; background: #b42318; }\n"
	"span.flag { white-space: nowrap; font-weight: 600; }\n"
	"span.mk-stalled { color: #ea580c; } span.mk-straggler { color: #93"
	"33ea; }\n"
	"span.mk-memory { color: #dc2626; } span.mk-lost { color: #4b5563; "
	"}\n"
	"span.mk-failed { color: #111827; } span.mk-oom { color: #7f1d1d; }"
	"\n"
	".legend { font-size: 11px; color: var(--muted); margin-top: 4px; }"
	"\n"
	".legend span { margin-right: 10px; white-space: nowrap; display: i"
	"nline-block; }\n"
	".legend i { display: inline-block; width: 12px; height: 3px;\n"
	"  vertical-align: middle; margin-right: 4px; }\n"
	".legend i.band-key { height: 8px; background: #93c5fd; }\n"
	".lvl-warn { color: var(--warn); }\n"
	".lvl-error { color: var(--err); font-weight: 600; }\n"
	".none, .note { color: var(--muted); font-style: italic; }\n"
	".warning { background: #fffaeb; border: 1px solid #fedf89; padding"
	": 6px 10px;\n"
	"  border-radius: 4px; margin: 8px 0; }\n"
	"#jt-errors { color: var(--err); white-space: pre-wrap; margin: 0; "
	"}\n"
	"footer { margin-top: 32px; color: var(--muted); font-size: 12px; }"
	"\n"
	"@media print {\n"
	"  body { margin: 0; max-width: none; font-size: 11px; }\n"
	"  .grid { display: block; }\n"
	"  .plot { margin-bottom: 10px; page-break-inside: avoid; }\n"
	"  h2 { page-break-after: avoid; }\n"
	"  table.verdict tr.bad { background: none; }\n"
	"  tr { page-break-inside: avoid; }\n"
	"  #jt-errors { display: none; }\n"
	"}\n"
	"</style>\n";

/* The error catcher, first of the page's two scripts (the text between
 * <script> and </script>, as its hash in the policy covers). */
const char report_page_catcher_js[] =
	"\n"
	"window.jtErrors = [];\n"
	"function jtShowErrors() {\n"
	"  var el = document.getElementById(\"jt-errors\");\n"
	"  if (!el) return;\n"
	"  el.setAttribute(\"data-count\", String(window.jtErrors.length));\n"
	"  el.textContent = window.jtErrors.length ? \"Errors in this page: \" "
	"+\n"
	"    window.jtErrors.join(\"\\n\") : \"\";\n"
	"}\n"
	"window.addEventListener(\"error\", function (e) {\n"
	"  window.jtErrors.push(String(e.message || e));\n"
	"  jtShowErrors();\n"
	"});\n";

const char report_page_body[] =
	"</head>\n"
	"<body>\n"
	"<pre id=\"jt-errors\" data-count=\"0\"></pre>\n";

/* After the body: sorting the node and rank tables by a click. */
const char report_page_sort_js[] =
	"\n"
	"(function () {\n"
	"\"use strict\";\n"
	"/* Click a column heading of a node or rank table to sort by it (a"
	"gain:\n"
	" * the other way).  The page is complete without this. */\n"
	"function key(td) {\n"
	"  var v = td.getAttribute(\"data-v\");\n"
	"  if (v !== null) return parseFloat(v);\n"
	"  var n = parseFloat(td.textContent);\n"
	"  return isNaN(n) ? td.textContent : n;\n"
	"}\n"
	"Array.prototype.forEach.call(document.querySelectorAll(\"table.sor"
	"table\"),\n"
	"  function (t) {\n"
	"    var ths = t.querySelectorAll(\"thead th\"), body = t.tBodies[0"
	"];\n"
	"    Array.prototype.forEach.call(ths, function (th, c) {\n"
	"      th.addEventListener(\"click\", function () {\n"
	"        var rows = Array.prototype.slice.call(body.rows),\n"
	"          dir = th.getAttribute(\"data-dir\") === \"1\" ? -1 : 1;"
	"\n"
	"        th.setAttribute(\"data-dir\", dir === 1 ? \"1\" : \"-1\");"
	"\n"
	"        rows.sort(function (a, b) {\n"
	"          var x = key(a.cells[c]), y = key(b.cells[c]);\n"
	"          return (x < y ? -1 : x > y ? 1 : 0) * dir;\n"
	"        });\n"
	"        rows.forEach(function (r) { body.appendChild(r); });\n"
	"      });\n"
	"    });\n"
	"  });\n"
	"document.body.setAttribute(\"data-jt-ready\", \"1\");\n"
	"jtShowErrors();\n"
	"})();\n";

const char report_page_end[] =
	"</body>\n"
	"</html>\n";

/* 'sha256-BASE64' of a script's text, as a policy names it. */
static void
report_page_hash(const char *js, char out[64])
{
	static const char	 b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	struct sha256		 c;
	uint8_t			 h[SHA256_LEN];
	uint32_t		 v;
	size_t			 i, o = 0;

	sha256_init(&c);
	sha256_update(&c, js, strlen(js));
	sha256_final(&c, h);
	for (i = 0; i < SHA256_LEN; i += 3) {
		v = (uint32_t)h[i] << 16;
		if (i + 1 < SHA256_LEN)
			v |= (uint32_t)h[i + 1] << 8;
		if (i + 2 < SHA256_LEN)
			v |= h[i + 2];
		out[o++] = b64[(v >> 18) & 63];
		out[o++] = b64[(v >> 12) & 63];
		out[o++] = i + 1 < SHA256_LEN ? b64[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < SHA256_LEN ? b64[v & 63] : '=';
	}
	out[o] = '\0';
}

/* Hashed when the page is written, from the very bytes written: the
 * policy cannot fall behind an edit of a script. */
char *
report_page_csp(void)
{
	char	a[64], b[64];

	report_page_hash(report_page_catcher_js, a);
	report_page_hash(report_page_sort_js, b);
	return xasprintf("default-src 'none'; style-src 'unsafe-inline'; "
	    "script-src 'sha256-%s' 'sha256-%s'; img-src data:; "
	    "base-uri 'none'; form-action 'none'", a, b);
}
