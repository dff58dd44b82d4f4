/* fs_root_home - /root (host root's keys and history) must be absent or unreadable. */
#include "probe.h"

#include <dirent.h>

int main(void)
{
	DIR *d = opendir("/root");
	struct dirent *e;

	if (!d)
		blocked("opendir /root failed: %s", errname(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			escaped("/root is listable and holds %s", e->d_name);
	closedir(d);
	blocked("/root exists but is empty");
}
