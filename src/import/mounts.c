/*
 * mounts.c - nsjail's mount {} entries and mount_proc -> sbx's mount table.
 *
 * Both build the jail on an empty root, in order, so most entries map one
 * to one: is_bind -> BIND (mandatory: false -> optional), fstype "tmpfs"
 * -> TMPFS (options size=N -> size_mb), fstype "proc" -> PROC,
 * is_symlink -> SYMLINK.  The differences:
 *   - sbx always mounts a workspace; a bind at /mnt/data (the usual
 *     submission directory) becomes it, and is passed with --workdir;
 *   - sbx's binds are nodev, so host device nodes bound into /dev become
 *     one DEV mount (null, zero, full, random, urandom);
 *   - src_content, prefix_*_env and other file systems have no
 *     counterpart and are noted.
 * The policy loader then applies sbx's own mount rules (nsjail.c).
 */
#include "import/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024ull * 1024)

static const char *const ws_candidates[] = { "/mnt/data", "/workspace", "/sbx-workspace" };
static const char *const sbx_devices[] = { "null", "zero", "full", "random", "urandom", NULL };
/* links sbx's DEV mount makes itself */
static const char *const sbx_dev_links[] = { "/dev/fd", "/dev/stdin", "/dev/stdout",
					     "/dev/stderr", NULL };

struct mount_state {
	const struct pvalue *ws_mount; /* the bind that became the workspace */
	bool dev_done, proc_done, etc_done;
};

static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* A bind at /mnt/data is the workspace; else the first path no mount touches. */
static int choose_workspace(struct nj_xlate *x, struct mount_state *st)
{
	const struct pvalue *m;
	const char *ws = NULL;
	char *q, *line;
	struct ppos at = { x->file, 0, 0 };

	for (size_t i = 0; (m = nj_nth(x->top, "mount", i)); i++)
		if (nj_bool(m, "is_bind", false) && !strcmp(nj_str(m, "dst", ""), ws_candidates[0]) &&
		    !nj_get(m, "prefix_dst_env")) {
			st->ws_mount = m;
			ws = ws_candidates[0];
			at = m->at;
			break;
		}
	for (size_t k = 0; !ws && k < sizeof(ws_candidates) / sizeof(ws_candidates[0]); k++) {
		bool clash = false;

		for (size_t i = 0; !clash && (m = nj_nth(x->top, "mount", i)); i++) {
			const char *dst = nj_str(m, "dst", "");

			clash = *dst && (within(dst, ws_candidates[k]) || within(ws_candidates[k], dst));
		}
		if (!clash)
			ws = ws_candidates[k];
	}
	if (!ws)
		ws = ws_candidates[2];
	if (!(x->workspace = strdup(ws)) || !(q = nj_quote(ws)))
		return nj_add(x, SECT_TOP, NULL, NULL, NULL);
	line = nj_fmt(x, "workspace: %s", q);
	free(q);
	return nj_add(x, SECT_TOP, &at, line, "%s",
		      st->ws_mount ? "the bind at the workspace path is sbx's workspace"
				   : "sbx always mounts a writable workspace (nsjail had none)");
}

/* "mount { dst: D type: T ... }" with the flags that differ from sbx's defaults. */
static char *mount_line(struct nj_xlate *x, const char *dst, const char *type,
			const char *src, const char *extra)
{
	char *qd = nj_quote(dst), *qs = src ? nj_quote(src) : NULL, *line = NULL;

	if (qd && (!src || qs))
		line = nj_fmt(x, "mount { dst: %s type: %s%s%s%s }", qd, type,
			      src ? " src: " : "", src ? qs : "", extra);
	free(qd);
	free(qs);
	return line;
}

static int add_mount(struct nj_xlate *x, const struct pvalue *m, const char *dst,
		     const char *type, const char *src, const char *extra, const char *why)
{
	char *line = mount_line(x, dst, type, src, extra);

	return why ? nj_add(x, SECT_MOUNTS, &m->at, line, "%s", why)
		   : nj_add(x, SECT_MOUNTS, &m->at, line, NULL);
}

static int dev_mount(struct nj_xlate *x, const struct pvalue *m, struct mount_state *st,
		     const char *why)
{
	if (st->dev_done)
		return 0;
	st->dev_done = true;
	return add_mount(x, m, "/dev", "DEV", NULL, "", why);
}

