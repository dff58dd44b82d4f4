/* net_ifaces - the jail's network namespace must hold only `lo` (/proc/net/dev and if_nameindex). */
#include "probe.h"

#include <net/if.h>

static int only_lo_in_proc(char *seen, size_t cap)
{
	FILE *f = fopen("/proc/net/dev", "r");
	char line[512];
	int others = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue; /* the two header lines */
		*colon = '\0';
		char *name = line + strspn(line, " ");
		strncat(seen, name, cap - strlen(seen) - 2);
		strcat(seen, " ");
		if (strcmp(name, "lo") != 0)
			others++;
	}
	fclose(f);
	return others;
}

int main(void)
{
	char seen[1024] = "";
	int others = only_lo_in_proc(seen, sizeof(seen));
	struct if_nameindex *ifs = if_nameindex();

	/* /proc/net/dev may be hidden; netlink still tells the truth. */
	if (ifs) {
		for (struct if_nameindex *i = ifs; i->if_index; i++)
			if (strcmp(i->if_name, "lo") != 0 && !strstr(seen, i->if_name)) {
				strncat(seen, i->if_name, sizeof(seen) - strlen(seen) - 2);
				strcat(seen, " ");
				others = others < 0 ? 1 : others + 1;
			}
		if_freenameindex(ifs);
	}
	if (others > 0)
		escaped("interfaces besides lo are visible: %s", seen);
	blocked("only lo is visible (%s)", others < 0 ? "no /proc/net/dev" : seen);
}
