/*
 * terminal.h - `sbx run -i`: the caller's terminal and the jail's pty
 * (private to supervise/).
 *
 * The program's 0, 1, 2 are a pty of the jail's own devpts; sbx holds its
 * master, sent by the init with CTL_READY.  While the jail runs, the
 * caller's terminal (sbx's fd 0) is in raw mode, so every key, Ctrl-C and
 * Ctrl-Z too, is a byte for the jail's line discipline to act on, and the
 * loop relays both ways: the master's output is the stdout stream (within
 * the output limit), sbx's fd 0 is the stdin relay into the master.  The
 * window size is copied at the start and on every SIGWINCH.  The caller's
 * settings are restored on every way out of supervise_run, before the
 * record is written, and around a stop of sbx.
 */
#ifndef SBX_SUPERVISE_TERMINAL_H
#define SBX_SUPERVISE_TERMINAL_H

#include <stdbool.h>
#include <termios.h>

struct terminal {
	int fd;                 /* the caller's terminal: sbx's fd 0; -1 = not -i */
	int master;             /* the jail's pty master (the relay owns it); -1 */
	bool saved, raw;
	struct termios caller;  /* the settings to restore */
};

void terminal_init(struct terminal *t, bool interactive);
/* The caller's terminal in raw mode (its settings saved first); -1 and
 * errno when it cannot be read or set. */
int terminal_raw(struct terminal *t);
/* The caller's settings back, if they were changed (never blocks). */
void terminal_restore(struct terminal *t);
/* The caller's window size onto the jail's pty (the kernel then sends
 * SIGWINCH to the jail's foreground group). */
void terminal_copy_size(const struct terminal *t);

#endif
