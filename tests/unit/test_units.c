/*
 * test_units.c - DUR / SIZE / N values of the command line.
 * A limit that parses to the wrong number is a silent loosening, so every
 * edge is pinned: zero, negatives, junk, inexact fractions, overflow.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "base/units.h"

static uint64_t dur_ok(const char *s)
{
	struct sbx_err err = { 0 };
	uint64_t v = 0;

	cr_assert_eq(units_duration_ms("--time", s, &v, &err), 0, "%s: %s", s, err.msg);
	return v;
}

static const char *dur_bad(const char *s)
{
	static struct sbx_err err;
	uint64_t v = 0;

	memset(&err, 0, sizeof(err));
	cr_assert_eq(units_duration_ms("--time", s, &v, &err), -1, "%s parsed", s);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "--time"), "message names the option: %s", err.msg);
	return err.msg;
}

static uint64_t size_ok(const char *s)
{
	struct sbx_err err = { 0 };
	uint64_t v = 0;

	cr_assert_eq(units_size_bytes("--output", s, &v, &err), 0, "%s: %s", s, err.msg);
	return v;
}

static const char *size_bad(const char *s)
{
	static struct sbx_err err;
	uint64_t v = 0;

	memset(&err, 0, sizeof(err));
	cr_assert_eq(units_size_bytes("--output", s, &v, &err), -1, "%s parsed", s);
	cr_assert(strstr(err.msg, "--output"), "message names the option: %s", err.msg);
	return err.msg;
}

Test(units, durations_in_every_documented_form)
{
	cr_expect_eq(dur_ok("250ms"), 250);
	cr_expect_eq(dur_ok("2s"), 2000);
	cr_expect_eq(dur_ok("1.5s"), 1500);
	cr_expect_eq(dur_ok("3m"), 180000);
	cr_expect_eq(dur_ok("1h"), 3600000);
	cr_expect_eq(dur_ok("7"), 7000);
	cr_expect_eq(dur_ok("0.25"), 250);
	cr_expect_eq(dur_ok("1.500000000000000000000000s"), 1500);
}

Test(units, zero_duration_is_refused_because_every_duration_is_a_limit)
{
	cr_expect(strstr(dur_bad("0"), "greater than 0"));
	dur_bad("0ms");
	dur_bad("0.0s");
}

Test(units, junk_and_negative_durations_name_the_accepted_forms)
{
	const char *msg = dur_bad("5q");

	cr_expect(strstr(msg, "invalid duration '5q'"), "%s", msg);
	cr_expect(strstr(msg, "250ms"), "%s", msg);
	dur_bad("-1");
	dur_bad("");
	dur_bad(" 2s");
	dur_bad("2s ");
	dur_bad("1.");
	dur_bad(".5s");
	dur_bad("1e3");
	dur_bad("+2s");
	dur_bad("2 s");
	dur_bad("2S");
}

Test(units, fractions_that_miss_a_whole_millisecond_are_refused_not_rounded)
{
	cr_expect(strstr(dur_bad("1.0001ms"), "whole number"));
	dur_bad("0.5ms");
	dur_bad("1.0005s");
}

Test(units, overflowing_durations_are_refused_not_wrapped)
{
	cr_expect(strstr(dur_bad("18446744073709551616"), "too large"));
	dur_bad("99999999999999h");
	dur_bad("18446744073709551615s");
	cr_expect_eq(dur_ok("18446744073709551615ms"), UINT64_MAX);
}

Test(units, sizes_in_binary_units_with_optional_b_or_ib)
{
	cr_expect_eq(size_ok("4096"), 4096);
	cr_expect_eq(size_ok("64K"), 65536);
	cr_expect_eq(size_ok("64k"), 65536);
	cr_expect_eq(size_ok("512M"), 512ull << 20);
	cr_expect_eq(size_ok("2G"), 2ull << 30);
	cr_expect_eq(size_ok("1T"), 1ull << 40);
	cr_expect_eq(size_ok("64KB"), 65536);
	cr_expect_eq(size_ok("64KiB"), 65536);
	cr_expect_eq(size_ok("100B"), 100);
	cr_expect_eq(size_ok("1.5K"), 1536);
}

Test(units, bad_sizes_are_refused_with_the_accepted_forms)
{
	cr_expect(strstr(size_bad("5q"), "64K"));
	size_bad("0");
	size_bad("-1");
	size_bad("");
	size_bad("1.3K");
	size_bad("1.5");
	size_bad("16777216T");
	size_bad("18446744073709551616");
	size_bad("1Kb");
	size_bad("1KiBB");
	size_bad("1P");
}

Test(units, memory_must_be_a_whole_number_of_mib)
{
	struct sbx_err err = { 0 };
	uint64_t mib = 0;

	cr_expect_eq(units_size_mib("--memory", "512M", &mib, &err), 0);
	cr_expect_eq(mib, 512);
	cr_expect_eq(units_size_mib("--memory", "1.5G", &mib, &err), 0);
	cr_expect_eq(mib, 1536);
	cr_expect_eq(units_size_mib("--memory", "1.5K", &mib, &err), -1);
	cr_expect(strstr(err.msg, "multiple of 1M"), "%s", err.msg);
	cr_expect_eq(units_size_mib("--memory", "1000000", &mib, &err), -1);
}

Test(units, counts_are_plain_positive_integers)
{
	struct sbx_err err = { 0 };
	uint64_t n = 0;

	cr_expect_eq(units_count("--pids", "64", &n, &err), 0);
	cr_expect_eq(n, 64);
	cr_expect_eq(units_count("--pids", "0", &n, &err), -1);
	cr_expect_eq(units_count("--pids", "-3", &n, &err), -1);
	cr_expect_eq(units_count("--pids", "1.5", &n, &err), -1);
	cr_expect_eq(units_count("--pids", "1.0", &n, &err), -1);
	cr_expect_eq(units_count("--pids", "10K", &n, &err), -1);
	cr_expect_eq(units_count("--pids", "0x10", &n, &err), -1);
	cr_expect_eq(units_count("--pids", "18446744073709551616", &n, &err), -1);
	cr_expect(strstr(err.msg, "--pids"), "%s", err.msg);
}
