/*
 * test_attack_links.c - the paths sbx opens for its caller (--stdin,
 * --stdout, --stderr, --result, -o) against what an earlier jail planted.
 *
 * The attack: a first `sbx run -w DIR` leaves symbolic links, FIFOs or
 * hard links in DIR; a second run, often root's, names a file in DIR for
 * its output, its record or its input.  Followed, the link wrote root's
 * file with the program's bytes or the record, handed the program a file
 * only root can read, or dropped -o's files into any directory.  Every
 * plant here is made by a real first run; each test checks what the
 * caller sees (exit 125, the option named) and that the file outside is
 * untouched.
 */
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PRECIOUS "precious, not the program's\n"

/* The outputs that take a path; each is tried with every plant. */
static const char *const outputs[] = { "--stdout", "--stderr", "--result" };
#define NOUT (sizeof(outputs) / sizeof(outputs[0]))

/* One test's tree: BASE/ws is the workspace, BASE/outside/victim the
 * caller's file that no plant may reach. */
struct tree {
	char *base, *ws, *outside, *victim;
};

static void tree_make(struct tree *t)
{
	t->base = make_temp_dir();
	t->ws = xasprintf("%s/ws", t->base);
	t->outside = xasprintf("%s/outside", t->base);
	cr_assert_eq(mkdir(t->ws, 0755), 0);
	cr_assert_eq(mkdir(t->outside, 0755), 0);
	t->victim = put_test_file(t->outside, "victim", PRECIOUS);
}

static void tree_free(struct tree *t)
{
	rm_tree(t->base);
	free(t->base);
	free(t->ws);
	free(t->outside);
	free(t->victim);
}

/* A first run plants with SCRIPT in the workspace (its cwd); the outside
 * tree is bound at /mnt/b for the hard-link plants, which need one mount. */
static void plant(const struct tree *t, const char *script)
{
	char *bind = xasprintf("%s:/mnt/b", t->base);
	struct sbx_result r;

	sbx_run_sh(&r, NULL, SBX_ARGV("-w", t->ws, "-B", bind), script);
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
	free(bind);
}

static void assert_victim_intact(const struct tree *t, const char *what)
{
	char *now = slurp_file(t->victim);

	cr_assert_str_eq(now, PRECIOUS, "%s: the file outside was changed", what);
	free(now);
}

/* `sbx run OPTION VALUE -- echo ...` from the workspace: refused, 125,
 * the option named, with WORD in the message. */
static void assert_refused(const struct tree *t, const char *option, const char *value,
			   const char *word)
{
	const struct sbx_opts o = { .cwd = t->ws, .deadline_s = 15 };
	struct sbx_result r;

	sbx_run_sh(&r, &o, SBX_ARGV(option, value), "echo forged; echo forged >&2");
	cr_assert(!r.timed_out, "%s %s: sbx hung", option, value);
	cr_assert_eq(r.exit_status, 125, "%s %s: exit %d; stderr: %s", option, value,
		     r.exit_status, r.err);
	cr_assert(strstr(r.err, option), "%s %s: stderr does not name it: %s", option, value,
		  r.err);
	cr_assert(strstr(r.err, word), "%s %s: stderr does not say '%s': %s", option, value,
		  word, r.err);
	sbx_result_free(&r);
	assert_victim_intact(t, option);
}

/* `ln -s /root/x out.txt` in run 1; `--stdout out.txt` in run 2 wrote the
 * program's bytes (or --result the record) over the link's target. */
Test(attack_links, an_output_never_follows_a_link_planted_as_its_name)
{
	struct tree t;

	REQUIRE_USERNS();
	tree_make(&t);
	char *script = xasprintf("ln -s %s out.txt", t.victim);
	plant(&t, script);
	for (size_t i = 0; i < NOUT; i++)
		assert_refused(&t, outputs[i], "out.txt", "is a symbolic link");
	free(script);
	tree_free(&t);
}

/* `ln -s /root res` in run 1; `--result res/rec.json` in run 2: only the
 * last component was opened without following, so the record was made
 * (or overwrote a file) in any directory. */
