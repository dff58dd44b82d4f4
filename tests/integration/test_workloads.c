/*
 * test_workloads.c - real code-interpreter work under sbx's own defaults:
 * numpy/pandas/matplotlib with -f and -o, a multiprocessing
 * pool, many threads, Node worker threads, and the memory limit meeting a
 * program that grows past it.  Run as root and as an ordinary user; a
 * runtime or package this host lacks is a SKIP with its name (`make deps`
 * installs them).
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Wall time is a margin for a loaded 2-core host, not what is tested. */
#define WALL "120s"

static void require_file(const char *path, const char *package)
{
	if (access(path, R_OK) != 0)
		cr_skip_test("SKIP: %s is missing (Debian package %s; `make deps`)", path,
			     package);
}

static const struct sbx_opts slow = { .deadline_s = 240 };

/* The interpreter task as a service runs it: a CSV in with -f, a PNG
 * back with -o.  Failed for want of /etc/matplotlibrc and a writable
 * matplotlib config dir; the PNG must belong to whoever ran sbx. */
Test(workload, numpy_pandas_matplotlib_plot_comes_back_owned_by_the_caller)
{
	static const char plot[] =
		"import numpy as np, pandas as pd, matplotlib.pyplot as plt\n"
		"df = pd.read_csv('data.csv')\n"
		"print(int(np.sum(df['y'])))\n"
		"fig, ax = plt.subplots(); ax.plot(df['x'], df['y']); ax.set_title('sbx')\n"
		"fig.savefig('plot.png')\n";
	struct sbx_result r;
	struct stat st;

	REQUIRE_USERNS();
	require_file("/usr/lib/python3/dist-packages/numpy", "python3-numpy");
	require_file("/usr/lib/python3/dist-packages/pandas", "python3-pandas");
	require_file("/usr/lib/python3/dist-packages/matplotlib", "python3-matplotlib");
	char *dir = make_temp_dir();
	char *out = xasprintf("%s/out", dir);
	char *csv = put_test_file(dir, "data.csv", "x,y\n1,2\n2,4\n3,9\n");
	char *py = put_test_file(dir, "plot.py", plot);
	char *png = xasprintf("%s/plot.png", out);

	sbx_run(&r, &slow, SBX_ARGV("run", "--lang", "py", "--time", WALL, "--cpu", "60s",
				    "-f", csv, "-o", out, "--", py));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "15\n");
	cr_assert_eq(stat(png, &st), 0, "no %s; stderr: %s", png, r.err);
	cr_assert_gt(st.st_size, 1000);
	cr_assert_eq(st.st_uid, getuid(), "plot.png belongs to uid %u", (unsigned)st.st_uid);
	sbx_result_free(&r);
	rm_tree(dir);
	free(png), free(py), free(csv), free(out), free(dir);
}

/* multiprocessing.Pool needs POSIX semaphores: /dev/shm (there was none). */
Test(workload, python_pool_of_4_processes_under_default_limits)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &slow, SBX_ARGV("run", "--time", WALL, "--", "/usr/bin/python3", "-c",
				    "import multiprocessing as mp\n"
				    "if __name__ == '__main__':\n"
				    "    with mp.Pool(4) as p: print(sum(p.map(abs, range(-50, 50))))\n"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "2500\n");
	sbx_result_free(&r);
}

/* glibc reserves a 64 MiB arena per thread: 16 threads passed RLIMIT_AS's
 * 512 MiB in reservations alone (VmSize 1.1 GiB, VmData 135 MiB). */
Test(workload, python_32_threads_under_default_limits)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &slow, SBX_ARGV("run", "--time", WALL, "--", "/usr/bin/python3", "-c",
				    "import threading\n"
				    "ev = threading.Event()\n"
				    "ts = [threading.Thread(target=ev.wait) for _ in range(32)]\n"
				    "[t.start() for t in ts]\n"
				    "n = threading.active_count(); ev.set(); [t.join() for t in ts]\n"
				    "print(n - 1)\n"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "32\n");
	sbx_result_free(&r);
}

/* V8 reserves gigabytes per isolate: worker_threads aborted (SIGTRAP,
 * "Failed to reserve virtual memory for CodeRange") at the preset's 2 GiB. */
