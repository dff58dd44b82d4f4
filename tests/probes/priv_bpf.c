/* priv_bpf - bpf(2) must fail: a large kernel attack surface (verifier bugs, spectre gadgets). */
#include "probe.h"

#include <linux/bpf.h>
#include <sys/syscall.h>

int main(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	expect_refused(syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr)), "bpf(BPF_MAP_CREATE)");
}
