/*
 * fuzz_cli.c - libFuzzer target over the command-line parser: sbx gives
 * a clean error, never a crash, on any malformed option.
 *
 * The input is split at NUL bytes into argv for `sbx run`; it is parsed,
 * applied to a small fixed policy (sealed or not, by the first byte) and
 * turned into the command argv.  No file is read and nothing is run.
 * Build: clang -fsanitize=fuzzer,address,undefined with src/ minus main.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define MAX_ARGS 64

static const char open_policy[] =
	"name: \"f\" workspace: \"/w\" max_limits { wall_time_ms: 5000 }\n"
	"lang { extensions: [\".py\"] run: [\"/bin/py\", \"{file}\", \"{args}\"] }\n";
static const char sealed_policy[] =
	"name: \"s\" sealed: true limits { wall_time_ms: 1000 memory_mb: 64 }\n";

static int split_args(char *buf, size_t len, char **argv)
{
	int argc = 0;

	argv[argc++] = "run";
	for (size_t i = 0; i < len && argc < MAX_ARGS; ) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	return argc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 1], **cmd = NULL;
	const char *text;
	struct cli_options o;
	struct policy p;
	struct sbx_err err;

	if (size < 1 || size > 4096)
		return 0;
	text = (data[0] & 1) ? sealed_policy : open_policy;
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	if (cli_parse(split_args(buf, size - 1, argv), argv, &o, &err) == 0 &&
	    policy_load_text("fuzz.policy", text, strlen(text), &p, &err) == 0) {
		if (policy_apply_overrides(&p, o.overrides, o.noverrides,
					   o.workdir, &err) == 0 &&
		    cli_command_argv(&o, &p, &cmd, &err) == 0)
			argv_free(cmd);
		policy_free(&p);
	}
	cli_options_free(&o);
	free(buf);
	return 0;
}
