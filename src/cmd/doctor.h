/*
 * doctor.h - the probes of `sbx doctor` (doctor_probes.c) as the report
 * (doctor.c) uses them.  Internal to src/cmd/doctor*.c.
 *
 * A probe runs in a throw-away child: it tries one feature, writes a
 * one-line DETAIL and returns its state; probe_run() forks it, collects
 * both, and fails closed (no status from the kernel is "missing").
 */
#ifndef SBX_CMD_DOCTOR_H
#define SBX_CMD_DOCTOR_H

#include <stddef.h>

enum doctor_state { DOC_OK, DOC_LIMITED, DOC_MISSING };

/* A probe runs in the child; it fills DETAIL and returns its state. */
typedef enum doctor_state (*probe_fn)(char *detail, size_t len);

/* Fork, run FN in the child, collect its detail and state. */
enum doctor_state probe_run(probe_fn fn, char *detail, size_t len);

/* snprintf that cannot fail the caller: the report's one formatter. */
void doctor_fmt(char *buf, size_t len, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

/* The "sbx run" check (doctor_trial.c): a trial run through cmd_run. */
struct doctor_trial {
	char detail[256];
	char fix[1024]; /* the run's own message when it failed */
};
enum doctor_state doctor_trial_run(struct doctor_trial *t);

/* The probes, one per check (the names say which feature). */
enum doctor_state probe_userns(char *detail, size_t len);
enum doctor_state probe_mount(char *detail, size_t len);
enum doctor_state probe_proc(char *detail, size_t len);
enum doctor_state probe_own_proc(char *detail, size_t len);
enum doctor_state probe_net(char *detail, size_t len);
enum doctor_state probe_other_ns(char *detail, size_t len);
enum doctor_state probe_seccomp(char *detail, size_t len);
enum doctor_state probe_cgroup(char *detail, size_t len);
enum doctor_state probe_landlock(char *detail, size_t len);
enum doctor_state probe_pidfd(char *detail, size_t len);
enum doctor_state probe_close_range(char *detail, size_t len);
enum doctor_state probe_openat2(char *detail, size_t len);

#endif
