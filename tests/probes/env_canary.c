/*
 * env_canary - host variables must not leak in: tokens (SECRET_TOKEN,
 * AWS_SECRET_ACCESS_KEY), agent sockets (SSH_AUTH_SOCK), loader
 * injection (LD_PRELOAD, LD_LIBRARY_PATH) and SBX_CANARY.
 */
#include "probe.h"

extern char **environ;

static const char *const canaries[] = {
	"SECRET_TOKEN", "AWS_SECRET_ACCESS_KEY", "SSH_AUTH_SOCK", "LD_PRELOAD",
	"LD_LIBRARY_PATH", "SBX_CANARY", NULL
};

int main(void)
{
	char names[1024] = "";

	for (char **e = environ; *e; e++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%.*s ",
			 (int)strcspn(*e, "="), *e);
	for (const char *const *c = canaries; *c; c++)
		if (getenv(*c))
			escaped("%s leaked in (environment: %s)", *c, names);
	blocked("no host canary in the environment (%s)", names);
}
