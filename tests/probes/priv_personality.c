/*
 * priv_personality - personalities other than the default must be refused:
 * READ_IMPLIES_EXEC makes every readable mapping executable, PER_LINUX32
 * and friends change address-space layout (old kernel bugs, ASLR loss).
 */
#include "probe.h"

#include <sys/personality.h>

static int try_persona(unsigned long p, const char *name, char *report, size_t n)
{
	int old = personality(0xffffffff);
	int rc = personality(p);
	int e = errno;

	if (rc != -1 && personality(0xffffffff) == (int)p) {
		personality((unsigned long)old);
		return 1;
	}
	snprintf(report + strlen(report), n - strlen(report), "%s: %s; ", name,
		 rc == -1 ? strerrorname_np(e) : "silently ignored");
	return 0;
}

int main(void)
{
	char report[256] = "";

	if (try_persona(READ_IMPLIES_EXEC, "READ_IMPLIES_EXEC", report, sizeof(report)))
		escaped("personality(READ_IMPLIES_EXEC) took effect");
	if (try_persona(PER_LINUX32, "PER_LINUX32", report, sizeof(report)))
		escaped("personality(PER_LINUX32) took effect");
	if (try_persona(ADDR_NO_RANDOMIZE, "ADDR_NO_RANDOMIZE", report, sizeof(report)))
		escaped("personality(ADDR_NO_RANDOMIZE) took effect");
	blocked("%s", report);
}