/* A host device node bound into the jail (sbx's binds are nodev). */
static int device_bind(struct nj_xlate *x, const struct pvalue *m, struct mount_state *st,
		       const char *src, const char *dst)
{
	const char *name = src + strlen("/dev/");

	if (!in_list(name, sbx_devices) || strcmp(src, dst) != 0)
		if (nj_note(x, &m->at, "mount: device %.200s at %.200s: sbx's /dev holds only "
			    "null, zero, full, random, urandom (and shm); no other host device "
			    "reaches the jail", src, dst) < 0)
			return -1;
	return dev_mount(x, m, st, "host device nodes -> sbx's minimal /dev (null zero full "
			 "random urandom)");
}

static int bind_mount(struct nj_xlate *x, const struct pvalue *m, struct mount_state *st,
		      const char *src, const char *dst)
{
	bool rw = nj_bool(m, "rw", false), opt = !nj_bool(m, "mandatory", true);
	char extra[64];
	const char *why;

	if (m == st->ws_mount)
		return nj_note(x, &m->at, "mount: %.200s bound at the workspace path %s: sbx "
			       "mounts its workspace there; pass the directory with "
			       "`--workdir %.200s`%s", src, dst, src,
			       rw ? "" : " (sbx's workspace is writable; nsjail's bind was not)");
	if (!strncmp(src, "/dev/", 5))
		return device_bind(x, m, st, src, dst);
	if (!strcmp(dst, "/dev"))
		return dev_mount(x, m, st, "the host's /dev -> sbx's minimal /dev");
	if (!strcmp(dst, "/proc")) {
		st->proc_done = true;
		return add_mount(x, m, dst, "PROC", NULL, "", "the host's /proc -> a fresh /proc "
				 "of the jail (sbx never shows the host's)");
	}
	if (!strcmp(dst, "/"))
		return nj_note(x, &m->at, "mount: %.200s at /: sbx's root is always a fresh tmpfs; "
			       "bind the directories the program needs (see the 'host' policy)", src);
	if ((why = policy_path_problem(src)))
		return nj_note(x, &m->at, "mount: src \"%.200s\": %s", src, why);
	if (*nj_str(m, "options", "") &&
	    nj_note(x, &m->at, "mount %.200s: options \"%.100s\" ignored (sbx binds are nosuid, "
		    "nodev)", dst, nj_str(m, "options", "")) < 0)
		return -1;
	snprintf(extra, sizeof(extra), "%s%s%s", rw ? " rw: true" : "",
		 opt ? " optional: true" : "", nj_bool(m, "noexec", false) ? " noexec: true" : "");
	if (!strcmp(dst, "/etc"))
		st->etc_done = true;
	return add_mount(x, m, dst, "BIND", src, extra, NULL);
}

/* "size=20971520", "size=20m", "size=1G": ceil MiB; 0 when not given or %. */
static uint64_t tmpfs_size_mb(const char *opts, char *other, size_t size)
{
	uint64_t mb = 0;
	char *copy = strdup(opts), *save = NULL;

	other[0] = '\0';
	for (char *o = copy ? strtok_r(copy, ",", &save) : NULL; o; o = strtok_r(NULL, ",", &save)) {
		char *end;
		uint64_t v;

		if (strncmp(o, "size=", 5) != 0 || o[5] < '0' || o[5] > '9') {
			snprintf(other + strlen(other), size - strlen(other), "%s%.60s",
				 *other ? "," : "", o);
			continue;
		}
		v = strtoull(o + 5, &end, 10);
		if (*end == 'k' || *end == 'K')
			v = v / 1024 + (v % 1024 != 0);
		else if (*end == 'g' || *end == 'G')
			v = v > UINT32_MAX ? UINT32_MAX : v * 1024;
		else if (*end != 'm' && *end != 'M')
			v = v / MIB + (v % MIB != 0);
		mb = *end == '%' || v == 0 ? 0 : v;
	}
	free(copy);
	return mb;
}

