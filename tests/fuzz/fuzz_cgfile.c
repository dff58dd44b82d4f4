/*
 * fuzz_cgfile.c - libFuzzer target for the cgroup v2 file parsers
 * (src/supervise/cgfile.c): a delegated subtree is the caller's, so its
 * text is untrusted.  Any input gives an answer or -1, never a crash, and
 * a path that parses is absolute and NUL-terminated within its buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "supervise/cgfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char path[64], name[80];
	uint64_t v;
	size_t count;
	bool only;

	(void)cgfile_key(text, size, "usage_usec", &v);
	(void)cgfile_key(text, size, "oom_kill", &v);
	(void)cgfile_has_word(text, size, "memory");
	(void)cgfile_procs(text, size, 1234, 99, &count, &only);
	if (cgfile_own_path(text, size, path, sizeof(path)) == 0 &&
	    (path[0] != '/' || strlen(path) >= sizeof(path)))
		abort();
	/* the run-name parser takes a C string: the input up to its first NUL */
	size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
	memcpy(name, data, n);
	name[n] = '\0';
	long pid = cgfile_run_owner(name);
	if (pid == 0 || pid < -1)
		abort();
	return 0;
}
