/*
 * nsfloor.c - what the kernel alone charges for a jail's namespaces.
 *
 * Times clone()+waitpid() of a child that exits at once, for growing sets
 * of namespace flags, so the benchmark can say how much of sbx's start-up
 * is the kernel's floor and how much is sbx's own work.
 *
 * usage: nsfloor [RUNS]   -> one JSON object: {"none":{"median_ms":..},..}
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#define STACK_SIZE (64 * 1024)

struct variant {
	const char *name;
	int flags;
};

static const struct variant variants[] = {
	{ "none", 0 },
	{ "user", CLONE_NEWUSER },
	{ "user+mount", CLONE_NEWUSER | CLONE_NEWNS },
	{ "user+mount+pid", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID },
	{ "user+net", CLONE_NEWUSER | CLONE_NEWNET },
	{ "all7", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |
		  CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP },
};

static int child_main(void *arg)
{
	(void)arg;
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of RUNS clone+wait round trips with FLAGS, or -1 when clone fails. */
static double time_variant(int flags, char *stack, double *samples, int runs)
{
	for (int i = 0; i < runs; i++) {
		double t0 = now_ms();
		pid_t pid = clone(child_main, stack + STACK_SIZE, flags | SIGCHLD, NULL);
		if (pid < 0)
			return -1;
		if (waitpid(pid, NULL, 0) < 0)
			return -1;
		samples[i] = now_ms() - t0;
	}
	qsort(samples, runs, sizeof(double), cmp_double);
	return samples[runs / 2];
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 200;
	if (runs < 1 || runs > 100000)
		runs = 200;
	char *stack = malloc(STACK_SIZE);
	double *samples = calloc((size_t)runs, sizeof(double));
	if (!stack || !samples)
		return 1;
	printf("{");
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		double med = time_variant(variants[i].flags, stack, samples, runs);
		printf("%s\"%s\":", i ? "," : "", variants[i].name);
		if (med < 0)
			printf("null");
		else
			printf("{\"median_ms\":%.4f}", med);
	}
	printf("}\n");
	free(samples);
	free(stack);
	return 0;
}