Test(attack_links, an_output_never_follows_a_link_planted_as_a_parent)
{
	const char *const names[] = { "res/victim", "res/new.txt", "./res//new.txt" };
	struct tree t;

	REQUIRE_USERNS();
	tree_make(&t);
	char *script = xasprintf("ln -s %s res", t.outside);
	plant(&t, script);
	for (size_t i = 0; i < NOUT; i++)
		for (size_t k = 0; k < 3; k++) {
			char *abs = xasprintf("%s/%s", t.ws, names[k]);
			assert_refused(&t, outputs[i], k == 1 ? abs : names[k],
				       "res' is a symbolic link");
			free(abs);
		}
	cr_assert_eq(count_entries(t.outside), 1, "a file was created through the link");
	free(script);
	tree_free(&t);
}

/* `mkfifo out.txt` in run 1: opening it for writing blocked sbx (no
 * reader), or, with a reader, sent the output to whoever read it. */
Test(attack_links, an_output_refuses_a_planted_fifo_without_blocking)
{
	struct tree t;

	REQUIRE_USERNS();
	tree_make(&t);
	plant(&t, "mkfifo out.fifo");
	char *fifo = xasprintf("%s/out.fifo", t.ws);
	for (size_t i = 0; i < NOUT; i++)
		assert_refused(&t, outputs[i], "out.fifo", "FIFO");
	/* with a reader the open succeeds: what it opened is refused */
	int reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	cr_assert(reader >= 0);
	for (size_t i = 0; i < NOUT; i++)
		assert_refused(&t, outputs[i], "out.fifo", "FIFO");
	char buf[64];
	cr_assert_leq(read(reader, buf, sizeof(buf)), 0, "bytes reached the FIFO's reader");
	close(reader);
	free(fifo);
	tree_free(&t);
}

/* A hard link in the workspace to a file outside (one mount, so `ln`
 * works): truncating it in place rewrote the file outside. */
Test(attack_links, an_output_refuses_a_planted_hard_link)
{
	struct tree t;

	REQUIRE_USERNS();
	tree_make(&t);
	plant(&t, "ln /mnt/b/outside/victim /mnt/b/ws/out.txt");
	for (size_t i = 0; i < NOUT; i++)
		assert_refused(&t, outputs[i], "out.txt", "hard link");
	tree_free(&t);
}

/* `--stdin in.txt`, in.txt (or a parent) a planted link or a hard link to
 * a file only the caller may read: the program read it through sbx. */
Test(attack_links, stdin_never_reads_through_a_planted_link)
{
	const char *const names[] = { "in.txt", "sub/victim", "hard.txt" };
	const char *const words[] = { "'in.txt' is a symbolic link",
				      "'sub' is a symbolic link", "hard link" };
	struct sbx_result r;
	struct tree t;

	REQUIRE_USERNS();
	tree_make(&t);
	chmod(t.victim, 0600);
	char *script = xasprintf("ln -s %s in.txt; ln -s %s sub; "
				 "ln /mnt/b/outside/victim /mnt/b/ws/hard.txt",
				 t.victim, t.outside);
	plant(&t, script);
	for (size_t i = 0; i < 3; i++) {
		const struct sbx_opts o = { .cwd = t.ws, .deadline_s = 15 };

		sbx_run(&r, &o, SBX_ARGV("run", "--stdin", names[i], "--", "/bin/cat"));
		cr_assert_eq(r.exit_status, 125, "--stdin %s: exit %d; stderr: %s", names[i],
			     r.exit_status, r.err);
		cr_assert(!strstr(r.out, "precious"), "--stdin %s: the program read it",
			  names[i]);
		cr_assert(strstr(r.err, "--stdin") && strstr(r.err, words[i]),
			  "--stdin %s: stderr: %s", names[i], r.err);
		sbx_result_free(&r);
	}
	free(script);
	tree_free(&t);
}

/* `ln -s /root res` in run 1; `-o res/jobs` in run 2 made root's
 * /root/jobs and copied the program's files into it. */
