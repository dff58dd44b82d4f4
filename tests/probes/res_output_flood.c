/* res_output_flood - 64 MiB of stdout must be cut at the output limit (the flood would fill the caller's disk or memory). */
#include "probe.h"

int main(void)
{
	static char line[4096];
	long total = 0;

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	while (total < 64L << 20) {
		ssize_t n = write(1, line, sizeof(line));
		if (n <= 0)
			blocked("write to stdout failed after %ld bytes: %s", total, errname(errno));
		total += n;
	}
	fprintf(stderr, "ESCAPED: wrote %ld bytes\n", total);
	return 1;
}