Test(workload, node_4_worker_threads_under_the_node_preset)
{
	static const char js[] =
		"const { Worker } = require('worker_threads');\n"
		"let done = 0;\n"
		"for (let i = 0; i < 4; i++) {\n"
		"  const w = new Worker('require(\"worker_threads\").parentPort.postMessage(1)',"
		" { eval: true });\n"
		"  w.on('message', () => { if (++done === 4) console.log('workers 4'); });\n"
		"}\n";
	struct sbx_result r;

	REQUIRE_USERNS();
	if (access("/usr/bin/node", X_OK) != 0)
		cr_skip_test("SKIP: /usr/bin/node is missing (Debian package nodejs; `make deps`)");
	char *dir = make_temp_dir();
	char *file = put_test_file(dir, "workers.js", js);

	sbx_run(&r, &slow, SBX_ARGV("run", "--lang", "node", "--time", WALL, "--", file));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "workers 4\n");
	sbx_result_free(&r);
	rm_tree(dir);
	free(file), free(dir);
}

/* A program that grows past memory_mb meets the meter, not an allocation
 * failure the record cannot explain: RLIMIT_AS made this a MemoryError
 * and nonzero-exit, with nothing in the record pointing at memory. */
Test(workload, program_growing_past_the_memory_limit_is_memory_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &slow, SBX_ARGV("run", "--time", WALL, "--memory", "256M", "--",
				    "/usr/bin/python3", "-c",
				    "x = []\nwhile True: x.append(b'x' * (1 << 20))\n"));
	ASSERT_STATUS(&r, "memory-limit");
	cr_assert_eq(r.exit_status, 124);
	cr_assert(strstr(rec_str(&r, "message"), "memory_mb = 256"), "%s", rec_str(&r, "message"));
	cJSON *enf = cJSON_GetObjectItem(cJSON_GetObjectItem(r.record, "limits"), "enforced_by");
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(enf, "memory")),
			 "rlimit-data+supervisor");
	sbx_result_free(&r);
}

/* Four children of 150 MiB in a memory-limit run: max_rss_kib said 1120
 * KiB (the init's own; the children died with it, never reaped). */
Test(workload, max_rss_kib_counts_children_killed_with_the_jail)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &slow, SBX_ARGV("run", "--time", WALL, "--memory", "512M", "--",
				    "/usr/bin/python3", "-c",
				    "import os, time\n"
				    "for i in range(4):\n"
				    "    if os.fork() == 0:\n"
				    "        x = b'x' * (150 << 20); time.sleep(5); os._exit(0)\n"
				    "    time.sleep(0.5)\n"
				    "os.wait()\n"));
	ASSERT_STATUS(&r, "memory-limit");
	cr_assert_geq(rec_num(&r, "max_rss_kib"), 140 * 1024, "max_rss_kib %.0f",
		      rec_num(&r, "max_rss_kib"));
	sbx_result_free(&r);
}

/* /dev/shm is a sized tmpfs whose files count against memory_mb. */
Test(workload, dev_shm_files_count_against_the_memory_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &slow, SBX_ARGV("run", "--time", WALL, "--memory", "40M", "--", "/bin/sh",
				    "-c", "head -c 50M /dev/zero > /dev/shm/f; sleep 5"));
	ASSERT_STATUS(&r, "memory-limit");
	sbx_result_free(&r);
}

/* The synthesized /etc carries the public host files runtimes read. */
Test(workload, synthesized_etc_has_the_reviewed_host_files)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_file("/etc/os-release", "base-files");
	sbx_run(&r, &slow, SBX_ARGV("run", "--time", WALL, "--", "/bin/sh", "-c",
				    "grep -q '^ID=' /etc/os-release && echo os-release;"
				    "test -e /etc/localtime && echo localtime;"
				    "test -e /etc/passwd && echo passwd;"
				    "test -e /etc/shadow || echo no-shadow"));
	ASSERT_STATUS(&r, "ok");
	assert_has_line(r.out, "os-release");
	assert_has_line(r.out, "passwd");
	assert_has_line(r.out, "no-shadow");
	if (access("/etc/localtime", R_OK) == 0)
		assert_has_line(r.out, "localtime");
	sbx_result_free(&r);
}
