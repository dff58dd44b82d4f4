#!/bin/sh
# GNU parallel: many untrusted tasks, one sbx jail each, on this host or
# across hosts.  Run by the test suite (tests/integration/test_engines.c).
#
#   sh contrib/engines/parallel.sh OUTDIR [INPUT...]
#
# Each input N gets its own jail; the program's stdout goes to OUTDIR/N.out
# and sbx's record to OUTDIR/N.json; parallel's --joblog keeps sbx's exit
# status per task (0, the program's own, 124 limit, 125 sbx could not run
# it: the record's message says why).  Across hosts, add
#   -S host1,host2 --transferfile {} --return OUTDIR/{}.json --cleanup
# with sbx installed on each host (`ssh host sbx doctor` checks one).
# xargs does the same on one host:
#   printf '%s\n' 1 2 3 | xargs -P4 -I{} sbx run -q -r OUTDIR/{}.json -- ...
set -eu
out=$1
shift
[ $# -gt 0 ] || set -- 1 2 3 4 5 6
: "${SBX:=sbx}"
mkdir -p "$out"
# -q: no record on stderr (it is in -r); --halt never: one failed task
# must not cancel the others
parallel --jobs 2 --halt never --joblog "$out/joblog" \
	"$SBX" run -q --time 20s --memory 256M --pids 16 -r "$out/{}.json" \
	-- /bin/sh -c "'echo \$((\$1 * \$1))'" task {} ">" "$out/{}.out" ::: "$@"
