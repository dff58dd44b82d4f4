/*
 * trust.h - which policy files and config directory sbx believes when run
 * by root (see trust.c).
 */
#ifndef SBX_POLICY_TRUST_H
#define SBX_POLICY_TRUST_H

#include <stdbool.h>
#include <stddef.h>

/* True when policy files are checked: sbx runs as root. */
bool policy_trust_needed(void);

/*
 * Why the policy file open as FD (opened by PATH) must not be loaded, in
 * BUF, or NULL when it may (always NULL unless policy_trust_needed()).
 */
const char *policy_file_untrusted(int fd, const char *path, char *buf, size_t cap);

/*
 * The user's policy directory, malloc'd: $XDG_CONFIG_HOME/sbx, else
 * $HOME/.config/sbx; run by root, only when root owns it and every
 * directory above it, else root's home from the password database.
 * NULL when there is none.
 */
char *policy_config_dir(void);

#endif
