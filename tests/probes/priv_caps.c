/*
 * priv_caps - the jailed program must hold no capability at all and be
 * locked: CapInh/CapPrm/CapEff/CapBnd/CapAmb exactly 0000000000000000,
 * NoNewPrivs 1 and Seccomp 2 (filter mode).  Exact values, not "mount
 * fails", which proves nothing about the capability sets.
 */
#include "probe.h"

static const char *const zero_fields[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", NULL };

int main(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256], key[64], val[128], bad[1024] = "";
	int found = 0;

	if (!f)
		probe_error("open /proc/self/status: %s", errname(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63[^:]: %127s", key, val) != 2)
			continue;
		for (const char *const *z = zero_fields; *z; z++)
			if (!strcmp(key, *z) && (found++, strcmp(val, "0000000000000000")))
				snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), "%s=%s ", key, val);
		if (!strcmp(key, "NoNewPrivs") && (found++, strcmp(val, "1")))
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), "NoNewPrivs=%s ", val);
		if (!strcmp(key, "Seccomp") && (found++, strcmp(val, "2")))
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), "Seccomp=%s ", val);
	}
	fclose(f);
	if (found != 7)
		probe_error("only %d of the 7 fields found in /proc/self/status", found);
	if (bad[0])
		escaped("%s", bad);
	blocked("no capabilities, NoNewPrivs 1, Seccomp 2");
}
