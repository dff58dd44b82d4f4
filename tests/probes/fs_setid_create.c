/*
 * fs_setid_create - every way of creating a file that could leave a
 * set-id program or a device node on a host-backed mount (a -B bind or a
 * -w workspace, the working directory here).  Run by root, the jail's
 * files there are root's on the host, and a setuid file keeps its bit when
 * root later copies a program into it (CAP_FSETID), so a file created with
 * mode 06755 is a setuid-root program waiting for content.  Device nodes,
 * whiteouts (c 0 0) included, are root-owned nodes on the host.
 *
 * Each attempt has a name of its own, "sbx-setid-<how>", so the test can
 * look at what is left on the host.  An attempt escapes if the call
 * succeeded and left a set-id bit or a device; a call that succeeded and
 * left neither (the kernel dropped the bits) is not an escape.  mkdir is
 * tried too: the kernel drops S_ISUID/S_ISGID from its mode itself.
 * Last, a plain file it made is given to root, file capabilities and the
 * immutable flag, which need capabilities the jail must not have.
 * open, creat, mknod and mkdir exist on x86_64 only: elsewhere (aarch64)
 * the *at forms are all there is, and each is tried the same ways.
 */
#include "probe.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

static int refused, first_errno;

/* A version 2 security.capability value granting CAP_SETUID. */
static const struct vfs_cap_data file_caps = {
	.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
	.data = { { .permitted = 1u << CAP_SETUID } },
};

/* What a creating call left at NAME: ESCAPED if a set-id bit or a device. */
static void judge(const char *how, const char *name, long rc)
{
	struct stat st;

	if (rc < 0) {
		if (!first_errno)
			first_errno = errno;
		refused++;
		return;
	}
	if (lstat(name, &st) != 0)
		probe_error("%s succeeded but %s is not there: %s", how, name, errname(errno));
	if (st.st_mode & (S_ISUID | S_ISGID))
		escaped("%s created %s with mode %o", how, name, (unsigned)st.st_mode & 07777);
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		escaped("%s created the device %s (%u:%u)", how, name, major(st.st_rdev),
			minor(st.st_rdev));
}

static void close_if(long fd)
{
	if (fd >= 0)
		close((int)fd);
}

