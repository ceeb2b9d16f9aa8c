/* The status line (prompt, message, view summary, keys), the help pane, and the screen layout. */
#include "tui/app.h"
#include <stdio.h>
#include <string.h>

void view_status_draw(struct screen *s, const struct top_app *a, int y)
{
	const struct top_model *m = top_app_model(a);
	char buf[512];
	screen_fill(s, y, 0, s->w, ' ', 0);
	if (a->prompt == TOP_PROMPT_FILTER) {
		int x = screen_put(s, y, 0, "filter (regex or param=value; ^U clears, Esc cancels): ", SA_BOLD);
		x += screen_put(s, y, x, a->input.buf, 0);
		screen_fill(s, y, x, 1, ' ', SA_REVERSE);
		return;
	}
	if (a->prompt == TOP_PROMPT_CONFIRM) {
		const char *what = a->confirm == TOP_ACT_CANCEL ? "cancel" : "retry";
		screen_printf(s, y, 0, SA_BOLD | SA_REVERSE | SA_COLOR(SC_RED), "%s %zu run%s? [y/N]",
			      what, a->nconfirm, a->nconfirm == 1 ? "" : "s");
		return;
	}
	if (a->message[0]) {
		screen_put(s, y, 0, a->message, a->message_error ? SA_BOLD | SA_COLOR(SC_RED) : SA_BOLD);
		return;
	}
	int n = snprintf(buf, sizeof(buf), "%zu/%zu runs", m->nview, m->nrows);
	if (m->nmarked && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %lld marked", m->nmarked);
	if (m->filter.text && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, " filter '%s'", m->filter.text);
	int x = screen_put(s, y, 0, buf, SA_BOLD);
	static const char keys[] = "  ?:help /:filter <>:sort Enter:details c:cancel q:quit";
	const char *k = a->mode == TOP_MODE_TABLE ? keys
		      : a->mode == TOP_MODE_DETAILS ? "  Up/Down:other run Esc:back"
						    : "  Up/Down/PgUp/PgDn:scroll Esc:back";
	if (a->nmodels > 1 && a->mode == TOP_MODE_TABLE)
		x += screen_put(s, y, x, "  Tab:campaign", SA_DIM);
	screen_put(s, y, x, k, SA_DIM);
}

void view_help_draw(struct screen *s, const struct top_app *a, int y, int height)
{
	int row = y;
	screen_fill(s, row, 0, s->w, ' ', SA_REVERSE);
	screen_put(s, row++, 0, "keys (Esc: back)", SA_REVERSE | SA_BOLD);
	int nhelp = 0;
	while (a->help && a->help[nhelp])
		nhelp++;
	int first = a->pane_scroll < nhelp ? a->pane_scroll : (nhelp ? nhelp - 1 : 0);
	for (int i = first; i < nhelp && row < y + height; i++)
		screen_put(s, row++, 1, a->help[i], 0);
}

void view_draw(struct screen *s, struct top_app *a)
{
	screen_clear(s);
	view_header_draw(s, a, 0);
	view_flags_line(s, a, 3);
	int body = TOP_HEADER_ROWS, height = s->h - TOP_HEADER_ROWS - TOP_FOOTER_ROWS;
	if (height < 1)
		height = 1;
	switch (a->mode) {
	case TOP_MODE_DETAILS: view_details_draw(s, a, body, height); break;
	case TOP_MODE_HELP: view_help_draw(s, a, body, height); break;
	case TOP_MODE_VALIDATE: view_flags_pane(s, a, body, height); break;
	default: view_table_draw(s, a, body, top_table_rows(s->h)); break;
	}
	view_status_draw(s, a, s->h - 1);
}