static int tmpfs_mount(struct nj_xlate *x, const struct pvalue *m, const char *dst)
{
	char other[128], extra[96];
	uint64_t mb = tmpfs_size_mb(nj_str(m, "options", ""), other, sizeof(other));

	if (*other && nj_note(x, &m->at, "mount %.200s: tmpfs options \"%.100s\" ignored",
			      dst, other) < 0)
		return -1;
	if (mb > limit_max[LIM_MEMORY_MB])
		mb = limit_max[LIM_MEMORY_MB];
	snprintf(extra, sizeof(extra), "%s%s%s", nj_bool(m, "rw", false) ? " rw: true" : "",
		 nj_bool(m, "noexec", false) ? " noexec: true" : "", mb ? " size_mb: " : "");
	if (mb)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), "%" PRIu64, mb);
	return add_mount(x, m, dst, "TMPFS", NULL, extra,
			 mb ? NULL : "no size: the kernel's default is half the RAM, sbx's is "
			 "20 MiB (size_mb sets it; it counts against memory_mb)");
}

static int fs_mount(struct nj_xlate *x, const struct pvalue *m, struct mount_state *st,
		    const char *dst, const char *fstype)
{
	if (!strcmp(fstype, "tmpfs"))
		return tmpfs_mount(x, m, dst);
	if (!strcmp(fstype, "proc")) {
		if (nj_bool(m, "rw", false) &&
		    nj_note(x, &m->at, "mount %.200s: rw proc: sbx's /proc is read-only", dst) < 0)
			return -1;
		st->proc_done = st->proc_done || !strcmp(dst, "/proc");
		return add_mount(x, m, dst, "PROC", NULL, "", NULL);
	}
	return nj_note(x, &m->at, "mount %.200s: sbx mounts no \"%.40s\" file system (only "
		       "binds, tmpfs, proc, a minimal /dev and symlinks)", dst, fstype);
}

static int symlink_mount(struct nj_xlate *x, const struct pvalue *m, struct mount_state *st,
			 const char *src, const char *dst)
{
	if (st->dev_done && in_list(dst, sbx_dev_links))
		return nj_note(x, &m->at, "mount: symlink %.200s: sbx's /dev makes it itself", dst);
	if (!*src)
		return nj_note(x, &m->at, "mount: symlink %.200s has no target (src)", dst);
	return add_mount(x, m, dst, "SYMLINK", src, "", NULL);
}

static int one_mount(struct nj_xlate *x, const struct pvalue *m, struct mount_state *st)
{
	const char *dst = nj_str(m, "dst", ""), *src = nj_str(m, "src", "");
	const char *fstype = nj_str(m, "fstype", ""), *why;

	if (*nj_str(m, "prefix_src_env", "") || *nj_str(m, "prefix_dst_env", ""))
		return nj_note(x, &m->at, "mount %.200s: prefix_src_env/prefix_dst_env: sbx "
			       "takes no path from the environment; write the path out", dst);
	if (nj_get(m, "src_content"))
		return nj_note(x, &m->at, "mount %.200s: src_content: sbx cannot make a file "
			       "from text; put it in a host file and bind it, or pass it "
			       "with -f into the workspace", dst);
	if ((why = policy_path_problem(dst)))
		return nj_note(x, &m->at, "mount: dst \"%.200s\": %s", dst, why);
	if (nj_bool(m, "is_symlink", false))
		return symlink_mount(x, m, st, src, dst);
	if (nj_bool(m, "is_bind", false))
		return bind_mount(x, m, st, src, dst);
	if (*fstype)
		return fs_mount(x, m, st, dst, fstype);
	return nj_note(x, &m->at, "mount %.200s: neither is_bind, is_symlink nor an fstype",
		       dst);
}

int nj_translate_mounts(struct nj_xlate *x)
{
	struct mount_state st = { 0 };
	const struct pvalue *m;

	if (choose_workspace(x, &st) < 0)
		return -1;
	for (size_t i = 0; (m = nj_nth(x->top, "mount", i)); i++)
		if (one_mount(x, m, &st) < 0)
			return -1;
	if (nj_bool(x->top, "mount_proc", false) && !st.proc_done) {
		struct ppos at = nj_at(x, x->top, "mount_proc");

		if (nj_add(x, SECT_MOUNTS, &at, mount_line(x, "/proc", "PROC", NULL, ""),
			   "mount_proc") < 0)
			return -1;
	}
	if (!st.etc_done)
		return nj_note(x, NULL, "no mount targets /etc: sbx synthesizes a minimal one "
			       "(passwd, group, hosts, nsswitch.conf, ld.so.cache) so that id "
			       "and the dynamic loader work");
	return 0;
}
