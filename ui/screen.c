/* SPDX-License-Identifier: ISC */
/*
 * screen: the terminal under curses.  Before anything starts, the terminal
 * is checked without touching it (a terminfo entry that can move the
 * cursor); then newterm() takes it, colours are fitted to COLORS and the
 * theme's roles become curses attributes.  SIGWINCH is caught into a
 * self-pipe the poll loop watches; while curses owns the terminal the log
 * writes nothing to stderr and fatal() restores the terminal first.
 */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <unistd.h>

#include "log.h"
#include "ui-priv.h"

static struct ui		*screen_active;	/* for the fatal hook */
static int			 screen_winch[2] = { -1, -1 };
static struct sigaction		 screen_old_winch;

int
screen_check(char *err, size_t errsz)
{
	const char	*term = getenv("TERM");
	char		*cup;
	char		 cap[] = "cup";
	int		 rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errsz, "the interactive monitor needs a terminal "
		    "on standard input and output; use -b for batch output");
		return -1;
	}
	if (term == NULL || *term == '\0') {
		snprintf(err, errsz, "TERM is not set, so the terminal cannot "
		    "be driven; set TERM or use -b for batch output");
		return -1;
	}
	if (strcmp(term, "dumb") == 0) {
		snprintf(err, errsz, "this terminal (TERM=dumb) cannot run the "
		    "interactive monitor; use -b for batch output");
		return -1;
	}
	if (setupterm(term, STDOUT_FILENO, &rc) != OK) {
		if (rc == -1)
			snprintf(err, errsz, "no terminfo database: cannot "
			    "drive TERM=%.64s; use -b for batch output", term);
		else
			snprintf(err, errsz, "unknown terminal type "
			    "TERM=%.64s (no terminfo entry); set TERM or use "
			    "-b for batch output", term);
		return -1;
	}
	cup = tigetstr(cap);
	rc = cup != NULL && cup != (char *)-1;
	del_curterm(cur_term);
	if (!rc) {
		snprintf(err, errsz, "this terminal (TERM=%.64s) cannot move "
		    "the cursor; use -b for batch output", term);
		return -1;
	}
	return 0;
}

static void
screen_on_winch(int sig)
{
	int	save = errno;
	char	c = (char)sig;
	ssize_t	n;

	n = write(screen_winch[1], &c, 1);
	(void)n;
	errno = save;
}

/* fatal(): give the terminal back before the message is printed. */
static void
screen_fatal_hook(void)
{
	if (screen_active != NULL && screen_active->started) {
		curs_set(1);
		endwin();
	}
}

/* A theme's attribute bits as curses attributes. */
static attr_t
screen_attrs(unsigned a)
{
	attr_t	r = A_NORMAL;

	if (a & THEME_BOLD)
		r |= A_BOLD;
	if (a & THEME_DIM)
		r |= A_DIM;
	if (a & THEME_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & THEME_REVERSE)
		r |= A_REVERSE;
	if (a & THEME_STANDOUT)
		r |= A_STANDOUT;
	if (a & THEME_ITALIC)
		r |= A_ITALIC;
	if (a & THEME_BLINK)
		r |= A_BLINK;
	return r;
}

void
screen_apply_theme(struct ui *ui)
{
	const struct theme_style	*st;
	int				 i, fg, bg;

	for (i = 0; i < TR_NROLES; i++) {
		st = &ui->theme->style[i];
		ui->attr[i] = screen_attrs(st->attr);
		if (ui->colors <= 0 || i + 1 >= COLOR_PAIRS)
			continue;
		fg = theme_fit_color(st->fg, ui->colors);
		bg = theme_fit_color(st->bg, ui->colors);
		init_pair((short)(i + 1), (short)fg, (short)bg);
		ui->attr[i] |= COLOR_PAIR(i + 1);
	}
	/* Table rows keep the background of the default role. */
	bkgdset(' ' | ui->attr[TR_DEFAULT]);
	ui->dirty = 1;
}

int
screen_start(struct ui *ui, FILE *out, FILE *in, const char *term, int rows,
    int cols, char *err, size_t errsz)
{
	struct sigaction	sa;
	const char		*cs;

	/* The character set only: numbers keep the C locale's format. */
	setlocale(LC_CTYPE, "");
	if ((ui->scr = newterm(term, out, in)) == NULL) {
		snprintf(err, errsz, "cannot start curses on this terminal");
		return -1;
	}
	set_term(ui->scr);
	ui->scr_out = out;
	ui->scr_in = in;
	ui->started = 1;
	screen_active = ui;
	log_set_fatal_hook(screen_fatal_hook);
	if (ui->own_tty)
		log_set_terminal_owned(1);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (rows > 0 && cols > 0)
		resizeterm(rows, cols);

	if (ui->conf.utf8 >= 0)
		ui->utf8 = ui->conf.utf8;
	else {
		cs = nl_langinfo(CODESET);
		ui->utf8 = cs != NULL && (strcmp(cs, "UTF-8") == 0 ||
		    strcmp(cs, "utf8") == 0);
	}
	ui->colors = 0;
	if (!ui->no_color && has_colors()) {
		start_color();
		use_default_colors();
		ui->colors = COLORS;
	}
	screen_apply_theme(ui);

	if (ui->own_tty) {
		if (pipe2(screen_winch, O_CLOEXEC | O_NONBLOCK) == 0) {
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = screen_on_winch;
			sigemptyset(&sa.sa_mask);
			sa.sa_flags = SA_RESTART;
			sigaction(SIGWINCH, &sa, &screen_old_winch);
		}
	}
	getmaxyx(stdscr, ui->rows, ui->cols);
	ui->dirty = 1;
	return 0;
}

void
screen_stop(struct ui *ui)
{
	if (!ui->started)
		return;
	if (ui->own_tty && screen_winch[0] >= 0) {
		sigaction(SIGWINCH, &screen_old_winch, NULL);
		close(screen_winch[0]);
		close(screen_winch[1]);
		screen_winch[0] = screen_winch[1] = -1;
	}
	curs_set(1);
	endwin();
	delscreen(ui->scr);
	ui->scr = NULL;
	ui->started = 0;
	screen_active = NULL;
	log_set_fatal_hook(NULL);
	log_set_terminal_owned(0);
}

int
screen_winch_fd(const struct ui *ui)
{
	return ui->own_tty ? screen_winch[0] : -1;
}

void
screen_resize(struct ui *ui)
{
	struct winsize	ws;
	char		drain[64];

	if (screen_winch[0] >= 0)
		while (read(screen_winch[0], drain, sizeof(drain)) > 0)
			;
	if (ui->own_tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	getmaxyx(stdscr, ui->rows, ui->cols);
	clearok(curscr, TRUE);
	ui->dirty = 1;
}