int main(void)
{
	struct open_how oh = { .flags = O_CREAT | O_WRONLY, .mode = 06755 };
	long fd;

#ifdef SYS_open
	fd = syscall(SYS_open, "sbx-setid-open", O_CREAT | O_WRONLY, 06755);
	judge("open(O_CREAT, 06755)", "sbx-setid-open", fd);
	close_if(fd);
#endif

	fd = syscall(SYS_openat, AT_FDCWD, "sbx-setid-openat", O_CREAT | O_EXCL | O_WRONLY, 04755);
	judge("openat(O_CREAT|O_EXCL, 04755)", "sbx-setid-openat", fd);
	close_if(fd);

#ifdef SYS_creat
	fd = syscall(SYS_creat, "sbx-setid-creat", 02755);
	judge("creat(02755)", "sbx-setid-creat", fd);
	close_if(fd);
#endif
	fd = syscall(SYS_openat, AT_FDCWD, "sbx-setid-openat-trunc",
		     O_CREAT | O_WRONLY | O_TRUNC, 02755);
	judge("openat(O_CREAT|O_TRUNC, 02755)", "sbx-setid-openat-trunc", fd);
	close_if(fd);

	/* An unnamed file made with the bits, then given a name. */
	fd = syscall(SYS_openat, AT_FDCWD, ".", O_TMPFILE | O_WRONLY, 06755);
	if (fd >= 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
		judge("open(O_TMPFILE, 06755) + linkat", "sbx-setid-tmpfile",
		      linkat(AT_FDCWD, path, AT_FDCWD, "sbx-setid-tmpfile", AT_SYMLINK_FOLLOW));
		close_if(fd);
	} else {
		judge("open(O_TMPFILE, 06755)", "sbx-setid-tmpfile", fd);
	}

	/* openat2 carries the mode in memory the filter cannot read. */
	fd = syscall(SYS_openat2, AT_FDCWD, "sbx-setid-openat2", &oh, sizeof(oh));
	judge("openat2(O_CREAT, 06755)", "sbx-setid-openat2", fd);
	close_if(fd);

#ifdef SYS_mknod
	judge("mknod(S_IFREG|06755)", "sbx-setid-mknod",
	      syscall(SYS_mknod, "sbx-setid-mknod", S_IFREG | 06755, 0));
#endif
	judge("mknodat(S_IFREG|06755)", "sbx-setid-mknodat-reg",
	      syscall(SYS_mknodat, AT_FDCWD, "sbx-setid-mknodat-reg", S_IFREG | 06755, 0));
	judge("mknodat(0|04755)", "sbx-setid-mknodat",
	      syscall(SYS_mknodat, AT_FDCWD, "sbx-setid-mknodat", 04755, 0));
#ifdef SYS_mknod
	judge("mknod(S_IFCHR 0:0, a whiteout)", "sbx-setid-whiteout",
	      syscall(SYS_mknod, "sbx-setid-whiteout", S_IFCHR | 0644, makedev(0, 0)));
#endif
	judge("mknodat(S_IFCHR 0:0, a whiteout)", "sbx-setid-whiteout-at",
	      syscall(SYS_mknodat, AT_FDCWD, "sbx-setid-whiteout-at", S_IFCHR | 0644,
		      makedev(0, 0)));
	judge("mknodat(S_IFCHR 1:3)", "sbx-setid-chr",
	      syscall(SYS_mknodat, AT_FDCWD, "sbx-setid-chr", S_IFCHR | 0666, makedev(1, 3)));
	judge("mknodat(S_IFBLK 7:0)", "sbx-setid-blk",
	      syscall(SYS_mknodat, AT_FDCWD, "sbx-setid-blk", S_IFBLK | 0600, makedev(7, 0)));
	/* The kernel truncates mknod's mode to 16 bits: a high bit must not
	 * hide a device from the filter. */
#ifdef SYS_mknod
	judge("mknod(0x10000|S_IFCHR 0:0)", "sbx-setid-chr-high",
	      syscall(SYS_mknod, "sbx-setid-chr-high", 0x10000 | S_IFCHR | 0644, makedev(0, 0)));
#endif
	judge("mknodat(0x10000|S_IFCHR 0:0)", "sbx-setid-chr-high-at",
	      syscall(SYS_mknodat, AT_FDCWD, "sbx-setid-chr-high-at", 0x10000 | S_IFCHR | 0644,
		      makedev(0, 0)));

	/* A rename that leaves a whiteout (c 0 0) at the old name. */
	fd = syscall(SYS_openat, AT_FDCWD, "sbx-setid-rename", O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		probe_error("cannot create a plain file: %s", errname(errno));
	close_if(fd);
	judge("renameat2(RENAME_WHITEOUT)", "sbx-setid-rename",
	      syscall(SYS_renameat2, AT_FDCWD, "sbx-setid-rename", AT_FDCWD,
		      "sbx-setid-renamed", RENAME_WHITEOUT));

#ifdef SYS_mkdir
	judge("mkdir(06755)", "sbx-setid-mkdir", syscall(SYS_mkdir, "sbx-setid-mkdir", 06755));
#endif
	judge("mkdirat(02775)", "sbx-setid-mkdirat",
	      syscall(SYS_mkdirat, AT_FDCWD, "sbx-setid-mkdirat", 02775));

	/* What must keep working: a plain file and a FIFO. */
	fd = syscall(SYS_openat, AT_FDCWD, "sbx-setid-plain", O_CREAT | O_WRONLY, 0755);
	if (fd < 0)
		probe_error("openat(O_CREAT, 0755) failed: %s", errname(errno));
	/* The other ways to a privileged inode need capabilities the jail
	 * lacks: an owner of root, file capabilities, the immutable flag. */
	if (fchown((int)fd, 0, 0) == 0)
		escaped("fchown(0, 0) made a host file root's");
	refused++;
	if (fsetxattr((int)fd, "security.capability", &file_caps, sizeof(file_caps), 0) == 0)
		escaped("fsetxattr(security.capability) gave a host file capabilities");
	refused++;
	int flags = FS_IMMUTABLE_FL;
	if (ioctl((int)fd, FS_IOC_SETFLAGS, &flags) == 0)
		escaped("FS_IOC_SETFLAGS made a host file immutable");
	refused++;
	close_if(fd);
	if (mkfifo("sbx-setid-fifo", 0600) != 0)
		probe_error("mkfifo failed: %s", errname(errno));
	if (!refused)
		escaped("no call was refused");
	blocked("%d set-id or device creations refused: %s", refused, errname(first_errno));
}