Test(attack_links, out_dir_never_follows_a_planted_link_on_its_way)
{
	const char *const dirs[] = { "res", "res/jobs", "res/jobs/", "./res/./jobs" };
	struct tree t;

	REQUIRE_USERNS();
	tree_make(&t);
	char *script = xasprintf("ln -s %s res", t.outside);
	plant(&t, script);
	for (size_t i = 0; i < 4; i++) {
		const struct sbx_opts o = { .cwd = t.ws, .deadline_s = 15 };
		struct sbx_result r;

		sbx_run_sh(&r, &o, SBX_ARGV("-o", dirs[i]), "echo forged > victim");
		cr_assert_eq(r.exit_status, 125, "-o %s: exit %d; stderr: %s", dirs[i],
			     r.exit_status, r.err);
		cr_assert(strstr(r.err, "--out") && strstr(r.err, "'res' is a symbolic link"),
			  "-o %s: stderr: %s", dirs[i], r.err);
		sbx_result_free(&r);
	}
	cr_assert_eq(count_entries(t.outside), 1, "-o made something through the link");
	assert_victim_intact(&t, "-o");
	free(script);
	tree_free(&t);
}

/* `ln -s /root res` in run 1; root's `-w res/ws` in run 2 idmapped a
 * directory of root's to the jail (only the last component was checked). */
Test(attack_links, workdir_never_follows_a_planted_link_on_its_way)
{
	const struct sbx_opts o = { .deadline_s = 15 };
	struct sbx_result r;
	struct tree t;

	REQUIRE_USERNS();
	tree_make(&t);
	char *script = xasprintf("ln -s %s res", t.outside);
	plant(&t, script);
	char *inner = xasprintf("%s/in", t.outside), *via = xasprintf("%s/res/in", t.ws);
	cr_assert_eq(mkdir(inner, 0755), 0);
	sbx_run_sh(&r, &o, SBX_ARGV("-w", via), "echo forged > /mnt/data/planted");
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert(strstr(r.err, "--workdir") && strstr(r.err, "res' is a symbolic link"),
		  "stderr: %s", r.err);
	cr_assert_eq(count_entries(inner), 0, "the jail wrote through the link");
	sbx_result_free(&r);
	free(inner);
	free(via);
	free(script);
	tree_free(&t);
}

/* A FIFO planted as -o DIR is no directory: refused at once, not opened. */
Test(attack_links, out_dir_refuses_a_planted_fifo)
{
	const struct sbx_opts o = { .deadline_s = 15 };
	struct sbx_result r;
	struct tree t;

	REQUIRE_USERNS();
	tree_make(&t);
	plant(&t, "mkfifo res");
	char *res = xasprintf("%s/res", t.ws);
	sbx_run_sh(&r, &o, SBX_ARGV("-o", res), "true");
	cr_assert(!r.timed_out, "sbx hung on the FIFO");
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert(strstr(r.err, "--out"), "stderr: %s", r.err);
	sbx_result_free(&r);
	free(res);
	tree_free(&t);
}

/* A hard link planted in -o DIR under the name the program's file gets:
 * the copy replaces the name, it never writes through to the file outside. */
Test(attack_links, out_dir_replaces_a_planted_hard_link_never_writes_through)
{
	struct sbx_result r;
	struct tree t;

	REQUIRE_USERNS();
	tree_make(&t);
	plant(&t, "mkdir /mnt/b/ws/o && ln /mnt/b/outside/victim /mnt/b/ws/o/f");
	char *out = xasprintf("%s/o", t.ws);
	sbx_run_sh(&r, NULL, SBX_ARGV("-o", out), "echo forged > f");
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
	assert_victim_intact(&t, "-o");
	char *copy = xasprintf("%s/f", out), *got = slurp_file(copy);
	cr_assert_str_eq(got, "forged\n");
	free(got);
	free(copy);
	free(out);
	tree_free(&t);
}

/* What must keep working: a new file, the caller's own file overwritten
 * (shorter: truncated), and a character device. */
Test(attack_links, outputs_to_plain_files_and_devices_still_work)
{
	char *dir = make_temp_dir();
	const struct sbx_opts o = { .cwd = dir };
	char *old = put_test_file(dir, "old.txt", "a much longer old content\n");
	struct sbx_result r;

	char *sub = xasprintf("%s/sub", dir);

	REQUIRE_USERNS();
	cr_assert_eq(mkdir(sub, 0755), 0); /* ".." is no link: allowed */
	free(sub);
	sbx_run_sh(&r, &o, SBX_ARGV("--stdout", "new.txt", "--stderr", "old.txt", "-r",
				    "sub/../rec.json"), "echo out; echo err >&2");
	cr_assert_eq(r.exit_status, 0, "exit %d; stderr: %s", r.exit_status, r.err);
	sbx_result_free(&r);
	char *p = xasprintf("%s/new.txt", dir), *got = slurp_file(p);
	cr_assert_str_eq(got, "out\n");
	free(got);
	free(p);
	got = slurp_file(old);
	cr_assert_str_eq(got, "err\n");
	free(got);
	p = xasprintf("%s/rec.json", dir);
	got = slurp_file(p);
	cr_assert(strstr(got, "\"status\":\"ok\""), "record: %s", got);
	free(got);
	free(p);
	sbx_run_sh(&r, &o, SBX_ARGV("--stdout", "/dev/null"), "echo out");
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
	free(old);
	rm_tree(dir);
	free(dir);
}

