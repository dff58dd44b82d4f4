/*
 * schema_mount.c - the policy's mount entries applied on top of a struct
 * policy: each field checked and converted, the entry checked as a whole
 * (type, dst, src by type), then merged: a mount replaces an earlier one
 * with the same dst (how a file overrides what it includes), and a dst
 * may appear only once per file.
 */
#include "policy/internal.h"

#include <stdlib.h>
#include <string.h>

struct mount_fields {
	struct mount_entry m;
	const struct pfield *f[7]; /* per mount_names[] entry, once set */
};

static int mount_field(struct mount_fields *mf, const struct pfield *f, struct sbx_err *err)
{
	const struct pvalue *v = &f->value;
	int idx = -1, e;

	for (size_t i = 0; i < sizeof(mount_names) / sizeof(mount_names[0]); i++)
		if (strcmp(mount_names[i], f->name) == 0)
			idx = (int)i;
	if (idx < 0)
		return unknown_field(err, &f->at, f->name, "mount", NAMES(mount_names));
	if (mf->f[idx])
		return perr(err, &f->at, "duplicate field '%s' in 'mount' (first set at %s:%d:%d)",
			    f->name, mf->f[idx]->at.file, mf->f[idx]->at.line, mf->f[idx]->at.col);
	mf->f[idx] = f;
	switch (idx) {
	case 0: return val_path(v, "mount.dst", &mf->m.dst, err);
	case 1: return val_string(v, "mount.src", &mf->m.src, err);
	case 2:
		if (val_enum(v, "mount.type", NAMES(mount_type_names), &e, err) < 0)
			return -1;
		mf->m.type = (enum mount_type)e;
		return 0;
	case 3: return val_bool(v, "mount.rw", &mf->m.rw, err);
	case 4: return val_uint(v, "mount.size_mb", 1, limit_max[LIM_MEMORY_MB],
				&mf->m.size_mb, err);
	case 5: return val_bool(v, "mount.optional", &mf->m.optional, err);
	default: return val_bool(v, "mount.noexec", &mf->m.noexec, err);
	}
}

static int mount_check_src(const struct mount_fields *mf, const struct ppos *at,
			   struct sbx_err *err)
{
	const struct mount_entry *m = &mf->m;
	const char *type = mount_type_names[m->type], *why;

	if (m->type == MNT_BIND || m->type == MNT_SYMLINK) {
		if (!m->src || !m->src[0])
			return perr(err, at, "'mount' of type %s needs a non-empty 'src'%s", type,
				    m->type == MNT_BIND ? " (the host path)" : " (the link target)");
		if (m->type == MNT_BIND && (why = path_problem(m->src)) != NULL)
			return perr(err, &mf->f[1]->value.at, "'mount.src' %s, got \"%.200s\"", why, m->src);
		return 0;
	}
	if (m->src)
		return perr(err, &mf->f[1]->value.at, "'src' is not used by %s mounts", type);
	return 0;
}

static int mount_check(const struct mount_fields *mf, const struct ppos *at,
		       struct sbx_err *err)
{
	const struct mount_entry *m = &mf->m;

	if (!mf->f[2])
		return perr(err, at, "'mount' needs a 'type' (BIND, TMPFS, PROC, DEV or SYMLINK)");
	if (!m->dst)
		return perr(err, at, "'mount' needs a 'dst' (an absolute path inside the jail)");
	/* the root is always a fresh tmpfs; a mount on it would expose or hide everything */
	if (strcmp(m->dst, "/") == 0)
		return perr(err, &mf->f[0]->value.at, "'mount.dst' must not be \"/\" (the root is always a fresh tmpfs)");
	/* DEV's size_mb promised a /dev/shm it never made: refused, not ignored */
	if (m->size_mb && m->type == MNT_DEV)
		return perr(err, &mf->f[4]->at, "'size_mb' is only for TMPFS mounts: /dev/shm "
			    "is a mount of its own (mount { dst: \"%s/shm\" type: TMPFS "
			    "size_mb: N rw: true })", m->dst);
	if (m->size_mb && m->type != MNT_TMPFS)
		return perr(err, &mf->f[4]->at, "'size_mb' is only for TMPFS mounts");
	return mount_check_src(mf, at, err);
}

/* Replace the entry with the same dst (the override mechanism) or append. */
static int mount_merge(struct policy *p, struct mount_entry *m, struct sbx_err *err)
{
	struct mount_entry *v;

	for (size_t i = 0; i < p->nmounts; i++) {
		if (strcmp(p->mounts[i].dst, m->dst) == 0) {
			free(p->mounts[i].dst);
			free(p->mounts[i].src);
			p->mounts[i] = *m;
			return 0;
		}
	}
	v = realloc(p->mounts, (p->nmounts + 1) * sizeof(*v));
	if (!v)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	p->mounts = v;
	p->mounts[p->nmounts++] = *m;
	return 0;
}

static int apply_mount(struct policy *p, const struct pvalue *v, const struct ppos *at,
		       struct file_state *fs, struct sbx_err *err)
{
	struct mount_fields mf = { 0 };
	if (v->kind != PV_MESSAGE)
		return perr(err, &v->at, "'mount' entries are messages; write mount { ... }");
	for (size_t i = 0; i < v->nfields; i++)
		if (mount_field(&mf, &v->fields[i], err) < 0)
			goto fail;
	if (mount_check(&mf, at, err) < 0)
		goto fail;
	if (once_named(fs, "mount destination", mf.m.dst, strlen(mf.m.dst), &mf.f[0]->value.at,
		       err) < 0)
		goto fail;
	mf.m.at = origin_at(at);
	if (mount_merge(p, &mf.m, err) < 0)
		goto fail;
	return 0;
fail:
	free(mf.m.dst);
	free(mf.m.src);
	return -1;
}

int apply_mounts(struct policy *p, const struct pfield *f, struct file_state *fs,
		 struct sbx_err *err)
{
	size_t n;
	const struct pvalue *items = items_of(&f->value, &n);

	for (size_t i = 0; i < n; i++) {
		if (p->nmounts >= POLICY_MAX_ENTRIES)
			return perr(err, &items[i].at, "too many 'mount' entries (at most %d)",
				    POLICY_MAX_ENTRIES);
		if (apply_mount(p, &items[i], n == 1 ? &f->at : &items[i].at, fs, err) < 0)
			return -1;
	}
	return 0;
}