/* A directory is no output file: refused, named, never opened for writing. */
Test(attack_links, an_output_that_is_a_directory_is_refused)
{
	char *dir = make_temp_dir();
	const struct sbx_opts o = { .cwd = dir };
	struct sbx_result r;

	REQUIRE_USERNS();
	for (size_t i = 0; i < NOUT; i++) {
		sbx_run_sh(&r, &o, SBX_ARGV(outputs[i], "."), "true");
		cr_assert_eq(r.exit_status, 125, "%s .: exit %d", outputs[i], r.exit_status);
		cr_assert(strstr(r.err, outputs[i]) && strstr(r.err, "directory"),
			  "%s .: stderr: %s", outputs[i], r.err);
		sbx_result_free(&r);
	}
	rm_tree(dir);
	free(dir);
}

/* /dev/stdout, /dev/stderr, /dev/stdin and /dev/fd/N are sbx's own
 * descriptors (/dev/fd is a link, so by path they would be refused):
 * each is used as the descriptor it names. */
Test(attack_links, sbxs_own_descriptors_by_name_still_work)
{
	char *dir = make_temp_dir();
	char *in = put_test_file(dir, "in.txt", "from fd 3\n");
	char *cmd = xasprintf(
		"cd %s && S='%s' && "
		"echo a | \"$S\" run -q --stdin /dev/stdin -- /bin/cat && "
		"\"$S\" run -q --stdout /dev/stdout -- /bin/echo b | cat && "
		"\"$S\" run -q --stderr /dev/stderr -- /bin/sh -c 'echo c >&2' 2>&1 >/dev/null && "
		"\"$S\" run -q --stdin /dev/fd/3 -- /bin/cat 3<in.txt && "
		"\"$S\" run -q --stdout /dev/fd/4 -- /bin/echo d 4>d.txt >/dev/null && cat d.txt && "
		"\"$S\" run -r /dev/stderr -- /bin/true 2>&1 | grep -c '\"status\":\"ok\"' && "
		"\"$S\" run -r - -- /bin/true | grep -c '\"status\":\"ok\"' && "
		"\"$S\" run -r /dev/fd/5 -- /bin/true 5>r.json && grep -c '\"status\":\"ok\"' r.json",
		dir, sbx_path());
	char *out;

	REQUIRE_USERNS();
	int st = host_sh(cmd, &out);
	cr_assert_eq(st, 0, "exit %d: %s", st, out);
	cr_assert_str_eq(out, "a\nb\nb\nc\nc\nfrom fd 3\nd\n1\n1\n1\n");
	free(out);
	free(cmd);
	free(in);
	rm_tree(dir);
	free(dir);
}

/* /dev/fd/N of a descriptor the caller did not open: by the time sbx used
 * it, N was one of sbx's own files (its epoll or signalfd), and the
 * program's output went there.  It is refused up front. */
Test(attack_links, a_dev_fd_that_is_not_open_is_refused)
{
	static const char *const opts[] = { "--stdin", "--stdout", "--stderr", "--result" };
	struct sbx_result r;

	REQUIRE_USERNS();
	for (size_t i = 0; i < 4; i++) {
		sbx_run(&r, NULL, SBX_ARGV("run", opts[i], "/dev/fd/9", "--", "/bin/echo", "x"));
		cr_assert_eq(r.exit_status, 125, "%s /dev/fd/9: exit %d; stderr: %s", opts[i],
			     r.exit_status, r.err);
		cr_assert(strstr(r.err, opts[i]) && strstr(r.err, "fd 9 is not open"),
			  "%s: stderr: %s", opts[i], r.err);
		sbx_result_free(&r);
	}
}
